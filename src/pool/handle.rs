//! `spawn_handle`: a task whose result comes back through a [`JoinHandle`], which can be
//! joined (blocking, or running other work on a worker) or awaited as a `Future`.
//!
//! A task is one `Arc`: the [`Slot`] it shares with its handle (state word, result, waker:
//! `handle/slot.rs`), the function, and what to do when it has run (`Finish`: release a
//! scope's count, report a panic nobody will see). The queued job holds one reference and
//! a termination count of the pool, so the pool outlives it; whoever *claims* the task runs
//! the function: the worker that takes the queued job, or a `join` on a worker of the same
//! pool that gets there first (a pool of one thread joining its own handle runs the task
//! right there). A queued job whose task was claimed by a `join` only drops its reference.
//!
//! Waiting: a `Future` registers its task's waker; a worker's `join` registers a waker that
//! sets a latch it waits on while running other jobs (and sleeping when there are none); a
//! thread outside the pool registers a waker that unparks it. The completer wakes whatever
//! waker is registered, once.

mod slot;

#[cfg(all(test, loom))]
mod loom_tests;

use std::cell::UnsafeCell;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use super::cancel::JobRegion;
use super::isolate::{self, Tag};
use super::job::{Job, JobRef, JobResult, TaggedJob};
use super::latch::{CrossLatch, Latch};
use super::registry::{self, Registry};
use super::unwind::{self, FirstPanic, PanicPayload};
use super::worker::WorkerThread;
use slot::Completion;
pub(super) use slot::{Slot, Unparker};

/// The handle of a task started by [`spawn_handle`] or [`ThreadPool::spawn_handle`], or of
/// a future started by [`spawn_future`](crate::spawn_future) or
/// [`ThreadPool::spawn_future`] (a [`ScopedJoinHandle`] whose task borrows nothing).
///
/// [`ThreadPool::spawn_handle`]: crate::ThreadPool::spawn_handle
/// [`ThreadPool::spawn_future`]: crate::ThreadPool::spawn_future
pub type JoinHandle<T> = ScopedJoinHandle<'static, T>;

/// The handle of a task (or spawned future) whose result is a `T`; for
/// [`Scope::spawn_handle`] and [`Scope::spawn_future`], a task that may borrow from outside
/// the scope, so the handle cannot outlive those borrows.
///
/// - [`join`](Self::join) waits for the result. On a worker thread it runs other jobs of its
///   pool meanwhile (and runs a task itself if no worker has started it yet; a future is
///   polled only by its wakes); elsewhere it blocks.
/// - `.await` waits for the result in async code: the handle is a `Future`, woken once, when
///   the result is ready. No thread polls it.
/// - [`is_finished`](Self::is_finished) says whether the result is ready.
/// - A panic in the task resumes in `join` or `.await`.
/// - Dropping the handle detaches the task: it still runs, and its result is dropped. The
///   panic of a task whose handle was dropped before it finished goes to the pool's
///   [`panic_handler`](crate::ThreadPoolBuilder::panic_handler) if there is one, else it is
///   ignored (a [`Scope::spawn_handle`] task's goes to the scope, like a
///   [`spawn`](crate::Scope::spawn)ed task's).
/// - The user code a worker runs for the task besides its function never unwinds through
///   the worker: a panic of the waker registered by polling the handle (when the worker wakes
///   it, or drops the last reference to it) or of the drop of a detached task's result goes
///   where a detached task's panic goes (the scope, else the panic handler, else it is
///   ignored once the panic hook has reported it). The same code run by your own thread
///   (dropping the handle, replacing its waker) panics there, as usual.
///
/// ```
/// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let handle = pool.spawn_handle(|| (1..=10u64).product::<u64>());
/// assert_eq!(handle.join(), 3_628_800);
/// ```
///
/// [`Scope::spawn_handle`]: crate::Scope::spawn_handle
/// [`Scope::spawn_future`]: crate::Scope::spawn_future
#[must_use = "dropping a handle detaches its task; `join` or `.await` it to get the result"]
pub struct ScopedJoinHandle<'scope, T> {
    /// None once the result was returned.
    task: Option<Arc<dyn TaskControl<T> + 'scope>>,
}

impl<T> fmt::Debug for ScopedJoinHandle<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("is_finished", &self.is_finished())
            .finish_non_exhaustive()
    }
}

/// Starts `func` as a task in the current pool (the global pool outside any pool) and
/// returns its handle.
///
/// ```
/// let handle = weft::spawn_handle(|| (1..=100u32).sum::<u32>());
/// // ... other work ...
/// assert_eq!(handle.join(), 5050);
/// ```
///
/// In async code, `.await` the handle (here with a tiny executor from the standard library's
/// `Wake`; any runtime does):
///
/// ```
/// use std::future::Future;
/// use std::sync::Arc;
/// use std::task::{Context, Poll, Wake};
///
/// struct Unpark(std::thread::Thread);
/// impl Wake for Unpark {
///     fn wake(self: Arc<Self>) {
///         self.0.unpark();
///     }
/// }
///
/// let mut future = std::pin::pin!(async {
///     let square = weft::spawn_handle(|| 12u64 * 12).await;
///     square + 1
/// });
/// let waker = Arc::new(Unpark(std::thread::current())).into();
/// let result = loop {
///     match future.as_mut().poll(&mut Context::from_waker(&waker)) {
///         Poll::Ready(value) => break value,
///         Poll::Pending => std::thread::park(),
///     }
/// };
/// assert_eq!(result, 145);
/// ```
pub fn spawn_handle<F, T>(func: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    WorkerThread::with_current(|worker| match worker {
        Some(worker) => spawn_handle_in(worker.registry(), func),
        None => spawn_handle_in(registry::global_registry(), func),
    })
}

/// `spawn_handle` into `registry`'s pool.
pub(crate) fn spawn_handle_in<F, T>(registry: &Arc<Registry>, func: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    spawn_task(
        registry,
        current_tag(),
        JobRegion::current(),
        func,
        PoolFinish,
    )
}

/// The isolation context of the calling thread: a task started here belongs to it, so that
/// waiters inside the same isolated region may run it.
pub(super) fn current_tag() -> Tag {
    WorkerThread::with_current(|worker| match worker {
        Some(worker) => worker.context_tag(),
        None => isolate::external_tag(),
    })
}

/// Queues a task running `func` in `registry`'s pool, tagged `tag`, in `region`, and
/// returns its handle.
pub(super) fn spawn_task<'a, F, T, D>(
    registry: &Arc<Registry>,
    tag: Tag,
    region: JobRegion,
    func: F,
    finish: D,
) -> ScopedJoinHandle<'a, T>
where
    F: FnOnce() -> T + Send + 'a,
    T: Send + 'a,
    D: Finish + 'a,
{
    let task = Arc::new(Task {
        slot: Slot::new(),
        func: UnsafeCell::new(Some(func)),
        finish: UnsafeCell::new(Some(finish)),
        tag,
        region,
        registry: Arc::clone(registry),
    });
    // The queued job's termination count, released when it runs (claimed or not), so that
    // the pool's workers stay until every queued job of it has run.
    registry.increment_terminate_count();
    let queued = Arc::into_raw(Arc::clone(&task));
    // SAFETY: the queued job owns one reference to the task, so the task lives until the job
    // runs; every queue runs each job exactly once (the termination count keeps the workers
    // for it), and `execute` turns the reference back into the `Arc` it came from.
    let job = unsafe { JobRef::new(queued) };
    registry.push_or_inject(TaggedJob::new(job, tag));
    ScopedJoinHandle::new(task)
}

impl<'scope, T> ScopedJoinHandle<'scope, T> {
    /// The handle of `task`.
    pub(super) fn new(task: Arc<dyn TaskControl<T> + 'scope>) -> Self {
        ScopedJoinHandle { task: Some(task) }
    }

    /// Waits for the task and returns its result, or resumes its panic.
    ///
    /// On a worker thread of the task's pool it runs the task right here if no worker has
    /// started it yet, else runs other jobs of the pool until the result is ready (so a pool
    /// of one thread can join its own tasks; a spawned future is never run inline, its
    /// polls are jobs like the others). On a worker of another pool it runs that pool's jobs
    /// meanwhile; on any other thread it blocks.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// let total = pool.install(|| {
    ///     let handles: Vec<_> = (0..4u64).map(|i| weft::spawn_handle(move || i * 10)).collect();
    ///     handles.into_iter().map(|h| h.join()).sum::<u64>()
    /// });
    /// assert_eq!(total, 60);
    /// ```
    pub fn join(mut self) -> T {
        let task = self
            .task
            .take()
            .expect("a handle holds its task until it returns");
        let result = WorkerThread::with_current(|worker| match worker {
            Some(worker) => join_on_worker(&*task, worker),
            // SAFETY: this handle owns the slot's handle side; it returns after the result.
            None => unsafe { task.slot().wait_blocking() },
        });
        result.into_return_value()
    }

    /// True once the task has finished (its result, or its panic, is ready).
    ///
    /// ```
    /// let handle = weft::spawn_handle(|| 7);
    /// while !handle.is_finished() {
    ///     std::thread::yield_now();
    /// }
    /// assert_eq!(handle.join(), 7);
    /// ```
    pub fn is_finished(&self) -> bool {
        self.task
            .as_ref()
            .map_or(true, |task| task.slot().is_complete())
    }
}

/// `join` on a worker: claim and run the task here if it belongs to this pool and nobody
/// started it; else wait on a latch, running other jobs, until the completer wakes us.
fn join_on_worker<T>(task: &dyn TaskControl<T>, worker: &WorkerThread) -> JobResult<T> {
    if Arc::ptr_eq(task.registry(), worker.registry()) {
        if let Some(result) = task.run_here(worker) {
            return result;
        }
    }
    let latch = Arc::new(LatchWaker(CrossLatch::new(worker)));
    let waker = Waker::from(Arc::clone(&latch));
    loop {
        // SAFETY: the handle (consumed by `join`) owns the slot's handle side; we stop
        // polling once it returns Ready.
        if let Poll::Ready(result) = unsafe { task.slot().poll(&waker) } {
            return result;
        }
        worker.wait_until(&latch.0);
    }
}

/// A waker that sets a latch a worker waits on (and wakes the worker if it sleeps).
pub(super) struct LatchWaker(CrossLatch);

impl LatchWaker {
    pub(super) fn new(latch: CrossLatch) -> Self {
        LatchWaker(latch)
    }

    /// The latch, to wait on.
    pub(super) fn latch(&self) -> &CrossLatch {
        &self.0
    }
}

impl Wake for LatchWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // SAFETY: the latch lives in this `Arc`, alive for the whole call.
        unsafe { CrossLatch::set(&self.0) };
    }
}

impl<T> Future for ScopedJoinHandle<'_, T> {
    type Output = T;

    /// Ready with the task's result (or resumes its panic); else registers the waker, which
    /// is woken once, when the result is ready.
    ///
    /// # Panics
    /// If polled again after it returned `Ready`.
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let task = self
            .task
            .as_ref()
            .expect("weft: a JoinHandle polled after it returned its result");
        // SAFETY: `&mut self` makes this the only poller; after Ready `task` becomes None.
        match unsafe { task.slot().poll(cx.waker()) } {
            Poll::Ready(result) => {
                self.task = None;
                Poll::Ready(result.into_return_value())
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T> Drop for ScopedJoinHandle<'_, T> {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            // SAFETY: the handle's last use of the slot. A result already there (a panic
            // included) is dropped here; otherwise the completer disposes of it.
            drop(unsafe { task.slot().detach() });
        }
    }
}

/// What a task does once its function has run, whoever ran it.
pub(super) trait Finish: Send {
    /// `panic`: a panic nobody joining the task will see: the task's own when its handle
    /// was dropped before it finished, or one of user code the pool ran for the task outside
    /// its function (the handle's waker, the drop of a detached result or of a waker).
    fn finish(self, registry: &Registry, panic: Option<PanicPayload>);
}

/// `spawn_handle`'s and `spawn_future`'s finish: the panic goes to the panic handler if
/// there is one, else it is dropped (the panic hook reported it when it happened).
pub(super) struct PoolFinish;

impl Finish for PoolFinish {
    fn finish(self, registry: &Registry, panic: Option<PanicPayload>) {
        if let Some(payload) = panic {
            if registry.has_panic_handler() {
                registry.handle_panic(payload);
            } else {
                unwind::drop_payload(payload);
            }
        }
    }
}

/// The handle's view of a task, without its function's or future's type.
pub(super) trait TaskControl<T>: Send + Sync {
    fn slot(&self) -> &Slot<T>;
    fn registry(&self) -> &Arc<Registry>;
    /// Runs the task on `worker`, a worker of its pool, and returns its result (a panic as
    /// `JobResult::Panic`), if it can run inline and nobody has started it; else `None`.
    fn run_here(&self, worker: &WorkerThread) -> Option<JobResult<T>>;
}

/// One task: see the module doc.
struct Task<F, T, D> {
    slot: Slot<T>,
    /// Taken once, by the thread that won `slot.claim()`; nobody else touches it.
    func: UnsafeCell<Option<F>>,
    /// Taken once, by the claimer, after the function ran.
    finish: UnsafeCell<Option<D>>,
    /// The isolation context the task was started in.
    tag: Tag,
    /// The `cancellable` region it was started in: a stopped one drops it unrun.
    region: JobRegion,
    registry: Arc<Registry>,
}

// SAFETY: `func` and `finish` are moved out by the claim winner alone (the claim is one
// atomic RMW), so sharing the task shares no access to them; `slot` is Sync for `T: Send`.
// `F` and `D` move to the claimer's thread, hence `Send`.
unsafe impl<F: Send, T: Send, D: Send> Sync for Task<F, T, D> {}
// SAFETY: as above; every field is Send given the bounds.
unsafe impl<F: Send, T: Send, D: Send> Send for Task<F, T, D> {}

impl<F, T, D> Task<F, T, D>
where
    F: FnOnce() -> T + Send,
    T: Send,
    D: Finish,
{
    /// Runs the function (catching its panic) and takes the finish.
    ///
    /// # Safety
    /// The caller won `slot.claim()`.
    unsafe fn run(&self) -> (JobResult<T>, D) {
        // SAFETY: the claim winner is the only thread that touches `func` and `finish`.
        let (func, finish) = unsafe { ((*self.func.get()).take(), (*self.finish.get()).take()) };
        let func = func.expect("a task's function is taken once");
        let result = match unwind::halt_unwinding(|| self.region.run(func)) {
            Ok(Some(value)) => JobResult::Ok(value),
            Ok(None) => JobResult::Panic(JobRegion::stopped_payload()),
            Err(payload) => JobResult::Panic(payload),
        };
        (result, finish.expect("a task's finish is taken once"))
    }
}

impl<F, T, D> TaskControl<T> for Task<F, T, D>
where
    F: FnOnce() -> T + Send,
    T: Send,
    D: Finish,
{
    fn slot(&self) -> &Slot<T> {
        &self.slot
    }

    fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    fn run_here(&self, worker: &WorkerThread) -> Option<JobResult<T>> {
        if !self.slot.claim() {
            return None;
        }
        // SAFETY: we won the claim.
        let (result, finish) = worker.run_tagged(self.tag, || unsafe { self.run() });
        finish.finish(&self.registry, None);
        Some(result)
    }
}

impl<F, T, D> Job for Task<F, T, D>
where
    F: FnOnce() -> T + Send,
    T: Send,
    D: Finish,
{
    unsafe fn execute(this: *const ()) {
        // SAFETY: `this` came from `Arc::into_raw` in `spawn_task`, and this job runs once.
        let task = unsafe { Arc::from_raw(this.cast::<Self>()) };
        let registry = Arc::clone(&task.registry);
        if task.slot.claim() {
            // SAFETY: we won the claim.
            let (result, finish) = unsafe { task.run() };
            // SAFETY: we won the claim, so we are the completer.
            let completion = unsafe { task.slot.complete(result) };
            let mut panic = FirstPanic::default();
            dispose_of_completed(completion, &mut panic);
            // Our reference may be the last: the handle's waker may go with it.
            panic.catch(|| drop(task));
            finish.finish(&registry, panic.into_inner());
        } else {
            // A `join` ran the task and its finish. Dropping our reference may drop the
            // handle's last waker (user code); no scope waits for it any more.
            let mut panic = FirstPanic::default();
            panic.catch(|| drop(task));
            PoolFinish.finish(&registry, panic.into_inner());
        }
        registry.terminate();
    }
}

/// After its completer stored a task's result, deals with what `Slot::complete` left: a
/// detached result (dropped here, or its panic recorded: nobody will join it), a waker's
/// panic. All of it happens before the task's finish lets a scope end (a scope's task may
/// borrow what the scope guards), and the first panic goes to the finish.
pub(super) fn dispose_of_completed<T>(completion: Completion<T>, panic: &mut FirstPanic) {
    match completion {
        Completion::Delivered => {}
        Completion::Detached(JobResult::Panic(payload)) => panic.record(payload),
        Completion::Detached(result) => panic.catch(|| drop(result)),
        Completion::WakerPanicked(payload) => panic.record(payload),
    }
}
