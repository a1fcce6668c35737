//! One interface to the exact solvers of every game: [`ExactSolver`].
//!
//! Kalah and single-round Congkak are solved by the generic [`Solver`];
//! Oware, whose values depend on history, by [`OwareSolver`]. Which one a
//! game has is its [`crate::Solvable`] implementation's to say; callers
//! that only want values (`solve`, `analyze`, the `perfect` agent) are
//! generic over the game from there on.

use mancala_agents::StopCondition;
use mancala_core::{Game, Move, OwareRules};

use crate::endgame::EndgameError;
use crate::oware::OwareSolver;
use crate::{ExactGame, MoveValue, Solution, SolveError, Solver};

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

    /// How the value of `state` compares with `margin`: cheaper than the
    /// value where the solver can tell it by bounds alone (see
    /// [`Solver::compare`]); by the value itself otherwise.
    ///
    /// # Errors
    /// As [`ExactSolver::value`].
    fn compare(
        &self,
        state: &G::State,
        margin: i32,
        stop: StopCondition<'_>,
    ) -> Result<std::cmp::Ordering, SolveError> {
        Ok(self.value(state, stop)?.cmp(&margin))
    }

    /// The final margin for the mover of `state` with perfect play, found
    /// on `threads` threads (Oware's solver: on this one).
    ///
    /// # Errors
    /// As [`ExactSolver::value`], and [`SolveError::Threads`].
    fn value_with_threads(
        &self,
        state: &G::State,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<i32, SolveError> {
        let _ = threads;
        self.value(state, stop)
    }

    /// Calls `report` after each null-window probe of a position's own
    /// value, with the bounds known so far (see [`Solver::on_probe`]);
    /// Oware's solver, which does not probe, never calls it.
    fn on_probe(&self, report: crate::ProbeCallback) {
        let _ = report;
    }

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

    /// Positions searched so far, on all threads.
    fn nodes(&self) -> u64;

    /// Why the endgame database, built for this solver, could not be
    /// saved for the next run (`None`: saved, loaded, not to be kept, or
    /// no database).
    fn endgame_not_saved(&self) -> Option<&EndgameError> {
        None
    }

    /// Seconds the endgame database took to build or load (0: none).
    fn database_seconds(&self) -> f64 {
        0.0
    }
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

    fn compare(
        &self,
        state: &G::State,
        margin: i32,
        stop: StopCondition<'_>,
    ) -> Result<std::cmp::Ordering, SolveError> {
        Solver::compare(self, state, margin, stop)
    }

    fn value_with_threads(
        &self,
        state: &G::State,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<i32, SolveError> {
        Solver::value_with_threads(self, state, threads, stop)
    }

    fn on_probe(&self, report: crate::ProbeCallback) {
        Solver::on_probe(self, move |p| report(p));
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

    fn nodes(&self) -> u64 {
        Solver::nodes(self)
    }

    fn endgame_not_saved(&self) -> Option<&EndgameError> {
        Solver::endgame_not_saved(self)
    }

    fn database_seconds(&self) -> f64 {
        self.endgame()
            .map_or(0.0, |db| db.build_time().as_secs_f64())
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

    fn nodes(&self) -> u64 {
        OwareSolver::nodes(self)
    }
}
