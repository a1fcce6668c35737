//! The transposition table of the minimax search.

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
    /// A table of about `mib` MiB (a power of two of entries; at least 1024).
    pub fn new(mib: usize) -> Table {
        let wanted = (mib * 1024 * 1024 / std::mem::size_of::<Entry>()).max(1024);
        let bits = usize::BITS - 1 - wanted.leading_zeros();
        Table {
            entries: vec![Entry::default(); 1 << bits],
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
