//! Kalah, with every rule option of `RULES.md`.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::notation::check_common;
use crate::ring::{self, Cells, RING};
use crate::size::{BoardSize, SIZE_KEYS};
use crate::spec::{write_spec, Spec};
use crate::{
    store_gains_by_move, ByPlayer, EndReason, Game, Move, MoveSet, Outcome, Player, PositionError,
    Setup, SpecError, MAX_PITS,
};

/// When a Kalah game ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameEnd {
    /// After any move that leaves either row empty.
    #[default]
    Immediate,
    /// Only when the player to move has no seeds.
    Delayed,
}

/// Where the seeds left in the pits go at the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Leftover {
    /// Each side's seeds go to that side's owner.
    #[default]
    Owner,
    /// They count for nobody.
    SetAside,
}

/// The rules of one Kalah variant. `KalahRules::default()` is Kalah(6,4)
/// with the standard rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KalahRules {
    size: BoardSize,
    /// Capture a last seed in an own empty pit even when the opposite pit is empty.
    pub empty_capture: bool,
    /// When the game ends.
    pub game_end: GameEnd,
    /// Where leftover seeds go.
    pub leftover: Leftover,
    /// Whether player 1 may swap on their first turn (pie rule).
    pub pie: bool,
}

impl Default for KalahRules {
    fn default() -> KalahRules {
        KalahRules {
            size: DEFAULT_SIZE,
            empty_capture: false,
            game_end: GameEnd::Immediate,
            leftover: Leftover::Owner,
            pie: false,
        }
    }
}

const KEYS: &[&str] = &[
    SIZE_KEYS[0],
    SIZE_KEYS[1],
    "empty_capture",
    "game_end",
    "leftover",
    "pie",
];

/// Kalah(6,4).
const DEFAULT_SIZE: BoardSize = BoardSize::new_const(6, 4);
const OVER: u8 = 2;
const SWAP_BIT: u32 = 1 << 31;

impl KalahRules {
    /// Standard rules on a board of `pits` pits with `seeds` seeds each.
    ///
    /// # Errors
    /// [`SpecError`] when `pits` is not in `1..=15`, `seeds` is 0, or the
    /// board holds more than 255 seeds.
    pub fn new(pits: usize, seeds: usize) -> Result<KalahRules, SpecError> {
        Ok(KalahRules {
            size: BoardSize::new("kalah", pits, seeds)?,
            ..KalahRules::default()
        })
    }

    /// Seeds in each pit at the start.
    pub fn seeds(&self) -> usize {
        self.size.seeds()
    }

    /// The seeds in `player`'s pits, in sowing order.
    pub fn row<'a>(&self, state: &'a KalahState, player: Player) -> &'a [u8] {
        ring::row(&state.cells, self.n(), player.index())
    }

    /// Whether player 1 may still answer the opening turn with a swap.
    pub fn swap_pending(&self, state: &KalahState) -> bool {
        state.pie_pending && state.to_move != OVER
    }

    /// The position with these rows and stores and `mover` to move, as
    /// play would leave it: if the rules say the game is over there, it is
    /// ended, leftovers counted. Unlike [`Game::from_setup`] the seeds need
    /// not add up to the start's: solvers and endgame databases use it for
    /// positions with fewer seeds on the board. No swap is pending.
    ///
    /// # Panics
    /// If a row's length is not the board's.
    pub fn position_unchecked(
        &self,
        rows: [&[u8]; 2],
        stores: [u8; 2],
        mover: Player,
    ) -> KalahState {
        let mut state = KalahState {
            cells: ring::from_rows(rows, stores, self.n()),
            to_move: OVER,
            legal: 0,
            waiting: 0,
            pie_pending: false,
        };
        self.finish_turn(&mut state, mover.index());
        state
    }

    /// Reads the options of a `kalah:...` spec.
    ///
    /// # Errors
    /// [`SpecError`] naming the key and the accepted values.
    pub fn from_spec(spec: &Spec) -> Result<KalahRules, SpecError> {
        spec.check_keys(KEYS)?;
        let mut rules = KalahRules {
            size: BoardSize::from_spec("kalah", spec, DEFAULT_SIZE)?,
            ..KalahRules::default()
        };
        if let Some(v) = spec.get_bool("empty_capture")? {
            rules.empty_capture = v;
        }
        if let Some(i) = spec.get_choice("game_end", &["immediate", "delayed"])? {
            rules.game_end = [GameEnd::Immediate, GameEnd::Delayed][i];
        }
        if let Some(i) = spec.get_choice("leftover", &["owner", "set_aside"])? {
            rules.leftover = [Leftover::Owner, Leftover::SetAside][i];
        }
        if let Some(v) = spec.get_bool("pie")? {
            rules.pie = v;
        }
        Ok(rules)
    }

    #[inline]
    fn n(&self) -> usize {
        self.size.pits()
    }

    /// First cell of `p`'s row in the ring.
    #[inline]
    fn row_start(&self, p: usize) -> usize {
        ring::row_start(self.n(), p)
    }

    /// Sets the player to move after a turn, or ends the game.
    #[inline(always)]
    fn finish_turn(&self, state: &mut KalahState, next: usize) {
        let masks = ring::row_masks(&state.cells, self.n());
        self.finish_turn_with(state, next, masks);
    }

    /// [`Self::finish_turn`] given each player's non-empty pits.
    #[inline(always)]
    fn finish_turn_with(&self, state: &mut KalahState, next: usize, masks: [u32; 2]) {
        let next_mask = masks[next];
        let over = match self.game_end {
            GameEnd::Immediate => next_mask == 0 || masks[next ^ 1] == 0,
            GameEnd::Delayed => next_mask == 0,
        };
        if over {
            self.sweep(state);
            return;
        }
        state.to_move = next as u8;
        state.legal = next_mask;
        state.waiting = masks[next ^ 1] as u16;
        if state.pie_pending && next == 1 {
            state.legal |= SWAP_BIT;
        }
    }

    /// Ends the game: leftover seeds go to their owners or are set aside.
    fn sweep(&self, state: &mut KalahState) {
        ring::sweep(&mut state.cells, self.n(), self.leftover == Leftover::Owner);
        state.to_move = OVER;
        state.legal = 0;
        state.waiting = 0;
        // A game can end during player 0's opening turn: no swap is pending
        // in a finished game (as `from_setup` builds it).
        state.pie_pending = false;
    }
}

impl fmt::Display for KalahRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut opts = Vec::new();
        self.size.push_options(DEFAULT_SIZE, &mut opts);
        if self.empty_capture {
            opts.push("empty_capture=true".into());
        }
        if self.game_end == GameEnd::Delayed {
            opts.push("game_end=delayed".into());
        }
        if self.leftover == Leftover::SetAside {
            opts.push("leftover=set_aside".into());
        }
        if self.pie {
            opts.push("pie=true".into());
        }
        write_spec(f, "kalah", &opts)
    }
}

/// A Kalah position: pits, stores, the player to move and whether the pie
/// rule's swap is still to come.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct KalahState {
    /// The ring in sowing order: P0 pits, P0 store, P1 pits, P1 store.
    cells: Cells,
    /// 0 or 1, or `OVER`.
    to_move: u8,
    /// Legal moves of the player to move (a cache of the board, kept in step).
    legal: u32,
    /// The other player's non-empty pits (a cache too, kept in step: a
    /// move finds the rows' non-empty pits from it and `legal` without
    /// reading the ring it has just written, and greedy's store gains ask
    /// it for every move they weigh).
    waiting: u16,
    /// The swap is still to be offered to player 1 (pie rule).
    pie_pending: bool,
}

impl fmt::Debug for KalahState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "KalahState({:?}, to_move={}, pie_pending={})",
            &self.cells, self.to_move, self.pie_pending
        )
    }
}

impl Game for KalahRules {
    type State = KalahState;

    fn name(&self) -> &'static str {
        "kalah"
    }

    fn pits(&self) -> usize {
        self.n()
    }

    fn total_seeds(&self) -> usize {
        self.size.total()
    }

    fn max_game_length(&self) -> u64 {
        // Every Kalah move scores or stays in the mover's row; the swap is
        // one move more.
        crate::game::sowing_game_bound(self.n(), self.size.total()) + u64::from(self.pie)
    }

    fn start(&self) -> KalahState {
        let n = self.n();
        let mut cells = [0u8; RING];
        cells[..n].fill(self.size.seeds_u8());
        cells[n + 1..2 * n + 1].fill(self.size.seeds_u8());
        KalahState {
            cells,
            to_move: 0,
            legal: (1u32 << n) - 1,
            waiting: (1u16 << n) - 1,
            pie_pending: self.pie,
        }
    }

    #[inline]
    fn to_move(&self, state: &KalahState) -> Option<Player> {
        (state.to_move != OVER).then(|| Player::new(state.to_move as usize))
    }

    #[inline]
    fn legal_moves(&self, state: &KalahState) -> MoveSet {
        MoveSet::from_bits(state.legal)
    }

    fn play_unchecked(&self, state: &mut KalahState, mv: Move) {
        let n = self.n();
        let p = state.to_move as usize;
        debug_assert!(p < 2, "play on a finished game");
        let pit = match mv {
            Move::Pit(i) => i as usize,
            Move::Swap => {
                // Mirror: the halves [row, store] of the ring change places.
                let (a, b) = state.cells.split_at_mut(n + 1);
                a.swap_with_slice(&mut b[..n + 1]);
                state.pie_pending = false;
                self.finish_turn(state, 0);
                return;
            }
        };
        let base = self.row_start(p);
        let own_store = base + n;
        let (start, skip) = (base + pit, ring::store(n, p ^ 1));
        // The rows' non-empty pits after the move, from those before (kept
        // in the state) and the cells the sowing reaches, without reading
        // the ring just written: a load over bytes just stored waits for
        // them when it is not the same size and place.
        let row = (1 << n) - 1;
        let before =
            (state.legal & row) << base | u32::from(state.waiting) << self.row_start(p ^ 1);
        let sown = ring::sown_cells(n, start, skip, usize::from(state.cells[start]));
        let pos = ring::sow(&mut state.cells, n, start, skip);
        let nonzero = (before & !(1 << start)) | sown;
        let mut masks = [0, 1].map(|q| (nonzero >> self.row_start(q)) & row);

        if p == 1 {
            state.pie_pending = false;
        }
        if pos == own_store {
            self.finish_turn_with(state, p, masks);
            return;
        }
        if pos >= base && pos < own_store && state.cells[pos] == 1 {
            let opposite = ring::opposite(n, pos);
            let captured = state.cells[opposite];
            if captured > 0 || self.empty_capture {
                state.cells[own_store] += captured + 1;
                state.cells[opposite] = 0;
                state.cells[pos] = 0;
                masks[p] &= !(1 << (pos - base));
                masks[p ^ 1] &= !(1 << (opposite - self.row_start(p ^ 1)));
            }
        }
        self.finish_turn_with(state, p ^ 1, masks);
    }

    /// Counts the seeds that reach the store and a capture's from the
    /// pit's seed count, without sowing. Seen from the mover, the sowing
    /// goes round `lap = 2n + 1` places (own pits `0..n`, own store `n`,
    /// the opponent's pits `n + 1..=2n`), the `k`-th seed from pit `i` to
    /// place `(i + k) % lap`. A game can end only when a row empties; rows
    /// only gain seeds but for the pit sown and a capture's two pits, and a
    /// capture takes an own pit that was empty and one opposite: with
    /// another non-empty own pit and two non-empty opposite ones, both rows
    /// keep seeds.
    #[inline]
    fn store_gain(&self, state: &KalahState, mv: Move) -> Option<i32> {
        let Move::Pit(i) = mv else {
            return None;
        };
        let (n, i, p) = (self.n(), usize::from(i), state.to_move as usize);
        let own_pits = state.legal & ((1 << n) - 1);
        let other_pits = u32::from(state.waiting);
        if own_pits & !(1 << i) == 0 || other_pits.count_ones() < 2 {
            return None;
        }
        let base = self.row_start(p);
        let seeds = usize::from(state.cells[base + i]);
        let lap = 2 * n + 1;
        // No division for the usual pit of fewer seeds than a lap.
        let (laps, rest) = if seeds < lap {
            (0, seeds)
        } else {
            (seeds / lap, seeds % lap)
        };
        let mut last = i + rest;
        if last >= lap {
            last -= lap;
        }
        if last == n {
            return None; // another turn
        }
        // Seeds that fall on place `r`: one a lap, and one more if it is
        // among the first `rest` places after the pit.
        let sown = |r: usize| {
            let after = if r > i { r - i } else { r + lap - i };
            laps + usize::from(after <= rest)
        };
        // A capture, reckoned whatever the last place, without a branch on
        // it (it goes either way at random in play): the own pit `at`
        // (pit 0 when the last seed fell past the store, which the test
        // then rules out) was empty and gets the last seed only.
        let in_row = last < n;
        let at = if in_row { last } else { 0 };
        let before = if at == i {
            0
        } else {
            usize::from(state.cells[base + at])
        };
        let lands_alone = in_row & (before + sown(at) == 1);
        let captured = usize::from(state.cells[ring::opposite(n, base + at)]) + sown(2 * n - at);
        let takes = lands_alone & ((captured > 0) | self.empty_capture);
        Some((sown(n) + usize::from(takes) * (captured + 1)) as i32)
    }

    fn store_gains(&self, state: &KalahState, gains: &mut [i32; MAX_PITS + 1]) -> MoveSet {
        #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
        if let Some(told) = lanes::store_gains(self, state, gains) {
            return told;
        }
        store_gains_by_move(self, state, gains)
    }

    fn outcome(&self, state: &KalahState) -> Option<Outcome> {
        (state.to_move == OVER).then(|| Outcome {
            scores: self.scores(state),
            reason: EndReason::EmptyRow,
        })
    }

    #[inline]
    fn scores(&self, state: &KalahState) -> ByPlayer<u8> {
        ring::stores(&state.cells, self.n())
    }

    fn row_seeds(&self, state: &KalahState) -> ByPlayer<u8> {
        ring::row_sums(&state.cells, self.n())
    }

    fn setup(&self, state: &KalahState) -> Setup {
        Setup {
            rows: ring::setup_rows(&state.cells, self.n()),
            stores: self.scores(state),
            to_move: self.to_move(state),
            swap_available: state.pie_pending && state.to_move != OVER,
            ..Setup::default()
        }
    }

    fn from_setup(&self, setup: &Setup) -> Result<KalahState, PositionError> {
        let n = self.n();
        let over = setup.to_move.is_none();
        let set_aside_end = over && self.leftover == Leftover::SetAside;
        if set_aside_end && setup.total_seeds() <= self.total_seeds() {
            // Leftovers were set aside: fewer seeds than at the start is right.
            check_common(setup, n, setup.total_seeds())?;
        } else {
            check_common(setup, n, self.total_seeds())?;
        }
        if setup.swap_available && !self.pie {
            return Err(PositionError::Swap {
                why: "these rules have no pie rule (add pie=true)".into(),
            });
        }
        let mut state = KalahState {
            cells: ring::from_setup(setup, n),
            to_move: OVER,
            legal: 0,
            waiting: 0,
            pie_pending: setup.swap_available,
        };
        let empty = |p: Player| setup.rows[p].iter().all(|&s| s == 0);
        match setup.to_move {
            None => {
                if !(empty(Player::ZERO) && empty(Player::ONE)) {
                    return Err(PositionError::ToMove {
                        why: "the game is marked over (-) but seeds are left in the pits; \
                              a finished position has its leftovers already counted"
                            .into(),
                    });
                }
                state.pie_pending = false;
            }
            Some(p) => {
                let ended = match self.game_end {
                    GameEnd::Immediate => empty(Player::ZERO) || empty(Player::ONE),
                    GameEnd::Delayed => empty(p),
                };
                if ended {
                    let why = match self.game_end {
                        GameEnd::Immediate => "a row is empty",
                        GameEnd::Delayed => "the mover has no seeds (game_end=delayed)",
                    };
                    return Err(PositionError::ToMove {
                        why: format!(
                            "player {p} is to move, but the game is already over: {why} \
                             (write - for a finished game, with leftovers counted)"
                        ),
                    });
                }
                self.finish_turn(&mut state, p.index());
            }
        }
        Ok(state)
    }

    #[inline]
    fn key(&self, state: &KalahState) -> u64 {
        ring::key(
            &state.cells,
            self.n(),
            &[state.to_move, u8::from(state.pie_pending)],
        )
    }

    fn observe(&self, state: &KalahState, out: &mut [f32]) {
        let p = if state.to_move == OVER {
            0
        } else {
            state.to_move as usize
        };
        let may_swap = if state.legal & SWAP_BIT != 0 {
            1.0
        } else {
            0.0
        };
        ring::observe(&state.cells, self.n(), p, may_swap, self.total_seeds(), out);
    }
}

/// [`Game::store_gains`] of Kalah for all pits at once, a pit a byte of
/// one SSE register: boards of up to 7 pits a row, whose ring of 16 cells
/// or fewer fits in the register, so that the pits a sowing ends on and
/// their opposites are read by one byte shuffle each. Greedy weighs every
/// move of each position of a turn with it: move by move it took a third
/// of a greedy opponent's turn. The arithmetic of Kalah's `store_gain`
/// where no pit laps the board: each place gets at most one seed, the last
/// place exactly one, and no branch depends on a pit's outcome.
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
mod lanes {
    use std::arch::x86_64::*;

    use super::{KalahRules, KalahState};
    use crate::{MoveSet, MAX_PITS};

    /// The moves whose gain is told, or `None` for a board too wide or a
    /// pit that laps the board (then ask move by move).
    #[allow(unsafe_code)]
    pub(super) fn store_gains(
        rules: &KalahRules,
        state: &KalahState,
        gains: &mut [i32; MAX_PITS + 1],
    ) -> Option<MoveSet> {
        // SAFETY: this build targets CPUs with SSSE3 (the module's cfg),
        // all that the function needs.
        unsafe { with_ssse3(rules, state, gains) }
    }

    #[target_feature(enable = "ssse3")]
    fn with_ssse3(
        rules: &KalahRules,
        state: &KalahState,
        gains: &mut [i32; MAX_PITS + 1],
    ) -> Option<MoveSet> {
        let n = rules.n();
        if 2 * n + 2 > 16 {
            return None;
        }
        let own_pits = state.legal & ((1 << n) - 1);
        // Whole-position cases of `store_gain`'s `None`: a move from the
        // only non-empty pit, or an opponent with fewer than two, may end
        // the game.
        if own_pits.count_ones() < 2 || state.waiting.count_ones() < 2 {
            return Some(MoveSet::default());
        }
        let word =
            |at: usize| i64::from_le_bytes(state.cells[at..at + 8].try_into().expect("8 cells"));
        let ring = _mm_set_epi64x(word(8), word(0));
        let byte = |v: usize| _mm_set1_epi8(v as i8);
        let base = super::ring::row_start(n, usize::from(state.to_move));
        let pit = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let lap = 2 * n + 1;
        // Lanes past the row hold what the shuffle gives; only the row's
        // bits of the masks are read.
        let seeds = _mm_shuffle_epi8(ring, _mm_add_epi8(pit, byte(base)));
        let row = (1u32 << n) - 1;
        // A pit may hold up to 255 seeds: compared unsigned (saturating).
        let short = _mm_cmpeq_epi8(_mm_subs_epu8(seeds, byte(lap - 1)), _mm_setzero_si128());
        if !(_mm_movemask_epi8(short) as u32) & row != 0 {
            return None;
        }
        // Past here the row's seeds, the places and the pit numbers are
        // below 2 * 7 + 1, so the signed comparisons below are plain ones
        // (the opposite pits' counts are only added and tested for zero).
        let mut last = _mm_add_epi8(pit, seeds);
        last = _mm_sub_epi8(
            last,
            _mm_and_si128(_mm_cmpgt_epi8(last, byte(lap - 1)), byte(lap)),
        );
        let in_row = _mm_cmpgt_epi8(byte(n), last);
        let at = _mm_and_si128(last, in_row);
        let before = _mm_shuffle_epi8(ring, _mm_add_epi8(at, byte(base)));
        let lands_alone = _mm_and_si128(in_row, _mm_cmpeq_epi8(before, _mm_setzero_si128()));
        // The opposite of own pit `at` is cell `2n - base - at`; the sowing
        // reaches it when it is at most `seeds` places on.
        let opposite = _mm_shuffle_epi8(ring, _mm_sub_epi8(byte(2 * n - base), at));
        let reach = _mm_sub_epi8(_mm_sub_epi8(byte(2 * n), at), pit);
        let reaches = _mm_andnot_si128(_mm_cmpgt_epi8(reach, seeds), byte(1));
        let captured = _mm_add_epi8(opposite, reaches);
        let mut takes =
            _mm_andnot_si128(_mm_cmpeq_epi8(captured, _mm_setzero_si128()), lands_alone);
        if rules.empty_capture {
            takes = lands_alone;
        }
        // One seed in the store if the sowing passes it.
        let store = _mm_and_si128(
            _mm_cmpgt_epi8(seeds, _mm_sub_epi8(byte(n - 1), pit)),
            byte(1),
        );
        let gain = _mm_add_epi8(store, _mm_and_si128(takes, _mm_add_epi8(captured, byte(1))));
        let bytes = _mm_cvtsi128_si64(gain) as u64;
        for (i, g) in gains[..n].iter_mut().enumerate() {
            *g = ((bytes >> (8 * i)) & 0xFF) as i32;
        }
        let another_turn = _mm_movemask_epi8(_mm_cmpeq_epi8(last, byte(n))) as u32;
        Some(MoveSet::from_bits(!another_turn & own_pits))
    }
}
