//! The `greedy` agent: the most seeds this turn.

use mancala_core::{Game, Move, MoveSet, Player};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::minimax::TURN_WIDTH;
use crate::{Agent, AgentError, SearchInfo, StopCondition};

/// Maximises the mover's store gain of the whole turn: a move that earns an
/// extra turn is scored by the best continuation of that turn (within a
/// bound, see `turn_gain`). Ties are broken at random (seeded).
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
///
/// Extra turns are followed while the turn has at most
/// [`TURN_WIDTH`] move sequences (the product of the numbers of legal moves
/// at the positions of the turn so far), as the minimax search bounds its
/// free moves; past that the gain counts up to there. Whole turns cannot be
/// followed to their end in every game: Congkak's relays end in the own
/// store so often that a turn's tree grows two- to threefold with each
/// extra move, to over 10^5 positions. Kalah's turns hold about 10
/// positions, and only its rare long chains among many choices are cut.
pub(crate) fn turn_gain<G: Game>(
    game: &G,
    state: &G::State,
    mv: Move,
    mover: Player,
    nodes: &mut u64,
) -> i32 {
    let width = game.legal_moves(state).len() as u32;
    gain_within(game, state, mv, mover, width, nodes)
}

/// [`turn_gain`] for a move chosen among `width` move sequences of the turn.
fn gain_within<G: Game>(
    game: &G,
    state: &G::State,
    mv: Move,
    mover: Player,
    width: u32,
    nodes: &mut u64,
) -> i32 {
    *nodes += 1;
    if let Some(gain) = game.store_gain(state, mv) {
        // A move that ends the turn, its gain told without playing it.
        return gain;
    }
    let before = i32::from(game.scores(state)[mover]);
    let mut next = state.clone();
    game.play_unchecked(&mut next, mv);
    let gain = i32::from(game.scores(&next)[mover]) - before;
    if width > TURN_WIDTH || game.to_move(&next) != Some(mover) {
        return gain;
    }
    let legal = game.legal_moves(&next);
    let wider = width * legal.len() as u32;
    gain + legal
        .into_iter()
        .map(|m| gain_within(game, &next, m, mover, wider, nodes))
        .max()
        .unwrap_or(0)
}

impl<G: Game> Agent<G> for Greedy {
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
        "greedy".into()
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
        let mover = game.to_move(state).ok_or(AgentError::GameOver)?;
        let mut nodes = 0;
        let mut best = MoveSet::default();
        let mut best_gain = i32::MIN;
        for mv in game.legal_moves(state) {
            let gain = turn_gain(game, state, mv, mover, &mut nodes);
            if gain > best_gain {
                best_gain = gain;
                best = MoveSet::default();
            }
            if gain == best_gain {
                best.insert(mv);
            }
        }
        let mv = best.nth(self.rng.random_range(0..best.len()));
        self.info = SearchInfo {
            nodes,
            depth: 1,
            value: Some(f64::from(best_gain)),
            // The turn's gain is no search's estimate: records keep
            // nothing. No time either: reading the clock twice cost a
            // tenth of a move, which takes a few hundred nanoseconds.
            ..SearchInfo::default()
        };
        Ok(mv)
    }

    fn info(&self) -> SearchInfo {
        self.info
    }
}
