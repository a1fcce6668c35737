//! The transposition table: exact bounds on positions' values, shared by
//! every search thread without locks.
//!
//! The solver searches to the end of the game, so an entry is never stale:
//! a bound found once stays true, entries from different windows are merged
//! by intersecting them, and the table carries over between searches (the
//! next null-window probe of MTD(f), the next move of a game).
//!
//! Each slot is three atomic words: the key's two halves each XORed with the
//! data word, and the data. A reader accepts a slot only if both halves
//! decode to its key, so a slot torn by two threads writing at once reads as
//! a miss, never as a wrong value (the classic lockless hashing trick).

use std::sync::atomic::{AtomicU64, Ordering};

/// A position's identity: the board from the mover's side, packed exactly
/// when it fits in 128 bits, else a 128-bit hash.
pub type Key = [u64; 2];

/// Slots looked at per probe: a key lives in one bucket of this many.
const BUCKET: usize = 2;

/// One bucket, aligned to a cache line so that a probe costs one memory
/// access (two slots of 24 bytes fit in 64).
#[repr(align(64))]
#[derive(Default)]
struct Bucket([[AtomicU64; 3]; BUCKET]);

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

/// Marks a data word as used, so that an empty slot never matches.
const USED: u64 = 1 << 63;

impl Entry {
    fn pack(self) -> u64 {
        u64::from(self.lower as u16)
            | u64::from(self.upper as u16) << 16
            | u64::from(self.best) << 32
            | u64::from(self.work) << 40
            | USED
    }

    fn unpack(data: u64) -> Entry {
        Entry {
            lower: data as u16 as i16,
            upper: (data >> 16) as u16 as i16,
            best: (data >> 32) as u8,
            work: (data >> 40) as u8,
        }
    }
}

/// A fixed-size table of [`Entry`]s.
pub struct Table {
    buckets: Vec<Bucket>,
    /// Buckets minus one (a power of two minus one).
    mask: usize,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Table({} slots)", self.capacity())
    }
}

/// Bytes of one slot, its share of the bucket's padding included.
pub const SLOT_BYTES: usize = std::mem::size_of::<Bucket>() / BUCKET;

impl Table {
    /// A table of at most `mib` MiB (at least one bucket).
    ///
    /// # Errors
    /// A message when the memory cannot be had.
    pub fn new(mib: usize) -> Result<Table, String> {
        let bytes = mib.saturating_mul(1 << 20);
        let count = (bytes / std::mem::size_of::<Bucket>()).max(1);
        // Round down to a power of two, so a hash's low bits pick the bucket.
        let count = 1usize << (usize::BITS - 1 - count.leading_zeros());
        let mut buckets = Vec::new();
        buckets
            .try_reserve_exact(count)
            .map_err(|_| format!("cannot allocate a {mib} MiB transposition table"))?;
        buckets.resize_with(count, Default::default);
        Ok(Table {
            buckets,
            mask: count - 1,
        })
    }

    /// Bytes in use.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Slots in all.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * BUCKET
    }

    /// Slots holding an entry.
    pub fn filled(&self) -> usize {
        self.buckets
            .iter()
            .flat_map(|b| &b.0)
            .filter(|s| s[2].load(Ordering::Relaxed) & USED != 0)
            .count()
    }

    fn bucket(&self, key: &Key) -> &[[AtomicU64; 3]; BUCKET] {
        let h = (key[0] ^ key[1].rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        &self.buckets[(h >> 20) as usize & self.mask].0
    }

    /// Reads `slot` if it holds `key`.
    fn read(slot: &[AtomicU64; 3], key: &Key) -> Option<Entry> {
        let data = slot[2].load(Ordering::Relaxed);
        let k0 = slot[0].load(Ordering::Relaxed) ^ data;
        let k1 = slot[1].load(Ordering::Relaxed) ^ data;
        (data & USED != 0 && k0 == key[0] && k1 == key[1]).then(|| Entry::unpack(data))
    }

    fn write(slot: &[AtomicU64; 3], key: &Key, entry: Entry) {
        let data = entry.pack();
        slot[0].store(key[0] ^ data, Ordering::Relaxed);
        slot[1].store(key[1] ^ data, Ordering::Relaxed);
        slot[2].store(data, Ordering::Relaxed);
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
            .min_by_key(|s| {
                let data = s[2].load(Ordering::Relaxed);
                if data & USED == 0 {
                    0
                } else {
                    u16::from(Entry::unpack(data).work) + 1
                }
            })
            .expect("a bucket has slots");
        Table::write(victim, key, entry);
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for s in self.buckets.iter().flat_map(|b| &b.0) {
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
