//! `mancala analyze exact-positions` and `mancala analyze accuracy`: a
//! yardstick of positions from real games with the exact value of every
//! move, made once, and how close an agent's moves come to perfect play on
//! it (top-1 agreement, and the margin given away per move).

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use mancala_agents::{derive_seed, StopCondition};
use mancala_arena::stats::{wilson_interval, Z95};
use mancala_core::{with_game, Game, GameSpec, KalahRules};
use mancala_solver::positions::{Agreement, ExactPosition, ExactPositions};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use serde_json::json;

use super::solver_options;
use crate::agents::AnyAgentSpec;
use crate::progress::Progress;
use crate::{bad_input, Interrupted};

/// The agents whose games give the positions when `--agent` is not given:
/// a spread of styles, so that the set is not one agent's habits.
const DEFAULT_SOURCES: &[&str] = &["greedy", "minimax:depth=4", "mcts:sims=400"];

/// Arguments of `mancala analyze exact-positions`.
#[derive(Args, Debug)]
pub struct ExactPositionsArgs {
    /// The Kalah board and rules.
    #[arg(long, short, default_value = "kalah")]
    game: String,
    /// Positions in the set: one from each of this many games.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    count: u32,
    /// Agents whose games give the positions (repeat it; each game's two
    /// seats are drawn from these). Default: greedy, minimax:depth=4 and
    /// mcts:sims=400.
    #[arg(long = "agent", value_name = "SPEC")]
    agents: Vec<String>,
    /// Random moves at the start of each game; positions are taken after them.
    #[arg(long, default_value_t = 2)]
    opening_plies: u32,
    /// Seed of the games and of the choice of positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long, short, value_parser = crate::parse_threads)]
    threads: Option<usize>,
    /// Solver transposition table size in MiB (shared by every position).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=65536))]
    tt: u64,
    /// Seeds in the endgame database's fullest level (default: as `mancala
    /// solve`, kept in the same cache folder; 0: no database).
    #[arg(long)]
    db_seeds: Option<usize>,
    /// Where to write the set (JSON).
    #[arg(long, short)]
    out: PathBuf,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Arguments of `mancala analyze accuracy`.
#[derive(Args, Debug)]
pub struct AccuracyArgs {
    /// A set written by `mancala analyze exact-positions`.
    #[arg(long)]
    positions: PathBuf,
    /// An agent to measure (repeat it for several).
    #[arg(long = "agent", value_name = "SPEC", required = true)]
    agents: Vec<String>,
    /// Seed of the agents (position i gets a seed derived from it and i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long, short, value_parser = crate::parse_threads)]
    threads: Option<usize>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// `mancala analyze exact-positions`.
pub fn exact_positions(args: &ExactPositionsArgs) -> Result<()> {
    let spec = args
        .game
        .parse::<GameSpec>()
        .map_err(|e| bad_input(format!("--game: {e}")))?;
    let GameSpec::Kalah(rules) = spec else {
        return Err(bad_input(format!(
            "--game: exact positions need the Kalah solver; not {spec}"
        )));
    };
    let texts: Vec<String> = if args.agents.is_empty() {
        DEFAULT_SOURCES.iter().map(|s| s.to_string()).collect()
    } else {
        args.agents.clone()
    };
    let mut sources = Vec::new();
    for t in &texts {
        let a = AnyAgentSpec::parse(t).map_err(|e| bad_input(format!("--agent {t}: {e}")))?;
        a.check(&rules)
            .map_err(|e| bad_input(format!("--agent {t}: {e}")))?;
        sources.push(a);
    }
    let threads = crate::threads(args.threads, usize::MAX);
    let pool = crate::thread_pool(threads)?;
    let stop = crate::stop_flag();

    // Positions: one from each seeded game, at a random ply after the opening.
    let t0 = Instant::now();
    let progress = Progress::counting(u64::from(args.count), args.quiet, "games");
    let picked: Vec<Option<(u32, mancala_core::KalahState)>> = pool.install(|| {
        (0..args.count)
            .into_par_iter()
            .with_max_len(1)
            .map(|i| {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let p = pick_position(&rules, &sources, args, u64::from(i));
                progress.step();
                p
            })
            .collect()
    });
    progress.finish();
    if stop.load(Ordering::Relaxed) {
        return Err(anyhow::Error::new(Interrupted));
    }
    let states: Vec<(u32, mancala_core::KalahState)> = picked.into_iter().flatten().collect();
    let games_s = t0.elapsed().as_secs_f64();

    // Every move of every position, solved; positions in parallel, one
    // thread each, sharing the table (they share much of their futures).
    let options = solver_options(&rules, args.tt, args.db_seeds)?;
    if !args.quiet {
        eprintln!("{rules}: building the solver...");
    }
    let solver = crate::solve_cmd::build_solver(rules, &options, threads)?;
    let t1 = Instant::now();
    let until = StopCondition {
        deadline: None,
        cancel: Some(stop),
    };
    let progress = Progress::counting(states.len() as u64, args.quiet, "positions");
    let solved: Vec<Option<ExactPosition>> = pool.install(|| {
        states
            .par_iter()
            .with_max_len(1)
            .map(|(ply, state)| {
                let moves = solver.move_values(state, 1, until).ok()?;
                progress.step();
                Some(ExactPosition {
                    position: rules.setup(state).to_string(),
                    ply: *ply,
                    moves,
                })
            })
            .collect()
    });
    progress.finish();
    let solve_s = t1.elapsed().as_secs_f64();
    let total = solved.len();
    let positions: Vec<ExactPosition> = solved.into_iter().flatten().collect();
    let set = ExactPositions {
        game: rules.to_string(),
        made_by: std::env::args().collect::<Vec<_>>().join(" "),
        positions,
    };
    // What was solved is kept even when stopped: a partial set is usable.
    set.save(&args.out)?;
    eprintln!(
        "{} of {total} positions solved ({} nodes): games {games_s:.1} s, solving {solve_s:.1} s -> {}",
        set.positions.len(),
        solver.nodes(),
        args.out.display()
    );
    if set.positions.len() < total {
        eprintln!("stopped: the positions solved so far are saved");
        return Err(anyhow::Error::new(Interrupted));
    }
    Ok(())
}

/// Plays game `i` of the set between two of `sources` (after random
/// opening moves) and returns one of its positions after the opening, with
/// its ply; `None` if the game ended within the opening or an agent failed.
fn pick_position(
    rules: &KalahRules,
    sources: &[AnyAgentSpec],
    args: &ExactPositionsArgs,
    i: u64,
) -> Option<(u32, mancala_core::KalahState)> {
    let seed = derive_seed(args.seed, i);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut seats = [
        sources[rng.random_range(0..sources.len())].build(rules),
        sources[rng.random_range(0..sources.len())].build(rules),
    ];
    seats[0].new_game(derive_seed(seed, 1));
    seats[1].new_game(derive_seed(seed, 2));
    let mut state = rules.start();
    let mut seen = Vec::new();
    let mut ply = 0u32;
    while let Some(mover) = rules.to_move(&state) {
        let mv = if ply < args.opening_plies {
            let legal = rules.legal_moves(&state);
            legal.nth(rng.random_range(0..legal.len()))
        } else {
            seen.push((ply, state));
            seats[mover.index()].choose(rules, &state).ok()?
        };
        for s in seats.iter_mut() {
            s.observe(mv);
        }
        rules.play_unchecked(&mut state, mv);
        ply += 1;
    }
    if seen.is_empty() {
        return None;
    }
    Some(seen[rng.random_range(0..seen.len())])
}

/// `mancala analyze accuracy`.
pub fn accuracy(args: &AccuracyArgs) -> Result<()> {
    let set = ExactPositions::load(&args.positions).map_err(bad_input)?;
    let spec = set.game.parse::<GameSpec>().map_err(|e| {
        bad_input(format!(
            "{}: its game '{}': {e}",
            args.positions.display(),
            set.game
        ))
    })?;
    with_game!(&spec, game => accuracy_on(game, &set, args))
}

fn accuracy_on<G: Game>(game: &G, set: &ExactPositions, args: &AccuracyArgs) -> Result<()> {
    let path = args.positions.display();
    let mut states = Vec::with_capacity(set.positions.len());
    for (i, p) in set.positions.iter().enumerate() {
        let state = game
            .parse_position(&p.position)
            .map_err(|e| bad_input(format!("{path}: position {}: {e}", i + 1)))?;
        states.push(state);
    }
    let threads = crate::threads(args.threads, usize::MAX);
    let pool = crate::thread_pool(threads)?;
    let mut rows = Vec::new();
    for text in &args.agents {
        let agent =
            AnyAgentSpec::parse(text).map_err(|e| bad_input(format!("--agent {text}: {e}")))?;
        agent
            .check(game)
            .map_err(|e| bad_input(format!("--agent {text}: {e}")))?;
        let t0 = Instant::now();
        let tally: Result<Agreement> = pool.install(|| {
            states
                .par_iter()
                .enumerate()
                .with_max_len(1)
                .map_init(
                    || agent.build(game),
                    |a, (i, state)| -> Result<Agreement> {
                        a.new_game(derive_seed(args.seed, i as u64));
                        let mv = a
                            .choose(game, state)
                            .map_err(|e| anyhow::anyhow!("{text} at position {}: {e}", i + 1))?;
                        let loss = set.positions[i].loss(mv).ok_or_else(|| {
                            bad_input(format!(
                                "{path}: position {} has no value for move {mv}",
                                i + 1
                            ))
                        })?;
                        let mut one = Agreement::default();
                        one.add(loss);
                        Ok(one)
                    },
                )
                .try_reduce(Agreement::default, |mut x, y| {
                    x.merge(y);
                    Ok(x)
                })
        });
        let tally = tally?;
        rows.push((text.clone(), tally, t0.elapsed().as_secs_f64()));
        if crate::stop_flag().load(Ordering::Relaxed) {
            return Err(anyhow::Error::new(Interrupted));
        }
    }
    if args.json {
        let out: Vec<_> = rows
            .iter()
            .map(|(agent, a, seconds)| {
                let (lo, hi) = wilson_interval(a.best as f64, a.positions as f64, Z95);
                json!({
                    "agent": agent,
                    "positions": a.positions,
                    "best": a.best,
                    "top1": a.top1(),
                    "top1_ci95": [lo, hi],
                    "mean_loss": a.mean_loss(),
                    "seconds": seconds,
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "game": set.game,
                "positions_file": args.positions.display().to_string(),
                "agents": out,
            }))?
        );
        return Ok(());
    }
    println!(
        "{} positions of {} ({}): agreement with perfect play",
        set.positions.len(),
        set.game,
        args.positions.display()
    );
    println!("| agent | best move | 95% interval | mean loss (seeds) |");
    println!("|---|---:|---|---:|");
    for (agent, a, _) in &rows {
        let (lo, hi) = wilson_interval(a.best as f64, a.positions as f64, Z95);
        println!(
            "| {agent} | {:.1}% | [{:.1}%, {:.1}%] | {:.2} |",
            100.0 * a.top1(),
            100.0 * lo,
            100.0 * hi,
            a.mean_loss()
        );
    }
    Ok(())
}
