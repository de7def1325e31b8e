//! The loop driver's hooks into the recording (`drive/on_steal.rs` calls them where it
//! claims, folds and steals index ranges), and the scheduler's two (`on_a_worker`,
//! `join_context_here`). While no pool of the process records, each hook is one relaxed
//! load of a process-wide flag and a predictable branch; then it finds the current worker's
//! writer, if it has one (see `writer.rs` for what each records).

use std::ops::Range;
// Not `crate::sync`: a `static` needs a const constructor, which loom's atomics lack; the
// flag takes part in no protocol that a loom model would check.
use std::sync::atomic::{AtomicBool, Ordering};

use super::super::worker::WorkerThread;
use super::writer::{Origin, Span, TraceWriter};

/// Set once some pool of the process records; never cleared.
static ANY_POOL_RECORDS: AtomicBool = AtomicBool::new(false);

/// A pool that records is being built (before its threads start).
pub(crate) fn a_pool_records() {
    // ORDERING: Relaxed: the workers of the new pool are started after this store (thread
    // spawn synchronizes), so they see it; other threads have no writer and record nothing
    // anyway. A stale `false` elsewhere skips nothing that could be recorded.
    ANY_POOL_RECORDS.store(true, Ordering::Relaxed);
}

/// Whether some pool of the process records a trace. Every hook tests it first; a caller
/// that tests it itself can keep its arguments in registers on the untraced path and call
/// [`trace_whole_loop_cold`] only when it is true.
#[inline(always)]
pub(crate) fn any_pool_records() -> bool {
    // ORDERING: see `a_pool_records`.
    ANY_POOL_RECORDS.load(Ordering::Relaxed)
}

/// The current worker's writer, if this thread is a worker of a pool that records.
fn with_writer<R>(f: impl FnOnce(Option<&TraceWriter>) -> R) -> R {
    WorkerThread::with_current(|worker| f(worker.and_then(WorkerThread::trace)))
}

/// An index as the driver holds it (`u32` in a stealing range, `usize` elsewhere).
pub(crate) trait Position: Copy {
    fn position(self) -> usize;
}

impl Position for u32 {
    fn position(self) -> usize {
        self as usize
    }
}

impl Position for usize {
    fn position(self) -> usize {
        self
    }
}

fn positions<P: Position>(range: Range<P>) -> Range<usize> {
    range.start.position()..range.end.position()
}

/// The owner of a range claimed `rel` (positions within its range); the following
/// [`trace_fold`]s fold it in order.
#[inline]
pub(crate) fn trace_claim<P: Position>(rel: Range<P>) {
    if any_pool_records() {
        claim_cold(positions(rel));
    }
}

#[cold]
fn claim_cold(rel: Range<usize>) {
    with_writer(|writer| {
        if let Some(writer) = writer {
            writer.claim(rel);
        }
    });
}

/// A span begun on this thread's writer (`writer.rs`), held across the traced closure.
/// [`end`](Self::end) ends it; dropped without that (the closure unwound), it only puts the
/// writer's context back. Plain data and no closure: the hooks below compile to a call on
/// each side of the closure, not to a copy of the recording code per closure type.
struct OpenSpan(Option<Span>);

impl OpenSpan {
    #[cold]
    #[inline(never)]
    fn end(mut self) {
        if let Some(span) = self.0.take() {
            with_writer(|writer| writer.map(|writer| writer.end(span)));
        }
    }
}

impl Drop for OpenSpan {
    fn drop(&mut self) {
        if let Some(span) = self.0.take() {
            with_writer(|writer| writer.map(|writer| writer.restore(span)));
        }
    }
}

/// Evaluates `$body` inside `$span` and ends the span after it (if `$body` unwinds, the
/// span's drop puts the context back instead). A macro, not a generic function: each hook
/// would compile a copy of such a function per closure type.
macro_rules! traced {
    ($span:expr, $body:expr) => {{
        let span = $span;
        let result = $body;
        span.end();
        result
    }};
}

#[cold]
#[inline(never)]
fn begin_fold(len: usize) -> OpenSpan {
    OpenSpan(with_writer(|writer| {
        writer.and_then(|writer| writer.begin_fold(len))
    }))
}

#[cold]
#[inline(never)]
fn begin_range() -> OpenSpan {
    OpenSpan(with_writer(|writer| writer.map(TraceWriter::begin_range)))
}

/// `fold` folds the next `len` items of the current claim: recorded as a loop piece.
#[inline]
pub(crate) fn trace_fold<P: Position, R>(len: P, fold: impl FnOnce() -> R) -> R {
    if any_pool_records() {
        traced!(begin_fold(len.position()), fold())
    } else {
        fold()
    }
}

/// A loop folded here and now, with no range of its own (on a pool of one worker, or nested
/// in an owner's cheap items): `op` runs it, recorded as a loop of the current worker like
/// one started by `on_a_worker`.
#[inline]
pub(crate) fn trace_loop_here<R>(op: impl FnOnce() -> R) -> R {
    if any_pool_records() {
        traced!(begin_range(), op())
    } else {
        op()
    }
}

/// Inside a "steal me" job: the thief took `rel` of the victim's range (positions within
/// it); `drive` runs those items as a range of the thief's own.
#[inline]
pub(crate) fn trace_range_steal<P: Position, R>(rel: Range<P>, drive: impl FnOnce() -> R) -> R {
    if any_pool_records() {
        traced!(begin_range_steal(positions(rel)), drive())
    } else {
        drive()
    }
}

#[cold]
#[inline(never)]
fn begin_range_steal(rel: Range<usize>) -> OpenSpan {
    OpenSpan(with_writer(|writer| {
        writer.and_then(|writer| writer.begin_range_steal(rel))
    }))
}

/// The range `worker` runs (to be carried by its "steal me" job); `None` when it does not
/// record.
#[inline]
pub(crate) fn trace_origin(worker: &WorkerThread) -> Option<Origin> {
    worker.trace().and_then(TraceWriter::origin)
}

/// Runs `f`, a "steal me" job whose owner was in `origin`, on whichever worker runs it.
#[inline]
pub(crate) fn trace_stolen_from<R>(origin: Option<Origin>, f: impl FnOnce() -> R) -> R {
    match origin {
        None => f(),
        Some(origin) => traced!(begin_stolen_from(origin), f()),
    }
}

#[cold]
#[inline(never)]
fn begin_stolen_from(origin: Origin) -> OpenSpan {
    OpenSpan(with_writer(|writer| {
        writer.map(|writer| writer.begin_stolen_from(origin))
    }))
}
