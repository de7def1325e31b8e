//! The scheduler: worker threads, `join`, scopes, `spawn`, `broadcast` and the `ThreadPool`
//! API. It knows nothing of iterators (`.ci/run` checks that no file here names them).
//!
//! A worker's life in five lines:
//! 1. pop its own deque (LIFO), else its targeted queue, else the injector, else steal from a
//!    random victim (FIFO end);
//! 2. run the job; a `join` inside pushes `b` on its *fork stack*, runs `a`, pops `b` back;
//! 3. while any worker is idle, each forking worker publishes its oldest fork on its deque;
//! 4. with nothing found for a few dozen rounds, it takes a fork nobody published from another
//!    worker's fork stack if there is one, else gets sleepy, then parks (`sleep/`);
//! 5. a publication, an injection or the latch it waits on wakes it (`sleep/README.md`).
//!
//! Inside `isolate`, step 1 takes only jobs of the isolated region; others it takes on the
//! way are set aside for other workers (`isolate.rs`). `spawn_handle`'s tasks and their
//! awaitable handles live in `handle.rs`; spawned futures and `block_on` in `future.rs`;
//! `cancellable` regions and their stops in `cancel.rs`.

mod broadcast;
mod cancel;
mod deprecated;
mod fence;
mod fork_stack;
mod future;
mod handle;
mod isolate;
mod job;
mod join;
mod latch;
mod registry;
mod scope;
mod sleep;
mod slots;
mod spawn;
mod stats;
mod thread_builder;
mod thread_pool;
pub(crate) mod trace; // the recording; `crate::trace` renders it
mod unwind;
mod worker;

#[cfg(all(test, not(loom)))]
mod tests;

pub use broadcast::{broadcast, spawn_broadcast, BroadcastContext};
pub use cancel::{cancellable, CancelToken, Cancelled};
pub(crate) use cancel::{in_cancellable, stop_if_cancelled, unstoppable};
#[allow(deprecated)]
pub use deprecated::{initialize, Configuration};
pub use future::{block_on, spawn_future};
pub use handle::{spawn_handle, JoinHandle, ScopedJoinHandle};
pub use isolate::isolate;
pub use join::{join, join_context, FnContext};
pub(crate) use join::{join_context_erased, join_here_erased};
pub use scope::{in_place_scope, in_place_scope_fifo, scope, scope_fifo, Scope, ScopeFifo};
pub use spawn::{spawn, spawn_fifo};
pub(crate) use stats::Event;
pub use stats::PoolStats;
pub use thread_builder::ThreadBuilder;
pub use thread_pool::{ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder};
pub(crate) use trace::{
    any_pool_records, trace_handover, trace_part, trace_reserve, trace_series_here,
};

use worker::WorkerThread;

/// The number of worker threads of the current pool (the global pool outside any pool).
///
/// ```
/// let pool = weft::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
/// assert_eq!(pool.install(weft::current_num_threads), 4);
/// ```
pub fn current_num_threads() -> usize {
    WorkerThread::with_current(|worker| match worker {
        Some(worker) => worker.registry().num_threads(),
        None => registry::global_registry().num_threads(),
    })
}

/// Grows or shrinks the global pool to `n` worker threads (creating it first if no one has
/// used it yet), whichever thread calls it, even a worker of another pool. See
/// [`ThreadPool::set_num_threads`] for what holds during a resize; this is that method on
/// the global pool. A weft extension.
///
/// # Errors
/// If a thread could not be started, or the global pool was built with a
/// [`spawn_handler`](ThreadPoolBuilder::spawn_handler) and must grow.
///
/// # Panics
/// If `n` is 0.
///
/// ```
/// weft::set_num_threads(3).unwrap();
/// assert_eq!(weft::current_num_threads(), 3);
/// let squares = weft::broadcast(|ctx| ctx.index() * ctx.index());
/// assert_eq!(squares, vec![0, 1, 4]);
/// ```
pub fn set_num_threads(n: usize) -> Result<(), ThreadPoolBuildError> {
    registry::global_registry().set_num_threads(n)
}

/// The index of the current worker in its pool, or None outside any pool. During a shrink,
/// a worker that is retiring keeps its index until it exits (see
/// [`ThreadPool::set_num_threads`]): the index may then be `current_num_threads()` or more.
///
/// ```
/// assert_eq!(weft::current_thread_index(), None);
/// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// assert!(pool.install(weft::current_thread_index).unwrap() < 2);
/// ```
pub fn current_thread_index() -> Option<usize> {
    WorkerThread::with_current(|worker| worker.map(WorkerThread::index))
}

/// Whether the current thread is a worker with tasks of its own still waiting to run (`None`
/// outside any pool): a hint for code that decides whether to split more work.
///
/// ```
/// assert_eq!(weft::current_thread_has_pending_tasks(), None);
/// let pool = weft::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// assert_eq!(pool.install(weft::current_thread_has_pending_tasks), Some(false));
/// ```
pub fn current_thread_has_pending_tasks() -> Option<bool> {
    WorkerThread::with_current(|worker| worker.map(WorkerThread::has_pending_tasks))
}

/// Runs `op` on a worker thread: right here if this thread is one, else on the global pool,
/// blocking until it is done (as `join` from outside a pool would). For a driver starting
/// a run of positions: a trace records it as a series (`pool/trace/writer.rs`).
///
/// Compiled once for every caller: `op` is reached through a `&mut dyn FnMut` (called once),
/// so that a loop type compiles one small closure, not the two paths of `in_worker`.
pub(crate) fn on_a_worker<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    let mut op = Some(op);
    let mut result = None;
    on_a_worker_dyn(&mut || {
        let op = op.take().expect("an operation runs once");
        result = Some(op());
    });
    result.expect("the operation ran or its panic was resumed")
}

/// The one `on_a_worker` instance behind every caller.
#[inline(never)]
fn on_a_worker_dyn(op: &mut (dyn FnMut() + Send)) {
    registry::in_worker(|worker, _| worker.trace_series(op));
}

/// Counts `event` in the current worker's statistics (nothing outside a pool).
#[inline]
pub(crate) fn record_event(event: Event, n: u64) {
    WorkerThread::with_current(|worker| {
        if let Some(worker) = worker {
            worker.note(event, n);
        }
    })
}

/// For long-running work between `join`s (a driver's chunk loop): if some worker is idle,
/// publish the current worker's oldest unpublished fork so that it can be stolen.
#[inline]
pub(crate) fn offer_forks() {
    WorkerThread::with_current(|worker| {
        if let Some(worker) = worker {
            worker.offer_forks();
        }
    })
}

/// Whether some worker of the current pool is looking for work (true outside any pool). A
/// driver about to run a loop's first item then offers the loop's rest first (an item may
/// wait for another item, which an idle worker must be able to take); a `par_bridge` piece
/// waiting for the lock then leaves pending jobs to the idle worker. A hint (one relaxed
/// load).
#[inline]
pub(crate) fn anyone_idle() -> bool {
    WorkerThread::with_current(|worker| worker.map_or(true, WorkerThread::anyone_idle))
}

/// Whether the code running now runs inside a wait of its worker: in a job the worker took
/// up while a frame below it waited for something else (a stolen `join` half, a scope, a
/// latch, a fork, the job `yield_now` runs), so that the waiting frame cannot go on until
/// this job returns. False outside any pool, and in jobs a worker took from its main loop.
#[inline]
pub(crate) fn inside_a_wait() -> bool {
    WorkerThread::with_current(|worker| worker.is_some_and(WorkerThread::inside_a_wait))
}

/// For a driver about to fold a little work on its own: true if a worker of the current
/// pool is idle and new work offered by this thread would go to it, because this worker
/// offers nothing else first (no job in its deque, no unpublished fork). If a worker is idle but
/// this worker's oldest unpublished fork would be taken first, that fork is published instead
/// and the answer is false: the idle worker gets the larger, older piece. True outside any
/// pool, where the caller's work is injected into a pool anyway. A hint (one relaxed load
/// when nobody is idle), stale by the time it is used.
#[inline]
pub(crate) fn idle_worker_needs_work() -> bool {
    WorkerThread::with_current(|worker| match worker {
        Some(worker) => worker.idle_worker_needs_work(),
        None => true,
    })
}

/// The job word: one word of state for the layers above the pool, kept per thread and
/// cleared to 0 for every job a worker takes from a queue (and restored once the job is
/// done): what the code that runs now knows about itself, which a job taken from a queue is
/// not part of. 0 on a thread that is no worker until something sets it.
#[inline(always)]
pub(crate) fn job_word() -> u64 {
    worker::job_word()
}

/// Sets the [`job_word`], returning the previous one.
#[inline(always)]
pub(crate) fn set_job_word(word: u64) -> u64 {
    worker::set_job_word(word)
}

/// Whether this thread is a worker of some pool.
#[inline]
pub(crate) fn on_worker() -> bool {
    WorkerThread::with_current(|worker| worker.is_some())
}

/// For long-running work between `join`s whose pieces are slow (a driver folding items of
/// many microseconds each): publish the current worker's oldest unpublished fork now, idle
/// worker or not, so that a worker falling idle later can steal it at once instead of
/// waiting for the next [`offer_forks`]. A deque push, negligible next to such pieces.
#[inline]
pub(crate) fn publish_fork() {
    WorkerThread::with_current(|worker| {
        if let Some(worker) = worker {
            worker.publish_fork();
        }
    })
}

/// The largest `num_threads` a pool accepts; larger requests are capped to it.
///
/// ```
/// assert!(weft::max_num_threads() >= 1024);
/// ```
pub fn max_num_threads() -> usize {
    sleep::MAX_WORKERS
}

/// What [`yield_now`] or [`yield_local`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yield {
    /// Another job was found and executed.
    Executed,
    /// No job was available.
    Idle,
}

/// On a worker, runs one pending job of its pool if there is one; None outside any pool.
///
/// ```
/// assert_eq!(weft::yield_now(), None);
/// let pool = weft::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// assert_eq!(pool.install(weft::yield_now), Some(weft::Yield::Idle));
/// ```
pub fn yield_now() -> Option<Yield> {
    WorkerThread::with_current(|worker| worker.map(yield_on))
}

/// Like [`yield_now`], but only considers the current worker's own deque.
///
/// ```
/// assert_eq!(weft::yield_local(), None);
/// ```
pub fn yield_local() -> Option<Yield> {
    WorkerThread::with_current(|worker| worker.map(yield_local_on))
}

fn yield_on(worker: &WorkerThread) -> Yield {
    run_if_some(worker, worker.find_work())
}

fn yield_local_on(worker: &WorkerThread) -> Yield {
    run_if_some(worker, worker.take_local_job())
}

fn run_if_some(worker: &WorkerThread, job: Option<job::TaggedJob>) -> Yield {
    match job {
        Some(job) => {
            // The caller waits for the job: it runs inside a wait.
            // SAFETY: a job taken from a queue is live, unexecuted, and now ours.
            worker.waiting(|| unsafe { worker.execute(job) });
            Yield::Executed
        }
        None => Yield::Idle,
    }
}
