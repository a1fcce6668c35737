//! `mancala analyze labels`: exact labels at scale for training
//! evaluations (the work is in `mancala_analysis::labels`).

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use mancala_analysis::labels::{self, LabelOptions, PHASE_SEEDS};
use mancala_arena::Shard;
use mancala_core::GameSpec;
use mancala_solver::Solvable;

use super::cli_error;
use crate::progress::AnalysisProgress;
use crate::{bad_input, Interrupted};

/// Arguments of `mancala analyze labels`.
#[derive(Args, Debug)]
pub struct LabelsArgs {
    /// The game and its rules: any Kalah, single-round Congkak, or an Oware
    /// board the solver takes.
    #[arg(long, short, default_value = "kalah")]
    game: String,
    /// Games of the run: every position of each after the opening is
    /// labelled (a shard labels its block of them).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    games: u64,
    /// Agents whose games give the positions (repeat it; each game's two
    /// seats are drawn from these). Default: greedy, minimax:depth=4 and
    /// mcts:sims=400.
    #[arg(long = "agent", value_name = "SPEC")]
    agents: Vec<String>,
    /// Random moves at the start of each game; positions are taken after them.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=1000))]
    opening_plies: u32,
    /// Seed of the games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Most nodes a search may take to settle one position or move (0:
    /// the endgame database only).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(0..=100_000_000))]
    nodes: u64,
    /// Positions with more seeds than this in the pits get no search (the
    /// endgame database and moves that end the game only). On Kalah(6,4)
    /// at 20,000 nodes, positions with 40 or more seeds in the pits settle
    /// about 1% of the time and take about three quarters of the run.
    #[arg(long, value_name = "SEEDS")]
    max_pit_seeds: Option<u32>,
    /// Worker threads (default: all cores).
    #[arg(long, short, value_parser = crate::parse_threads)]
    threads: Option<usize>,
    /// Seeds in the endgame database's fullest level (default: as `mancala
    /// solve`, kept in the same cache folder; 0: no database).
    #[arg(long)]
    db_seeds: Option<usize>,
    /// Label only block K of N of the games (1 <= K <= N), for a cluster:
    /// each shard writes a folder of its own, and the shards' lines
    /// together are the whole run's.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Label by this search instead of the solver, for games it does not
    /// take (Oware on a full board): each position's value is the value
    /// minimax to a depth gives it (e.g. minimax:depth=10), rounded to a
    /// seed; moves get no value.
    #[arg(long, value_name = "SPEC")]
    search: Option<String>,
    /// With exact labels: positions the solver does not settle (past
    /// --max-pit-seeds or --nodes) get the value of this search instead of
    /// none (minimax to a depth, e.g. minimax:depth=3), marked "searched";
    /// their moves keep what the solver settled.
    #[arg(long, value_name = "SPEC")]
    unsettled_search: Option<String>,
    /// The folder to write (labels.json, labels.jsonl); rerun the same
    /// command to resume it.
    #[arg(long, short)]
    out: PathBuf,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// `mancala analyze labels`.
pub fn run(args: &LabelsArgs) -> Result<()> {
    let spec = args
        .game
        .parse::<GameSpec>()
        .map_err(|e| bad_input(format!("--game: {e}")))?;
    mancala_core::with_game!(spec, rules => label(rules, args))
}

/// `mancala analyze labels` on `rules`.
fn label<G: Solvable>(rules: G, args: &LabelsArgs) -> Result<()> {
    let options = LabelOptions {
        rules,
        games: args.games,
        agents: args.agents.clone(),
        opening_plies: args.opening_plies,
        seed: args.seed,
        nodes: args.nodes,
        max_pit_seeds: args.max_pit_seeds,
        threads: crate::threads(args.threads, usize::MAX),
        db_seeds: args.db_seeds,
        db_dir: crate::solve_cmd::default_db_dir(),
        shard: args.shard,
        search: args.search.clone(),
        unsettled_search: args.unsettled_search.clone(),
    };
    let progress = AnalysisProgress::new(args.quiet);
    let run =
        labels::label(&options, &args.out, &progress, crate::stop_flag()).map_err(cli_error)?;
    let total = run.total();
    eprintln!(
        "{} games labelled ({} kept from before): {} positions, {} settled, {} searched, \
         {} with every move, in {:.1} s -> {}",
        run.games,
        run.kept,
        total.positions,
        total.settled,
        total.searched,
        total.all_moves,
        run.seconds,
        args.out.display()
    );
    if !args.quiet && total.positions > 0 {
        eprintln!(
            "{:>14} {:>10} {:>9} {:>9} {:>10} {:>12}",
            "seeds in pits", "positions", "settled", "searched", "all moves", "positions/s"
        );
        for (k, p) in run
            .phases
            .iter()
            .enumerate()
            .filter(|(_, p)| p.positions > 0)
        {
            let low = k as u32 * PHASE_SEEDS;
            eprintln!(
                "{:>14} {:>10} {:>8.1}% {:>8.1}% {:>9.1}% {:>12.0}",
                format!("{low}-{}", low + PHASE_SEEDS - 1),
                p.positions,
                100.0 * p.settled as f64 / p.positions as f64,
                100.0 * p.searched as f64 / p.positions as f64,
                100.0 * p.all_moves as f64 / p.positions as f64,
                p.positions as f64 / p.seconds.max(1e-9),
            );
        }
    }
    if run.interrupted {
        eprintln!("stopped: the games labelled so far are kept; rerun the command to resume");
        return Err(anyhow::Error::new(Interrupted));
    }
    Ok(())
}
