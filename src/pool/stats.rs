//! Pool statistics: per-worker counters, cheap enough to leave on. Each counter has one
//! writer (its worker), which bumps it with a plain load and store, no read-modify-write;
//! readers sum the workers' counters with relaxed loads.

use std::ops::Sub;

use crossbeam_utils::CachePadded;

use crate::sync::atomic::{AtomicU64, Ordering};

/// A snapshot of a pool's counters, summed over its workers ([`ThreadPool::stats`]).
///
/// Counters only grow; subtract two snapshots to measure one operation.
///
/// ```
/// let pool = weft::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let before = pool.stats();
/// pool.install(|| weft::join(|| 1, || 2));
/// let delta = pool.stats() - before;
/// // One job came in from outside; with one worker nothing was stolen or published.
/// assert_eq!(delta.jobs_injected, 1);
/// assert_eq!((delta.jobs_stolen, delta.forks_published), (0, 0));
/// ```
///
/// [`ThreadPool::stats`]: crate::ThreadPool::stats
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Jobs run from a queue (own deque, injector, stolen, targeted); forks run inline by
    /// their own `join` are not jobs.
    pub jobs_executed: u64,
    /// Jobs taken from another worker's deque.
    pub jobs_stolen: u64,
    /// Jobs taken from the injector (submitted from outside the pool).
    pub jobs_injected: u64,
    /// `join` forks moved from a fork stack to a deque because a worker was idle.
    pub forks_published: u64,
    /// Indexed parallel loops (`par_iter`, ranges, `par_chunks`, ...) run as work-stealing
    /// index ranges: a worker owns a range, and an idle worker steals the upper half of
    /// what is left and owns that. This counts those steals, so it is how often a loop's
    /// work was divided between workers; 0 on a pool of one thread. Counted once per steal,
    /// never per item.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// let before = pool.stats();
    /// let sum: u64 = pool.install(|| (0..100_000u64).into_par_iter().sum());
    /// let delta = pool.stats() - before;
    /// assert_eq!(sum, 4_999_950_000);
    /// assert_eq!(delta.range_steals, 0); // nobody to steal
    /// assert!(delta.chunks_taken >= 1);
    /// ```
    pub range_steals: u64,
    /// Chunks owners claimed from their index ranges (see [`range_steals`](Self::range_steals)).
    /// An owner claims a run of items at a time, in chunks that grow while nobody steals
    /// (so about logarithmically in a loop's length, not with its items); chunks per loop
    /// show how finely loops were cut. Counted once per claim, never per item. Loops of
    /// at most 256 items that a worker folds whole on its short path make no claim and
    /// are not counted: on a pool of one thread, every such loop; in a larger pool, such
    /// a loop run inside an item of another loop the worker is running. Counting them
    /// cost two fifths of what a nested loop of 16 items added to the sequential code.
    pub chunks_taken: u64,
    /// Times a worker parked for lack of work and was woken again (by new work, by the
    /// latch it waited on, or by the pool's end).
    pub wakeups: u64,
}

impl Sub for PoolStats {
    type Output = PoolStats;

    fn sub(self, earlier: PoolStats) -> PoolStats {
        PoolStats {
            jobs_executed: self.jobs_executed - earlier.jobs_executed,
            jobs_stolen: self.jobs_stolen - earlier.jobs_stolen,
            jobs_injected: self.jobs_injected - earlier.jobs_injected,
            forks_published: self.forks_published - earlier.forks_published,
            range_steals: self.range_steals - earlier.range_steals,
            chunks_taken: self.chunks_taken - earlier.chunks_taken,
            wakeups: self.wakeups - earlier.wakeups,
        }
    }
}

/// Which counter to bump.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Event {
    JobExecuted,
    JobStolen,
    JobInjected,
    ForkPublished,
    RangeSteal,
    ChunkTaken,
    Woken,
}

/// One worker's counters; padded so that workers never share a cache line.
#[derive(Debug, Default)]
pub(crate) struct WorkerStats(CachePadded<[AtomicU64; 7]>);

impl WorkerStats {
    /// Adds `n` to a counter. Only the owning worker may call this.
    #[inline]
    pub(crate) fn add(&self, event: Event, n: u64) {
        let counter = &self.0[event as usize];
        // ORDERING: a single writer (the owning worker), so load + store loses nothing;
        // readers want an eventually-consistent count, not synchronisation.
        counter.store(counter.load(Ordering::Relaxed) + n, Ordering::Relaxed);
    }

    pub(crate) fn add_to(&self, total: &mut PoolStats) {
        // ORDERING: statistics only; see `add`.
        let get = |event: Event| self.0[event as usize].load(Ordering::Relaxed);
        total.jobs_executed += get(Event::JobExecuted);
        total.jobs_stolen += get(Event::JobStolen);
        total.jobs_injected += get(Event::JobInjected);
        total.forks_published += get(Event::ForkPublished);
        total.range_steals += get(Event::RangeSteal);
        total.chunks_taken += get(Event::ChunkTaken);
        total.wakeups += get(Event::Woken);
    }
}
