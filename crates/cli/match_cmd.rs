//! `mancala match A B`: many games between two agents, seats swapped.

use std::sync::Mutex;

use anyhow::Result;
use clap::Args;
use mancala_arena::config::MAX_GAMES;
use mancala_arena::stats::json_float::to_value;
use mancala_arena::stats::{mean_with_ci, Wdl};
use mancala_arena::{
    pairs, random_openings, schedule, Arena, Format, GameRecord, Players, RunOptions,
};
use mancala_core::{with_game, Game, GameSpec};
use serde_json::json;

use crate::agents::AnyAgentSpec;
use crate::bad_input;
use crate::progress::Progress;

/// Arguments of `mancala match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// First agent spec, e.g. minimax:depth=8.
    a: String,
    /// Second agent spec, e.g. mcts:sims=2000.
    b: String,
    /// Game spec, e.g. kalah, kalah:pits=4,seeds=3, oware:grand_slam=illegal.
    /// Games start from its initial position (see --opening-plies).
    #[arg(long, short, default_value = "kalah")]
    game: String,
    /// Games to play (each opening twice, seats swapped).
    #[arg(long, short = 'n', default_value_t = 100)]
    games: u64,
    /// Seed of the whole match.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long, short, value_parser = crate::parse_threads)]
    threads: Option<usize>,
    /// Start each pair of games from a random opening of this many moves.
    #[arg(long, default_value_t = 0)]
    opening_plies: u32,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// `mancala match`.
pub fn run(args: &MatchArgs) -> Result<()> {
    if args.games == 0 || args.games > MAX_GAMES {
        return Err(bad_input(format!(
            "--games must be between 1 and {MAX_GAMES} (a tournament config with several \
             runs or shards goes further)"
        )));
    }
    if args.games % 2 == 1 && !args.json {
        eprintln!("note: with an odd number of games, agent A moves first once more than agent B");
    }
    let spec = args
        .game
        .parse::<GameSpec>()
        .map_err(|e| bad_input(format!("--game: {e}")))?;
    let agents = [
        AnyAgentSpec::parse(&args.a).map_err(|e| bad_input(format!("agent A: {e}")))?,
        AnyAgentSpec::parse(&args.b).map_err(|e| bad_input(format!("agent B: {e}")))?,
    ];
    with_game!(&spec, game => play_match(game, &spec.to_string(), &agents, args))
}

fn play_match<G: Game>(
    game: &G,
    spec: &str,
    agents: &[AnyAgentSpec; 2],
    args: &MatchArgs,
) -> Result<()> {
    for (agent, which) in agents.iter().zip(["A", "B"]) {
        agent
            .check(game)
            .map_err(|e| bad_input(format!("agent {which}: {e}")))?;
    }
    let names = vec![agents[0].to_string(), agents[1].to_string()];
    let players = Players {
        names: names.clone(),
        specs: names.clone(),
        factory: Box::new(|i: usize| agents[i].build(game)),
    };
    let openings = random_openings(
        game,
        args.games.div_ceil(2) as usize,
        args.opening_plies,
        args.seed,
    )
    .map_err(|e| bad_input(format!("--opening-plies: {e}")))?;
    let games = schedule(
        &pairs(Format::RoundRobin, 2),
        args.games as u32,
        openings.len(),
    );
    let arena = Arena {
        game,
        game_spec: spec.to_string(),
        players,
        openings,
        options: RunOptions {
            threads: crate::threads(args.threads, games.len()),
            seed: args.seed,
            move_timeout: None,
        },
    };
    let records = Mutex::new(Vec::new());
    let progress = Progress::new(games.len() as u64, args.json);
    arena.run(&games, crate::stop_flag(), &|r: GameRecord| {
        progress.game_done(&r);
        records.lock().expect("records").push(r);
    })?;
    progress.finish();
    let mut records = records.into_inner().expect("records");
    records.sort_by_key(|r| r.id);
    report(&names, &records, args)?;
    if records.len() < games.len() {
        eprintln!(
            "interrupted: these results cover {} of {} games",
            records.len(),
            games.len()
        );
        return Err(anyhow::Error::new(crate::Interrupted));
    }
    Ok(())
}

/// Score of agent 0 in a record.
fn score_of_a(r: &GameRecord) -> f64 {
    if r.seats[0] == 0 {
        r.first_seat_score()
    } else {
        1.0 - r.first_seat_score()
    }
}

fn report(names: &[String], records: &[GameRecord], args: &MatchArgs) -> Result<()> {
    let mut a = Wdl::default();
    let mut first = Wdl::default();
    let mut margins = Vec::new();
    let mut forfeits = 0;
    for r in records {
        a.record(score_of_a(r))?;
        first.record(r.first_seat_score())?;
        if r.is_forfeit() {
            forfeits += 1;
        } else {
            margins.push(f64::from(if r.seats[0] == 0 {
                r.margin
            } else {
                -r.margin
            }));
        }
    }
    let elo = a.elo();
    let margin = mean_with_ci(&margins);
    if args.json {
        let out = json!({
            "a": names[0], "b": names[1], "game": args.game, "games": records.len(),
            "seed": args.seed,
            "a_wdl": [a.wins, a.draws, a.losses],
            "a_score": a.score(),
            "elo": elo.as_ref().map(|e| to_value(e.elo)),
            "elo_95": elo.as_ref().map(|e| [to_value(e.lo), to_value(e.hi)]),
            "los": a.los(),
            "first_player_wdl": [first.wins, first.draws, first.losses],
            "first_player_score": first.score(),
            "a_mean_margin": margin.as_ref().map(|m| m.mean),
            "a_mean_margin_95": margin.as_ref().map(|m| [m.lo, m.hi]),
            "forfeits": forfeits,
        });
        println!("{out}");
        return Ok(());
    }
    println!(
        "{} vs {} on {}, {} games",
        names[0],
        names[1],
        args.game,
        records.len()
    );
    println!(
        "  {}: {} wins, {} draws, {} losses   score {:.1}%",
        names[0],
        a.wins,
        a.draws,
        a.losses,
        100.0 * a.score().unwrap_or(0.0)
    );
    if let Some(e) = elo {
        println!(
            "  Elo difference {:+.1}  (95% interval {:+.1} .. {:+.1})   LOS {:.1}%",
            e.elo,
            e.lo,
            e.hi,
            100.0 * a.los()
        );
    }
    println!(
        "  first player: {} wins, {} draws, {} losses   score {:.1}%",
        first.wins,
        first.draws,
        first.losses,
        100.0 * first.score().unwrap_or(0.0)
    );
    if let Some(m) = margin {
        println!(
            "  mean margin for {}: {:+.2} seeds (95% interval {:+.2} .. {:+.2})",
            names[0], m.mean, m.lo, m.hi
        );
    }
    if forfeits > 0 {
        println!("  forfeits: {forfeits} (see the errors with --json or a tournament log)");
    }
    Ok(())
}
