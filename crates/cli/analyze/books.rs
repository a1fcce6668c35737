//! `mancala analyze openings`: a balanced opening book from exact values
//! (the search is `mancala_analysis::books`).

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use mancala_analysis::books::{balanced_book, book_text, BookOptions, BookReport};
use mancala_core::GameSpec;

use super::cli_error;
use crate::bad_input;
use crate::progress::AnalysisProgress;

/// Arguments of `mancala analyze openings`.
#[derive(Args, Debug)]
pub struct OpeningsArgs {
    /// The game: Kalah or single-round Congkak, any board and rules.
    #[arg(long, short, default_value = "kalah")]
    game: String,
    /// Moves from the start, 1 or more (a sowing or the swap; an extra
    /// turn is another move of the same player).
    #[arg(long, value_parser = parse_plies)]
    plies: u32,
    /// Keep positions whose exact value for the player to move lies within
    /// -V..=V.
    #[arg(long, value_name = "V", value_parser = clap::value_parser!(u32).range(0..=1000))]
    max_abs: Option<u32>,
    /// Keep at most N positions, those closest to 0 (with --max-abs: of
    /// those within the bound).
    #[arg(long, value_name = "N", value_parser = parse_count)]
    count: Option<usize>,
    /// The opening file to write (one opening per line, for a
    /// tournament's `[openings] file` or `match --openings`); its JSON
    /// summary (positions found, solved, kept, the value histograms, the
    /// book) goes beside it with `.json` for the extension.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Worker threads (default: all cores): positions are solved in parallel.
    #[arg(long, short, value_parser = crate::parse_threads)]
    threads: Option<usize>,
    /// Solver transposition table size in MiB (default: `mancala solve`'s).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=65536))]
    tt: Option<u64>,
    /// Seeds in the endgame database's fullest level (default: as `mancala
    /// solve`, kept in the same cache folder; 0: no database).
    #[arg(long)]
    db_seeds: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Most moves from the start `--plies` takes: deeper, the positions
/// exceed what a book search solves anyway.
const MAX_PLIES: u32 = 40;

/// Parses `--plies`: 1 to [`MAX_PLIES`]. No moves would make a book of the
/// start position alone, an empty line that `--openings` refuses.
fn parse_plies(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(0) => Err("at least 1 move: a book of the start position alone is not a book".into()),
        Ok(n) if n <= MAX_PLIES => Ok(n),
        _ => Err(format!("a number of moves from 1 to {MAX_PLIES}")),
    }
}

/// Parses `--count`: 1 or more (a book of no openings plays no game).
fn parse_count(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("a number of openings, 1 or more".into()),
    }
}

/// Where the summary of the book `out` goes: `out` with `.json` for its
/// extension (`book.txt` -> `book.json`, `book` -> `book.json`).
fn summary_path(out: &Path) -> PathBuf {
    out.with_extension("json")
}

/// `mancala analyze openings`.
pub fn run(args: &OpeningsArgs) -> Result<()> {
    let spec = args
        .game
        .parse::<GameSpec>()
        .map_err(|e| bad_input(format!("--game: {e}")))?;
    let summary = summary_path(&args.out);
    if summary == args.out {
        return Err(bad_input(format!(
            "--out {}: the summary is written beside the book as {}; give the book another \
             extension (e.g. .txt)",
            args.out.display(),
            summary.display()
        )));
    }
    let options = BookOptions {
        plies: args.plies,
        max_abs: args.max_abs.map(|v| v as i32),
        count: args.count,
        threads: crate::threads(args.threads, usize::MAX),
        tt: args.tt,
        db_seeds: args.db_seeds,
        db_dir: crate::solve_cmd::default_db_dir(),
    };
    let progress = AnalysisProgress::new(args.quiet);
    let stop = crate::stop_flag();
    let report = match spec {
        GameSpec::Kalah(rules) => balanced_book(rules, &options, &progress, stop),
        GameSpec::Congkak(rules) => balanced_book(rules, &options, &progress, stop),
        GameSpec::Oware(_) => {
            return Err(bad_input(
                "--game: balanced books need the solver of Kalah and single-round Congkak; \
                 Oware's values depend on the game's history",
            ))
        }
    }
    .map_err(cli_error)?;
    write(&args.out, book_text(&report))?;
    write(
        &summary,
        serde_json::to_string_pretty(&report).expect("a book report serialises") + "\n",
    )?;
    print_summary(&report, &args.out, &summary);
    Ok(())
}

fn write(path: &Path, text: String) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
}

fn print_summary(r: &BookReport, out: &Path, summary: &Path) {
    let histogram = |values: &[(i32, usize)]| {
        values
            .iter()
            .map(|(v, n)| format!("{v:+}: {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "{}: {} move sequences of {} moves reach {} distinct positions ({} sequences end the \
         game first); {} solved in {:.2} s, {} kept",
        r.game,
        r.paths,
        r.plies,
        r.positions,
        r.ended,
        r.solved,
        r.seconds.as_f64().unwrap_or(0.0),
        r.kept
    );
    println!("  values for the mover (count): {}", histogram(&r.values));
    println!("  kept: {}", histogram(&r.kept_values));
    println!("book: {} ({} openings)", out.display(), r.kept);
    println!("summary: {}", summary.display());
}
