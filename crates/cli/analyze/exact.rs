//! `mancala analyze exact-positions` and `mancala analyze accuracy`: a
//! yardstick of positions from real games with the exact value of every
//! move, made once, and how close an agent's moves come to perfect play on
//! it (the work is in `mancala_analysis::positions`).

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use mancala_analysis::positions::{self, ExactPositionsOptions};
use mancala_arena::stats::{wilson_interval, Z95};
use mancala_core::{with_game, GameSpec};
use mancala_solver::positions::ExactPositions;
use serde_json::json;

use super::cli_error;
use crate::progress::AnalysisProgress;
use crate::{bad_input, Interrupted};

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
    #[arg(long, short, required_unless_present = "games_only")]
    out: Option<PathBuf>,
    /// Also write every position of the set's games to this file, one a
    /// line: what `train-eval --exclude` must leave out for the set to be
    /// a held-out yardstick.
    #[arg(long, value_name = "FILE")]
    held_out: Option<PathBuf>,
    /// Play the games and write --held-out only, solving nothing (the
    /// positions of a set made before).
    #[arg(long, requires = "held_out")]
    games_only: bool,
    /// Every position different: a game whose position is an earlier
    /// game's gives none, and more games are played (up to ten a position
    /// asked) until there are --count.
    #[arg(long)]
    distinct: bool,
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
    let options = ExactPositionsOptions {
        rules,
        count: args.count,
        agents: args.agents.clone(),
        opening_plies: args.opening_plies,
        seed: args.seed,
        threads: crate::threads(args.threads, usize::MAX),
        tt: args.tt,
        db_seeds: args.db_seeds,
        db_dir: crate::solve_cmd::default_db_dir(),
        made_by: std::env::args().collect::<Vec<_>>().join(" "),
        games_only: args.games_only,
        distinct: args.distinct,
    };
    // A bar per phase (games, then positions), unless quiet.
    let progress = AnalysisProgress::new(args.quiet);
    let made =
        positions::exact_positions(&options, &progress, crate::stop_flag()).map_err(cli_error)?;
    if let Some(path) = &args.held_out {
        let mut text = format!(
            "# every position of the games of: {}\n",
            std::env::args().collect::<Vec<_>>().join(" ")
        );
        for p in &made.game_positions {
            text.push_str(p);
            text.push('\n');
        }
        std::fs::write(path, text)
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
        eprintln!(
            "{} positions of {} games -> {}",
            made.game_positions.len(),
            made.picked,
            path.display()
        );
    }
    let Some(out) = &args.out else {
        return Ok(());
    };
    // What was solved is kept even when stopped: a partial set is usable.
    made.set.save(out)?;
    eprintln!(
        "{} of {} positions solved ({} nodes): games {:.1} s, solving {:.1} s -> {}",
        made.set.positions.len(),
        made.picked,
        made.nodes,
        made.games_seconds,
        made.solve_seconds,
        out.display()
    );
    if made.interrupted {
        eprintln!("stopped: the positions solved so far are saved");
        return Err(anyhow::Error::new(Interrupted));
    }
    Ok(())
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
    let origin = args.positions.display().to_string();
    let threads = crate::threads(args.threads, usize::MAX);
    let rows = with_game!(&spec, game => positions::accuracy(
        game,
        &set,
        &origin,
        &args.agents,
        args.seed,
        threads,
        crate::stop_flag(),
    ))
    .map_err(cli_error)?;
    if args.json {
        let out: Vec<_> = rows
            .iter()
            .map(|row| {
                let a = &row.tally;
                let (lo, hi) = wilson_interval(a.best as f64, a.positions as f64, Z95);
                json!({
                    "agent": row.agent,
                    "positions": a.positions,
                    "best": a.best,
                    "top1": a.top1(),
                    "top1_ci95": [lo, hi],
                    "mean_loss": a.mean_loss(),
                    "seconds": row.seconds,
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "game": set.game,
                "positions_file": origin,
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
    for row in &rows {
        let a = &row.tally;
        let (lo, hi) = wilson_interval(a.best as f64, a.positions as f64, Z95);
        println!(
            "| {} | {:.1}% | [{:.1}%, {:.1}%] | {:.2} |",
            row.agent,
            100.0 * a.top1(),
            100.0 * lo,
            100.0 * hi,
            a.mean_loss()
        );
    }
    Ok(())
}
