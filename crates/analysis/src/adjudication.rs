//! Exact adjudication for tournaments: an [`Adjudicator`] backed by the
//! solver, which ends a game where the endgame database holds its
//! position or (with a node budget) the solver proves its value. One
//! solver, its database loaded once, serves every worker thread.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use mancala_arena::config::AdjudicationConfig;
use mancala_arena::Adjudicator;
use mancala_core::Game;
use mancala_solver::{ExactSolver, Profile, Solvable, SolverOptions};

use crate::{bad_input, build_solver, solver_options, Observer, Result};

/// The solver's values as a tournament's adjudicator.
pub struct ExactAdjudicator<G: Game> {
    solver: Arc<dyn ExactSolver<G>>,
    nodes: u64,
    /// What the endgame database is, for the run's output.
    database: DatabaseFacts,
}

/// The endgame database an adjudicator reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DatabaseFacts {
    /// Seeds in its fullest level (0: none).
    pub seeds: usize,
    /// Positions it holds (a byte each in memory).
    pub positions: u64,
    /// Seconds it took to load or build, with the solver.
    pub seconds: f64,
}

impl<G: Game> std::fmt::Debug for ExactAdjudicator<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ExactAdjudicator({:?}, {} nodes)",
            self.database, self.nodes
        )
    }
}

impl<G: Game> Adjudicator<G> for ExactAdjudicator<G> {
    fn exact_value(&self, state: &G::State) -> Option<i32> {
        // A scratch table that cannot be had only means playing on.
        self.solver.settle(state, self.nodes).ok().flatten()
    }
}

impl<G: Game> ExactAdjudicator<G> {
    /// The endgame database it reads.
    pub fn database(&self) -> DatabaseFacts {
        self.database
    }

    /// The node budget for each position (0: the database only).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// One line for a run's output: what is adjudicated, and the memory.
    pub fn describe(&self) -> String {
        let db = self.database;
        let search = if self.nodes == 0 {
            String::new()
        } else {
            format!(", or proved within {} nodes", self.nodes)
        };
        if db.seeds == 0 {
            return format!("exact adjudication: positions the solver proves{search}, no database");
        }
        format!(
            "exact adjudication: positions of up to {} seeds in the pits from the endgame \
             database ({} positions, {:.0} MiB, ready in {:.1} s){search}",
            db.seeds,
            db.positions,
            db.positions as f64 / f64::from(1 << 20),
            db.seconds
        )
    }
}

/// The solver's options for exact values of `rules` (Kalah or
/// single-round Congkak; `what` names the command refusing anything else):
/// the database of `mancala solve` (or of `db_seeds` seeds) from `db_dir`,
/// and the smallest table (these values are searched in tables of their
/// own, see [`mancala_solver::Solver::settle`]).
///
/// # Errors
/// [`crate::AnalysisError::BadInput`] for Oware or multi-round Congkak;
/// [`crate::AnalysisError::Refused`] for a database too large.
pub(crate) fn exact_options<G: Solvable>(
    rules: &G,
    db_seeds: Option<usize>,
    db_dir: Option<&Path>,
    what: &str,
) -> Result<SolverOptions> {
    rules
        .check_store_free()
        .map_err(|e| bad_input(format!("{what}: exact values of {rules}: {e}")))?;
    solver_options(rules, Profile::Settle, None, db_seeds, db_dir)
}

/// The adjudicator of `config` for `rules` (`None` when exact adjudication
/// is off), its database loaded from (or built and kept in) `db_dir`.
/// What is loaded or built, and about how long a build takes, is told to
/// `observer` first: on a big board the build takes minutes.
///
/// # Errors
/// [`crate::AnalysisError::BadInput`] for rules the solver does not take,
/// a database too large, or memory that cannot be had.
pub fn exact_adjudicator<G: Solvable>(
    rules: &G,
    config: &AdjudicationConfig,
    db_dir: Option<&Path>,
    observer: &dyn Observer,
) -> Result<Option<ExactAdjudicator<G>>> {
    if !config.exact {
        return Ok(None);
    }
    if !rules.value_gives_scores() {
        return Err(bad_input(
            "adjudication.exact: with leftover=set_aside the final scores of perfect play \
             cannot be told from its value; play these games out",
        ));
    }
    let options = exact_options(rules, config.db_seeds, db_dir, "adjudication.exact")?;
    let t0 = Instant::now();
    // The database is built on the global pool, one thread a core.
    let threads = rayon::current_num_threads();
    let solver = build_solver(
        rules,
        &options,
        threads,
        &format!("exact adjudication of {rules}"),
        observer,
    )?;
    let seeds = options.endgame_seeds;
    let positions = if seeds == 0 {
        0
    } else {
        mancala_solver::endgame::positions(rules.pits(), seeds).unwrap_or(0)
    };
    Ok(Some(ExactAdjudicator {
        solver,
        nodes: config.exact_nodes.unwrap_or(0),
        database: DatabaseFacts {
            seeds,
            positions,
            seconds: t0.elapsed().as_secs_f64(),
        },
    }))
}
