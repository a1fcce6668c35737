//! The `random` agent.

use mancala_core::{Game, Move};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::{Agent, AgentError, StopCondition};

/// Plays a uniformly random legal move (the swap included, where legal).
#[derive(Debug, Clone)]
pub struct RandomAgent {
    rng: SmallRng,
}

impl RandomAgent {
    /// A random agent; seed it with [`Agent::new_game`].
    pub fn new() -> RandomAgent {
        RandomAgent {
            rng: SmallRng::seed_from_u64(0),
        }
    }
}

impl Default for RandomAgent {
    fn default() -> Self {
        RandomAgent::new()
    }
}

impl<G: Game> Agent<G> for RandomAgent {
    /// It does not search.
    fn reports_search(&self) -> bool {
        false
    }

    /// A move costs a few microseconds, bounded by the board: it always
    /// comes before any deadline, so the runner need not watch it.
    fn enforces_deadline(&self) -> bool {
        true
    }

    fn name(&self) -> String {
        "random".into()
    }

    fn new_game(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }

    /// Answers at once: nothing to stop.
    fn choose_until(
        &mut self,
        game: &G,
        state: &G::State,
        _stop: StopCondition<'_>,
    ) -> Result<Move, AgentError> {
        let legal = game.legal_moves(state);
        if legal.is_empty() {
            return Err(AgentError::GameOver);
        }
        Ok(legal.nth(self.rng.random_range(0..legal.len())))
    }
}
