//! The state a `JoinHandle` shares with its task: one atomic word, the result and a waker.
//!
//! ## The state word
//!
//! | bit | name | set by | meaning |
//! |---|---|---|---|
//! | 0 | `CLAIMED` | whoever runs the function (a queue's worker, or `join` inline) | the function was taken |
//! | 1 | `COMPLETE` | the claimer, after writing `result` | the result is ready |
//! | 2 | `HAS_WAKER` | the handle (set / cleared) | `waker` holds a waker the completer must wake |
//! | 3 | `DETACHED` | the handle's `Drop` | nobody will read the result |
//!
//! ## Who may touch what
//! - `result`: written once by the claimer before it sets `COMPLETE`; then read (taken) by
//!   the handle after it saw `COMPLETE`, or by the claimer if it saw `DETACHED` when it
//!   set `COMPLETE` (then no handle exists any more).
//! - `waker`: written only by the handle, and only while `HAS_WAKER` is clear in a state it
//!   read with `COMPLETE` clear (it then owns the slot: the completer reads the waker only if
//!   its `COMPLETE` RMW saw `HAS_WAKER`). Read (`wake_by_ref`, `will_wake`: shared reads) by
//!   the completer and the handle. Dropped with the slot.
//!
//! ## Orderings
//!
//! | operation | ordering | pairs with |
//! |---|---|---|
//! | `claim`: `fetch_or(CLAIMED)` | Relaxed | none: only its atomicity (one winner) matters |
//! | `complete`: `fetch_or(COMPLETE)` | AcqRel | Release: the result, to the handle's Acquire; Acquire: the waker, from the handle's Release `fetch_or(HAS_WAKER)` |
//! | `poll`: `load` | Acquire | the completer's Release |
//! | `poll`: `fetch_and(!HAS_WAKER)` | Acquire | the completer's Release, when it returns `COMPLETE` |
//! | `poll`: `fetch_or(HAS_WAKER)` | AcqRel | Release: the new waker, to the completer; Acquire: the result if `COMPLETE` |
//! | `detach`: `fetch_or(DETACHED)` | Acquire | the completer's Release, when it returns `COMPLETE` |
//!
//! No SeqCst: every decision reads one word, and each race is settled by the order of RMWs
//! on it. **register-vs-complete**: the handle's `fetch_or(HAS_WAKER)` and the completer's
//! `fetch_or(COMPLETE)` are RMWs on one word, so one sees the other: either the completer
//! sees `HAS_WAKER` and wakes the waker, or the handle sees `COMPLETE` and takes the result
//! itself. **replace-vs-complete**: to replace a waker the handle first clears `HAS_WAKER`;
//! if that RMW returns `COMPLETE`, the completer may be reading the old waker, so the handle
//! leaves it alone and takes the result. **claim**: the queue's worker and an inline `join`
//! both `fetch_or(CLAIMED)`; the one that saw it clear runs the function, the other never
//! touches it. loom models: `loom_tests.rs`.

use std::mem;
use std::task::{Poll, Waker};

use super::super::job::JobResult;
use super::super::unwind::{self, PanicPayload};
use crate::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use crate::sync::thread;
use crate::sync::UnsafeCell;

const CLAIMED: usize = 1 << 0;
const COMPLETE: usize = 1 << 1;
const HAS_WAKER: usize = 1 << 2;
const DETACHED: usize = 1 << 3;

/// What [`Slot::complete`] leaves to its caller.
pub(crate) enum Completion<T> {
    /// The handle has the result, or will take it; its waker, if any, was woken.
    Delivered,
    /// The handle is gone: the caller disposes of the result.
    Detached(JobResult<T>),
    /// The handle's waker panicked when woken: the caller delivers the panic (the result is
    /// the handle's, as for `Delivered`).
    WakerPanicked(PanicPayload),
}

/// The result of a task, its waker, and the state word that orders them (see the module doc).
pub(crate) struct Slot<T> {
    state: AtomicUsize,
    result: UnsafeCell<JobResult<T>>,
    waker: UnsafeCell<Option<Waker>>,
}

// SAFETY: the cells are accessed as the module doc describes, each access ordered by the state
// word; a `T` crosses threads (claimer to handle), hence `T: Send`, and is never shared.
unsafe impl<T: Send> Sync for Slot<T> {}

impl<T> Slot<T> {
    pub(crate) fn new() -> Self {
        Slot {
            state: AtomicUsize::new(0),
            result: UnsafeCell::new(JobResult::Pending),
            waker: UnsafeCell::new(None),
        }
    }

    /// A slot whose claim is taken already: its task (a future, `future.rs`) completes it,
    /// through whichever worker polls it to its end.
    pub(crate) fn claimed() -> Self {
        Slot {
            state: AtomicUsize::new(CLAIMED),
            ..Slot::new()
        }
    }

    /// True for exactly one caller: the one that runs the task's function.
    pub(crate) fn claim(&self) -> bool {
        // ORDERING: only who wins matters (RMW atomicity); the function itself reached both
        // contenders before (through the queue's push and pop, or with the handle).
        self.state.fetch_or(CLAIMED, Ordering::Relaxed) & CLAIMED == 0
    }

    /// True once the result is ready.
    pub(crate) fn is_complete(&self) -> bool {
        // ORDERING: Acquire so that a caller who then reads the result through `poll` may;
        // `poll` loads again anyway.
        self.state.load(Ordering::Acquire) & COMPLETE != 0
    }

    /// Stores the result and wakes the handle's waker, if any. What is left to the caller:
    /// the result if the handle is gone, the waker's panic if waking it panicked.
    ///
    /// # Safety
    /// Only the thread that won [`claim`](Self::claim) calls this, once.
    pub(crate) unsafe fn complete(&self, result: JobResult<T>) -> Completion<T> {
        // SAFETY: nobody reads `result` before `COMPLETE` is set, and only the claimer
        // writes it (this function's contract).
        self.result.with_mut(|slot| unsafe { *slot = result });
        // ORDERING: see the module's table (Release: result; Acquire: waker).
        let old = self.state.fetch_or(COMPLETE, Ordering::AcqRel);
        if old & DETACHED != 0 {
            // SAFETY: the handle is gone (it set DETACHED before our COMPLETE, so it did not
            // see the result): we are the only one left to touch it.
            let result = self.result.with_mut(|slot| unsafe { take(slot) });
            return Completion::Detached(result);
        }
        if old & HAS_WAKER != 0 {
            // SAFETY: HAS_WAKER was set before COMPLETE, so the handle will not write the
            // waker again (it must clear HAS_WAKER first, and that RMW now returns COMPLETE);
            // our Acquire saw the write that preceded its Release of HAS_WAKER.
            let woken = self.waker.with(|waker| {
                // SAFETY: a shared read; see above for why no write can overlap it.
                let waker = unsafe { &*waker };
                // The waker is user code: its panic must not unwind through the completer
                // (a worker). The result is the handle's all the same.
                unwind::halt_unwinding(|| waker.as_ref().map(Waker::wake_by_ref))
            });
            if let Err(payload) = woken {
                return Completion::WakerPanicked(payload);
            }
        }
        Completion::Delivered
    }

    /// The handle's poll: the result if it is ready, else registers `waker` (replacing an
    /// earlier one unless it would wake the same task) to be woken once it is.
    ///
    /// # Safety
    /// Only the handle's owner calls this (never two at once), and never again after it
    /// returned `Ready` or after [`detach`](Self::detach).
    pub(crate) unsafe fn poll(&self, waker: &Waker) -> Poll<JobResult<T>> {
        // ORDERING: Acquire pairs with the completer's Release (module table).
        let state = self.state.load(Ordering::Acquire);
        if state & COMPLETE != 0 {
            // SAFETY: COMPLETE seen with Acquire; the handle is the result's only reader.
            return Poll::Ready(unsafe { self.take_result() });
        }
        if state & HAS_WAKER != 0 {
            let same = self.waker.with(|current| {
                // SAFETY: the waker is written only by us (the handle), and the completer
                // only reads it: shared reads cannot race.
                unsafe { &*current }
                    .as_ref()
                    .is_some_and(|current| current.will_wake(waker))
            });
            if same {
                return Poll::Pending;
            }
            // Take the waker slot back before writing it (*replace-vs-complete*).
            // ORDERING: Acquire pairs with the completer's Release if COMPLETE is returned.
            let old = self.state.fetch_and(!HAS_WAKER, Ordering::Acquire);
            if old & COMPLETE != 0 {
                // SAFETY: as above; the completer may be waking the old waker, which we leave.
                return Poll::Ready(unsafe { self.take_result() });
            }
        }
        // HAS_WAKER is clear and COMPLETE was clear when we cleared it (or first read it):
        // the completer will not read the waker until we set HAS_WAKER again.
        // SAFETY: we own the waker slot (see the line above).
        self.waker
            .with_mut(|slot| unsafe { *slot = Some(waker.clone()) });
        // ORDERING: Release publishes the waker (*register-vs-complete*); Acquire pairs with
        // the completer's Release if COMPLETE is returned.
        let old = self.state.fetch_or(HAS_WAKER, Ordering::AcqRel);
        if old & COMPLETE != 0 {
            // SAFETY: as above; the completer did not see HAS_WAKER and will not wake.
            return Poll::Ready(unsafe { self.take_result() });
        }
        Poll::Pending
    }

    /// Blocks the calling thread (parks it) until the result is ready, and returns it.
    ///
    /// # Safety
    /// As for [`poll`](Self::poll).
    pub(crate) unsafe fn wait_blocking(&self) -> JobResult<T> {
        let unparker = Unparker::for_this_thread();
        let waker = Waker::from(std::sync::Arc::clone(&unparker));
        loop {
            // SAFETY: forwarded from this function's contract.
            if let Poll::Ready(result) = unsafe { self.poll(&waker) } {
                return result;
            }
            // The result itself is ordered by the state word, which the next `poll` reads.
            unparker.park_until_woken();
        }
    }

    /// The handle is dropped: returns the result if it is already there (the caller drops
    /// it), else marks the slot so that the completer disposes of it.
    ///
    /// # Safety
    /// Only the handle's owner calls this, once, and never polls afterwards.
    pub(crate) unsafe fn detach(&self) -> Option<JobResult<T>> {
        // ORDERING: Acquire pairs with the completer's Release if COMPLETE is returned.
        let old = self.state.fetch_or(DETACHED, Ordering::Acquire);
        if old & COMPLETE != 0 {
            // SAFETY: COMPLETE seen with Acquire; the completer saw no DETACHED, so it left
            // the result to us.
            return Some(unsafe { self.take_result() });
        }
        None
    }

    /// The registered waker, taken out (by the task's last owner, to drop it where a panic
    /// of its drop is caught).
    pub(crate) fn take_waker(&mut self) -> Option<Waker> {
        // SAFETY: `&mut self`: nobody else touches the slot.
        self.waker.with_mut(|waker| unsafe { (*waker).take() })
    }

    /// # Safety
    /// `COMPLETE` was observed with Acquire by the handle, the result's only reader.
    unsafe fn take_result(&self) -> JobResult<T> {
        // SAFETY: forwarded from this function's contract.
        self.result.with_mut(|slot| unsafe { take(slot) })
    }
}

/// # Safety
/// `slot` is valid and nobody else accesses it during the call.
unsafe fn take<T>(slot: *mut JobResult<T>) -> JobResult<T> {
    // SAFETY: forwarded from this function's contract.
    mem::replace(unsafe { &mut *slot }, JobResult::Pending)
}

/// The waker of a thread that parks until it is woken ([`Slot::wait_blocking`], and
/// `block_on` outside any pool).
pub(crate) struct Unparker {
    thread: thread::Thread,
    /// Set by a wake, cleared by the waiting thread when it goes on.
    woken: AtomicBool,
}

impl Unparker {
    /// A waker of the calling thread.
    pub(crate) fn for_this_thread() -> std::sync::Arc<Self> {
        std::sync::Arc::new(Unparker {
            thread: thread::current(),
            woken: AtomicBool::new(false),
        })
    }

    /// Parks the calling thread (the one the waker was made for) until a wake came since the
    /// last call, and consumes that wake.
    pub(crate) fn park_until_woken(&self) {
        // ORDERING: Acquire pairs with the Release swap of the wake: what the waker wrote
        // before waking is seen after this returns.
        while !self.woken.swap(false, Ordering::Acquire) {
            thread::park();
        }
    }
}

impl std::task::Wake for Unparker {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        // ORDERING: pairs with the Acquire swap in `park_until_woken`.
        self.woken.swap(true, Ordering::Release);
        self.thread.unpark();
    }
}
