//! The `greedy` agent: the most seeds this turn.

use mancala_core::{Game, Move, Player};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::{Agent, AgentError, SearchInfo};

/// Maximises the mover's store gain of the whole turn: a move that earns an
/// extra turn is scored by the best continuation of that turn. Ties are
/// broken at random (seeded).
#[derive(Debug, Clone)]
pub struct Greedy {
    rng: SmallRng,
    info: SearchInfo,
}

impl Greedy {
    /// A greedy agent; seed it with [`Agent::new_game`].
    pub fn new() -> Greedy {
        Greedy {
            rng: SmallRng::seed_from_u64(0),
            info: SearchInfo::default(),
        }
    }
}

impl Default for Greedy {
    fn default() -> Self {
        Greedy::new()
    }
}

/// What `mv` adds to the mover's store by the end of the turn, with the
/// best continuation of any extra turns. `nodes` counts positions looked at.
pub(crate) fn turn_gain<G: Game>(
    game: &G,
    state: &G::State,
    mv: Move,
    mover: Player,
    nodes: &mut u64,
) -> i32 {
    *nodes += 1;
    let before = i32::from(game.scores(state)[mover]);
    let mut next = state.clone();
    game.play_unchecked(&mut next, mv);
    let gain = i32::from(game.scores(&next)[mover]) - before;
    if game.to_move(&next) != Some(mover) {
        return gain;
    }
    gain + game
        .legal_moves(&next)
        .into_iter()
        .map(|m| turn_gain(game, &next, m, mover, nodes))
        .max()
        .unwrap_or(0)
}

impl<G: Game> Agent<G> for Greedy {
    /// A move costs a few microseconds, bounded by the board: it always
    /// comes before any deadline, so the runner need not watch it.
    fn enforces_deadline(&self) -> bool {
        true
    }

    fn name(&self) -> String {
        "greedy".into()
    }

    fn new_game(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }

    fn choose(&mut self, game: &G, state: &G::State) -> Result<Move, AgentError> {
        let t0 = std::time::Instant::now();
        let mover = game.to_move(state).ok_or(AgentError::GameOver)?;
        let mut nodes = 0;
        let mut best = Vec::new();
        let mut best_gain = i32::MIN;
        for mv in game.legal_moves(state) {
            let gain = turn_gain(game, state, mv, mover, &mut nodes);
            if gain > best_gain {
                best_gain = gain;
                best.clear();
            }
            if gain == best_gain {
                best.push(mv);
            }
        }
        let mv = best[self.rng.random_range(0..best.len())];
        self.info = SearchInfo {
            nodes,
            depth: 1,
            value: Some(f64::from(best_gain)),
            elapsed: t0.elapsed(),
        };
        Ok(mv)
    }

    fn info(&self) -> SearchInfo {
        self.info
    }
}
