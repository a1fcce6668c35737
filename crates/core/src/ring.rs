//! The ring of pits and stores that Kalah and Congkak sow around, and the
//! sowing kernel they share.
//!
//! The ring holds, in sowing order, player 0's pits, player 0's store,
//! player 1's pits and player 1's store, in a fixed array of [`RING`] bytes
//! (32 for the largest board, two SIMD registers). With `n` pits a row,
//! player `p`'s pits are `p * (n + 1) ..`, their store follows their last
//! pit, and pit `k` of the ring faces pit `2n - k`.

use crate::game::{hash_words, nonzero_bytes, write_observation};
use crate::{ByPlayer, Player, Setup, MAX_PITS};

/// Cells of the ring for the largest board.
pub(crate) const RING: usize = 2 * MAX_PITS + 2;

/// A ring of pits and stores.
pub(crate) type Cells = [u8; RING];

/// First cell of player `p`'s row.
#[inline(always)]
pub(crate) fn row_start(n: usize, p: usize) -> usize {
    p * (n + 1)
}

/// Player `p`'s store.
#[inline(always)]
pub(crate) fn store(n: usize, p: usize) -> usize {
    row_start(n, p) + n
}

/// The pit facing pit `pos` (a pit, not a store).
#[inline(always)]
pub(crate) fn opposite(n: usize, pos: usize) -> usize {
    2 * n - pos
}

/// The non-empty pits of player `p` as a bit set (bit `i`: their pit `i`).
#[inline(always)]
pub(crate) fn row_mask(cells: &Cells, n: usize, p: usize) -> u32 {
    row_masks(cells, n)[p]
}

/// Both players' [`row_mask`]s.
#[inline(always)]
pub(crate) fn row_masks(cells: &Cells, n: usize) -> [u32; 2] {
    let all = nonzero_cells(cells, n);
    [0, 1].map(|p| (all >> row_start(n, p)) & ((1 << n) - 1))
}

/// The non-empty cells of the ring of `n` pits a row as a bit set (bit
/// `k`: cell `k`).
///
/// Read as the 8-byte words that the halves of [`sow`]'s vector stores
/// hold, never across them: a load that straddles a store's halves (a row
/// starting at cell 7) is not forwarded from the store and waits for it to
/// reach the cache (Congkak reads the rows right after sowing; a Kalah move
/// does not read them at all, see [`sown_cells`]). Only the words the ring
/// uses, in a loop of as many turns: written for all four, the compiler
/// turned the four words' multiplications into vector code that emulates
/// them, three times slower.
#[inline(always)]
pub(crate) fn nonzero_cells(cells: &Cells, n: usize) -> u32 {
    let words = (2 * n + 2).div_ceil(8);
    cells
        .chunks_exact(8)
        .take(words)
        .enumerate()
        .fold(0, |mask, (i, word)| {
            let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            mask | nonzero_bytes(word) << (8 * i)
        })
}

/// Player `p`'s pits, in sowing order.
#[inline]
pub(crate) fn row(cells: &Cells, n: usize, p: usize) -> &[u8] {
    let s = row_start(n, p);
    &cells[s..s + n]
}

/// The seeds in each player's pits.
pub(crate) fn row_sums(cells: &Cells, n: usize) -> ByPlayer<u8> {
    ByPlayer::new_with(|p| row(cells, n, p.index()).iter().sum())
}

/// The two stores.
#[inline]
pub(crate) fn stores(cells: &Cells, n: usize) -> ByPlayer<u8> {
    ByPlayer([cells[store(n, 0)], cells[store(n, 1)]])
}

/// A ring holding these rows (of `n` pits each) and stores.
pub(crate) fn from_rows(rows: [&[u8]; 2], stores: [u8; 2], n: usize) -> Cells {
    let mut cells = [0u8; RING];
    for p in 0..2 {
        let s = row_start(n, p);
        cells[s..s + n].copy_from_slice(rows[p]);
        cells[s + n] = stores[p];
    }
    cells
}

/// A ring holding the rows and stores of `setup` (whose rows have `n` pits).
pub(crate) fn from_setup(setup: &Setup, n: usize) -> Cells {
    from_rows(
        [&setup.rows[Player::ZERO], &setup.rows[Player::ONE]],
        setup.stores.0,
        n,
    )
}

/// Each player's pits as a vector, for a [`Setup`].
pub(crate) fn setup_rows(cells: &Cells, n: usize) -> ByPlayer<Vec<u8>> {
    ByPlayer::new_with(|p| row(cells, n, p.index()).to_vec())
}

/// Empties both rows; with `to_owner`, each row's seeds go to its owner's
/// store, otherwise they leave the board.
#[inline]
pub(crate) fn sweep(cells: &mut Cells, n: usize, to_owner: bool) {
    for p in 0..2 {
        let start = row_start(n, p);
        let left: u8 = cells[start..start + n].iter().sum();
        cells[start..start + n].fill(0);
        if to_owner {
            cells[start + n] += left;
        }
    }
}

/// A 64-bit key of the ring and up to eight more bytes of state (who is to
/// move, flags), hashed as data after the ring: XORed into the seed they
/// would cancel against the first pits' bytes.
///
/// The value is [`crate::game::hash_bytes`] of the ring's `2n + 2` cells and the tail,
/// computed from the ring's 8-byte words with the tail put in after the
/// ring's last cell: no byte buffer to fill and copy (a call each) for a
/// key a position, which transposition tables and greedy ask for often.
#[inline]
pub(crate) fn key(cells: &Cells, n: usize, tail: &[u8]) -> u64 {
    debug_assert!(tail.len() <= 8);
    let len = 2 * n + 2;
    let total = len + tail.len();
    let tail = tail
        .iter()
        .enumerate()
        .fold(0u64, |t, (i, &b)| t | u64::from(b) << (8 * i));
    let mut words = [0u64; RING / 8 + 1];
    for (word, bytes) in words.iter_mut().zip(cells.chunks_exact(8)) {
        *word = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
    }
    // The word of the ring's last cells keeps only those, then the tail,
    // which runs on into the next word.
    let (at, shift) = (len / 8, 8 * (len % 8));
    words[at] = words[at] & ((1 << shift) - 1) | tail << shift;
    if shift > 0 {
        words[at + 1] = tail >> (64 - shift);
    }
    hash_words(words[..total.div_ceil(8)].iter().copied(), total, 0)
}

/// Writes the network input of [`crate::Game::observe`] from `mover`'s side.
pub(crate) fn observe(
    cells: &Cells,
    n: usize,
    mover: usize,
    extra: f32,
    total: usize,
    out: &mut [f32],
) {
    let (own, opp) = (row_start(n, mover), row_start(n, mover ^ 1));
    write_observation(
        out,
        &cells[own..own + n],
        &cells[opp..opp + n],
        [cells[own + n], cells[opp + n]],
        extra,
        total,
    );
}

/// The cells that [`sow`] puts a seed in when it sows `seeds` from cell
/// `start`, skipping cell `skip`, as a bit set (bit `k`: cell `k`), told
/// from the count alone: a lap or more reaches every cell but the skipped
/// one (the origin too); fewer reach the run of cells after the origin.
#[inline(always)]
pub(crate) fn sown_cells(n: usize, start: usize, skip: usize, seeds: usize) -> u32 {
    let ring = 2 * n + 2;
    let cells = (1u64 << ring) - 1;
    let skipped = !(1u64 << skip);
    if seeds > 2 * n {
        return (cells & skipped) as u32;
    }
    // The run, from the cell after the origin, wraps round the ring.
    let steps = run_length(ring, start, skip, seeds);
    let run = ((1u64 << steps) - 1) << (start + 1);
    ((run | run >> ring) & cells & skipped) as u32
}

/// How many cells after `start` the `rest` seeds left after whole laps run
/// over on a ring of `ring` cells: one a seed, and one more when the run
/// passes the skipped cell.
#[inline(always)]
fn run_length(ring: usize, start: usize, skip: usize, rest: usize) -> usize {
    let to_skip = if skip > start {
        skip - start
    } else {
        skip + ring - start
    };
    rest + usize::from(rest >= to_skip)
}

/// Lifts every seed of cell `start` and sows them one per cell from the
/// next one on, round the ring of `2n + 2` cells, passing over cell `skip`
/// (the opponent's store); `start` itself receives seeds on every lap.
/// Returns the cell of the last seed (`start` when whole laps used up the
/// seeds exactly).
///
/// # Panics
/// May panic, or sow nonsense, unless `start` holds seeds and `start` and
/// `skip` are distinct cells of the ring.
#[inline(always)]
pub(crate) fn sow(cells: &mut Cells, n: usize, start: usize, skip: usize) -> usize {
    let ring = 2 * n + 2;
    let seeds = cells[start];
    debug_assert!(seeds > 0, "sowing an empty pit");

    // Whole laps (2n+1 places: all but the skipped cell) in one step.
    let lap = (2 * n + 1) as u8;
    let (laps, rest) = if seeds >= lap {
        (seeds / lap, seeds % lap)
    } else {
        (0, seeds)
    };
    // The rest go one each to the next `steps` cells of the ring, the
    // skipped cell excepted. Emptying `start`, the laps and the rest are
    // done in one pass over the whole array, so that the compiler
    // vectorises it and no branch depends on the seeds. One pass, not a
    // byte store to `start` first: a vector load right after a byte store
    // to the same bytes waits for the store (no store forwarding), which
    // cost a third of a move.
    let steps = run_length(ring, start, skip, usize::from(rest));
    let (start8, ring8, steps8, skip8) = (start as u8, ring as u8, steps as u8, skip as u8);
    for (k, c) in cells.iter_mut().enumerate() {
        let k = k as u8;
        let dist = if k > start8 {
            k - start8
        } else {
            k.wrapping_add(ring8).wrapping_sub(start8)
        };
        let sown = (k != skip8) & (k < ring8);
        let kept = if k == start8 { 0 } else { *c };
        *c = kept + u8::from(sown) * laps + u8::from((dist <= steps8) & sown);
    }
    let mut pos = start + steps;
    if pos >= ring {
        pos -= ring;
    }
    // With whole laps and nothing left over, the last seed fell in the origin.
    if steps == 0 {
        pos = start;
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_hashes_the_ring_and_its_tail_as_bytes() {
        for n in 1..=MAX_PITS {
            let mut cells = [0u8; RING];
            for (k, c) in cells.iter_mut().enumerate() {
                // Cells past the ring too: the key must not read them.
                *c = (k * 37 + n) as u8;
            }
            for tail in [
                &[][..],
                &[1][..],
                &[0, 1][..],
                &[1, 2, 3, 4, 5, 6, 7, 8][..],
            ] {
                let len = 2 * n + 2;
                let bytes: Vec<u8> = cells[..len].iter().chain(tail).copied().collect();
                let expected = crate::game::hash_bytes(&bytes, 0);
                assert_eq!(key(&cells, n, tail), expected, "{n} pits, tail {tail:?}");
            }
        }
    }

    #[test]
    fn row_masks_mark_the_non_empty_pits_of_each_row() {
        for n in 1..=MAX_PITS {
            let mut cells = [0u8; RING];
            for (k, c) in cells.iter_mut().enumerate() {
                // Empty, small and high-bit seed counts, in every word.
                *c = [0, 1, 0, 128, 255, 0, 7][(k * 5 + n) % 7];
            }
            let naive = |p: usize| {
                (0..n).fold(0u32, |m, i| {
                    m | u32::from(cells[row_start(n, p) + i] != 0) << i
                })
            };
            assert_eq!(row_masks(&cells, n), [naive(0), naive(1)], "{n} pits");
            assert_eq!(row_mask(&cells, n, 1), naive(1), "{n} pits");
        }
    }
}
