//! `mancala analyze`: how large the first player's advantage is (the work
//! is in `mancala-analysis`; the charts are `mancala-report`'s).
//!
//! - `analyze first-move`: over a grid of boards and rule sets, the exact
//!   value of the start and of every first move, and the first player's
//!   results for a ladder of agent strengths; resumable.
//! - `analyze fair`: starting positions one or two seeds away from the
//!   standard one whose perfect-play value is 0 (Neller's FairKalah idea),
//!   in the `fair` submodule.
//! - `analyze openings`: a balanced opening book, every position after K
//!   moves solved exactly and those close to 0 kept, in `books`.
//! - `analyze exact-positions` and `analyze accuracy`: a set of positions
//!   from real games with every move's exact value, and how close agents
//!   come to perfect play on it, in the `exact` submodule.
//! - `analyze labels`: every position of many games with the values the
//!   solver settles cheaply, for training evaluations, in `labels`.
//!
//! See `docs/analysis.md`.

use std::fs;
use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Subcommand};
use mancala_analysis::first_move::{self, Exact, FirstMoveOptions};
use mancala_analysis::{AnalysisError, Observer};
use mancala_arena::GameRecord;
use mancala_core::GameSpec;

mod books;
mod exact;
mod fair;
mod labels;

use crate::progress::AnalysisProgress;
use crate::{bad_input, Interrupted};

/// Arguments of `mancala analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    #[command(subcommand)]
    command: AnalyzeCommand,
}

#[derive(Subcommand, Debug)]
enum AnalyzeCommand {
    /// The first player's advantage over a grid of boards and rules: exact
    /// values where the solver finishes, and self-play results for a ladder
    /// of agents. Resumable: rerun the same command to finish it.
    FirstMove(FirstMoveArgs),
    /// Fair starting positions: one or two seeds moved from the standard
    /// start, with a perfect-play value of 0 (FairKalah).
    Fair(fair::FairArgs),
    /// A balanced opening book: every position after K moves solved
    /// exactly, keeping those whose value is close to 0.
    Openings(books::OpeningsArgs),
    /// A yardstick: positions from real Kalah games with the exact value of
    /// every move, written as JSON for `analyze accuracy` and training.
    ExactPositions(exact::ExactPositionsArgs),
    /// How close agents come to perfect play on a set of exact positions:
    /// how often they choose a best move, and the margin they give away.
    Accuracy(exact::AccuracyArgs),
    /// Exact labels for training: every position of many seeded Kalah
    /// games with its value and each move's, where the solver settles them
    /// within a node budget. Resumable and shardable.
    Labels(labels::LabelsArgs),
}

/// `mancala analyze`.
pub fn run(args: &AnalyzeArgs) -> Result<()> {
    match &args.command {
        AnalyzeCommand::FirstMove(a) => first_move(a),
        AnalyzeCommand::Fair(a) => fair::run(a),
        AnalyzeCommand::Openings(a) => books::run(a),
        AnalyzeCommand::ExactPositions(a) => exact::exact_positions(a),
        AnalyzeCommand::Accuracy(a) => exact::accuracy(a),
        AnalyzeCommand::Labels(a) => labels::run(a),
    }
}

/// Arguments of `mancala analyze first-move`.
#[derive(Args, Debug)]
pub struct FirstMoveArgs {
    /// Game: kalah, oware or congkak, optionally with options kept on every
    /// board (kalah:leftover=set_aside); pits and seeds come from
    /// --pits/--seeds.
    #[arg(long, short, default_value = "kalah")]
    game: String,
    /// Pits per row: a number, a range with both ends included (3..6) or a
    /// comma-separated list of those (3,5..6).
    #[arg(long, default_value = "3..6")]
    pits: String,
    /// Seeds per pit at the start, written like --pits.
    #[arg(long, default_value = "1..6")]
    seeds: String,
    /// Rule sets, comma-separated: standard, empty_capture, pie, delayed,
    /// set_aside, or game options joined with + (empty_capture+pie,
    /// grand_slam=illegal).
    #[arg(long, default_value = "standard")]
    rules: String,
    /// The agent ladder, weakest first, as separate values (default:
    /// random greedy minimax:depth=2,margin=0 minimax:depth=4,margin=0
    /// minimax:depth=6,margin=0 mcts:sims=100 mcts:sims=1000 perfect). `perfect` plays only on
    /// boards the solver finished.
    #[arg(long, num_args = 1.., value_name = "SPEC")]
    agents: Vec<String>,
    /// Games per board x rules x agent cell (self-play from the start).
    #[arg(long, short = 'n', default_value_t = 100)]
    games: u64,
    /// Seed of the whole analysis: each cell's games get their own stream.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, short, value_parser = crate::parse_threads)]
    threads: Option<usize>,
    /// Time the solver may spend on each board, e.g. 10s or 2m; 0 skips
    /// exact values. The endgame database's build is not counted.
    #[arg(long, default_value = "10s")]
    budget: String,
    /// Solver transposition table size in MiB (one table per board).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=65536))]
    tt: u64,
    /// Seeds in the solver's endgame database's fullest level (default:
    /// as `mancala solve`, kept in the same cache folder; 0: no database).
    #[arg(long)]
    db_seeds: Option<usize>,
    /// Output folder: first_move.csv, first_move.json, SVG charts.
    #[arg(long, default_value = "results/first-move")]
    out: PathBuf,
}

/// An analysis error as the binary reports it: bad options are the user's
/// input (exit code 2), a stop is an interruption (exit code 130).
pub fn cli_error(e: AnalysisError) -> anyhow::Error {
    match e {
        // A damaged file of an earlier run is the input's fault too.
        AnalysisError::BadInput(_) | AnalysisError::Damaged { .. } => bad_input(e),
        AnalysisError::Interrupted => anyhow::Error::new(Interrupted),
        // The rules or options asked for: the user's, with the flags to change.
        AnalysisError::Refused(e) => crate::solve_cmd::solver_error(e),
        other => other.into(),
    }
}

/// The progress bar of `analyze first-move`, with a line per board where
/// no bar is drawn.
struct FirstMoveProgress {
    bar: AnalysisProgress,
    out: PathBuf,
    /// A log line per board where no progress bar is drawn (a redirected
    /// standard error); on a terminal the bar would be garbled by it, and
    /// the table at the end says the same.
    log: bool,
}

impl Observer for FirstMoveProgress {
    fn start(&self, total: u64, unit: &str) {
        self.bar.start(total, unit);
    }
    fn resumed(&self, cells: usize, exacts: usize) {
        eprintln!(
            "resuming in {}: {cells} finished cells kept, {exacts} boards' exact values known",
            self.out.display()
        );
    }
    fn solved(&self, e: &Exact) {
        if self.log {
            match e.value {
                Some(v) => eprintln!(
                    "{}: exact value {v:+} in {:.2} s",
                    e.spec,
                    e.seconds.unwrap_or(0.0)
                ),
                None => eprintln!("{}: {}", e.spec, e.note),
            }
        }
    }
    fn game_done(&self, record: &GameRecord) {
        self.bar.game_done(record);
    }
    fn skipped_to(&self, done: u64) {
        self.bar.skipped_to(done);
    }
    fn warning(&self, text: &str) {
        self.bar.warning(text);
    }
}

/// `mancala analyze first-move`.
fn first_move(args: &FirstMoveArgs) -> Result<()> {
    let options = FirstMoveOptions {
        game: args.game.clone(),
        pits: args.pits.clone(),
        seeds: args.seeds.clone(),
        rules: args.rules.clone(),
        agents: args.agents.clone(),
        games: args.games,
        seed: args.seed,
        threads: crate::threads(args.threads, usize::MAX),
        budget: args.budget.clone(),
        tt: args.tt,
        db_seeds: args.db_seeds,
        db_dir: crate::solve_cmd::default_db_dir(),
        out: args.out.clone(),
    };
    let progress = FirstMoveProgress {
        bar: AnalysisProgress::new(false),
        out: args.out.clone(),
        log: !std::io::stderr().is_terminal(),
    };
    let result = first_move::run(&options, &progress, crate::stop_flag());
    progress.bar.finish();
    let grid = result.map_err(cli_error)?;
    for (name, svg) in mancala_report::first_move_charts(&grid) {
        let path = args.out.join(name);
        fs::write(&path, svg)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    print!("{}", first_move::markdown_table(&grid));
    if !grid.skipped_perfect.is_empty() {
        println!(
            "\n`perfect` plays only on solved boards: not on {} ({})",
            grid.skipped_perfect.join(", "),
            if first_move::parse_budget(&args.budget)
                .map_err(cli_error)?
                .is_some()
            {
                "not solved within --budget"
            } else {
                "--budget 0 solves nothing"
            }
        );
    }
    if !grid.unplayable.is_empty() {
        println!(
            "\nLeft out: {} (perfect play needs a solver: Kalah and single-round Congkak \
             only).",
            grid.unplayable.join(", ")
        );
    }
    if grid
        .boards
        .iter()
        .any(|b| matches!(b.spec, GameSpec::Oware(_)))
    {
        println!(
            "\nOware exact values come from the Oware solver, which takes small boards only \
             (docs/oware-solver.md); larger boards have exact = unavailable."
        );
    }
    if grid
        .boards
        .iter()
        .any(|b| matches!(b.spec, GameSpec::Congkak(_)))
    {
        println!(
            "\nCongkak exact values come from the Congkak solver, which plays a single round \
             only (docs/congkak-solver.md); rounds=many boards have exact = unavailable."
        );
    }
    eprintln!("results in {}", args.out.display());
    if grid.interrupted {
        eprintln!("interrupted: rerun the same command to finish the grid");
        return Err(anyhow::Error::new(Interrupted));
    }
    Ok(())
}
