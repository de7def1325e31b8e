//! `par_bridge`: runs a sequential `Iterator + Send` in parallel. The iterator sits behind
//! a mutex; every piece of work repeatedly takes the lock, pulls a batch of items, releases
//! the lock and processes the batch.
//!
//! A batch starts at one item and grows (doubling, up to [`MAX_BATCH`]) while pulling and
//! processing a batch takes well under [`BATCH_TIME`], and shrinks when it takes longer: so
//! cheap items pay for the lock (two atomic RMWs, and with several workers a cache line that
//! moves between cores) once per 64 items instead of once per item, while slow items, or a
//! slow `next()` such as a channel's, still go out one at a time (a worker never sits on
//! items others could run, nor waits for a batch to fill). At one thread (pinned, thread CPU
//! time), summing a cheap map over a slice's iterator took 1.10x Rayon's time with one item
//! per lock and takes 0.23x with batches; over a channel's receiver, 1.05x and 0.67x.
//!
//! No worker ever *blocks* on the lock: `next()` is user code and may itself use weft
//! (join, par_iter), and a worker blocked on the lock while the holder waits for a job
//! that worker must finish would deadlock. So a piece uses `try_lock`, pausing between
//! attempts (see `drive::pause`), and if the lock stays busy for a bounded number of
//! attempts the piece simply ends. That is safe because the lock holder is itself a piece
//! that goes on pulling until the iterator is exhausted (or its consumer is full); the
//! cost is less parallelism when `next()` is very slow.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, TryLockError};
use std::time::{Duration, Instant};

use crate::drive::{pause, worker_count};
use crate::iter::plumbing::*;
use crate::iter::ParallelIterator;

/// How many failed `try_lock`s in a row a piece tolerates (pausing in between) before it
/// ends; at a few microseconds per pause, a `next()` slower than a few milliseconds makes
/// the waiting pieces give up.
const LOCK_ATTEMPTS_BEFORE_GIVING_UP: u32 = 1024;

/// The most items a piece pulls under one lock.
const MAX_BATCH: usize = 64;

/// About how long pulling and processing one batch should take: a batch faster than half
/// of it doubles the next one, one slower than twice it halves the next one.
const BATCH_TIME: Duration = Duration::from_micros(10);

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
        let shared = Shared {
            iter: Mutex::new(Some(self.iter)),
            splits_left: AtomicUsize::new(worker_count()),
        };
        bridge_unindexed(BridgeProducer { shared: &shared }, consumer)
    }
}

/// The iterator (`None` once exhausted) and how many more pieces may be made.
struct Shared<I> {
    iter: Mutex<Option<I>>,
    splits_left: AtomicUsize,
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

    fn fold_with<F: Folder<I::Item>>(self, mut folder: F) -> F {
        let mut batch: Vec<I::Item> = Vec::new();
        let mut size = 1;
        // One clock read per batch: each batch's end is the next one's start.
        let mut start = Instant::now();
        while !folder.full() {
            let more = self.pull(&mut batch, size);
            if batch.is_empty() {
                break;
            }
            folder = folder.consume_iter(batch.drain(..));
            if !more {
                break;
            }
            let end = Instant::now();
            size = next_batch_size(size, end.saturating_duration_since(start));
            start = end;
        }
        folder
    }
}

/// The size of the batch after one of `size` items that took `took` to pull and process.
fn next_batch_size(size: usize, took: Duration) -> usize {
    if took < BATCH_TIME / 2 {
        (size * 2).min(MAX_BATCH)
    } else if took > BATCH_TIME * 2 {
        (size / 2).max(1)
    } else {
        size
    }
}

impl<I: Iterator> BridgeProducer<'_, I> {
    /// Pulls up to `size` items into `batch` under one lock. False when there will be no
    /// more: the iterator is exhausted (it then yielded fewer), or the lock stayed busy
    /// (then the current holder carries on; see the module doc).
    fn pull(&self, batch: &mut Vec<I::Item>, size: usize) -> bool {
        for attempt in 0..LOCK_ATTEMPTS_BEFORE_GIVING_UP {
            match self.shared.iter.try_lock() {
                Ok(mut guard) => return pull_or_exhaust(&mut guard, batch, size),
                // A panic in `next()` poisoned the lock; it propagates through the holder's
                // join, so this piece just stops.
                Err(TryLockError::Poisoned(_)) => return false,
                Err(TryLockError::WouldBlock) => pause(attempt),
            }
        }
        false
    }
}

/// Moves up to `size` items of the iterator in `slot` into `batch`; if it yields fewer, it
/// is exhausted and dropped. Whether it may yield more.
fn pull_or_exhaust<I: Iterator>(
    slot: &mut Option<I>,
    batch: &mut Vec<I::Item>,
    size: usize,
) -> bool {
    let Some(iter) = slot.as_mut() else {
        return false;
    };
    let before = batch.len();
    batch.extend(iter.by_ref().take(size));
    if batch.len() - before < size {
        *slot = None;
        return false;
    }
    true
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

    /// Batches grow on cheap items and shrink on slow ones: `next_batch_size` doubles up to
    /// `MAX_BATCH` below half of `BATCH_TIME` and halves down to one above twice it.
    #[test]
    fn batches_follow_the_time_they_take() {
        let fast = BATCH_TIME / 4;
        let slow = BATCH_TIME * 4;
        assert_eq!(next_batch_size(1, fast), 2);
        assert_eq!(next_batch_size(MAX_BATCH, fast), MAX_BATCH);
        assert_eq!(next_batch_size(8, BATCH_TIME), 8);
        assert_eq!(next_batch_size(8, slow), 4);
        assert_eq!(next_batch_size(1, slow), 1);
    }

    /// An endless source stops once the consumer is full, batches or not, and a source
    /// whose `next()` ends mid-batch hands out every item once.
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
