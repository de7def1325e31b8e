//! Latches: one-shot "this is done" signals.
//!
//! | latch        | waited on by                  | how the waiter waits                   |
//! |--------------|-------------------------------|----------------------------------------|
//! | [`SpinLatch`]  | a worker, for `join`'s stolen half | executes other jobs, may sleep     |
//! | [`LockLatch`]  | a thread outside the pool     | blocks on a condition variable         |
//! | [`CountLatch`] | a scope or broadcast owner    | either of the above, when the count hits 0 |
//!
//! Ordering contract (every latch): everything the setting thread wrote before `set` is
//! visible to a thread that afterwards observes the latch as set (`probe` or a finished
//! `wait`). The core latch's state also drives the sleep protocol: a worker announces
//! SLEEPY, then SLEEPING, and a setter that sees SLEEPING must wake that worker
//! (`pool/sleep/README.md`, *latch-set-while-falling-asleep*).

use super::registry::Registry;
use super::worker::WorkerThread;
use crate::sync::atomic::{AtomicUsize, Ordering};
use crate::sync::{Condvar, Mutex};
use std::sync::Arc;

/// A latch that can be set from any thread.
pub(crate) trait Latch {
    /// Sets the latch, waking its waiter if needed.
    ///
    /// # Safety
    /// `this` must be valid when the call starts. The waiter may free the latch as soon as it
    /// observes it set, so implementations touch `*this` no more after the store that sets it.
    unsafe fn set(this: *const Self);
}

/// Latches a worker can wait on while it keeps executing jobs.
pub(crate) trait AsCoreLatch {
    /// The core latch whose state the waiting worker and the sleep protocol share.
    fn as_core_latch(&self) -> &CoreLatch;
}

const UNSET: usize = 0;
/// The owner is about to sleep (it will look for work once more first).
const SLEEPY: usize = 1;
/// The owner is asleep: a setter must wake it.
const SLEEPING: usize = 2;
const SET: usize = 3;

/// The state word shared by a waiting worker and whoever sets its latch.
///
/// Transitions: UNSET → SLEEPY → SLEEPING → UNSET by the owner; any state → SET by the setter.
#[derive(Debug)]
pub(crate) struct CoreLatch {
    state: AtomicUsize,
}

impl CoreLatch {
    pub(crate) fn new() -> Self {
        CoreLatch {
            state: AtomicUsize::new(UNSET),
        }
    }

    /// Owner: announce that it is about to sleep. False if the latch is already set.
    pub(crate) fn get_sleepy(&self) -> bool {
        // ORDERING: only the state itself is communicated; the owner re-checks for work
        // after this under the sleep protocol's SeqCst counter operations.
        self.state
            .compare_exchange(UNSET, SLEEPY, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// Owner: commit to sleeping. False if the latch was set in the meantime.
    pub(crate) fn fall_asleep(&self) -> bool {
        // ORDERING: performed under the sleeper's mutex; a setter that reads SLEEPING takes
        // that same mutex before waking, which orders everything after this CAS.
        self.state
            .compare_exchange(SLEEPY, SLEEPING, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// Owner: back from SLEEPY or SLEEPING to UNSET, unless the latch was set.
    pub(crate) fn wake_up(&self) {
        if !self.probe() {
            // ORDERING: the owner's private bookkeeping; failure (SET) is fine and the
            // Acquire in `probe` above already synchronised with a setter that got here first.
            let _ =
                self.state
                    .compare_exchange(SLEEPING, UNSET, Ordering::Relaxed, Ordering::Relaxed);
            let _ =
                self.state
                    .compare_exchange(SLEEPY, UNSET, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// Setter: set the latch; true if the owner was asleep and must be woken.
    ///
    /// # Safety
    /// `this` must be valid; it may be freed as soon as this swap is visible.
    #[inline]
    pub(crate) unsafe fn set(this: *const Self) -> bool {
        // ORDERING: Release publishes the job's result to the owner's Acquire in `probe`;
        // Acquire makes a SLEEPING state written by the owner visible, together with what the
        // owner did before it (the wake-up then goes through the owner's mutex anyway).
        // SAFETY: `this` is valid at the start of the call (this function's contract).
        let old = unsafe { (*this).state.swap(SET, Ordering::AcqRel) };
        old == SLEEPING
    }

    /// Back to UNSET, for a latch that is set again later (a worker's stop latch, when the
    /// pool grows back before the worker retired). The caller excludes every setter and the
    /// owner is not waiting on it (the registry's resize lock, held in the owner's main loop).
    pub(crate) fn reset(&self) {
        // ORDERING: the exclusion above is a lock, which orders this store with the next set.
        self.state.store(UNSET, Ordering::Relaxed);
    }

    /// True once the latch is set.
    #[inline]
    pub(crate) fn probe(&self) -> bool {
        // ORDERING: pairs with the Release in `set`: after seeing SET the owner may read the
        // job's result.
        self.state.load(Ordering::Acquire) == SET
    }
}

impl AsCoreLatch for CoreLatch {
    fn as_core_latch(&self) -> &CoreLatch {
        self
    }
}

/// The latch of `join`'s second half: the owner executes other jobs until it is set.
///
/// Only a worker of the owner's own pool can run the job (it sits in that pool's deques),
/// and that worker holds an `Arc` to the registry, so the setter may use the registry after
/// the owner (and this latch) are gone; it copies what it needs before setting.
#[derive(Debug)]
pub(crate) struct SpinLatch<'w> {
    core: CoreLatch,
    owner: &'w WorkerThread,
}

impl<'w> SpinLatch<'w> {
    #[inline]
    pub(crate) fn new(owner: &'w WorkerThread) -> Self {
        SpinLatch {
            core: CoreLatch::new(),
            owner,
        }
    }

    /// The core latch, for waiting on it.
    #[inline]
    pub(crate) fn as_core(&self) -> &CoreLatch {
        &self.core
    }
}

impl AsCoreLatch for SpinLatch<'_> {
    fn as_core_latch(&self) -> &CoreLatch {
        &self.core
    }
}

impl Latch for SpinLatch<'_> {
    unsafe fn set(this: *const Self) {
        // SAFETY: `this` and its owner are valid until the core latch is set, so we copy
        // the registry pointer and the index out first. The registry outlives this call
        // because the setting thread is a worker of it (see the type's doc).
        let (registry, index): (*const Registry, usize) = unsafe {
            let owner = (*this).owner;
            (Arc::as_ptr(owner.registry()), owner.index())
        };
        // SAFETY: `this` is still valid here; after this call we touch only our copies.
        if unsafe { CoreLatch::set(std::ptr::addr_of!((*this).core)) } {
            // SAFETY: the registry outlives this call (see above).
            unsafe { (*registry).notify_worker_latch_is_set(index) };
        }
    }
}

/// The latch of a job injected into another pool by one of this pool's workers (`install`
/// from a foreign worker): the setter belongs to the other pool, so it keeps the waiter's
/// registry alive itself while it wakes the waiter.
#[derive(Debug)]
pub(crate) struct CrossLatch {
    core: CoreLatch,
    registry: Arc<Registry>,
    index: usize,
}

impl CrossLatch {
    pub(crate) fn new(waiter: &WorkerThread) -> Self {
        CrossLatch {
            core: CoreLatch::new(),
            registry: Arc::clone(waiter.registry()),
            index: waiter.index(),
        }
    }
}

impl AsCoreLatch for CrossLatch {
    fn as_core_latch(&self) -> &CoreLatch {
        &self.core
    }
}

impl Latch for CrossLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: `this` is valid until the core latch is set; copy what we need first.
        let (registry, index) = unsafe { (Arc::clone(&(*this).registry), (*this).index) };
        // SAFETY: still valid; nothing of `*this` is touched afterwards.
        if unsafe { CoreLatch::set(std::ptr::addr_of!((*this).core)) } {
            registry.notify_worker_latch_is_set(index);
        }
    }
}

/// A latch for threads outside the pool: they block on a condition variable.
#[derive(Debug)]
pub(crate) struct LockLatch {
    is_set: Mutex<bool>,
    changed: Condvar,
}

impl LockLatch {
    pub(crate) fn new() -> Self {
        LockLatch {
            is_set: Mutex::new(false),
            changed: Condvar::new(),
        }
    }

    /// Blocks until the latch is set, then resets it (for thread-local reuse).
    pub(crate) fn wait_and_reset(&self) {
        let mut is_set = self.is_set.lock().unwrap_or_else(|e| e.into_inner());
        while !*is_set {
            is_set = self.changed.wait(is_set).unwrap_or_else(|e| e.into_inner());
        }
        *is_set = false;
    }

    /// Blocks until the latch is set.
    pub(crate) fn wait(&self) {
        let mut is_set = self.is_set.lock().unwrap_or_else(|e| e.into_inner());
        while !*is_set {
            is_set = self.changed.wait(is_set).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Latch for LockLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: `this` is valid at the start; the waiter cannot observe the flag, and so
        // cannot free the latch, before we release the mutex, and `notify_all` happens while
        // we still hold it.
        let this = unsafe { &*this };
        let mut is_set = this.is_set.lock().unwrap_or_else(|e| e.into_inner());
        *is_set = true;
        this.changed.notify_all();
    }
}

/// A reference to a latch that lives elsewhere (broadcast jobs share one [`CountLatch`]).
#[derive(Debug)]
pub(crate) struct LatchRef<'a, L>(pub(crate) &'a L);

impl<L: Latch> Latch for LatchRef<'_, L> {
    unsafe fn set(this: *const Self) {
        // SAFETY: `this` is valid at the start, and the referenced latch outlives the
        // reference; `L::set` keeps the same promise about its own pointer.
        unsafe { L::set((*this).0) }
    }
}

/// Counts outstanding tasks; set when the count reaches zero.
#[derive(Debug)]
pub(crate) struct CountLatch {
    counter: AtomicUsize,
    kind: CountLatchKind,
}

#[derive(Debug)]
enum CountLatchKind {
    /// The owner is a worker: it keeps executing jobs while it waits.
    Stealing {
        core: CoreLatch,
        registry: Arc<Registry>,
        worker_index: usize,
    },
    /// The owner is outside the pool: it blocks.
    Blocking { latch: LockLatch },
}

impl CountLatch {
    /// A latch with count `count`, waited on by worker `owner` of `registry` (None: a thread
    /// outside the pool).
    pub(crate) fn new(count: usize, owner: Option<(&Arc<Registry>, usize)>) -> Self {
        let kind = match owner {
            Some((registry, worker_index)) => CountLatchKind::Stealing {
                core: CoreLatch::new(),
                registry: Arc::clone(registry),
                worker_index,
            },
            None => CountLatchKind::Blocking {
                latch: LockLatch::new(),
            },
        };
        CountLatch {
            counter: AtomicUsize::new(count),
            kind,
        }
    }

    /// One more task to wait for. Only called by someone who holds a count already, so the
    /// latch cannot have been set.
    pub(crate) fn increment(&self) {
        // ORDERING: the caller holds a count, so the counter cannot reach zero concurrently;
        // the task's data is published by the deque/injector push that follows.
        let old = self.counter.fetch_add(1, Ordering::Relaxed);
        debug_assert!(old != 0, "weft: CountLatch incremented after it was set");
    }

    /// The core latch when the owner is a worker (None for a blocking owner).
    pub(crate) fn core(&self) -> Option<&CoreLatch> {
        match &self.kind {
            CountLatchKind::Stealing { core, .. } => Some(core),
            CountLatchKind::Blocking { .. } => None,
        }
    }

    /// Blocks a thread outside the pool until the count is zero.
    pub(crate) fn wait_blocking(&self) {
        match &self.kind {
            CountLatchKind::Blocking { latch } => latch.wait(),
            CountLatchKind::Stealing { .. } => {
                unreachable!("weft: a worker must wait on its CountLatch by stealing")
            }
        }
    }
}

impl Latch for CountLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: `this` is valid at the start of the call.
        let latch = unsafe { &*this };
        // ORDERING: Release publishes this task's writes; AcqRel so that the thread that takes
        // the count to zero also sees every other task's writes before it sets the inner
        // latch, whose own Release hands all of them to the owner.
        if latch.counter.fetch_sub(1, Ordering::AcqRel) != 1 {
            return;
        }
        match &latch.kind {
            CountLatchKind::Stealing {
                core,
                registry,
                worker_index,
            } => {
                // The owner may free `*this` once the core latch is set: keep the registry.
                let registry = Arc::clone(registry);
                let index = *worker_index;
                // SAFETY: `core` is valid until this store makes it visible as set.
                if unsafe { CoreLatch::set(core) } {
                    registry.notify_worker_latch_is_set(index);
                }
            }
            // SAFETY: `latch` is valid; LockLatch::set keeps its own promise.
            CountLatchKind::Blocking { latch } => unsafe { LockLatch::set(latch) },
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! The latch's visibility contract: what the setter wrote before `set` is seen by the
    //! waiter after it observes the latch set.
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;

    use super::{CoreLatch, Latch, LockLatch};
    use crate::sync::thread;

    #[test]
    fn loom_core_latch_publishes_the_result() {
        loom::model(|| {
            let shared = Arc::new((CoreLatch::new(), UnsafeCell::new(0u32)));
            let setter = {
                let shared = shared.clone();
                thread::spawn(move || {
                    // SAFETY: only the setter writes, before `set`; the reader reads after
                    // `probe` saw the latch set (loom checks this claim).
                    shared.1.with_mut(|p| unsafe { *p = 42 });
                    // SAFETY: the latch lives in the Arc we hold.
                    unsafe { CoreLatch::set(&shared.0) };
                })
            };
            while !shared.0.probe() {
                thread::yield_now();
            }
            // SAFETY: the latch is set, so the write above happened before this read.
            assert_eq!(shared.1.with(|p| unsafe { *p }), 42);
            setter.join().unwrap();
        });
    }

    #[test]
    fn loom_lock_latch_wakes_the_waiter() {
        loom::model(|| {
            let latch = Arc::new(LockLatch::new());
            let setter = {
                let latch = latch.clone();
                // SAFETY: the latch lives in the Arc the setter holds.
                thread::spawn(move || unsafe { LockLatch::set(&*latch) })
            };
            latch.wait();
            setter.join().unwrap();
        });
    }
}
