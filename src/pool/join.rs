//! `join` and `join_context`: fork `b`, run `a`, then take `b` back or wait for its thief.
//!
//! `b` becomes a fork on the worker's fork stack (a few plain stores, no atomic
//! read-modify-write, no fence: `fork_stack.rs`), `a` runs, `b` is popped back and run
//! inline (in a `cancellable` region the fork stack takes no fork: `b` goes to the deque
//! with the region, which is looked at before `b` runs: `cancel.rs`). Any other worker can
//! take `b` while `a` runs, from the moment it is pushed: an
//! idle worker through the fork stack itself, or from the deque once the owner publishes its
//! oldest fork because the sleep counters show an idle worker (`worker.rs`). `b`'s job lives
//! in this stack frame, so this function never returns or unwinds while a thief may still
//! be running it.

use super::cancel;
use super::job::StackJob;
use super::latch::SpinLatch;
use super::registry;
use super::trace::{trace_origin, trace_stolen_from};
use super::unwind;
use super::worker::WorkerThread;

/// Runs `oper_a` and `oper_b`, potentially in parallel, and returns both results.
///
/// Called on a worker, both run in that worker's pool; called elsewhere, on the global pool
/// while the caller blocks. While `oper_a` runs, any idle worker of the pool may take
/// `oper_b` (so `oper_a` may wait for something `oper_b` does, as long as a worker is free).
///
/// # Panics
/// Both closures always run. If one panics, `join` panics with that payload once both are
/// done; if both panic, with `oper_a`'s.
///
/// ```
/// fn fib(n: u64) -> u64 {
///     if n < 2 {
///         return n;
///     }
///     let (a, b) = weft::join(|| fib(n - 1), || fib(n - 2));
///     a + b
/// }
/// assert_eq!(fib(20), 6765);
/// ```
#[inline(always)]
pub fn join<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_context(|_| oper_a(), |_| oper_b())
}

/// What a closure of [`join_context`] learns about where it runs.
///
/// ```
/// let pool = weft::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// // With one worker nothing can be stolen: `b` runs on the thread that ran `a`.
/// let (_, migrated) = pool.install(|| weft::join_context(|_| (), |ctx| ctx.migrated()));
/// assert!(!migrated);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct FnContext {
    migrated: bool,
}

impl FnContext {
    /// True if the closure runs on another thread than the one that called `join_context`
    /// (it was stolen, or the call came from outside the pool).
    ///
    /// ```
    /// let (a, _) = weft::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .build()
    ///     .unwrap()
    ///     .install(|| weft::join_context(|ctx| ctx.migrated(), |_| ()));
    /// assert!(!a); // `a` always runs where `join_context` was called inside the pool
    /// ```
    #[inline]
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// Like [`join`], but each closure gets a [`FnContext`] saying whether it migrated.
///
/// ```
/// let (a, b) = weft::join_context(|_| 1 + 1, |ctx| if ctx.migrated() { 2 } else { 2 });
/// assert_eq!((a, b), (2, 2));
/// ```
#[inline(always)]
pub fn join_context<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    registry::in_worker(|worker, injected| fork_on(worker, injected, oper_a, oper_b))
}

/// [`join_context`] compiled once for every caller: each closure reaches one shared
/// `join_context` instance through a `&mut dyn FnMut`, and its result comes back through a
/// slot in this frame. Two indirect calls per join, against one instance of the fork,
/// in-place and injection paths per closure type (about 1,000 lines of LLVM IR per parallel
/// loop, `benches/compile_time.sh`). For joins that every indexed loop compiles but few run,
/// or run once per few hundred items or more: the split of a loop longer than a range can
/// hold, and the fixed tree's nodes. Panics behave as in `join_context`.
pub(crate) fn join_context_erased<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let (mut oper_a, mut oper_b) = (Some(oper_a), Some(oper_b));
    let (mut result_a, mut result_b) = (None, None);
    join_dyn(
        &mut |context| {
            let oper_a = oper_a.take().expect("a joined closure runs once");
            result_a = Some(oper_a(context));
        },
        &mut |context| {
            let oper_b = oper_b.take().expect("a joined closure runs once");
            result_b = Some(oper_b(context));
        },
    );
    let done = "join_context ran both closures or resumed a panic";
    (result_a.expect(done), result_b.expect(done))
}

/// The one `join_context` instance behind [`join_context_erased`].
#[inline(never)]
fn join_dyn(
    oper_a: &mut (dyn FnMut(FnContext) + Send),
    oper_b: &mut (dyn FnMut(FnContext) + Send),
) {
    join_context(oper_a, oper_b);
}

/// `join_context` for a caller that already runs on a worker of the pool the work belongs
/// in (a driver's owner loop), compiled once for every caller: `oper_a` always runs on this
/// thread, so it need not be `Send` (a per-owner state such as `map_init`'s may be a `!Send`
/// value), and both closures are reached through `&mut dyn FnMut` (each called once), so
/// that a loop type compiles only its two closures, not a `join`. `oper_b`, the driver's
/// "steal me" job, tells a trace which range it steals from.
///
/// # Panics
/// If called outside a worker thread. Panics of the closures behave as in `join_context`.
pub(crate) fn join_here_erased(
    oper_a: &mut dyn FnMut(FnContext),
    oper_b: &mut (dyn FnMut(FnContext) + Send),
) {
    WorkerThread::with_current(|worker| {
        let worker = worker.expect("join_here_erased called outside a worker thread");
        let origin = trace_origin(worker);
        fork_on(worker, false, oper_a, move |ctx| {
            trace_stolen_from(origin, || oper_b(ctx))
        });
    })
}

/// The forking join on `worker`: `b` becomes a fork of this worker, `a` runs here (so `a`
/// needs no `Send`; `b` may run on a thief), then `b` is popped back or awaited.
#[inline(always)]
fn fork_on<A, B, RA, RB>(worker: &WorkerThread, injected: bool, oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA,
    B: FnOnce(FnContext) -> RB + Send,
    RB: Send,
{
    if worker.joins_in_place() {
        return join_in_place(oper_a, oper_b, injected);
    }
    let mut job_b = StackJob::new(
        |migrated| oper_b(FnContext { migrated }),
        SpinLatch::new(worker),
    );
    // SAFETY: `job_b` stays in this frame until it is popped back or its latch is set:
    // every path below (including a panic in `oper_a`) ends in one of those.
    let job_b_ref = unsafe { job_b.as_job_ref() };
    let slot = worker.push_fork(job_b_ref);

    let status_a = unwind::halt_unwinding(|| oper_a(FnContext { migrated: injected }));

    // The cold path knows `b` by its address, not by `job_b_ref`: a `JobRef` passed by
    // value is built in memory, its one-byte `kind` stored and then read back as part of a
    // whole word, a load the CPU cannot forward from the store. That stall, on every fork,
    // made a 2-thread tree sum no faster than one thread (`benches/RESULTS.md`).
    let job_b_data = std::ptr::addr_of!(job_b).cast::<()>();
    let still_ours =
        worker.pop_fork(slot) || worker.reclaim_fork(job_b_data, job_b.latch.as_core());
    let result_a = match status_a {
        Ok(result_a) => result_a,
        Err(payload) => {
            // `b` still runs (Rayon's contract), then `a`'s panic wins. (If `a` was stopped
            // and a thief's `b` panicked, `b`'s payload reaches `cancellable` when it is
            // dropped here: `cancel::carry_panic`. If `a` panicked, `b`'s is dropped now.)
            if still_ours {
                // SAFETY: popped back, so no other thread can run it.
                let _ = unwind::halt_unwinding(|| unsafe { job_b.run_inline(injected) });
            } else if !cancel::is_stop(&payload) {
                job_b.drop_panic();
            }
            unwind::resume_unwinding(payload)
        }
    };
    if still_ours {
        // SAFETY: popped back (from the fork stack or the deque): ours alone.
        let result_b = unsafe { job_b.run_inline(injected) };
        // Nobody else ran it, so its result slot is still empty: nothing to drop (and no test
        // of the slot's state on `join`'s most common path).
        std::mem::forget(job_b);
        (result_a, result_b)
    } else {
        // The thief ran `b` and set the latch; its panic, if any, is resumed here.
        (result_a, job_b.into_result())
    }
}

/// `join` on the one worker of a pool of one: nobody could take `b`, so it is not recorded;
/// both closures run here, `a` then `b`, as plain calls.
#[inline(always)]
fn join_in_place<A, B, RA, RB>(oper_a: A, oper_b: B, injected: bool) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA,
    B: FnOnce(FnContext) -> RB,
{
    let context = FnContext { migrated: injected };
    match unwind::halt_unwinding(|| oper_a(context)) {
        Ok(result_a) => (result_a, oper_b(context)),
        Err(payload) => {
            // Both closures always run; `a`'s panic wins.
            let _ = unwind::halt_unwinding(|| oper_b(context));
            unwind::resume_unwinding(payload)
        }
    }
}
