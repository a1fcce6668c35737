//! `replay`, `perft` and `show`: looking at games move by move.

use std::io::Write;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use mancala_core::{with_game, Game, GameSpec, Move, Player};
use serde_json::json;

use crate::bad_input;
use crate::board::render;

/// The game and optional start position shared by several subcommands.
#[derive(Args, Debug, Clone)]
pub struct GameArgs {
    /// Game spec, e.g. kalah, kalah:pits=4,seeds=3, oware:grand_slam=illegal, congkak:rounds=many.
    #[arg(long, short, default_value = "kalah")]
    pub game: String,
    /// Start from this position instead of the initial one
    /// (notation: P0 pits/P1 pits/store0,store1/to-move, e.g. 4,4,4,4,4,4/4,4,4,4,4,4/0,0/0;
    /// multi-round Congkak: x for a burnt hole and a fifth field rROUND,FIRST, e.g. /r2,0).
    #[arg(long)]
    pub position: Option<String>,
}

impl GameArgs {
    /// The parsed game spec; a bad spec is the user's error.
    pub fn spec(&self) -> Result<GameSpec> {
        self.game
            .parse::<GameSpec>()
            .map_err(|e| bad_input(format!("--game: {e}")))
    }
}

/// The start state: `--position` checked against the rules, or the initial one.
pub fn start_state<G: Game>(game: &G, position: Option<&str>) -> Result<G::State> {
    match position {
        None => Ok(game.start()),
        Some(text) => game
            .parse_position(text)
            .map_err(|e| bad_input(format!("--position: {e}"))),
    }
}

/// Arguments of `mancala replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    #[command(flatten)]
    game: GameArgs,
    /// The moves, as pit numbers from 1 on the mover's side, or `swap`, separated by spaces or commas.
    #[arg(long, short, allow_hyphen_values = true)]
    moves: String,
    /// Print one JSON object per move, then one with the final scores.
    #[arg(long)]
    json: bool,
}

/// `mancala replay`.
pub fn replay(args: &ReplayArgs) -> Result<()> {
    let spec = args.game.spec()?;
    with_game!(&spec, game => replay_game(game, args))
}

fn replay_game<G: Game>(game: &G, args: &ReplayArgs) -> Result<()> {
    let mut state = start_state(game, args.game.position.as_deref())?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if !args.json {
        writeln!(out, "{}", game.setup(&state))?;
        write!(out, "{}", render(&game.setup(&state), None))?;
    }
    let words = args
        .moves
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty());
    for (k, word) in words.enumerate() {
        let ply = k + 1;
        let mv = Move::parse_human(word).map_err(|e| bad_input(format!("move {ply}: {e}")))?;
        let mover = game
            .to_move(&state)
            .ok_or_else(|| bad_input(format!("move {ply} ({mv}): the game is already over")))?;
        if let Move::Pit(i) = mv {
            if i as usize >= game.pits() {
                return Err(bad_input(format!(
                    "move {ply}: pit {mv} does not exist on a board of {} pits; legal moves are {}",
                    game.pits(),
                    game.legal_moves(&state).to_human()
                )));
            }
        }
        game.try_play(&mut state, mv)
            .map_err(|e| bad_input(format!("move {ply} by player {mover}: {e}")))?;
        let setup = game.setup(&state);
        if args.json {
            let pit = match mv {
                Move::Pit(i) => json!(i as usize + 1),
                Move::Swap => json!("swap"),
            };
            let legal: Vec<serde_json::Value> = game
                .legal_moves(&state)
                .into_iter()
                .map(|m| match m {
                    Move::Pit(i) => json!(i as usize + 1),
                    Move::Swap => json!("swap"),
                })
                .collect();
            let mut line = json!({
                "ply": ply,
                "mover": mover.index(),
                "pit": pit,
                "board": setup.board(),
                "to_move": setup.to_move.map(Player::index),
                "legal": legal,
            });
            // Multi-round Congkak: the board keeps Kalah's layout (a burnt
            // hole reads 0); the burnt holes, by pit number from 1, and the
            // round come beside it.
            if let Some(round) = setup.round {
                let burnt = |p: Player| -> Vec<usize> {
                    (0..game.pits())
                        .filter(|&i| setup.burnt[p] >> i & 1 == 1)
                        .map(|i| i + 1)
                        .collect()
                };
                line["burnt"] = json!([burnt(Player::ZERO), burnt(Player::ONE)]);
                line["round"] = json!(round.number);
                line["round_first"] = json!(round.first.index());
            }
            writeln!(out, "{line}")?;
        } else {
            writeln!(out, "\nply {ply}: player {mover} plays {mv}   {setup}")?;
            write!(out, "{}", render(&setup, Some((mover, mv))))?;
        }
    }
    if let Some(outcome) = game.outcome(&state) {
        let scores = [outcome.scores[Player::ZERO], outcome.scores[Player::ONE]];
        let winner = outcome.winner().map(Player::index);
        if args.json {
            writeln!(out, "{}", json!({"final_scores": scores, "winner": winner}))?;
        } else {
            let result = match winner {
                Some(w) => format!("player {w} wins"),
                None => "draw".to_string(),
            };
            writeln!(
                out,
                "\ngame over ({}): {} - {}, {result}, margin {:+}",
                outcome.reason,
                scores[0],
                scores[1],
                outcome.margin()
            )?;
        }
    }
    Ok(())
}

/// Arguments of `mancala perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Count sequences of 1..=depth moves.
    #[arg(long, short)]
    depth: u32,
}

/// `mancala perft`.
pub fn perft(args: &PerftArgs) -> Result<()> {
    let spec = args.game.spec()?;
    with_game!(&spec, game => perft_game(game, args))
}

fn perft_game<G: Game>(game: &G, args: &PerftArgs) -> Result<()> {
    let state = start_state(game, args.game.position.as_deref())?;
    println!(
        "{:>5} {:>16} {:>10} {:>14}",
        "depth", "sequences", "seconds", "sequences/s"
    );
    for depth in 1..=args.depth {
        let t = Instant::now();
        let count = mancala_core::perft(game, &state, depth);
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{depth:>5} {count:>16} {secs:>10.3} {:>14.0}",
            count as f64 / secs.max(1e-9)
        );
    }
    Ok(())
}

/// Arguments of `mancala show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    #[command(flatten)]
    game: GameArgs,
}

/// `mancala show`.
pub fn show(args: &ShowArgs) -> Result<()> {
    let spec = args.game.spec()?;
    with_game!(&spec, game => {
        let state = start_state(game, args.game.position.as_deref())?;
        let setup = game.setup(&state);
        println!("{spec}   {setup}");
        print!("{}", render(&setup, None));
        let legal = game.legal_moves(&state);
        if !legal.is_empty() {
            println!("legal moves: {}", legal.to_human());
        }
        Ok(())
    })
}
