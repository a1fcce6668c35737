//! The [`Game`] trait every rule set implements, and what a finished game yields.

use std::fmt;
use std::hash::Hash;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::{ByPlayer, IllegalMove, Move, MoveSet, Player, PositionError, Setup, MAX_PITS};

/// Why a game ended.
///
/// New games will bring new reasons, so matches outside this crate need a
/// wildcard arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EndReason {
    /// Kalah and Congkak: a row is empty (or, with `game_end=delayed`, the
    /// mover's row).
    EmptyRow,
    /// Oware: a player captured more than half the seeds, or both exactly half.
    Majority,
    /// Oware: a position repeated since the last capture.
    Repetition,
    /// Oware: the player to move had no legal move (nothing to sow, or cannot feed).
    NoLegalMove,
    /// Oware: the game reached `max_plies` moves.
    MaxPlies,
    /// Multi-round Congkak: after a round, a player could not fill a single
    /// hole for the next one.
    Ruin,
    /// Multi-round Congkak: the game played `max_rounds` rounds.
    MaxRounds,
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EndReason::EmptyRow => "empty_row",
            EndReason::Majority => "majority",
            EndReason::Repetition => "repetition",
            EndReason::NoLegalMove => "no_legal_move",
            EndReason::MaxPlies => "max_plies",
            EndReason::Ruin => "ruin",
            EndReason::MaxRounds => "max_rounds",
        })
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    /// Seeds credited to each player (store or captures, plus leftovers).
    pub scores: ByPlayer<u8>,
    /// Why the game ended.
    pub reason: EndReason,
}

impl Outcome {
    /// The winner, or `None` for a draw.
    pub fn winner(&self) -> Option<Player> {
        match self.scores[Player::ZERO].cmp(&self.scores[Player::ONE]) {
            std::cmp::Ordering::Greater => Some(Player::ZERO),
            std::cmp::Ordering::Less => Some(Player::ONE),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// `score0 - score1`: positive when player 0 won.
    pub fn margin(&self) -> i32 {
        i32::from(self.scores[Player::ZERO]) - i32::from(self.scores[Player::ONE])
    }

    /// The margin from `player`'s side.
    pub fn margin_for(&self, player: Player) -> i32 {
        if player == Player::ZERO {
            self.margin()
        } else {
            -self.margin()
        }
    }
}

/// A two-player mancala rule set. The value implementing it holds the rules
/// (pit count, options); the state holds one position.
///
/// The player to move is part of the state: after a move, ask
/// [`Game::to_move`] again, since a Kalah move can earn an extra turn.
///
/// A game displays as its canonical game spec (`kalah:pits=4,seeds=3`),
/// which parses back to the same rules; two games are equal when their
/// rules are (agents that keep what they weighed check it).
pub trait Game: Clone + PartialEq + fmt::Debug + fmt::Display + Send + Sync + 'static {
    /// One position, with everything that decides the rest of the game.
    type State: Clone + fmt::Debug + PartialEq + Eq + Hash + Send + Sync;

    /// The game's name as written in a game spec (`kalah`, `oware`, `congkak`).
    fn name(&self) -> &'static str;

    /// Pits in each row.
    fn pits(&self) -> usize;

    /// Seeds on the board in all at the start.
    fn total_seeds(&self) -> usize;

    /// The starting position.
    fn start(&self) -> Self::State;

    /// The player to move, or `None` once the game is over.
    fn to_move(&self, state: &Self::State) -> Option<Player>;

    /// Whether the game is over.
    #[inline]
    fn is_over(&self, state: &Self::State) -> bool {
        self.to_move(state).is_none()
    }

    /// The moves the player to move may play; empty exactly when the game is over.
    fn legal_moves(&self, state: &Self::State) -> MoveSet;

    /// Plays `mv` without checking it: the hot path for search and playouts.
    ///
    /// # Panics
    /// May panic, or leave a meaningless state, if `mv` is not legal.
    fn play_unchecked(&self, state: &mut Self::State, mv: Move);

    /// Plays `mv` if it is legal.
    ///
    /// # Errors
    /// [`IllegalMove`] naming the move and the legal ones; the state is unchanged.
    fn try_play(&self, state: &mut Self::State, mv: Move) -> Result<(), IllegalMove> {
        let legal = self.legal_moves(state);
        if !legal.contains(mv) {
            return Err(IllegalMove {
                mv,
                legal,
                game_over: legal.is_empty(),
            });
        }
        self.play_unchecked(state, mv);
        Ok(())
    }

    /// What `mv` adds to the mover's store (or captures), told without
    /// playing it, for a move that ends the turn and leaves the game going;
    /// `None` when that cannot be told at a glance (the move may earn
    /// another turn or end the game, or these rules have no shortcut): play
    /// it to know. A shortcut for agents that weigh every move by its gain
    /// (greedy); a game without one answers `None`.
    fn store_gain(&self, _state: &Self::State, _mv: Move) -> Option<i32> {
        None
    }

    /// [`Game::store_gain`] for every legal move at once: the moves whose
    /// gain is told, with their gains written to `gains` by action index
    /// (the other entries may be written too: read only the told ones).
    /// The same answers; a game may tell them faster together (Kalah
    /// weighs its pits side by side, without a branch a move).
    fn store_gains(&self, state: &Self::State, gains: &mut [i32; MAX_PITS + 1]) -> MoveSet {
        store_gains_by_move(self, state, gains)
    }

    /// The result, once the game is over.
    fn outcome(&self, state: &Self::State) -> Option<Outcome>;

    /// Seeds each player holds now (store or captures), leftovers not counted.
    fn scores(&self, state: &Self::State) -> ByPlayer<u8>;

    /// Seeds in each player's row now.
    fn row_seeds(&self, state: &Self::State) -> ByPlayer<u8>;

    /// The position as plain data: rows, stores, player to move.
    fn setup(&self, state: &Self::State) -> Setup;

    /// Builds a position from plain data, checking it against these rules.
    ///
    /// # Errors
    /// [`PositionError`] saying what does not fit (pit count, seed total, ...).
    // Named after shakmaty's `FromSetup`; the rules value is what validates.
    #[allow(clippy::wrong_self_convention)]
    fn from_setup(&self, setup: &Setup) -> Result<Self::State, PositionError>;

    /// Reads a position written in the notation of [`crate::notation`] and
    /// checks it against these rules.
    ///
    /// # Errors
    /// [`PositionError`] for text that cannot be read or a position that
    /// does not fit the rules.
    fn parse_position(&self, text: &str) -> Result<Self::State, PositionError> {
        self.from_setup(&text.parse::<Setup>()?)
    }

    /// A 64-bit key of the position for transposition tables: states with
    /// the same future (board, stores, player to move, and in Oware the
    /// moves played and the boards seen since the last capture) get the same
    /// key, and different ones different keys but for hash collisions.
    fn key(&self, state: &Self::State) -> u64;

    /// Length of [`Game::observe`]'s vector: `2 * pits + 3` (multi-round
    /// Congkak adds `2 * pits`).
    fn observation_len(&self) -> usize {
        2 * self.pits() + 3
    }

    /// The most moves a game of these rules can last from its start: a
    /// bound, proved in `docs/RULES.md` ("How long a game lasts"), that no
    /// game exceeds, for frameworks that size buffers by it (OpenSpiel's
    /// `max_game_length`). Oware's is its `max_plies`.
    fn max_game_length(&self) -> u64;

    /// Size of a policy vector: one entry per pit, then one for the swap.
    fn num_actions(&self) -> usize {
        self.pits() + 1
    }

    /// Writes the network input for `state` from the mover's point of view
    /// (player 0's once the game is over) into `out`, of length
    /// [`Game::observation_len`]:
    ///
    /// `[own pits 0..pits, opponent pits 0..pits, own store, opponent store, extra]`,
    /// every seed count divided by the total seeds; `extra` is 1 when the
    /// mover may swap (Kalah with the pie rule) and, in Oware, the fraction of
    /// `max_plies` already played. In multi-round Congkak `extra` is the
    /// fraction of `max_rounds` already played, and `2 * pits` more entries
    /// follow: 1 for each burnt hole (own holes, then the opponent's), else 0.
    ///
    /// # Panics
    /// If `out` is shorter than [`Game::observation_len`].
    fn observe(&self, state: &Self::State, out: &mut [f32]);
}

/// Plays uniformly random legal moves until the game ends; returns the outcome.
pub fn random_playout<G: Game, R: Rng + ?Sized>(
    game: &G,
    state: &mut G::State,
    rng: &mut R,
) -> Outcome {
    loop {
        let legal = game.legal_moves(state);
        if legal.is_empty() {
            break;
        }
        let pick = if legal.len() == 1 {
            0
        } else {
            rng.random_range(0..legal.len() as u32) as usize
        };
        game.play_unchecked(state, legal.nth(pick));
    }
    game.outcome(state)
        .expect("a game with no legal move is over")
}

/// The most moves a round of a sowing game can last, where every move
/// either puts a seed in a store or only moves seeds of the mover's own row
/// towards their store (Kalah, and Congkak's rounds), with `seeds` on a
/// board of `pits` pits a row.
///
/// Stores never lose seeds, so at most `seeds` moves put one in a store.
/// Between two such moves, every move moves seeds of the mover's row
/// forward within the row and leaves the other row alone: the sum over
/// both rows of each seed's distance from its row's first pit grows by at
/// least one a move and never exceeds `seeds * (pits - 1)`. So there are at
/// most `seeds * (pits - 1)` of them between two moves that score, before
/// the first and after the last.
pub(crate) fn sowing_game_bound(pits: usize, seeds: usize) -> u64 {
    let (pits, seeds) = (pits as u64, seeds as u64);
    seeds + (seeds + 1) * seeds * pits.saturating_sub(1)
}

/// Fills `out` from a mover-relative view of the board, as
/// [`Game::observe`] lays it out: shared by the games.
#[inline]
pub(crate) fn write_observation(
    out: &mut [f32],
    own: &[u8],
    opp: &[u8],
    stores: [u8; 2],
    extra: f32,
    total: usize,
) {
    let scale = 1.0 / total.max(1) as f32;
    // The usual rows with their length known to the compiler: the
    // conversions are then a few vector instructions, not a loop a pit at
    // a time (a batched environment writes an observation a game a step).
    match own.len() {
        4 => fill_observation(out, &own[..4], &opp[..4], stores, extra, scale),
        5 => fill_observation(out, &own[..5], &opp[..5], stores, extra, scale),
        6 => fill_observation(out, &own[..6], &opp[..6], stores, extra, scale),
        7 => fill_observation(out, &own[..7], &opp[..7], stores, extra, scale),
        _ => fill_observation(out, own, opp, stores, extra, scale),
    }
}

#[inline(always)]
fn fill_observation(
    out: &mut [f32],
    own: &[u8],
    opp: &[u8],
    stores: [u8; 2],
    extra: f32,
    scale: f32,
) {
    let n = own.len();
    let out = &mut out[..2 * n + 3];
    for (o, &s) in out[..n].iter_mut().zip(own) {
        *o = f32::from(s) * scale;
    }
    for (o, &s) in out[n..2 * n].iter_mut().zip(opp) {
        *o = f32::from(s) * scale;
    }
    out[2 * n] = f32::from(stores[0]) * scale;
    out[2 * n + 1] = f32::from(stores[1]) * scale;
    out[2 * n + 2] = extra;
}

/// A fast 64-bit hash of a few bytes (multiply-xorshift per 8-byte word).
/// The seed goes through a full avalanche first, so a structured seed (a
/// chained hash, a small number) cannot cancel against the data.
#[inline]
pub(crate) fn hash_bytes(bytes: &[u8], seed: u64) -> u64 {
    let words = bytes.chunks(8).map(|chunk| {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        u64::from_le_bytes(word)
    });
    hash_words(words, bytes.len(), seed)
}

/// [`hash_bytes`] of `len` bytes given as little-endian 8-byte words (the
/// last one zero-padded), for callers that have the words at hand.
#[inline]
pub(crate) fn hash_words(words: impl IntoIterator<Item = u64>, len: usize, seed: u64) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = avalanche(seed.wrapping_add(K));
    for word in words {
        h = (h ^ word).wrapping_mul(K);
        h ^= h >> 29;
    }
    avalanche(h ^ len as u64)
}

/// The splitmix64 finaliser: every input bit affects every output bit.
#[inline]
fn avalanche(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The non-empty cells of `cells[start..start + len]` as a bit set, read
/// eight bytes at a time.
///
/// # Panics
/// Unless `cells` has 16 bytes from `start` on (8 when `len <= 8`).
#[inline(always)]
pub(crate) fn nonzero_mask(cells: &[u8], start: usize, len: usize) -> u32 {
    let word = |at: usize, len: usize| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&cells[at..at + 8]);
        let w = u64::from_le_bytes(bytes);
        if len >= 8 {
            w
        } else {
            w & ((1u64 << (8 * len)) - 1)
        }
    };
    let mut mask = nonzero_bytes(word(start, len));
    if len > 8 {
        mask |= nonzero_bytes(word(start + 8, len - 8)) << 8;
    }
    mask
}

/// Bit `k` set for each non-zero byte `k` of `w`.
#[inline(always)]
pub(crate) fn nonzero_bytes(w: u64) -> u32 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte's high bit ends up set when the byte is non-zero.
    let high = ((w & LOW7).wrapping_add(LOW7) | w) & HIGH;
    // Gather the eight high bits into the top byte, byte k to bit k.
    ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// [`Game::store_gains`] asked of [`Game::store_gain`] move by move.
pub fn store_gains_by_move<G: Game>(
    game: &G,
    state: &G::State,
    gains: &mut [i32; MAX_PITS + 1],
) -> MoveSet {
    let mut told = MoveSet::default();
    for mv in game.legal_moves(state) {
        if let Some(gain) = game.store_gain(state, mv) {
            gains[mv.action_index(game.pits())] = gain;
            told.insert(mv);
        }
    }
    told
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonzero_mask_reads_any_row() {
        let mut cells = [0u8; 32];
        for (i, c) in cells.iter_mut().enumerate() {
            *c = if i % 3 == 0 {
                0
            } else {
                (i * 7 % 200) as u8 + 1
            };
        }
        for start in 0..16 {
            for len in 1..=15 {
                let expected =
                    (0..len).fold(0u32, |m, k| m | (u32::from(cells[start + k] != 0) << k));
                assert_eq!(
                    nonzero_mask(&cells, start, len),
                    expected,
                    "start {start} len {len}"
                );
            }
        }
        assert_eq!(nonzero_bytes(0x8000_0000_0000_0100), 0b1000_0010);
    }
}
