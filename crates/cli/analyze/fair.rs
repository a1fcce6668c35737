//! `mancala analyze fair`: starting positions one or two seeds away from
//! the standard one whose perfect-play value is 0 (Neller's FairKalah;
//! the search is `mancala_analysis::fair`).

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, ValueEnum};
use mancala_agents::parse_duration;
use mancala_analysis::fair::{fair_starts, openings_text, FairDocument, FairOptions, FairReport};
use mancala_core::GameSpec;

use super::cli_error;
use crate::progress::AnalysisProgress;
use crate::{bad_input, Interrupted};

/// Which capture rules `analyze fair` searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Capture {
    /// Both: empty_capture=false, then empty_capture=true.
    Both,
    /// empty_capture=false only (a capture needs seeds opposite).
    Standard,
    /// empty_capture=true only (Neller's FairKalah rules).
    Empty,
}

/// Arguments of `mancala analyze fair`.
#[derive(Args, Debug)]
pub struct FairArgs {
    /// The Kalah board and rules, e.g. kalah:pits=4,seeds=3 (empty_capture
    /// is set by --capture).
    #[arg(long, short, default_value = "kalah:pits=4,seeds=3")]
    game: String,
    /// Seeds moved from the standard start: candidates move 1, or up to 2.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=2))]
    moves: u8,
    /// Capture rules to search.
    #[arg(long, value_enum, default_value_t = Capture::Both)]
    capture: Capture,
    /// Worker threads (default: all cores): candidates are solved in parallel.
    #[arg(long, short, value_parser = crate::parse_threads)]
    threads: Option<usize>,
    /// Solver transposition table size in MiB (one per rule set, shared by
    /// every candidate).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=65536))]
    tt: u64,
    /// Seeds in the endgame database's fullest level (default: as `mancala
    /// solve`, kept in the same cache folder; 0: no database).
    #[arg(long)]
    db_seeds: Option<usize>,
    /// Stop searching after this long for each rule set (e.g. 10m);
    /// unsolved candidates are counted as such. The endgame database's
    /// build is not counted: it comes first (minutes on six pits the first
    /// time, then loaded from the cache), so that a budget gives the same
    /// results whether the database was built or loaded.
    #[arg(long)]
    budget: Option<String>,
    /// Work out every candidate's exact value too (a histogram of them in
    /// the output). Without it, each candidate only gets compared with 0,
    /// which takes at most two null-window searches instead of a full
    /// MTD(f): about half the time on Kalah(6,4).
    #[arg(long)]
    values: bool,
    /// Also write the fair starts found as an openings file (one position
    /// per line, for a tournament's `[openings] file` or `match
    /// --openings`); one rule set at a time: with --capture standard or
    /// --capture empty.
    #[arg(long, value_name = "FILE")]
    openings_out: Option<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// `mancala analyze fair`.
pub fn run(args: &FairArgs) -> Result<()> {
    let spec = args
        .game
        .parse::<GameSpec>()
        .map_err(|e| bad_input(format!("--game: {e}")))?;
    let GameSpec::Kalah(rules) = spec else {
        return Err(bad_input(format!(
            "--game: fair starts need the solver, which plays Kalah only; not {spec}"
        )));
    };
    if args.openings_out.is_some() && args.capture == Capture::Both {
        return Err(bad_input(
            "--openings-out writes the fair starts of one rule set: add --capture standard or \
             --capture empty",
        ));
    }
    let budget = match &args.budget {
        None => None,
        Some(t) => {
            Some(parse_duration("budget", t).map_err(|e| bad_input(format!("--budget: {e}")))?)
        }
    };
    let options = FairOptions {
        rules,
        moves: args.moves,
        captures: match args.capture {
            Capture::Both => vec![false, true],
            Capture::Standard => vec![false],
            Capture::Empty => vec![true],
        },
        threads: crate::threads(args.threads, usize::MAX),
        tt: args.tt,
        db_seeds: args.db_seeds,
        db_dir: crate::solve_cmd::default_db_dir(),
        budget,
        values: args.values,
    };
    // Kalah(6,4) takes minutes: a bar per rule set (not with --json).
    let progress = AnalysisProgress::new(args.json);
    let (reports, interrupted) =
        fair_starts(&options, &progress, crate::stop_flag()).map_err(cli_error)?;
    // One rule set (checked above): its fair starts as an opening suite.
    let suite = match reports.as_slice() {
        [report] => Some((openings_text(report), report.fair.len())),
        _ => None,
    };
    if args.json {
        // Through a JSON value: its keys sorted, as they always were.
        let doc = FairDocument {
            moves: args.moves,
            rule_sets: reports,
        };
        println!("{}", serde_json::to_value(&doc)?);
    } else {
        for r in &reports {
            print_fair(r);
        }
    }
    if interrupted {
        return Err(anyhow::Error::new(Interrupted));
    }
    if let (Some(path), Some((text, count))) = (&args.openings_out, suite) {
        std::fs::write(path, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        if !args.json {
            println!("openings: {} ({count} positions)", path.display());
        }
    }
    Ok(())
}

fn print_fair(r: &FairReport) {
    println!(
        "{} (empty capture {}): the standard start is worth {} for the first player",
        r.game,
        if r.empty_capture { "on" } else { "off" },
        match r.start_value {
            Some(v) => format!("{v:+}"),
            None => "? (not solved)".into(),
        }
    );
    println!(
        "  {} candidate starts ({} more end at once), {} solved in {:.2} s: {} fair \
         ({} with one seed moved, {} with two); {} favour the first player, {} the second",
        r.candidates,
        r.over_at_start,
        r.solved,
        r.seconds.as_f64().unwrap_or(0.0),
        r.fair_count,
        r.fair_one_seed,
        r.fair_two_seeds,
        r.favours_first,
        r.favours_second
    );
    if let Some(values) = &r.values {
        let text: Vec<String> = values.iter().map(|(v, n)| format!("{v:+}: {n}")).collect();
        println!("  values (count): {}", text.join(", "));
    }
    if let Some(s) = r.database_seconds.as_f64().filter(|&s| s > 0.0) {
        println!(
            "  endgame database ready in {s:.2} s before the search (not counted in --budget)"
        );
    }
    if r.unsolved != 0 {
        println!("  {} candidates not solved within the budget", r.unsolved);
    }
    for f in &r.fair {
        println!("  {}   ({})", f.position, f.change);
    }
    println!();
}
