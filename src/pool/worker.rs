//! `WorkerThread`: the state a worker keeps for itself (its deque, its private fork stack,
//! its victim RNG), reached through a thread-local pointer, and the search loop
//! (own deque → own broadcast queue → injector → random victims).
//!
//! ## Private forks, published on demand
//! `join(a, b)` does not put `b` on the crossbeam deque. It records `b` on the worker's
//! *fork stack*, a plain array only this thread touches, and pops it back after `a`: on one
//! busy thread a join costs a few stores and loads. Forks are published — moved, oldest
//! first, to the crossbeam deque where thieves can steal them — only when the sleep counters
//! say some worker is idle, and only while the deque is empty, so that at most one
//! unclaimed fork per worker sits in the deque. Published forks always form a prefix
//! (`0..published`) of the fork stack, because the oldest fork is the largest piece of work
//! and the first one a thief should get.

use std::cell::Cell;
use std::ptr;
use std::sync::Arc;

use crossbeam_deque::{Steal, Worker};

use super::job::JobRef;
use super::latch::{AsCoreLatch, CoreLatch};
use super::registry::Registry;
use super::stats::Event;
use super::trace::TraceWriter;

/// Forks a worker keeps privately; deeper recursions publish the excess directly.
const FORK_CAPACITY: usize = 128;

/// Unpublished forks a worker keeps before further joins stop forking (`join` then runs
/// both closures in place). Thieves take the oldest fork first, and the oldest few are the
/// largest pieces of a recursion; forking deeper only costs time (chili's join makes the
/// same observation). Measured on fib and tree sums: 3 and 4 tie, 1 starves thieves.
const MAX_PRIVATE_FORKS: usize = 3;

/// `push_fork`'s answer when the fork went straight to the deque.
const PUBLISHED_DIRECTLY: usize = usize::MAX;

thread_local! {
    /// The worker running on this thread, or null. Set for the whole life of a worker thread.
    static CURRENT: Cell<*const WorkerThread> = const { Cell::new(ptr::null()) };
}

/// The per-thread state of one worker.
pub(crate) struct WorkerThread {
    deque: Worker<JobRef>,
    forks: ForkStack,
    index: usize,
    rng: XorShift64Star,
    registry: Arc<Registry>,
    /// Set if the pool records (`pool/trace`): every recording point tests this field.
    trace: Option<TraceWriter>,
}

impl std::fmt::Debug for WorkerThread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerThread")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

/// The private fork stack. Only the owning thread touches it (`WorkerThread` is `!Sync`).
struct ForkStack {
    slots: [Cell<JobRef>; FORK_CAPACITY],
    /// Forks in `slots[..len]` are pending, the newest at `len - 1`.
    len: Cell<usize>,
    /// Forks in `slots[..published]` were moved to the deque.
    published: Cell<usize>,
}

impl WorkerThread {
    pub(crate) fn new(deque: Worker<JobRef>, index: usize, registry: Arc<Registry>) -> Self {
        WorkerThread {
            deque,
            forks: ForkStack {
                slots: [const { Cell::new(JobRef::noop()) }; FORK_CAPACITY],
                len: Cell::new(0),
                published: Cell::new(0),
            },
            index,
            rng: XorShift64Star::new(index as u64 + 1),
            trace: registry.trace_writer(index),
            registry,
        }
    }

    /// The worker running on the current thread, or null outside any pool.
    #[inline]
    pub(crate) fn current() -> *const WorkerThread {
        CURRENT.with(Cell::get)
    }

    /// Runs `body` with `self` installed as the current thread's worker.
    pub(crate) fn run_as_current<R>(&self, body: impl FnOnce() -> R) -> R {
        struct Reset;
        impl Drop for Reset {
            fn drop(&mut self) {
                CURRENT.with(|c| c.set(ptr::null()));
            }
        }
        CURRENT.with(|c| {
            assert!(c.get().is_null(), "weft: a thread can be only one worker");
            c.set(self);
        });
        let _reset = Reset;
        body()
    }

    /// Makes the current thread this worker for the rest of its life, without a worker loop
    /// (`ThreadPoolBuilder::use_current_thread`). The worker is leaked: the thread may be in
    /// the middle of a `join` on it at any later time, so no point is safe to free it.
    pub(crate) fn adopt_current_thread(self) {
        let worker: &'static WorkerThread = Box::leak(Box::new(self));
        CURRENT.with(|c| {
            assert!(c.get().is_null(), "weft: a thread can be only one worker");
            c.set(worker);
        });
    }

    pub(crate) fn index(&self) -> usize {
        self.index
    }

    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// This worker's trace writer, if its pool records.
    #[inline]
    pub(crate) fn trace(&self) -> Option<&TraceWriter> {
        self.trace.as_ref()
    }

    /// Runs `op`, which starts a parallel loop's range on this worker (see `pool/trace`).
    #[inline]
    pub(crate) fn trace_range<R>(&self, op: impl FnOnce() -> R) -> R {
        match &self.trace {
            None => op(),
            Some(trace) => trace.in_range(op),
        }
    }

    /// True when `join` need not fork: enough unpublished forks wait already.
    #[inline]
    pub(crate) fn has_enough_private_forks(&self) -> bool {
        self.forks.len.get() - self.forks.published.get() >= MAX_PRIVATE_FORKS
    }

    /// Records `job` (the `b` of a join) as a private fork; returns its slot for `pop_fork`.
    #[inline]
    pub(crate) fn push_fork(&self, job: JobRef) -> usize {
        let slot = self.forks.len.get();
        if slot == FORK_CAPACITY {
            self.push(job);
            return PUBLISHED_DIRECTLY;
        }
        self.forks.slots[slot].set(job);
        self.forks.len.set(slot + 1);
        self.offer_forks();
        slot
    }

    /// Takes the fork in `slot` back; true if it was never published (run it inline).
    #[inline]
    pub(crate) fn pop_fork(&self, slot: usize) -> bool {
        if slot == PUBLISHED_DIRECTLY {
            return false;
        }
        self.forks.len.set(slot);
        if slot >= self.forks.published.get() {
            return true;
        }
        self.forks.published.set(slot);
        false
    }

    /// True if some worker of this pool is looking for work (a hint: see `Sleep::anyone_idle`).
    #[inline]
    pub(crate) fn anyone_idle(&self) -> bool {
        self.registry.sleep.anyone_idle()
    }

    /// Whether work this worker started offering now would go to an idle worker: one is
    /// idle, and nothing of this worker's would be taken first, as its deque is empty and it
    /// holds no private fork (an offer publishes the oldest private fork, which is older and
    /// larger than any new work). If a worker is idle but something else comes first, that
    /// is offered instead (`offer_forks`). See `pool::idle_worker_needs_work`.
    #[inline]
    pub(crate) fn idle_worker_needs_work(&self) -> bool {
        if !self.anyone_idle() {
            return false;
        }
        if self.forks.published.get() < self.forks.len.get() || !self.deque.is_empty() {
            self.share_fork_cold();
            return false;
        }
        true
    }

    /// Publishes the oldest private fork if some worker is idle (see `pool::offer_forks`).
    #[inline]
    pub(crate) fn offer_forks(&self) {
        if self.anyone_idle() {
            self.share_fork_cold();
        }
    }

    /// Publishes the oldest private fork whether or not anyone is idle (see
    /// `pool::publish_fork`).
    #[inline]
    pub(crate) fn publish_fork(&self) {
        if self.forks.published.get() < self.forks.len.get() {
            self.share_fork_cold();
        }
    }

    /// If nothing of this worker's is stealable (its deque is empty) while a private fork
    /// waits, publishes the oldest private fork (in a pool of one, nobody could take it).
    /// A join deep in a recursion finds the deque holding an older fork and pays a few
    /// loads; the publishing push happens about once per stolen or reclaimed fork.
    #[inline]
    pub(crate) fn keep_one_fork_stealable(&self) {
        if self.forks.published.get() < self.forks.len.get()
            && self.registry.num_threads() > 1
            && self.deque.is_empty()
        {
            self.share_fork_cold();
        }
    }

    /// Someone is idle (or `publish_fork` asks): publish our oldest private fork, unless one
    /// already waits in the deque.
    #[cold]
    fn share_fork_cold(&self) {
        let oldest = self.forks.published.get();
        if oldest < self.forks.len.get() && self.deque.is_empty() {
            self.deque.push(self.forks.slots[oldest].get());
            self.forks.published.set(oldest + 1);
            self.note(Event::ForkPublished, 1);
            self.registry.sleep.new_jobs(1);
        }
    }

    /// Publishes every private fork: called before this worker waits, so that idle workers
    /// can take the forks of the frames it is suspended in.
    fn share_all_forks(&self) {
        let (start, end) = (self.forks.published.get(), self.forks.len.get());
        if start < end {
            for slot in &self.forks.slots[start..end] {
                self.deque.push(slot.get());
            }
            self.forks.published.set(end);
            self.note(Event::ForkPublished, (end - start) as u64);
            self.registry.sleep.new_jobs(end - start);
        }
    }

    /// True if this worker has forks or jobs of its own that have not run yet.
    pub(crate) fn has_pending_tasks(&self) -> bool {
        self.forks.len.get() > self.forks.published.get() || !self.deque.is_empty()
    }

    /// Pushes a job on this worker's deque, visible to thieves at once (spawn, overflow).
    pub(crate) fn push(&self, job: JobRef) {
        self.deque.push(job);
        self.registry.sleep.new_jobs(1);
    }

    /// Pops the newest job of this worker's deque.
    #[inline]
    pub(crate) fn take_local_job(&self) -> Option<JobRef> {
        self.deque.pop()
    }

    /// `job`, a published fork, is needed now: true if we popped it back (run it inline),
    /// false once a thief has run it and set `latch`.
    pub(crate) fn reclaim_fork(&self, job: JobRef, latch: &CoreLatch) -> bool {
        while !latch.probe() {
            match self.deque.pop() {
                Some(popped) if popped == job => return true,
                // SAFETY: jobs in our deque are live until executed (JobRef contract).
                Some(other) => unsafe { self.execute(other) },
                None => {
                    self.wait_until(latch);
                    return false;
                }
            }
        }
        false
    }

    /// Executes jobs until `latch` is set, sleeping when there is nothing to do.
    #[inline]
    pub(crate) fn wait_until<L: AsCoreLatch + ?Sized>(&self, latch: &L) {
        let core = latch.as_core_latch();
        if !core.probe() {
            self.wait_until_cold(core);
        }
    }

    #[cold]
    fn wait_until_cold(&self, latch: &CoreLatch) {
        self.share_all_forks();
        while !latch.probe() {
            if let Some(job) = self.take_local_job() {
                // SAFETY: jobs in our deque are live until executed.
                unsafe { self.execute(job) };
                continue;
            }
            let sleep = &self.registry.sleep;
            let mut idle = sleep.start_looking(self.index);
            let found = loop {
                if latch.probe() {
                    break None;
                }
                if let Some(job) = self.find_work() {
                    break Some(job);
                }
                let since = self.trace.as_ref().map(TraceWriter::now);
                if sleep.no_work_found(&mut idle, latch, || self.has_visible_work()) {
                    self.note(Event::Woken, 1);
                    if let (Some(trace), Some(since)) = (&self.trace, since) {
                        trace.slept(since);
                    }
                }
            };
            sleep.stop_looking(found.is_some());
            if let Some(job) = found {
                // SAFETY: a job taken from a queue is live until executed, and we own it.
                unsafe { self.execute(job) };
            }
        }
    }

    /// One search: own deque, own broadcast queue, the injector, then random victims.
    pub(crate) fn find_work(&self) -> Option<JobRef> {
        self.take_local_job()
            .or_else(|| self.registry.take_targeted_job(self.index))
            .or_else(|| {
                let job = self.registry.steal_injected();
                if job.is_some() {
                    self.note(Event::JobInjected, 1);
                    if let Some(trace) = &self.trace {
                        trace.took_injected();
                    }
                }
                job
            })
            .or_else(|| {
                let (job, victim) = self.steal_from_others()?;
                self.note(Event::JobStolen, 1);
                if let Some(trace) = &self.trace {
                    trace.stole_job(victim);
                }
                Some(job)
            })
    }

    /// A job stolen from another worker's deque, and that worker's index.
    fn steal_from_others(&self) -> Option<(JobRef, usize)> {
        let stealers = self.registry.num_threads();
        if stealers <= 1 {
            return None;
        }
        let start = self.rng.next_below(stealers);
        loop {
            let mut retry = false;
            for offset in 0..stealers {
                let victim = (start + offset) % stealers;
                if victim == self.index {
                    continue;
                }
                match self.registry.steal_from(victim) {
                    Steal::Success(job) => return Some((job, victim)),
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
            if !retry {
                return None;
            }
        }
    }

    fn has_visible_work(&self) -> bool {
        !self.deque.is_empty() || self.registry.has_visible_work(self.index)
    }

    /// Executes a job on this worker.
    ///
    /// # Safety
    /// `job` must be live and not executed before (the `JobRef` contract).
    #[inline]
    pub(crate) unsafe fn execute(&self, job: JobRef) {
        self.note(Event::JobExecuted, 1);
        if let Some(trace) = &self.trace {
            // SAFETY: forwarded from this function's contract.
            return unsafe { trace.execute(job) };
        }
        // SAFETY: forwarded from this function's contract.
        unsafe { job.execute() }
    }

    /// Adds to one of this worker's statistics counters.
    #[inline]
    pub(crate) fn note(&self, event: Event, n: u64) {
        self.registry.worker_stats(self.index).add(event, n);
    }
}

/// Victim selection: xorshift64*, seeded per worker; statistical quality is irrelevant.
struct XorShift64Star {
    state: Cell<u64>,
}

impl XorShift64Star {
    fn new(seed: u64) -> Self {
        XorShift64Star {
            state: Cell::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
        }
    }

    fn next_below(&self, bound: usize) -> usize {
        let mut x = self.state.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state.set(x);
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as usize % bound
    }
}
