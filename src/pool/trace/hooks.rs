//! The recording points drivers call to record series (`writer.rs`: a series is a run of
//! positions a driver starts, reserves, runs in parts and hands over; the loop driver's
//! names for them are in `drive/trace.rs`), and the scheduler's two (`on_a_worker`,
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
/// the recording only when it is true.
#[inline(always)]
pub(crate) fn any_pool_records() -> bool {
    // ORDERING: see `a_pool_records`.
    ANY_POOL_RECORDS.load(Ordering::Relaxed)
}

/// The current worker's writer, if this thread is a worker of a pool that records.
fn with_writer<R>(f: impl FnOnce(Option<&TraceWriter>) -> R) -> R {
    WorkerThread::with_current(|worker| f(worker.and_then(WorkerThread::trace)))
}

/// A position as a driver holds it (`u32` or `usize`).
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

/// Positions `rel` of the current series (relative to what this worker holds of it) are
/// reserved; the following [`trace_part`]s run them in order.
#[inline]
pub(crate) fn trace_reserve<P: Position>(rel: Range<P>) {
    if any_pool_records() {
        reserve_cold(positions(rel));
    }
}

#[cold]
fn reserve_cold(rel: Range<usize>) {
    with_writer(|writer| {
        if let Some(writer) = writer {
            writer.reserve(rel);
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

/// Ends `span`, if any, after the work that made `result` (an unwind drops it instead).
#[inline(always)]
fn end_after<R>(span: Option<OpenSpan>, result: R) -> R {
    if let Some(span) = span {
        span.end();
    }
    result
}

#[cold]
#[inline(never)]
fn begin_part(len: usize) -> OpenSpan {
    OpenSpan(with_writer(|writer| {
        writer.and_then(|writer| writer.begin_part(len))
    }))
}

#[cold]
#[inline(never)]
fn begin_series() -> OpenSpan {
    OpenSpan(with_writer(|writer| writer.map(TraceWriter::begin_series)))
}

/// `run` runs the next `len` reserved positions: recorded as a part of the series.
#[inline]
pub(crate) fn trace_part<P: Position, R>(len: P, run: impl FnOnce() -> R) -> R {
    // One call of `run` (not one per branch): it is often a loop's whole body.
    let span = any_pool_records().then(|| begin_part(len.position()));
    end_after(span, run())
}

/// `op` runs a series here and now, on the current thread (no `on_a_worker`): recorded as
/// a series of the current worker like one started by `on_a_worker`.
#[inline]
pub(crate) fn trace_series_here<R>(op: impl FnOnce() -> R) -> R {
    let span = any_pool_records().then(begin_series);
    end_after(span, op())
}

/// Inside a job made in a series (see [`trace_stolen_from`]): positions `rel` of that
/// series (relative to what its worker held) were handed over to this worker, which runs
/// them as a series of its own that continues it, until the returned span's
/// [`end`](HandoverSpan::end). Not a closure: a hook around a closure would be compiled
/// for each of its callers' types.
#[inline]
pub(crate) fn trace_handover<P: Position>(rel: Range<P>) -> HandoverSpan {
    HandoverSpan(any_pool_records().then(|| begin_handover(positions(rel))))
}

/// The recording of a hand-over ([`trace_handover`]) while its positions run. Dropped
/// without [`end`](HandoverSpan::end) (an unwind), it puts the recording context back.
pub(crate) struct HandoverSpan(Option<OpenSpan>);

impl HandoverSpan {
    /// The handed-over positions have run.
    #[inline]
    pub(crate) fn end(self) {
        if let Some(span) = self.0 {
            span.end();
        }
    }
}

#[cold]
#[inline(never)]
fn begin_handover(rel: Range<usize>) -> OpenSpan {
    OpenSpan(with_writer(|writer| {
        writer.and_then(|writer| writer.begin_handover(rel))
    }))
}

/// The series `worker` runs (to be carried by a job made in it); `None` when it does not
/// record or runs no series.
#[inline]
pub(crate) fn trace_origin(worker: &WorkerThread) -> Option<Origin> {
    worker.trace().and_then(TraceWriter::origin)
}

/// Runs `f`, a job made in the series `origin`, on whichever worker runs it.
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
