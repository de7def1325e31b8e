//! Sleeping and waking idle workers: an idle pool uses no CPU, new work wakes as few
//! sleepers as it needs, and no wake-up is lost. Design and named races: `README.md` in this
//! folder (*sleepy-then-publish*, *publish-while-last-searcher-leaves*,
//! *latch-set-while-falling-asleep*, *idle-while-gate-opens*, *gate-leaves*).

use std::ptr;

mod counters;
mod gate;
#[cfg(all(test, loom))]
mod loom_tests;

pub(crate) use counters::MAX_WORKERS;
use counters::{Counters, ONE_IDLE, ONE_JOBS_EVENT, ONE_SLEEPING};
use crossbeam_utils::CachePadded;
pub(crate) use gate::Gate;

use super::latch::CoreLatch;
use crate::sync::atomic::{self, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
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
    /// One per worker; padded so that waking one worker does not disturb its neighbours.
    workers: Vec<CachePadded<WorkerSleepState>>,
    /// Where each worker's join gate (`gate.rs`) is: in the worker thread's own thread-local
    /// storage once it registers (`register_gate`), so that `join` reads it at a fixed
    /// offset from the thread pointer; in `spare_gates` before that and after it leaves.
    gates: Box<[AtomicPtr<Gate>]>,
    /// A gate per worker for the time its own is not registered (nobody reads these on a
    /// `join` fast path; an owner that is not registered never opens one).
    spare_gates: Box<[Gate]>,
    /// Workers inside `start_looking`'s closing loop, which dereferences `gates`: a worker
    /// leaving waits for zero before its thread-local gate may be freed (*gate-leaves*).
    closing: CachePadded<AtomicUsize>,
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

impl Sleep {
    pub(crate) fn new(num_workers: usize) -> Sleep {
        assert!(num_workers <= MAX_WORKERS);
        let mut sleep = Sleep {
            counters: CachePadded::new(AtomicU64::new(0)),
            workers: (0..num_workers)
                .map(|_| {
                    CachePadded::new(WorkerSleepState {
                        is_blocked: Mutex::new(false),
                        wake: Condvar::new(),
                        context: AtomicU64::new(0),
                    })
                })
                .collect(),
            gates: Box::default(),
            spare_gates: (0..num_workers).map(|_| Gate::closed()).collect(),
            closing: CachePadded::new(AtomicUsize::new(0)),
        };
        // The spares do not move from here on (a boxed slice).
        sleep.gates = (sleep.spare_gates.iter())
            .map(|spare| AtomicPtr::new(ptr::from_ref(spare).cast_mut()))
            .collect();
        sleep
    }

    /// Worker `index`'s join gate: its registered one, else its spare. For the owner (the
    /// reference must not outlive its registration) and the models.
    pub(crate) fn gate(&self, index: usize) -> &Gate {
        // ORDERING: Acquire pairs with the Release store that registered the gate; the
        // owner reads its own store anyway.
        let gate = self.gates[index].load(Ordering::Acquire);
        // SAFETY: a spare (owned by `self`) or a registered gate, which stays valid until
        // `unregister_gate(index)`, called by the owner only; callers are that owner.
        unsafe { &*gate }
    }

    /// Makes `gate` worker `index`'s join gate, in place of its spare (the owner, once, before
    /// it can open a gate; `gate` is closed).
    ///
    /// # Safety
    /// `gate` must stay valid until [`unregister_gate`](Self::unregister_gate)`(index)`
    /// returns, and be written only through this module's protocol meanwhile.
    pub(crate) unsafe fn register_gate(&self, index: usize, gate: &Gate) {
        // ORDERING: Release publishes the gate; the SeqCst fence orders this store before the
        // owner's later reads of `idle` against each closer's fence (*gate-leaves*): a worker
        // that started looking and then closed the spare is counted in `idle` when the owner
        // first opens this gate.
        self.gates[index].store(ptr::from_ref(gate).cast_mut(), Ordering::Release);
        atomic::fence(Ordering::SeqCst);
    }

    /// Worker `index` (the owner) takes its gate back: once this returns, no other thread
    /// touches it, and `gate(index)` is the spare again (*gate-leaves*).
    pub(crate) fn unregister_gate(&self, index: usize) {
        let spare = &self.spare_gates[index];
        // ORDERING: the store then the SeqCst fence, against each closer's increment of
        // `closing` then its fence: whichever fence comes first in the single order, either
        // the closer loads the spare, or the load of `closing` below counts the closer.
        self.gates[index].store(ptr::from_ref(spare).cast_mut(), Ordering::Release);
        atomic::fence(Ordering::SeqCst);
        // ORDERING: Acquire synchronizes with each closer's Release decrement (the RMWs in
        // between continue its release sequence): its swap on the old gate is done.
        while self.closing.load(Ordering::Acquire) != 0 {
            thread::yield_now();
        }
    }

    /// Worker `index` (the caller) holds enough private forks to run `join`s in place: opens
    /// its gate unless some worker is idle (*idle-while-gate-opens*).
    pub(crate) fn open_gate(&self, index: usize) {
        let gate = self.gate(index);
        gate.open();
        // ORDERING: Relaxed suffices: the swap in `open` acquired from every idle worker
        // whose closing swap it replaced (see `gate.rs`); a worker that closed the spare
        // instead is seen through the fences of `register_gate` and `start_looking`.
        if counters::anyone_idle(self.counters.load(Ordering::Relaxed)) {
            gate.reclose();
        }
    }

    /// True if some worker is looking for work: `join` publishes a private fork then.
    #[inline]
    pub(crate) fn anyone_idle(&self) -> bool {
        // ORDERING: a hint. Missing an idle worker for a while costs parallelism, never
        // correctness: every private fork is run by its owner if nobody takes it.
        counters::anyone_idle(self.counters.load(Ordering::Relaxed))
    }

    /// A worker thread is being started: it counts as idle (it will look for work as soon
    /// as it runs) until [`worker_arrived`](Self::worker_arrived). The gates start closed,
    /// and an owner opening its gate sees this count (*idle-while-gate-opens*).
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
        // After the increment: an owner that opens its gate over this CLOSED sees it.
        // ORDERING: Relaxed increment, then the SeqCst fence that orders it (and the `idle`
        // increment) against `unregister_gate`'s and `register_gate`'s (*gate-leaves*).
        self.closing.fetch_add(1, Ordering::Relaxed);
        atomic::fence(Ordering::SeqCst);
        for (index, gate) in self.gates.iter().enumerate() {
            if index != worker_index {
                // ORDERING: Acquire pairs with `register_gate`'s Release store.
                let gate = gate.load(Ordering::Acquire);
                // SAFETY: a spare (owned by `self`), or a registered gate: its owner's
                // `unregister_gate` does not return while `closing` counts this loop and the
                // load above could have read it (*gate-leaves*).
                unsafe { &*gate }.close_for_idle();
            }
        }
        // ORDERING: Release: `unregister_gate`'s Acquire load that reads zero then sees the
        // swaps above done.
        self.closing.fetch_sub(1, Ordering::Release);
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
        let state = &self.workers[idle.worker_index];
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
        for (index, state) in self.workers.iter().enumerate() {
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
        for index in 0..self.workers.len() {
            self.wake_specific(index);
        }
    }

    /// The latch worker `index` waits on was set while it slept.
    pub(crate) fn notify_worker_latch_is_set(&self, index: usize) {
        self.wake_specific(index);
    }

    fn wake_any(&self, mut count: usize) {
        for index in 0..self.workers.len() {
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
        let state = &self.workers[index];
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
