//! The board size every game has: `pits` per row and `seeds` per pit, read
//! from a spec, checked against the board representation and written back.
//! One copy for all games, so that they accept and reject the same sizes
//! with the same messages.

use crate::spec::{bad_value, check_board, Spec};
use crate::{SpecError, MAX_PITS, MAX_SEEDS};

/// The spec keys of a board size.
pub(crate) const SIZE_KEYS: [&str; 2] = ["pits", "seeds"];

/// Pits per row and seeds per pit at the start, known to fit a board
/// (`1..=MAX_PITS` pits, at least one seed, at most `MAX_SEEDS` in all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BoardSize {
    pits: u8,
    seeds: u8,
}

impl BoardSize {
    /// A size known to be valid, for a game's defaults.
    pub(crate) const fn new_const(pits: u8, seeds: u8) -> BoardSize {
        assert!(pits >= 1 && pits as usize <= MAX_PITS && seeds >= 1);
        assert!(2 * pits as usize * seeds as usize <= MAX_SEEDS);
        BoardSize { pits, seeds }
    }

    /// Checks a size for the game `name` (named in the error).
    ///
    /// # Errors
    /// [`SpecError`] when `pits` is not in `1..=15`, `seeds` is 0, or the
    /// board holds more than 255 seeds.
    pub(crate) fn new(name: &str, pits: usize, seeds: usize) -> Result<BoardSize, SpecError> {
        if !(1..=MAX_PITS).contains(&pits) {
            return Err(bad_value(
                "pits",
                &pits.to_string(),
                &format!("a whole number from 1 to {MAX_PITS}"),
            ));
        }
        if seeds == 0 {
            return Err(bad_value("seeds", "0", "at least 1"));
        }
        check_board(name, pits, seeds)?;
        Ok(BoardSize {
            pits: pits as u8,
            seeds: seeds as u8,
        })
    }

    /// The size a spec of the game `name` asks for: its `pits` and `seeds`
    /// keys, each falling back to `default`'s.
    ///
    /// # Errors
    /// [`SpecError`] for a value out of range or a board too big.
    pub(crate) fn from_spec(
        name: &str,
        spec: &Spec,
        default: BoardSize,
    ) -> Result<BoardSize, SpecError> {
        let pits = spec
            .get_int("pits", 1..=MAX_PITS as u64)?
            .map_or(default.pits(), |p| p as usize);
        let seeds = spec
            .get_int("seeds", 1..=MAX_SEEDS as u64)?
            .map_or(default.seeds(), |s| s as usize);
        BoardSize::new(name, pits, seeds)
    }

    /// Adds `pits=P` and `seeds=S` to a canonical spec's options, both
    /// together, when either differs from `default`.
    pub(crate) fn push_options(self, default: BoardSize, options: &mut Vec<String>) {
        if self != default {
            options.push(format!("pits={}", self.pits));
            options.push(format!("seeds={}", self.seeds));
        }
    }

    /// Pits per row.
    #[inline(always)]
    pub(crate) fn pits(self) -> usize {
        self.pits as usize
    }

    /// Seeds per pit at the start.
    #[inline(always)]
    pub(crate) fn seeds(self) -> usize {
        self.seeds as usize
    }

    /// Seeds per pit, as stored on a board.
    #[inline(always)]
    pub(crate) fn seeds_u8(self) -> u8 {
        self.seeds
    }

    /// Seeds on the board at the start: two rows of `pits` pits of `seeds`.
    #[inline]
    pub(crate) fn total(self) -> usize {
        2 * self.pits() * self.seeds()
    }
}
