//! `mancala merge DIR... --output OUT`: one tournament folder from the
//! folders of its shards (`mancala tournament CONFIG --shard K/N`), with
//! the games, ratings and summary a single run of the tournament writes.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use mancala_agents::Agent;
use mancala_arena::log::{read_folder, LogError};
use mancala_arena::merge::{id_ranges, open_shards, MergeError, ShardSet};
use mancala_arena::{GameLog, MoveTable, OutputDir};
use mancala_core::{with_game, Game, GameSpec};

use crate::bad_input;
use crate::tournament::{self, output_error, tournament_error};
use mancala_arena::identity::Identity;
use mancala_arena::tournament::Prepared;

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
    let set = open_shards(&args.dirs).map_err(|e| merge_error(e, None))?;
    let label = set.folders()[0].path.join("tournament.json");
    let origin = label.display().to_string();
    let identity = Identity::from_value(set.tournament()).map_err(|e| {
        bad_input(format!(
            "{origin}: not a tournament this program can merge: {e}"
        ))
    })?;
    let config = identity
        .config(set.ratings_anchor())
        .map_err(|e| bad_input(format!("{origin}: {e}")))?;
    let spec: GameSpec = config
        .game
        .parse()
        .map_err(|e| bad_input(format!("{origin}: key `game`: {e}")))?;
    with_game!(&spec, game => {
        // Adjudicated games are checked with the adjudicator that ended them.
        let adjudicator = mancala_analysis::adjudication::exact_adjudicator(
            game,
            &config.adjudication,
            crate::solve_cmd::default_db_dir().as_deref(),
            &crate::progress::AnalysisProgress::new(args.quiet),
        )
        .map_err(|e| bad_input(format!("{origin}: {e}")))?;
        let mut prepared = mancala_arena::tournament::prepare(
            game,
            &spec,
            &config,
            identity.agent_specs(),
            // The games are checked by replaying their moves: no agent is
            // built, so tournaments of any agent merge on any build.
            Box::new(|_| -> Box<dyn Agent<_>> { unreachable!("a merge plays no games") }),
            &origin,
        )
        .map_err(tournament_error)?;
        prepared.arena.adjudicator = adjudicator
            .as_ref()
            .map(|a| a as &dyn mancala_arena::Adjudicator<_>);
        merge(&set, &prepared, &config, &spec, args)
    })
}

fn merge<G: Game>(
    set: &ShardSet,
    prepared: &Prepared<'_, G>,
    config: &mancala_arena::TournamentConfig,
    spec: &GameSpec,
    args: &MergeArgs,
) -> Result<()> {
    let Prepared {
        arena,
        plan,
        identity,
    } = prepared;
    let label = identity.to_value();
    if label != *set.tournament() {
        // The merged folder must be what a single run writes: refuse
        // labels this version would not write for the same tournament.
        return Err(bad_input(format!(
            "{}: the tournament it describes is not one this version of mancala writes; merge \
             with the version that ran the shards",
            set.folders()[0].path.join("tournament.json").display()
        )));
    }
    let out_dir = &args.output;
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    if let Some(f) = set
        .folders()
        .iter()
        .find(|f| canonical(&f.path) == canonical(out_dir))
    {
        return Err(bad_input(format!(
            "--output {} is one of the shard folders; merge into a new folder",
            f.path.display()
        )));
    }
    let created = !out_dir.exists();
    let out = OutputDir::claim(out_dir).map_err(output_error)?;
    let check = |planned: &_, record: &_| arena.check_record(planned, record);
    let collected = read_folder(out_dir, &label, plan, None, &check)
        .map_err(merged_log_error)
        .and_then(|earlier| {
            set.collect(plan, &check, Some((out_dir, earlier)))
                .map_err(|e| merge_error(e, Some(set)))
        })
        .and_then(|merged| match merged.incomplete() {
            Some(e) if !args.allow_partial => Err(merge_error(e, Some(set))),
            _ => Ok(merged),
        });
    let merged = match collected {
        Ok(merged) => merged,
        Err(e) => {
            if created {
                // Leave no empty folder behind a refused merge.
                let lock = out.path().join(".lock");
                drop(out);
                let _ = std::fs::remove_file(lock);
                let _ = std::fs::remove_dir(out_dir);
            }
            return Err(e);
        }
    };

    for path in set.repeated() {
        eprintln!("warning: {} was given twice; read once", path.display());
    }
    for (shard, paths) in &merged.duplicate_shards {
        let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        eprintln!(
            "warning: shard {shard} is in {} folders: {}",
            paths.len(),
            paths.join(", ")
        );
    }
    if !merged.duplicate_games.is_empty() {
        eprintln!(
            "warning: {} games were found more than once, the same each time, and kept once: {}",
            merged.duplicate_games.len(),
            id_ranges(&merged.duplicate_games)
        );
    }

    let (log, _) = GameLog::open(out, &label, plan, &check).map_err(merged_log_error)?;
    let _out = log.finish(&merged.records)?;
    if !args.quiet {
        eprintln!(
            "{}: merged {} shard folders (of {} shards): {} of {} games{} -> {}",
            config.name,
            set.folders().len(),
            set.shard_count(),
            merged.records.len(),
            plan.len(),
            if merged.already_there > 0 {
                format!(" ({} already there)", merged.already_there)
            } else {
                String::new()
            },
            out_dir.display()
        );
    }
    if !merged.gaps.is_empty() {
        // --allow-partial: the games are written, but a partial
        // tournament's ratings would read as the results.
        eprintln!(
            "partial merge: {}\nno ratings were written; `mancala tournament CONFIG --output {}` \
             plays the missing games and rates the tournament (or merge again with the missing \
             shards)",
            merged.gaps,
            out_dir.display()
        );
        return Ok(());
    }
    let mut moves = MoveTable::default();
    for r in &merged.records {
        moves.add(arena.game, r);
    }
    tournament::write_results(
        out_dir,
        config,
        &arena.players.names,
        &arena.players.specs,
        &spec.to_string(),
        &merged.records,
        &moves,
        plan.len() as u64,
        !args.no_report,
    )
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
