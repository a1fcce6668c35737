//! One interface to the exact solvers of every game: [`ExactSolver`], and
//! [`exact_solver`], which picks a game's solver.
//!
//! Kalah and single-round Congkak are solved by the generic [`Solver`];
//! Oware, whose values depend on history, by [`OwareSolver`]. Callers that
//! only want values (`solve`, `analyze`, the `perfect` agent) dispatch on
//! the game once, here, and are generic from then on.

use std::any::Any;
use std::sync::Arc;

use mancala_agents::StopCondition;
use mancala_core::{CongkakRules, Game, KalahRules, Move, OwareRules};

use crate::oware::OwareSolver;
use crate::{ExactGame, MoveValue, Solution, SolveError, Solver, SolverOptions};

/// What any exact solver of positions of `G` answers. Its table is kept
/// between calls, so later positions of the same game are cheap.
pub trait ExactSolver<G: Game>: Send + Sync + std::fmt::Debug {
    /// The rules solved.
    fn rules(&self) -> &G;

    /// Whether this solver solves positions of `rules`.
    fn solves(&self, rules: &G) -> bool;

    /// The final margin for the mover of `state` with perfect play, found
    /// on this thread.
    ///
    /// # Errors
    /// [`SolveError::GameOver`], [`SolveError::Stopped`] when `stop` came
    /// first, or what the game's solver may refuse (Oware:
    /// [`SolveError::PlyLimit`], [`SolveError::TableFull`]).
    fn value(&self, state: &G::State, stop: StopCondition<'_>) -> Result<i32, SolveError>;

    /// The value of every legal move of `state`, in move order, found on
    /// `threads` threads.
    ///
    /// # Errors
    /// As [`ExactSolver::value`], and [`SolveError::Threads`].
    fn move_values(
        &self,
        state: &G::State,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<Vec<MoveValue>, SolveError>;

    /// The value of `state` and the moves that keep it, in move order:
    /// what a player needs to play perfectly.
    ///
    /// # Errors
    /// As [`ExactSolver::move_values`].
    fn best_moves(
        &self,
        state: &G::State,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<(i32, Vec<Move>), SolveError>;

    /// `state`'s value, every move's value and a principal variation.
    ///
    /// # Errors
    /// As [`ExactSolver::move_values`].
    fn solve_until(
        &self,
        state: &G::State,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<Solution, SolveError>;

    /// The value of `state` when it comes cheaply and the same on every
    /// machine and thread: see [`Solver::settle`]. Oware's solver settles
    /// nothing (its values depend on the game's history, and it keeps no
    /// database): `None`.
    ///
    /// # Errors
    /// [`SolveError::Table`] when a scratch table cannot be had.
    fn settle(&self, state: &G::State, max_nodes: u64) -> Result<Option<i32>, SolveError>;

    /// Forgets the table (an endgame database stays).
    fn clear_table(&self);
}

impl<G: ExactGame> ExactSolver<G> for Solver<G> {
    fn rules(&self) -> &G {
        Solver::rules(self)
    }

    fn solves(&self, rules: &G) -> bool {
        Solver::rules(self) == rules
    }

    fn value(&self, state: &G::State, stop: StopCondition<'_>) -> Result<i32, SolveError> {
        Solver::value(self, state, stop)
    }

    fn move_values(
        &self,
        state: &G::State,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<Vec<MoveValue>, SolveError> {
        Solver::move_values(self, state, threads, stop)
    }

    fn best_moves(
        &self,
        state: &G::State,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<(i32, Vec<Move>), SolveError> {
        Solver::best_moves(self, state, threads, stop)
    }

    fn solve_until(
        &self,
        state: &G::State,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<Solution, SolveError> {
        Solver::solve_until(self, state, threads, stop)
    }

    fn settle(&self, state: &G::State, max_nodes: u64) -> Result<Option<i32>, SolveError> {
        Solver::settle(self, state, max_nodes)
    }

    fn clear_table(&self) {
        Solver::clear_table(self);
    }
}

impl ExactSolver<OwareRules> for OwareSolver {
    fn rules(&self) -> &OwareRules {
        OwareSolver::rules(self)
    }

    fn solves(&self, rules: &OwareRules) -> bool {
        OwareSolver::rules(self) == rules
    }

    fn value(
        &self,
        state: &mancala_core::OwareState,
        stop: StopCondition<'_>,
    ) -> Result<i32, SolveError> {
        OwareSolver::value(self, state, stop)
    }

    fn move_values(
        &self,
        state: &mancala_core::OwareState,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<Vec<MoveValue>, SolveError> {
        OwareSolver::move_values(self, state, threads, stop)
    }

    fn best_moves(
        &self,
        state: &mancala_core::OwareState,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<(i32, Vec<Move>), SolveError> {
        // Oware's search has no cheaper test of a move than its value: the
        // history makes each move's subtree its own.
        let moves = OwareSolver::move_values(self, state, threads, stop)?;
        let value = moves
            .iter()
            .map(|m| m.value)
            .max()
            .expect("a game not over has moves");
        let best = moves
            .iter()
            .filter(|m| m.value == value)
            .map(|m| m.mv)
            .collect();
        Ok((value, best))
    }

    fn solve_until(
        &self,
        state: &mancala_core::OwareState,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<Solution, SolveError> {
        OwareSolver::solve_until(self, state, threads, stop)
    }

    fn settle(
        &self,
        _state: &mancala_core::OwareState,
        _max_nodes: u64,
    ) -> Result<Option<i32>, SolveError> {
        Ok(None)
    }

    fn clear_table(&self) {
        OwareSolver::clear_table(self);
    }
}

/// The exact solver of `rules`' game, built with `options` (on the
/// current rayon pool, which builds the endgame database): the one place
/// that dispatches on the game.
///
/// # Errors
/// [`SolveError::NoSolver`] for a game no solver plays; else what the
/// game's solver's constructor returns ([`Solver::new`],
/// [`OwareSolver::new`]).
pub fn exact_solver<G: Game>(
    rules: &G,
    options: &SolverOptions,
) -> Result<Arc<dyn ExactSolver<G>>, SolveError> {
    let any = rules as &dyn Any;
    let solver: Box<dyn Any> = if let Some(rules) = any.downcast_ref::<KalahRules>() {
        Box::new(Arc::new(Solver::new(*rules, options)?) as Arc<dyn ExactSolver<KalahRules>>)
    } else if let Some(rules) = any.downcast_ref::<CongkakRules>() {
        Box::new(Arc::new(Solver::new(*rules, options)?) as Arc<dyn ExactSolver<CongkakRules>>)
    } else if let Some(rules) = any.downcast_ref::<OwareRules>() {
        Box::new(Arc::new(OwareSolver::new(*rules, options)?) as Arc<dyn ExactSolver<OwareRules>>)
    } else {
        return Err(SolveError::NoSolver { game: rules.name() });
    };
    Ok(*erased::<G>(solver).expect("the solver of the game matched"))
}

/// The default table of `rules`' solver, at most `most` MiB: sized to the
/// board where the table is allocated whole up front (Kalah, Congkak:
/// [`crate::table_mib_for`]); `most` for Oware's, which grows as it fills.
pub(crate) fn default_table_mib<G: Game>(rules: &G, most: usize) -> usize {
    let any = rules as &dyn Any;
    if let Some(rules) = any.downcast_ref::<KalahRules>() {
        crate::table_mib_for(rules, most)
    } else if let Some(rules) = any.downcast_ref::<CongkakRules>() {
        crate::table_mib_for(rules, most)
    } else {
        most
    }
}

/// `solver` (an `Arc<dyn ExactSolver<H>>`, boxed) as a solver of `G`, when
/// `H` is `G`.
pub(crate) fn erased<G: Game>(solver: Box<dyn Any>) -> Option<Box<Arc<dyn ExactSolver<G>>>> {
    solver.downcast::<Arc<dyn ExactSolver<G>>>().ok()
}
