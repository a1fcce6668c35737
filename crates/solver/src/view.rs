//! A position as the solver sees it: the two rows from the mover's side
//! and the pending swap, without the stores.
//!
//! What is still to be won depends only on the seeds in the pits, who moves
//! and whether a swap is pending: a position's value is the stores' margin
//! plus the margin still to come, and only the second part is searched and
//! tabled. Seen from the mover's side (Kalah is the same game mirrored), a
//! position and its mirror image share one entry.

use mancala_core::MAX_PITS;

use crate::table::Key;

/// The rows of a position from the mover's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View {
    /// The mover's pits then the opponent's, each in sowing order.
    pub cells: [u8; 2 * MAX_PITS],
    /// Pits per row.
    pub n: usize,
    /// The pie rule's swap: [`NO_SWAP`], [`SWAP_NOW`] (the mover, player 1,
    /// may swap) or [`SWAP_NEXT`] (player 0 is in the opening turn, and the
    /// opponent will be offered it). The last two are different games on
    /// the same pits, so the key must tell them apart.
    pub swap: u8,
    /// The mover's store minus the opponent's, while a swap is pending (0
    /// otherwise). The swap exchanges the stores, so only then does what is
    /// still to come depend on them.
    pub margin: i16,
}

impl View {
    /// The view of a position whose mover's row is `own` and opponent's
    /// `theirs` (each in sowing order), with `swap` pending ([`NO_SWAP`],
    /// [`SWAP_NOW`] or [`SWAP_NEXT`]) and `margin`, the mover's stores'
    /// margin while a swap is pending and 0 otherwise (see [`View::margin`]).
    #[inline]
    pub fn from_rows(own: &[u8], theirs: &[u8], swap: u8, margin: i16) -> View {
        let n = own.len();
        let mut cells = [0u8; 2 * MAX_PITS];
        cells[..n].copy_from_slice(own);
        cells[n..2 * n].copy_from_slice(theirs);
        View {
            cells,
            n,
            swap,
            margin,
        }
    }

    /// The cells in use: the mover's row, then the opponent's.
    #[inline]
    pub fn board(&self) -> &[u8] {
        &self.cells[..2 * self.n]
    }

    /// Seeds in the pits.
    #[inline]
    pub fn seeds(&self) -> i32 {
        self.board().iter().map(|&s| i32::from(s)).sum()
    }

    /// How far the margin still to come can go either way: the seeds in
    /// the pits, and twice the stores' margin while a swap may reverse it.
    #[inline]
    pub fn reach(&self) -> i32 {
        self.seeds() + 2 * i32::from(self.margin).abs()
    }

    /// The table key: the cells packed `bits` bits each when they fit in
    /// the 96 bits a table slot keeps (no swap pending), else a hash of
    /// them, the swap and the margin.
    #[inline]
    pub fn key(&self, bits: u32) -> Key {
        match crate::table::packed_key(self.board(), bits) {
            Some(key) if self.swap == NO_SWAP => key,
            _ => [
                self.hash(0x51_7CC1_B727_220A),
                self.hash(0x2545_F491_4F6C_DD1D),
            ],
        }
    }

    fn hash(&self, seed: u64) -> u64 {
        const K: u64 = 0x9E37_79B9_7F4A_7C15;
        // Every word goes through its own multiply, the swap and margin as
        // one more word: XORing them into the seed instead would let them
        // cancel against the board's bytes.
        let mut h = seed;
        let mut mix = |word: u64| {
            h = (h ^ word).wrapping_mul(K);
            h ^= h >> 31;
        };
        for chunk in self.board().chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            mix(u64::from_le_bytes(word));
        }
        mix(u64::from(self.swap) | u64::from(self.margin as u16) << 8 | 1 << 40);
        h ^= h >> 33;
        h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^ (h >> 33)
    }
}

/// No swap pending.
pub const NO_SWAP: u8 = 0;
/// The mover may swap now.
pub const SWAP_NOW: u8 = 1;
/// The opponent will be offered the swap.
pub const SWAP_NEXT: u8 = 2;

/// Bits that hold any pit's count on a board of `total` seeds.
pub(crate) fn bits_for(total: usize) -> u32 {
    usize::BITS - total.leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ExactGame;
    use mancala_core::{Game, KalahRules, Player};

    #[test]
    fn mirrored_positions_share_a_key_and_different_ones_do_not() {
        let rules = KalahRules::default();
        let bits = bits_for(rules.total_seeds());
        let a = rules.position_unchecked(
            [&[1, 2, 3, 4, 5, 6], &[6, 0, 4, 3, 2, 1]],
            [5, 11],
            Player::ZERO,
        );
        let b = rules.position_unchecked(
            [&[6, 0, 4, 3, 2, 1], &[1, 2, 3, 4, 5, 6]],
            [0, 0],
            Player::ONE,
        );
        assert_eq!(
            rules.view(&a, Player::ZERO).key(bits),
            rules.view(&b, Player::ONE).key(bits)
        );
        let c = rules.position_unchecked(
            [&[1, 2, 3, 4, 5, 6], &[6, 0, 4, 3, 1, 2]],
            [5, 11],
            Player::ZERO,
        );
        assert_ne!(
            rules.view(&a, Player::ZERO).key(bits),
            rules.view(&c, Player::ZERO).key(bits)
        );
        assert_eq!(rules.view(&a, Player::ZERO).seeds(), 37);
    }

    #[test]
    fn swap_positions_differing_in_margin_and_board_do_not_collide() {
        // An extra turn moves a seed from a pit to the store: margin and
        // board change together, which an XOR-folded hash cancels out.
        let mut rules = KalahRules::new(2, 1).unwrap();
        rules.pie = true;
        let start = rules.start();
        let mut after = start;
        rules.play_unchecked(&mut after, mancala_core::Move::Pit(1));
        let bits = bits_for(rules.total_seeds());
        let a = rules.view(&start, Player::ZERO);
        let b = rules.view(&after, Player::ZERO);
        assert_eq!((a.swap, b.swap, b.margin), (SWAP_NEXT, SWAP_NEXT, 1));
        assert_ne!(a.key(bits), b.key(bits));
    }
}
