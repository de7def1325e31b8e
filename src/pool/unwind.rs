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

/// Resumes a panic caught by [`halt_unwinding`], without running the panic hook again.
pub(crate) fn resume_unwinding(payload: PanicPayload) -> ! {
    panic::resume_unwind(payload)
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
