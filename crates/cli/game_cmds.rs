//! `replay`, `perft` and `show`: looking at games move by move.

use mancala_analysis::annotate::{GameNotes, MoveNote};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use mancala_arena::GameRecord;
use mancala_core::{with_game, Game, GameSpec, Move, Outcome, Player, Setup};
use serde_json::json;

use crate::bad_input;
use mancala_core::board::render;

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
    #[arg(
        long,
        short,
        allow_hyphen_values = true,
        required_unless_present = "from",
        conflicts_with = "from"
    )]
    moves: Option<String>,
    /// Replay a game of this results folder (a tournament's, merged shards' or a match's
    /// output), with what was recorded of each move: its time, the clock, and the agent's
    /// search (depth or simulations, nodes, score, principal variation).
    #[arg(long, value_name = "DIR", requires = "id", conflicts_with = "position")]
    from: Option<PathBuf>,
    /// The game's id in DIR/games.jsonl (with --from).
    #[arg(long, requires = "from")]
    id: Option<u64>,
    /// Print one JSON object per move, then one with the final scores.
    #[arg(long)]
    json: bool,
}

/// `mancala replay`.
pub fn replay(args: &ReplayArgs) -> Result<()> {
    let (spec, record) = match (&args.from, args.id) {
        (Some(dir), Some(id)) => {
            let record = find_game(dir, id)?;
            let spec = record.game.parse::<GameSpec>().map_err(|e| {
                bad_input(format!(
                    "game {id} of {}: its game spec: {e}",
                    dir.display()
                ))
            })?;
            (spec, Some(record))
        }
        _ => (args.game.spec()?, None),
    };
    let notes = match (&args.from, &record) {
        (Some(dir), Some(r)) => find_notes(dir, r.id)?,
        _ => None,
    };
    with_game!(&spec, game => replay_game(game, args, record.as_ref(), notes.as_ref()))
}

/// What `mancala annotate` wrote of game `id` of `dir`, if it ran there.
fn find_notes(dir: &Path, id: u64) -> Result<Option<GameNotes>> {
    let path = dir.join(mancala_analysis::annotate::ANNOTATIONS);
    let Ok(file) = File::open(&path) else {
        return Ok(None);
    };
    for (n, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| bad_input(format!("{}: {e}", path.display())))?;
        // A torn last line (a run killed while writing) is no game's.
        let Ok(notes) = serde_json::from_str::<GameNotes>(&line) else {
            if line.trim().is_empty() {
                continue;
            }
            return Err(bad_input(format!(
                "{}, line {}: not what `mancala annotate` writes (annotate again to repair it)",
                path.display(),
                n + 1
            )));
        };
        if notes.id == id {
            return Ok(Some(notes));
        }
    }
    Ok(None)
}

/// A judged move, in words: its value against the position's, the seeds it
/// gave away and the best moves.
fn judged(note: &MoveNote) -> String {
    let value = |v: Option<i32>| v.map_or("?".into(), |v| format!("{v:+}"));
    let mut text = format!(
        "perfect play: position {}, move {}",
        value(note.value),
        value(note.played)
    );
    if let Some(loss) = note.loss {
        text.push_str(&if loss == 0 {
            ", a best move".to_string()
        } else {
            format!(", {loss} seeds lost")
        });
    }
    if let (Some(best), Some(loss)) = (&note.best, note.loss) {
        if loss > 0 {
            text.push_str(&format!(" (best {})", best.join(" ")));
        }
    }
    if note.blunder {
        text.push_str(", BLUNDER: it changes the result");
    }
    text
}

/// Game `id` of `dir/games.jsonl`, read line by line (a log may be large).
fn find_game(dir: &Path, id: u64) -> Result<GameRecord> {
    // Every error names the file, and a missing log says what folder
    // `--from` takes.
    mancala_arena::folder::find_game(dir, id).map_err(bad_input)
}

/// What was recorded of move `ply` of `record`, in words: its time, the
/// mover's clock after it, and the agent's search.
fn move_notes(record: &GameRecord, ply: usize) -> Option<String> {
    let k = record.timed_index(ply)?;
    let mut parts = vec![format!("{:.1} ms", *record.move_us.get(k)? as f64 / 1000.0)];
    if let Some(clock) = record.clock_ms.get(k) {
        parts.push(format!("clock {:.2} s", *clock as f64 / 1000.0));
    }
    if let Some(s) = record.search.iter().find(|s| s.ply as usize == ply) {
        if let Some(d) = s.depth {
            parts.push(format!("depth {d}"));
        }
        if let Some(n) = s.nodes {
            parts.push(format!("{n} nodes"));
        }
        if let Some(n) = s.sims {
            parts.push(format!("{n} simulations"));
        }
        match (s.score, s.exact) {
            (Some(v), true) => parts.push(format!("exact value {v:+}")),
            (Some(v), false) => parts.push(format!("score {v:+.1}")),
            (None, _) => {}
        }
        if let Some(w) = s.win {
            parts.push(format!("expects {:.0}%", 100.0 * w));
        }
        if let Some(share) = s.share {
            parts.push(format!("{:.0}% of visits", 100.0 * share));
        }
        if !s.pv.is_empty() {
            parts.push(format!("line {}", s.pv));
        }
    }
    Some(parts.join(", "))
}

/// One replay: the game, what was asked, and, for a game of a results
/// folder (`--from`), its record and annotations, which add to each move's
/// lines.
struct Replay<'a, G: Game> {
    game: &'a G,
    args: &'a ReplayArgs,
    record: Option<&'a GameRecord>,
    notes: Option<&'a GameNotes>,
}

/// A move as played: its number from 1, who made it, and what it was.
#[derive(Clone, Copy)]
struct Played {
    ply: usize,
    mover: Player,
    mv: Move,
}

fn replay_game<G: Game>(
    game: &G,
    args: &ReplayArgs,
    record: Option<&GameRecord>,
    notes: Option<&GameNotes>,
) -> Result<()> {
    let replay = Replay {
        game,
        args,
        record,
        notes,
    };
    let mut state = match record {
        Some(r) => r
            .start_state(game)
            .map_err(|e| bad_input(format!("game {}: {e}", r.id)))?,
        None => start_state(game, args.game.position.as_deref())?,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if !args.json {
        replay.write_header(&mut out, &state)?;
    }
    for (k, word) in replay.move_words().enumerate() {
        let played = replay.play(&mut state, k + 1, word)?;
        if args.json {
            writeln!(out, "{}", replay.json_line(&state, played)?)?;
        } else {
            replay.write_move(&mut out, &state, played)?;
        }
    }
    replay.write_end(&mut out, &state)
}

impl<G: Game> Replay<'_, G> {
    /// What `mancala annotate` said of the move at `ply`, if anything.
    fn note_of(&self, ply: usize) -> Option<&MoveNote> {
        self.notes
            .and_then(|n| n.moves.iter().find(|m| m.ply as usize == ply))
    }

    /// The text header: who played the logged game and how it began, then
    /// the start position.
    fn write_header(&self, out: &mut impl Write, state: &G::State) -> Result<()> {
        if let Some(r) = self.record {
            writeln!(
                out,
                "game {} of {}: {} (seat 0) against {} (seat 1), seed {}",
                r.id, r.game, r.players[0], r.players[1], r.seed
            )?;
            if let Some(start) = &r.start {
                writeln!(out, "from the position {start}")?;
            }
            if !r.opening_moves.is_empty() {
                writeln!(out, "opening: {}", r.opening_moves)?;
            }
        }
        writeln!(out, "{}", self.game.setup(state))?;
        write!(out, "{}", render(&self.game.setup(state), None))?;
        Ok(())
    }

    /// The moves to replay, the record's or `--moves`', one word each.
    fn move_words(&self) -> impl Iterator<Item = &str> {
        let moves = match self.record {
            Some(r) => r.moves.as_str(),
            None => self.args.moves.as_deref().unwrap_or(""),
        };
        moves
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
    }

    /// Plays `word` as move number `ply`; a word that is no move, a move
    /// after the end, a pit off the board or an illegal move is the user's
    /// error.
    fn play(&self, state: &mut G::State, ply: usize, word: &str) -> Result<Played> {
        let game = self.game;
        let mv = Move::parse_human(word).map_err(|e| bad_input(format!("move {ply}: {e}")))?;
        let mover = game
            .to_move(state)
            .ok_or_else(|| bad_input(format!("move {ply} ({mv}): the game is already over")))?;
        if let Move::Pit(i) = mv {
            if i as usize >= game.pits() {
                return Err(bad_input(format!(
                    "move {ply}: pit {mv} does not exist on a board of {} pits; legal moves are {}",
                    game.pits(),
                    game.legal_moves(state).to_human()
                )));
            }
        }
        game.try_play(state, mv)
            .map_err(|e| bad_input(format!("move {ply} by player {mover}: {e}")))?;
        Ok(Played { ply, mover, mv })
    }

    /// The `--json` line of a move: the board after it, and what the
    /// record and the annotations say of it.
    fn json_line(&self, state: &G::State, played: Played) -> Result<serde_json::Value> {
        let setup = self.game.setup(state);
        let legal: Vec<serde_json::Value> = self
            .game
            .legal_moves(state)
            .into_iter()
            .map(json_move)
            .collect();
        let mut line = json!({
            "ply": played.ply,
            "mover": played.mover.index(),
            "pit": json_move(played.mv),
            "board": setup.board(),
            "to_move": setup.to_move.map(Player::index),
            "legal": legal,
        });
        self.add_rounds(&mut line, &setup);
        if let Some(r) = self.record {
            add_recorded(&mut line, r, played)?;
        }
        if let Some(note) = self.note_of(played.ply) {
            line["annotation"] = serde_json::to_value(note)?;
        }
        Ok(line)
    }

    /// Multi-round Congkak: the board keeps Kalah's layout (a burnt hole
    /// reads 0); the burnt holes, by pit number from 1, and the round come
    /// beside it.
    fn add_rounds(&self, line: &mut serde_json::Value, setup: &Setup) {
        if let Some(round) = setup.round {
            let burnt = |p: Player| -> Vec<usize> {
                (0..self.game.pits())
                    .filter(|&i| setup.burnt[p] >> i & 1 == 1)
                    .map(|i| i + 1)
                    .collect()
            };
            line["burnt"] = json!([burnt(Player::ZERO), burnt(Player::ONE)]);
            line["round"] = json!(round.number);
            line["round_first"] = json!(round.first.index());
        }
    }

    /// The text of a move: who played what, the record's and the
    /// annotations' notes, and the board after it.
    fn write_move(&self, out: &mut impl Write, state: &G::State, played: Played) -> Result<()> {
        let Played { ply, mover, mv } = played;
        let setup = self.game.setup(state);
        let who = match self.record {
            Some(r) => format!("player {mover} ({})", r.players[mover.index()]),
            None => format!("player {mover}"),
        };
        writeln!(out, "\nply {ply}: {who} plays {mv}   {setup}")?;
        if let Some(notes) = self.record.and_then(|r| move_notes(r, ply)) {
            writeln!(out, "  {notes}")?;
        }
        if let Some(note) = self.note_of(ply) {
            writeln!(out, "  {}", judged(note))?;
        }
        write!(out, "{}", render(&setup, Some((mover, mv))))?;
        Ok(())
    }

    /// How the game ended: by the rules, or, in a logged game, by a forfeit
    /// or a flag; nothing for moves that stop before the end.
    fn write_end(&self, out: &mut impl Write, state: &G::State) -> Result<()> {
        if let Some(outcome) = self.game.outcome(state) {
            self.write_outcome(out, &outcome)
        } else if let Some(r) = self.record {
            self.write_recorded_end(out, r)
        } else {
            Ok(())
        }
    }

    /// The end by the rules: the scores, the winner and the margin.
    fn write_outcome(&self, out: &mut impl Write, outcome: &Outcome) -> Result<()> {
        let scores = [outcome.scores[Player::ZERO], outcome.scores[Player::ONE]];
        let winner = outcome.winner().map(Player::index);
        if self.args.json {
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
        Ok(())
    }

    /// A forfeit or a flag ended it before the rules did: the record's
    /// scores, winner and reason.
    fn write_recorded_end(&self, out: &mut impl Write, r: &GameRecord) -> Result<()> {
        let winner = r.winner.map(usize::from);
        if self.args.json {
            writeln!(
                out,
                "{}",
                json!({"final_scores": r.scores, "winner": winner, "end": r.end, "error": r.error})
            )?;
        } else {
            let result = match winner {
                Some(w) => format!("seat {w} wins"),
                None => "draw".into(),
            };
            let why = match &r.error {
                Some(e) => format!(": {e}"),
                None if r.end == mancala_arena::ADJUDICATED => {
                    ": the result of perfect play from here".into()
                }
                None => String::new(),
            };
            writeln!(
                out,
                "\ngame over ({}): {} - {}, {result}{why}",
                r.end, r.scores[0], r.scores[1],
            )?;
        }
        Ok(())
    }
}

/// A move in `--json`: its pit number from 1, or "swap".
fn json_move(mv: Move) -> serde_json::Value {
    match mv {
        Move::Pit(i) => json!(i as usize + 1),
        Move::Swap => json!("swap"),
    }
}

/// What the record kept of a move, added to its `--json` line: its time,
/// the mover's name and clock, and the agent's search.
fn add_recorded(line: &mut serde_json::Value, r: &GameRecord, played: Played) -> Result<()> {
    if let Some(k) = r.timed_index(played.ply) {
        line["move_us"] = json!(r.move_us[k]);
        line["player"] = json!(r.players[played.mover.index()]);
        if let Some(c) = r.clock_ms.get(k) {
            line["clock_ms"] = json!(c);
        }
    }
    if let Some(s) = r.search.iter().find(|s| s.ply as usize == played.ply) {
        line["search"] = serde_json::to_value(s)?;
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
