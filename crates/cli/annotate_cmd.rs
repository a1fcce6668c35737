//! `mancala annotate DIR`: every move of a results folder judged against
//! perfect play, and each agent's accuracy (the work is
//! `mancala_analysis::annotate`).

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use mancala_analysis::annotate::{
    accuracy, annotate_folder, write_accuracy, AnnotateOptions, ANNOTATIONS,
};

use crate::analyze::cli_error;
use crate::progress::AnalysisProgress;

/// Arguments of `mancala annotate`.
#[derive(Args, Debug)]
pub struct AnnotateArgs {
    /// A results folder (a tournament's, or merged shards').
    dir: PathBuf,
    /// Nodes the solver may search for each position (0: the endgame
    /// database only). A node budget, so the annotations are the same on
    /// any machine; rerunning with the same budget resumes.
    #[arg(long, default_value_t = 20_000,
          value_parser = clap::value_parser!(u64).range(0..=mancala_arena::config::MAX_EXACT_NODES))]
    nodes: u64,
    /// Seeds in the endgame database's fullest level (default: as `mancala
    /// solve`, kept in the same cache folder).
    #[arg(long)]
    db_seeds: Option<usize>,
    /// Worker threads (default: all cores). The files do not depend on it.
    #[arg(long, short, value_parser = crate::parse_threads)]
    threads: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// `mancala annotate`.
pub fn run(args: &AnnotateArgs) -> Result<()> {
    let options = AnnotateOptions {
        nodes: args.nodes,
        db_seeds: args.db_seeds,
    };
    let progress = AnalysisProgress::new(args.quiet);
    let annotations = annotate_folder(
        &args.dir,
        &options,
        crate::threads(args.threads, usize::MAX),
        crate::solve_cmd::default_db_dir().as_deref(),
        &progress,
        crate::stop_flag(),
    )
    .map_err(cli_error)?;
    let rows = accuracy(&annotations.games, annotations.total_seeds);
    let written = write_accuracy(&args.dir, &rows).map_err(cli_error)?;
    let width = rows.iter().map(|r| r.agent.len()).max().unwrap_or(5).max(5);
    println!(
        "{:<width$}  {:>7}  {:>8}  {:>17}  {:>9}  {:>13}  {:>11}",
        "agent", "judged", "best", "95% interval", "mean loss", "blunders/game", "first blunder"
    );
    for r in &rows {
        let o = &r.overall;
        println!(
            "{:<width$}  {:>7}  {:>8}  {:>17}  {:>9}  {:>13.2}  {:>11}",
            r.agent,
            o.judged,
            o.best_share
                .map_or("-".into(), |s| format!("{:.1}%", 100.0 * s)),
            o.best_share_95.map_or("-".into(), |(lo, hi)| format!(
                "[{:.1}%, {:.1}%]",
                100.0 * lo,
                100.0 * hi
            )),
            o.mean_loss.map_or("-".into(), |l| format!("{l:.3}")),
            r.blunders_per_game,
            r.first_blunder_ply
                .map_or("-".into(), |p| format!("ply {p:.1}")),
        );
    }
    println!("annotations: {}", args.dir.join(ANNOTATIONS).display());
    for path in written {
        println!("accuracy: {}", path.display());
    }
    Ok(())
}
