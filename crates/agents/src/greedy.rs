//! The `greedy` agent: the most seeds this turn.

use mancala_core::{Game, Move, MoveSet, Player, MAX_PITS};
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
    /// The choices that the moves earning another turn lead to, found in
    /// the last choice (the first few such moves; the rest are not kept).
    /// Held here rather than made afresh for each choice: filling an array
    /// on the stack each time made a Kalah turn 209 ns rather than 188.
    leads: [NextChoice; 4],
    /// Where the turn goes on after the move chosen, if it earned another
    /// turn: the next choice, weighed already (an index into `leads`).
    next: Option<usize>,
}

impl Greedy {
    /// A greedy agent; seed it with [`Agent::new_game`].
    pub fn new() -> Greedy {
        Greedy {
            rng: SmallRng::seed_from_u64(0),
            info: SearchInfo::default(),
            leads: [NextChoice::NONE; 4],
            next: None,
        }
    }
}

/// The best moves of a choice so far, and their gain.
struct Best {
    gain: i32,
    moves: MoveSet,
}

impl Best {
    fn offer(&mut self, mv: Move, gain: i32) {
        if gain > self.gain {
            self.gain = gain;
            self.moves = MoveSet::default();
        }
        if gain == self.gain {
            self.moves.insert(mv);
        }
    }
}

/// A position that a turn reaches by a move that earns another turn, with
/// what each of its moves gains to the end of the turn, found while the
/// move was weighed. When the agent is then asked to move there, the answer
/// is the same as weighing it afresh (which would look at those positions
/// again), so it is not weighed again. Kept only where no part of the turn
/// was cut at [`TURN_WIDTH`]: weighed from the root the turn has more move
/// sequences than from here, so a cut could fall differently.
#[derive(Debug, Clone, Copy)]
struct NextChoice {
    /// The move that leads there.
    after: Move,
    /// The position's key and moves: a position asked about is taken for
    /// this one when both agree, as a transposition table takes it (no
    /// moves: nothing kept).
    key: u64,
    legal: MoveSet,
    /// Each move's gain, by action index.
    gains: [i32; MAX_PITS + 1],
}

impl NextChoice {
    const NONE: NextChoice = NextChoice {
        after: Move::Pit(0),
        key: 0,
        legal: MoveSet::from_bits(0),
        gains: [0; MAX_PITS + 1],
    };
}

/// The moves weighed in a choice and whether a turn was cut.
#[derive(Debug, Default)]
struct Walk {
    nodes: u64,
    cut: bool,
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
    let mut walk = Walk::default();
    let gain = gain_within(game, state, mv, mover, width, &mut walk, None);
    *nodes += walk.nodes;
    gain
}

/// [`turn_gain`] for a move chosen among `width` move sequences of the turn.
/// With `record`, a move that earns another turn leaves there the choice it
/// leads to, if no part of that turn was cut; otherwise its moves are left
/// empty (nothing kept).
fn gain_within<G: Game>(
    game: &G,
    state: &G::State,
    mv: Move,
    mover: Player,
    width: u32,
    walk: &mut Walk,
    mut record: Option<&mut NextChoice>,
) -> i32 {
    walk.nodes += 1;
    if let Some(record) = record.as_deref_mut() {
        record.legal = MoveSet::default();
    }
    if let Some(gain) = game.store_gain(state, mv) {
        // A move that ends the turn, its gain told without playing it.
        return gain;
    }
    let before = i32::from(game.scores(state)[mover]);
    let mut next = state.clone();
    game.play_unchecked(&mut next, mv);
    let gain = i32::from(game.scores(&next)[mover]) - before;
    if game.to_move(&next) != Some(mover) {
        return gain;
    }
    if width > TURN_WIDTH {
        walk.cut = true;
        return gain;
    }
    let legal = game.legal_moves(&next);
    let wider = width * legal.len() as u32;
    let was_cut = std::mem::take(&mut walk.cut);
    let pits = game.pits();
    let mut best = None;
    for m in legal {
        let g = gain_within(game, &next, m, mover, wider, walk, None);
        if let Some(record) = record.as_deref_mut() {
            record.gains[m.action_index(pits)] = g;
        }
        best = best.max(Some(g));
    }
    if let Some(record) = record.filter(|_| !walk.cut) {
        record.key = game.key(&next);
        record.legal = legal;
    }
    walk.cut |= was_cut;
    gain + best.unwrap_or(0)
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

    /// Reseeds the tie-breaks. The next choice weighed already is kept: it
    /// is what weighing that position gives, whatever the game.
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
        let legal = game.legal_moves(state);
        let pits = game.pits();
        let remembered = self.next.take().filter(|&i| {
            let next = &self.leads[i];
            next.legal == legal && next.key == game.key(state)
        });
        let mut walk = Walk::default();
        let mut best = Best {
            gain: i32::MIN,
            moves: MoveSet::default(),
        };
        let mut kept = 0;
        match remembered {
            Some(i) => {
                for mv in legal {
                    best.offer(mv, self.leads[i].gains[mv.action_index(pits)]);
                }
            }
            None => {
                let width = legal.len() as u32;
                for mv in legal {
                    let lead = self.leads.get_mut(kept);
                    let gain = gain_within(game, state, mv, mover, width, &mut walk, lead);
                    if let Some(lead) = self.leads.get_mut(kept) {
                        if !lead.legal.is_empty() {
                            lead.after = mv;
                            kept += 1;
                        }
                    }
                    best.offer(mv, gain);
                }
            }
        }
        let mv = best.moves.nth(self.rng.random_range(0..best.moves.len()));
        self.next = self.leads[..kept].iter().position(|l| l.after == mv);
        self.info = SearchInfo {
            nodes: walk.nodes,
            depth: 1,
            value: Some(f64::from(best.gain)),
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
