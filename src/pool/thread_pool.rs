//! `ThreadPoolBuilder`, `ThreadPool` and `ThreadPoolBuildError`: configuring, building,
//! using and shutting down a pool.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::io;
use std::sync::Arc;

use super::cancel::{self, CancelToken, Cancelled};
use super::registry::{self, Registry};
use super::sleep::MAX_WORKERS;
use super::thread_builder::{CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn};
use super::trace::{self, TraceConfig};
use super::{
    broadcast, future, handle, isolate, scope, spawn, BroadcastContext, JoinHandle, PoolStats,
    Scope, ScopeFifo, Yield,
};
use crate::trace::Trace;

/// Receives the payloads of panics in detached tasks.
pub(crate) type PanicHandler = dyn Fn(Box<dyn Any + Send>) + Send + Sync;

/// Configures a [`ThreadPool`] (or the global pool) before building it.
///
/// ```
/// let pool = weft::ThreadPoolBuilder::new()
///     .num_threads(3)
///     .thread_name(|i| format!("worker-{i}"))
///     .build()
///     .unwrap();
/// assert_eq!(pool.current_num_threads(), 3);
/// let name = pool.install(|| std::thread::current().name().map(str::to_owned));
/// assert!(name.unwrap().starts_with("worker-"));
/// ```
///
/// The type parameter `S` says how worker threads are started: the default
/// (`std::thread::Builder`), or the closure given to
/// [`spawn_handler`](Self::spawn_handler). As in Rayon, it cannot be named; write
/// `ThreadPoolBuilder` for the default.
pub struct ThreadPoolBuilder<S = DefaultSpawn> {
    num_threads: usize,
    thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    stack_size: Option<usize>,
    panic_handler: Option<Box<PanicHandler>>,
    start_handler: Option<Box<dyn Fn(usize) + Send + Sync>>,
    exit_handler: Option<Box<dyn Fn(usize) + Send + Sync>>,
    use_current_thread: bool,
    huge_pages: Option<bool>,
    /// `None`: as `WEFT_TRACE` says.
    trace: Option<bool>,
    trace_capacity: usize,
    spawn_handler: S,
}

impl<S> fmt::Debug for ThreadPoolBuilder<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.num_threads)
            .field("thread_name", &self.thread_name.is_some())
            .field("stack_size", &self.stack_size)
            .field("panic_handler", &self.panic_handler.is_some())
            .field("start_handler", &self.start_handler.is_some())
            .field("exit_handler", &self.exit_handler.is_some())
            .field("use_current_thread", &self.use_current_thread)
            .field("huge_pages", &self.huge_pages)
            .field("trace", &self.trace)
            .field("trace_capacity", &self.trace_capacity)
            .finish_non_exhaustive()
    }
}

/// Only for the default spawn, so that `ThreadPoolBuilder::default()` infers its type.
impl Default for ThreadPoolBuilder {
    fn default() -> Self {
        ThreadPoolBuilder {
            num_threads: 0,
            thread_name: None,
            stack_size: None,
            panic_handler: None,
            start_handler: None,
            exit_handler: None,
            use_current_thread: false,
            huge_pages: None,
            trace: None,
            trace_capacity: trace::DEFAULT_CAPACITY,
            spawn_handler: DefaultSpawn,
        }
    }
}

impl ThreadPoolBuilder {
    /// A builder with default settings (automatic thread count, no handlers).
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().build().unwrap();
    /// assert!(pool.current_num_threads() >= 1);
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds a pool whose workers are threads of a [`std::thread::scope`], runs
    /// `with_pool(&pool)`, drops the pool and returns `with_pool`'s result once every worker
    /// thread has exited. Each worker thread starts by calling `wrapper(thread)`, which may
    /// set up per-thread state and must then call [`ThreadBuilder::run`]. Neither closure
    /// needs to be `'static`: they may borrow the caller's locals.
    ///
    /// If `with_pool` spawns detached tasks ([`ThreadPool::spawn`]), the call returns only
    /// after they have finished.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let started = AtomicUsize::new(0); // a local, borrowed by every worker
    /// let data = vec![1u64, 2, 3, 4];
    /// let sum = weft::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .build_scoped(
    ///         |thread| {
    ///             started.fetch_add(1, Ordering::SeqCst);
    ///             thread.run()
    ///         },
    ///         |pool| pool.install(|| data.iter().sum::<u64>()),
    ///     )
    ///     .unwrap();
    /// assert_eq!(sum, 10);
    /// assert_eq!(started.load(Ordering::SeqCst), 2);
    /// ```
    pub fn build_scoped<W, F, R>(self, wrapper: W, with_pool: F) -> Result<R, ThreadPoolBuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&ThreadPool) -> R,
    {
        let wrapper = &wrapper;
        std::thread::scope(|scope| {
            let pool = self
                .spawn_handler(|thread| {
                    thread
                        .std_builder()
                        .spawn_scoped(scope, move || wrapper(thread))?;
                    Ok(())
                })
                .build()?;
            // The pool drops at the end of this closure; the scope then joins its workers.
            Ok(with_pool(&pool))
        })
    }
}

impl<S: ThreadSpawn> ThreadPoolBuilder<S> {
    /// Builds a new pool.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.join(|| 1, || 2), (1, 2));
    /// ```
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        Ok(ThreadPool {
            registry: Registry::new(self)?,
        })
    }

    /// Configures the global pool; an error if it exists already (it is created by the first
    /// use of any parallel operation outside a pool).
    ///
    /// ```
    /// // The global pool may have been created already in this process.
    /// let first = weft::ThreadPoolBuilder::new().num_threads(2).build_global();
    /// let second = weft::ThreadPoolBuilder::new().build_global();
    /// assert!(second.is_err());
    /// if first.is_ok() {
    ///     assert_eq!(weft::current_num_threads(), 2);
    /// }
    /// ```
    pub fn build_global(self) -> Result<(), ThreadPoolBuildError> {
        registry::init_global_registry(self)
    }
}

impl<S> ThreadPoolBuilder<S> {
    /// Starts each worker thread with `spawn(thread)` instead of `std::thread::spawn`: the
    /// handler must start a thread that calls [`ThreadBuilder::run`] (which returns once the
    /// pool has shut down), and is called once per worker, in index order. An `Err` from it
    /// makes [`build`](Self::build) (or [`build_global`](Self::build_global)) fail with that
    /// error; the workers started before then see the pool terminated and leave `run`.
    ///
    /// The handler is responsible for the threads' names and stack sizes
    /// ([`ThreadBuilder::name`], [`ThreadBuilder::stack_size`]), and every `ThreadBuilder`
    /// it receives must eventually run (a worker that never runs never takes the jobs meant
    /// for it, such as its share of a [`broadcast`](ThreadPool::broadcast)). Workers leave
    /// `run` only after the pool is dropped: waiting for their threads is up to the caller
    /// ([`ThreadPool::shutdown_and_wait`] waits until every worker has left `run`).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let spawned = AtomicUsize::new(0);
    /// let pool = weft::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .spawn_handler(|thread| {
    ///         spawned.fetch_add(1, Ordering::SeqCst);
    ///         std::thread::Builder::new()
    ///             .name(format!("mine-{}", thread.index()))
    ///             .spawn(|| thread.run())?;
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(spawned.load(Ordering::SeqCst), 2);
    /// let name = pool.install(|| std::thread::current().name().unwrap().to_owned());
    /// assert!(name.starts_with("mine-"));
    /// ```
    pub fn spawn_handler<F>(self, spawn: F) -> ThreadPoolBuilder<CustomSpawn<F>>
    where
        F: FnMut(ThreadBuilder) -> io::Result<()>,
    {
        ThreadPoolBuilder {
            num_threads: self.num_threads,
            thread_name: self.thread_name,
            stack_size: self.stack_size,
            panic_handler: self.panic_handler,
            start_handler: self.start_handler,
            exit_handler: self.exit_handler,
            use_current_thread: self.use_current_thread,
            huge_pages: self.huge_pages,
            trace: self.trace,
            trace_capacity: self.trace_capacity,
            spawn_handler: CustomSpawn::new(spawn),
        }
    }

    /// Makes the calling thread worker 0 of the pool [`build`](Self::build) creates; only
    /// `num_threads - 1` threads are started. The calling thread does not run a worker loop:
    /// it runs the pool's jobs only while it waits inside a parallel operation (`join`,
    /// `scope`, `install`, a parallel iterator, ...) or calls [`yield_now`](crate::yield_now),
    /// and parallel operations it calls run in this pool instead of the global one. Start and
    /// exit handlers do not run for it. `build` fails if the calling thread is already a
    /// worker of some pool.
    ///
    /// The thread stays worker 0 for the rest of its life, even after the pool is dropped
    /// (its state, and with it the pool's shared state, is leaked, as in Rayon): keep the
    /// pool alive while the thread uses weft, or use this only on a thread that ends with
    /// the pool. [`build_global`](Self::build_global) with this option makes the calling
    /// thread a worker of the global pool.
    ///
    /// ```
    /// std::thread::spawn(|| {
    ///     let pool = weft::ThreadPoolBuilder::new()
    ///         .num_threads(2)
    ///         .use_current_thread()
    ///         .build()
    ///         .unwrap();
    ///     assert_eq!(weft::current_thread_index(), Some(0));
    ///     assert_eq!(pool.current_thread_index(), Some(0));
    ///     let (a, b) = weft::join(|| 1 + 1, || 2 + 2);
    ///     assert_eq!((a, b), (2, 4));
    /// })
    /// .join()
    /// .unwrap();
    /// ```
    pub fn use_current_thread(mut self) -> Self {
        self.use_current_thread = true;
        self
    }

    /// Sets the number of worker threads; 0 (the default) means automatic:
    /// `WEFT_NUM_THREADS`, else `RAYON_NUM_THREADS`, else the available parallelism.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.current_num_threads(), 2);
    /// ```
    pub fn num_threads(mut self, num_threads: usize) -> Self {
        self.num_threads = num_threads;
        self
    }

    /// Names each worker thread: `closure(index)`. A panic in the closure propagates out of
    /// [`build`](Self::build), as in Rayon; the workers started before it exit.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .thread_name(|i| format!("sorter-{i}"))
    ///     .build()
    ///     .unwrap();
    /// let name = pool.install(|| std::thread::current().name().unwrap().to_owned());
    /// assert_eq!(name, "sorter-0");
    /// ```
    pub fn thread_name<F>(mut self, closure: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.thread_name = Some(Box::new(closure));
        self
    }

    /// Sets each worker's stack size in bytes. A size the OS refuses makes
    /// [`build`](Self::build) fail with an error.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().stack_size(4 << 20).build().unwrap();
    /// assert_eq!(pool.install(|| 40 + 2), 42);
    /// ```
    pub fn stack_size(mut self, stack_size: usize) -> Self {
        self.stack_size = Some(stack_size);
        self
    }

    /// Receives the panics of detached tasks ([`spawn`](crate::spawn) and friends). Without
    /// a handler such a panic aborts the process, as in Rayon. May be called concurrently.
    ///
    /// It also receives every other panic of user code a worker runs outside a scope that
    /// could resume it: a start or exit handler's (without a handler, these abort too), and,
    /// for [`spawn_handle`](crate::spawn_handle) tasks, the panic of a task whose handle was
    /// dropped, of the waker registered on its handle, of the drop of a result nobody will
    /// take (without a handler, these are ignored once the panic hook has reported them). No
    /// panic of user code unwinds through a worker: the pool keeps all its threads. If the
    /// handler itself panics, the process aborts, as in Rayon.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let seen = Arc::new(AtomicUsize::new(0));
    /// let counter = Arc::clone(&seen);
    /// let pool = weft::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .panic_handler(move |_| { counter.fetch_add(1, Ordering::SeqCst); })
    ///     .build()
    ///     .unwrap();
    /// pool.spawn(|| panic!("lost in the background"));
    /// pool.shutdown_and_wait(); // the pool ends only after the spawned task has run
    /// assert_eq!(seen.load(Ordering::SeqCst), 1);
    /// ```
    pub fn panic_handler<H>(mut self, handler: H) -> Self
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.panic_handler = Some(Box::new(handler));
        self
    }

    /// Runs `handler(index)` on each worker thread when it starts.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let counter = Arc::clone(&started);
    /// let pool = weft::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .start_handler(move |_| { counter.fetch_add(1, Ordering::SeqCst); })
    ///     .build()
    ///     .unwrap();
    /// pool.broadcast(|_| ()); // every worker has started once it ran a broadcast job
    /// assert_eq!(started.load(Ordering::SeqCst), 2);
    /// ```
    pub fn start_handler<H>(mut self, handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.start_handler = Some(Box::new(handler));
        self
    }

    /// Runs `handler(index)` on each worker thread just before it exits.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let exited = Arc::new(AtomicUsize::new(0));
    /// let counter = Arc::clone(&exited);
    /// let pool = weft::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .exit_handler(move |_| { counter.fetch_add(1, Ordering::SeqCst); })
    ///     .build()
    ///     .unwrap();
    /// pool.shutdown_and_wait();
    /// assert_eq!(exited.load(Ordering::SeqCst), 2);
    /// ```
    pub fn exit_handler<H>(mut self, handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.exit_handler = Some(Box::new(handler));
        self
    }

    /// Asks Linux for transparent huge pages (`madvise(MADV_HUGEPAGE)`) for the large
    /// buffers this pool's parallel operations allocate and fill at once: a `collect`,
    /// `par_extend` or `unzip` into a `Vec` of 32 MiB or more, the growing pieces of an
    /// unindexed collect, the stable sort's scratch buffer and `par_sort_by_cached_key`'s
    /// keys. Off by default; without this call the pool follows `WEFT_HUGE_PAGES=1`.
    ///
    /// The setting belongs to the threads that allocate: this pool's workers, which run
    /// everything inside [`ThreadPool::install`] (including the result of a `collect` made
    /// there). For the global pool ([`build_global`](Self::build_global)) it also covers
    /// parallel calls made from threads outside any pool, which allocate their result on the
    /// calling thread. Results never change; where the advice is unavailable, nothing happens.
    ///
    /// The trade-off (README, "Huge pages"): a fresh large collect faults its pages in
    /// several times faster, but with the kernel's common `defrag=madvise` setting a fault
    /// may stall while the kernel compacts memory, and pages the allocator keeps after the
    /// buffer is freed keep the advice for whatever reuses them.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let pool = weft::ThreadPoolBuilder::new().huge_pages(true).build().unwrap();
    /// let squares: Vec<u64> = pool.install(|| (0..1000u64).into_par_iter().map(|x| x * x).collect());
    /// assert_eq!(squares[999], 998_001);
    /// ```
    pub fn huge_pages(mut self, enabled: bool) -> Self {
        self.huge_pages = Some(enabled);
        self
    }

    /// Records what the workers do, for [`ThreadPool::take_trace`] (`true`), or not even if
    /// `WEFT_TRACE` is set (`false`). Without this call the pool records if `WEFT_TRACE` is
    /// set (see [`weft::trace`](crate::trace), which also says what is recorded and what it
    /// costs). Recording is fixed when the pool is built.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).trace(true).build().unwrap();
    /// pool.install(|| weft::join(|| 1, || 2));
    /// let trace = pool.take_trace().unwrap();
    /// assert_eq!(trace.num_workers(), 2);
    /// let quiet = weft::ThreadPoolBuilder::new().trace(false).build().unwrap();
    /// assert!(quiet.take_trace().is_none());
    /// ```
    pub fn trace(mut self, record: bool) -> Self {
        self.trace = Some(record);
        self
    }

    /// How many records each worker's trace buffer holds (default 65 536, 48 bytes each,
    /// allocated when the pool is built if it records). When a buffer is full, its newest
    /// records are dropped and counted ([`Trace::dropped`]) until a
    /// [`take_trace`](ThreadPool::take_trace) empties it.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .trace(true)
    ///     .trace_capacity(2)
    ///     .build()
    ///     .unwrap();
    /// for _ in 0..5 {
    ///     pool.install(|| ()); // an injector pop and a job each: two records
    /// }
    /// let trace = pool.take_trace().unwrap();
    /// assert_eq!(trace.spans().len() + trace.marks().len(), 2);
    /// assert!(trace.dropped() >= 7); // the last job may not have ended yet
    /// ```
    pub fn trace_capacity(mut self, records: usize) -> Self {
        self.trace_capacity = records.max(1);
        self
    }

    /// Whether the pool records, and how (the builder's settings with `WEFT_TRACE`).
    pub(crate) fn trace_config(&self) -> Option<TraceConfig> {
        TraceConfig::resolve(self.trace, self.trace_capacity)
    }

    pub(crate) fn resolved_num_threads(&self) -> usize {
        let from_env = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<usize>().ok())
                .filter(|&n| n > 0)
        };
        let n = if self.num_threads > 0 {
            self.num_threads
        } else {
            from_env("WEFT_NUM_THREADS")
                .or_else(|| from_env("RAYON_NUM_THREADS"))
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        };
        n.min(MAX_WORKERS)
    }

    /// Worker `index`'s name. A panic in the closure unwinds out of `build`, as in Rayon
    /// (the registry's guard makes the workers started so far exit).
    pub(crate) fn thread_name_for(&mut self, index: usize) -> Option<String> {
        self.thread_name.as_mut().map(|name| name(index))
    }

    pub(crate) fn get_stack_size(&self) -> Option<usize> {
        self.stack_size
    }

    pub(crate) fn take_panic_handler(&mut self) -> Option<Box<PanicHandler>> {
        self.panic_handler.take()
    }

    pub(crate) fn take_start_handler(&mut self) -> Option<Box<dyn Fn(usize) + Send + Sync>> {
        self.start_handler.take()
    }

    pub(crate) fn take_exit_handler(&mut self) -> Option<Box<dyn Fn(usize) + Send + Sync>> {
        self.exit_handler.take()
    }

    pub(crate) fn huge_pages_setting(&self) -> Option<bool> {
        self.huge_pages
    }

    pub(crate) fn uses_current_thread(&self) -> bool {
        self.use_current_thread
    }

    pub(crate) fn spawn_handler_mut(&mut self) -> &mut S {
        &mut self.spawn_handler
    }
}

/// Why a pool could not be built.
///
/// ```
/// weft::ThreadPoolBuilder::new().num_threads(1).build_global().unwrap();
/// let err = weft::ThreadPoolBuilder::new().build_global().unwrap_err();
/// assert_eq!(err.to_string(), "The global thread pool has already been initialized.");
/// ```
#[derive(Debug)]
pub struct ThreadPoolBuildError {
    kind: ErrorKind,
}

#[derive(Debug)]
enum ErrorKind {
    GlobalPoolAlreadyInitialized,
    SpawnPanicked,
    CurrentThreadAlreadyInPool,
    CannotGrow,
    Io(std::io::Error),
}

impl ThreadPoolBuildError {
    fn new(kind: ErrorKind) -> Self {
        ThreadPoolBuildError { kind }
    }
    pub(crate) fn global_pool_already_initialized() -> Self {
        Self::new(ErrorKind::GlobalPoolAlreadyInitialized)
    }
    pub(crate) fn spawn_panicked() -> Self {
        Self::new(ErrorKind::SpawnPanicked)
    }
    pub(crate) fn current_thread_already_in_pool() -> Self {
        Self::new(ErrorKind::CurrentThreadAlreadyInPool)
    }
    pub(crate) fn cannot_grow() -> Self {
        Self::new(ErrorKind::CannotGrow)
    }
    pub(crate) fn io(err: std::io::Error) -> Self {
        Self::new(ErrorKind::Io(err))
    }
}

impl fmt::Display for ThreadPoolBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            // Rayon's texts, letter for letter: code (and Rayon's own tests) compare them.
            ErrorKind::GlobalPoolAlreadyInitialized => {
                f.write_str("The global thread pool has already been initialized.")
            }
            ErrorKind::SpawnPanicked => {
                f.write_str("spawning a worker thread panicked (is the stack size valid?)")
            }
            ErrorKind::CurrentThreadAlreadyInPool => {
                f.write_str("The current thread is already part of another thread pool.")
            }
            ErrorKind::CannotGrow => f.write_str(
                "a pool whose threads a spawn_handler started cannot start more (set_num_threads)",
            ),
            ErrorKind::Io(err) => write!(f, "starting a worker thread failed: {err}"),
        }
    }
}

impl std::error::Error for ThreadPoolBuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Io(err) => Some(err),
            _ => None,
        }
    }
}

/// A pool of worker threads. Dropping it lets the workers exit once the detached tasks
/// spawned into it have finished; [`shutdown_and_wait`](Self::shutdown_and_wait) also waits
/// for the threads to be gone.
///
/// ```
/// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let sum: u64 = pool.install(|| {
///     let (a, b) = weft::join(|| (0..500u64).sum::<u64>(), || (500..1000u64).sum::<u64>());
///     a + b
/// });
/// assert_eq!(sum, 499_500);
/// ```
pub struct ThreadPool {
    registry: Arc<Registry>,
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPool")
            .field("num_threads", &self.registry.num_threads())
            .finish()
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        self.registry.terminate();
    }
}

impl ThreadPool {
    /// Builds a pool from Rayon's deprecated [`Configuration`](crate::Configuration); use
    /// [`ThreadPoolBuilder::build`] instead.
    ///
    /// ```
    /// #![allow(deprecated)]
    /// let pool = weft::ThreadPool::new(weft::Configuration::new().num_threads(1)).unwrap();
    /// assert_eq!(pool.current_num_threads(), 1);
    /// ```
    #[deprecated(note = "Use `ThreadPoolBuilder::build`")]
    #[allow(deprecated)]
    pub fn new(
        configuration: crate::Configuration,
    ) -> Result<ThreadPool, Box<dyn std::error::Error>> {
        configuration.build()
    }

    /// Runs `op` on a worker of this pool and returns its result; parallel operations inside
    /// `op` use this pool. A panic in `op` is resumed here.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// assert_eq!(pool.install(weft::current_num_threads), 3);
    /// ```
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        self.registry.in_worker(|_, _| op())
    }

    /// [`join`](crate::join) in this pool.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.join(|| "a", || "b"), ("a", "b"));
    /// ```
    pub fn join<A, B, RA, RB>(&self, oper_a: A, oper_b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.install(|| super::join(oper_a, oper_b))
    }

    /// [`scope`](crate::scope) in this pool.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut parts = [0; 2];
    /// pool.scope(|s| {
    ///     let (left, right) = parts.split_at_mut(1);
    ///     s.spawn(move |_| left[0] = 1);
    ///     s.spawn(move |_| right[0] = 2);
    /// });
    /// assert_eq!(parts, [1, 2]);
    /// ```
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| scope::scope(op))
    }

    /// [`scope_fifo`](crate::scope_fifo) in this pool.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let total = std::sync::atomic::AtomicUsize::new(0);
    /// pool.scope_fifo(|s| {
    ///     for i in 1..=4 {
    ///         let total = &total;
    ///         s.spawn_fifo(move |_| { total.fetch_add(i, std::sync::atomic::Ordering::SeqCst); });
    ///     }
    /// });
    /// assert_eq!(total.into_inner(), 10);
    /// ```
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| scope::scope_fifo(op))
    }

    /// [`in_place_scope`](crate::in_place_scope) whose spawned tasks run in this pool.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut value = 0;
    /// pool.in_place_scope(|s| s.spawn(|_| value = 7));
    /// assert_eq!(value, 7);
    /// ```
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        scope::in_place_scope_in(&self.registry, op)
    }

    /// [`in_place_scope_fifo`](crate::in_place_scope_fifo) whose tasks run in this pool.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut value = 0;
    /// pool.in_place_scope_fifo(|s| s.spawn_fifo(|_| value = 9));
    /// assert_eq!(value, 9);
    /// ```
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R,
    {
        scope::in_place_scope_fifo_in(&self.registry, op)
    }

    /// Spawns a detached task into this pool.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// pool.spawn(move || tx.send(6 * 7).unwrap());
    /// assert_eq!(rx.recv().unwrap(), 42);
    /// ```
    pub fn spawn<OP>(&self, op: OP)
    where
        OP: FnOnce() + Send + 'static,
    {
        spawn::spawn_in(&self.registry, op, false)
    }

    /// Starts `op` as a task in this pool and returns its [`JoinHandle`]: `join` it, or
    /// `.await` it from async code (see [`spawn_handle`](crate::spawn_handle)).
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let handles: Vec<_> = (0..8u64).map(|i| pool.spawn_handle(move || i * i)).collect();
    /// let squares: Vec<u64> = handles.into_iter().map(|h| h.join()).collect();
    /// assert_eq!(squares, [0, 1, 4, 9, 16, 25, 36, 49]);
    /// ```
    pub fn spawn_handle<OP, T>(&self, op: OP) -> JoinHandle<T>
    where
        OP: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        handle::spawn_handle_in(&self.registry, op)
    }

    /// Runs `future` on this pool and returns its [`JoinHandle`]: `join` it, or `.await` it
    /// (see [`spawn_future`](crate::spawn_future)).
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let handle = pool.spawn_future(async {
    ///     let squares: Vec<_> = (0..4u64).map(|i| weft::spawn_handle(move || i * i)).collect();
    ///     let mut total = 0;
    ///     for square in squares {
    ///         total += square.await;
    ///     }
    ///     total
    /// });
    /// assert_eq!(handle.join(), 14);
    /// ```
    pub fn spawn_future<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        future::spawn_future_in(&self.registry, future)
    }

    /// [`isolate`](crate::isolate) on a worker of this pool: runs `op` there (as
    /// [`install`](Self::install) does) so that a worker waiting inside it runs only work
    /// created inside it.
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use weft::prelude::*;
    ///
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    /// let log = Mutex::new(Vec::new());
    /// pool.install(|| {
    ///     (0..8u32).into_par_iter().for_each(|i| {
    ///         let mut log = log.lock().unwrap();
    ///         let sum = pool.isolate(|| (0..100u32).into_par_iter().map(|x| x + i).sum::<u32>());
    ///         log.push(sum);
    ///     })
    /// });
    /// let mut log = log.into_inner().unwrap();
    /// log.sort();
    /// assert_eq!(log, (0..8u32).map(|i| 4950 + 100 * i).collect::<Vec<_>>());
    /// ```
    pub fn isolate<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        self.install(|| isolate::isolate(op))
    }

    /// [`cancellable`](crate::cancellable) in this pool: runs `op` here (as `install` does)
    /// in a region of `token`, whose work stops taking new items and tasks once the token
    /// is cancelled. A weft extension.
    ///
    /// # Errors
    /// `Err(Cancelled)` if the token was cancelled before `op` finished.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let token = weft::CancelToken::new();
    /// let found = pool.cancellable(&token, || {
    ///     (0..1_000_000u64).into_par_iter().for_each(|i| {
    ///         if i == 1000 {
    ///             token.cancel(); // e.g. another request made this one pointless
    ///         }
    ///     });
    /// });
    /// assert_eq!(found, Err(weft::Cancelled));
    /// assert_eq!(pool.install(|| (0..10u64).into_par_iter().sum::<u64>()), 45);
    /// ```
    pub fn cancellable<OP, R>(&self, token: &CancelToken, op: OP) -> Result<R, Cancelled>
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        cancel::cancellable_in(&self.registry, token, op)
    }

    /// Spawns a detached task into this pool, FIFO relative to the caller's other FIFO spawns.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// pool.spawn_fifo(move || tx.send("done").unwrap());
    /// assert_eq!(rx.recv().unwrap(), "done");
    /// ```
    pub fn spawn_fifo<OP>(&self, op: OP)
    where
        OP: FnOnce() + Send + 'static,
    {
        spawn::spawn_in(&self.registry, op, true)
    }

    /// Runs `op` once on every worker of this pool; returns the results by worker index.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// assert_eq!(pool.broadcast(|ctx| ctx.index()), vec![0, 1, 2]);
    /// ```
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        let op = &op;
        self.install(|| broadcast::broadcast(op))
    }

    /// Spawns `op` as a detached task on every worker of this pool.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// pool.spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap());
    /// let mut seen: Vec<usize> = rx.iter().take(2).collect();
    /// seen.sort();
    /// assert_eq!(seen, vec![0, 1]);
    /// ```
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        broadcast::spawn_broadcast_in(&self.registry, op)
    }

    /// Grows or shrinks this pool to `n` worker threads while it runs. A weft extension
    /// (Rayon issue 1088). `n` above [`max_num_threads`](crate::max_num_threads) is capped
    /// to it, as in [`ThreadPoolBuilder::num_threads`].
    ///
    /// What holds during and after a resize:
    /// - [`current_num_threads`](Self::current_num_threads) (and
    ///   [`weft::current_num_threads`](crate::current_num_threads) on any thread) returns `n`
    ///   as soon as this call has taken the new size, before threads have started or exited.
    /// - Growing starts threads for indices `old..n` before returning; they run the
    ///   [`start_handler`](ThreadPoolBuilder::start_handler) and take work at once. Threads a
    ///   resize starts are unnamed (the [`thread_name`](ThreadPoolBuilder::thread_name) closure
    ///   is not `Send`, so the pool cannot keep it) and use the builder's stack size.
    /// - Shrinking returns at once. Each worker of an index `n..old` *retires*: it finishes
    ///   the job it is running (a retiring worker that owns part of a parallel loop finishes
    ///   that part, and other workers may still steal from it), then, back in its main loop,
    ///   runs the broadcast jobs queued for it, moves the jobs still queued on it to the
    ///   pool's shared queue (where each runs once, on another worker), runs the
    ///   [`exit_handler`](ThreadPoolBuilder::exit_handler) and exits. A sleeping worker is
    ///   woken to retire. Nothing queued is lost or run twice.
    /// - Indices stay dense: the members are workers `0..n`. Until it exits, a retiring
    ///   worker keeps its index, so code already running on it sees
    ///   [`current_thread_index`](crate::current_thread_index) `>= n`: size per-thread tables
    ///   by the largest size the pool has had, not by `current_num_threads()`, if the pool
    ///   may shrink under them.
    /// - A broadcast ([`broadcast`](Self::broadcast), [`spawn_broadcast`](Self::spawn_broadcast),
    ///   [`Scope::spawn_broadcast`](crate::Scope::spawn_broadcast)) runs once on each of the
    ///   workers `0..m`, where `m` is the size when it was queued, and its
    ///   [`BroadcastContext::num_threads`](crate::BroadcastContext::num_threads) is `m`: a
    ///   resize waits for the queueing (a few pushes), and a worker asked to retire runs its
    ///   part before it exits.
    /// - A worker decides whether it is alone (a pool of one runs `join`s in place and loops
    ///   inline, offering nothing) when it takes a job: work already running when a pool of
    ///   one grows stays on its worker; work started afterwards spreads.
    /// - Growing back over a worker that has not exited yet keeps that thread.
    ///
    /// The global pool resizes through [`weft::set_num_threads`](crate::set_num_threads).
    ///
    /// # Errors
    /// If a thread could not be started: the pool then has the workers it could start (as
    /// `current_num_threads` says). A pool whose threads a
    /// [`spawn_handler`](ThreadPoolBuilder::spawn_handler) started can shrink, and grow back
    /// over its retiring workers, but not start new threads: growing it fails.
    ///
    /// # Panics
    /// If `n` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// pool.set_num_threads(4).unwrap();
    /// assert_eq!(pool.current_num_threads(), 4);
    /// assert_eq!(pool.install(weft::current_num_threads), 4);
    /// let sum: u64 = pool.install(|| (1..=1000u64).into_par_iter().sum());
    /// assert_eq!(sum, 500_500);
    /// pool.set_num_threads(1).unwrap();
    /// assert_eq!(pool.broadcast(|ctx| ctx.num_threads()), vec![1]);
    /// ```
    pub fn set_num_threads(&self, n: usize) -> Result<(), ThreadPoolBuildError> {
        self.registry.set_num_threads(n)
    }

    /// The number of worker threads of this pool (after a
    /// [`set_num_threads`](Self::set_num_threads), the new size at once).
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(5).build().unwrap();
    /// assert_eq!(pool.current_num_threads(), 5);
    /// ```
    pub fn current_num_threads(&self) -> usize {
        self.registry.num_threads()
    }

    /// The index of the current thread in this pool, or None if it is not one of its workers.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.current_thread_index(), None);
    /// assert!(pool.install(|| pool.current_thread_index()).unwrap() < 2);
    /// ```
    pub fn current_thread_index(&self) -> Option<usize> {
        self.registry
            .with_current_worker(|worker| worker.map(|worker| worker.index()))
    }

    /// True if the current thread is a worker of this pool with tasks of its own waiting.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// assert!(!pool.current_thread_has_pending_tasks().unwrap_or(false));
    /// ```
    pub fn current_thread_has_pending_tasks(&self) -> Option<bool> {
        self.registry
            .with_current_worker(|worker| worker.map(|worker| worker.has_pending_tasks()))
    }

    /// [`yield_now`](crate::yield_now) if the current thread is a worker of this pool.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// assert_eq!(pool.yield_now(), None); // not called from a worker of `pool`
    /// ```
    pub fn yield_now(&self) -> Option<Yield> {
        self.registry
            .with_current_worker(|worker| worker.map(super::yield_on))
    }

    /// [`yield_local`](crate::yield_local) if the current thread is a worker of this pool.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// assert_eq!(pool.install(|| pool.yield_local()), Some(weft::Yield::Idle));
    /// ```
    pub fn yield_local(&self) -> Option<Yield> {
        self.registry
            .with_current_worker(|worker| worker.map(super::yield_local_on))
    }

    /// What the pool's workers did since the previous call (or since the pool was built):
    /// `None` unless the pool records ([`ThreadPoolBuilder::trace`], `WEFT_TRACE`). Taking
    /// empties the workers' buffers. See [`weft::trace`](crate::trace).
    ///
    /// ```
    /// use weft::trace::{JobKind, SpanKind};
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(1).trace(true).build().unwrap();
    /// pool.install(|| ());
    /// pool.install(|| ()); // the one worker has finished recording the first install
    /// let trace = pool.take_trace().unwrap();
    /// assert!(trace.spans().iter().any(|span| span.kind == SpanKind::Job(JobKind::Install)));
    /// assert!(weft::ThreadPoolBuilder::new().trace(false).build().unwrap().take_trace().is_none());
    /// ```
    pub fn take_trace(&self) -> Option<Trace> {
        self.registry.take_trace().map(Trace::read)
    }

    /// A snapshot of the pool's statistics counters (see [`PoolStats`]).
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let before = pool.stats();
    /// pool.spawn(|| ());
    /// pool.install(|| ());
    /// let delta = pool.stats() - before;
    /// assert!(delta.jobs_executed >= 1);
    /// ```
    pub fn stats(&self) -> PoolStats {
        self.registry.stats()
    }

    /// Shuts the pool down and blocks until all its worker threads have exited (after the
    /// detached tasks spawned into it have finished). A weft extension (see rayon issue 688).
    ///
    /// For a pool started by a [`spawn_handler`](ThreadPoolBuilder::spawn_handler), it waits
    /// until every worker has returned from [`ThreadBuilder::run`] (what the handler's threads
    /// do afterwards is theirs). A thread adopted by
    /// [`use_current_thread`](ThreadPoolBuilder::use_current_thread) is not waited for.
    ///
    /// # Panics
    /// If called from one of this pool's own workers, which could never exit.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// pool.spawn(|| {});
    /// pool.shutdown_and_wait();
    /// ```
    pub fn shutdown_and_wait(self) {
        assert!(
            self.registry.with_current_worker(|worker| worker.is_none()),
            "weft: shutdown_and_wait called from a worker of the pool it waits for"
        );
        let registry = Arc::clone(&self.registry);
        drop(self);
        registry.join_all_threads();
    }
}
