//! Scopes: `scope`, `scope_fifo`, `in_place_scope(_fifo)`. Tasks spawned in a scope may
//! borrow anything that outlives the scope; the scope returns only when all of them
//! (including tasks they spawned) have finished, then resumes the first panic, if any.

use std::future::Future;
use std::marker::PhantomData;
use std::ptr;
use std::sync::Arc;

use super::broadcast::BroadcastContext;
use super::cancel::{self, JobRegion};
use super::future;
use super::handle::{self, Finish, ScopedJoinHandle};
use super::isolate::{self, Tag};
use super::job::{HeapJob, TaggedJob};
use super::latch::{CountLatch, Latch};
use super::registry::{self, Registry};
use super::trace::JobKind;
use super::unwind::{self, PanicPayload};
use super::worker::WorkerThread;
use crate::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// A scope in which tasks that borrow local data can be spawned (see [`scope`]).
pub struct Scope<'scope> {
    base: ScopeBase<'scope>,
}

/// A scope whose tasks start in FIFO order relative to their spawner (see [`scope_fifo`]).
pub struct ScopeFifo<'scope> {
    base: ScopeBase<'scope>,
}

/// A type in which `'scope` is invariant (it appears in argument and return position).
type InvariantScope<'scope> = fn(&'scope ()) -> &'scope ();

struct ScopeBase<'scope> {
    registry: Arc<Registry>,
    /// The first panic of the body or a task; written once (CAS from null), taken by the owner.
    panic: AtomicPtr<PanicPayload>,
    /// The body or a task was stopped (`cancel.rs`): resumed as a stop if nothing panicked.
    stopped: AtomicBool,
    /// One count for the body plus one per unfinished task.
    job_completed_latch: CountLatch,
    /// The owner's worker, if the owner is one (it then steals while it waits).
    owner_is_worker: bool,
    /// The owner's isolation context: the scope waits in it, so its tasks carry it.
    tag: Tag,
    /// `'scope` is invariant, as the borrow checker needs for spawned closures.
    marker: PhantomData<InvariantScope<'scope>>,
}

impl std::fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for ScopeFifo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScopeFifo").finish_non_exhaustive()
    }
}

/// Creates a scope on a worker of the current pool (the global pool outside any pool), runs
/// `op` in it and returns its result once every task spawned in the scope has finished.
///
/// # Panics
/// If `op` or any task panics, the scope still waits for all tasks, then resumes the first
/// panic.
///
/// ```
/// let data = vec![1, 2, 3, 4];
/// let mut sums = [0; 2];
/// weft::scope(|s| {
///     let (left, right) = sums.split_at_mut(1);
///     let data = &data;
///     s.spawn(move |_| left[0] = data[..2].iter().sum());
///     s.spawn(move |_| right[0] = data[2..].iter().sum());
/// });
/// assert_eq!(sums, [3, 7]);
/// ```
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    registry::in_worker(|owner, _| {
        let scope = Scope {
            base: ScopeBase::new(owner.registry(), Some(owner)),
        };
        scope.base.complete(Some(owner), || op(&scope))
    })
}

/// Like [`scope`], but tasks spawned from one thread start in the order they were spawned.
///
/// ```
/// let pool = weft::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let order = std::sync::Mutex::new(Vec::new());
/// pool.install(|| {
///     weft::scope_fifo(|s| {
///         for i in 0..4 {
///             let order = &order;
///             s.spawn_fifo(move |_| order.lock().unwrap().push(i));
///         }
///     })
/// });
/// assert_eq!(order.into_inner().unwrap(), vec![0, 1, 2, 3]);
/// ```
pub fn scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    registry::in_worker(|owner, _| {
        let scope = ScopeFifo {
            base: ScopeBase::new(owner.registry(), Some(owner)),
        };
        scope.base.complete(Some(owner), || op(&scope))
    })
}

/// Like [`scope`], but `op` runs on the calling thread itself (which need not be a worker);
/// tasks run in the current pool, or the global one.
///
/// ```
/// let mut hits = 0;
/// weft::in_place_scope(|s| s.spawn(|_| hits += 1));
/// assert_eq!(hits, 1);
/// ```
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    with_current_registry(|registry| in_place_scope_in(registry, op))
}

/// Like [`scope_fifo`], but `op` runs on the calling thread itself.
///
/// ```
/// let mut hits = 0;
/// weft::in_place_scope_fifo(|s| s.spawn_fifo(|_| hits += 2));
/// assert_eq!(hits, 2);
/// ```
pub fn in_place_scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    with_current_registry(|registry| in_place_scope_fifo_in(registry, op))
}

fn with_current_registry<R>(f: impl FnOnce(&Arc<Registry>) -> R) -> R {
    WorkerThread::with_current(|worker| match worker {
        Some(worker) => f(worker.registry()),
        None => f(registry::global_registry()),
    })
}

pub(crate) fn in_place_scope_in<'scope, OP, R>(registry: &Arc<Registry>, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    registry.with_current_worker(|owner| {
        let scope = Scope {
            base: ScopeBase::new(registry, owner),
        };
        scope.base.complete(owner, || op(&scope))
    })
}

pub(crate) fn in_place_scope_fifo_in<'scope, OP, R>(registry: &Arc<Registry>, op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    registry.with_current_worker(|owner| {
        let scope = ScopeFifo {
            base: ScopeBase::new(registry, owner),
        };
        scope.base.complete(owner, || op(&scope))
    })
}

impl<'scope> Scope<'scope> {
    /// Spawns a task that may borrow data outliving the scope; the scope waits for it.
    ///
    /// ```
    /// let mut v = vec![0; 3];
    /// weft::scope(|s| {
    ///     for (i, slot) in v.iter_mut().enumerate() {
    ///         s.spawn(move |_| *slot = i * 10);
    ///     }
    /// });
    /// assert_eq!(v, [0, 10, 20]);
    /// ```
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        let scope = ScopePtr(self);
        let region = JobRegion::current();
        let job = move || {
            // SAFETY: the scope waits for the count this task holds, so it is alive until
            // `execute_job` releases that count, and neither pointer is used after.
            unsafe {
                let base = ptr::addr_of!((*scope.as_ptr()).base);
                ScopeBase::execute_job(base, &region, || body(scope.get()));
            }
        };
        self.base.spawn_job(job, false);
    }

    /// Spawns a task of the scope that returns a value, and returns its
    /// [`ScopedJoinHandle`]: `join` it (or `.await` it) inside the scope or after. The task
    /// may borrow data that outlives the scope, and the scope waits for it like for any
    /// task. Its panic resumes in `join`; if the handle was dropped before the task ended,
    /// the panic goes to the scope instead, like a [`spawn`](Self::spawn)ed task's.
    ///
    /// ```
    /// let words = vec!["alpha", "beta", "gamma"];
    /// let total = weft::scope(|s| {
    ///     let handles: Vec<_> = words.iter().map(|w| s.spawn_handle(move |_| w.len())).collect();
    ///     handles.into_iter().map(|h| h.join()).sum::<usize>()
    /// });
    /// assert_eq!(total, 14);
    /// ```
    pub fn spawn_handle<BODY, T>(&self, body: BODY) -> ScopedJoinHandle<'scope, T>
    where
        BODY: FnOnce(&Scope<'scope>) -> T + Send + 'scope,
        T: Send + 'scope,
    {
        let region = JobRegion::current();
        self.base.job_completed_latch.increment();
        let scope = ScopePtr(self);
        // SAFETY: the scope waits for the count taken above, which `ScopeFinish` releases
        // only after this closure has run, so the scope is alive while it runs.
        let func = move || body(unsafe { scope.get() });
        let finish = ScopeFinish(ScopePtr(&self.base));
        handle::spawn_task(&self.base.registry, self.base.tag, region, func, finish)
    }

    /// Runs `future`, which may borrow data that outlives the scope, on the scope's pool,
    /// and returns its [`ScopedJoinHandle`]: `join` it or `.await` it inside the scope or
    /// after. The scope waits for the future's end like for any task: a future that is
    /// never woken again keeps the scope waiting (unless every waker of it and its handle
    /// are dropped: then nothing can poll it again, and it is dropped). Its panic resumes in
    /// `join` or `.await`; if the handle was dropped before the future ended, the scope
    /// resumes it instead. See [`spawn_future`](crate::spawn_future).
    ///
    /// ```
    /// let mut halves = [0u64; 2];
    /// let data: Vec<u64> = (1..=100).collect();
    /// weft::scope(|s| {
    ///     let (low, high) = halves.split_at_mut(1);
    ///     let (left, right) = data.split_at(50);
    ///     let first = s.spawn_future(async move { low[0] = left.iter().sum() });
    ///     // The second future awaits the first: both borrow from outside the scope.
    ///     s.spawn_future(async move {
    ///         first.await;
    ///         high[0] = right.iter().sum();
    ///     });
    /// });
    /// assert_eq!(halves, [1275, 3775]);
    /// ```
    pub fn spawn_future<F>(&self, future: F) -> ScopedJoinHandle<'scope, F::Output>
    where
        F: Future + Send + 'scope,
        F::Output: Send + 'scope,
    {
        self.base.job_completed_latch.increment();
        let finish = ScopeFinish(ScopePtr(&self.base));
        future::spawn_future_task(&self.base.registry, self.base.tag, future, finish)
    }

    /// Spawns `body` on every worker of the pool, each with its [`BroadcastContext`].
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// let hits = std::sync::atomic::AtomicUsize::new(0);
    /// pool.scope(|s| s.spawn_broadcast(|_, _| { hits.fetch_add(1, std::sync::atomic::Ordering::SeqCst); }));
    /// assert_eq!(hits.into_inner(), 3);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&Scope<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        let scope = ScopePtr(self);
        self.base.spawn_broadcast_jobs(move |ctx| {
            // SAFETY: the scope outlives its tasks (see `spawn`).
            let scope = unsafe { scope.get() };
            body(scope, ctx)
        });
    }
}

impl<'scope> ScopeFifo<'scope> {
    /// Spawns a task that starts after the tasks this thread spawned into the scope earlier.
    ///
    /// ```
    /// let mut v = vec![0; 2];
    /// weft::scope_fifo(|s| {
    ///     for (i, slot) in v.iter_mut().enumerate() {
    ///         s.spawn_fifo(move |_| *slot = i + 1);
    ///     }
    /// });
    /// assert_eq!(v, [1, 2]);
    /// ```
    pub fn spawn_fifo<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&ScopeFifo<'scope>) + Send + 'scope,
    {
        let scope = ScopePtr(self);
        let region = JobRegion::current();
        let job = move || {
            // SAFETY: as in `Scope::spawn`.
            unsafe {
                let base = ptr::addr_of!((*scope.as_ptr()).base);
                ScopeBase::execute_job(base, &region, || body(scope.get()));
            }
        };
        self.base.spawn_job(job, true);
    }

    /// Spawns `body` on every worker of the pool, each with its [`BroadcastContext`].
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let hits = std::sync::atomic::AtomicUsize::new(0);
    /// pool.scope_fifo(|s| s.spawn_broadcast(|_, _| { hits.fetch_add(1, std::sync::atomic::Ordering::SeqCst); }));
    /// assert_eq!(hits.into_inner(), 2);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&ScopeFifo<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        let scope = ScopePtr(self);
        self.base.spawn_broadcast_jobs(move |ctx| {
            // SAFETY: the scope outlives its tasks (see `spawn_fifo`).
            let scope = unsafe { scope.get() };
            body(scope, ctx)
        });
    }
}

impl<'scope> ScopeBase<'scope> {
    fn new(registry: &Arc<Registry>, owner: Option<&WorkerThread>) -> Self {
        ScopeBase {
            registry: Arc::clone(registry),
            panic: AtomicPtr::new(ptr::null_mut()),
            stopped: AtomicBool::new(false),
            job_completed_latch: CountLatch::new(1, owner.map(|w| (w.registry(), w.index()))),
            owner_is_worker: owner.is_some(),
            tag: owner.map_or_else(isolate::external_tag, WorkerThread::context_tag),
            marker: PhantomData,
        }
    }

    /// Queues `job` (which ends by calling `execute_job`) as one more task of the scope.
    fn spawn_job<F: FnOnce() + Send + 'scope>(&self, job: F, fifo: bool) {
        self.job_completed_latch.increment();
        // SAFETY: the job runs exactly once (queues never drop jobs while the scope waits),
        // and what it borrows outlives `'scope`, which outlives the wait in `complete`.
        let job_ref = unsafe { HeapJob::into_job_ref(job) }.with_kind(JobKind::Scope);
        let job_ref = TaggedJob::new(job_ref, self.tag);
        if fifo {
            self.registry.push_fifo_or_inject(job_ref);
        } else {
            self.registry.push_or_inject(job_ref);
        }
    }

    /// Queues `body` on every worker as tasks of the scope.
    fn spawn_broadcast_jobs<F>(&self, body: F)
    where
        F: Fn(BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        let body = Arc::new(body);
        // The size stays fixed until the jobs are queued (see `registry::FixedSize`).
        let size = self.registry.fixed_size();
        let num_threads = size.num_threads();
        let base = ScopePtr(self);
        let jobs: Vec<_> = (0..num_threads)
            .map(|_| {
                self.job_completed_latch.increment();
                let body = Arc::clone(&body);
                let job = move || {
                    // `move`: the reference to `body` is dropped inside `execute_job`, so the
                    // last one drops the closure before the scope may end, and a panic in its
                    // drop goes to the scope.
                    let run = move || body(BroadcastContext::for_current_worker(num_threads));
                    // SAFETY: the scope is alive until this task releases its count.
                    unsafe { ScopeBase::execute_job(base.as_ptr(), &JobRegion::default(), run) };
                };
                // SAFETY: as in `spawn_job`.
                let job = unsafe { HeapJob::into_job_ref(job) }.with_kind(JobKind::Broadcast);
                TaggedJob::new(job, self.tag)
            })
            .collect();
        size.inject_targeted(jobs);
    }

    /// Runs the body, then waits for every task; resumes the first panic.
    fn complete<R>(&self, owner: Option<&WorkerThread>, body: impl FnOnce() -> R) -> R {
        debug_assert_eq!(owner.is_some(), self.owner_is_worker);
        let result = unwind::halt_unwinding(body);
        let (result, body_stopped) = match result {
            Ok(value) => (Some(value), false),
            Err(payload) => {
                let stopped = cancel::is_stop(&payload);
                self.job_panicked(payload);
                (None, stopped)
            }
        };
        // SAFETY: the latch lives in `self`, which outlives this call.
        unsafe { CountLatch::set(&self.job_completed_latch) };
        match (owner, self.job_completed_latch.core()) {
            (Some(worker), Some(core)) => worker.wait_until(core),
            _ => self.job_completed_latch.wait_blocking(),
        }
        self.maybe_propagate_panic(body_stopped);
        result.expect("a panicking body was resumed just above")
    }

    /// Runs one task's closure, records its panic, and releases its count. A task of a
    /// `cancellable` region that is stopped is dropped unrun, and the scope resumes a stop
    /// (`cancel.rs`) once its tasks are done.
    ///
    /// # Safety
    /// `this` must be valid until the count is released; afterwards the owner may free it,
    /// so this takes a raw pointer and touches nothing after the release.
    unsafe fn execute_job(this: *const Self, region: &JobRegion, func: impl FnOnce()) {
        // The catch is around `run`: a stopped task's closure is dropped there, and its
        // drop is user code that may panic too.
        let outcome = match unwind::halt_unwinding(|| region.run(func)) {
            Ok(Some(())) => Ok(()),
            Ok(None) => Err(JobRegion::stopped_payload()),
            Err(payload) => Err(payload),
        };
        if let Err(payload) = outcome {
            // SAFETY: our count is not released yet, so the scope is alive.
            unsafe { (*this).job_panicked(payload) };
        }
        // SAFETY: still alive; `CountLatch::set` does not touch the latch after releasing
        // the owner.
        unsafe { CountLatch::set(ptr::addr_of!((*this).job_completed_latch)) };
    }

    /// Records a panic of the body or a task: the first one, or that a stop happened (a real
    /// panic wins over a stop whatever their order).
    fn job_panicked(&self, payload: PanicPayload) {
        if cancel::is_stop(&payload) {
            // ORDERING: read by the owner after the count latch, whose release/acquire
            // orders this store before that read.
            self.stopped.store(true, Ordering::Relaxed);
            unwind::drop_payload(payload);
            return;
        }
        let boxed = Box::into_raw(Box::new(payload));
        // ORDERING: Release publishes the boxed payload to the owner's Acquire swap.
        if self
            .panic
            .compare_exchange(ptr::null_mut(), boxed, Ordering::Release, Ordering::Relaxed)
            .is_err()
        {
            // SAFETY: `boxed` came from Box::into_raw above and was not shared.
            drop(unsafe { Box::from_raw(boxed) });
        }
    }

    /// Resumes the first panic of the body or a task; else a stop if the body was stopped,
    /// or if a task was and the scope's own work (the owner's region) is stopped too. A
    /// task of a region nested in the body (a `cancellable` call inside it) may be stopped
    /// while the scope's own work is not: that region ended with `Err(Cancelled)`, and the
    /// scope goes on (work outside a token is never stopped).
    fn maybe_propagate_panic(&self, body_stopped: bool) {
        // ORDERING: pairs with the Release CAS in `job_panicked`.
        let boxed = self.panic.swap(ptr::null_mut(), Ordering::Acquire);
        if !boxed.is_null() {
            // SAFETY: a non-null pointer was stored from Box::into_raw, and the swap gave us
            // sole ownership of it.
            let payload = unsafe { Box::from_raw(boxed) };
            unwind::resume_unwinding(*payload);
        }
        if body_stopped {
            cancel::stop();
        }
        // ORDERING: see `job_panicked`.
        if self.stopped.load(Ordering::Relaxed) {
            // The owner runs in the region the scope was made in (`in_region` restores it).
            cancel::stop_if_cancelled();
        }
    }
}

/// A `spawn_handle` task's end: release its count of the scope, after recording the panic
/// nobody joining the task will see (see `Finish`), which the scope then resumes.
struct ScopeFinish<'scope>(ScopePtr<ScopeBase<'scope>>);

impl Finish for ScopeFinish<'_> {
    fn finish(self, _registry: &Registry, panic: Option<PanicPayload>) {
        let base = self.0.as_ptr();
        if let Some(payload) = panic {
            // SAFETY: the task's count is not released yet, so the scope is alive.
            unsafe { (*base).job_panicked(payload) };
        }
        // SAFETY: still alive; `CountLatch::set` does not touch the latch after releasing
        // the owner, and nothing here touches the scope afterwards.
        unsafe { CountLatch::set(ptr::addr_of!((*base).job_completed_latch)) };
    }
}

/// A pointer to a scope that a task carries to another thread.
struct ScopePtr<T>(*const T);

impl<T> Clone for ScopePtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ScopePtr<T> {}

// SAFETY: scopes are Sync (atomics, a latch, an Arc), so handing a pointer to one to another
// thread is like sending a shared reference; validity is argued where it is dereferenced.
unsafe impl<T: Sync> Send for ScopePtr<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for ScopePtr<T> {}

impl<T> ScopePtr<T> {
    /// The raw pointer (a method, so that closures capture the whole `Send` wrapper).
    fn as_ptr(self) -> *const T {
        self.0
    }

    /// # Safety
    /// The scope must still be alive: true for a task of the scope, since the scope waits
    /// for the count each task holds.
    unsafe fn get<'a>(self) -> &'a T {
        // SAFETY: forwarded from this function's contract.
        unsafe { &*self.0 }
    }
}
