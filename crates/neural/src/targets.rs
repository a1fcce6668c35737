//! Perfect-play targets for self-play positions.
//!
//! A self-play game's result is a noisy label for its early positions: it
//! depends on every later move of two imperfect players. Where the solver
//! can value a position cheaply (its endgame database holds it, or a
//! search of a few thousand nodes proves it), the exact final margin is a
//! label with no noise at all, and the moves that keep it are a policy
//! target no search of 64 simulations matches. Settling is deterministic
//! (it depends on the position and the node budget alone, see
//! [`mancala_solver::Solver::settle`]), so targets do not depend on the
//! number of threads.

use std::sync::Arc;

use mancala_core::{Game, Move};
use mancala_solver::{exact_solver, ExactSolver, Profile, Solvable};

use crate::buffer::Sample;
use crate::config::{TrainConfig, ValueTarget};
use crate::NeuralError;

/// Table of the targets' solver, in MiB: settling uses scratch tables of
/// its own, so the main one is never searched.
const TARGET_TABLE_MIB: usize = 1;

/// The solver that makes perfect-play targets, and how hard it tries.
pub struct ExactTargets<G: Game> {
    solver: Arc<dyn ExactSolver<G>>,
    nodes: u64,
}

/// A position's perfect-play target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactTarget {
    /// The final margin for the mover with perfect play.
    pub margin: i32,
    /// The moves that keep it, when every move was settled (else only the
    /// position's value is known).
    pub best: Option<Vec<Move>>,
}

impl ExactTarget {
    /// A training example of `state` from this target alone (a warm start
    /// from exact labels): its exact value as `value_target` reads it, and
    /// the best moves shared equally as the policy. `None` where the best
    /// moves are not known (some move was not settled): a policy target
    /// would then be a guess.
    pub fn sample<G: Game>(
        &self,
        game: &G,
        state: &G::State,
        value_target: ValueTarget,
    ) -> Option<Sample> {
        let best = self.best.as_ref().filter(|b| !b.is_empty())?;
        let mut obs = vec![0.0; game.observation_len()];
        game.observe(state, &mut obs);
        let mut policy = vec![0.0; game.num_actions()];
        let share = 1.0 / best.len() as f32;
        for mv in best {
            policy[mv.action_index(game.pits())] += share;
        }
        Some(Sample {
            obs,
            policy,
            value: value_target.of_margin(self.margin, game.total_seeds()),
        })
    }
}

impl<G: Solvable> ExactTargets<G> {
    /// The targets of `config` (`None` when `exact_nodes` is 0): its
    /// solver is built here, endgame database included.
    ///
    /// # Errors
    /// [`NeuralError::Config`] when the solver does not take the rules.
    pub fn new(game: &G, config: &TrainConfig) -> Result<Option<ExactTargets<G>>, NeuralError> {
        if config.exact_nodes == 0 {
            return Ok(None);
        }
        let mut options = game.default_options(Profile::Play);
        options.table_mib = TARGET_TABLE_MIB;
        let solver = exact_solver(game, &options).map_err(|e| NeuralError::Config {
            path: config.name.clone(),
            why: format!("key `exact_nodes`: the solver cannot make targets for {game}: {e}"),
        })?;
        Ok(Some(ExactTargets {
            solver,
            nodes: config.exact_nodes,
        }))
    }
}

impl<G: Game> ExactTargets<G> {
    /// The perfect-play target of `state`, if it comes within the node
    /// budget: each move's position settled, so that the best moves are
    /// known too; failing that, the position alone.
    ///
    /// # Errors
    /// [`NeuralError::Solve`] when the solver has no scratch table.
    pub fn target(&self, game: &G, state: &G::State) -> Result<Option<ExactTarget>, NeuralError> {
        let Some(mover) = game.to_move(state) else {
            return Ok(None);
        };
        let mut values: Vec<(Move, i32)> = Vec::new();
        for mv in game.legal_moves(state) {
            let mut child = state.clone();
            game.play_unchecked(&mut child, mv);
            let value = match game.outcome(&child) {
                Some(outcome) => Some(outcome.margin_for(mover)),
                None => self.solver.settle(&child, self.nodes)?.map(|v| {
                    // The child's value is for its own mover.
                    if game.to_move(&child) == Some(mover) {
                        v
                    } else {
                        -v
                    }
                }),
            };
            match value {
                Some(v) => values.push((mv, v)),
                None => {
                    values.clear();
                    break;
                }
            }
        }
        if let Some(&margin) = values.iter().map(|(_, v)| v).max() {
            let best = values
                .iter()
                .filter(|(_, v)| *v == margin)
                .map(|(m, _)| *m)
                .collect();
            return Ok(Some(ExactTarget {
                margin,
                best: Some(best),
            }));
        }
        Ok(self
            .solver
            .settle(state, self.nodes)?
            .map(|margin| ExactTarget { margin, best: None }))
    }
}
