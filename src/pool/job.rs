//! Jobs: the type-erased [`JobRef`] that travels through deques and injectors, the
//! [`StackJob`] that `join` keeps on its own stack (no allocation), and the boxed [`HeapJob`]
//! of `spawn`.

use std::cell::UnsafeCell;
use std::mem::ManuallyDrop;
use std::ptr;

use super::cancel::{self, RegionPtr};
use super::isolate::Tag;
use super::latch::Latch;
use super::trace::JobKind;
use super::unwind::{self, PanicPayload};

/// Something a worker can execute through a type-erased pointer.
pub(crate) trait Job {
    /// What a trace calls this job (`JobRef::with_kind` overrides it).
    const KIND: JobKind = JobKind::Other;

    /// Runs the job.
    ///
    /// # Safety
    /// `this` must point to a live job that has not been executed yet, and no other thread
    /// may execute it concurrently: every `JobRef` is executed at most once.
    unsafe fn execute(this: *const ());
}

/// A type-erased pointer to a job plus the function that executes it.
///
/// A job is known by its data pointer: two `JobRef`s are equal when they point to the same
/// job, and `join` recognises its own job when it pops one back from its deque by its
/// address ([`points_to`](Self::points_to)).
#[derive(Clone, Copy, Debug)]
pub(crate) struct JobRef {
    pointer: *const (),
    execute_fn: unsafe fn(*const ()),
    /// Only for traces (`pool/trace`).
    kind: JobKind,
}

// SAFETY: a JobRef is only a handle; the jobs it points to are built from `Send` closures
// (every constructor below requires it), so running one on another thread is sound. Keeping
// the pointee alive is the job of whoever created the JobRef (see `JobRef::new`).
unsafe impl Send for JobRef {}
// SAFETY: as above; sharing a JobRef across threads only copies the pointer.
unsafe impl Sync for JobRef {}

impl PartialEq for JobRef {
    fn eq(&self, other: &JobRef) -> bool {
        other.points_to(self.pointer)
    }
}

impl Eq for JobRef {}

impl JobRef {
    /// Erases the type of `data`.
    ///
    /// # Safety
    /// `data` must stay valid until the returned `JobRef` has been executed or dropped without
    /// being executed, and it must be executed at most once.
    pub(crate) unsafe fn new<T: Job>(data: *const T) -> JobRef {
        JobRef {
            pointer: data.cast(),
            execute_fn: T::execute,
            kind: T::KIND,
        }
    }

    /// Whether this handle is the one of the job whose data is at `data` (comparing
    /// execute functions would be unreliable: one function may have several addresses).
    #[inline]
    pub(crate) fn points_to(&self, data: *const ()) -> bool {
        ptr::eq(self.pointer, data)
    }

    /// The same job, called `kind` in traces.
    #[inline]
    pub(crate) fn with_kind(self, kind: JobKind) -> JobRef {
        JobRef { kind, ..self }
    }

    /// What traces call this job.
    #[inline]
    pub(crate) fn kind(&self) -> JobKind {
        self.kind
    }

    /// The job's data pointer and execute function, for the fork stack's slots (a fork is
    /// always a `join`'s job: its kind need not travel).
    #[inline]
    pub(crate) fn into_parts(self) -> (*const (), usize) {
        (self.pointer, self.execute_fn as usize)
    }

    /// The fork whose parts are `pointer` and `execute` (from [`into_parts`](Self::into_parts)
    /// of a `join`'s job).
    ///
    /// # Safety
    /// `execute` must be the second part of an `into_parts` result, and `pointer` the first
    /// part of the same one.
    #[inline]
    pub(crate) unsafe fn from_parts(pointer: *const (), execute: usize) -> JobRef {
        JobRef {
            pointer,
            // SAFETY: by the contract, `execute` is an `unsafe fn(*const ())` turned into an
            // integer of the same size (asserted in `fork_stack.rs`).
            execute_fn: unsafe { std::mem::transmute::<usize, unsafe fn(*const ())>(execute) },
            kind: JobKind::Join,
        }
    }

    /// Runs the job.
    ///
    /// # Safety
    /// The job must be live and not yet executed (the contract of [`JobRef::new`]).
    #[inline]
    pub(crate) unsafe fn execute(self) {
        // SAFETY: forwarded from this function's contract.
        unsafe { (self.execute_fn)(self.pointer) }
    }
}

/// A job in a queue (deque, injector, targeted or FIFO queue, fork stack) with the isolation
/// context it belongs to (`isolate.rs`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TaggedJob {
    pub(crate) job: JobRef,
    pub(crate) tag: Tag,
    /// The `cancellable` region the job runs in, null for none (`cancel.rs`): set only for
    /// a region's `join`, whose `b` carries no region of its own.
    pub(crate) region: RegionPtr,
}

impl TaggedJob {
    #[inline]
    pub(crate) fn new(job: JobRef, tag: Tag) -> Self {
        TaggedJob {
            job,
            tag,
            region: RegionPtr(std::ptr::null()),
        }
    }

    /// A job of `region` (null: none).
    #[inline]
    pub(crate) fn in_region(job: JobRef, tag: Tag, region: RegionPtr) -> Self {
        TaggedJob { job, tag, region }
    }
}

/// The outcome of a job that ran on another thread.
pub(crate) enum JobResult<T> {
    /// Not run yet.
    Pending,
    /// Returned normally.
    Ok(T),
    /// Panicked; the payload is resumed in the thread that waits for the result.
    Panic(PanicPayload),
}

impl<T> JobResult<T> {
    /// Returns the value, or resumes the job's panic in the calling thread.
    pub(crate) fn into_return_value(self) -> T {
        match self {
            JobResult::Ok(value) => value,
            JobResult::Panic(payload) => unwind::resume_unwinding(payload),
            JobResult::Pending => unreachable!("weft: a job's result was read before it ran"),
        }
    }
}

/// A job that lives in the stack frame of the thread that waits for it.
///
/// Fields: `func` is moved out exactly once, by whichever thread runs the job (the owner
/// inline, or the thread that executes the published `JobRef`); every `StackJob` is run, so
/// it is never left behind to leak (`ManuallyDrop` spares the fast path a discriminant).
/// `result` is written by an executing thread before `latch` is set and read by the owner
/// only after it observed the latch set.
pub(crate) struct StackJob<L, F, R> {
    pub(crate) latch: L,
    func: UnsafeCell<ManuallyDrop<F>>,
    result: UnsafeCell<JobResult<R>>,
}

impl<L, F, R> StackJob<L, F, R>
where
    L: Latch,
    F: FnOnce(bool) -> R + Send,
    R: Send,
{
    /// A job that will call `func(migrated)` and then set `latch`.
    #[inline]
    pub(crate) fn new(func: F, latch: L) -> Self {
        StackJob {
            latch,
            func: UnsafeCell::new(ManuallyDrop::new(func)),
            result: UnsafeCell::new(JobResult::Pending),
        }
    }

    /// A type-erased handle to this job.
    ///
    /// # Safety
    /// The caller must keep `self` in place and alive until the handle has been executed or
    /// discarded (in `join`: until it is popped back or its latch is set).
    #[inline]
    pub(crate) unsafe fn as_job_ref(&self) -> JobRef {
        // SAFETY: forwarded from this function's contract.
        unsafe { JobRef::new(self) }
    }

    /// Runs the job on the owner's thread, without setting the latch.
    ///
    /// # Safety
    /// No other thread may run the job, now or later (its `JobRef` was popped back or never
    /// published), and it was not run before.
    #[inline]
    pub(crate) unsafe fn run_inline(&self, migrated: bool) -> R {
        // SAFETY: by this function's contract this is the one and only move out of `func`.
        let func = unsafe { ManuallyDrop::take(&mut *self.func.get()) };
        func(migrated)
    }

    /// The result written by the thread that executed the job.
    ///
    /// Must be called only after the latch is set (the executing thread is done with `self`).
    pub(crate) fn into_result(self) -> R {
        self.result.into_inner().into_return_value()
    }

    /// Drops the panic the executing thread recorded, if any, as one nobody will see
    /// (`join` when both halves panicked: `a`'s wins), so that a region does not keep it
    /// for a later stop (`cancel::carry_panic`).
    ///
    /// Must be called only after the latch is set.
    #[cold]
    pub(crate) fn drop_panic(&mut self) {
        if let JobResult::Panic(_) = self.result.get_mut() {
            if let JobResult::Panic(payload) =
                std::mem::replace(self.result.get_mut(), JobResult::Pending)
            {
                unwind::drop_payload(cancel::uncarry(payload));
            }
        }
    }
}

impl<L, F, R> Job for StackJob<L, F, R>
where
    L: Latch,
    F: FnOnce(bool) -> R + Send,
    R: Send,
{
    const KIND: JobKind = JobKind::Join;

    unsafe fn execute(this: *const ()) {
        let this: *const Self = this.cast();
        // SAFETY: the JobRef contract keeps `*this` alive until its latch is set below, and
        // this is the only execution, so we have exclusive access to `func` and `result`.
        let func = unsafe { ManuallyDrop::take(&mut *(*this).func.get()) };
        // `b` of a `join` always runs, also in a stopped region (Rayon's guarantee: both
        // closures run, which unsafe code may rely on); what runs inside it stops.
        let result = match unwind::halt_unwinding(|| func(true)) {
            Ok(value) => JobResult::Ok(value),
            Err(payload) => JobResult::Panic(cancel::carry_panic(payload)),
        };
        // SAFETY: as above; the owner reads `result` only after observing the latch set.
        unsafe { *(*this).result.get() = result };
        // SAFETY: `latch` is alive until set; `Latch::set` touches nothing after the
        // release of the owner.
        unsafe { L::set(std::ptr::addr_of!((*this).latch)) };
    }
}

/// A boxed job for `spawn`: it owns its closure and frees itself when it runs.
///
/// The closure is responsible for its own panics (spawn wraps it accordingly).
pub(crate) struct HeapJob<F> {
    func: F,
}

impl<F> HeapJob<F>
where
    F: FnOnce() + Send,
{
    /// Boxes `func` and returns the handle that owns the box until it is executed.
    ///
    /// # Safety
    /// The returned `JobRef` must be executed exactly once (otherwise the box leaks), and
    /// anything `func` borrows must outlive that execution (scopes wait for it; `spawn`
    /// requires `'static`).
    pub(crate) unsafe fn into_job_ref(func: F) -> JobRef {
        let boxed = Box::into_raw(Box::new(HeapJob { func }));
        // SAFETY: the box stays allocated until `execute` reclaims it.
        unsafe { JobRef::new(boxed) }
    }
}

impl<F> Job for HeapJob<F>
where
    F: FnOnce() + Send,
{
    const KIND: JobKind = JobKind::Spawn;

    unsafe fn execute(this: *const ()) {
        // SAFETY: `this` came from `Box::into_raw` in `into_job_ref`, and is executed once.
        let job = unsafe { Box::from_raw(this.cast::<Self>().cast_mut()) };
        (job.func)();
    }
}
