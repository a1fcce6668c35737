//! The transposition table of the minimax search.

use std::collections::TryReserveError;

/// The largest table a spec may ask for (`minimax:tt=MiB`): 4096 MiB.
///
/// Each minimax agent has its own table, and a tournament or match builds
/// one agent per seat per worker thread, so a run may hold up to
/// `2 × threads` tables: the limit keeps one table within what an ordinary
/// machine has, and a run's total is the user's to choose with `threads`.
pub(crate) const MAX_TT_MIB: usize = 4096;

/// The smallest table: 2^10 = 1024 entries (12 KiB).
const MIN_BITS: u32 = 10;

/// What a stored value says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub(crate) enum Bound {
    /// Nothing stored.
    #[default]
    Empty,
    /// The value is exact.
    Exact,
    /// The true value is at least this (a cut-off at a max node).
    Lower,
    /// The true value is at most this.
    Upper,
}

/// One slot: 12 bytes (asserted in a test).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Entry {
    /// The low 32 bits of the key (the index comes from the high bits).
    pub check: u32,
    /// Value for player 0.
    pub value: i32,
    /// Remaining depth the value was searched to.
    pub depth: u8,
    pub bound: Bound,
    /// Best move as an action index, or `NO_MOVE`.
    pub best: u8,
    /// The search (game) that wrote it; older entries are ignored.
    pub generation: u8,
}

pub(crate) const NO_MOVE: u8 = u8::MAX;

/// A fixed-size, always-replace-older, depth-preferred hash table.
#[derive(Debug)]
pub(crate) struct Table {
    entries: Vec<Entry>,
    shift: u32,
    generation: u8,
}

impl Table {
    /// A table of about `mib` MiB: the largest power of two of entries
    /// that fits, at least 1024; `mib` is capped at [`MAX_TT_MIB`].
    ///
    /// The memory is reserved fallibly: when the system refuses that much,
    /// the table is halved until it gets it (down to 1024 entries), rather
    /// than aborting the process. A smaller table only makes the search
    /// slower, never wrong.
    pub fn new(mib: usize) -> Table {
        let mut bits = Self::bits_for(mib.min(MAX_TT_MIB));
        loop {
            match Self::try_with_bits(bits) {
                Ok(table) => return table,
                Err(_) if bits > MIN_BITS => bits -= 1,
                // Not even 12 KiB: allocate as everything else does.
                Err(_) => return Self::from_entries(vec![Entry::default(); 1 << bits], bits),
            }
        }
    }

    /// log2 of the entries of a table of about `mib` MiB (no overflow for any `mib`).
    fn bits_for(mib: usize) -> u32 {
        let bytes = mib.saturating_mul(1024 * 1024);
        let wanted = (bytes / std::mem::size_of::<Entry>()).max(1 << MIN_BITS);
        usize::BITS - 1 - wanted.leading_zeros()
    }

    /// A table of `2^bits` entries, or the allocator's refusal.
    fn try_with_bits(bits: u32) -> Result<Table, TryReserveError> {
        let len = 1usize.checked_shl(bits).unwrap_or(usize::MAX);
        let mut entries = Vec::new();
        entries.try_reserve_exact(len)?;
        entries.resize(len, Entry::default());
        Ok(Self::from_entries(entries, bits))
    }

    fn from_entries(entries: Vec<Entry>, bits: u32) -> Table {
        Table {
            entries,
            shift: 64 - bits,
            generation: 1,
        }
    }

    /// Forgets everything in O(1): entries of older generations never match.
    pub fn clear(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // After 255 games, wipe for real so an old entry cannot come back.
            self.entries.fill(Entry::default());
            self.generation = 1;
        }
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        (key >> self.shift) as usize
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let e = self.entries[self.index(key)];
        (e.bound != Bound::Empty && e.generation == self.generation && e.check == key as u32)
            .then_some(e)
    }

    #[inline]
    pub fn store(&mut self, key: u64, value: i32, depth: u8, bound: Bound, best: u8) {
        let generation = self.generation;
        let slot = &mut self.entries[(key >> self.shift) as usize];
        let same = slot.check == key as u32 && slot.generation == generation;
        if slot.generation != generation || same || depth >= slot.depth {
            *slot = Entry {
                check: key as u32,
                value,
                depth,
                bound,
                best,
                generation,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_is_twelve_bytes() {
        assert_eq!(std::mem::size_of::<Entry>(), 12);
    }

    #[test]
    fn table_sizes_are_bounded_powers_of_two() {
        assert_eq!(Table::new(0).entries.len(), 1024);
        // 1 MiB / 12 bytes = 87381 entries: 2^16.
        assert_eq!(Table::new(1).entries.len(), 1 << 16);
        assert_eq!(Table::bits_for(16), 20);
        // No overflow for any size; the cap is what `new` uses.
        assert!(Table::bits_for(usize::MAX) < usize::BITS);
        assert_eq!(Table::bits_for(MAX_TT_MIB), 28);
        assert!((1usize << 28) * std::mem::size_of::<Entry>() <= MAX_TT_MIB << 20);
    }

    #[test]
    fn an_impossible_table_is_an_error_not_an_abort() {
        // 2^62 entries of 12 bytes: more than any address space.
        assert!(Table::try_with_bits(62).is_err());
        assert!(Table::try_with_bits(usize::BITS - 1).is_err());
        assert_eq!(Table::try_with_bits(MIN_BITS).unwrap().entries.len(), 1024);
    }

    #[test]
    fn table_stores_probes_and_clears() {
        let mut t = Table::new(1);
        let key = 0xDEAD_BEEF_1234_5678;
        assert!(t.probe(key).is_none());
        t.store(key, -12, 5, Bound::Lower, 3);
        let e = t.probe(key).unwrap();
        assert_eq!(
            (e.value, e.depth, e.bound, e.best),
            (-12, 5, Bound::Lower, 3)
        );
        // A shallower result for another key in the same slot does not evict it.
        let other = key ^ 1;
        t.store(other, 7, 2, Bound::Exact, 0);
        assert!(t.probe(key).is_some());
        t.clear();
        assert!(t.probe(key).is_none());
    }
}
