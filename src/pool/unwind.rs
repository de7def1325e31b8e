//! Panic discipline in one place: catching a panic to carry it across threads, resuming it in
//! the thread that must see it, and aborting when a panic would leave the pool inconsistent.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

/// A panic payload carried from the thread that panicked to the thread that resumes it.
pub(crate) type PanicPayload = Box<dyn Any + Send>;

/// Runs `func`, turning a panic into `Err(payload)`.
///
/// Callers treat `func` as unwind safe because every payload is later resumed with
/// [`resume_unwinding`]: the panic is delayed, not swallowed.
#[inline]
pub(crate) fn halt_unwinding<F, R>(func: F) -> Result<R, PanicPayload>
where
    F: FnOnce() -> R,
{
    panic::catch_unwind(AssertUnwindSafe(func))
}

/// Resumes a panic caught by [`halt_unwinding`], without running the panic hook again (the
/// payload itself, if a region carried it: `cancel::carry_panic`).
pub(crate) fn resume_unwinding(payload: PanicPayload) -> ! {
    panic::resume_unwind(super::cancel::uncarry(payload))
}

/// A guard that aborts the process if it is dropped during unwinding.
///
/// Held across code that must not unwind because other threads hold pointers into the
/// current stack frame (a job that may still run elsewhere); `mem::forget` it on success.
pub(crate) struct AbortIfPanic;

impl Drop for AbortIfPanic {
    fn drop(&mut self) {
        eprintln!("weft: a panic escaped where unwinding would leave dangling jobs; aborting");
        std::process::abort();
    }
}

/// Drops a panic payload nobody will see; a panic in the payload's own `Drop` is caught and
/// its payload leaked, so that it cannot unwind through a worker.
pub(crate) fn drop_payload(payload: PanicPayload) {
    if let Err(nested) = halt_unwinding(move || drop(payload)) {
        std::mem::forget(nested);
    }
}

/// The first panic of user code the pool runs for a task outside the task's body (a waker
/// it wakes or drops, a detached result it drops): delivered where the task's own panic
/// would go (its scope, or the pool's panic handler). Later panics are dropped.
#[derive(Default)]
pub(crate) struct FirstPanic(Option<PanicPayload>);

impl FirstPanic {
    /// Runs `func`, recording its panic.
    pub(crate) fn catch(&mut self, func: impl FnOnce()) {
        if let Err(payload) = halt_unwinding(func) {
            self.record(payload);
        }
    }

    /// Records `payload` unless a panic was recorded before.
    pub(crate) fn record(&mut self, payload: PanicPayload) {
        match self.0 {
            None => self.0 = Some(payload),
            Some(_) => drop_payload(payload),
        }
    }

    /// The first panic recorded, if any.
    pub(crate) fn into_inner(self) -> Option<PanicPayload> {
        self.0
    }
}
