//! Oware (Abapa), with every rule option of `RULES.md`.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::game::{hash_bytes, nonzero_mask, write_observation};
use crate::notation::check_common;
use crate::spec::{check_board, write_spec, Spec};
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
    pits: u8,
    seeds: u8,
    /// What a grand slam does.
    pub grand_slam: GrandSlam,
    /// The game ends after this many moves.
    pub max_plies: u32,
}

impl Default for OwareRules {
    fn default() -> OwareRules {
        OwareRules {
            pits: 6,
            seeds: 4,
            grand_slam: GrandSlam::NoCapture,
            max_plies: 1000,
        }
    }
}

const KEYS: &[&str] = &["pits", "seeds", "grand_slam", "max_plies"];
const GRAND_SLAM_NAMES: &[&str] = &["no_capture", "illegal", "capture_all"];
/// Room for two rows of `MAX_PITS` houses, rounded up to 32 bytes so that
/// whole-board updates are two SIMD operations.
const HOUSES: usize = (2 * MAX_PITS).div_ceil(32) * 32;
const OVER: u8 = 2;

/// A board of houses, P0's then P1's, in sowing order.
type Houses = [u8; HOUSES];

impl OwareRules {
    /// Abapa rules on a board of `pits` houses with `seeds` seeds each.
    ///
    /// # Errors
    /// [`SpecError`] when `pits` is not in `1..=15`, `seeds` is 0, or the
    /// board holds more than 255 seeds.
    pub fn new(pits: usize, seeds: usize) -> Result<OwareRules, SpecError> {
        if !(1..=MAX_PITS).contains(&pits) {
            return Err(crate::spec::bad_value(
                "pits",
                &pits.to_string(),
                &format!("a whole number from 1 to {MAX_PITS}"),
            ));
        }
        if seeds == 0 {
            return Err(crate::spec::bad_value("seeds", "0", "at least 1"));
        }
        check_board("oware", pits, seeds)?;
        Ok(OwareRules {
            pits: pits as u8,
            seeds: seeds as u8,
            ..OwareRules::default()
        })
    }

    /// Seeds in each house at the start.
    pub fn seeds(&self) -> usize {
        self.seeds as usize
    }

    /// Reads the options of an `oware:...` spec.
    ///
    /// # Errors
    /// [`SpecError`] naming the key and the accepted values.
    pub fn from_spec(spec: &Spec) -> Result<OwareRules, SpecError> {
        spec.check_keys(KEYS)?;
        let pits = spec.get_int("pits", 1..=MAX_PITS as u64)?.unwrap_or(6) as usize;
        let seeds = spec
            .get_int("seeds", 1..=crate::MAX_SEEDS as u64)?
            .unwrap_or(4) as usize;
        let mut rules = OwareRules::new(pits, seeds)?;
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
        self.pits as usize
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

    /// Whether `state`'s board, with the player to move, occurred since the
    /// last capture. Scores cannot differ within that span, and players
    /// alternate, so only boards an even number of plies back can match.
    fn repeats(state: &OwareState) -> bool {
        // The last entry is the current board; the same player was to move
        // two, four, ... entries before it.
        let before = &state.history[..state.history.len() - 1];
        before
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .any(|b| *b == state.houses)
    }
}

impl fmt::Display for OwareRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = OwareRules::default();
        let mut opts = Vec::new();
        if self.pits != d.pits || self.seeds != d.seeds {
            opts.push(format!("pits={}", self.pits));
            opts.push(format!("seeds={}", self.seeds));
        }
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
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct OwareState {
    houses: Houses,
    scores: [u8; 2],
    /// 0 or 1, or `OVER`.
    to_move: u8,
    /// Legal moves of the player to move (a cache of the board, kept in step).
    legal: u32,
    plies: u32,
    end: Option<EndReason>,
    /// Boards since the last capture, oldest first; the last is the current one.
    history: Vec<Houses>,
}

impl OwareState {
    /// Moves played since the start (or since the position was set up).
    pub fn plies(&self) -> u32 {
        self.plies
    }
}

impl fmt::Debug for OwareState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "OwareState({:?}, scores={:?}, to_move={}, plies={}, history={})",
            &self.houses,
            self.scores,
            self.to_move,
            self.plies,
            self.history.len()
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
        2 * self.n() * self.seeds()
    }

    fn start(&self) -> OwareState {
        let mut houses = [0u8; HOUSES];
        houses[..2 * self.n()].fill(self.seeds);
        OwareState {
            houses,
            scores: [0, 0],
            to_move: 0,
            legal: self.compute_legal(&houses, 0),
            plies: 0,
            end: None,
            history: vec![houses],
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
        if 2 * s0 > total || 2 * s1 > total || (2 * s0 == total && 2 * s1 == total) {
            return self.end(state, EndReason::Majority);
        }
        if captured {
            state.history.clear();
        }
        state.history.push(state.houses);
        if !captured && Self::repeats(state) {
            return self.end(state, EndReason::Repetition);
        }
        if state.plies >= self.max_plies {
            return self.end(state, EndReason::MaxPlies);
        }
        let legal = self.compute_legal(&state.houses, next);
        if legal == 0 {
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
            legal: 0,
            plies: 0,
            end: None,
            history: vec![houses],
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
        // first houses' bytes.
        bytes[n2 + 2] = state.to_move;
        bytes[n2 + 3..n2 + 7].copy_from_slice(&state.plies.to_le_bytes());
        let mut seed = 0;
        for board in &state.history[..state.history.len() - 1] {
            seed = hash_bytes(&board[..n2], seed);
        }
        hash_bytes(&bytes[..n2 + 7], seed)
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
