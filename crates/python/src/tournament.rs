//! `mancala.tournament`: the tournament runner of `mancala tournament`,
//! from a config file or a dict in its shape, returning the summary it
//! writes as plain Python structures; and `mancala.merge`, the merge of a
//! sharded tournament's folders as `mancala merge` makes it.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use mancala_arena::merge::{merge_shards, open_merge, MergeError};
use mancala_arena::tournament::{self, Silent};
use mancala_arena::{LogError, RunEnd, RunSettings, Shard, TournamentConfig, TournamentError};
use mancala_core::{with_game, GameSpec};
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::interrupt::interruptible;

/// Where a tournament's config comes from.
enum Source {
    File(PathBuf),
    /// A dict, as JSON text (the Python wrapper writes it).
    Table(String),
}

/// What the worker thread hands back: the summary as JSON and the folder,
/// or the error, typed for the exception it becomes.
enum Failure {
    /// Bad config, agents or request: `ValueError`.
    Input(String),
    /// A folder or file that cannot be used, written or locked: `OSError`.
    Output(String),
    /// Stopped by Ctrl-C: the games so far are logged.
    Stopped(String),
    /// Anything else: `RuntimeError`.
    Other(String),
}

impl From<TournamentError> for Failure {
    fn from(e: TournamentError) -> Failure {
        match e {
            TournamentError::Input(m) => Failure::Input(m),
            // A folder of another tournament, or damaged: the request is
            // wrong, as a bad config is. A file that cannot be used is not.
            TournamentError::Output(e @ (LogError::Io { .. } | LogError::Locked { .. })) => {
                Failure::Output(e.to_string())
            }
            TournamentError::Output(e) => Failure::Input(e.to_string()),
            e @ (TournamentError::LogWrite(_) | TournamentError::Write(_)) => {
                Failure::Output(e.to_string())
            }
            e @ TournamentError::Stopped { .. } => Failure::Stopped(format!(
                "{e}; run the same tournament into the same folder to continue"
            )),
            other => Failure::Other(other.to_string()),
        }
    }
}

/// A finished tournament, for the wrapper.
struct Played {
    /// `summary.json`'s content (none for a shard).
    summary: Option<String>,
    /// The folder.
    dir: String,
    /// `report.html`'s path, when it was written.
    report: Option<String>,
    /// Why the report asked for could not be written.
    report_error: Option<String>,
}

/// A tournament's result, for the wrapper: `summary.json`'s content (none
/// for a shard), the folder, and the report's path or why it was not
/// written.
type PlayedTuple = (Option<String>, String, Option<String>, Option<String>);

/// Runs a tournament (see the wrapper's docstring): `config` is a path,
/// or JSON text of a dict when `is_table`. Returns the summary as JSON
/// text, the folder it was written to, and the report's path or why it
/// could not be written.
#[pyfunction]
#[pyo3(signature = (config, is_table, output=None, threads=None, resume=false, fresh=false, report=true, shard=None))]
#[allow(clippy::too_many_arguments)]
pub fn _tournament(
    py: Python<'_>,
    config: String,
    is_table: bool,
    output: Option<PathBuf>,
    threads: Option<usize>,
    resume: bool,
    fresh: bool,
    report: bool,
    shard: Option<String>,
) -> PyResult<PlayedTuple> {
    let source = if is_table {
        Source::Table(config)
    } else {
        Source::File(PathBuf::from(config))
    };
    if threads == Some(0) || threads.is_some_and(|t| t > mancala_arena::config::MAX_THREADS) {
        return Err(PyValueError::new_err(format!(
            "threads: expected a number from 1 to {}",
            mancala_arena::config::MAX_THREADS
        )));
    }
    let shard: Option<Shard> = shard
        .map(|text| {
            text.parse()
                .map_err(|e| PyValueError::new_err(format!("shard: {e}")))
        })
        .transpose()?;
    let result = interruptible(py, |stop| {
        play(&source, output, threads, resume, fresh, report, shard, stop)
    })?;
    let played = result.map_err(|failure| match failure {
        Failure::Input(m) => PyValueError::new_err(m),
        Failure::Output(m) => PyOSError::new_err(m),
        Failure::Stopped(m) => PyKeyboardInterrupt::new_err(m),
        Failure::Other(m) => PyRuntimeError::new_err(m),
    })?;
    Ok((
        played.summary,
        played.dir,
        played.report,
        played.report_error,
    ))
}

#[allow(clippy::too_many_arguments)]
fn play(
    source: &Source,
    output: Option<PathBuf>,
    threads: Option<usize>,
    resume: bool,
    fresh: bool,
    report: bool,
    shard: Option<Shard>,
    stop: &AtomicBool,
) -> Result<Played, Failure> {
    let (config, origin) = match source {
        Source::File(path) => (
            TournamentConfig::load(path).map_err(|e| Failure::Input(e.to_string()))?,
            path.display().to_string(),
        ),
        Source::Table(json) => {
            let origin = "the config dict".to_string();
            let table: toml::Table =
                serde_json::from_str(json).map_err(|e| Failure::Input(format!("{origin}: {e}")))?;
            (
                TournamentConfig::from_table(table, &origin)
                    .map_err(|e| Failure::Input(e.to_string()))?,
                origin,
            )
        }
    };
    let spec: GameSpec = config
        .game
        .parse()
        .map_err(|e| Failure::Input(format!("{origin}: key `game`: {e}")))?;
    let dir = tournament::output_folder(&config, output.as_deref(), shard)?;
    let settings = RunSettings {
        dir,
        shard,
        resume,
        fresh,
        threads,
        rating_interval: None,
    };
    let end = with_game!(&spec, game => run_on(game, &spec, &config, &settings, stop, &origin))?;
    let results = match end {
        RunEnd::Finished(results) => results,
        // A shard's games are not the tournament's: no summary until
        // they are merged.
        RunEnd::Shard { dir, .. } => {
            return Ok(Played {
                summary: None,
                dir: dir.display().to_string(),
                report: None,
                report_error: None,
            })
        }
    };
    // As on the command line, a report that cannot be written does not
    // fail the run: the results are safe, and the wrapper warns.
    let written = report.then(|| mancala_report::write_default_report(&results.dir));
    let (report, report_error) = match written {
        None => (None, None),
        Some(Ok(path)) => (Some(path.display().to_string()), None),
        Some(Err(e)) => (None, Some(e.to_string())),
    };
    Ok(Played {
        summary: Some(serde_json::to_string(&results.summary).expect("a summary serialises")),
        dir: results.dir.display().to_string(),
        report,
        report_error,
    })
}

fn run_on<G: mancala_solver::Solvable>(
    game: &G,
    spec: &GameSpec,
    config: &TournamentConfig,
    settings: &RunSettings,
    stop: &AtomicBool,
    origin: &str,
) -> Result<RunEnd, Failure> {
    let agents = mancala_registry::tournament_agents(game, &config.agents, origin)
        .map_err(|e| Failure::Input(e.to_string()))?;
    let specs = agents.iter().map(ToString::to_string).collect();
    // Engines keep their standard error beside the games.
    let logs = settings.dir.join(mancala_arena::log::ENGINE_LOG_DIR);
    let agents: Vec<_> = agents.iter().map(|a| a.with_engine_logs(&logs)).collect();
    let adjudicator = mancala_analysis::adjudication::exact_adjudicator(
        game,
        &config.adjudication,
        mancala_solver::endgame::default_dir().as_deref(),
        // Python has no progress line to print it on.
        &(),
    )
    .map_err(|e| Failure::Input(format!("{origin}: {e}")))?;
    Ok(tournament::run(
        game,
        spec,
        config,
        specs,
        Box::new(|i: usize| agents[i].build_with(game, &crate::solve::SOLVERS)),
        adjudicator
            .as_ref()
            .map(|a| a as &dyn mancala_arena::Adjudicator<G>),
        settings,
        stop,
        &Silent,
        origin,
    )?)
}

/// A merge's result, for the wrapper: `summary.json`'s content when no
/// game is missing, the folder, the report's path or why it was not
/// written, the games written and planned, what is missing from a partial
/// merge, and the warnings `mancala merge` prints.
type Merged = (
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    u64,
    u64,
    Option<String>,
    Vec<String>,
);

/// Merges shard folders into `output` (see the wrapper's docstring).
#[pyfunction]
#[pyo3(signature = (dirs, output, allow_partial=false, report=true))]
pub fn _merge(
    py: Python<'_>,
    dirs: Vec<PathBuf>,
    output: PathBuf,
    allow_partial: bool,
    report: bool,
) -> PyResult<Merged> {
    if output.as_os_str().is_empty() {
        return Err(PyValueError::new_err("output must not be empty"));
    }
    py.detach(|| merge(&dirs, &output, allow_partial, report))
        .map_err(|failure| match failure {
            Failure::Input(m) => PyValueError::new_err(m),
            Failure::Output(m) => PyOSError::new_err(m),
            Failure::Stopped(m) => PyKeyboardInterrupt::new_err(m),
            Failure::Other(m) => PyRuntimeError::new_err(m),
        })
}

fn merge(
    dirs: &[PathBuf],
    output: &std::path::Path,
    allow_partial: bool,
    report: bool,
) -> Result<Merged, Failure> {
    let source = open_merge(dirs).map_err(merge_failure)?;
    let spec = source.spec;
    let outcome = with_game!(&spec, game => {
        // Adjudicated games are checked with the adjudicator that ended them.
        let adjudicator = mancala_analysis::adjudication::exact_adjudicator(
            game,
            &source.config.adjudication,
            mancala_solver::endgame::default_dir().as_deref(),
            &(),
        )
        .map_err(|e| Failure::Input(format!("{}: {e}", source.origin)))?;
        let mut prepared = tournament::prepare(
            game,
            &spec,
            &source.config,
            source.identity.agent_specs(),
            // The games are checked by replaying their moves: no agent is
            // built.
            Box::new(|_| -> Box<dyn mancala_agents::Agent<_>> {
                unreachable!("a merge plays no games")
            }),
            &source.origin,
        )?;
        prepared.arena.adjudicator = adjudicator
            .as_ref()
            .map(|a| a as &dyn mancala_arena::Adjudicator<_>);
        merge_shards(&source, &prepared, output, allow_partial).map_err(merge_failure)?
    });
    let warnings = outcome.warnings();
    let written =
        (report && outcome.summary.is_some()).then(|| mancala_report::write_default_report(output));
    let (report, report_error) = match written {
        None => (None, None),
        Some(Ok(path)) => (Some(path.display().to_string()), None),
        Some(Err(e)) => (None, Some(e.to_string())),
    };
    Ok((
        outcome
            .summary
            .as_ref()
            .map(|s| serde_json::to_string(s).expect("a summary serialises")),
        output.display().to_string(),
        report,
        report_error,
        outcome.games,
        outcome.planned,
        outcome.gaps.as_ref().map(ToString::to_string),
        warnings,
    ))
}

/// A merge refused: shards that do not make one tournament are the
/// caller's to fix (`ValueError`); a folder that cannot be read, written
/// or locked is an `OSError`.
fn merge_failure(e: MergeError) -> Failure {
    match e {
        MergeError::Log(e) | MergeError::Merged(e) => TournamentError::Output(e).into(),
        MergeError::Results(e) => (*e).into(),
        e @ MergeError::InUse { .. } => Failure::Output(e.to_string()),
        other => Failure::Input(other.to_string()),
    }
}
