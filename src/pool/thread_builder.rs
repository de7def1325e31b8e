//! `ThreadBuilder`, the handle a spawn handler receives for each worker, and the two ways a
//! pool starts its threads: `DefaultSpawn` (`std::thread::Builder`, joined by
//! `shutdown_and_wait`) and `CustomSpawn` (the closure given to
//! [`ThreadPoolBuilder::spawn_handler`](crate::ThreadPoolBuilder::spawn_handler)).
//!
//! `ThreadSpawn`, `DefaultSpawn` and `CustomSpawn` are public only because they appear in the
//! builder's type (`ThreadPoolBuilder<S = DefaultSpawn>`); this module is private, so users
//! can neither name nor implement them, as in Rayon.

use std::fmt;
use std::io;
use std::sync::Arc;
use std::thread;

use super::registry::{self, Registry};
use super::thread_pool::ThreadPoolBuildError;
use super::unwind;

/// One worker of a pool being built, handed to a
/// [`spawn_handler`](crate::ThreadPoolBuilder::spawn_handler): start a thread and call
/// [`run`](Self::run) on it.
///
/// ```
/// let pool = weft::ThreadPoolBuilder::new()
///     .num_threads(2)
///     .thread_name(|i| format!("custom-{i}"))
///     .spawn_handler(|thread: weft::ThreadBuilder| {
///         assert_eq!(thread.name(), Some(format!("custom-{}", thread.index()).as_str()));
///         std::thread::spawn(move || thread.run());
///         Ok(())
///     })
///     .build()
///     .unwrap();
/// assert_eq!(pool.install(|| weft::join(|| 1, || 2)), (1, 2));
/// ```
pub struct ThreadBuilder {
    name: Option<String>,
    stack_size: Option<usize>,
    index: usize,
    /// Counts this worker as live until it has run and left its loop, or was dropped unrun.
    live: LiveWorker,
    /// Set by `DefaultSpawn`: counts this worker as idle until it enters its loop.
    arrival: Option<Arrival>,
}

impl ThreadBuilder {
    pub(crate) fn new(
        registry: &Arc<Registry>,
        index: usize,
        name: Option<String>,
        stack_size: Option<usize>,
    ) -> Self {
        ThreadBuilder {
            name,
            stack_size,
            index,
            live: LiveWorker::new(registry),
            arrival: None,
        }
    }

    /// This worker's index in its pool, in `0..num_threads`.
    ///
    /// ```
    /// let mut seen = Vec::new();
    /// let pool = weft::ThreadPoolBuilder::new()
    ///     .num_threads(3)
    ///     .spawn_handler(|thread| {
    ///         seen.push(thread.index());
    ///         std::thread::spawn(move || thread.run());
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// drop(pool);
    /// assert_eq!(seen, vec![0, 1, 2]);
    /// ```
    pub fn index(&self) -> usize {
        self.index
    }

    /// The name [`thread_name`](crate::ThreadPoolBuilder::thread_name) gave this worker.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .thread_name(|i| format!("named-{i}"))
    ///     .spawn_handler(|thread| {
    ///         let name = thread.name().map(str::to_owned);
    ///         let mut std_builder = std::thread::Builder::new();
    ///         if let Some(name) = name {
    ///             std_builder = std_builder.name(name);
    ///         }
    ///         std_builder.spawn(move || thread.run())?;
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let name = pool.install(|| std::thread::current().name().map(str::to_owned));
    /// assert_eq!(name.as_deref(), Some("named-0"));
    /// ```
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The stack size [`stack_size`](crate::ThreadPoolBuilder::stack_size) asked for.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .stack_size(1 << 21)
    ///     .spawn_handler(|thread| {
    ///         assert_eq!(thread.stack_size(), Some(1 << 21));
    ///         let size = thread.stack_size().unwrap();
    ///         std::thread::Builder::new().stack_size(size).spawn(move || thread.run())?;
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.install(|| 6 * 7), 42);
    /// ```
    pub fn stack_size(&self) -> Option<usize> {
        self.stack_size
    }

    /// Runs this worker's loop on the current thread. Returns once the pool has shut down
    /// (its `ThreadPool` was dropped and the tasks spawned into it have finished).
    ///
    /// # Panics
    /// If the current thread is already a worker of some pool.
    ///
    /// ```
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// let pool = weft::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .spawn_handler(move |thread| {
    ///         let tx = tx.clone();
    ///         std::thread::spawn(move || {
    ///             thread.run();
    ///             tx.send("the loop returned").unwrap();
    ///         });
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// drop(pool);
    /// assert_eq!(rx.recv().unwrap(), "the loop returned");
    /// ```
    pub fn run(self) {
        let ThreadBuilder {
            index,
            live,
            arrival,
            ..
        } = self;
        registry::main_loop(Arc::clone(&live.registry), index, arrival);
        drop(live);
    }

    /// A `std::thread::Builder` with this worker's name and stack size, if configured.
    pub(crate) fn std_builder(&self) -> thread::Builder {
        let mut std_builder = thread::Builder::new();
        if let Some(name) = self.name() {
            std_builder = std_builder.name(name.to_owned());
        }
        if let Some(size) = self.stack_size() {
            std_builder = std_builder.stack_size(size);
        }
        std_builder
    }

    /// The registry this worker belongs to.
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.live.registry
    }
}

impl fmt::Debug for ThreadBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadBuilder")
            .field("index", &self.index)
            .field("name", &self.name)
            .field("stack_size", &self.stack_size)
            .finish_non_exhaustive()
    }
}

/// A worker that `DefaultSpawn` is starting: counted as idle (looking for work) from its
/// spawn until it enters its loop, or until it is dropped if the spawn fails.
///
/// Without it, an owner that looks at a fresh pool sees nobody idle while the other
/// threads are still starting, keeps its first loop private, and a loop of a few slow items
/// runs on one worker.
/// Counted as idle, the starting worker is offered work as if it were already looking, and
/// takes it when it does. Only for threads known to start at once: a publisher skips waking
/// a sleeper while enough workers are idle and awake, and a worker whose spawn handler runs
/// it later would be counted awake for all that time.
pub(crate) struct Arrival {
    registry: Arc<Registry>,
}

impl Arrival {
    fn new(registry: &Arc<Registry>) -> Self {
        registry.sleep.worker_arriving();
        Arrival {
            registry: Arc::clone(registry),
        }
    }
}

impl Drop for Arrival {
    fn drop(&mut self) {
        self.registry.sleep.worker_arrived();
    }
}

/// A worker `shutdown_and_wait` must wait for: registered on creation, released on drop.
struct LiveWorker {
    registry: Arc<Registry>,
}

impl LiveWorker {
    fn new(registry: &Arc<Registry>) -> Self {
        registry.worker_created();
        LiveWorker {
            registry: Arc::clone(registry),
        }
    }
}

impl Drop for LiveWorker {
    fn drop(&mut self) {
        self.registry.worker_gone();
    }
}

/// How a pool starts its worker threads. Implemented only by [`DefaultSpawn`] and
/// [`CustomSpawn`]: the trait is public only because the builder's type mentions it, and it
/// cannot be named outside weft.
pub trait ThreadSpawn {
    /// Starts a thread that calls `thread.run()`.
    fn spawn(&mut self, thread: ThreadBuilder) -> Result<(), ThreadPoolBuildError>;

    /// True for [`DefaultSpawn`]: the pool can start more threads the same way after
    /// `build` (`ThreadPool::set_num_threads`).
    fn is_default_spawn(&self) -> bool {
        false
    }
}

/// Starts each worker with `std::thread::Builder` (name and stack size as configured) and
/// keeps its `JoinHandle`, so that `shutdown_and_wait` can join it.
#[derive(Debug, Default)]
pub struct DefaultSpawn;

impl ThreadSpawn for DefaultSpawn {
    fn spawn(&mut self, mut thread: ThreadBuilder) -> Result<(), ThreadPoolBuildError> {
        let std_builder = thread.std_builder();
        let registry = Arc::clone(thread.registry());
        // The thread starts now, so it is counted as idle from here (`Arrival`); a custom
        // handler may run its `ThreadBuilder`s much later, and its workers are not.
        thread.arrival = Some(Arrival::new(&registry));
        // std may panic instead of failing for absurd stack sizes: report either as an error.
        match unwind::halt_unwinding(move || std_builder.spawn(move || thread.run())) {
            Ok(Ok(handle)) => {
                registry.keep_handle(handle);
                Ok(())
            }
            Ok(Err(io)) => Err(ThreadPoolBuildError::io(io)),
            Err(_) => Err(ThreadPoolBuildError::spawn_panicked()),
        }
    }

    fn is_default_spawn(&self) -> bool {
        true
    }
}

/// Starts each worker with the closure given to
/// [`spawn_handler`](crate::ThreadPoolBuilder::spawn_handler).
pub struct CustomSpawn<F>(F);

impl<F> CustomSpawn<F> {
    pub(crate) fn new(handler: F) -> Self {
        CustomSpawn(handler)
    }
}

impl<F> fmt::Debug for CustomSpawn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CustomSpawn(..)")
    }
}

impl<F> ThreadSpawn for CustomSpawn<F>
where
    F: FnMut(ThreadBuilder) -> io::Result<()>,
{
    fn spawn(&mut self, thread: ThreadBuilder) -> Result<(), ThreadPoolBuildError> {
        (self.0)(thread).map_err(ThreadPoolBuildError::io)
    }
}
