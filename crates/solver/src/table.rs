//! The transposition table: exact bounds on positions' values, shared by
//! every search thread without locks.
//!
//! The solver searches to the end of the game, so an entry is never stale:
//! a bound found once stays true, entries from different windows are merged
//! by intersecting them, and the table carries over between searches (the
//! next null-window probe of MTD(f), the next move of a game).
//!
//! Each slot is two atomic words, 16 bytes, four to a cache line: the data
//! (32 bits) beside the key's top 32 bits, and the key's low 64 bits XORed
//! with that first word. A reader accepts a slot only if both parts decode
//! to its key, so a slot torn by two threads writing at once reads as a
//! miss, never as a wrong value (the classic lockless hashing trick).
//!
//! So a slot holds 96 bits of key. The solver's keys of boards up to six
//! pits a row and 127 seeds are exact in 96 bits; larger boards use a hash
//! (see `View::key`), and 96 bits of it keep collisions out of reach of
//! any search that finishes. Four slots a bucket instead of two of 24
//! bytes hold 1.5 times the entries in the same memory, with more choice
//! of which to evict: what matters once a big solve fills the table.

use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

/// A position's identity: the board from the mover's side, packed exactly
/// when it fits in 128 bits, else a 128-bit hash.
pub type Key = [u64; 2];

/// `cells` packed `bits` bits each, when they fit in the 96 bits of key a
/// slot keeps: a key with no collisions at all. `None` when they do not
/// fit (the caller then hashes them).
#[inline]
pub(crate) fn packed_key(cells: &[u8], bits: u32) -> Option<Key> {
    if cells.len() as u32 * bits > 96 {
        return None;
    }
    let mut packed = 0u128;
    for &c in cells {
        packed = packed << bits | u128::from(c);
    }
    Some([packed as u64, (packed >> 64) as u64])
}

/// Slots looked at per probe: a key lives in one bucket of this many.
const BUCKET: usize = 4;

/// One slot: `[key[0] ^ word, word]` where `word` is the key's low 32 bits
/// of `key[1]` above the packed entry.
type Slot = [AtomicU64; 2];

/// Bytes of a cache line: a bucket fills one, and starts at one, so that a
/// probe costs one memory access.
const LINE: usize = 64;

/// What the table knows of one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The value is at least this.
    pub lower: i16,
    /// The value is at most this.
    pub upper: i16,
    /// The best move found (an action index), or [`NO_MOVE`].
    pub best: u8,
    /// log2 of the nodes spent on it: big subtrees are kept over small ones.
    pub work: u8,
}

/// `Entry::best` when no move is known.
pub const NO_MOVE: u8 = 0xFF;

/// Marks a packed entry as used, so that an empty slot never matches.
const USED: u32 = 1 << 31;

/// Bounds are kept in 10 bits: a bound beyond this is widened to it, which
/// keeps it true (only boards of over 511 seeds get there).
const BOUND_LIMIT: i16 = 511;

impl Entry {
    /// 32 bits: lower and upper bound (10 bits each), the move (5 bits,
    /// all ones for none), the work (6 bits) and the used flag.
    fn pack(self) -> u32 {
        let lower = self.lower.clamp(-BOUND_LIMIT, BOUND_LIMIT);
        let upper = self.upper.clamp(-BOUND_LIMIT, BOUND_LIMIT);
        (lower as u32 & 0x3FF)
            | (upper as u32 & 0x3FF) << 10
            | u32::from(self.best.min(0x1F)) << 20
            | u32::from(self.work.min(0x3F)) << 25
            | USED
    }

    fn unpack(data: u32) -> Entry {
        // Sign-extend the 10-bit bounds.
        let bound = |bits: u32| ((bits as i16) << 6) >> 6;
        let best = ((data >> 20) & 0x1F) as u8;
        Entry {
            lower: bound(data & 0x3FF),
            upper: bound((data >> 10) & 0x3FF),
            best: if best == 0x1F { NO_MOVE } else { best },
            work: ((data >> 25) & 0x3F) as u8,
        }
    }
}

/// The table's memory cannot be had.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum TableError {
    /// Allocating the table failed.
    #[error("cannot allocate a {mib} MiB transposition table")]
    Allocation {
        /// The size asked for, in MiB.
        mib: usize,
    },
}

/// A fixed-size table of [`Entry`]s.
pub struct Table {
    /// The buckets' slots, `BUCKET` a bucket from `start`; the slots before
    /// `start` are unused, there to align the first bucket to a line.
    slots: Vec<Slot>,
    start: usize,
    /// Buckets minus one (a power of two minus one).
    mask: usize,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Table({} slots)", self.capacity())
    }
}

/// Bytes of one slot.
pub const SLOT_BYTES: usize = std::mem::size_of::<Slot>();

impl Table {
    /// A table of at most `mib` MiB (at least one bucket).
    ///
    /// # Errors
    /// [`TableError::Allocation`] when the memory cannot be had.
    pub fn new(mib: usize) -> Result<Table, TableError> {
        let bytes = mib.saturating_mul(1 << 20);
        let count = (bytes / (BUCKET * SLOT_BYTES)).max(1);
        // Round down to a power of two, so a hash's low bits pick the bucket.
        let count = 1usize << (usize::BITS - 1 - count.leading_zeros());
        // Zeroed memory, an empty slot, of an alignment that the allocator
        // serves by calloc: fresh pages that the kernel zeroes when first
        // touched, so a search pays only for the pages it uses. (Written
        // bucket by bucket, the default table of 512 MiB cost a second
        // before a solve of a few thousand nodes; a type aligned to a line
        // is zeroed by a memset, a third of a second.) A line's worth of
        // slots more lets the buckets start at a line.
        let spare = LINE / SLOT_BYTES - 1;
        let slots = <Slot as zerocopy::FromZeros>::new_vec_zeroed(count * BUCKET + spare)
            .map_err(|_| TableError::Allocation { mib })?;
        crate::memory::advise(&slots);
        let misalign = slots.as_ptr() as usize % LINE;
        let start = (LINE - misalign) % LINE / SLOT_BYTES;
        Ok(Table {
            slots,
            start,
            mask: count - 1,
        })
    }

    /// Every bucket's slots.
    fn all_slots(&self) -> &[Slot] {
        &self.slots[self.start..self.start + (self.mask + 1) * BUCKET]
    }

    /// Bytes in use.
    pub fn bytes(&self) -> usize {
        self.capacity() * SLOT_BYTES
    }

    /// Slots in all.
    pub fn capacity(&self) -> usize {
        (self.mask + 1) * BUCKET
    }

    /// Slots holding an entry.
    pub fn filled(&self) -> usize {
        self.all_slots()
            .iter()
            .filter(|s| Table::data(s[1].load(Ordering::Relaxed)).is_some())
            .count()
    }

    fn bucket(&self, key: &Key) -> &[Slot; BUCKET] {
        let h = (key[0] ^ key[1].rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let first = self.start + ((h >> 20) as usize & self.mask) * BUCKET;
        self.slots[first..]
            .first_chunk()
            .expect("a bucket lies inside the table")
    }

    /// The packed entry of a slot's word, if the slot is used.
    fn data(word: u64) -> Option<u32> {
        let data = word as u32;
        (data & USED != 0).then_some(data)
    }

    /// Reads `slot` if it holds `key`.
    fn read(slot: &Slot, key: &Key) -> Option<Entry> {
        let word = slot[1].load(Ordering::Relaxed);
        let k0 = slot[0].load(Ordering::Relaxed) ^ word;
        let data = Table::data(word)?;
        (k0 == key[0] && word >> 32 == key[1] & 0xFFFF_FFFF).then(|| Entry::unpack(data))
    }

    fn write(slot: &Slot, key: &Key, entry: Entry) {
        let word = (key[1] & 0xFFFF_FFFF) << 32 | u64::from(entry.pack());
        slot[0].store(key[0] ^ word, Ordering::Relaxed);
        slot[1].store(word, Ordering::Relaxed);
    }

    /// Starts loading `key`'s bucket into the cache, for a probe soon after.
    #[inline]
    pub fn prefetch(&self, key: &Key) {
        crate::memory::prefetch(self.bucket(key));
    }

    /// What is known of `key`.
    #[inline]
    pub fn probe(&self, key: &Key) -> Option<Entry> {
        self.bucket(key).iter().find_map(|s| Table::read(s, key))
    }

    /// Records that `key`'s value lies in `lower..=upper`, merged with what
    /// was known (both are true bounds, so their intersection is too).
    pub fn store(&self, key: &Key, lower: i16, upper: i16, best: u8, work: u8) {
        let bucket = self.bucket(key);
        let mut entry = Entry {
            lower,
            upper,
            best,
            work,
        };
        if let Some(slot) = bucket.iter().find(|s| Table::read(s, key).is_some()) {
            if let Some(old) = Table::read(slot, key) {
                entry.lower = entry.lower.max(old.lower);
                entry.upper = entry.upper.min(old.upper);
                entry.work = entry.work.max(old.work);
                if entry.best == NO_MOVE {
                    entry.best = old.best;
                }
            }
            Table::write(slot, key, entry);
            return;
        }
        // Otherwise the slot that cost least to fill gives way.
        let victim = bucket
            .iter()
            .min_by_key(|s| match Table::data(s[1].load(Ordering::Relaxed)) {
                None => 0,
                Some(data) => u16::from(Entry::unpack(data).work) + 1,
            })
            .expect("a bucket has slots");
        Table::write(victim, key, entry);
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for s in self.all_slots() {
            for w in s {
                w.store(0, Ordering::Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_merge() {
        let t = Table::new(1).unwrap();
        let k = [12345, 678];
        assert_eq!(t.probe(&k), None);
        t.store(&k, -3, 10, 2, 5);
        t.store(&k, -1, 20, NO_MOVE, 1);
        assert_eq!(
            t.probe(&k),
            Some(Entry {
                lower: -1,
                upper: 10,
                best: 2,
                work: 5
            })
        );
        assert_eq!(t.probe(&[12345, 679]), None);
    }

    #[test]
    fn buckets_start_at_a_line_and_every_slot_is_used_then_cleared() {
        for mib in [1, 3, 16] {
            let t = Table::new(mib).unwrap();
            assert_eq!(t.bytes(), t.capacity() * SLOT_BYTES);
            assert!(t.bytes() <= mib << 20 && t.bytes() > mib << 19, "{mib}");
            let first = t.all_slots().as_ptr() as usize;
            assert_eq!(first % LINE, 0, "the buckets start at a cache line");
            assert_eq!(t.filled(), 0, "a new table is empty");
            // Keys enough to reach every bucket: each lands in its bucket
            // and reads back.
            let keys: Vec<Key> = (0..t.capacity() as u64 / 2)
                .map(|i| [i, i * 7 + 1])
                .collect();
            for k in &keys {
                t.store(k, -1, 1, 0, 0);
            }
            assert!(
                t.filled() > t.capacity() / 4,
                "{} of {}",
                t.filled(),
                t.capacity()
            );
            assert!(keys.iter().filter(|k| t.probe(k).is_some()).count() >= t.filled() / 2);
            t.clear();
            assert_eq!(t.filled(), 0);
        }
    }

    #[test]
    fn packing_keeps_bounds_moves_and_all_96_key_bits() {
        let t = Table::new(1).unwrap();
        let k = [u64::MAX - 5, 0xDEAD_BEEF];
        t.store(&k, -72, 511, NO_MOVE, 63);
        let e = t.probe(&k).unwrap();
        assert_eq!((e.lower, e.upper, e.best, e.work), (-72, 511, NO_MOVE, 63));
        t.store(&k, -72, -3, 14, 2);
        assert_eq!(t.probe(&k).unwrap().best, 14);
        assert_eq!(t.probe(&k).unwrap().upper, -3);
        // Another key differing only in its 96th bit, or in its low word,
        // is another position.
        assert_eq!(t.probe(&[k[0], 0x5EAD_BEEF]), None);
        assert_eq!(t.probe(&[k[0] ^ 1, k[1]]), None);
        // Bounds beyond what 10 bits hold are widened, so they stay true.
        let far = [7, 7];
        t.store(&far, -900, 900, 0, 0);
        let e = t.probe(&far).unwrap();
        assert_eq!((e.lower, e.upper), (-511, 511));
    }

    #[test]
    fn a_full_bucket_keeps_the_costliest_entries() {
        let t = Table::new(0).unwrap();
        assert_eq!(t.capacity(), BUCKET);
        for i in 0..BUCKET as u64 {
            t.store(&[i, 0], 0, 0, 0, 10 + i as u8);
        }
        t.store(&[99, 0], 1, 1, 0, 3);
        assert_eq!(t.probe(&[0, 0]), None, "the cheapest one gave way");
        assert!(t.probe(&[99, 0]).is_some());
        assert!(t.probe(&[BUCKET as u64 - 1, 0]).is_some());
    }
}
