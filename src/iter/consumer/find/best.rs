//! The best position found so far by a `find_first` / `find_last` search: a `u128` that
//! only moves one way, written rarely (once per match, or per batch of a `find_last`) and
//! read before every item.
//!
//! There is no stable 128-bit atomic, so the value lives in two words. Writers take a lock
//! (they are rare); readers take none and may see a stale value (even one below the latest
//! record, while a writer is between its two stores), but never one past every record: for `find_last` a read is at most the latest value written, for
//! `find_first` at least. A piece that compares its positions with such a read can only be
//! told it is beaten later than it could have been, never wrongly.
//!
//! Why a read is bounded (shown for a rising value; a falling one is the mirror image): a
//! writer that changes the upper word first resets the lower word to its floor (0), then
//! publishes the upper word (Release), then stores the lower word. A reader that loads the
//! upper word `h` (Acquire) from writer `X` sees `X`'s reset or a later lower word; the lower
//! words after `X`'s reset all belong to `X` or to later writers, whose values are at least
//! `(h, that word)` because values only rise. So `(h, lower)` never exceeds a value some
//! writer has committed to.

use crate::sync::atomic::{AtomicU64, Ordering};
use crate::sync::Mutex;

/// A position that only rises (`find_last`) or only falls (`find_first`).
pub(super) struct Best {
    upper: AtomicU64,
    lower: AtomicU64,
    /// Serializes writers, so that the two words change in the order the reads rely on.
    writers: Mutex<()>,
    rising: bool,
}

#[inline]
fn words(value: u128) -> (u64, u64) {
    ((value >> 64) as u64, value as u64)
}

/// The inverse of [`words`].
#[inline]
fn joined(upper: u64, lower: u64) -> u128 {
    (u128::from(upper) << 64) | u128::from(lower)
}

impl Best {
    /// A rising best starting at 0 (nothing found: every position is after it).
    pub(super) fn rising() -> Self {
        Self::starting_at(0, true)
    }

    /// A falling best starting at `u128::MAX` (nothing found: every position is before it).
    pub(super) fn falling() -> Self {
        Self::starting_at(u128::MAX, false)
    }

    fn starting_at(value: u128, rising: bool) -> Self {
        let (upper, lower) = words(value);
        Best {
            upper: AtomicU64::new(upper),
            lower: AtomicU64::new(lower),
            writers: Mutex::new(()),
            rising,
        }
    }

    /// Whether the best (rising) is at or past `position`. A `false` may be stale, a `true`
    /// never is.
    #[inline]
    pub(super) fn reaches(&self, position: u128) -> bool {
        self.may_reach(position) && self.read() >= position
    }

    /// False if the best (rising) does not reach `position`, by its upper word alone (one
    /// load and compare): what a search tests before every item. A `true` needs
    /// [`reaches`](Self::reaches) to be sure; it is rare unless `position` shares its upper
    /// word with the best (searches of more than 2^64 items).
    #[inline]
    pub(super) fn may_reach(&self, position: u128) -> bool {
        debug_assert!(self.rising);
        // ORDERING: Relaxed: a stale upper word only delays the answer; `read` loads it again
        // with Acquire when the exact test is needed.
        self.upper.load(Ordering::Relaxed) >= words(position).0
    }

    /// Whether the best (falling) is before `position`. A `false` may be stale, a `true`
    /// never is.
    #[inline]
    pub(super) fn is_before(&self, position: u128) -> bool {
        self.may_be_before(position) && self.read() < position
    }

    /// The mirror image of [`may_reach`](Self::may_reach), for a falling best.
    #[inline]
    pub(super) fn may_be_before(&self, position: u128) -> bool {
        debug_assert!(!self.rising);
        // ORDERING: as in `may_reach`.
        self.upper.load(Ordering::Relaxed) <= words(position).0
    }

    /// The value, or one between records: never past every record (module comment).
    #[cold]
    fn read(&self) -> u128 {
        // ORDERING: Acquire pairs with the Release store of the upper word in `record`, so
        // the lower word read next is that writer's reset or later (module comment).
        let upper = self.upper.load(Ordering::Acquire);
        // ORDERING: Relaxed: the Acquire above orders this load after the reset.
        let lower = self.lower.load(Ordering::Relaxed);
        joined(upper, lower)
    }

    /// Moves the best to `position` if that is further (higher when rising, lower when
    /// falling).
    pub(super) fn record(&self, position: u128) {
        // A panic cannot leave the words half-written (no user code runs under the lock),
        // so a poisoned lock is as good as a clean one.
        let _writing = self
            .writers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // ORDERING: Relaxed: writers are serialized by the lock, which orders these loads
        // after the previous writer's stores.
        let current = joined(
            self.upper.load(Ordering::Relaxed),
            self.lower.load(Ordering::Relaxed),
        );
        let further = if self.rising {
            position > current
        } else {
            position < current
        };
        if !further {
            return;
        }
        let (upper, lower) = words(position);
        if upper != (current >> 64) as u64 {
            // ORDERING: Relaxed: published by the Release store of the upper word below.
            let floor = if self.rising { 0 } else { u64::MAX };
            self.lower.store(floor, Ordering::Relaxed);
            // ORDERING: Release: a reader that sees this upper word sees the reset above.
            self.upper.store(upper, Ordering::Release);
        }
        // ORDERING: Relaxed: a reader pairs it with whichever upper word it read; either
        // pairing is bounded by this record (module comment).
        self.lower.store(lower, Ordering::Relaxed);
    }

    /// The value (exact when no writer is active).
    #[cfg(test)]
    pub(super) fn get(&self) -> u128 {
        let _writing = self
            .writers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        joined(
            self.upper.load(Ordering::Relaxed),
            self.lower.load(Ordering::Relaxed),
        )
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Best;

    #[test]
    fn records_keep_the_furthest_and_compare_across_the_word_boundary() {
        let word = 1u128 << 64;
        let last = Best::rising();
        assert!(!last.reaches(1));
        last.record(word + 5);
        last.record(word - 1); // lower: ignored
        assert_eq!(last.get(), word + 5);
        assert!(last.reaches(word + 5) && last.reaches(word - 1) && last.reaches(7));
        assert!(!last.reaches(word + 6) && !last.reaches(2 * word));
        last.record(3 * word + 1);
        assert!(last.reaches(3 * word + 1) && !last.reaches(3 * word + 2));

        let first = Best::falling();
        assert!(!first.is_before(u128::MAX));
        first.record(2 * word + 9);
        first.record(3 * word); // higher: ignored
        assert_eq!(first.get(), 2 * word + 9);
        assert!(first.is_before(2 * word + 10) && first.is_before(u128::MAX));
        assert!(!first.is_before(2 * word + 9) && !first.is_before(word));
        first.record(5);
        assert!(first.is_before(6) && !first.is_before(5));
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::Best;
    use crate::sync::{thread, Arc};

    /// One race: `best` starts at `start`, two writers record `records` at once, and a
    /// reader of its own asks `beaten` while they write (loom did not interleave the main
    /// thread's reads with the writers' stores). The reader must answer `false`: `beaten`
    /// asks whether the best passed a position beyond every record. A read may fall below
    /// an earlier record while a writer resets the lower word: stale, not wrong. Returns the
    /// best once all are done.
    fn race(best: Best, start: u128, records: [u128; 2], beaten: fn(&Best) -> bool) -> Best {
        best.record(start);
        let best = Arc::new(best);
        let writers: Vec<_> = records
            .into_iter()
            .map(|value| {
                let best = Arc::clone(&best);
                thread::spawn(move || best.record(value))
            })
            .collect();
        let reader = Arc::clone(&best);
        let read = thread::spawn(move || beaten(&reader));
        assert!(!read.join().unwrap(), "a read passed every record");
        for writer in writers {
            writer.join().unwrap();
        }
        Arc::try_unwrap(best).unwrap_or_else(|_| unreachable!("every clone was joined"))
    }

    const WORD: u128 = 1 << 64;

    /// Two writers raise the best across the word boundary, to values whose lower words are
    /// below the one they replace: an upper word read with a stale lower one would pass the
    /// largest record.
    #[test]
    fn loom_a_read_never_passes_every_record() {
        loom::model(|| {
            let records = [WORD + 2, WORD + 1];
            let best = race(Best::rising(), WORD - 1, records, |b| b.reaches(WORD + 3));
            assert_eq!(best.get(), WORD + 2);
            assert!(best.reaches(WORD + 2));
        });
    }

    /// The mirror image for a falling best.
    #[test]
    fn loom_a_falling_read_never_passes_every_record() {
        loom::model(|| {
            let records = [3 * WORD - 2, 3 * WORD - 1];
            let best = race(Best::falling(), 3 * WORD, records, |b| {
                b.is_before(3 * WORD - 2)
            });
            assert_eq!(best.get(), 3 * WORD - 2);
            assert!(best.is_before(3 * WORD - 1));
        });
    }
}
