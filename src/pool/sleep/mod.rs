//! Sleeping and waking idle workers: an idle pool uses no CPU, new work wakes as few
//! sleepers as it needs, and no wake-up is lost. Design and named races: `README.md` in this
//! folder (*sleepy-then-publish*, *publish-while-last-searcher-leaves*,
//! *latch-set-while-falling-asleep*, *fork-while-falling-asleep*).

mod counters;
#[cfg(all(test, loom))]
mod loom_tests;

pub(crate) use counters::MAX_WORKERS;
use counters::{Counters, ONE_IDLE, ONE_JOBS_EVENT, ONE_SLEEPING};
use crossbeam_utils::CachePadded;

use super::latch::CoreLatch;
use super::slots::Slots;
use crate::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use crate::sync::{thread, Condvar, Mutex};

/// Search rounds (each a `yield_now`) before a worker becomes sleepy: a few microseconds of
/// spinning so that a burst of fine-grained work does not pay a futex wake per job.
const ROUNDS_UNTIL_SLEEPY: u32 = if cfg!(all(test, loom)) { 1 } else { 32 };

/// Shared sleep state of one pool.
#[derive(Debug)]
pub(crate) struct Sleep {
    /// The packed word of `counters.rs`; read on every `join` (a hint), written when workers
    /// go idle, sleep, wake, or when work is published. Padded: it is the one hot shared word.
    counters: CachePadded<AtomicU64>,
    /// One per worker slot; padded so that waking one worker does not disturb its
    /// neighbours. Grows with the pool (`grow`), never shrinks: a retired worker's entry
    /// waits for the next worker of its index.
    workers: Slots<CachePadded<WorkerSleepState>>,
    /// How many entries of `workers` wakers look at: every slot a worker has ever used.
    len: AtomicUsize,
}

#[derive(Debug)]
struct WorkerSleepState {
    /// True while the worker is parked on `wake`; written under this mutex only.
    is_blocked: Mutex<bool>,
    wake: Condvar,
    /// The isolation context (`isolate::Tag` bits) the worker last went to sleep in; read by
    /// `new_job_for` to wake a sleeper that may run a set-aside job.
    context: AtomicU64,
}

impl WorkerSleepState {
    fn new() -> CachePadded<Self> {
        CachePadded::new(WorkerSleepState {
            is_blocked: Mutex::new(false),
            wake: Condvar::new(),
            context: AtomicU64::new(0),
        })
    }
}

/// A worker's progress towards sleep while it looks for work.
#[derive(Debug)]
pub(crate) struct IdleState {
    worker_index: usize,
    /// The isolation context the worker searches in (`isolate::Tag` bits).
    context: u64,
    rounds: u32,
    /// The jobs event read when the worker became sleepy.
    jobs_event: u32,
}

impl IdleState {
    /// True for the search round after which the worker becomes sleepy: once per trip
    /// towards sleep, the moment for the searches too costly for every round.
    #[inline]
    pub(crate) fn becoming_sleepy(&self) -> bool {
        self.rounds == ROUNDS_UNTIL_SLEEPY
    }
}

impl Sleep {
    pub(crate) fn new(num_workers: usize) -> Sleep {
        assert!(num_workers <= MAX_WORKERS);
        Sleep {
            counters: CachePadded::new(AtomicU64::new(0)),
            workers: Slots::new(num_workers, |_| WorkerSleepState::new()),
            len: AtomicUsize::new(num_workers),
        }
    }

    /// Makes room for workers `0..num_workers` (a growing pool), before any of the new
    /// workers starts. Callers serialize (the registry's resize lock).
    pub(crate) fn grow(&self, num_workers: usize) {
        assert!(num_workers <= MAX_WORKERS);
        self.workers
            .ensure(num_workers, |_| WorkerSleepState::new());
        // ORDERING: Release, paired with the Acquire in `workers`: a waker that sees the new
        // length sees the entries. A waker cannot miss a new worker that sleeps: the worker
        // starts after this store, and its registering CAS on the counter word is what a
        // waker's RMW reads `sleeping` from, so the waker's later Acquire load of `len`
        // sees this store (*wake-a-new-worker* in `README.md`).
        // Growth is serialized, so a load and a store do.
        if num_workers > self.len.load(Ordering::Relaxed) {
            self.len.store(num_workers, Ordering::Release);
        }
    }

    /// The entries wakers look at (see `len`).
    fn workers(&self) -> impl Iterator<Item = (usize, &WorkerSleepState)> {
        // ORDERING: pairs with the Release in `grow`.
        let len = self.len.load(Ordering::Acquire);
        (0..len).map(|index| (index, &**self.workers.get(index)))
    }

    /// True if some worker is looking for work: `join` publishes its oldest fork then.
    #[inline]
    pub(crate) fn anyone_idle(&self) -> bool {
        // ORDERING: a hint. Missing an idle worker for a while costs parallelism, never
        // correctness: a fork nobody takes is run by its owner.
        counters::anyone_idle(self.counters.load(Ordering::Relaxed))
    }

    /// A worker thread is being started: it counts as idle (it will look for work as soon
    /// as it runs) until [`worker_arrived`](Self::worker_arrived): workers that fork meanwhile
    /// publish their oldest fork for it.
    pub(crate) fn worker_arriving(&self) {
        self.counters.fetch_add(ONE_IDLE, Ordering::SeqCst);
    }

    /// The worker counted by [`worker_arriving`](Self::worker_arriving) enters its loop (and
    /// will count itself when it looks for work), or was dropped without running.
    pub(crate) fn worker_arrived(&self) {
        self.stop_looking(false);
    }

    /// A worker starts looking for work, in isolation context `context`.
    pub(crate) fn start_looking(&self, worker_index: usize, context: u64) -> IdleState {
        self.counters.fetch_add(ONE_IDLE, Ordering::SeqCst);
        IdleState {
            worker_index,
            context,
            rounds: 0,
            jobs_event: 0,
        }
    }

    /// A worker stops looking. If it found work and was the last awake searcher while others
    /// sleep, it wakes one to keep searching (*publish-while-last-searcher-leaves*).
    pub(crate) fn stop_looking(&self, found_work: bool) {
        let old = Counters::unpack(self.counters.fetch_sub(ONE_IDLE, Ordering::SeqCst));
        if found_work && old.awake_idle() == 1 && old.sleeping > 0 {
            self.wake_any(1);
        }
    }

    /// A worker left the search for good (it retires) and no longer counts as idle. A
    /// publisher may have counted it as an awake searcher and woken nobody: if no awake
    /// searcher is left while some worker sleeps, wake one (*retire-while-searching* in
    /// `README.md`). At worst a woken worker finds nothing and sleeps again.
    pub(crate) fn searcher_retired(&self) {
        // SeqCst: after this worker's own RMW that uncounted it, so a publisher that counted
        // it comes earlier in the word's order and this load sees its sleepers.
        let now = Counters::unpack(self.counters.load(Ordering::SeqCst));
        if now.awake_idle() == 0 && now.sleeping > 0 {
            self.wake_any(1);
        }
    }

    /// One search round found nothing: spin, get sleepy, or sleep. `has_work` is the last
    /// look for work before parking. True if the worker parked (and has been woken).
    pub(crate) fn no_work_found(
        &self,
        idle: &mut IdleState,
        latch: &CoreLatch,
        has_work: impl FnOnce() -> bool,
    ) -> bool {
        if idle.rounds < ROUNDS_UNTIL_SLEEPY {
            idle.rounds += 1;
            thread::yield_now();
            false
        } else if idle.rounds == ROUNDS_UNTIL_SLEEPY {
            // SeqCst: this read must come after every publication it does not see in the
            // single order of counter operations (*sleepy-then-publish*).
            idle.jobs_event = Counters::unpack(self.counters.load(Ordering::SeqCst)).jobs_event;
            idle.rounds += 1;
            thread::yield_now();
            false
        } else {
            self.sleep(idle, latch, has_work)
        }
    }

    /// Parks the worker unless work or its latch turned up; true if it parked.
    #[cold]
    fn sleep(
        &self,
        idle: &mut IdleState,
        latch: &CoreLatch,
        has_work: impl FnOnce() -> bool,
    ) -> bool {
        if !latch.get_sleepy() {
            return false;
        }
        let state = self.workers.get(idle.worker_index);
        let mut is_blocked = state.is_blocked.lock().unwrap_or_else(|e| e.into_inner());
        if !latch.fall_asleep() {
            idle.rounds = 0;
            latch.wake_up();
            return false;
        }
        // ORDERING: read by `new_job_for` after its SeqCst RMW on the counter word, which
        // comes after our registering CAS below (else that CAS fails and we do not sleep);
        // the CAS is a release, so this store is visible to it.
        state.context.store(idle.context, Ordering::Relaxed);
        // Register as sleeping only if no work was published since we got sleepy.
        let mut word = self.counters.load(Ordering::SeqCst);
        loop {
            if Counters::unpack(word).jobs_event != idle.jobs_event {
                idle.rounds = 0;
                latch.wake_up();
                return false;
            }
            match self.counters.compare_exchange_weak(
                word,
                word + ONE_SLEEPING,
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => break,
                Err(current) => word = current,
            }
        }
        // Belt and braces: work that became visible between the last search and the CAS.
        if has_work() {
            self.counters.fetch_sub(ONE_SLEEPING, Ordering::SeqCst);
            idle.rounds = 0;
            latch.wake_up();
            return false;
        }
        *is_blocked = true;
        while *is_blocked {
            is_blocked = state
                .wake
                .wait(is_blocked)
                .unwrap_or_else(|e| e.into_inner());
        }
        // Whoever woke us already took us out of `sleeping`.
        drop(is_blocked);
        idle.rounds = 0;
        latch.wake_up();
        true
    }

    /// `num_jobs` jobs were just published (the push happens before this call): abort
    /// pending sleeps and wake sleepers if no awake searcher can take them.
    pub(crate) fn new_jobs(&self, num_jobs: usize) {
        let old = Counters::unpack(self.counters.fetch_add(ONE_JOBS_EVENT, Ordering::SeqCst));
        if old.sleeping == 0 {
            return;
        }
        let awake = old.awake_idle();
        if awake < num_jobs {
            self.wake_any((num_jobs - awake).min(old.sleeping));
        }
    }

    /// One job that only some workers may run was published (a job set aside by an isolated
    /// worker; `eligible` says, from a sleeper's recorded context, whether it may run it).
    /// Unlike `new_jobs`, awake searchers are not trusted to take it (they may be isolated
    /// elsewhere): one eligible sleeper is woken if there is one
    /// (*set-aside-while-eligible-worker-sleeps* in `pool/isolate.rs`).
    pub(crate) fn new_job_for(&self, eligible: impl Fn(u64) -> bool) {
        let old = Counters::unpack(self.counters.fetch_add(ONE_JOBS_EVENT, Ordering::SeqCst));
        if old.sleeping == 0 {
            return;
        }
        for (index, state) in self.workers() {
            // ORDERING: pairs with the store in `sleep`, ordered by the counter RMWs (see
            // there); a context written after a sleeper woke may be stale, which costs at
            // most a wake-up of a worker that finds nothing.
            if eligible(state.context.load(Ordering::Relaxed)) && self.wake_specific(index) {
                return;
            }
        }
    }

    /// Jobs were pushed to the private queues of every worker (broadcast): every sleeper must
    /// wake, since only its own worker can run each job.
    pub(crate) fn new_jobs_for_all(&self) {
        self.counters.fetch_add(ONE_JOBS_EVENT, Ordering::SeqCst);
        for (index, _) in self.workers() {
            self.wake_specific(index);
        }
    }

    /// The latch worker `index` waits on was set while it slept.
    pub(crate) fn notify_worker_latch_is_set(&self, index: usize) {
        self.wake_specific(index);
    }

    fn wake_any(&self, mut count: usize) {
        for (index, _) in self.workers() {
            if count == 0 {
                return;
            }
            if self.wake_specific(index) {
                count -= 1;
            }
        }
    }

    /// Wakes worker `index` if it is asleep; true if it was.
    fn wake_specific(&self, index: usize) -> bool {
        let state = self.workers.get(index);
        let mut is_blocked = state.is_blocked.lock().unwrap_or_else(|e| e.into_inner());
        if !*is_blocked {
            return false;
        }
        *is_blocked = false;
        state.wake.notify_one();
        // Under the sleeper's mutex, so `sleeping` never counts a worker that is awake.
        self.counters.fetch_sub(ONE_SLEEPING, Ordering::SeqCst);
        true
    }
}
