//! Cancellation: [`CancelToken`], [`cancellable`] and the regions they make.
//!
//! ## Regions
//! `cancellable(&token, op)` runs `op` in a *region*: a [`Region`] (the token and the
//! region it is nested in) that the worker running `op` points to from its `region` cell.
//! Work started in a region belongs to it wherever it runs:
//! - a `join`'s `b` carries the region's pointer: in a region the worker's fork stack takes
//!   no fork (`WorkerThread::fork_limit` is 0), so `b` takes the branch of a full stack and
//!   goes to the deque as a job of the region; whoever runs it runs it in the region (the
//!   region outlives the `join`, which waits for `b`). A join outside every region tests
//!   nothing more than before: the limit is a load where a constant was;
//! - a queued task (`spawn`, a scope's `spawn`, `spawn_handle`) holds the region by
//!   [`JobRegion`] (an `Arc`: a detached task may outlive `op`);
//! - a job the worker takes from a queue runs in the region it carries, none for most
//!   (`WorkerThread::execute` sets the cell from the job), so work outside the token is
//!   never stopped.
//!
//! ## Where work stops
//! A *stop* is an unwind with a [`Cancelled`] payload, from one of these points, once the
//! region's token or the token of a region around it is cancelled:
//! - not at a user's `join`: it always runs both closures, as Rayon guarantees ("no matter
//!   what happens, both closures will always be executed"), since unsafe code may rely on
//!   it (weft's own merge sort did); a stop inside one of them reaches the join's caller as
//!   that closure's panic would, after the other has run. The joins of weft's own drivers
//!   (a loop's steal-me, the split-in-half and fixed-tree drivers, `chain`) stop before
//!   their second closure: a stopped loop does not walk the rest of its tree;
//! - an owner loop between two blocks (`drive/owner.rs` calls [`stop_if_cancelled`]);
//! - a queued task before its closure runs ([`JobRegion::run`]): the closure is dropped;
//! - a `spawn` call in a stopped region.
//!
//! The unwind carries nothing partial upward: a stopped loop never returns. `cancellable`
//! catches it and returns `Err(Cancelled)`; every other panic passes through it unchanged,
//! and where a real panic and a stop meet (the two sides of a `join`, a scope's tasks), the
//! real panic wins: a scope keeps its first panic apart from its stops, and a thief's panic
//! in a region travels wrapped ([`carry_panic`]) so that a `join` that resumes its other
//! side's stop leaves it in the region, where `cancellable` resumes it instead.

use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::registry::Registry;
use super::unwind::{self, PanicPayload};
use super::worker::WorkerThread;

/// A flag that stops the work of [`cancellable`] regions: cancelled by hand with
/// [`cancel`](Self::cancel), or once its deadline passes (no timer thread: the work looks
/// at the clock where it looks at the flag). Clones share one flag. A weft extension.
///
/// ```
/// use std::time::Duration;
///
/// let token = weft::CancelToken::new();
/// assert!(!token.is_cancelled());
/// token.clone().cancel();
/// assert!(token.is_cancelled());
///
/// let expired = weft::CancelToken::with_timeout(Duration::ZERO);
/// assert!(expired.is_cancelled());
/// ```
#[derive(Clone, Debug, Default)]
pub struct CancelToken {
    state: Arc<TokenState>,
}

#[derive(Debug, Default)]
struct TokenState {
    cancelled: AtomicBool,
    deadline: Option<Instant>,
}

impl TokenState {
    #[inline]
    fn is_cancelled(&self) -> bool {
        // ORDERING: the flag carries no data; a stop only needs to see it soon, and a
        // reader ordered after `cancel` by happens-before sees it (coherence).
        if self.cancelled.load(Ordering::Relaxed) {
            return true;
        }
        match self.deadline {
            Some(deadline) if Instant::now() >= deadline => {
                // ORDERING: as above; later readers skip the clock.
                self.cancelled.store(true, Ordering::Relaxed);
                true
            }
            _ => false,
        }
    }
}

impl CancelToken {
    /// A token that is cancelled only by [`cancel`](Self::cancel).
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// A token cancelled once `timeout` has passed from now (or by `cancel`). A timeout too
    /// large for an `Instant` never expires.
    ///
    /// ```
    /// use std::time::Duration;
    /// let token = weft::CancelToken::with_timeout(Duration::from_secs(3600));
    /// assert!(!token.is_cancelled());
    /// ```
    pub fn with_timeout(timeout: Duration) -> CancelToken {
        match Instant::now().checked_add(timeout) {
            Some(deadline) => CancelToken::with_deadline(deadline),
            None => CancelToken::new(),
        }
    }

    /// A token cancelled once `deadline` has passed (or by `cancel`).
    ///
    /// ```
    /// let token = weft::CancelToken::with_deadline(std::time::Instant::now());
    /// assert!(token.is_cancelled());
    /// ```
    pub fn with_deadline(deadline: Instant) -> CancelToken {
        CancelToken {
            state: Arc::new(TokenState {
                cancelled: AtomicBool::new(false),
                deadline: Some(deadline),
            }),
        }
    }

    /// Cancels the token: the work of every region running with it stops taking new items
    /// and tasks. Idempotent.
    ///
    /// ```
    /// let token = weft::CancelToken::new();
    /// token.cancel();
    /// token.cancel();
    /// assert!(token.is_cancelled());
    /// ```
    pub fn cancel(&self) {
        // ORDERING: see `TokenState::is_cancelled`.
        self.state.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether the token is cancelled: by hand, or because its deadline has passed.
    ///
    /// ```
    /// let token = weft::CancelToken::new();
    /// assert!(!token.is_cancelled());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        self.state.is_cancelled()
    }

    /// The token's deadline, if it has one.
    ///
    /// ```
    /// let at = std::time::Instant::now();
    /// assert_eq!(weft::CancelToken::with_deadline(at).deadline(), Some(at));
    /// assert_eq!(weft::CancelToken::new().deadline(), None);
    /// ```
    pub fn deadline(&self) -> Option<Instant> {
        self.state.deadline
    }
}

/// The error of a [`cancellable`] region whose token was cancelled before its work ended;
/// also the payload of the unwind that stops that work (seen by code that catches unwinds
/// inside the region, or that joins a stopped task's handle outside it).
///
/// ```
/// let token = weft::CancelToken::new();
/// token.cancel();
/// assert_eq!(weft::cancellable(&token, || 1), Err(weft::Cancelled));
/// assert_eq!(weft::Cancelled.to_string(), "the work was cancelled");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the work was cancelled")
    }
}

impl std::error::Error for Cancelled {}

/// Runs `op` on the current pool (on the calling worker, or as `install` does from outside
/// any pool) in a region of `token`: once the token is cancelled, every loop, scope and
/// spawned task started inside `op`, on any worker and at any depth (inside `join`s too),
/// stops taking new items and tasks; items already running finish. Returns `Err(Cancelled)` if the token was
/// cancelled before `op` finished (then `op` did not run to its end: a stopped loop unwinds
/// out of it rather than return a partial result), else `op`'s result. A weft extension.
///
/// What stops where: an indexed loop between two blocks of its items (about 50 µs of them;
/// a block is one item for slow items); a scope's or pool's spawned task before it starts
/// (its closure is dropped without running); a `spawn` call; an
/// unindexed loop (`par_bridge`, `flat_map_iter` ...) between its pieces. Work `op` hands to
/// another pool (`ThreadPool::install`) belongs to the region too. Futures it spawns and
/// broadcasts are not stopped (a future's handle has no way to report it).
///
/// A `join` is not a place where work stops: it runs both closures whatever happens, as
/// Rayon guarantees and unsafe code may rely on. A stop inside one closure reaches the
/// `join`'s caller once the other has run, as a panic would; a recursion of bare `join`s
/// with no loop, scope or task inside runs to its end.
///
/// # Panics
/// A panic inside `op` propagates as a panic, also when the token is cancelled too.
///
/// A request handler with a deadline:
/// ```
/// use std::time::Duration;
/// use weft::prelude::*;
///
/// fn handle(input: &[u64], budget: Duration) -> Result<u64, weft::Cancelled> {
///     let token = weft::CancelToken::with_timeout(budget);
///     weft::cancellable(&token, || input.par_iter().map(|&x| x % 7).sum())
/// }
///
/// let input: Vec<u64> = (0..100_000).collect();
/// let want: u64 = input.iter().map(|&x| x % 7).sum();
/// assert_eq!(handle(&input, Duration::from_secs(60)), Ok(want));
/// assert_eq!(handle(&input, Duration::ZERO), Err(weft::Cancelled));
/// ```
pub fn cancellable<R: Send>(
    token: &CancelToken,
    op: impl FnOnce() -> R + Send,
) -> Result<R, Cancelled> {
    super::registry::in_worker(|worker, _| cancellable_on(worker, token, op))
}

/// `ThreadPool::cancellable`: [`cancellable`] on `registry`'s pool.
pub(super) fn cancellable_in<R: Send>(
    registry: &Arc<Registry>,
    token: &CancelToken,
    op: impl FnOnce() -> R + Send,
) -> Result<R, Cancelled> {
    registry.in_worker(|worker, _| cancellable_on(worker, token, op))
}

/// Runs `op` on `worker` in a new region of `token`, nested in the worker's current one.
fn cancellable_on<R>(
    worker: &WorkerThread,
    token: &CancelToken,
    op: impl FnOnce() -> R,
) -> Result<R, Cancelled> {
    if token.is_cancelled() {
        return Err(Cancelled);
    }
    let region = Arc::new(Region {
        token: Arc::clone(&token.state),
        parent: JobRegion::current_on(worker).0,
        panic: Mutex::new(None),
    });
    let result = worker.in_region(Arc::as_ptr(&region), || unwind::halt_unwinding(op));
    if let Err(payload) = &result {
        // A panic wins over a stop: one a stop hid on its way here, if any.
        let hidden = region
            .panic
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let (true, Some(panic)) = (is_stop(payload), hidden) {
            unwind::resume_unwinding(panic);
        }
    }
    match result {
        Ok(_) if token.is_cancelled() => Err(Cancelled),
        Ok(value) => Ok(value),
        // A stop of this region (or of one around it that is cancelled too: this region
        // ends either way, and the outer one stops at its next look).
        Err(payload) if is_stop(&payload) && token.is_cancelled() => Err(Cancelled),
        Err(payload) => unwind::resume_unwinding(payload),
    }
}

/// A region: the token of one `cancellable` call and the region that call was made in.
#[derive(Debug)]
pub(crate) struct Region {
    token: Arc<TokenState>,
    parent: Option<Arc<Region>>,
    /// A panic of the region's work that a stop would have hidden ([`carry_panic`]).
    panic: Mutex<Option<PanicPayload>>,
}

impl Region {
    /// Whether this region or one around it is cancelled.
    fn is_stopped(&self) -> bool {
        let mut region = Some(self);
        while let Some(current) = region {
            if current.token.is_cancelled() {
                return true;
            }
            region = current.parent.as_deref();
        }
        false
    }
}

/// Unwinds with a [`Cancelled`] payload if `region` (a worker's `region` cell: null outside
/// every region) is stopped.
///
/// # Safety
/// `region` is null or points to a live region (a worker's cell does: see `in_region`).
#[inline]
pub(super) unsafe fn stop_if_stopped(region: *const Region) {
    // SAFETY: forwarded from this function's contract.
    if !region.is_null() && unsafe { (*region).is_stopped() } {
        stop();
    }
}

/// Unwinds with a [`Cancelled`] payload (no panic message: `resume_unwind` skips the hook).
#[cold]
pub(super) fn stop() -> ! {
    unwind::resume_unwinding(Box::new(Cancelled))
}

/// Whether a caught unwind is a stop rather than a panic.
pub(super) fn is_stop(payload: &PanicPayload) -> bool {
    payload.is::<Cancelled>()
}

/// For code that runs long between joins (a loop's owner between two blocks): unwinds with
/// a [`Cancelled`] payload if the current work belongs to a region that is cancelled.
#[inline]
pub(crate) fn stop_if_cancelled() {
    WorkerThread::with_current(|worker| {
        if let Some(worker) = worker {
            // SAFETY: a worker's region cell is null or points to a live region.
            unsafe { stop_if_stopped(worker.region()) }
        }
    })
}

/// Runs `op` where no stop can unwind through it. For internal code that keeps values in
/// places only it knows about across its joins (the merge sort moves them between the
/// slice and a buffer): its joins, loops and tasks run outside every region, so it runs to
/// its end. The caller then calls [`stop_if_cancelled`] (after resuming a panic of `op`'s, if
/// any: a panic wins over a stop).
pub(crate) fn unstoppable<R>(op: impl FnOnce() -> R) -> R {
    WorkerThread::with_current(|worker| match worker {
        Some(worker) if !worker.region().is_null() => worker.in_region(ptr::null(), op),
        _ => op(),
    })
}

/// Whether the current work belongs to a `cancellable` region (cancelled or not).
#[inline]
pub(crate) fn in_cancellable() -> bool {
    WorkerThread::with_current(|worker| worker.is_some_and(|worker| !worker.region().is_null()))
}

/// The region a queued task was started in, which it runs in (owned: a detached task may
/// outlive the `cancellable` call).
#[derive(Debug, Default)]
pub(crate) struct JobRegion(Option<Arc<Region>>);

impl JobRegion {
    /// The current thread's region, for a task started now. Unwinds with a [`Cancelled`]
    /// payload if it is stopped: code of a stopped region starts nothing.
    pub(crate) fn current() -> JobRegion {
        WorkerThread::with_current(|worker| match worker {
            Some(worker) => {
                let region = JobRegion::current_on(worker);
                if region.0.as_deref().is_some_and(Region::is_stopped) {
                    stop();
                }
                region
            }
            None => JobRegion(None),
        })
    }

    fn current_on(worker: &WorkerThread) -> JobRegion {
        let region = worker.region();
        if region.is_null() {
            return JobRegion(None);
        }
        // SAFETY: a non-null region cell points into an `Arc<Region>` that is alive while
        // the cell holds it (`in_region`), so the count may be raised and a new `Arc` made.
        unsafe {
            Arc::increment_strong_count(region);
            JobRegion(Some(Arc::from_raw(region)))
        }
    }

    /// Runs `func` in this region, or drops it unrun and returns `None` if the region is
    /// stopped. A task of no region runs outside every region, also where it runs inline
    /// in a region's work (`JoinHandle::join`): work outside a token is never stopped.
    pub(crate) fn run<R>(&self, func: impl FnOnce() -> R) -> Option<R> {
        let Some(region) = self.0.as_deref() else {
            return Some(WorkerThread::with_current(|worker| match worker {
                Some(worker) if !worker.region().is_null() => worker.in_region(ptr::null(), func),
                _ => func(),
            }));
        };
        if region.is_stopped() {
            return None;
        }
        Some(WorkerThread::with_current(|worker| match worker {
            Some(worker) => worker.in_region(region, func),
            None => func(),
        }))
    }

    /// The payload a task that was dropped unrun reports.
    pub(crate) fn stopped_payload() -> PanicPayload {
        Box::new(Cancelled)
    }
}

/// A panic of a thief's `join` half in a region (`StackJob::execute`), wrapped so that it
/// is not lost if the `join`'s other half was stopped: `join` resumes its `a`'s payload
/// (Rayon's contract) and drops `b`'s, and a stop must not win over a panic. Dropped unused,
/// the wrapper leaves the panic in its region, where `cancellable` finds it; resumed, the
/// payload is unwrapped first (`unwind::resume_unwinding`). Outside a region, `payload`.
pub(super) fn carry_panic(payload: PanicPayload) -> PanicPayload {
    if is_stop(&payload) {
        return payload;
    }
    let region =
        WorkerThread::with_current(|worker| worker.and_then(|w| JobRegion::current_on(w).0));
    let Some(region) = region else {
        return payload;
    };
    Box::new(Carried {
        payload: Some(payload),
        region,
    })
}

/// `payload`, unwrapped if [`carry_panic`] wrapped it.
pub(super) fn uncarry(payload: PanicPayload) -> PanicPayload {
    match payload.downcast::<Carried>() {
        Ok(mut carried) => carried
            .payload
            .take()
            .expect("a carried panic is taken once"),
        Err(payload) => payload,
    }
}

/// See [`carry_panic`].
struct Carried {
    payload: Option<PanicPayload>,
    region: Arc<Region>,
}

impl Drop for Carried {
    fn drop(&mut self) {
        if let Some(payload) = self.payload.take() {
            let mut slot = self.region.panic.lock().unwrap_or_else(|e| e.into_inner());
            match *slot {
                None => *slot = Some(payload),
                Some(_) => {
                    drop(slot);
                    unwind::drop_payload(payload);
                }
            }
        }
    }
}

/// A region pointer (null: none) that may travel with a region's job in a queue.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RegionPtr(pub(crate) *const Region);

// SAFETY: a `Region` is `Sync` (atomics and `Arc`s); the pointer is only dereferenced while
// the region is alive (the `join` whose `b` carries it waits for `b`; `install` from another
// pool waits for its operation).
unsafe impl Send for RegionPtr {}
