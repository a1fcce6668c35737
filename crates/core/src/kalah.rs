//! Kalah, with every rule option of `RULES.md`.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::game::{hash_bytes, nonzero_mask, write_observation};
use crate::notation::check_common;
use crate::spec::{check_board, write_spec, Spec};
use crate::{
    ByPlayer, EndReason, Game, Move, MoveSet, Outcome, Player, PositionError, Setup, SpecError,
    MAX_PITS,
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
    pits: u8,
    seeds: u8,
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
            pits: 6,
            seeds: 4,
            empty_capture: false,
            game_end: GameEnd::Immediate,
            leftover: Leftover::Owner,
            pie: false,
        }
    }
}

const KEYS: &[&str] = &[
    "pits",
    "seeds",
    "empty_capture",
    "game_end",
    "leftover",
    "pie",
];

/// Cells of the ring `[P0 pits, store 0, P1 pits, store 1]` for the largest board.
const RING: usize = 2 * MAX_PITS + 2;
const OVER: u8 = 2;
const SWAP_BIT: u32 = 1 << 31;

impl KalahRules {
    /// Standard rules on a board of `pits` pits with `seeds` seeds each.
    ///
    /// # Errors
    /// [`SpecError`] when `pits` is not in `1..=15`, `seeds` is 0, or the
    /// board holds more than 255 seeds.
    pub fn new(pits: usize, seeds: usize) -> Result<KalahRules, SpecError> {
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
        check_board("kalah", pits, seeds)?;
        Ok(KalahRules {
            pits: pits as u8,
            seeds: seeds as u8,
            ..KalahRules::default()
        })
    }

    /// Seeds in each pit at the start.
    pub fn seeds(&self) -> usize {
        self.seeds as usize
    }

    /// The seeds in `player`'s pits, in sowing order.
    pub fn row<'a>(&self, state: &'a KalahState, player: Player) -> &'a [u8] {
        let s = self.row_start(player.index());
        &state.cells[s..s + self.n()]
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
        let n = self.n();
        let mut cells = [0u8; RING];
        for p in 0..2 {
            let s = self.row_start(p);
            cells[s..s + n].copy_from_slice(rows[p]);
            cells[s + n] = stores[p];
        }
        let mut state = KalahState {
            cells,
            to_move: OVER,
            legal: 0,
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
        let pits = spec.get_int("pits", 1..=MAX_PITS as u64)?.unwrap_or(6) as usize;
        let seeds = spec
            .get_int("seeds", 1..=crate::MAX_SEEDS as u64)?
            .unwrap_or(4) as usize;
        let mut rules = KalahRules::new(pits, seeds)?;
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
        self.pits as usize
    }

    /// First cell of `p`'s row in the ring.
    #[inline]
    fn row_start(&self, p: usize) -> usize {
        p * (self.n() + 1)
    }

    #[inline(always)]
    fn row_mask(&self, cells: &[u8; RING], p: usize) -> u32 {
        nonzero_mask(cells, self.row_start(p), self.n())
    }

    /// Sets the player to move after a turn, or ends the game.
    #[inline(always)]
    fn finish_turn(&self, state: &mut KalahState, next: usize) {
        let next_mask = self.row_mask(&state.cells, next);
        let over = match self.game_end {
            GameEnd::Immediate => next_mask == 0 || self.row_mask(&state.cells, next ^ 1) == 0,
            GameEnd::Delayed => next_mask == 0,
        };
        if over {
            self.sweep(state);
            return;
        }
        state.to_move = next as u8;
        state.legal = next_mask;
        if state.pie_pending && next == 1 {
            state.legal |= SWAP_BIT;
        }
    }

    /// Ends the game: leftover seeds go to their owners or are set aside.
    fn sweep(&self, state: &mut KalahState) {
        let n = self.n();
        for p in 0..2 {
            let start = self.row_start(p);
            let left: u8 = state.cells[start..start + n].iter().sum();
            state.cells[start..start + n].fill(0);
            if self.leftover == Leftover::Owner {
                state.cells[start + n] += left;
            }
        }
        state.to_move = OVER;
        state.legal = 0;
        // A game can end during player 0's opening turn: no swap is pending
        // in a finished game (as `from_setup` builds it).
        state.pie_pending = false;
    }
}

impl fmt::Display for KalahRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = KalahRules::default();
        let mut opts = Vec::new();
        if self.pits != d.pits || self.seeds != d.seeds {
            opts.push(format!("pits={}", self.pits));
            opts.push(format!("seeds={}", self.seeds));
        }
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
    cells: [u8; RING],
    /// 0 or 1, or `OVER`.
    to_move: u8,
    /// Legal moves of the player to move (a cache of the board, kept in step).
    legal: u32,
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
        2 * self.n() * self.seeds()
    }

    fn start(&self) -> KalahState {
        let n = self.n();
        let mut cells = [0u8; RING];
        cells[..n].fill(self.seeds);
        cells[n + 1..2 * n + 1].fill(self.seeds);
        KalahState {
            cells,
            to_move: 0,
            legal: (1u32 << n) - 1,
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
        let ring = 2 * n + 2;
        let base = self.row_start(p);
        let own_store = base + n;
        let opp_store = self.row_start(p ^ 1) + n;
        let start = base + pit;
        let seeds = state.cells[start];
        debug_assert!(seeds > 0, "sowing an empty pit");
        state.cells[start] = 0;

        // Whole laps (2n+1 places: all but the opponent's store) in one step.
        let lap = (2 * n + 1) as u8;
        let mut rest = seeds;
        if seeds >= lap {
            let laps = seeds / lap;
            rest = seeds % lap;
            for (k, c) in state.cells[..ring].iter_mut().enumerate() {
                if k != opp_store {
                    *c += laps;
                }
            }
        }
        // The rest go one each to the next `steps` cells of the ring, the
        // opponent's store excepted; done over the whole array at once so
        // that the compiler can vectorise it and no branch depends on the seeds.
        let to_opp_store = if opp_store > start {
            opp_store - start
        } else {
            opp_store + ring - start
        };
        let steps = rest as usize + usize::from(rest as usize >= to_opp_store);
        let (start8, ring8, steps8, skip8) =
            (start as u8, ring as u8, steps as u8, opp_store as u8);
        for (k, c) in state.cells.iter_mut().enumerate() {
            let k = k as u8;
            let dist = if k > start8 {
                k - start8
            } else {
                k.wrapping_add(ring8).wrapping_sub(start8)
            };
            *c += u8::from((dist <= steps8) & (k != skip8) & (k < ring8));
        }
        let mut pos = start + steps;
        if pos >= ring {
            pos -= ring;
        }
        // With whole laps and nothing left over, the last seed fell in the origin.
        if steps == 0 {
            pos = start;
        }

        if p == 1 {
            state.pie_pending = false;
        }
        if pos == own_store {
            self.finish_turn(state, p);
            return;
        }
        if pos >= base && pos < own_store && state.cells[pos] == 1 {
            let opposite = 2 * n - pos;
            let captured = state.cells[opposite];
            if captured > 0 || self.empty_capture {
                state.cells[own_store] += captured + 1;
                state.cells[opposite] = 0;
                state.cells[pos] = 0;
            }
        }
        self.finish_turn(state, p ^ 1);
    }

    fn outcome(&self, state: &KalahState) -> Option<Outcome> {
        (state.to_move == OVER).then(|| Outcome {
            scores: self.scores(state),
            reason: EndReason::EmptyRow,
        })
    }

    #[inline]
    fn scores(&self, state: &KalahState) -> ByPlayer<u8> {
        let n = self.n();
        ByPlayer([state.cells[n], state.cells[2 * n + 1]])
    }

    fn row_seeds(&self, state: &KalahState) -> ByPlayer<u8> {
        let n = self.n();
        ByPlayer::new_with(|p| {
            let s = self.row_start(p.index());
            state.cells[s..s + n].iter().sum()
        })
    }

    fn setup(&self, state: &KalahState) -> Setup {
        let n = self.n();
        Setup {
            rows: ByPlayer::new_with(|p| {
                let s = self.row_start(p.index());
                state.cells[s..s + n].to_vec()
            }),
            stores: self.scores(state),
            to_move: self.to_move(state),
            swap_available: state.pie_pending && state.to_move != OVER,
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
        let mut cells = [0u8; RING];
        for p in Player::BOTH {
            let s = self.row_start(p.index());
            cells[s..s + n].copy_from_slice(&setup.rows[p]);
            cells[s + n] = setup.stores[p];
        }
        let mut state = KalahState {
            cells,
            to_move: OVER,
            legal: 0,
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
        // The player to move and the swap flag are hashed as data: XORed into
        // the seed they would cancel against the first pits' bytes.
        let len = 2 * self.n() + 2;
        let mut bytes = [0u8; RING + 2];
        bytes[..len].copy_from_slice(&state.cells[..len]);
        bytes[len] = state.to_move;
        bytes[len + 1] = u8::from(state.pie_pending);
        hash_bytes(&bytes[..len + 2], 0)
    }

    fn observe(&self, state: &KalahState, out: &mut [f32]) {
        let n = self.n();
        let p = if state.to_move == OVER {
            0
        } else {
            state.to_move as usize
        };
        let (own, opp) = (self.row_start(p), self.row_start(p ^ 1));
        write_observation(
            out,
            &state.cells[own..own + n],
            &state.cells[opp..opp + n],
            [state.cells[own + n], state.cells[opp + n]],
            if state.legal & SWAP_BIT != 0 {
                1.0
            } else {
                0.0
            },
            self.total_seeds(),
        );
    }
}
