//! The bridge's iterator behind a lock of one atomic word (`par_bridge`, see `../bridge.rs`).
//!
//! A pull takes the lock with one compare-exchange, calls `next()` once and releases the lock
//! with a plain store: one read-modify-write per item, where `std::sync::Mutex` takes two
//! (its unlock swaps the word to learn whether a thread sleeps on it). No thread ever sleeps
//! on this lock (a piece that finds it held waits in its own way, `bridge.rs`), so releasing
//! it tells nobody anything.
//!
//! | `state` | meaning | moves to |
//! |---|---|---|
//! | `FREE` | nobody holds the iterator | `HELD`: a pull's compare-exchange |
//! | `HELD` | one thread holds it and may call `next()` | `FREE`: released; `DONE`: the iterator ended, or the holder unwound |
//! | `DONE` | no item will come: the iterator ended (and was dropped), or a panic in `next()` or in code run while holding left it | nothing: final |
//!
//! `DONE` after a panic is this lock's poisoning: every other piece stops at its next pull,
//! and the panic reaches the caller through the join that ran the panicking piece.
//!
//! Orderings (one atomic):
//!
//! | atomic | written by | read by | Release → Acquire |
//! |---|---|---|---|
//! | `state` | a pull: `compare_exchange(FREE, HELD)` (Acquire on success, Relaxed on failure); a holder ending: `store(FREE or DONE)` (Release) | waiters: `is_held` (Relaxed) | the store that ends one holding → the compare-exchange that starts the next: the new holder sees the iterator as the last one left it |

use crate::sync::atomic::{AtomicU8, Ordering};
use crate::sync::UnsafeCell;

const FREE: u8 = 0;
const HELD: u8 = 1;
const DONE: u8 = 2;

/// A sequential iterator that any thread may pull from, one holder at a time.
pub(super) struct PullLock<I> {
    state: AtomicU8,
    /// The iterator, `None` once it has ended. Touched only by the holder: the thread whose
    /// compare-exchange moved `state` from `FREE` to `HELD`, until its [`Hold`] stores `FREE`
    /// or `DONE`.
    iter: UnsafeCell<Option<I>>,
}

// SAFETY: the iterator moves between threads (`I: Send`) but two threads never touch it at
// once: only the holder reaches it (see `iter`), and each hand-over is a Release store
// paired with the next holder's Acquire compare-exchange. This is `Mutex<I>: Sync` for
// `I: Send`. Items are made and taken by the holder on its own thread.
unsafe impl<I: Send> Sync for PullLock<I> {}

/// What a pull found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Pull<T> {
    /// The next item.
    Item(T),
    /// Another thread holds the lock.
    Held,
    /// No item will come.
    Done,
}

impl<I: Iterator> PullLock<I> {
    pub(super) fn new(iter: I) -> Self {
        PullLock {
            state: AtomicU8::new(FREE),
            iter: UnsafeCell::new(Some(iter)),
        }
    }

    /// Takes the lock if it is free. Otherwise `Held` or `Done` (never `Item`).
    #[inline]
    pub(super) fn try_hold(&self) -> Result<Hold<'_, I>, Pull<I::Item>> {
        // ORDERING: Acquire on success pairs with the Release store that ended the previous
        // holding (`Hold::drop`), so the iterator is seen as that holder left it. A failure
        // reads only the state, and no data is read on it: Relaxed.
        match self
            .state
            .compare_exchange(FREE, HELD, Ordering::Acquire, Ordering::Relaxed)
        {
            Ok(_) => Ok(Hold {
                lock: self,
                release_to: DONE,
                ended: false,
            }),
            Err(DONE) => Err(Pull::Done),
            Err(_) => Err(Pull::Held),
        }
    }

    /// Takes the lock if it is free, pulls one item and releases the lock.
    #[inline]
    pub(super) fn try_pull(&self) -> Pull<I::Item> {
        match self.try_hold() {
            Ok(mut hold) => {
                let item = hold.next();
                hold.release();
                match item {
                    Some(item) => Pull::Item(item),
                    None => Pull::Done,
                }
            }
            Err(found) => found,
        }
    }

    /// Whether some thread holds the lock now: one load, which a waiter can repeat without
    /// taking the cache line from the holder.
    #[inline]
    pub(super) fn is_held(&self) -> bool {
        // ORDERING: a hint for when to try again; the compare-exchange that follows decides,
        // and nothing is read on the strength of this load. Relaxed.
        self.state.load(Ordering::Relaxed) == HELD
    }
}

/// The lock, held: the one way to the iterator. [`release`](Hold::release) ends a holding
/// (`FREE`, or `DONE` once the iterator has ended); dropped without it, which happens only
/// when the holder unwinds, the hold leaves `DONE`.
pub(super) struct Hold<'a, I> {
    lock: &'a PullLock<I>,
    /// The state the drop stores: `DONE` unless `release` says otherwise.
    release_to: u8,
    /// The iterator returned `None` (and was dropped).
    ended: bool,
}

impl<I: Iterator> Hold<'_, I> {
    /// The iterator's next item. Once it returns `None` the iterator is dropped, and so are
    /// all later calls (`None`).
    #[inline]
    pub(super) fn next(&mut self) -> Option<I::Item> {
        self.lock.iter.with_mut(|slot| {
            // SAFETY: `self` holds the lock, so no other thread touches the iterator until
            // `self` is dropped (see `PullLock::iter`); the borrow ends with this closure.
            let slot = unsafe { &mut *slot };
            let item = slot.as_mut().and_then(Iterator::next);
            if item.is_none() {
                self.ended = true;
                *slot = None;
            }
            item
        })
    }

    /// Ends the holding: the lock is free again, or done if the iterator has ended.
    #[inline]
    pub(super) fn release(mut self) {
        if !self.ended {
            self.release_to = FREE;
        }
    }
}

impl<I> Drop for Hold<'_, I> {
    #[inline]
    fn drop(&mut self) {
        // ORDERING: Release pairs with the Acquire of the next holder's compare-exchange
        // (`try_hold`): everything this holder did to the iterator happens before it.
        self.lock.state.store(self.release_to, Ordering::Release);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn pulls_every_item_then_reports_done() {
        let lock = PullLock::new(0..3);
        assert_eq!(lock.try_pull(), Pull::Item(0));
        assert_eq!(lock.try_pull(), Pull::Item(1));
        assert_eq!(lock.try_pull(), Pull::Item(2));
        assert!(!lock.is_held());
        assert_eq!(lock.try_pull(), Pull::Done);
        assert_eq!(lock.try_pull(), Pull::Done);
        assert!(matches!(lock.try_hold(), Err(Pull::Done)));
    }

    #[test]
    fn a_hold_excludes_other_pulls_until_released() {
        let lock = PullLock::new(0..10);
        let mut hold = lock.try_hold().ok().unwrap();
        assert!(lock.is_held());
        assert_eq!(lock.try_pull(), Pull::Held);
        assert_eq!(hold.next(), Some(0));
        assert_eq!(hold.next(), Some(1));
        hold.release();
        assert_eq!(lock.try_pull(), Pull::Item(2));
    }

    /// A hold dropped without `release` (its holder unwinds) poisons the lock; the iterator
    /// is dropped with the lock, not by the unwinding holder.
    #[test]
    fn a_hold_dropped_while_unwinding_leaves_the_lock_done() {
        let lock = PullLock::new(0..10);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut hold = lock.try_hold().ok().unwrap();
            assert_eq!(hold.next(), Some(0));
            panic!("the holder's consumer panics");
        }));
        assert!(result.is_err());
        assert!(!lock.is_held());
        assert_eq!(lock.try_pull(), Pull::Done);
    }

    /// The iterator is dropped as soon as it ends, before the lock says `DONE`.
    #[test]
    fn an_ended_iterator_is_dropped_at_once() {
        let owner = std::sync::Arc::new(());
        let watched = std::sync::Arc::clone(&owner);
        let lock = PullLock::new((0..2).map(move |x| (x, &watched).0));
        assert_eq!(std::sync::Arc::strong_count(&owner), 2);
        assert_eq!(lock.try_pull(), Pull::Item(0));
        assert_eq!(lock.try_pull(), Pull::Item(1));
        assert_eq!(lock.try_pull(), Pull::Done);
        assert_eq!(std::sync::Arc::strong_count(&owner), 1);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::{Pull, PullLock};
    use crate::sync::{thread, Arc};

    /// Pulls until `Done`, yielding while the lock is held; the items pulled.
    fn pull_all(lock: &PullLock<std::ops::Range<u32>>) -> Vec<u32> {
        let mut got = Vec::new();
        loop {
            match lock.try_pull() {
                Pull::Item(item) => got.push(item),
                Pull::Held => thread::yield_now(),
                Pull::Done => return got,
            }
        }
    }

    /// Two threads pull `0..3`: each item reaches exactly one of them, the iterator is never
    /// touched by both at once (loom checks the cell), and both see the end.
    #[test]
    fn loom_every_item_is_pulled_once() {
        loom::model(|| {
            let lock = Arc::new(PullLock::new(0..3u32));
            let other = {
                let lock = Arc::clone(&lock);
                thread::spawn(move || pull_all(&lock))
            };
            let mut got = pull_all(&lock);
            got.extend(other.join().unwrap());
            got.sort_unstable();
            assert_eq!(got, [0, 1, 2]);
        });
    }

    /// A holder that ends without releasing (it unwinds) while another thread pulls: the
    /// other thread stops with `Done` and never touches the iterator while it is held.
    #[test]
    fn loom_a_poisoned_lock_stops_the_other_puller() {
        loom::model(|| {
            let lock = Arc::new(PullLock::new(0..4u32));
            let other = {
                let lock = Arc::clone(&lock);
                thread::spawn(move || pull_all(&lock))
            };
            let mine = match lock.try_hold() {
                Ok(mut hold) => {
                    let item = hold.next();
                    drop(hold); // as an unwinding holder does: no `release`
                    item.into_iter().collect()
                }
                Err(_) => Vec::new(),
            };
            let theirs = other.join().unwrap();
            let mut got: Vec<u32> = mine.iter().chain(&theirs).copied().collect();
            got.sort_unstable();
            // Whatever was pulled was pulled once, in order from 0, and nothing after the
            // poisoning holding.
            assert!(got.iter().copied().eq(0..got.len() as u32), "{got:?}");
            assert_eq!(lock.try_pull(), Pull::Done);
        });
    }
}
