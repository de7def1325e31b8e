//! `spawn` and `spawn_fifo`: detached tasks. Each holds a termination count of its pool, so
//! the pool outlives it; its panic goes to the pool's panic handler.

use std::sync::Arc;

use super::cancel::{self, JobRegion};
use super::isolate::Tag;
use super::job::{HeapJob, TaggedJob};
use super::registry::{self, Registry};
use super::unwind;
use super::worker::WorkerThread;

/// Spawns a detached task into the current pool (the global one outside any pool).
///
/// # Panics
/// A panic in `func` goes to the pool's `panic_handler`; without one the process aborts.
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// weft::spawn(move || tx.send(21 * 2).unwrap());
/// assert_eq!(rx.recv().unwrap(), 42);
/// ```
pub fn spawn<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    spawn_in_current(func, false)
}

/// Like [`spawn`], but tasks spawned from one thread start in the order they were spawned.
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// weft::spawn_fifo(move || tx.send("fifo").unwrap());
/// assert_eq!(rx.recv().unwrap(), "fifo");
/// ```
pub fn spawn_fifo<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    spawn_in_current(func, true)
}

fn spawn_in_current<F>(func: F, fifo: bool)
where
    F: FnOnce() + Send + 'static,
{
    WorkerThread::with_current(|worker| match worker {
        Some(worker) => spawn_in(worker.registry(), func, fifo),
        None => spawn_in(registry::global_registry(), func, fifo),
    })
}

pub(crate) fn spawn_in<F>(registry: &Arc<Registry>, func: F, fifo: bool)
where
    F: FnOnce() + Send + 'static,
{
    // A task of a stopped `cancellable` region is dropped unrun (`cancel.rs`): nobody waits
    // for a detached task, so nothing reports it.
    let region = JobRegion::current();
    registry.increment_terminate_count();
    let owner = Arc::clone(registry);
    let job = move || {
        match unwind::halt_unwinding(|| region.run(func)) {
            Ok(_) => {}
            Err(payload) if cancel::is_stop(&payload) => unwind::drop_payload(payload),
            Err(payload) => owner.handle_panic(payload),
        }
        owner.terminate();
    };
    // SAFETY: the job is 'static and every queue runs each job exactly once.
    let job_ref = unsafe { HeapJob::into_job_ref(job) };
    // Nobody waits for a detached task, so no isolated region claims it.
    let job_ref = TaggedJob::new(job_ref, Tag::NONE);
    if fifo {
        registry.push_fifo_or_inject(job_ref);
    } else {
        registry.push_or_inject(job_ref);
    }
}
