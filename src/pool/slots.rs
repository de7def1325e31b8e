//! `Slots`: a table indexed by worker index that grows without moving its entries, so that a
//! pool can gain workers while others hold references into the table (the registry's
//! per-worker state, the sleep module's per-worker condvars).
//!
//! Entries live in buckets of doubling size: bucket `b` holds indices `2^b - 1 .. 2^(b+1) -
//! 1`, so [`BUCKETS`] buckets cover `0..2^BUCKETS - 1`, and a pool of `n` workers has at most
//! `2n` entries. A bucket is allocated once (a `OnceLock`) and freed only with the table:
//! a reader needs no lock and no reclamation scheme, and a reference it got stays valid for
//! the table's life. This is why resizing needs no RCU pointer: nothing is ever replaced,
//! only appended, and a retired worker's entry waits, empty, for the next worker of that
//! index.

use std::sync::OnceLock;

/// Buckets of a table: enough for `sleep::MAX_WORKERS` (2^16 - 1) entries.
const BUCKETS: usize = 16;

/// An append-only table with stable entries (see the module doc).
pub(crate) struct Slots<T> {
    buckets: [OnceLock<Box<[T]>>; BUCKETS],
}

impl<T> std::fmt::Debug for Slots<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slots").finish_non_exhaustive()
    }
}

/// The bucket holding `index`, and the index's place in it.
#[inline]
fn locate(index: usize) -> (usize, usize) {
    let bucket = (usize::BITS - 1 - (index + 1).leading_zeros()) as usize;
    (bucket, index + 1 - (1 << bucket))
}

impl<T> Slots<T> {
    /// The most entries a table can hold.
    pub(crate) const CAPACITY: usize = (1 << BUCKETS) - 1;

    /// A table whose entries `0..len` exist, made by `make(index)`.
    pub(crate) fn new(len: usize, make: impl FnMut(usize) -> T) -> Self {
        let slots = Slots {
            buckets: [const { OnceLock::new() }; BUCKETS],
        };
        slots.ensure(len, make);
        slots
    }

    /// Makes entries `0..len` exist (whole buckets at a time, by `make(index)`). Callers
    /// serialize growth (the registry's resize lock, or `new`); readers may run concurrently.
    ///
    /// # Panics
    /// If `len` exceeds [`CAPACITY`](Self::CAPACITY).
    pub(crate) fn ensure(&self, len: usize, mut make: impl FnMut(usize) -> T) {
        assert!(
            len <= Self::CAPACITY,
            "weft: more workers than a pool can hold"
        );
        if len == 0 {
            return;
        }
        let (last, _) = locate(len - 1);
        for (bucket, cell) in self.buckets.iter().enumerate().take(last + 1) {
            let first = (1 << bucket) - 1;
            cell.get_or_init(|| (first..first + (1 << bucket)).map(&mut make).collect());
        }
    }

    /// Entry `index`, which [`ensure`](Self::ensure) made exist.
    ///
    /// # Panics
    /// If it does not exist.
    #[inline]
    pub(crate) fn get(&self, index: usize) -> &T {
        let (bucket, offset) = locate(index);
        &self.buckets[bucket]
            .get()
            .expect("weft: a worker slot that was never allocated")[offset]
    }

    /// Every entry that exists, in index order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.buckets
            .iter()
            .map_while(OnceLock::get)
            .flat_map(|bucket| bucket.iter())
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn locate_covers_indices_once_in_order() {
        let mut expected = (0, 0);
        for index in 0..Slots::<()>::CAPACITY {
            assert_eq!(locate(index), expected, "index {index}");
            expected.1 += 1;
            if expected.1 == 1 << expected.0 {
                expected = (expected.0 + 1, 0);
            }
        }
        assert_eq!(expected.0, BUCKETS);
    }

    #[test]
    fn growth_keeps_entries_in_place() {
        let slots = Slots::new(3, |i| i * 10);
        let first: *const usize = slots.get(2);
        slots.ensure(100, |i| i * 10);
        assert!(std::ptr::eq(first, slots.get(2)));
        assert_eq!(slots.get(99), &990);
        // Entries are made whole buckets at a time: 100 entries need buckets 0..=6.
        let all: Vec<usize> = slots.iter().copied().collect();
        assert_eq!(all, (0..127).map(|i| i * 10).collect::<Vec<_>>());
    }
}
