//! How large the first player's advantage is, and how close agents come to
//! perfect play: the analyses behind `mancala analyze`, as a library that
//! the command line, the Python package and the web app share.
//!
//! - [`first_move`]: over a grid of boards and rule sets, the exact value
//!   of the start and of every first move (where the solver finishes
//!   within a budget), and the first player's results when both seats are
//!   played by the same agent, for a ladder of agent strengths. Rows are
//!   appended to the output folder as each cell finishes, so that a long
//!   grid can be stopped and resumed.
//! - [`adjudication`]: the solver as a tournament's adjudicator, ending
//!   games whose exact result is known.
//! - [`annotate`]: every move of a results folder judged against perfect
//!   play, and each agent's accuracy by game phase.
//! - [`books`]: balanced opening books, every position after K moves
//!   solved exactly and those close to 0 kept.
//! - [`fair`]: starting positions one or two seeds away from the standard
//!   one whose perfect-play value is 0 (Neller's FairKalah).
//! - [`positions`]: a yardstick of positions from real games with the exact
//!   value of every move, and how close agents' moves come to perfect play
//!   on it.
//!
//! Long runs report what they do through an [`Observer`] and stop when a
//! flag is raised; nothing here prints. See `docs/analysis.md`.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use mancala_analysis::first_move::{self, FirstMoveOptions};
//!
//! let out = tempfile::tempdir().unwrap();
//! let options = FirstMoveOptions {
//!     pits: "3".into(),
//!     seeds: "1..2".into(),
//!     agents: vec!["random".into(), "perfect".into()],
//!     games: 4,
//!     tt: 16,
//!     threads: 1,
//!     ..FirstMoveOptions::new(out.path())
//! };
//! let grid = first_move::run(&options, &(), &AtomicBool::new(false)).unwrap();
//! assert_eq!(grid.rows.len(), 4);
//! // Kalah(3,2): the first player wins by 4 with perfect play.
//! assert_eq!(grid.exacts["kalah:pits=3,seeds=2"].value, Some(4));
//! ```

use std::path::{Path, PathBuf};

use mancala_arena::GameRecord;
use mancala_solver::{ExactSolver, Overrides, Profile, Solvable, SolveError, SolverOptions};
use thiserror::Error;

pub mod adjudication;
pub mod annotate;
pub mod books;
pub mod eval_training;
pub mod fair;
pub mod first_move;
pub mod grid;
pub mod labels;
pub mod positions;
mod resume;

/// Why an analysis could not run or finish.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AnalysisError {
    /// The options or the output folder's contents cannot be used: the
    /// message says which and what to do.
    #[error("{0}")]
    BadInput(String),
    /// The stop flag was raised: what was finished is saved.
    #[error("interrupted")]
    Interrupted,
    /// A file cannot be read or written.
    #[error("cannot {action} {}", path.display())]
    Io {
        /// What was being done ("read", "write", "create").
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// A file of an earlier run is damaged.
    #[error("{}: {why}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong, and what to do.
        why: String,
    },
    /// The games could not be played.
    #[error(transparent)]
    Arena(#[from] mancala_arena::ArenaError),
    /// A result could not be counted.
    #[error(transparent)]
    Stats(#[from] mancala_arena::stats::StatsError),
    /// The solver refused the rules or the options asked for (rules it
    /// does not take, a database too large, memory that cannot be had):
    /// the user's to change. A front end adds how, in its own words
    /// ([`SolveError::is_out_of_memory`]: a smaller table or database).
    #[error(transparent)]
    Refused(SolveError),
    /// The solver failed (not for want of time).
    #[error("{0}")]
    Solver(String),
    /// An agent could not choose a move.
    #[error("{0}")]
    Agent(String),
}

/// The results of this crate.
pub type Result<T> = std::result::Result<T, AnalysisError>;

/// An [`AnalysisError::BadInput`] saying `e`.
pub(crate) fn bad_input(e: impl std::fmt::Display) -> AnalysisError {
    AnalysisError::BadInput(e.to_string())
}

/// A function turning an I/O error on `path` into an [`AnalysisError::Io`].
pub(crate) fn io_error<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> AnalysisError + 'a {
    move |source| AnalysisError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// What a long analysis tells as it goes: for a progress bar or a log.
/// Every method has a default that ignores it; `()` ignores everything.
pub trait Observer: Sync {
    /// The work ahead: `total` things to do, of a kind named by `unit`
    /// (`"games"`, `"positions"`, `"candidates"`).
    fn start(&self, total: u64, unit: &str) {
        let _ = (total, unit);
    }
    /// A resumed run kept `cells` finished cells and `exacts` exact values
    /// from the output folder.
    fn resumed(&self, cells: usize, exacts: usize) {
        let _ = (cells, exacts);
    }
    /// A board's exact value is known (or known to be out of reach).
    fn solved(&self, exact: &first_move::Exact) {
        let _ = exact;
    }
    /// One more game played.
    fn game_done(&self, record: &GameRecord) {
        let _ = record;
    }
    /// `done` games are now done or skipped in all (a cell left out).
    fn skipped_to(&self, done: u64) {
        let _ = done;
    }
    /// One more thing done (a position or a candidate) of those
    /// [`Observer::start`] announced.
    fn step(&self) {}
    /// The things [`Observer::start`] announced are done.
    fn finish(&self) {}
    /// What the analysis does now, in a line ("building the solver...").
    fn message(&self, text: &str) {
        let _ = text;
    }
    /// Something went wrong that the analysis works around (a database it
    /// built but could not save), in a line: worth showing even where
    /// messages are not.
    fn warning(&self, text: &str) {
        let _ = text;
    }
}

impl Observer for () {}

/// The solver's options for `rules` under the user's overrides: those of
/// `profile` ([`Profile::Solve`]: `mancala solve`'s, sized to the board)
/// with a `tt` MiB table, a database of `db_seeds` seeds (at most the
/// board's), kept in `db_dir`.
///
/// # Errors
/// [`AnalysisError::Refused`] for rules the solver does not take or too
/// many database seeds.
pub fn solver_options<G: Solvable>(
    rules: &G,
    profile: Profile,
    tt: Option<u64>,
    db_seeds: Option<usize>,
    db_dir: Option<&Path>,
) -> Result<SolverOptions> {
    rules.check_solvable().map_err(AnalysisError::Refused)?;
    let overrides = Overrides {
        table_mib: tt.map(|t| usize::try_from(t).unwrap_or(usize::MAX)),
        endgame_seeds: db_seeds,
        endgame_dir: db_dir.map(Path::to_path_buf),
    };
    rules
        .options(profile, &overrides)
        .map_err(AnalysisError::Refused)
}

/// Database seeds within what an endgame database holds, checked before a
/// long run starts rather than when its first board is solved.
///
/// # Errors
/// [`AnalysisError::Refused`] above [`mancala_solver::endgame::MAX_DB_SEEDS`].
pub fn check_db_seeds(seeds: Option<usize>) -> Result<()> {
    match seeds {
        Some(seeds) if seeds > mancala_solver::endgame::MAX_DB_SEEDS => {
            Err(AnalysisError::Refused(SolveError::DatabaseTooLarge {
                seeds,
                max: mancala_solver::endgame::MAX_DB_SEEDS,
            }))
        }
        _ => Ok(()),
    }
}

/// A solver for `rules` whose database is built on `threads` threads; the
/// database it loads or builds is told to `observer` first (after `what`,
/// naming the rules and what they are solved for), and one built but not
/// saved as a warning.
///
/// # Errors
/// [`AnalysisError::Refused`] with the solver's refusal.
pub(crate) fn build_solver<G: Solvable>(
    rules: &G,
    options: &SolverOptions,
    threads: usize,
    what: &str,
    observer: &dyn Observer,
) -> Result<std::sync::Arc<dyn ExactSolver<G>>> {
    // What is built, how big and about how long, before it starts: a big
    // board's database takes minutes.
    if let Some(plan) = rules.database_plan(options) {
        observer.message(&format!("{what}: {}", plan.describe(threads)));
    }
    let solver = mancala_solver::build_solver(rules, options, Some(threads))
        .map_err(AnalysisError::Refused)?;
    if let Some(e) = solver.endgame_not_saved() {
        observer.warning(&format!(
            "{rules}: the endgame database was not saved for the next run: {e}; going on with \
             it in memory"
        ));
    }
    Ok(solver)
}

/// A rayon pool of `threads` threads.
pub(crate) fn thread_pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| AnalysisError::Solver(format!("cannot start threads: {e}")))
}
