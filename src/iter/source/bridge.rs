//! `par_bridge`: runs a sequential `Iterator + Send` in parallel. The iterator sits behind a
//! lock of one atomic word (`bridge/pull_lock.rs`); each piece of work takes the lock, pulls
//! one item, releases the lock and hands the item to its consumer, over and over, as Rayon's
//! bridge does.
//!
//! **One item at a time.** A piece never calls `next()` while it holds an item it has not
//! handed to its consumer. Sources whose next item exists only once an earlier one has been
//! processed rely on this: a directory walker's work queue, a crawler's channel fed by its
//! own items. A piece holding item `k` unprocessed while its `next()` waits for what item `k`
//! would produce waits for itself. The cost is the lock per item: one compare-exchange and
//! a store. In a pool of one worker no other thread can pull, so the one piece keeps the
//! lock while it processes items (still one `next()` per item consumed) and pays nothing per
//! item.
//!
//! **Waiting for the lock.** `next()` is user code: it may be slow (a record from a socket)
//! or run parallel work on the pool (join, par_iter). A piece that finds the lock held never
//! blocks on it in the operating system: it spins briefly; then, while no worker of the pool
//! is idle, it runs the pool's pending jobs (a `next()` waiting for pool work gets it, as a
//! blocked `join` does); else it yields its thread, and after a while sleeps in steps that
//! grow with the time waited (each at most a sixteenth of it, so waking late costs a small
//! fraction of a slow `next()`). Only a piece whose last pull found the lock free spins: one
//! that keeps losing the lock to a piece pulling cheap items in a tight loop looks at it only
//! between yields, so that the puller keeps the cache line. A piece keeps waiting while the
//! iterator has items, except in two cases where waiting could be a deadlock:
//!
//! - A piece that starts on a thread which already runs a piece of the same bridge ends at
//!   once (Rayon does the same). The thread took it up inside the other piece: while
//!   processing an item that ran parallel work, or while waiting for the lock. The holder's
//!   `next()` may be waiting for that item, which cannot finish before this piece returns.
//! - A piece that runs inside a wait of its worker (the worker took it up while waiting for
//!   a stolen `join` half, a scope or a latch: `drive::inside_a_wait`) waits at most
//!   [`NESTED_PATIENCE`] without pulling an item, then ends. The work suspended below it may be part of the
//!   holder's `next()`: `next()` forked, this worker took one part, that part waits for a
//!   thief, and meanwhile the worker took up this piece. The holder waits for that part, the
//!   part for this piece, the piece for the lock (Rayon deadlocks there). Ending is safe: a
//!   piece only finds the lock held while another piece holds it, and that piece goes on
//!   pulling to the end (or stops the whole loop: a full consumer, a panic).
//!
//! A piece that does not run inside a wait (its worker took it from the main loop, or the
//! caller's own thread runs it) never gives up, so however slow `next()` is, every worker
//! that has a piece keeps pulling.

mod pull_lock; // the iterator behind one atomic word: PullLock, Hold

use std::cell::RefCell;
use std::hint::spin_loop;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use self::pull_lock::{Pull, PullLock};
use crate::drive::{help_busy_pool, inside_a_wait, offer_forks, worker_count};
use crate::iter::plumbing::*;
use crate::iter::ParallelIterator;
use crate::pool::stop_if_cancelled;

/// Rounds of spinning before a waiting piece yields its thread: round `r` pauses `2^r` times
/// between two loads of the lock word (`2^SPIN_ROUNDS` pauses in all, a few microseconds):
/// long enough for a holder's cheap `next()`, and the holder keeps the cache line meanwhile.
const SPIN_ROUNDS: u32 = 8;

/// How long a waiting piece yields its thread (letting other threads on its core run)
/// before it starts to sleep.
const YIELD_FOR: Duration = Duration::from_micros(100);

/// The shortest sleep between two looks at the lock (the operating system's timer slack,
/// tens of microseconds, comes on top).
const MIN_SLEEP: Duration = Duration::from_micros(10);

/// The longest sleep between two looks at the lock: also the longest a waiting piece may
/// leave a job of the pool untouched while no worker is idle.
const MAX_SLEEP: Duration = Duration::from_millis(1);

/// How long a piece that runs inside a wait of its worker waits for the lock before it ends
/// (see the module doc). Chosen by feel: far longer than most `next()` calls, short enough
/// that the deadlock it breaks costs a pause rather than a hang.
const NESTED_PATIENCE: Duration = Duration::from_millis(20);

/// `par_bridge()` for every sequential `Iterator + Send` with `Send` items.
///
/// ```
/// use std::sync::mpsc::channel;
/// use weft::iter::ParallelBridge;
/// use weft::prelude::*;
///
/// let (sender, receiver) = channel();
/// (0..5).for_each(|x| sender.send(x).unwrap());
/// drop(sender);
/// let mut v: Vec<i32> = receiver.into_iter().par_bridge().map(|x| x * 2).collect();
/// v.sort();
/// assert_eq!(v, [0, 2, 4, 6, 8]);
/// ```
pub trait ParallelBridge: Sized {
    /// Turns a sequential iterator into an (unordered) parallel one.
    ///
    /// ```
    /// use weft::iter::ParallelBridge;
    /// use weft::prelude::*;
    ///
    /// let sum: i32 = (1..=10).into_iter().par_bridge().sum();
    /// assert_eq!(sum, 55);
    /// ```
    ///
    /// Workers pull items one at a time, as in Rayon, and a worker never calls `next()`
    /// while it holds an item it pulled and has not yet handed on: so `next()` may wait for
    /// the effects of items pulled before (a work queue, or a channel that processing an
    /// item feeds). `next()` may be slow, or run parallel work itself: a worker that finds
    /// another calling `next()` waits for it, running other jobs of the pool meanwhile,
    /// and keeps pulling while there are items. The one exception: a worker that took up
    /// its part of the loop while waiting inside other parallel work stops waiting after a
    /// while, and the workers that started their part from their idle loop (or the
    /// caller's) pull the rest.
    ///
    /// A crawler whose channel is fed by the items it processes, ending when no item is
    /// pending:
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::mpsc::{channel, TryRecvError};
    /// use weft::iter::ParallelBridge;
    /// use weft::prelude::*;
    ///
    /// // Node i of a tree of 100 has children 2i + 1 and 2i + 2.
    /// let (sender, receiver) = channel::<u64>();
    /// let pending = &AtomicUsize::new(1);
    /// sender.send(0).unwrap();
    /// let source = std::iter::from_fn(move || loop {
    ///     match receiver.try_recv() {
    ///         Ok(node) => return Some(node),
    ///         Err(TryRecvError::Empty) if pending.load(Ordering::SeqCst) > 0 => {
    ///             std::thread::yield_now()
    ///         }
    ///         Err(_) => return None,
    ///     }
    /// });
    /// let visited = source
    ///     .par_bridge()
    ///     .map_with(sender, |sender, node| {
    ///         for child in [2 * node + 1, 2 * node + 2].into_iter().filter(|&c| c < 100) {
    ///             pending.fetch_add(1, Ordering::SeqCst);
    ///             sender.send(child).unwrap();
    ///         }
    ///         pending.fetch_sub(1, Ordering::SeqCst);
    ///     })
    ///     .count();
    /// assert_eq!(visited, 100);
    /// ```
    fn par_bridge(self) -> IterBridge<Self>;
}

impl<T> ParallelBridge for T
where
    T: Iterator + Send,
    T::Item: Send,
{
    fn par_bridge(self) -> IterBridge<Self> {
        IterBridge { iter: self }
    }
}

/// The iterator returned by [`ParallelBridge::par_bridge`]. Item order is not kept.
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct IterBridge<I> {
    iter: I,
}

impl<I> ParallelIterator for IterBridge<I>
where
    I: Iterator + Send,
    I::Item: Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let workers = worker_count();
        let one_worker = workers == 1;
        let shared = Shared {
            iter: PullLock::new(self.iter),
            // A piece per worker, and one to spare for a worker whose piece ends early. With
            // one worker, one piece.
            splits_left: AtomicUsize::new(if one_worker { 0 } else { workers }),
            one_worker,
        };
        bridge_unindexed(BridgeProducer { shared: &shared }, consumer)
    }
}

/// What the pieces of one bridge share.
struct Shared<I> {
    iter: PullLock<I>,
    /// How many more pieces may be split off.
    splits_left: AtomicUsize,
    /// The pool has one worker: the one piece holds the lock throughout.
    one_worker: bool,
}

struct BridgeProducer<'s, I> {
    shared: &'s Shared<I>,
}

impl<I> UnindexedProducer for BridgeProducer<'_, I>
where
    I: Iterator + Send,
    I::Item: Send,
{
    type Item = I::Item;

    fn split(self) -> (Self, Option<Self>) {
        // ORDERING: only the count matters; the RMW hands out each split once. Relaxed.
        let took =
            self.shared
                .splits_left
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        match took {
            Ok(_) => (
                BridgeProducer {
                    shared: self.shared,
                },
                Some(self),
            ),
            Err(_) => (self, None),
        }
    }

    fn fold_with<F: Folder<I::Item>>(self, folder: F) -> F {
        let Some(_running) = RunningPiece::enter(self.shared) else {
            // Nested in another piece of this bridge on this thread: see the module doc.
            return folder;
        };
        if self.shared.one_worker {
            fold_holding(&self.shared.iter, folder)
        } else {
            fold_pulling(&self.shared.iter, folder)
        }
    }
}

thread_local! {
    /// The bridges (the addresses of their `Shared`) that have a piece running on this
    /// thread, innermost last.
    static RUNNING: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Marks a piece of a bridge as running on this thread, until dropped.
struct RunningPiece {
    bridge: usize,
}

impl RunningPiece {
    /// Marks a piece of `shared`'s bridge as running here; `None` if one already is. A
    /// `Shared` lives until all its pieces have returned, so its address names one bridge.
    fn enter<I>(shared: &Shared<I>) -> Option<Self> {
        let bridge = shared as *const Shared<I> as usize;
        RUNNING.with_borrow_mut(|running| {
            if running.contains(&bridge) {
                return None;
            }
            running.push(bridge);
            Some(RunningPiece { bridge })
        })
    }
}

impl Drop for RunningPiece {
    fn drop(&mut self) {
        // Pieces on one thread nest, so they end innermost first, unwinding or not.
        let last = RUNNING.with_borrow_mut(Vec::pop);
        debug_assert_eq!(last, Some(self.bridge));
    }
}

/// The one piece of a one-worker pool: no other thread pulls, so it holds the lock while it
/// processes items, calling `next()` once per item consumed. A panic while holding leaves
/// the lock done (`Hold`).
fn fold_holding<I: Iterator, F: Folder<I::Item>>(lock: &PullLock<I>, mut folder: F) -> F {
    let mut hold = match lock.try_hold() {
        Ok(hold) => hold,
        // Only a piece on this same thread could hold it, and a second piece there ends at
        // once: not expected, but pulling one item per lock is right whatever happens.
        Err(Pull::Held) => return fold_pulling(lock, folder),
        Err(_) => return folder,
    };
    while !folder.full() {
        match hold.next() {
            Some(item) => folder = folder.consume(item),
            None => break,
        }
        // A piece may pull for ever: in a cancelled region it stops between two items.
        stop_if_cancelled();
    }
    hold.release();
    folder
}

/// A piece of a pool of several workers: one item per lock, waiting as the module doc says.
fn fold_pulling<I: Iterator, F: Folder<I::Item>>(lock: &PullLock<I>, mut folder: F) -> F {
    let mut wait = LockWait::new();
    while !folder.full() {
        match lock.try_pull() {
            Pull::Item(item) => {
                wait.pulled();
                // This piece may run long: let an idle worker take a piece still private to
                // this thread.
                offer_forks();
                folder = folder.consume(item);
                // A piece may pull for ever: in a cancelled region it stops between items.
                stop_if_cancelled();
            }
            Pull::Held => {
                if !wait.until_free(lock) {
                    break;
                }
            }
            Pull::Done => break,
        }
    }
    folder
}

/// How one piece waits for the lock (see the module doc).
struct LockWait {
    /// When this piece first found the lock held since it last pulled an item.
    since: Option<Instant>,
    /// Whether this piece's next wait may start by spinning: its last pull found the lock
    /// free at once. A piece that had to wait for its last item, on a lock other pieces
    /// take in a tight loop, looks at the lock only between yields or sleeps, so that the
    /// puller keeps the cache line and runs at nearly its uncontended speed.
    spin: bool,
    /// Whether this piece runs inside a wait of its worker: asked at its first long wait.
    inside_a_wait: Option<bool>,
}

impl LockWait {
    fn new() -> Self {
        LockWait {
            since: None,
            spin: true,
            inside_a_wait: None,
        }
    }

    /// An item was pulled: the next wait starts afresh.
    #[inline]
    fn pulled(&mut self) {
        self.spin = self.since.is_none();
        self.since = None;
    }

    /// Waits until the lock no longer looks held: true, the caller tries again. False if the
    /// piece should end instead: it runs inside a wait of its worker and has waited
    /// [`NESTED_PATIENCE`] since it last pulled an item.
    #[cold]
    fn until_free<I: Iterator>(&mut self, lock: &PullLock<I>) -> bool {
        let since = match self.since {
            Some(since) => since,
            None => {
                let now = Instant::now();
                self.since = Some(now);
                if self.spin && spin_until_free(lock) {
                    return true;
                }
                now
            }
        };
        let patient = !*self.inside_a_wait.get_or_insert_with(inside_a_wait);
        loop {
            let waited = since.elapsed();
            if !patient && waited >= NESTED_PATIENCE {
                return false;
            }
            offer_forks();
            if !help_busy_pool() {
                if waited < YIELD_FOR {
                    thread::yield_now();
                } else {
                    thread::sleep((waited / 16).clamp(MIN_SLEEP, MAX_SLEEP));
                }
            }
            if !lock.is_held() {
                return true;
            }
        }
    }
}

/// Spins a few microseconds for the lock: round `r` pauses `2^r` times between two loads of
/// the lock word. Whether it came free.
fn spin_until_free<I: Iterator>(lock: &PullLock<I>) -> bool {
    for round in 0..SPIN_ROUNDS {
        for _ in 0..1u32 << round {
            spin_loop();
        }
        if !lock.is_held() {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iter::{IntoParallelIterator, IntoParallelRefIterator};
    use crate::ThreadPoolBuilder;

    /// A sequential iterator whose `next()` itself runs parallel work on the same pool.
    struct NestedParallel {
        next: u64,
        end: u64,
    }

    impl Iterator for NestedParallel {
        type Item = u64;

        fn next(&mut self) -> Option<u64> {
            if self.next == self.end {
                return None;
            }
            self.next += 1;
            let inner: u64 = (0..1000u64).into_par_iter().map(|x| x % 7).sum();
            Some(self.next * 1_000_000 + inner)
        }
    }

    #[test]
    fn source_that_uses_the_pool_does_not_deadlock() {
        let inner: u64 = (0..1000u64).map(|x| x % 7).sum();
        let expected: u64 = (1..=200u64).map(|i| i * 1_000_000 + inner).sum();
        for threads in [1, 2, 3, 8] {
            let pool = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let total: u64 = pool.install(|| {
                NestedParallel { next: 0, end: 200 }
                    .par_bridge()
                    .map(|x| {
                        // Work per item that itself forks, to invite stealing.
                        let v: Vec<u64> = (0..64).collect();
                        x + v.par_iter().map(|_| 0).sum::<u64>()
                    })
                    .sum()
            });
            assert_eq!(total, expected, "{threads} threads");
        }
    }

    #[test]
    fn every_item_arrives_exactly_once() {
        for threads in [1, 2, 8] {
            let pool = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut got: Vec<u32> = pool.install(|| (0..10_000u32).par_bridge().collect());
            got.sort_unstable();
            assert_eq!(got, (0..10_000).collect::<Vec<_>>(), "{threads} threads");
        }
    }

    /// A piece marks its bridge as running on its thread: a second piece of the same bridge
    /// there is refused until the first ends, a piece of another bridge is not.
    #[test]
    fn a_second_piece_of_a_bridge_on_one_thread_is_refused() {
        let shared = |n: u32| Shared {
            iter: PullLock::new(0..n),
            splits_left: AtomicUsize::new(0),
            one_worker: false,
        };
        let (first, second) = (shared(1), shared(2));
        let outer = RunningPiece::enter(&first).expect("nothing runs yet");
        assert!(RunningPiece::enter(&first).is_none());
        let other = RunningPiece::enter(&second).expect("another bridge");
        assert!(RunningPiece::enter(&second).is_none());
        drop(other);
        drop(outer);
        assert!(RunningPiece::enter(&first).is_some());
        // On another thread, nothing of this one's runs.
        thread::scope(|scope| {
            let _mine = RunningPiece::enter(&first).unwrap();
            scope.spawn(|| assert!(RunningPiece::enter(&first).is_some()));
        });
    }

    thread_local! {
        /// Set while this thread holds an item pulled by `Watched` that no consumer saw yet.
        static HOLDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// `0..end`, checking that the thread calling `next()` holds no item it pulled before.
    struct Watched {
        next: u32,
        end: u32,
    }

    impl Iterator for Watched {
        type Item = u32;

        fn next(&mut self) -> Option<u32> {
            assert!(
                !HOLDING.get(),
                "next() called while holding an unprocessed item"
            );
            if self.next == self.end {
                return None;
            }
            HOLDING.set(true);
            self.next += 1;
            Some(self.next - 1)
        }
    }

    #[test]
    fn no_piece_calls_next_while_it_holds_an_item() {
        for threads in [1, 2, 8] {
            let pool = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let sum: u64 = pool.install(|| {
                Watched {
                    next: 0,
                    end: 20_000,
                }
                .par_bridge()
                .map(|x| {
                    HOLDING.set(false);
                    u64::from(x)
                })
                .sum()
            });
            assert_eq!(sum, 20_000 * 19_999 / 2, "{threads} threads");
        }
    }

    /// An endless source stops once the consumer is full, and every item of a finite one
    /// arrives once.
    #[test]
    fn an_endless_source_stops_when_the_search_is_done() {
        for threads in [1, 2, 3] {
            let pool = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let found = pool.install(|| (0u64..).par_bridge().find_any(|&x| x == 5_000));
            assert_eq!(found, Some(5_000), "{threads} threads");
            let any = pool.install(|| (0u64..).par_bridge().any(|x| x > 100_000));
            assert!(any, "{threads} threads");
            for n in [0u32, 1, 63, 64, 65, 1000] {
                let mut got: Vec<u32> = pool.install(|| (0..n).par_bridge().collect());
                got.sort_unstable();
                assert!(got.iter().copied().eq(0..n), "{threads} threads, {n} items");
            }
        }
    }
}
