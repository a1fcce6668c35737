//! Oware (Abapa), with every rule option of `RULES.md`.
//!
//! # Repetitions
//!
//! The game ends when a board recurs, with the same player to move, since
//! the last capture. Only a capture is irreversible here: sowing without
//! capture keeps every seed on the board, and boards do come back (see the
//! cycle in `tests/suite/rules.rs`). Scores change only by captures, so within
//! that span a recurring board is a recurring position exactly when it
//! lies an even number of plies back.
//!
//! A state therefore carries the boards since the last capture. Search
//! clones states all the time, so they are kept out of the heap while the
//! span is short: the latest ones in a fixed inline buffer (`RECENT`
//! entries of 16 bytes, one per board of up to 8 houses a row, two for
//! bigger boards); once it overflows, the older ones in a vector shared by
//! clones (`Arc`, copied on write), so a span of any length stays exact.
//!
//! Each ply updates, besides, a 64-bit hash of the current board, and for
//! each player a 64-bit set of one bit per board of the history with that
//! player to move, picked by the board's hash. A board whose bit is not in
//! its player's set cannot have occurred, which settles most plies without
//! a comparison; otherwise the boards with that player to move are compared,
//! whole, so a hash collision never ends a game. The board hashes, chained, also
//! stand for the history in `Game::key`, which no longer hashes every past
//! board on each call. (Keys therefore have other values than before; the
//! same states, by their history, get equal keys as before.)

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::game::{hash_bytes, nonzero_mask, write_observation};
use crate::notation::check_common;
use crate::size::{BoardSize, SIZE_KEYS};
use crate::spec::{write_spec, Spec};
use crate::{
    ByPlayer, EndReason, Game, Move, MoveSet, Outcome, Player, PositionError, Setup, SpecError,
    MAX_PITS,
};

/// What a grand slam (a capture of all the opponent's seeds) does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrandSlam {
    /// The move is legal but captures nothing.
    #[default]
    NoCapture,
    /// The move may be played only when every legal move is one; it then
    /// captures nothing.
    Illegal,
    /// The move captures as normal.
    CaptureAll,
}

/// The rules of one Oware variant. `OwareRules::default()` is Abapa with 6
/// houses of 4 seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OwareRules {
    size: BoardSize,
    /// What a grand slam does.
    pub grand_slam: GrandSlam,
    /// The game ends after this many moves.
    pub max_plies: u32,
}

impl Default for OwareRules {
    fn default() -> OwareRules {
        OwareRules {
            size: DEFAULT_SIZE,
            grand_slam: GrandSlam::NoCapture,
            max_plies: 1000,
        }
    }
}

const KEYS: &[&str] = &[SIZE_KEYS[0], SIZE_KEYS[1], "grand_slam", "max_plies"];
/// Abapa's board: 6 houses of 4 seeds.
const DEFAULT_SIZE: BoardSize = BoardSize::new_const(6, 4);
const GRAND_SLAM_NAMES: &[&str] = &["no_capture", "illegal", "capture_all"];
/// Room for two rows of `MAX_PITS` houses, rounded up to 32 bytes so that
/// whole-board updates are two SIMD operations.
const HOUSES: usize = (2 * MAX_PITS).div_ceil(32) * 32;
const OVER: u8 = 2;

/// A board of houses, P0's then P1's, in sowing order.
type Houses = [u8; HOUSES];

/// One entry of the repetition history: 16 bytes of a board, as two
/// little-endian words. Boards of up to 8 houses a row take one entry (the
/// rest of `Houses` is zero), bigger ones two.
///
/// Not a `u128`: that would align the state to 16 bytes, and with that
/// alignment the compiler lays out the sowing code differently; random
/// games then ran about 25% slower on the machine measured.
type Entry = [u64; 2];

/// History entries kept inline in a state: 8 boards of up to 8 houses a
/// row, 4 bigger ones. A random 6-house game spends about two thirds of its
/// plies within 8 plies of a capture; 16 entries spill less but make every
/// clone bigger, and minimax, which clones a state per child, was faster
/// with 8. Even, so that a two-entry board never straddles the buffer and
/// the spill.
const RECENT: usize = 8;
const _: () = assert!(RECENT & 1 == 0 && RECENT <= u8::MAX as usize);

/// The two 16-byte halves of a board.
#[inline(always)]
fn halves(board: &Houses) -> (Entry, Entry) {
    let word = |at: usize| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&board[at..at + 8]);
        u64::from_le_bytes(bytes)
    };
    ([word(0), word(8)], [word(16), word(24)])
}

/// `a * b` folded to 64 bits (the mixer of wyhash): every bit of either
/// factor reaches the middle bits of the result.
#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let m = u128::from(a) * u128::from(b);
    (m as u64) ^ ((m >> 64) as u64)
}

/// A 64-bit hash of a board. (No word of a board, whose seeds add up to at
/// most 255, equals one of the constants, so the first factors are never 0.)
#[inline(always)]
fn board_hash(board: &Houses) -> u64 {
    let ([a, b], [c, d]) = halves(board);
    let h = fold_mul(a ^ 0x9E37_79B9_7F4A_7C15, b ^ 0xBF58_476D_1CE4_E5B9);
    if c | d == 0 {
        h
    } else {
        fold_mul(h ^ c ^ 0x94D0_49BB_1331_11EB, d ^ 0xA076_1D64_78BD_642F)
    }
}

/// The bit standing for a board (of hash `hash`) in `OwareState::seen`.
#[inline(always)]
fn seen_bit(hash: u64) -> u64 {
    1 << (hash >> 58)
}

impl OwareRules {
    /// Abapa rules on a board of `pits` houses with `seeds` seeds each.
    ///
    /// # Errors
    /// [`SpecError`] when `pits` is not in `1..=15`, `seeds` is 0, or the
    /// board holds more than 255 seeds.
    pub fn new(pits: usize, seeds: usize) -> Result<OwareRules, SpecError> {
        Ok(OwareRules {
            size: BoardSize::new("oware", pits, seeds)?,
            ..OwareRules::default()
        })
    }

    /// Seeds in each house at the start.
    pub fn seeds(&self) -> usize {
        self.size.seeds()
    }

    /// Reads the options of an `oware:...` spec.
    ///
    /// # Errors
    /// [`SpecError`] naming the key and the accepted values.
    pub fn from_spec(spec: &Spec) -> Result<OwareRules, SpecError> {
        spec.check_keys(KEYS)?;
        let mut rules = OwareRules {
            size: BoardSize::from_spec("oware", spec, DEFAULT_SIZE)?,
            ..OwareRules::default()
        };
        if let Some(i) = spec.get_choice("grand_slam", GRAND_SLAM_NAMES)? {
            rules.grand_slam = [
                GrandSlam::NoCapture,
                GrandSlam::Illegal,
                GrandSlam::CaptureAll,
            ][i];
        }
        if let Some(m) = spec.get_int("max_plies", 1..=1_000_000)? {
            rules.max_plies = m as u32;
        }
        Ok(rules)
    }

    #[inline]
    fn n(&self) -> usize {
        self.size.pits()
    }

    #[inline]
    fn row_seeds(&self, houses: &Houses, p: usize) -> u32 {
        houses[p * self.n()..(p + 1) * self.n()]
            .iter()
            .map(|&s| u32::from(s))
            .sum()
    }

    /// Sows house `pit` of player `p`, skipping the origin on every lap;
    /// returns the house of the last seed.
    #[inline(always)]
    fn sow(&self, houses: &mut Houses, p: usize, pit: usize) -> usize {
        let two_n = 2 * self.n();
        let start = p * self.n() + pit;
        let seeds = houses[start];
        houses[start] = 0;
        let lap = (two_n - 1) as u8;
        let mut rest = seeds;
        if seeds >= lap {
            let laps = seeds / lap;
            rest = seeds % lap;
            for (k, h) in houses[..two_n].iter_mut().enumerate() {
                if k != start {
                    *h += laps;
                }
            }
            if rest == 0 {
                // The last seed of the last lap fell just before the origin.
                return (start + two_n - 1) % two_n;
            }
        }
        // Fewer than a lap left: one seed each to the next `rest` houses,
        // which cannot reach the origin again. Done over the whole array so
        // that it vectorises and no branch depends on the seed count.
        let (start8, ring8, rest8) = (start as u8, two_n as u8, rest);
        for (k, h) in houses.iter_mut().enumerate() {
            let k = k as u8;
            let dist = if k > start8 {
                k - start8
            } else {
                k.wrapping_add(ring8).wrapping_sub(start8)
            };
            *h += u8::from((dist <= rest8) & (k < ring8));
        }
        let last = start + rest as usize;
        if last >= two_n {
            last - two_n
        } else {
            last
        }
    }

    /// The houses a last seed in `last` would capture for mover `p`: the
    /// range `lo..=last` and the seeds in it, or `None` for no capture.
    #[inline]
    fn capture_span(&self, houses: &Houses, p: usize, last: usize) -> Option<(usize, u32)> {
        let opp_lo = (p ^ 1) * self.n();
        if last < opp_lo || last >= opp_lo + self.n() {
            return None;
        }
        let mut lo = last + 1;
        let mut seeds = 0u32;
        while lo > opp_lo && matches!(houses[lo - 1], 2 | 3) {
            lo -= 1;
            seeds += u32::from(houses[lo]);
        }
        (lo <= last).then_some((lo, seeds))
    }

    /// Whether sowing `pit` now would be a grand slam.
    fn is_grand_slam(&self, houses: &Houses, p: usize, pit: usize) -> bool {
        let mut copy = *houses;
        let last = self.sow(&mut copy, p, pit);
        match self.capture_span(&copy, p, last) {
            Some((_, seeds)) => seeds == self.row_seeds(&copy, p ^ 1),
            None => false,
        }
    }

    /// The legal moves of `p`: non-empty houses, only feeding ones when the
    /// opponent is empty, and no grand slams under `grand_slam=illegal`
    /// unless nothing else is legal.
    #[inline(always)]
    fn compute_legal(&self, houses: &Houses, p: usize) -> u32 {
        let n = self.n();
        let row = &houses[p * n..(p + 1) * n];
        let mut mask = nonzero_mask(houses, p * n, n);
        if nonzero_mask(houses, (p ^ 1) * n, n) == 0 {
            // Only moves that sow past the own last house feed the opponent.
            for (i, &s) in row.iter().enumerate() {
                if usize::from(s) < n - i {
                    mask &= !(1 << i);
                }
            }
        }
        if self.grand_slam == GrandSlam::Illegal && mask != 0 {
            let mut allowed = 0;
            for i in MoveSet::from_bits(mask) {
                if let Move::Pit(i) = i {
                    if !self.is_grand_slam(houses, p, i as usize) {
                        allowed |= 1 << i;
                    }
                }
            }
            if allowed != 0 {
                mask = allowed;
            }
        }
        mask
    }

    /// Ends the game: each player adds the seeds of their own row.
    fn end(&self, state: &mut OwareState, reason: EndReason) {
        let n = self.n();
        for p in 0..2 {
            let row = &mut state.houses[p * n..(p + 1) * n];
            let left: u8 = row.iter().sum();
            row.fill(0);
            state.scores[p] += left;
        }
        state.to_move = OVER;
        state.legal = 0;
        state.end = Some(reason);
    }
}

impl fmt::Display for OwareRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = OwareRules::default();
        let mut opts = Vec::new();
        self.size.push_options(DEFAULT_SIZE, &mut opts);
        if self.grand_slam != d.grand_slam {
            opts.push(format!(
                "grand_slam={}",
                GRAND_SLAM_NAMES[self.grand_slam as usize]
            ));
        }
        if self.max_plies != d.max_plies {
            opts.push(format!("max_plies={}", self.max_plies));
        }
        write_spec(f, "oware", &opts)
    }
}

/// An Oware position: houses, captured seeds, the player to move, the moves
/// played, and the boards seen since the last capture (for repetitions).
///
/// Cloning copies about 200 bytes and, when the span since the last capture
/// is long, bumps a reference count: no allocation.
#[derive(Clone)]
pub struct OwareState {
    houses: Houses,
    scores: [u8; 2],
    /// 0 or 1, or `OVER`.
    to_move: u8,
    /// Whether a board takes two history entries (more than 8 houses a row).
    wide: bool,
    /// Entries of `recent` in use.
    recent_len: u8,
    /// Legal moves of the player to move (a cache of the board, kept in step).
    legal: u32,
    plies: u32,
    end: Option<EndReason>,
    /// `board_hash` of the current board (of the last one played, once over).
    hash: u64,
    /// For each player, the union of the `seen_bit`s of the history's boards
    /// with that player to move: a board whose bit is missing for its
    /// player has not occurred, and most plies compare no boards at all.
    seen: [u64; 2],
    /// The board hashes of the history, oldest first, as far as the board
    /// before the current one, chained (0 for none): the part of
    /// `Game::key` that stands for the history.
    chain: u64,
    /// The history: the boards since the last capture, oldest first, before
    /// the current one (and, once the game is over, the last board before
    /// the sweep). Its latest entries are here, `recent[..recent_len]`
    /// (later entries are stale)...
    recent: [Entry; RECENT],
    /// ... and the older ones, whole buffers of `RECENT` entries moved out
    /// when `recent` overflowed, here (`None` or empty when there are none).
    spill: Option<Arc<Vec<Entry>>>,
}

impl OwareState {
    /// Moves played since the start (or since the position was set up).
    pub fn plies(&self) -> u32 {
        self.plies
    }

    /// The history's entries: the spilled ones, then the inline ones.
    #[inline]
    fn history(&self) -> (&[Entry], &[Entry]) {
        let spill = self.spill.as_deref().map_or(&[][..], Vec::as_slice);
        (spill, &self.recent[..usize::from(self.recent_len)])
    }

    #[inline(always)]
    fn entries_per_board(&self) -> usize {
        1 + usize::from(self.wide)
    }

    /// Boards in the history.
    fn history_boards(&self) -> usize {
        let (spill, recent) = self.history();
        (spill.len() + recent.len()) / self.entries_per_board()
    }

    /// Appends the current board, with player `mover` to move, to the
    /// history. A full inline buffer moves to the spill first, as a whole,
    /// so where the split lies depends only on the history's length (which
    /// `Eq` relies on).
    #[inline(always)]
    fn push_board(&mut self, mover: usize) {
        let (lo, hi) = halves(&self.houses);
        let w = self.entries_per_board();
        let mut at = usize::from(self.recent_len);
        self.seen[mover] |= seen_bit(self.hash);
        if at + w > RECENT {
            debug_assert_eq!(at, RECENT);
            let spill = self.spill.get_or_insert_with(Default::default);
            Arc::make_mut(spill).extend_from_slice(&self.recent);
            at = 0;
        }
        self.recent[at] = lo;
        if self.wide {
            self.recent[at + 1] = hi;
        }
        self.recent_len = (at + w) as u8;
    }

    /// Extends `chain` by a board's hash.
    #[inline(always)]
    fn chain(&mut self, board_hash: u64) {
        self.chain = fold_mul(self.chain ^ board_hash, 0xE703_7ED1_A0B4_28DB);
    }

    /// Empties the history: a capture was made.
    #[inline(always)]
    fn clear_history(&mut self) {
        self.recent_len = 0;
        self.seen = [0, 0];
        self.chain = 0;
        // A spill of this state's own is kept, empty, for the next long
        // span (a random game has several); a shared one is let go.
        match self.spill.as_mut().and_then(Arc::get_mut) {
            Some(spill) => spill.clear(),
            None => self.spill = None,
        }
    }

    /// Whether the current board, with player `mover` to move, occurred
    /// since the last capture. Scores cannot differ within that span, and
    /// players alternate, so only boards an even number of plies back can
    /// match.
    #[inline(always)]
    fn repeats(&self, mover: usize) -> bool {
        let wide = self.wide;
        if self.seen[mover] & seen_bit(self.hash) == 0 {
            return false;
        }
        let (lo, hi) = halves(&self.houses);
        let same =
            |entries: &[Entry], at: usize| entries[at] == lo && (!wide || entries[at + 1] == hi);
        // The history's last board is one ply back; the same player was to
        // move two, four, ... boards back.
        let step = 2 * self.entries_per_board();
        let mut at = usize::from(self.recent_len);
        while at >= step {
            at -= step;
            if same(&self.recent, at) {
                return true;
            }
        }
        // Then on into the spill, `step` entries before the last board seen.
        if let Some(spill) = &self.spill {
            let mut at = spill.len() + at;
            while at >= step {
                at -= step;
                if same(spill, at) {
                    return true;
                }
            }
        }
        false
    }
}

// By hand rather than derived: the stale entries of `recent` are left out.
impl PartialEq for OwareState {
    fn eq(&self, other: &OwareState) -> bool {
        self.houses == other.houses
            && self.scores == other.scores
            && self.to_move == other.to_move
            && self.legal == other.legal
            && self.plies == other.plies
            && self.end == other.end
            && self.chain == other.chain
            && self.history() == other.history()
    }
}

impl Eq for OwareState {}

impl Hash for OwareState {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.houses.hash(state);
        self.scores.hash(state);
        self.to_move.hash(state);
        self.legal.hash(state);
        self.plies.hash(state);
        self.end.hash(state);
        self.chain.hash(state);
        self.history().hash(state);
    }
}

impl fmt::Debug for OwareState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Boards since the last capture, the current one included (once
        // over, the history already ends with the last board played).
        let history = self.history_boards() + usize::from(self.to_move != OVER);
        write!(
            f,
            "OwareState({:?}, scores={:?}, to_move={}, plies={}, history={})",
            &self.houses, self.scores, self.to_move, self.plies, history
        )
    }
}

impl Game for OwareRules {
    type State = OwareState;

    fn name(&self) -> &'static str {
        "oware"
    }

    fn pits(&self) -> usize {
        self.n()
    }

    fn total_seeds(&self) -> usize {
        self.size.total()
    }

    fn max_game_length(&self) -> u64 {
        u64::from(self.max_plies)
    }

    fn start(&self) -> OwareState {
        let mut houses = [0u8; HOUSES];
        houses[..2 * self.n()].fill(self.size.seeds_u8());
        OwareState {
            houses,
            scores: [0, 0],
            to_move: 0,
            wide: 2 * self.n() > 16,
            recent_len: 0,
            legal: self.compute_legal(&houses, 0),
            plies: 0,
            end: None,
            hash: board_hash(&houses),
            seen: [0, 0],
            chain: 0,
            recent: [[0; 2]; RECENT],
            spill: None,
        }
    }

    #[inline]
    fn to_move(&self, state: &OwareState) -> Option<Player> {
        (state.to_move != OVER).then(|| Player::new(state.to_move as usize))
    }

    #[inline]
    fn legal_moves(&self, state: &OwareState) -> MoveSet {
        MoveSet::from_bits(state.legal)
    }

    fn play_unchecked(&self, state: &mut OwareState, mv: Move) {
        let p = state.to_move as usize;
        debug_assert!(p < 2, "play on a finished game");
        let Move::Pit(pit) = mv else {
            panic!("Oware has no swap move");
        };
        // The board before the move joins the history (as its last board if
        // the game ends by a majority); a capture empties it below.
        state.push_board(p);
        let before = state.hash;
        let last = self.sow(&mut state.houses, p, pit as usize);
        let mut captured = false;
        if let Some((lo, seeds)) = self.capture_span(&state.houses, p, last) {
            let grand_slam = seeds == self.row_seeds(&state.houses, p ^ 1);
            if !grand_slam || self.grand_slam == GrandSlam::CaptureAll {
                state.houses[lo..=last].fill(0);
                state.scores[p] += seeds as u8;
                captured = true;
            }
        }
        state.plies += 1;
        let next = p ^ 1;

        let total = self.total_seeds() as u32;
        let (s0, s1) = (u32::from(state.scores[0]), u32::from(state.scores[1]));
        state.hash = board_hash(&state.houses);
        if 2 * s0 > total || 2 * s1 > total || (2 * s0 == total && 2 * s1 == total) {
            // The board of this move never joins the history.
            return self.end(state, EndReason::Majority);
        }
        if captured {
            state.clear_history();
        } else {
            state.chain(before);
            if state.repeats(next) {
                // A finished game's history (read by `Eq` and `Hash` only)
                // ends with the last board before the sweep, as it always did.
                state.push_board(next);
                return self.end(state, EndReason::Repetition);
            }
        }
        if state.plies >= self.max_plies {
            state.push_board(next);
            return self.end(state, EndReason::MaxPlies);
        }
        let legal = self.compute_legal(&state.houses, next);
        if legal == 0 {
            state.push_board(next);
            return self.end(state, EndReason::NoLegalMove);
        }
        state.to_move = next as u8;
        state.legal = legal;
    }

    fn outcome(&self, state: &OwareState) -> Option<Outcome> {
        state.end.map(|reason| Outcome {
            scores: self.scores(state),
            reason,
        })
    }

    #[inline]
    fn scores(&self, state: &OwareState) -> ByPlayer<u8> {
        ByPlayer(state.scores)
    }

    fn row_seeds(&self, state: &OwareState) -> ByPlayer<u8> {
        let n = self.n();
        ByPlayer::new_with(|p| {
            state.houses[p.index() * n..(p.index() + 1) * n]
                .iter()
                .sum()
        })
    }

    fn setup(&self, state: &OwareState) -> Setup {
        let n = self.n();
        Setup {
            rows: ByPlayer::new_with(|p| state.houses[p.index() * n..(p.index() + 1) * n].to_vec()),
            stores: self.scores(state),
            to_move: self.to_move(state),
            swap_available: false,
            ..Setup::default()
        }
    }

    fn from_setup(&self, setup: &Setup) -> Result<OwareState, PositionError> {
        let n = self.n();
        check_common(setup, n, self.total_seeds())?;
        if setup.swap_available {
            return Err(PositionError::Swap {
                why: "Oware has no pie rule".into(),
            });
        }
        let mut houses = [0u8; HOUSES];
        houses[..n].copy_from_slice(&setup.rows[Player::ZERO]);
        houses[n..2 * n].copy_from_slice(&setup.rows[Player::ONE]);
        let mut state = OwareState {
            houses,
            scores: setup.stores.0,
            to_move: OVER,
            wide: 2 * n > 16,
            recent_len: 0,
            legal: 0,
            plies: 0,
            end: None,
            hash: board_hash(&houses),
            seen: [0, 0],
            chain: 0,
            recent: [[0; 2]; RECENT],
            spill: None,
        };
        let total = self.total_seeds();
        let decided = setup.stores.0.iter().any(|&s| 2 * usize::from(s) > total)
            || setup.stores.0.iter().all(|&s| 2 * usize::from(s) == total);
        match setup.to_move {
            None => {
                if houses.iter().any(|&h| h != 0) {
                    return Err(PositionError::ToMove {
                        why: "the game is marked over (-) but seeds are left in the houses; \
                              a finished position has them already counted"
                            .into(),
                    });
                }
                // As for a game that ends: the history holds the last board.
                state.push_board(0);
                state.end = Some(if decided {
                    EndReason::Majority
                } else {
                    EndReason::NoLegalMove
                });
            }
            Some(p) => {
                if decided {
                    return Err(PositionError::ToMove {
                        why: format!(
                            "player {p} is to move, but a player has already captured half the seeds or more"
                        ),
                    });
                }
                let legal = self.compute_legal(&houses, p.index());
                if legal == 0 {
                    return Err(PositionError::ToMove {
                        why: format!(
                            "player {p} is to move but has no legal move, so the game is over"
                        ),
                    });
                }
                state.to_move = p.index() as u8;
                state.legal = legal;
            }
        }
        Ok(state)
    }

    fn key(&self, state: &OwareState) -> u64 {
        let n2 = 2 * self.n();
        let mut bytes = [0u8; HOUSES + 7];
        bytes[..n2].copy_from_slice(&state.houses[..n2]);
        bytes[n2] = state.scores[0];
        bytes[n2 + 1] = state.scores[1];
        // The ply count decides `max_plies`, and the boards since the last
        // capture decide repetitions: both are part of the future. They are
        // hashed as data: XORed into the seed they would cancel against the
        // first houses' bytes. The boards before the current one are
        // `chain`, kept up to date by every move.
        bytes[n2 + 2] = state.to_move;
        bytes[n2 + 3..n2 + 7].copy_from_slice(&state.plies.to_le_bytes());
        hash_bytes(&bytes[..n2 + 7], state.chain)
    }

    fn observe(&self, state: &OwareState, out: &mut [f32]) {
        let n = self.n();
        let p = if state.to_move == OVER {
            0
        } else {
            state.to_move as usize
        };
        let (own, opp) = (p * n, (p ^ 1) * n);
        write_observation(
            out,
            &state.houses[own..own + n],
            &state.houses[opp..opp + n],
            [state.scores[p], state.scores[p ^ 1]],
            state.plies as f32 / self.max_plies as f32,
            self.total_seeds(),
        );
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    use super::*;

    /// The repetition rule written plainly: every board since the last
    /// capture in a vector, the current one last, compared with the boards
    /// an even number of plies back.
    #[test]
    fn repetitions_match_a_plain_history() {
        let specs = [
            "oware",
            "oware:pits=6,seeds=1",
            "oware:pits=2,seeds=1",
            "oware:pits=8,seeds=1",
            "oware:pits=9,seeds=1",
            "oware:pits=15,seeds=2",
            "oware:pits=4,seeds=1,grand_slam=capture_all,max_plies=200",
        ];
        let mut rng = SmallRng::seed_from_u64(11);
        let (mut repetitions, mut longest) = (0, 0);
        for spec in specs {
            let crate::GameSpec::Oware(rules) = spec.parse().unwrap() else {
                unreachable!()
            };
            for _ in 0..200 {
                let mut state = rules.start();
                let mut history = vec![state.houses];
                while !rules.is_over(&state) {
                    let legal = rules.legal_moves(&state);
                    let mv = legal.nth(rng.random_range(0..legal.len()));
                    let Move::Pit(pit) = mv else { unreachable!() };
                    // The board after the move, before any end sweeps it.
                    let p = usize::from(state.to_move);
                    let mut board = state.houses;
                    let last = rules.sow(&mut board, p, usize::from(pit));
                    let mut captured = false;
                    if let Some((lo, seeds)) = rules.capture_span(&board, p, last) {
                        let grand_slam = seeds == rules.row_seeds(&board, p ^ 1);
                        if !grand_slam || rules.grand_slam == GrandSlam::CaptureAll {
                            board[lo..=last].fill(0);
                            captured = true;
                        }
                    }
                    if captured {
                        history.clear();
                    }
                    let repeated = history.iter().rev().skip(1).step_by(2).any(|b| *b == board);
                    history.push(board);
                    longest = longest.max(history.len());

                    let copy = state.clone();
                    rules.play_unchecked(&mut state, mv);
                    assert!(copy == copy.clone());
                    match rules.outcome(&state).map(|o| o.reason) {
                        Some(EndReason::Majority) => {}
                        Some(EndReason::Repetition) => {
                            assert!(repeated, "{spec}: {state:?}");
                            repetitions += 1;
                        }
                        _ => assert!(!repeated, "{spec}: {state:?} repeats"),
                    }
                }
            }
        }
        // Both the inline boards and the spill were exercised.
        assert!(
            repetitions > 100 && longest > 4 * RECENT,
            "{repetitions} {longest}"
        );
    }
}
