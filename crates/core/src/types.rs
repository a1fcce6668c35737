//! Small value types shared by every game: players, moves and move sets.

use std::fmt;
use std::ops::{Index, IndexMut};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{MoveParseError, MAX_PITS};

/// One of the two players. Player 0 moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub struct Player(u8);

impl Player {
    /// The player who moves first.
    pub const ZERO: Player = Player(0);
    /// The player who moves second.
    pub const ONE: Player = Player(1);
    /// Both players, in seat order.
    pub const BOTH: [Player; 2] = [Player::ZERO, Player::ONE];

    /// The player with this seat number.
    ///
    /// # Panics
    /// If `index` is not 0 or 1.
    pub fn new(index: usize) -> Player {
        assert!(index < 2, "a player is 0 or 1, not {index}");
        Player(index as u8)
    }

    /// The seat number, 0 or 1.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The other player.
    #[inline]
    #[must_use]
    pub fn opponent(self) -> Player {
        Player(self.0 ^ 1)
    }
}

impl From<Player> for u8 {
    fn from(p: Player) -> u8 {
        p.0
    }
}

impl TryFrom<u8> for Player {
    type Error = String;
    fn try_from(v: u8) -> Result<Player, String> {
        if v < 2 {
            Ok(Player(v))
        } else {
            Err(format!("a player is 0 or 1, not {v}"))
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A value for each player, indexed by [`Player`] (shakmaty's `ByColor`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ByPlayer<T>(pub [T; 2]);

impl<T> ByPlayer<T> {
    /// Builds the pair by calling `f` for player 0, then player 1.
    pub fn new_with(mut f: impl FnMut(Player) -> T) -> ByPlayer<T> {
        ByPlayer([f(Player::ZERO), f(Player::ONE)])
    }

    /// Applies `f` to both values.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByPlayer<U> {
        let [a, b] = self.0;
        ByPlayer([f(a), f(b)])
    }

    /// The two values with the players exchanged.
    #[must_use]
    pub fn swapped(self) -> ByPlayer<T> {
        let [a, b] = self.0;
        ByPlayer([b, a])
    }
}

impl<T> Index<Player> for ByPlayer<T> {
    type Output = T;
    #[inline]
    fn index(&self, p: Player) -> &T {
        &self.0[p.index()]
    }
}

impl<T> IndexMut<Player> for ByPlayer<T> {
    #[inline]
    fn index_mut(&mut self, p: Player) -> &mut T {
        &mut self.0[p.index()]
    }
}

/// A move: sow one of the mover's pits (index `0..pits` in sowing order), or
/// take the pie rule's swap.
///
/// People write pits from 1: `Move::Pit(0)` displays as `1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Move {
    /// Sow the mover's pit with this 0-based index.
    Pit(u8),
    /// The pie rule: mirror the position (Kalah with `pie=true`).
    Swap,
}

impl Move {
    /// The index of this move in a policy vector of `pits + 1` entries:
    /// pits first, then the swap.
    #[inline]
    pub fn action_index(self, pits: usize) -> usize {
        match self {
            Move::Pit(i) => i as usize,
            Move::Swap => pits,
        }
    }

    /// The move at `index` of a policy vector of `pits + 1` entries.
    pub fn from_action_index(index: usize, pits: usize) -> Move {
        if index >= pits {
            Move::Swap
        } else {
            Move::Pit(index as u8)
        }
    }

    /// Parses a move as people write it: a pit number from 1, or `swap`.
    ///
    /// # Errors
    /// [`MoveParseError`] for a text that is neither a pit number from 1
    /// nor `swap`.
    pub fn parse_human(text: &str) -> Result<Move, MoveParseError> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("swap") {
            return Ok(Move::Swap);
        }
        // Digits only: `usize`'s parser also takes a leading `+`, and
        // `+3` from an engine or a file is a mistake, not pit 3.
        let digits = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        match t.parse::<usize>() {
            Ok(n) if digits && (1..=MAX_PITS).contains(&n) => Ok(Move::Pit((n - 1) as u8)),
            _ => Err(MoveParseError {
                text: t.to_string(),
            }),
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Pit(i) => write!(f, "{}", *i as usize + 1),
            Move::Swap => f.write_str("swap"),
        }
    }
}

impl FromStr for Move {
    type Err = MoveParseError;
    fn from_str(s: &str) -> Result<Move, MoveParseError> {
        Move::parse_human(s)
    }
}

impl Serialize for Move {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Move {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Move, D::Error> {
        let text = String::deserialize(d)?;
        Move::parse_human(&text).map_err(serde::de::Error::custom)
    }
}

/// A set of moves as a bit set: bit `i` is `Move::Pit(i)`, bit 31 the swap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MoveSet(u32);

const SWAP_BIT: u32 = 1 << 31;

/// `NTH_BIT[m][k]`: the position of the `k`-th set bit of the byte `m`, or 8.
static NTH_BIT: [[u8; 8]; 256] = {
    let mut table = [[8u8; 8]; 256];
    let mut m = 0;
    while m < 256 {
        let mut k = 0;
        let mut bit = 0;
        while bit < 8 {
            if m & (1 << bit) != 0 {
                table[m][k] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        m += 1;
    }
    table
};

impl MoveSet {
    /// No moves.
    pub const EMPTY: MoveSet = MoveSet(0);

    /// The set with these raw bits (bit `i` = pit `i`, bit 31 = swap).
    #[inline]
    pub const fn from_bits(bits: u32) -> MoveSet {
        MoveSet(bits)
    }

    /// The raw bits.
    #[inline]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The number of moves.
    #[inline]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether `mv` is in the set.
    #[inline]
    pub fn contains(self, mv: Move) -> bool {
        self.0 & Self::bit(mv) != 0
    }

    /// Adds `mv`.
    #[inline]
    pub fn insert(&mut self, mv: Move) {
        self.0 |= Self::bit(mv);
    }

    /// The `n`-th move in iteration order (pits ascending, then swap).
    ///
    /// # Panics
    /// If `n >= self.len()`.
    #[inline]
    pub fn nth(self, n: usize) -> Move {
        if self.0 < 256 && n < 8 {
            // Boards of up to 8 pits: one table look-up instead of a loop.
            let pit = NTH_BIT[self.0 as usize][n];
            assert!(pit < 8, "move index {n} out of range for {self:?}");
            return Move::Pit(pit);
        }
        let mut bits = self.0;
        for _ in 0..n {
            bits &= bits - 1;
        }
        assert!(bits != 0, "move index {n} out of range for {self:?}");
        Self::move_of_bit(bits.trailing_zeros())
    }

    #[inline]
    fn bit(mv: Move) -> u32 {
        match mv {
            Move::Pit(i) => 1 << i,
            Move::Swap => SWAP_BIT,
        }
    }

    #[inline]
    fn move_of_bit(bit: u32) -> Move {
        if bit == 31 {
            Move::Swap
        } else {
            Move::Pit(bit as u8)
        }
    }

    /// The moves as people write them, e.g. `1 2 5 swap`.
    pub fn to_human(self) -> String {
        self.into_iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl IntoIterator for MoveSet {
    type Item = Move;
    type IntoIter = MoveIter;
    fn into_iter(self) -> MoveIter {
        MoveIter(self.0)
    }
}

/// Iterator over a [`MoveSet`], pits ascending, then the swap.
#[derive(Clone, Debug)]
pub struct MoveIter(u32);

impl Iterator for MoveIter {
    type Item = Move;
    #[inline]
    fn next(&mut self) -> Option<Move> {
        if self.0 == 0 {
            return None;
        }
        let bit = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(MoveSet::move_of_bit(bit))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for MoveIter {}

impl FromIterator<Move> for MoveSet {
    fn from_iter<I: IntoIterator<Item = Move>>(iter: I) -> MoveSet {
        let mut set = MoveSet::EMPTY;
        for m in iter {
            set.insert(m);
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_set_iterates_pits_then_swap() {
        let set: MoveSet = [Move::Swap, Move::Pit(3), Move::Pit(0)]
            .into_iter()
            .collect();
        assert_eq!(
            set.into_iter().collect::<Vec<_>>(),
            vec![Move::Pit(0), Move::Pit(3), Move::Swap]
        );
        assert_eq!(set.len(), 3);
        assert_eq!(set.nth(1), Move::Pit(3));
        assert_eq!(set.nth(2), Move::Swap);
        assert_eq!(set.to_human(), "1 4 swap");
    }

    #[test]
    fn human_moves_count_from_one() {
        assert_eq!(Move::parse_human("1"), Ok(Move::Pit(0)));
        assert_eq!(Move::parse_human(" SWAP "), Ok(Move::Swap));
        assert!(Move::parse_human("0").is_err());
        assert!(Move::parse_human("x").is_err());
        assert_eq!(Move::Pit(5).to_string(), "6");
        let e = Move::parse_human(&"7".repeat(100_000))
            .unwrap_err()
            .to_string();
        assert!(e.len() < 200 && e.contains("(100000 bytes)"), "{e}");
    }

    #[test]
    fn a_pit_number_is_plain_digits_without_a_sign() {
        // `usize`'s parser takes a leading `+`; a move written so is a
        // typo or an engine's bug, not pit 3.
        for text in ["+3", "-3", "+swap", "3.0", "3e0", "٣", " +1 "] {
            assert!(Move::parse_human(text).is_err(), "{text}");
        }
        assert_eq!(Move::parse_human("03"), Ok(Move::Pit(2)));
        assert_eq!(" 3 ".parse::<Move>(), Ok(Move::Pit(2)));
    }
}
