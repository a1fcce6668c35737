//! Endgame databases: the exact value of every position with at most `k`
//! seeds in the pits, for one Kalah rule set and pit count.
//!
//! A database holds, for each way of placing `s <= k` seeds in the 2n pits
//! (the mover's row first), the margin the mover still gains with perfect
//! play. It does not depend on the stores or on the seeds per pit at the
//! start, so one database serves Kalah(n, m) for every m.
//!
//! It is built level by level, `s = 0, 1, ..., k`. A move either puts
//! seeds in a store (the child has fewer seeds, its level is already built)
//! or moves seeds rightwards inside the mover's own row (same level, and
//! since that cannot go on for ever the recursion ends). Each level is
//! filled in parallel; two threads may work out the same entry, and then
//! write the same value.
//!
//! Positions are numbered by the combinatorial number system: the index of
//! a placement is how many placements of the same seeds come before it in
//! lexicographic order, so the table has no holes.

use std::sync::atomic::{AtomicI8, Ordering};
use std::time::{Duration, Instant};

use mancala_core::{Game, KalahRules, Player, MAX_PITS};
use rayon::prelude::*;

use crate::view::View;

const UNKNOWN: i8 = i8::MIN;

/// The largest database levels this module builds (values fit an `i8`).
pub const MAX_DB_SEEDS: usize = 120;

/// A built database.
pub struct Endgame {
    rules: KalahRules,
    /// Seeds in the fullest level.
    max_seeds: usize,
    /// Cells: 2n.
    cells: usize,
    /// Placements of `r` seeds in `m` cells at `r * (cells + 1) + m`: one
    /// flat table, read on every database look-up.
    count: Vec<u64>,
    /// First index of each level.
    offset: Vec<u64>,
    values: Vec<AtomicI8>,
    build_time: Duration,
}

impl std::fmt::Debug for Endgame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Endgame({} pits, up to {} seeds, {} positions)",
            self.cells / 2,
            self.max_seeds,
            self.values.len()
        )
    }
}

/// Positions with at most `max_seeds` seeds on a board of `pits` pits a row,
/// or `None` when the count does not fit a `u64`.
pub fn positions(pits: usize, max_seeds: usize) -> Option<u64> {
    // Placements of up to k seeds in L cells = placements of exactly k in L + 1.
    binomial(max_seeds + 2 * pits, 2 * pits)
}

fn binomial(n: usize, k: usize) -> Option<u64> {
    let k = k.min(n - k.min(n));
    let mut r: u128 = 1;
    for i in 0..k {
        r = r * (n - i) as u128 / (i + 1) as u128;
        if r > u128::from(u64::MAX) {
            return None;
        }
    }
    u64::try_from(r).ok()
}

impl Endgame {
    /// Builds the database of every position of `rules`' board with at most
    /// `max_seeds` seeds, on the current rayon pool.
    ///
    /// # Errors
    /// A message when it is too large to hold.
    pub fn build(rules: &KalahRules, max_seeds: usize) -> Result<Endgame, String> {
        let t0 = Instant::now();
        let pits = rules.pits();
        let cells = 2 * pits;
        let max_seeds = max_seeds.min(MAX_DB_SEEDS);
        let total = positions(pits, max_seeds)
            .filter(|&n| usize::try_from(n).is_ok())
            .ok_or_else(|| format!("an endgame database of {max_seeds} seeds is too large"))?
            as usize;
        let count: Vec<u64> = (0..=max_seeds)
            .flat_map(|r| {
                (0..=cells).map(move |m| match m {
                    0 => u64::from(r == 0),
                    _ => binomial(r + m - 1, m - 1).expect("fits, as the total does"),
                })
            })
            .collect();
        let mut offset = Vec::with_capacity(max_seeds + 2);
        let mut acc = 0u64;
        for level in 0..=max_seeds {
            offset.push(acc);
            acc += count[level * (cells + 1) + cells];
        }
        offset.push(acc);
        let mut values = Vec::new();
        values
            .try_reserve_exact(total)
            .map_err(|_| format!("cannot allocate {total} bytes for the endgame database"))?;
        values.resize_with(total, || AtomicI8::new(UNKNOWN));
        let mut without_pie = *rules;
        without_pie.pie = false;
        let mut db = Endgame {
            rules: without_pie,
            max_seeds,
            cells,
            count,
            offset,
            values,
            build_time: Duration::ZERO,
        };
        for level in 0..=max_seeds {
            let (start, end) = (db.offset[level], db.offset[level + 1]);
            // Chunks of indices, each unranked once and then stepped.
            let chunk = 1u64 << 12;
            let chunks = (end - start).div_ceil(chunk);
            (0..chunks).into_par_iter().for_each(|k| {
                let first = start + k * chunk;
                let last = (first + chunk).min(end);
                let mut board = [0u8; 2 * MAX_PITS];
                for index in first..last {
                    db.unrank(index - start, level, &mut board[..cells]);
                    db.value(&board[..cells], level);
                }
            });
        }
        db.build_time = t0.elapsed();
        Ok(db)
    }

    /// The fullest level.
    pub fn max_seeds(&self) -> usize {
        self.max_seeds
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether it holds nothing (never: level 0 is always there).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Time the build took.
    pub fn build_time(&self) -> Duration {
        self.build_time
    }

    /// The margin still to come for the mover of `board` (the mover's row,
    /// then the opponent's), which holds `seeds <= max_seeds` seeds.
    #[inline]
    pub fn lookup(&self, board: &[u8], seeds: usize) -> i32 {
        let v = self.values[self.index(board, seeds)].load(Ordering::Relaxed);
        debug_assert_ne!(v, UNKNOWN, "level {seeds} is built");
        i32::from(v)
    }

    /// Placements of `seeds` seeds in `cells` cells.
    #[inline]
    fn placements(&self, seeds: usize, cells: usize) -> u64 {
        self.count[seeds * (self.cells + 1) + cells]
    }

    #[inline]
    fn index(&self, board: &[u8], seeds: usize) -> usize {
        let cells = self.cells;
        let mut rest = seeds;
        let mut rank = 0u64;
        for (i, &c) in board[..cells - 1].iter().enumerate() {
            let c = c as usize;
            let after = cells - i;
            rank += self.placements(rest, after) - self.placements(rest - c, after);
            rest -= c;
        }
        (self.offset[seeds] + rank) as usize
    }

    /// Writes the `index`-th placement of `seeds` seeds into `board`.
    fn unrank(&self, mut index: u64, seeds: usize, board: &mut [u8]) {
        let cells = board.len();
        let mut rest = seeds;
        for (i, cell) in board[..cells - 1].iter_mut().enumerate() {
            let after = cells - i - 1;
            let mut c = 0;
            while index >= self.placements(rest - c, after) {
                index -= self.placements(rest - c, after);
                c += 1;
            }
            *cell = c as u8;
            rest -= c;
        }
        board[cells - 1] = rest as u8;
    }

    /// The value of `board`, worked out (and recorded) if not yet known.
    fn value(&self, board: &[u8], seeds: usize) -> i32 {
        let slot = &self.values[self.index(board, seeds)];
        let known = slot.load(Ordering::Relaxed);
        if known != UNKNOWN {
            return i32::from(known);
        }
        let n = self.cells / 2;
        let rules = &self.rules;
        let state = rules.position_unchecked([&board[..n], &board[n..]], [0, 0], Player::ZERO);
        let margin = |s: &mancala_core::KalahState| {
            let stores = rules.scores(s);
            i32::from(stores[Player::ZERO]) - i32::from(stores[Player::ONE])
        };
        let best = if rules.is_over(&state) {
            margin(&state)
        } else {
            let mut best = i32::MIN;
            for mv in rules.legal_moves(&state) {
                let mut child = state;
                rules.play_unchecked(&mut child, mv);
                let gain = margin(&child);
                let v = match rules.to_move(&child) {
                    None => gain,
                    Some(next) => {
                        let view = View::of(rules, &child, next);
                        let f = self.value(view.board(), view.seeds() as usize);
                        if next == Player::ZERO {
                            gain + f
                        } else {
                            gain - f
                        }
                    }
                };
                best = best.max(v);
            }
            best
        };
        slot.store(best as i8, Ordering::Relaxed);
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_number_placements_without_gaps() {
        let rules = KalahRules::new(2, 1).unwrap();
        let db = Endgame::build(&rules, 3).unwrap();
        assert_eq!(db.len() as u64, positions(2, 3).unwrap());
        assert_eq!(db.len(), 35, "placements of up to 3 seeds in 4 cells");
        let mut seen = vec![false; db.len()];
        for level in 0..=3 {
            let n = db.offset[level + 1] - db.offset[level];
            for i in 0..n {
                let mut board = [0u8; 4];
                db.unrank(i, level, &mut board);
                assert_eq!(board.iter().map(|&c| c as usize).sum::<usize>(), level);
                let index = db.index(&board, level);
                assert_eq!(index as u64, db.offset[level] + i);
                assert!(!seen[index]);
                seen[index] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }
}
