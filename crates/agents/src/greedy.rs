//! The `greedy` agent: the most seeds this turn.

use mancala_core::{Game, Move, MoveSet, Player, MAX_PITS};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::minimax::TURN_WIDTH;
use crate::{Agent, AgentError, SearchInfo, StopCondition};

/// Maximises the mover's store gain of the whole turn: a move that earns an
/// extra turn is scored by the best continuation of that turn (within a
/// bound, see `turn_gains`). Ties are broken at random (seeded).
///
/// `G` is the game it plays: it keeps positions that its turn may go on
/// to, with the rules they were weighed under.
#[derive(Debug, Clone)]
pub struct Greedy<G: Game> {
    rng: SmallRng,
    /// A seed given by `new_game` that `rng` has not taken yet, and the
    /// draws it has skipped since: seeding is put off to the first tie.
    pending: Option<(u64, u32)>,
    /// The last choice's moves weighed and gain, for [`Agent::info`]
    /// (built when asked: most callers never ask).
    last: Option<(u64, i32)>,
    /// The choices that the moves earning another turn lead to, found in
    /// the last choice (the first few such moves; the rest are not kept).
    /// Held here rather than made afresh for each choice: filling an array
    /// on the stack each time made a Kalah turn 209 ns rather than 188.
    leads: Leads<G>,
    /// Where the turn goes on after the move chosen, if it earned another
    /// turn: the next choice, weighed already (an index into `leads`).
    next: Option<usize>,
}

impl<G: Game> Greedy<G> {
    /// A greedy agent; seed it with [`Agent::new_game`].
    pub fn new() -> Greedy<G> {
        Greedy {
            rng: SmallRng::seed_from_u64(0),
            pending: None,
            last: None,
            leads: Leads {
                rules: None,
                slots: std::array::from_fn(|_| NextChoice {
                    after: Move::Pit(0),
                    position: None,
                    gains: [0; MAX_PITS + 1],
                }),
                kept: 0,
            },
            next: None,
        }
    }

    /// Which of `ties` tied moves to play: a draw from the seeded stream.
    /// A choice without a tie draws too (the stream would give 0), but
    /// while the seed is pending it only counts the draw: the batched
    /// environment reseeds before each move, and seeding cost a twentieth
    /// of a greedy opponent's turn though most choices have no tie.
    fn tie_break(&mut self, ties: usize) -> usize {
        if let Some((seed, skipped)) = self.pending.as_mut() {
            if ties == 1 {
                *skipped += 1;
                return 0;
            }
            self.rng = SmallRng::seed_from_u64(*seed);
            for _ in 0..*skipped {
                self.rng.random_range(0..1usize);
            }
            self.pending = None;
        }
        self.rng.random_range(0..ties)
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
#[derive(Debug, Clone)]
struct NextChoice<S> {
    /// The move that leads there.
    after: Move,
    /// The position: kept whole, as comparing it costs less than hashing
    /// it (a key a record and a key a remembered choice were a twentieth
    /// of a greedy opponent's turn).
    position: Option<S>,
    /// Each move's gain, by action index.
    gains: [i32; MAX_PITS + 1],
}

/// The choices found in a choice's weighing: the first `kept` slots, and
/// the rules they were weighed under (the same position weighs otherwise
/// under other rules, and positions of Kalah boards of different sizes can
/// be the same bytes).
#[derive(Debug, Clone)]
struct Leads<G: Game> {
    rules: Option<G>,
    slots: [NextChoice<G::State>; 4],
    kept: usize,
}

/// A choice's weighing: whose turn it is, the moves weighed and whether a
/// turn was cut.
#[derive(Debug)]
struct Walk {
    mover: Player,
    nodes: u64,
    cut: bool,
}

impl Walk {
    fn new(mover: Player) -> Walk {
        Walk {
            mover,
            nodes: 0,
            cut: false,
        }
    }
}

impl<G: Game> Default for Greedy<G> {
    fn default() -> Self {
        Greedy::new()
    }
}

/// What each legal move of `state` adds to the mover's store by the end
/// of the turn, with the best continuation of any extra turns, written to
/// `gains` by action index; returns the moves weighed.
///
/// Extra turns are followed while the turn has at most
/// [`TURN_WIDTH`] move sequences (the product of the numbers of legal moves
/// at the positions of the turn so far), as the minimax search bounds its
/// free moves; past that the gain counts up to there. Whole turns cannot be
/// followed to their end in every game: Congkak's relays end in the own
/// store so often that a turn's tree grows two- to threefold with each
/// extra move, to over 10^5 positions. Kalah's turns hold about 10
/// positions, and only its rare long chains among many choices are cut.
pub(crate) fn turn_gains<G: Game>(
    game: &G,
    state: &G::State,
    mover: Player,
    gains: &mut [i32; MAX_PITS + 1],
) -> u64 {
    weigh_turn(game, state, game.legal_moves(state), mover, gains, None)
}

/// [`turn_gains`] where `mover` has `legal`, leaving in `leads` the choices
/// that the first few moves earning another turn lead to (see [`weigh`]);
/// returns the moves weighed.
fn weigh_turn<G: Game>(
    game: &G,
    state: &G::State,
    legal: MoveSet,
    mover: Player,
    gains: &mut [i32; MAX_PITS + 1],
    leads: Option<&mut Leads<G>>,
) -> u64 {
    let mut walk = Walk::new(mover);
    let width = legal.len() as u32;
    weigh(game, state, legal, width, &mut walk, gains, leads);
    walk.nodes
}

/// [`turn_gains`] of a position of the turn where the mover has `legal`,
/// among `width` move sequences of the turn; returns the best gain. With
/// `leads`, the first few moves that earn another turn leave there the
/// choices they lead to, if no part of that turn was cut.
fn weigh<G: Game>(
    game: &G,
    state: &G::State,
    legal: MoveSet,
    width: u32,
    walk: &mut Walk,
    gains: &mut [i32; MAX_PITS + 1],
    mut leads: Option<&mut Leads<G>>,
) -> i32 {
    walk.nodes += legal.len() as u64;
    // The moves that end the turn, their gains told without playing them.
    let told = game.store_gains(state, gains);
    let pits = game.pits();
    for mv in MoveSet::from_bits(legal.bits() & !told.bits()) {
        let record = leads.as_deref_mut().and_then(|l| l.slots.get_mut(l.kept));
        let (gain, recorded) = play_gain(game, state, mv, width, walk, record);
        if let Some(leads) = leads.as_deref_mut() {
            leads.kept += usize::from(recorded);
        }
        gains[mv.action_index(pits)] = gain;
    }
    legal
        .into_iter()
        .map(|mv| gains[mv.action_index(pits)])
        .max()
        .unwrap_or(0)
}

/// What `mv`, played, adds to the mover's store by the end of the turn
/// (see [`turn_gains`]). With `record`, a move that earns another turn
/// leaves there the choice it leads to if no part of that turn was cut,
/// and says so.
fn play_gain<G: Game>(
    game: &G,
    state: &G::State,
    mv: Move,
    width: u32,
    walk: &mut Walk,
    record: Option<&mut NextChoice<G::State>>,
) -> (i32, bool) {
    let mover = walk.mover;
    let before = i32::from(game.scores(state)[mover]);
    let mut next = state.clone();
    game.play_unchecked(&mut next, mv);
    let gain = i32::from(game.scores(&next)[mover]) - before;
    if game.to_move(&next) != Some(mover) {
        return (gain, false);
    }
    if width > TURN_WIDTH {
        walk.cut = true;
        return (gain, false);
    }
    let legal = game.legal_moves(&next);
    let wider = width * legal.len() as u32;
    let was_cut = std::mem::take(&mut walk.cut);
    let (best, recorded) = match record {
        Some(record) => {
            let best = weigh(game, &next, legal, wider, walk, &mut record.gains, None);
            let kept = !walk.cut;
            if kept {
                record.after = mv;
                record.position = Some(next);
            }
            (best, kept)
        }
        None => {
            let mut gains = [0; MAX_PITS + 1];
            let best = weigh(game, &next, legal, wider, walk, &mut gains, None);
            (best, false)
        }
    };
    walk.cut |= was_cut;
    (gain + best, recorded)
}

impl<G: Game> Agent<G> for Greedy<G> {
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
    /// is what weighing that position under the same rules gives, in
    /// whatever game it is asked.
    fn new_game(&mut self, seed: u64) {
        self.pending = Some((seed, 0));
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
            let next = &self.leads.slots[i];
            self.leads.rules.as_ref() == Some(game) && next.position.as_ref() == Some(state)
        });
        let mut best = Best {
            gain: i32::MIN,
            moves: MoveSet::default(),
        };
        // The choices this one leads to: none where it was remembered.
        self.leads.kept = 0;
        let mut nodes = 0;
        let gains = match remembered {
            Some(i) => self.leads.slots[i].gains,
            None => {
                let mut gains = [0; MAX_PITS + 1];
                if self.leads.rules.as_ref() != Some(game) {
                    self.leads.rules = Some(game.clone());
                }
                let leads = Some(&mut self.leads);
                nodes = weigh_turn(game, state, legal, mover, &mut gains, leads);
                gains
            }
        };
        for mv in legal {
            best.offer(mv, gains[mv.action_index(pits)]);
        }
        let mv = best.moves.nth(self.tie_break(best.moves.len()));
        let leads = &self.leads.slots[..self.leads.kept];
        self.next = leads.iter().position(|l| l.after == mv);
        self.last = Some((nodes, best.gain));
        Ok(mv)
    }

    fn info(&self) -> SearchInfo {
        let Some((nodes, gain)) = self.last else {
            return SearchInfo::default();
        };
        SearchInfo {
            nodes,
            depth: 1,
            value: Some(f64::from(gain)),
            // The turn's gain is no search's estimate: records keep
            // nothing. No time either: reading the clock twice cost a
            // tenth of a move, which takes a few hundred nanoseconds.
            ..SearchInfo::default()
        }
    }
}
