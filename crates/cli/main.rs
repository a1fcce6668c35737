//! `mancala`: tournaments, search agents and analysis for Kalah, Oware and
//! Congkak.
//!
//! This file only parses arguments and dispatches to one module per
//! subcommand; the work itself lives in the library crates.
// The binary is where the toolkit talks to its user.
#![allow(clippy::print_stdout)]

mod analyze;
mod annotate_cmd;
mod bench;
mod engine_cmd;
mod game_cmds;
mod match_cmd;
mod merge;
mod play;
mod progress;
mod report;
mod serve;
mod solve_bench;
mod solve_cmd;

mod tournament;
#[cfg(feature = "neural")]
mod train_cmd;
mod train_eval;

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use clap::{Parser, Subcommand};

/// An error caused by the user's input (a bad spec, an illegal move, a
/// broken config): the program exits with code 2 rather than 1.
#[derive(Debug)]
pub struct BadInput(pub String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// A run stopped by Ctrl-C before its end (exit code 130, like a shell).
#[derive(Debug)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// Wraps anything displayable as a [`BadInput`] error.
pub fn bad_input(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::Error::new(BadInput(e.to_string()))
}

/// Worker threads for `jobs` games: the user's choice, or every core;
/// never more than there are games, nor more than a few per core (more
/// threads than that only add memory and switching, and results do not
/// depend on the count).
pub fn threads(requested: Option<usize>, jobs: usize) -> usize {
    let (threads, note) = mancala_arena::tournament::worker_threads(requested, jobs);
    if let Some(note) = note {
        eprintln!("note: {note}");
    }
    threads
}

/// Prints what a clock means for a run: results that depend on the
/// machine, or `time=auto` agents with no clock to plan with.
pub fn clock_notes(
    agents: &[mancala_registry::AnyAgentSpec],
    clock: Option<&mancala_agents::TimeControl>,
) {
    match clock {
        Some(tc) => eprintln!(
            "note: time control {tc}: results depend on this machine's speed and load; \
             the seed decides everything else"
        ),
        None => {
            for a in agents.iter().filter(|a| a.uses_time_auto()) {
                eprintln!(
                    "note: {a} has time=auto but there is no time control: it thinks {} a move",
                    mancala_agents::format_duration(mancala_agents::AUTO_WITHOUT_CLOCK)
                );
            }
        }
    }
}

/// A rayon pool of `threads` threads.
pub fn thread_pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start threads: {e}"))
}

/// Parses `--threads`: a whole number from 1 to the configs' limit.
pub fn parse_threads(text: &str) -> Result<usize, String> {
    let max = mancala_arena::config::MAX_THREADS;
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("expected a number of threads from 1 to {max}")),
    }
}

/// The flag that the first Ctrl-C raises: runs then end cleanly, keeping
/// the games they finished. A second Ctrl-C exits at once.
pub fn stop_flag() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    static INSTALL: OnceLock<()> = OnceLock::new();
    INSTALL.get_or_init(|| {
        let result = ctrlc::set_handler(|| {
            if STOP.swap(true, Ordering::SeqCst) {
                eprintln!("\ninterrupted again: exiting now");
                std::process::exit(130);
            }
            eprintln!("\ninterrupted: stopping cleanly (Ctrl-C again to exit at once)");
        });
        if let Err(e) = result {
            eprintln!("warning: Ctrl-C will not stop cleanly: {e}");
        }
    });
    &STOP
}

#[derive(Parser)]
#[command(
    name = "mancala",
    version,
    about = "Bot tournaments, search agents and first-move analysis for Kalah, Oware and Congkak",
    long_about = "Bot tournaments, search agents and first-move analysis for Kalah, Oware and \
        Congkak.\n\n\
        Games are chosen with a game spec: kalah, kalah:pits=4,seeds=3, \
        kalah:empty_capture=true,pie=true, oware:grand_slam=illegal, ..."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a tournament from a config file (round-robin or gauntlet), in
    /// parallel, with logs, resume, Elo ratings and first-player statistics.
    Tournament(tournament::TournamentArgs),
    /// Merge the folders of a tournament's shards (`tournament --shard K/N`)
    /// into one folder with the games, ratings and summary of a single run.
    Merge(merge::MergeArgs),
    /// Train a neural agent by self-play, AlphaZero-style (needs the `neural` feature).
    #[cfg(feature = "neural")]
    Train(train_cmd::TrainArgs),
    /// Write a libtorch model (`best.ot`) as a safetensors policy-value
    /// network, which `neural:model=PATH` plays in every build, without
    /// libtorch (needs the `neural` feature).
    #[cfg(feature = "neural")]
    ExportNet(train_cmd::ExportNetArgs),
    /// Train a value network for alpha-beta (`minimax:eval=net:PATH`) on the
    /// exact labels of `analyze labels`, in plain Rust.
    TrainEval(train_eval::TrainEvalArgs),
    /// Play a list of moves and print the board after each; or replay game N of a results
    /// folder (--from DIR --id N) with each move's time, clock and search.
    Replay(game_cmds::ReplayArgs),
    /// Count move sequences to a depth (a move-generator check).
    Perft(game_cmds::PerftArgs),
    /// Show a position as a readable board.
    Show(game_cmds::ShowArgs),
    /// Measure random playouts per second, on one thread and on all.
    Bench(bench::BenchArgs),
    /// Play many games between two agents (seats swapped) and rate them.
    Match(match_cmd::MatchArgs),
    /// Play against an agent in the terminal.
    Play(play::PlayArgs),
    /// Serve an agent over the engine protocol on stdin/stdout
    /// (docs/engine-protocol.md), for other people's tools; or check an
    /// engine program against the protocol (`engine check -- CMD ARGS`).
    Engine(engine_cmd::EngineArgs),
    /// Solve a position of Kalah, single-round Congkak or a small Oware
    /// board: its exact value, every move's value and a principal
    /// variation; `--bench` times whole Kalah games.
    Solve(solve_cmd::SolveArgs),
    /// First-move advantage: exact values and self-play over a grid of
    /// boards, rules and agent strengths; fair starting positions.
    Analyze(analyze::AnalyzeArgs),
    /// One self-contained HTML page (or markdown with SVG charts) of a
    /// results folder: a tournament, a training run or a first-move analysis.
    Report(report::ReportArgs),
    /// Every move of a results folder judged against perfect play: the
    /// seeds each gave away, the best moves, blunders; each agent's
    /// accuracy by game phase. Resumable.
    Annotate(annotate_cmd::AnnotateArgs),
    /// The web app on a local port: play any game against any agent,
    /// analyse positions with the solver, replay results folders' games
    /// (docs/web.md).
    Serve(serve::ServeArgs),
}

/// Makes a closed standard output (`mancala ... | head`) end the program
/// quietly, as it ends `cat` or `grep`, instead of with a panic: Rust
/// ignores SIGPIPE, so printing to a closed pipe panics, and this crate
/// denies the unsafe code that would restore the signal.
fn exit_quietly_on_broken_pipe() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            // 128 + SIGPIPE, what a shell reports for a program killed by it.
            std::process::exit(141);
        }
        default_hook(info);
    }));
}

fn main() -> ExitCode {
    exit_quietly_on_broken_pipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Tournament(args) => tournament::run(&args),
        Command::Merge(args) => merge::run(&args),
        #[cfg(feature = "neural")]
        Command::Train(args) => train_cmd::run(&args),
        #[cfg(feature = "neural")]
        Command::ExportNet(args) => train_cmd::export_net(&args),
        Command::TrainEval(args) => train_eval::run(&args),
        Command::Replay(args) => game_cmds::replay(&args),
        Command::Perft(args) => game_cmds::perft(&args),
        Command::Show(args) => game_cmds::show(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Match(args) => match_cmd::run(&args),
        Command::Play(args) => play::run(&args),
        Command::Engine(args) => engine_cmd::run(&args),
        Command::Solve(args) => solve_cmd::run(&args),
        Command::Analyze(args) => analyze::run(&args),
        Command::Report(args) => report::run(&args),
        Command::Annotate(args) => annotate_cmd::run(&args),
        Command::Serve(args) => serve::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if err.downcast_ref::<Interrupted>().is_some() => ExitCode::from(130),
        Err(err) => {
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            if err.downcast_ref::<BadInput>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
