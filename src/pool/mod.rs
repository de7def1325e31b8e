//! The scheduler: worker threads, `join`, scopes, `spawn` and the `ThreadPool` API.
//!
//! TEMPORARY STUB (skeleton commit): everything here runs sequentially on the calling thread
//! with the real signatures, so that the layers above can be written and tested against the
//! final API while the work-stealing scheduler is built. Do not rely on anything but the
//! signatures and the sequential semantics.

use std::any::Any;
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

thread_local! {
    static STUB_THREADS: Cell<usize> = const { Cell::new(0) };
}

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `oper_a` and `oper_b`, potentially in parallel, and returns both results.
pub fn join<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    (oper_a(), oper_b())
}

/// Context handed to the closures of [`join_context`].
#[derive(Debug, Clone, Copy)]
pub struct FnContext {
    migrated: bool,
}

impl FnContext {
    /// True if the closure runs on a different thread than the one that called `join_context`.
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// Like [`join`], but each closure learns whether it was stolen.
pub fn join_context<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let ctx = FnContext { migrated: false };
    (oper_a(ctx), oper_b(ctx))
}

/// A fork-join scope.
pub struct Scope<'scope> {
    marker: PhantomData<&'scope mut &'scope ()>,
}

impl fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scope").finish_non_exhaustive()
    }
}

impl<'scope> Scope<'scope> {
    /// Spawns a task that must finish before the scope ends.
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        body(self)
    }
}

/// Creates a scope; returns once every task spawned in it has finished.
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    op(&Scope {
        marker: PhantomData,
    })
}

/// Spawns a detached task.
pub fn spawn<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    func()
}

/// The number of threads in the current pool.
pub fn current_num_threads() -> usize {
    match STUB_THREADS.with(Cell::get) {
        0 => default_threads(),
        n => n,
    }
}

/// The index of the current worker thread, if any.
pub fn current_thread_index() -> Option<usize> {
    None
}

/// Error from [`ThreadPoolBuilder::build`].
#[derive(Debug)]
pub struct ThreadPoolBuildError {
    _private: (),
}

impl fmt::Display for ThreadPoolBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the thread pool could not be built")
    }
}

impl std::error::Error for ThreadPoolBuildError {}

/// Configures and builds a [`ThreadPool`].
#[derive(Default)]
pub struct ThreadPoolBuilder {
    num_threads: usize,
    #[allow(dead_code)]
    panic_handler: Option<Box<dyn Fn(Box<dyn Any + Send>) + Send + Sync>>,
}

impl fmt::Debug for ThreadPoolBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.num_threads)
            .finish_non_exhaustive()
    }
}

impl ThreadPoolBuilder {
    /// A builder with default settings.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the number of threads (0 = automatic).
    pub fn num_threads(mut self, num_threads: usize) -> Self {
        self.num_threads = num_threads;
        self
    }
    /// Builds the pool.
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        let n = if self.num_threads == 0 {
            default_threads()
        } else {
            self.num_threads
        };
        Ok(ThreadPool { num_threads: n })
    }
}

/// A pool of worker threads.
#[derive(Debug)]
pub struct ThreadPool {
    num_threads: usize,
}

impl ThreadPool {
    /// Runs `op` inside the pool.
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        let old = STUB_THREADS.with(|c| c.replace(self.num_threads));
        struct Restore(usize);
        impl Drop for Restore {
            fn drop(&mut self) {
                STUB_THREADS.with(|c| c.set(self.0));
            }
        }
        let _restore = Restore(old);
        op()
    }
    /// The number of threads in this pool.
    pub fn current_num_threads(&self) -> usize {
        self.num_threads
    }
    /// `join` inside this pool.
    pub fn join<A, B, RA, RB>(&self, oper_a: A, oper_b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.install(|| join(oper_a, oper_b))
    }
}
