//! `Registry`: everything the workers of one pool share — their stealers, the injector for
//! jobs from outside, per-worker queues for targeted jobs, the sleep state, the handlers and
//! the termination count — plus the global pool and the `in_worker` entry points that move a
//! closure onto a worker of the right pool.

use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread;

use crossbeam_deque::{Injector, Steal, Stealer, Worker};

use super::fence;
use super::fork_stack::ForkStack;
use super::isolate::{self, SetAside, Tag};
use super::job::{Job, JobRef, StackJob, TaggedJob};
use super::latch::{CoreLatch, CrossLatch, LatchRef, LockLatch};
use super::sleep::Sleep;
use super::stats::{PoolStats, WorkerStats};
use super::thread_builder::{Arrival, ThreadBuilder, ThreadSpawn};
use super::thread_pool::{PanicHandler, ThreadPoolBuildError, ThreadPoolBuilder};
use super::trace::{self, JobKind, PoolTrace, Trace};
use super::unwind::{self, PanicPayload};
use super::worker::WorkerThread;
use crate::sync::atomic::{AtomicUsize, Ordering};

type ThreadHandler = dyn Fn(usize) + Send + Sync;

/// The shared state of one pool.
pub(crate) struct Registry {
    thread_infos: Vec<ThreadInfo>,
    pub(crate) sleep: Sleep,
    injector: Injector<TaggedJob>,
    /// Jobs a worker in an isolated context took but could not run (`isolate.rs`).
    set_aside: SetAside,
    /// Starts at 1 for the `ThreadPool` handle; each detached spawn holds one more. The
    /// workers exit when it reaches zero.
    terminate_count: AtomicUsize,
    panic_handler: Option<Box<PanicHandler>>,
    start_handler: Option<Box<ThreadHandler>>,
    exit_handler: Option<Box<ThreadHandler>>,
    /// `ThreadPoolBuilder::huge_pages`, given to each worker thread (`crate::huge_pages`).
    huge_pages: Option<bool>,
    /// The threads `DefaultSpawn` started, joined by `join_all_threads`.
    handles: Mutex<Vec<thread::JoinHandle<()>>>,
    /// Workers whose `ThreadBuilder` exists or whose loop still runs (see `LiveWorker`): what
    /// `join_all_threads` waits for when a spawn handler started the threads.
    live_workers: Mutex<usize>,
    /// Signalled when `live_workers` drops to zero.
    no_live_workers: Condvar,
    /// The recording, if this pool records (`pool/trace`).
    trace: Option<PoolTrace>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("num_threads", &self.thread_infos.len())
            .finish_non_exhaustive()
    }
}

struct ThreadInfo {
    stealer: Stealer<TaggedJob>,
    /// The worker's forks (`fork_stack.rs`): the worker pushes and pops, others steal.
    forks: Arc<ForkStack>,
    /// Jobs that only this worker may run (broadcast).
    targeted: Injector<TaggedJob>,
    /// Jobs `spawn_fifo`ed by this worker, oldest first; see `FifoQueue`.
    fifo: FifoQueue,
    /// Set when the pool terminates; the worker's main loop waits on it.
    terminate: CoreLatch,
    /// Counters written only by this worker (which holds the other `Arc`, so that counting
    /// an event is one add through its own field, not a walk through the registry).
    stats: Arc<WorkerStats>,
}

/// A worker's FIFO spawns. For each job pushed here, the worker pushes one "take the oldest
/// FIFO job" entry (a `JobRef` to this queue) on its LIFO deque: whoever runs an entry runs
/// the queue's oldest job, so FIFO spawns of one thread start in spawn order. Entries are
/// tagged `Tag::ANY`: the job an entry leads to is checked against the isolation context of
/// whoever runs the entry, and set aside if that context does not admit it.
struct FifoQueue(Injector<TaggedJob>);

impl Job for FifoQueue {
    unsafe fn execute(this: *const ()) {
        // SAFETY: the queue lives in a registry; the entry is executed by one of that
        // registry's workers, which holds an `Arc` to it.
        let queue = unsafe { &*this.cast::<FifoQueue>() };
        // Entries sit in deques, so a worker runs them.
        WorkerThread::with_current(|worker| {
            let worker = worker.expect("a FIFO entry runs on a worker");
            loop {
                match queue.0.steal() {
                    // SAFETY: a job in the queue is live until executed, and we took it.
                    Steal::Success(job) => return unsafe { worker.run_or_set_aside(job) },
                    Steal::Retry => {}
                    Steal::Empty => unreachable!("weft: a FIFO entry without its job"),
                }
            }
        })
    }
}

static GLOBAL_REGISTRY: OnceLock<Arc<Registry>> = OnceLock::new();
static GLOBAL_INIT: Mutex<()> = Mutex::new(());

/// The global pool, created on first use with the default configuration.
pub(crate) fn global_registry() -> &'static Arc<Registry> {
    if let Some(registry) = GLOBAL_REGISTRY.get() {
        return registry;
    }
    global_registry_cold()
}

/// First use: build the default pool, unless another thread (first use elsewhere, or
/// `build_global`) got there while we waited for the lock.
#[cold]
fn global_registry_cold() -> &'static Arc<Registry> {
    let _init = GLOBAL_INIT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(registry) = GLOBAL_REGISTRY.get() {
        return registry;
    }
    let registry = Registry::new(ThreadPoolBuilder::new())
        .unwrap_or_else(|err| panic!("weft: the global thread pool could not be built: {err}"));
    // The global pool lives for the whole process: its termination count never drops.
    GLOBAL_REGISTRY.get_or_init(|| registry)
}

/// Builds the global pool from `builder`; an error if it already exists.
pub(crate) fn init_global_registry<S: ThreadSpawn>(
    builder: ThreadPoolBuilder<S>,
) -> Result<(), ThreadPoolBuildError> {
    let _init = GLOBAL_INIT.lock().unwrap_or_else(|e| e.into_inner());
    if GLOBAL_REGISTRY.get().is_some() {
        return Err(ThreadPoolBuildError::global_pool_already_initialized());
    }
    let huge_pages = builder.huge_pages_setting();
    let registry = Registry::new(builder)?;
    crate::huge_pages::set_global_pool_setting(huge_pages);
    // The global pool lives for the whole process: its termination count never drops.
    GLOBAL_REGISTRY
        .set(registry)
        .expect("guarded by GLOBAL_INIT");
    Ok(())
}

/// Runs `op` on a worker: directly if this thread is one (of any pool), else on the global
/// pool, blocking. `op` learns whether it was injected from outside.
#[inline]
pub(crate) fn in_worker<OP, R>(op: OP) -> R
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    WorkerThread::with_current(|worker| match worker {
        Some(worker) => op(worker, false),
        None => run_erased(op, |op| global_registry().in_worker_cold(op)),
    })
}

/// An operation handed to another thread, seen through one type (see [`run_erased`]).
type ErasedOp<'a> = &'a mut (dyn FnMut(&WorkerThread, bool) + Send);

/// Runs `op` through `cold` as an [`ErasedOp`] (called once), and returns its result: the
/// cold paths that inject an operation and wait for it are compiled once, not once per
/// closure type (every `join` and every start of a loop's range instantiated them). A panic
/// in `op` unwinds out of `cold` as it would out of a call of `op`.
#[inline(always)]
fn run_erased<OP, R>(op: OP, cold: impl FnOnce(ErasedOp<'_>)) -> R
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    let mut op = Some(op);
    let mut result = None;
    cold(&mut |worker: &WorkerThread, injected: bool| {
        let op = op.take().expect("an erased operation runs once");
        result = Some(op(worker, injected));
    });
    result.expect("the cold path ran the operation or resumed its panic")
}

impl Registry {
    pub(crate) fn new<S: ThreadSpawn>(
        mut builder: ThreadPoolBuilder<S>,
    ) -> Result<Arc<Registry>, ThreadPoolBuildError> {
        let num_threads = builder.resolved_num_threads();
        // Before any worker can push a fork: the workers must see the final fence mode.
        fence::init();
        let adopt_current_thread = builder.uses_current_thread();
        if adopt_current_thread && WorkerThread::with_current(|worker| worker.is_some()) {
            return Err(ThreadPoolBuildError::current_thread_already_in_pool());
        }
        let deques: Vec<Worker<TaggedJob>> = (0..num_threads).map(|_| Worker::new_lifo()).collect();
        let registry = Arc::new(Registry {
            thread_infos: deques
                .iter()
                .map(|deque| ThreadInfo {
                    stealer: deque.stealer(),
                    forks: Arc::new(ForkStack::new()),
                    targeted: Injector::new(),
                    fifo: FifoQueue(Injector::new()),
                    terminate: CoreLatch::new(),
                    stats: Arc::default(),
                })
                .collect(),
            sleep: Sleep::new(num_threads),
            injector: Injector::new(),
            set_aside: SetAside::new(),
            terminate_count: AtomicUsize::new(1),
            panic_handler: builder.take_panic_handler(),
            start_handler: builder.take_start_handler(),
            exit_handler: builder.take_exit_handler(),
            huge_pages: builder.huge_pages_setting(),
            handles: Mutex::new(Vec::with_capacity(num_threads)),
            live_workers: Mutex::new(0),
            no_live_workers: Condvar::new(),
            trace: builder
                .trace_config()
                .map(|config| PoolTrace::new(num_threads, config)),
        });
        if registry
            .trace
            .as_ref()
            .is_some_and(PoolTrace::writes_output)
        {
            trace::write_at_exit(&registry);
        }
        let mut deques = deques.into_iter().enumerate();
        // `use_current_thread`: worker 0 is this thread, installed once all others started.
        let current_thread_deque = if adopt_current_thread {
            deques.next()
        } else {
            None
        };
        // On an error, or a panic in the spawn handler, the started workers must exit.
        let terminate_on_unwind = TerminateOnDrop(&registry);
        let started = deques.try_for_each(|(index, deque)| {
            let thread = ThreadBuilder::new(
                &registry,
                index,
                builder.thread_name_for(index),
                builder.get_stack_size(),
                deque,
            );
            builder.spawn_handler_mut().spawn(thread)
        });
        if let Err(err) = started {
            drop(terminate_on_unwind);
            // The threads a spawn handler started are not waited for (the handler may run its
            // `ThreadBuilder`s later, as Rayon allows): they see the pool terminated and exit.
            registry.join_spawned_threads();
            return Err(err);
        }
        if let Some((index, deque)) = current_thread_deque {
            crate::huge_pages::enter_worker_thread(registry.huge_pages);
            WorkerThread::new(deque, index, Arc::clone(&registry)).adopt_current_thread();
        }
        terminate_on_unwind.disarm();
        Ok(registry)
    }

    /// Keeps the handle of a thread `DefaultSpawn` started, for `join_all_threads`.
    pub(crate) fn keep_handle(&self, handle: thread::JoinHandle<()>) {
        self.handles
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(handle);
    }

    /// A `ThreadBuilder` was created: one more worker to wait for.
    pub(crate) fn worker_created(&self) {
        *self.live_workers.lock().unwrap_or_else(|e| e.into_inner()) += 1;
    }

    /// A worker left its loop, or its `ThreadBuilder` was dropped without running.
    pub(crate) fn worker_gone(&self) {
        let mut live = self.live_workers.lock().unwrap_or_else(|e| e.into_inner());
        *live -= 1;
        if *live == 0 {
            self.no_live_workers.notify_all();
        }
    }

    /// The counters of worker `index`; only that worker may add to them.
    pub(crate) fn worker_stats(&self, index: usize) -> Arc<WorkerStats> {
        Arc::clone(&self.thread_infos[index].stats)
    }

    /// The pool's counters, summed over its workers.
    pub(crate) fn stats(&self) -> PoolStats {
        let mut total = PoolStats::default();
        for info in &self.thread_infos {
            info.stats.add_to(&mut total);
        }
        total
    }

    pub(crate) fn num_threads(&self) -> usize {
        self.thread_infos.len()
    }

    /// Worker `index`'s trace writer, if the pool records (taken once, by that worker).
    pub(crate) fn trace_writer(&self, index: usize) -> Option<trace::TraceWriter> {
        self.trace.as_ref()?.writer_for(index)
    }

    /// What the workers recorded since the previous call; `None` if the pool does not record.
    pub(crate) fn take_trace(&self) -> Option<Trace> {
        Some(self.trace.as_ref()?.take(|| self.stats()))
    }

    /// `WEFT_TRACE`: writes the recording's files, once (at the pool's end or process exit).
    pub(crate) fn write_trace_output(&self) {
        if let Some(trace) = &self.trace {
            let global = GLOBAL_REGISTRY
                .get()
                .is_some_and(|global| ptr_eq(global, self));
            trace.write_output(|| self.stats(), global);
        }
    }

    pub(crate) fn steal_from(&self, victim: usize) -> Steal<TaggedJob> {
        self.thread_infos[victim].stealer.steal()
    }

    /// Worker `index`'s fork stack, for that worker.
    pub(crate) fn fork_stack(&self, index: usize) -> Arc<ForkStack> {
        Arc::clone(&self.thread_infos[index].forks)
    }

    /// The oldest fork of worker `victim` that its owner did not publish (the fork stack's
    /// heavy side: see `fork_stack.rs`).
    pub(crate) fn steal_fork_from(&self, victim: usize, context: Tag) -> Option<TaggedJob> {
        self.thread_infos[victim]
            .forks
            .steal(|tag| context.admits(tag))
    }

    /// The oldest injected job that `context` admits; the ones before it are set aside.
    pub(crate) fn steal_injected(&self, context: Tag) -> Option<TaggedJob> {
        loop {
            match self.injector.steal() {
                Steal::Success(job) if context.admits(job.tag) => return Some(job),
                Steal::Success(job) => self.set_aside(job),
                Steal::Empty => return None,
                Steal::Retry => {}
            }
        }
    }

    /// A job set aside by an isolated worker that `context` admits.
    #[inline]
    pub(crate) fn take_set_aside(&self, context: Tag) -> Option<TaggedJob> {
        self.set_aside.take(context)
    }

    /// `job` was taken by a worker whose context does not admit it: keep it where any worker
    /// that may run it finds it, and wake one such worker if all of them sleep
    /// (*set-aside-while-eligible-worker-sleeps* in `isolate.rs`).
    #[cold]
    pub(crate) fn set_aside(&self, job: TaggedJob) {
        let tag = job.tag;
        self.set_aside.push(job);
        self.sleep.new_job_for(|bits| tag.admitted_by_bits(bits));
    }

    /// Broadcast jobs: only worker `index` may run them, so every context admits them.
    pub(crate) fn take_targeted_job(&self, index: usize) -> Option<TaggedJob> {
        loop {
            match self.thread_infos[index].targeted.steal() {
                Steal::Success(job) => return Some(job),
                Steal::Empty => return None,
                Steal::Retry => {}
            }
        }
    }

    /// Work some search by worker `index` in `context` could find right now (the last look
    /// before a worker parks). Queued jobs count whatever their tag: the search would take
    /// them, to run or to set aside.
    pub(crate) fn has_visible_work(&self, index: usize, context: Tag) -> bool {
        !self.injector.is_empty()
            || !self.thread_infos[index].targeted.is_empty()
            || self.set_aside.has_job_for(context)
            || self
                .thread_infos
                .iter()
                .any(|info| !info.stealer.is_empty())
            || (self.thread_infos.iter().enumerate())
                .any(|(other, info)| other != index && info.forks.looks_nonempty())
    }

    /// Queues a job from outside the pool (or for any worker) and wakes a worker for it.
    pub(crate) fn inject(&self, job: TaggedJob) {
        self.injector.push(job);
        self.sleep.new_jobs(1);
    }

    /// Queues one job for each worker (`jobs[i]` runs on worker `i`).
    pub(crate) fn inject_targeted(&self, jobs: impl IntoIterator<Item = TaggedJob>) {
        for (info, job) in self.thread_infos.iter().zip(jobs) {
            info.targeted.push(job);
        }
        self.sleep.new_jobs_for_all();
    }

    /// Pushes `job` on the current worker's deque if it belongs to this pool, else injects.
    pub(crate) fn push_or_inject(&self, job: TaggedJob) {
        self.with_current_worker(|worker| match worker {
            Some(worker) => worker.push(job),
            None => self.inject(job),
        })
    }

    /// Like `push_or_inject`, keeping FIFO order among the current worker's FIFO spawns.
    pub(crate) fn push_fifo_or_inject(&self, job: TaggedJob) {
        self.with_current_worker(|worker| match worker {
            Some(worker) => {
                let queue = &self.thread_infos[worker.index()].fifo;
                queue.0.push(job);
                // SAFETY: the queue lives as long as the registry, which outlives every
                // worker that could execute the entry; each entry matches one pushed job.
                let entry = unsafe { JobRef::new(queue) }.with_kind(job.job.kind());
                worker.push(TaggedJob::new(entry, Tag::ANY));
            }
            None => self.inject(job),
        })
    }

    pub(crate) fn notify_worker_latch_is_set(&self, index: usize) {
        self.sleep.notify_worker_latch_is_set(index);
    }

    /// Calls `f` with the current thread's worker if it belongs to this registry, else `None`.
    #[inline]
    pub(crate) fn with_current_worker<R>(&self, f: impl FnOnce(Option<&WorkerThread>) -> R) -> R {
        WorkerThread::with_current(|worker| {
            f(worker.filter(|worker| ptr_eq(worker.registry(), self)))
        })
    }

    /// Runs `op` on a worker of this pool and returns its result.
    pub(crate) fn in_worker<OP, R>(self: &Arc<Self>, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread, bool) -> R + Send,
        R: Send,
    {
        WorkerThread::with_current(|worker| match worker {
            Some(worker) if ptr_eq(worker.registry(), self) => op(worker, false),
            elsewhere => run_erased(op, |op| match elsewhere {
                None => self.in_worker_cold(op),
                Some(worker) => self.in_worker_cross(worker, op),
            }),
        })
    }

    /// From a thread outside every pool: inject `op` and block until it is done.
    #[cold]
    fn in_worker_cold(&self, op: ErasedOp<'_>) {
        thread_local!(static LOCK_LATCH: LockLatch = LockLatch::new());
        LOCK_LATCH.with(|latch| {
            let job = StackJob::new(
                |injected| {
                    assert!(injected);
                    WorkerThread::with_current(|worker| {
                        op(worker.expect("an injected job runs on a worker"), true)
                    })
                },
                LatchRef(latch),
            );
            // SAFETY: `job` stays on this stack until its latch is set, which we wait for.
            let job_ref = unsafe { job.as_job_ref() }.with_kind(JobKind::Install);
            self.inject(TaggedJob::new(job_ref, isolate::external_tag()));
            latch.wait_and_reset();
            job.into_result()
        })
    }

    /// From a worker of another pool: inject `op` here and keep that worker busy with its own
    /// pool's jobs until `op` is done (blocking it could deadlock its own pool).
    #[cold]
    fn in_worker_cross(self: &Arc<Self>, current: &WorkerThread, op: ErasedOp<'_>) {
        let job = StackJob::new(
            |injected| {
                assert!(injected);
                WorkerThread::with_current(|worker| {
                    op(worker.expect("an injected job runs on a worker"), true)
                })
            },
            CrossLatch::new(current),
        );
        // SAFETY: `job` stays on this stack until its latch is set, which we wait for.
        let job_ref = unsafe { job.as_job_ref() }.with_kind(JobKind::Install);
        // The job runs in the waiter's isolation context, in the other pool.
        self.inject(TaggedJob::new(job_ref, current.context_tag()));
        current.wait_until(&job.latch);
        job.into_result()
    }

    /// A detached job starts: the pool must not terminate before it ends.
    pub(crate) fn increment_terminate_count(&self) {
        // ORDERING: the caller holds a count (the pool handle, or the job spawning this one),
        // so the count cannot reach zero concurrently; nothing else is published through it.
        let old = self.terminate_count.fetch_add(1, Ordering::Relaxed);
        assert!(old != 0, "weft: spawn on a pool that has terminated");
    }

    /// Drops one termination count; at zero, every worker is told to exit.
    pub(crate) fn terminate(&self) {
        // ORDERING: AcqRel so that the last decrement sees all work done before the others.
        if self.terminate_count.fetch_sub(1, Ordering::AcqRel) == 1 {
            for (index, info) in self.thread_infos.iter().enumerate() {
                // SAFETY: the latch lives in the registry, which outlives this call.
                if unsafe { CoreLatch::set(&info.terminate) } {
                    self.sleep.notify_worker_latch_is_set(index);
                }
            }
        }
    }

    /// Waits until every worker of this pool has left its loop and, for the threads
    /// `DefaultSpawn` started, until the thread itself has exited. (A worker adopted by
    /// `use_current_thread` is not waited for: it never runs a loop.)
    pub(crate) fn join_all_threads(&self) {
        self.join_spawned_threads();
        let mut live = self.live_workers.lock().unwrap_or_else(|e| e.into_inner());
        while *live > 0 {
            live = self
                .no_live_workers
                .wait(live)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Joins the threads `DefaultSpawn` started.
    fn join_spawned_threads(&self) {
        let handles = std::mem::take(&mut *self.handles.lock().unwrap_or_else(|e| e.into_inner()));
        for handle in handles {
            // A worker never unwinds (jobs catch their panics), so this is Ok in practice.
            let _ = handle.join();
        }
    }

    /// Whether the builder set a panic handler.
    pub(crate) fn has_panic_handler(&self) -> bool {
        self.panic_handler.is_some()
    }

    /// Reports a panic from a detached task: to the panic handler, or abort (as Rayon does).
    pub(crate) fn handle_panic(&self, payload: PanicPayload) {
        match &self.panic_handler {
            Some(handler) => {
                let abort = unwind::AbortIfPanic;
                handler(payload);
                std::mem::forget(abort);
            }
            None => {
                drop(payload);
                eprintln!("weft: a spawned task panicked and no panic_handler is set; aborting");
                std::process::abort();
            }
        }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        // Every worker has exited: the recording is complete.
        self.write_trace_output();
    }
}

/// True if `arc` points to `registry`.
fn ptr_eq(arc: &Arc<Registry>, registry: &Registry) -> bool {
    std::ptr::eq(Arc::as_ptr(arc), registry)
}

/// Terminates the registry when dropped, unless disarmed: a failure or a panic while starting
/// the workers must still let the started ones exit.
struct TerminateOnDrop<'a>(&'a Registry);

impl TerminateOnDrop<'_> {
    fn disarm(self) {
        std::mem::forget(self);
    }
}

impl Drop for TerminateOnDrop<'_> {
    fn drop(&mut self) {
        self.0.terminate();
    }
}

/// The body of a worker thread (see `ThreadBuilder::run`). `arrival` (a thread started by
/// `DefaultSpawn`) counts the worker as idle until it starts looking for work itself.
pub(crate) fn main_loop(
    registry: Arc<Registry>,
    index: usize,
    deque: Worker<TaggedJob>,
    arrival: Option<Arrival>,
) {
    let worker = WorkerThread::new(deque, index, Arc::clone(&registry));
    crate::huge_pages::enter_worker_thread(registry.huge_pages);
    worker.run_as_current(|| {
        if let Some(handler) = &registry.start_handler {
            if let Err(payload) = unwind::halt_unwinding(|| handler(index)) {
                registry.handle_panic(payload);
            }
        }
        drop(arrival);
        worker.run_until_terminated(&registry.thread_infos[index].terminate);
        if let Some(handler) = &registry.exit_handler {
            if let Err(payload) = unwind::halt_unwinding(|| handler(index)) {
                registry.handle_panic(payload);
            }
        }
    });
    crate::huge_pages::leave_worker_thread();
}
