//! Congkak: relay sowing round a Kalah-style ring, in a single round or in
//! the traditional multi-round form with burnt holes (`RULES.md`).
//!
//! # Every move ends
//!
//! A relay goes on while the last seed lands in a hole that already held
//! seeds, so a move can go round the board many times. It cannot go on
//! for ever, and needs no cap: the mover's own store is on every lap of
//! the mover's circuit (`L` places: the two rows and the own store, less
//! burnt holes), and nothing ever leaves a store during a move. So of any
//! `L` seeds sown in a row one goes to the mover's store, and a move that
//! sowed `D` seeds put at least `D / L` of them there (rounded down). With
//! `U` seeds outside the mover's store when the move starts, `D / L <= U`,
//! and a move sows fewer than `L * (U + 1)` seeds: at most 1,484 on the
//! standard board (`L = 15`, `U <= 98`). [`CongkakRules::sowing_bound`]
//! gives the bound of a position, and the tests check it.
//!
//! Turns end too: a move that earns another one drops its last seed in the
//! mover's store, so a turn has at most `U + 1` moves. And rounds end: a move
//! that puts no seed in a store never leaves the mover's row (to leave it
//! the seeds pass the store) and only moves seeds towards the store, so
//! between two moves that reach a store the seeds of the rows only move
//! forward, which they cannot do for ever.
//!
//! The hot path keeps Kalah's layout: the ring of [`crate::ring`], and for
//! each stretch of a relay the sowing kernel Kalah uses, whole laps in one
//! step. Burnt holes (rounds after the first) take a second, plainer loop.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::notation::{check_shape, Round};
use crate::ring::{self, Cells, RING};
use crate::size::{BoardSize, SIZE_KEYS};
use crate::spec::{bad_value, write_spec, Spec};
use crate::{
    ByPlayer, EndReason, Game, GameEnd, Move, MoveSet, Outcome, Player, PositionError, Setup,
    SpecError,
};

/// Single or multi-round play.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rounds {
    /// One round: the game ends with it.
    #[default]
    One,
    /// Rounds until a player cannot fill a single hole, or `max_rounds`.
    Many,
}

/// The rules of one Congkak variant. `CongkakRules::default()` is the
/// single-round game on 7 holes of 7 seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CongkakRules {
    size: BoardSize,
    /// Capture a last seed in an own empty hole even when the opposite hole is empty.
    pub empty_capture: bool,
    /// When a round ends: `Delayed` (the standard, when the player to move
    /// has no seeds) or `Immediate` (as soon as either row is empty).
    pub game_end: GameEnd,
    /// Single or multi-round play.
    pub rounds: Rounds,
    /// With `Rounds::Many`: the game ends after this many rounds.
    max_rounds: u16,
}

/// Congkak's board: 7 holes of 7 seeds.
const DEFAULT_SIZE: BoardSize = BoardSize::new_const(7, 7);

/// Rounds a multi-round game plays at most unless told otherwise. Ruin
/// alone would take random players over a thousand rounds on average
/// (see `docs/RULES.md` for the figures): without a limit a game of weak
/// agents would hardly end.
const DEFAULT_MAX_ROUNDS: u16 = 20;

/// The most rounds a spec may ask for.
const MAX_ROUNDS_LIMIT: u16 = 10_000;

impl Default for CongkakRules {
    fn default() -> CongkakRules {
        CongkakRules {
            size: DEFAULT_SIZE,
            empty_capture: false,
            game_end: GameEnd::Delayed,
            rounds: Rounds::One,
            max_rounds: DEFAULT_MAX_ROUNDS,
        }
    }
}

const KEYS: &[&str] = &[
    SIZE_KEYS[0],
    SIZE_KEYS[1],
    "empty_capture",
    "game_end",
    "rounds",
    "max_rounds",
];
const OVER: u8 = 2;

/// How long one move's relay ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sowing {
    /// Seeds sown, relays included.
    pub sown: u32,
    /// Times a hole was lifted to go on sowing (0: no relay).
    pub relays: u32,
}

impl CongkakRules {
    /// Single-round rules on a board of `pits` holes with `seeds` seeds each.
    ///
    /// # Errors
    /// [`SpecError`] when `pits` is not in `1..=15`, `seeds` is 0, or the
    /// board holds more than 255 seeds.
    pub fn new(pits: usize, seeds: usize) -> Result<CongkakRules, SpecError> {
        Ok(CongkakRules {
            size: BoardSize::new("congkak", pits, seeds)?,
            ..CongkakRules::default()
        })
    }

    /// These rules played over many rounds, at most `max_rounds` of them.
    ///
    /// # Errors
    /// [`SpecError`] unless `max_rounds` is from 1 to 10,000.
    pub fn multi_round(self, max_rounds: usize) -> Result<CongkakRules, SpecError> {
        if !(1..=usize::from(MAX_ROUNDS_LIMIT)).contains(&max_rounds) {
            return Err(bad_value(
                "max_rounds",
                &max_rounds.to_string(),
                &format!("a whole number from 1 to {MAX_ROUNDS_LIMIT}"),
            ));
        }
        Ok(CongkakRules {
            rounds: Rounds::Many,
            max_rounds: max_rounds as u16,
            ..self
        })
    }

    /// Seeds in each hole at the start (and in each hole refilled).
    pub fn seeds(&self) -> usize {
        self.size.seeds()
    }

    /// The most rounds a multi-round game plays.
    pub fn max_rounds(&self) -> usize {
        usize::from(self.max_rounds)
    }

    /// The round being played (1 in single-round play), or the last one
    /// once the game is over.
    pub fn round(&self, state: &CongkakState) -> usize {
        usize::from(state.round)
    }

    /// Reads the options of a `congkak:...` spec.
    ///
    /// # Errors
    /// [`SpecError`] naming the key and the accepted values.
    pub fn from_spec(spec: &Spec) -> Result<CongkakRules, SpecError> {
        spec.check_keys(KEYS)?;
        let mut rules = CongkakRules {
            size: BoardSize::from_spec("congkak", spec, DEFAULT_SIZE)?,
            ..CongkakRules::default()
        };
        if let Some(v) = spec.get_bool("empty_capture")? {
            rules.empty_capture = v;
        }
        if let Some(i) = spec.get_choice("game_end", &["immediate", "delayed"])? {
            rules.game_end = [GameEnd::Immediate, GameEnd::Delayed][i];
        }
        if let Some(i) = spec.get_choice("rounds", &["one", "many"])? {
            rules.rounds = [Rounds::One, Rounds::Many][i];
        }
        if let Some(m) = spec.get_int("max_rounds", 1..=u64::from(MAX_ROUNDS_LIMIT))? {
            if rules.rounds != Rounds::Many {
                return Err(bad_value(
                    "max_rounds",
                    &m.to_string(),
                    "rounds=many as well: it limits multi-round play",
                ));
            }
            rules.max_rounds = m as u16;
        }
        Ok(rules)
    }

    /// Plays `mv` as [`Game::play_unchecked`] does and says how long its
    /// relay ran: for measurements and tests.
    pub fn play_measured(&self, state: &mut CongkakState, mv: Move) -> Sowing {
        self.play_move(state, mv)
    }

    /// The most seeds the next move can sow, by the argument of the
    /// module's documentation: fewer than `L * (U + 1)`, `L` the places of
    /// the mover's circuit, `U` the seeds outside the mover's store. 0 once
    /// the game is over.
    pub fn sowing_bound(&self, state: &CongkakState) -> u32 {
        let Some(p) = self.to_move(state) else {
            return 0;
        };
        let n = self.n();
        let circuit = 2 * n as u32 + 1 - state.burnt.count_ones();
        let outside = self.size.total() as u32 - u32::from(state.cells[ring::store(n, p.index())]);
        circuit * (outside + 1) - 1
    }

    #[inline(always)]
    fn n(&self) -> usize {
        self.size.pits()
    }

    /// Lifts pit `pit` of the player to move and sows, relay after relay;
    /// then captures, passes the turn or ends the round.
    #[inline(always)]
    fn play_move(&self, state: &mut CongkakState, mv: Move) -> Sowing {
        let n = self.n();
        let p = state.to_move as usize;
        debug_assert!(p < 2, "play on a finished game");
        let Move::Pit(pit) = mv else {
            panic!("Congkak has no swap move");
        };
        let base = ring::row_start(n, p);
        let own_store = base + n;
        let skip = ring::store(n, p ^ 1);
        let mut pos = base + usize::from(pit);
        let mut sowing = Sowing::default();
        // Each pass lifts the seeds of `pos` and sows them; the relay goes on
        // from where the last one fell while that hole was not empty before
        // it (now holds more than that one seed). No allocation, and no cap:
        // the loop ends by the bound of the module's documentation.
        let last = if state.burnt == 0 {
            loop {
                sowing.sown += u32::from(state.cells[pos]);
                pos = ring::sow(&mut state.cells, n, pos, skip);
                if pos == own_store || state.cells[pos] == 1 {
                    break pos;
                }
                sowing.relays += 1;
            }
        } else {
            // The ring's cells (32 bits on the largest board), less the skipped ones.
            let live = (u32::MAX >> (32 - (2 * n + 2))) & !state.burnt & !(1 << skip);
            loop {
                sowing.sown += u32::from(state.cells[pos]);
                pos = sow_live(&mut state.cells, 2 * n + 2, pos, live);
                if pos == own_store || state.cells[pos] == 1 {
                    break pos;
                }
                sowing.relays += 1;
            }
        };
        if last == own_store {
            self.finish_turn(state, p);
            return sowing;
        }
        // The last seed fell in an empty hole: the turn ends, with a capture
        // when the hole is the mover's.
        if last >= base && last < own_store {
            let opposite = ring::opposite(n, last);
            let captured = state.cells[opposite];
            if captured > 0 || self.empty_capture {
                state.cells[own_store] += captured + 1;
                state.cells[opposite] = 0;
                state.cells[last] = 0;
            }
        }
        self.finish_turn(state, p ^ 1);
        sowing
    }

    /// Sets the player to move after a move, or ends the round.
    #[inline(always)]
    fn finish_turn(&self, state: &mut CongkakState, next: usize) {
        let masks = ring::row_masks(&state.cells, self.n());
        let next_mask = masks[next];
        let over = match self.game_end {
            GameEnd::Delayed => next_mask == 0,
            GameEnd::Immediate => next_mask == 0 || masks[next ^ 1] == 0,
        };
        if over {
            self.end_round(state);
        } else {
            state.to_move = next as u8;
            state.legal = next_mask;
        }
    }

    /// Ends a round: the seeds left in each row go to its owner. A single
    /// round ends the game; in multi-round play the game ends too if a
    /// player cannot fill a hole or `max_rounds` are played, and otherwise
    /// each player refills their holes from their store, nearest the store
    /// first, burning those they cannot fill, and the loser of the round
    /// begins the next.
    fn end_round(&self, state: &mut CongkakState) {
        let n = self.n();
        ring::sweep(&mut state.cells, n, true);
        state.burnt = 0;
        state.legal = 0;
        state.to_move = OVER;
        if self.rounds == Rounds::One {
            return;
        }
        let seeds = self.size.seeds_u8();
        let stores = ring::stores(&state.cells, n).0;
        if stores[0] < seeds || stores[1] < seeds || state.round >= self.max_rounds {
            return;
        }
        for (p, &owned) in stores.iter().enumerate() {
            let filled = usize::from(owned / seeds).min(n);
            let start = ring::row_start(n, p);
            state.cells[start + n - filled..start + n].fill(seeds);
            state.cells[start + n] -= (filled * usize::from(seeds)) as u8;
            state.burnt |= ((1u32 << (n - filled)) - 1) << start;
        }
        let starter = match stores[0].cmp(&stores[1]) {
            std::cmp::Ordering::Less => 0,
            std::cmp::Ordering::Greater => 1,
            std::cmp::Ordering::Equal => state.first ^ 1,
        };
        state.round += 1;
        state.first = starter;
        state.to_move = starter;
        state.legal = ring::row_mask(&state.cells, n, usize::from(starter));
    }

    /// Why a finished game ended.
    fn end_reason(&self, state: &CongkakState) -> EndReason {
        if self.rounds == Rounds::One {
            return EndReason::EmptyRow;
        }
        let seeds = self.size.seeds_u8();
        if ring::stores(&state.cells, self.n())
            .0
            .iter()
            .any(|&s| s < seeds)
        {
            EndReason::Ruin
        } else {
            EndReason::MaxRounds
        }
    }

    /// Player `p`'s burnt holes, bit `i` for their pit `i`.
    fn burnt_of(&self, state: &CongkakState, p: usize) -> u16 {
        let n = self.n();
        ((state.burnt >> ring::row_start(n, p)) & ((1 << n) - 1)) as u16
    }

    /// Checks the round data of a setup for these rules; returns the round
    /// and the burnt holes as a ring mask.
    fn setup_rounds(&self, setup: &Setup) -> Result<(Round, u32), PositionError> {
        let n = self.n();
        let rounds_error = |why: String| Err(PositionError::Rounds { why });
        if self.rounds == Rounds::One {
            if setup.burnt.0 != [0, 0] || setup.round.is_some() {
                return rounds_error(
                    "these rules play a single round: no burnt holes (x) or round field \
                     (rR,P); add rounds=many for multi-round play"
                        .into(),
                );
            }
            return Ok((
                Round {
                    number: 1,
                    first: Player::ZERO,
                },
                0,
            ));
        }
        let round = setup.round.unwrap_or(Round {
            number: 1,
            first: Player::ZERO,
        });
        if round.number > self.max_rounds {
            return rounds_error(format!(
                "round {} is past max_rounds={}",
                round.number, self.max_rounds
            ));
        }
        let mut mask = 0u32;
        for p in Player::BOTH {
            let burnt = u32::from(setup.burnt[p]);
            if burnt == 0 {
                continue;
            }
            let why = if round.number == 1 {
                Some("no hole is burnt in round 1".to_string())
            } else if setup.to_move.is_none() {
                Some("a finished game has no burnt holes".to_string())
            } else if burnt >> n != 0 || burnt == (1 << n) - 1 {
                Some(format!(
                    "player {p} cannot have every hole burnt (or a pit past the row) and still play"
                ))
            } else if burnt & (burnt + 1) != 0 {
                Some(format!(
                    "player {p}'s burnt holes must be their first ones: refilling starts next to the store"
                ))
            } else if setup.rows[p]
                .iter()
                .enumerate()
                .any(|(i, &s)| burnt >> i & 1 == 1 && s > 0)
            {
                Some(format!("a burnt hole of player {p} holds seeds"))
            } else {
                None
            };
            if let Some(why) = why {
                return rounds_error(why);
            }
            mask |= burnt << ring::row_start(n, p.index());
        }
        Ok((round, mask))
    }
}

/// Sows the seeds of `start` as [`ring::sow`] does, into the cells of `live`
/// only (the ring less the opponent's store and the burnt holes).
#[inline]
fn sow_live(cells: &mut Cells, ring: usize, start: usize, live: u32) -> usize {
    let seeds = cells[start];
    cells[start] = 0;
    let lap = live.count_ones() as u8;
    let mut rest = seeds;
    if seeds >= lap {
        let laps = seeds / lap;
        rest = seeds % lap;
        for (k, c) in cells[..ring].iter_mut().enumerate() {
            *c += laps * ((live >> k) & 1) as u8;
        }
        if rest == 0 {
            // The origin is the last live cell of each lap.
            return start;
        }
    }
    let mut pos = start;
    while rest > 0 {
        pos += 1;
        if pos == ring {
            pos = 0;
        }
        if live >> pos & 1 == 1 {
            cells[pos] += 1;
            rest -= 1;
        }
    }
    pos
}

impl fmt::Display for CongkakRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut opts = Vec::new();
        self.size.push_options(DEFAULT_SIZE, &mut opts);
        if self.empty_capture {
            opts.push("empty_capture=true".into());
        }
        if self.game_end == GameEnd::Immediate {
            opts.push("game_end=immediate".into());
        }
        if self.rounds == Rounds::Many {
            opts.push("rounds=many".into());
            if self.max_rounds != DEFAULT_MAX_ROUNDS {
                opts.push(format!("max_rounds={}", self.max_rounds));
            }
        }
        write_spec(f, "congkak", &opts)
    }
}

/// A Congkak position: holes, stores, the player to move, and in
/// multi-round play the burnt holes, the round and who began it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CongkakState {
    /// The ring in sowing order: P0 holes, P0 store, P1 holes, P1 store.
    cells: Cells,
    /// 0 or 1, or `OVER`.
    to_move: u8,
    /// Who moved first in this round (the tie-break for the next one).
    first: u8,
    /// The round, from 1.
    round: u16,
    /// Legal moves of the player to move (a cache of the board, kept in step).
    legal: u32,
    /// Burnt holes, one bit per cell of the ring.
    burnt: u32,
}

impl fmt::Debug for CongkakState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "CongkakState({:?}, to_move={}, round={}, first={}, burnt={:#x})",
            &self.cells, self.to_move, self.round, self.first, self.burnt
        )
    }
}

impl Game for CongkakRules {
    type State = CongkakState;

    fn name(&self) -> &'static str {
        "congkak"
    }

    fn pits(&self) -> usize {
        self.n()
    }

    fn total_seeds(&self) -> usize {
        self.size.total()
    }

    fn max_game_length(&self) -> u64 {
        // Within a round a move that puts no seed in a store never leaves
        // the mover's row (module docs), so a round is bounded as Kalah's
        // game is; refilling between rounds takes seeds out of the stores,
        // so each round has the bound afresh.
        let round = crate::game::sowing_game_bound(self.n(), self.size.total());
        match self.rounds {
            Rounds::One => round,
            Rounds::Many => round * u64::from(self.max_rounds),
        }
    }

    fn start(&self) -> CongkakState {
        let n = self.n();
        let seeds = self.size.seeds_u8();
        let mut cells = [0u8; RING];
        cells[..n].fill(seeds);
        cells[n + 1..2 * n + 1].fill(seeds);
        CongkakState {
            cells,
            to_move: 0,
            first: 0,
            round: 1,
            legal: (1u32 << n) - 1,
            burnt: 0,
        }
    }

    #[inline]
    fn to_move(&self, state: &CongkakState) -> Option<Player> {
        (state.to_move != OVER).then(|| Player::new(state.to_move as usize))
    }

    #[inline]
    fn legal_moves(&self, state: &CongkakState) -> MoveSet {
        MoveSet::from_bits(state.legal)
    }

    fn play_unchecked(&self, state: &mut CongkakState, mv: Move) {
        self.play_move(state, mv);
    }

    fn outcome(&self, state: &CongkakState) -> Option<Outcome> {
        (state.to_move == OVER).then(|| Outcome {
            scores: self.scores(state),
            reason: self.end_reason(state),
        })
    }

    #[inline]
    fn scores(&self, state: &CongkakState) -> ByPlayer<u8> {
        ring::stores(&state.cells, self.n())
    }

    fn row_seeds(&self, state: &CongkakState) -> ByPlayer<u8> {
        ring::row_sums(&state.cells, self.n())
    }

    fn setup(&self, state: &CongkakState) -> Setup {
        Setup {
            rows: ring::setup_rows(&state.cells, self.n()),
            stores: self.scores(state),
            to_move: self.to_move(state),
            swap_available: false,
            burnt: ByPlayer::new_with(|p| self.burnt_of(state, p.index())),
            round: (self.rounds == Rounds::Many).then(|| Round {
                number: state.round,
                first: Player::new(usize::from(state.first)),
            }),
        }
    }

    fn from_setup(&self, setup: &Setup) -> Result<CongkakState, PositionError> {
        let n = self.n();
        check_shape(setup, n, self.total_seeds())?;
        if setup.swap_available {
            return Err(PositionError::Swap {
                why: "Congkak has no pie rule".into(),
            });
        }
        let (round, burnt) = self.setup_rounds(setup)?;
        let mut state = CongkakState {
            cells: ring::from_setup(setup, n),
            to_move: OVER,
            first: round.first.index() as u8,
            round: round.number,
            legal: 0,
            burnt,
        };
        let empty = |p: Player| setup.rows[p].iter().all(|&s| s == 0);
        match setup.to_move {
            None => {
                if !(empty(Player::ZERO) && empty(Player::ONE)) {
                    return Err(PositionError::ToMove {
                        why: "the game is marked over (-) but seeds are left in the holes; \
                              a finished position has its leftovers already counted"
                            .into(),
                    });
                }
                let seeds = self.size.seeds_u8();
                let ruined = setup.stores.0.iter().any(|&s| s < seeds);
                if self.rounds == Rounds::Many && !ruined && round.number < self.max_rounds {
                    return Err(PositionError::ToMove {
                        why: format!(
                            "the game is marked over (-), but both players can fill a hole \
                             and round {} is before max_rounds={}: another round follows",
                            round.number, self.max_rounds
                        ),
                    });
                }
            }
            Some(p) => {
                let ended = match self.game_end {
                    GameEnd::Immediate => empty(Player::ZERO) || empty(Player::ONE),
                    GameEnd::Delayed => empty(p),
                };
                if ended {
                    let why = match self.game_end {
                        GameEnd::Immediate => "a row is empty (game_end=immediate)",
                        GameEnd::Delayed => "the mover has no seeds",
                    };
                    return Err(PositionError::ToMove {
                        why: format!(
                            "player {p} is to move, but the round is already over: {why} \
                             (write - for a finished game, with leftovers counted)"
                        ),
                    });
                }
                state.to_move = p.index() as u8;
                state.legal = ring::row_mask(&state.cells, n, p.index());
            }
        }
        Ok(state)
    }

    #[inline]
    fn key(&self, state: &CongkakState) -> u64 {
        let [r0, r1] = state.round.to_le_bytes();
        let [b0, b1, b2, b3] = state.burnt.to_le_bytes();
        ring::key(
            &state.cells,
            self.n(),
            &[state.to_move, state.first, r0, r1, b0, b1, b2, b3],
        )
    }

    fn observe(&self, state: &CongkakState, out: &mut [f32]) {
        let n = self.n();
        let p = if state.to_move == OVER {
            0
        } else {
            state.to_move as usize
        };
        let progress = match self.rounds {
            Rounds::One => 0.0,
            Rounds::Many => f32::from(state.round - 1) / f32::from(self.max_rounds),
        };
        ring::observe(&state.cells, n, p, progress, self.total_seeds(), out);
        if self.rounds == Rounds::One {
            return;
        }
        // Burnt holes get a plane of their own after the common inputs
        // (own holes, then the opponent's: 1 where burnt). Written into the
        // seed counts instead, a burnt hole would read like a count the
        // network must learn is impossible; as its own input it is a plain
        // fact, and an empty hole and a burnt one never look alike.
        let plane = &mut out[2 * n + 3..4 * n + 3];
        for (side, player) in [p, p ^ 1].into_iter().enumerate() {
            let burnt = self.burnt_of(state, player);
            for (i, o) in plane[side * n..(side + 1) * n].iter_mut().enumerate() {
                *o = f32::from(u8::from(burnt >> i & 1 == 1));
            }
        }
    }

    /// `2 * pits + 3` as for every game, and in multi-round play one more
    /// input per hole: whether it is burnt.
    fn observation_len(&self) -> usize {
        match self.rounds {
            Rounds::One => 2 * self.n() + 3,
            Rounds::Many => 4 * self.n() + 3,
        }
    }
}
