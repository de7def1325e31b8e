//! Futures on the pool: [`spawn_future`] (and `ThreadPool::spawn_future`,
//! `Scope::spawn_future`) and [`block_on`].
//!
//! A spawned future is one `Arc`, a [`FutureTask`]: the future, the `Slot` its
//! [`JoinHandle`] reads (`handle/slot.rs`, the same as a `spawn_handle` task's, with the
//! claim taken at birth: only the task completes it), what to do when it ends (`Finish`), and
//! a scheduling word (`future/state.rs`). The task is its own waker: a wake of an idle task
//! queues it as a job, on the waking thread's deque if that thread is a worker of the pool,
//! else on the pool's injector; a worker that takes the job polls the future once. Nothing
//! polls a future that was not woken. A wake during a poll makes the poller queue the task
//! again after the poll, on the injector, so that a future that keeps waking itself lets the
//! worker's other jobs run.
//!
//! The task holds a termination count of its pool from its spawn until it ends, so the pool's
//! workers stay while it may still be woken. It ends when a poll returns `Ready` or panics,
//! or when the last reference to it goes while it is pending (no waker and no handle left:
//! nobody could ever poll it again); its future is dropped then, where it is, before the
//! result is published and before `Finish` lets a scope end.
//!
//! `block_on` polls its future on the calling thread. On a worker it waits between polls on
//! a latch that its waker sets, running other jobs of the pool meanwhile (as a `join` whose
//! other half was stolen does) and sleeping in the pool's sleep protocol when there are
//! none; elsewhere it parks the thread.

mod state;

#[cfg(all(test, loom))]
mod loom_tests;

use std::cell::UnsafeCell;
use std::future::Future;
use std::mem::ManuallyDrop;
use std::pin::{pin, Pin};
use std::ptr;
use std::sync::Arc;
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};

use super::handle::{self, Finish, JoinHandle, LatchWaker, ScopedJoinHandle, TaskControl};
use super::handle::{dispose_of_completed, PoolFinish, Slot, Unparker};
use super::isolate::Tag;
use super::job::{Job, JobRef, JobResult, TaggedJob};
use super::latch::CrossLatch;
use super::registry::{self, Registry};
use super::trace::JobKind;
use super::unwind::{self, FirstPanic};
use super::worker::WorkerThread;
use state::Schedule;

/// Runs `future` on the current pool (the global pool outside any pool) and returns its
/// [`JoinHandle`]: [`join`](ScopedJoinHandle::join) it, or `.await` it.
///
/// The future is polled by the pool's workers, each poll a job like any other; its waker
/// queues it again on the pool, so it is polled only after a wake, and no thread waits for
/// it. It may run parallel loops, `join`s and scopes inside a poll. A panic in `poll`
/// resumes in `join` or `.await`. Dropping the handle detaches the future: it still runs to
/// its end (its panic then goes to the pool's
/// [`panic_handler`](crate::ThreadPoolBuilder::panic_handler), if any); a detached future
/// that nothing can wake any more (every clone of its waker was dropped) is dropped. The
/// pool's threads stay until every future spawned on it has ended, as for a spawned closure
/// ([`ThreadPool::shutdown_and_wait`](crate::ThreadPool::shutdown_and_wait) waits for them).
///
/// ```
/// let handle = weft::spawn_future(async {
///     let a = weft::spawn_handle(|| 6 * 7);
///     a.await + 1
/// });
/// assert_eq!(handle.join(), 43);
/// ```
pub fn spawn_future<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    WorkerThread::with_current(|worker| match worker {
        Some(worker) => spawn_future_in(worker.registry(), future),
        None => spawn_future_in(registry::global_registry(), future),
    })
}

/// `spawn_future` into `registry`'s pool.
pub(crate) fn spawn_future_in<F>(registry: &Arc<Registry>, future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    spawn_future_task(registry, handle::current_tag(), future, PoolFinish)
}

/// Queues a task polling `future` in `registry`'s pool, tagged `tag`, and returns its handle.
pub(super) fn spawn_future_task<'a, F, D>(
    registry: &Arc<Registry>,
    tag: Tag,
    future: F,
    finish: D,
) -> ScopedJoinHandle<'a, F::Output>
where
    F: Future + Send + 'a,
    F::Output: Send + 'a,
    D: Finish + 'a,
{
    // Released when the task ends (`FutureTask::end`, or its drop while pending).
    registry.increment_terminate_count();
    let task = Arc::new(FutureTask {
        schedule: Schedule::scheduled(),
        future: UnsafeCell::new(Some(future)),
        slot: Slot::claimed(),
        finish: UnsafeCell::new(Some(finish)),
        tag,
        registry: Arc::clone(registry),
    });
    task.queue(Queue::Near);
    ScopedJoinHandle::new(task)
}

/// Runs `future` to completion on this thread and returns its output.
///
/// On a worker of a pool, the thread runs other jobs of its pool while the future is
/// pending (and sleeps when there are none), so a pool of one thread can `block_on` a future
/// that waits for work spawned on that same pool. Elsewhere the thread parks until the
/// future's waker is woken. The future is polled only after a wake (and once at the start).
/// A panic in the future unwinds out of `block_on`.
///
/// ```
/// let pool = weft::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let sum = pool.install(|| {
///     weft::block_on(async {
///         // The only worker is blocked here, and still runs the spawned work.
///         let a = weft::spawn_handle(|| (1..=10u64).sum::<u64>());
///         let b = weft::spawn_future(async { 100u64 });
///         a.await + b.await
///     })
/// });
/// assert_eq!(sum, 155);
/// ```
pub fn block_on<F: Future>(future: F) -> F::Output {
    let future = pin!(future);
    WorkerThread::with_current(|worker| match worker {
        Some(worker) => block_on_worker(future, worker),
        None => block_on_thread(future),
    })
}

/// `block_on` on a worker: between polls, run the pool's jobs until the waker sets the latch.
fn block_on_worker<F: Future>(mut future: Pin<&mut F>, worker: &WorkerThread) -> F::Output {
    loop {
        // A latch is set once: a fresh one for each wait (a stale waker of an earlier wait
        // sets only its own latch).
        let latch = Arc::new(LatchWaker::new(CrossLatch::new(worker)));
        let waker = Waker::from(Arc::clone(&latch));
        if let Poll::Ready(output) = future.as_mut().poll(&mut Context::from_waker(&waker)) {
            return output;
        }
        worker.wait_until(latch.latch());
    }
}

/// `block_on` outside any pool: park between polls.
fn block_on_thread<F: Future>(mut future: Pin<&mut F>) -> F::Output {
    let unparker = Unparker::for_this_thread();
    let waker = Waker::from(Arc::clone(&unparker));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        unparker.park_until_woken();
    }
}

/// Where a woken task is queued.
#[derive(Clone, Copy)]
enum Queue {
    /// The current worker's deque if this thread is a worker of the task's pool (the task
    /// runs next there, warm in cache), else the injector.
    Near,
    /// The injector, behind the jobs already queued (a task woken during its own poll).
    Behind,
}

/// A spawned future: see the module doc.
pub(super) struct FutureTask<F: Future, D: Finish> {
    schedule: Schedule,
    /// The future, until it ends. Only the worker that moved `schedule` to running touches
    /// it (`start_poll` to `end_poll_pending` or `end`), and the task's drop; it is dropped
    /// in place (it was pinned) and then set to `None`.
    future: UnsafeCell<Option<F>>,
    slot: Slot<F::Output>,
    /// Taken once, when the task ends: by the poller that ends it, or by the drop of a task
    /// that never ended.
    finish: UnsafeCell<Option<D>>,
    /// The isolation context the future was spawned in; each poll runs in it.
    tag: Tag,
    registry: Arc<Registry>,
}

// SAFETY: `future` is touched by one thread at a time (the poller that won `start_poll`,
// which the scheduling word makes exclusive, or the task's drop), so sharing the task shares
// no access to it; `finish` likewise (the ending poller, or the drop). Both move between
// threads, hence `F: Send` and `D: Send` (a `Finish` is); `slot` is Sync for `F::Output: Send`.
unsafe impl<F: Future + Send, D: Finish> Sync for FutureTask<F, D> where F::Output: Send {}
// SAFETY: as above; every field is Send given the bounds.
unsafe impl<F: Future + Send, D: Finish> Send for FutureTask<F, D> where F::Output: Send {}

impl<F, D> FutureTask<F, D>
where
    F: Future + Send,
    F::Output: Send,
    D: Finish,
{
    /// The waker's functions. A waker holds one reference to the task (`Arc::into_raw`).
    const WAKER: RawWakerVTable = RawWakerVTable::new(
        Self::waker_clone,
        Self::waker_wake,
        Self::waker_wake_by_ref,
        Self::waker_drop,
    );

    /// Queues the task's job, which holds one more reference to it; the caller's reference
    /// keeps the task (and its registry) alive during the push.
    fn queue(self: &Arc<Self>, queue: Queue) {
        let queued = Arc::into_raw(Arc::clone(self));
        // SAFETY: the job owns the reference just made, so the task lives until the job
        // runs; every queue runs each job exactly once (the task's termination count keeps
        // the workers until it ends, and a queued task has not ended).
        let job = unsafe { JobRef::new(queued) };
        let job = TaggedJob::new(job, self.tag);
        match queue {
            Queue::Near => self.registry.push_or_inject(job),
            Queue::Behind => self.registry.inject(job),
        }
    }

    /// A wake: queue the task if it was idle.
    fn wake_by_ref(self: &Arc<Self>) {
        if self.schedule.wake() {
            self.queue(Queue::Near);
        }
    }

    /// Polls the future once (the task's queued job runs this, on a worker of its pool).
    fn poll_once(self: Arc<Self>) {
        self.schedule.start_poll();
        // A waker borrowing the job's reference: no count of its own, never dropped.
        // SAFETY: the vtable's functions expect a pointer from `Arc::into_raw` of this type,
        // which `Arc::as_ptr` equals; the job's reference outlives the borrow.
        let waker = ManuallyDrop::new(unsafe {
            Waker::from_raw(RawWaker::new(Arc::as_ptr(&self).cast(), &Self::WAKER))
        });
        let polled = unwind::halt_unwinding(|| {
            // SAFETY: we moved the word to running, so no other thread touches the future;
            // it stays in place until dropped there (`drop_future`), hence the pin.
            let future = unsafe { (*self.future.get()).as_mut() }
                .expect("weft: a future task polled after its end");
            // SAFETY: see above: the future never moves.
            unsafe { Pin::new_unchecked(future) }.poll(&mut Context::from_waker(&waker))
        });
        let result = match polled {
            Ok(Poll::Pending) => {
                if self.schedule.end_poll_pending() {
                    self.queue(Queue::Behind);
                }
                return;
            }
            Ok(Poll::Ready(output)) => JobResult::Ok(output),
            Err(payload) => JobResult::Panic(payload),
        };
        self.end(result);
    }

    /// The poll returned or panicked: drop the future, publish the result, run the finish,
    /// release the termination count.
    fn end(self: Arc<Self>, result: JobResult<F::Output>) {
        // SAFETY: we still hold the running state: the future is ours to drop.
        let dropped = unwind::halt_unwinding(|| unsafe { drop_future(self.future.get()) });
        let result = match (result, dropped) {
            (result, Ok(())) => result,
            // The future's drop panicked: that panic is the task's, the output is dropped.
            (JobResult::Ok(output), Err(payload)) => {
                let mut panic = FirstPanic::default();
                panic.record(payload);
                panic.catch(|| drop(output));
                JobResult::Panic(panic.into_inner().expect("a panic was recorded"))
            }
            (result, Err(payload)) => {
                unwind::drop_payload(payload);
                result
            }
        };
        self.schedule.finish();
        // SAFETY: the poller that ends the task takes the finish (the drop finds `None`).
        let finish = unsafe { (*self.finish.get()).take() }.expect("a task ends once");
        let registry = Arc::clone(&self.registry);
        // SAFETY: the task's claim was taken at its birth, for whoever ends it: us.
        let completion = unsafe { self.slot.complete(result) };
        let mut panic = FirstPanic::default();
        dispose_of_completed(completion, &mut panic);
        let mut task = self;
        // The last reference (the usual case: the handle is gone or joined, no waker left):
        // drop the handle's waker here, so that its panic reaches the finish (a scope).
        if let Some(task) = Arc::get_mut(&mut task) {
            let waker = task.slot.take_waker();
            panic.catch(|| drop(waker));
        }
        drop(task);
        finish.finish(&registry, panic.into_inner());
        registry.terminate();
    }

    unsafe fn waker_clone(data: *const ()) -> RawWaker {
        // SAFETY: `data` is the reference of a live waker of this task (the vtable contract).
        unsafe { Arc::increment_strong_count(data.cast::<Self>()) };
        RawWaker::new(data, &Self::WAKER)
    }

    unsafe fn waker_wake(data: *const ()) {
        // SAFETY: the waker's reference, consumed here (after the wake, so that the task
        // and its registry live while it is queued).
        unsafe {
            Self::waker_wake_by_ref(data);
            Self::waker_drop(data);
        }
    }

    unsafe fn waker_wake_by_ref(data: *const ()) {
        // SAFETY: `data` is the reference of a live waker; borrowed here, not consumed.
        let task = ManuallyDrop::new(unsafe { Arc::from_raw(data.cast::<Self>()) });
        task.wake_by_ref();
    }

    unsafe fn waker_drop(data: *const ()) {
        // SAFETY: the waker's reference, given up here.
        unsafe { Arc::decrement_strong_count(data.cast::<Self>()) };
    }
}

/// Drops the future in `slot` in place, then leaves `None` there (also if its drop panics:
/// the rest of it was dropped by the unwinding, and it must not be dropped again).
///
/// # Safety
/// `slot` is valid, and nobody else touches it during the call.
unsafe fn drop_future<F>(slot: *mut Option<F>) {
    struct LeaveNone<F>(*mut Option<F>);
    impl<F> Drop for LeaveNone<F> {
        fn drop(&mut self) {
            // SAFETY: the slot is valid; its value was dropped in place just before (or is
            // `None`), so overwriting it without a drop is right.
            unsafe { ptr::write(self.0, None) };
        }
    }
    let _leave_none = LeaveNone(slot);
    // SAFETY: forwarded from this function's contract; dropped where it was pinned.
    if let Some(future) = unsafe { (*slot).as_mut() } {
        // SAFETY: as above; `LeaveNone` then makes sure it is not dropped twice.
        unsafe { ptr::drop_in_place(future) };
    }
}

impl<F, D> Job for FutureTask<F, D>
where
    F: Future + Send,
    F::Output: Send,
    D: Finish,
{
    const KIND: JobKind = JobKind::Future;

    unsafe fn execute(this: *const ()) {
        // SAFETY: `this` came from `Arc::into_raw` in `queue`, and this job runs once.
        let task = unsafe { Arc::from_raw(this.cast::<Self>()) };
        task.poll_once();
    }
}

impl<F, D> TaskControl<F::Output> for FutureTask<F, D>
where
    F: Future + Send,
    F::Output: Send,
    D: Finish,
{
    fn slot(&self) -> &Slot<F::Output> {
        &self.slot
    }

    fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// A future cannot be run inline: its polls come from wakes.
    fn run_here(&self, _worker: &WorkerThread) -> Option<JobResult<F::Output>> {
        None
    }
}

impl<F: Future, D: Finish> Drop for FutureTask<F, D> {
    /// The last reference went, on whatever thread dropped it: a worker's job, a waker's
    /// drop, a handle's. If the task has not ended, it was pending with no waker and no
    /// handle left: nothing can poll it again, so it ends here, without a result. Either way
    /// the user code dropped here (the future, the handle's last waker) is caught.
    fn drop(&mut self) {
        let mut panic = FirstPanic::default();
        let finish = self.finish.get_mut().take();
        if finish.is_some() {
            let future: *mut Option<F> = self.future.get_mut();
            // SAFETY: `&mut self`: nobody else touches the future.
            panic.catch(|| unsafe { drop_future(future) });
        }
        let waker = self.slot.take_waker();
        panic.catch(|| drop(waker));
        match finish {
            Some(finish) => {
                finish.finish(&self.registry, panic.into_inner());
                self.registry.terminate();
            }
            // Ended before: its scope may be gone, so a panic here is the pool's.
            None => PoolFinish.finish(&self.registry, panic.into_inner()),
        }
    }
}
