//! `mancala bench`: how fast the engine plays, on one thread and on all.

use std::time::{Duration, Instant};

use anyhow::Result;
use clap::Args;
use mancala_core::{random_playout, with_game, Game, GameSpec};
use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::bad_input;

/// Arguments of `mancala bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// A game to measure (a game spec); repeat for several. Default: kalah, oware and congkak.
    #[arg(
        long = "game",
        short,
        default_values_t = ["kalah".to_string(), "oware".to_string(), "congkak".to_string()]
    )]
    games: Vec<String>,
    /// Seconds to measure each line, from 0.01 to 3600. Each line measures
    /// at least one batch of games (or one move per position) however short.
    #[arg(long, default_value_t = 2.0, allow_negative_numbers = true)]
    seconds: f64,
    /// Threads for the parallel line (default: all cores; at most 1024).
    #[arg(long, value_parser = crate::parse_threads)]
    threads: Option<usize>,
}

/// The shortest time per line `--seconds` accepts: below 10 ms a line would
/// measure the timer and thread start-up more than the engine.
pub const MIN_SECONDS: f64 = 0.01;

/// The longest time per line `--seconds` accepts: an hour, already far
/// more than a stable figure needs (the bench runs about a dozen lines).
pub const MAX_SECONDS: f64 = 3600.0;

/// Random games from the start on one thread for `budget`; returns how many.
fn playouts<G: Game>(game: &G, seed: u64, budget: Duration) -> u64 {
    let mut rng = SmallRng::seed_from_u64(seed);
    let start = game.start();
    let mut games = 0;
    let t0 = Instant::now();
    // At least one batch, however short the budget: a rate needs games.
    loop {
        for _ in 0..256 {
            let mut state = start.clone();
            std::hint::black_box(random_playout(game, &mut state, &mut rng));
        }
        games += 256;
        if t0.elapsed() >= budget {
            return games;
        }
    }
}

fn rate<G: Game>(game: &G, threads: usize, budget: Duration) -> f64 {
    let t0 = Instant::now();
    let total: u64 = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| s.spawn(move || playouts(game, 0x5eed + t as u64, budget)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("bench thread panicked"))
            .sum()
    });
    total as f64 / t0.elapsed().as_secs_f64().max(1e-9)
}

/// Formats a rate with a unit: 1.23M.
pub fn human_rate(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.1}")
    }
}

/// Agents measured by the search table: MCTS simulations/s with random
/// rollouts (one rollout per simulation, as OpenSpiel's MCTS is usually
/// run), with the default heuristic rollouts, and minimax nodes/s.
/// Each is given a time per move (`time=`), a quarter of the line's time,
/// and moves are searched until the line's time is up.
const SEARCH_AGENTS: &[&str] = &[
    "mcts:rollout=random,reuse=false",
    "mcts:reuse=false",
    "minimax",
];

/// Positions a search benchmark averages over: the start, and positions
/// after 4, 8 and 12 random moves (seeded), so that no single position
/// decides the figure.
fn bench_positions<G: Game>(game: &G) -> Vec<G::State> {
    let mut rng = SmallRng::seed_from_u64(2024);
    let mut out = vec![game.start()];
    for plies in [4, 8, 12] {
        let mut s = game.start();
        for _ in 0..plies {
            let legal = game.legal_moves(&s);
            if legal.is_empty() {
                break;
            }
            game.play_unchecked(
                &mut s,
                legal.nth(rand::Rng::random_range(&mut rng, 0..legal.len())),
            );
        }
        if !game.is_over(&s) {
            out.push(s);
        }
    }
    out
}

/// Search speed of one agent on one thread: (nodes or simulations per
/// second, mean depth reached).
fn search_rate<G: mancala_solver::Solvable>(
    game: &G,
    spec: &str,
    budget: Duration,
) -> Result<(f64, f64)> {
    let spec = mancala_registry::AnyAgentSpec::parse(spec).map_err(bad_input)?;
    let positions = bench_positions(game);
    let per_position = budget.div_f64(positions.len() as f64);
    let (mut nodes, mut secs, mut depth) = (0u64, 0f64, 0f64);
    for (i, state) in positions.iter().enumerate() {
        let mut agent = spec.build(game);
        agent.new_game(i as u64);
        let deadline = Instant::now() + per_position;
        // At least one move per position, however short the budget.
        loop {
            agent.choose(game, state)?;
            let info = agent.info();
            nodes += info.nodes;
            secs += info.elapsed.as_secs_f64();
            depth += f64::from(info.depth) * info.elapsed.as_secs_f64();
            if Instant::now() >= deadline {
                break;
            }
        }
    }
    Ok((nodes as f64 / secs.max(1e-9), depth / secs.max(1e-9)))
}

/// `mancala bench`.
pub fn run(args: &BenchArgs) -> Result<()> {
    // Also refuses NaN and infinities, which no range contains.
    if !(MIN_SECONDS..=MAX_SECONDS).contains(&args.seconds) {
        return Err(bad_input(format!(
            "--seconds must be from {MIN_SECONDS} to {MAX_SECONDS} (seconds to measure each \
             line), not {:?}",
            args.seconds
        )));
    }
    let budget = Duration::from_secs_f64(args.seconds);
    let all = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let specs = args
        .games
        .iter()
        .map(|g| {
            g.parse::<GameSpec>()
                .map_err(|e| bad_input(format!("--game: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    println!(
        "random playouts from the start position ({} s per line)",
        args.seconds
    );
    println!(
        "{:<34} {:>7} {:>12} {:>12} {:>9}",
        "game", "threads", "games/s", "ns/game", "speedup"
    );
    for spec in &specs {
        with_game!(spec, game => {
            let one = rate(game, 1, budget);
            println!("{:<34} {:>7} {:>12} {:>12.0} {:>9}", spec.to_string(), 1, human_rate(one), 1e9 / one, "1.00x");
            if all > 1 {
                let many = rate(game, all, budget);
                println!(
                    "{:<34} {:>7} {:>12} {:>12.0} {:>8.2}x",
                    spec.to_string(), all, human_rate(many), 1e9 / many * all as f64, many / one
                );
            }
        });
    }
    println!();
    println!(
        "search speed on one thread (start position and three random ones, {} s per line)",
        args.seconds
    );
    println!(
        "{:<34} {:<42} {:>12} {:>7}",
        "game", "agent", "per second", "depth"
    );
    for spec in &specs {
        with_game!(spec, game => {
            let per_move_ms = (args.seconds * 250.0).max(1.0) as u64;
            for agent in SEARCH_AGENTS {
                let separator = if agent.contains(':') { ',' } else { ':' };
                let agent = format!("{agent}{separator}time={per_move_ms}ms");
                let (rate, depth) = search_rate(game, &agent, budget)?;
                let unit = if agent.starts_with("mcts") { "sims" } else { "nodes" };
                println!("{:<34} {:<42} {:>7} {unit:<5} {depth:>6.1}", spec.to_string(), agent, human_rate(rate));
            }
        });
    }
    Ok(())
}
