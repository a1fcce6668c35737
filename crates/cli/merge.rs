//! `mancala merge DIR... --output OUT`: one tournament folder from the
//! folders of its shards (`mancala tournament CONFIG --shard K/N`), with
//! the games, ratings and summary a single run of the tournament writes.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use mancala_agents::Agent;
use mancala_arena::log::LogError;
use mancala_arena::merge::{
    merge_shards, open_merge, MergeError, MergeOutcome, MergeSource, ShardSet,
};
use mancala_core::with_game;

use crate::bad_input;
use crate::tournament::{self, output_error, tournament_error};

/// Arguments of `mancala merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The shards' folders, each written by `mancala tournament CONFIG
    /// --shard K/N` (a glob such as `shards/*` is fine).
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// The merged tournament's folder: new, empty, or an earlier merge
    /// (or run) of the same tournament, whose games are kept.
    #[arg(long, short)]
    output: PathBuf,
    /// Write the games found even when some are missing (then no ratings);
    /// `mancala tournament CONFIG --output OUT` can play the rest.
    #[arg(long)]
    allow_partial: bool,
    /// Say only what is wrong.
    #[arg(long, short)]
    quiet: bool,
    /// Do not write report.html (`mancala report OUT` writes it later).
    #[arg(long)]
    no_report: bool,
}

/// `mancala merge`.
pub fn run(args: &MergeArgs) -> Result<()> {
    if args.output.as_os_str().is_empty() {
        return Err(bad_input("--output must not be empty"));
    }
    let source = open_merge(&args.dirs).map_err(|e| merge_error(e, None))?;
    let spec = source.spec;
    let outcome = with_game!(&spec, game => {
        // Adjudicated games are checked with the adjudicator that ended them.
        let adjudicator = mancala_analysis::adjudication::exact_adjudicator(
            game,
            &source.config.adjudication,
            crate::solve_cmd::default_db_dir().as_deref(),
            &crate::progress::AnalysisProgress::new(args.quiet),
        )
        .map_err(|e| bad_input(format!("{}: {e}", source.origin)))?;
        let mut prepared = mancala_arena::tournament::prepare(
            game,
            &spec,
            &source.config,
            source.identity.agent_specs(),
            // The games are checked by replaying their moves: no agent is
            // built, so tournaments of any agent merge on any build.
            Box::new(|_| -> Box<dyn Agent<_>> { unreachable!("a merge plays no games") }),
            &source.origin,
        )
        .map_err(tournament_error)?;
        prepared.arena.adjudicator = adjudicator
            .as_ref()
            .map(|a| a as &dyn mancala_arena::Adjudicator<_>);
        merge_shards(&source, &prepared, &args.output, args.allow_partial)
            .map_err(|e| merge_error(e, Some(&source.set)))?
    });
    show(&source, &outcome, args);
    Ok(())
}

/// Says what the merge noticed and did, then the standings (and writes
/// the report) of a complete one.
fn show(source: &MergeSource, outcome: &MergeOutcome, args: &MergeArgs) {
    for warning in outcome.warnings() {
        eprintln!("warning: {warning}");
    }
    let out_dir = &args.output;
    if !args.quiet {
        eprintln!(
            "{}: merged {} shard folders (of {} shards): {} of {} games{} -> {}",
            source.config.name,
            source.set.folders().len(),
            source.set.shard_count(),
            outcome.games,
            outcome.planned,
            if outcome.already_there > 0 {
                format!(" ({} already there)", outcome.already_there)
            } else {
                String::new()
            },
            out_dir.display()
        );
    }
    if let Some(gaps) = &outcome.gaps {
        // --allow-partial: the games are written, but a partial
        // tournament's ratings would read as the results.
        eprintln!(
            "partial merge: {gaps}\nno ratings were written; `mancala tournament CONFIG --output {}` \
             plays the missing games and rates the tournament (or merge again with the missing \
             shards)",
            out_dir.display()
        );
    }
    if let Some(summary) = &outcome.summary {
        tournament::show_results(summary, out_dir, !args.no_report);
    }
}

/// Shard folders that cannot be merged are the user's to fix (exit 2),
/// with what to do; `set`, when known, names the shard of a damaged log.
fn merge_error(e: MergeError, set: Option<&ShardSet>) -> anyhow::Error {
    match e {
        MergeError::Log(e @ LogError::Corrupt { .. }) => shard_log_error(e, set),
        MergeError::Log(e) => output_error(e),
        MergeError::Incomplete(gaps) => bad_input(format!(
            "{gaps}\nhint: run the missing shards (`mancala tournament CONFIG --shard K/N \
             --output DIR` also continues one that stopped) and merge again, or merge what there \
             is with --allow-partial"
        )),
        MergeError::Merged(e) => merged_log_error(e),
        MergeError::Results(e) => tournament_error(*e),
        other => bad_input(other),
    }
}

/// A shard's damaged or edited file: what to do is in the shard's own
/// folder, with `mancala tournament` (`--fresh` is its option, not
/// `merge`'s), and then the merge again.
fn shard_log_error(e: LogError, set: Option<&ShardSet>) -> anyhow::Error {
    let folder = match &e {
        LogError::Corrupt { path, .. } => set.and_then(|set| {
            set.folders()
                .iter()
                .find(|f| Path::new(path).starts_with(&f.path))
        }),
        _ => None,
    };
    let (shard, dir) = folder.map_or(("K/N".to_string(), "DIR".to_string()), |f| {
        (f.shard.to_string(), f.path.display().to_string())
    });
    bad_input(format!(
        "{e}\nhint: the shard's files were damaged or edited. Delete that line and run the shard \
         again, which plays the games missing from its folder (`mancala tournament CONFIG \
         --shard {shard} --output {dir}`), or play the shard over from the start (`mancala \
         tournament CONFIG --shard {shard} --output {dir} --fresh`); then merge again"
    ))
}

/// The merged folder's own damaged or edited log: its games come from the
/// shards, so the line can go, or the merge can be made into a new folder.
fn merged_log_error(e: LogError) -> anyhow::Error {
    match e {
        LogError::Corrupt { .. } => bad_input(format!(
            "{e}\nhint: the merged folder's log was damaged or edited. Delete that line (merging \
             again takes the game from the shards), or merge into a new --output folder"
        )),
        other => output_error(other),
    }
}
