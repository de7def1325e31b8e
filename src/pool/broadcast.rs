//! `broadcast` and `spawn_broadcast`: run a closure once on every worker of a pool, through
//! the per-worker targeted queues (only worker `i` takes jobs from queue `i`).

use std::marker::PhantomData;
use std::sync::Arc;

use super::isolate::Tag;
use super::job::{HeapJob, StackJob, TaggedJob};
use super::latch::{CountLatch, LatchRef};
use super::registry::{self, Registry};
use super::trace::JobKind;
use super::unwind;
use super::worker::WorkerThread;

/// Where a broadcast closure runs.
///
/// ```
/// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let seen = pool.broadcast(|ctx| (ctx.index(), ctx.num_threads()));
/// assert_eq!(seen, vec![(0, 2), (1, 2)]);
/// ```
#[derive(Debug)]
pub struct BroadcastContext<'a> {
    index: usize,
    num_threads: usize,
    /// Not Send: the context describes the thread it was handed to.
    marker: PhantomData<&'a mut *const ()>,
}

impl BroadcastContext<'_> {
    /// The context of the current worker thread.
    pub(crate) fn for_current_worker(num_threads: usize) -> Self {
        let index = WorkerThread::with_current(|worker| worker.map(WorkerThread::index))
            .expect("weft: broadcast job ran outside a worker");
        BroadcastContext {
            index,
            num_threads,
            marker: PhantomData,
        }
    }

    /// The index of the worker running this closure, in `0..num_threads()`.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.broadcast(|ctx| ctx.index()), vec![0, 1]);
    /// ```
    #[inline]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of workers the closure runs on.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// assert_eq!(pool.broadcast(|ctx| ctx.num_threads()), vec![3, 3, 3]);
    /// ```
    #[inline]
    pub fn num_threads(&self) -> usize {
        self.num_threads
    }
}

/// Runs `op` once on every worker of the current pool (the global one outside any pool) and
/// returns the results in worker-index order. Panics are resumed after all have run.
///
/// ```
/// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let squares = pool.install(|| weft::broadcast(|ctx| ctx.index() * ctx.index()));
/// assert_eq!(squares, vec![0, 1]);
/// ```
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    registry::in_worker(|worker, _| broadcast_on(worker, &op))
}

/// Spawns `op` as a detached task on every worker of the current pool.
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// pool.install(|| weft::spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap()));
/// let mut seen: Vec<usize> = rx.iter().take(2).collect();
/// seen.sort();
/// assert_eq!(seen, vec![0, 1]);
/// ```
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    WorkerThread::with_current(|worker| match worker {
        Some(worker) => spawn_broadcast_in(worker.registry(), op),
        None => spawn_broadcast_in(registry::global_registry(), op),
    })
}

fn broadcast_on<OP, R>(worker: &WorkerThread, op: &OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    let registry = worker.registry();
    // The size stays fixed until the jobs are queued (see `registry::FixedSize`).
    let size = registry.fixed_size();
    let num_threads = size.num_threads();
    let latch = CountLatch::new(num_threads, Some((registry, worker.index())));
    let jobs: Vec<_> = (0..num_threads)
        .map(|_| {
            StackJob::new(
                |_| op(BroadcastContext::for_current_worker(num_threads)),
                LatchRef(&latch),
            )
        })
        .collect();
    // Run in the broadcaster's isolation context by a worker that is not isolated itself.
    let tag = worker.context_tag();
    // SAFETY: `jobs` is neither moved nor dropped until `latch` reports all of them done.
    let job_refs = jobs.iter().map(|job| unsafe { job.as_job_ref() });
    size.inject_targeted(
        job_refs.map(|job| TaggedJob::new(job.with_kind(JobKind::Broadcast), tag)),
    );
    worker.wait_until(latch.core().expect("the owner is a worker"));
    jobs.into_iter().map(StackJob::into_result).collect()
}

pub(crate) fn spawn_broadcast_in<OP>(registry: &Arc<Registry>, op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    let op = Arc::new(op);
    let size = registry.fixed_size();
    let num_threads = size.num_threads();
    let jobs: Vec<_> = (0..num_threads)
        .map(|_| {
            registry.increment_terminate_count();
            let op = Arc::clone(&op);
            let registry = Arc::clone(registry);
            let job = move || {
                let ctx = BroadcastContext::for_current_worker(num_threads);
                // `move`: the last reference drops the closure inside the catch (its drop is
                // user code too).
                if let Err(payload) = unwind::halt_unwinding(move || op(ctx)) {
                    registry.handle_panic(payload);
                }
                registry.terminate();
            };
            // SAFETY: the job is `'static` and the targeted queue runs it exactly once.
            let job = unsafe { HeapJob::into_job_ref(job) }.with_kind(JobKind::Broadcast);
            TaggedJob::new(job, Tag::NONE)
        })
        .collect();
    size.inject_targeted(jobs);
}
