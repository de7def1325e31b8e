//! The loop driver's recording points, in its own words. The pool records *series*: runs of
//! positions a driver starts on a worker, reserves, runs in parts and hands over
//! (`pool/trace/writer.rs`); to the driver a series is a loop's range, and `crate::trace`
//! shows it as a loop. The pool's names are neutral so that pool/ names no loop concept
//! (`.ci/run`'s layering step); these are the names the driver reads.

/// The owner claimed `rel` (positions within its range): the pool reserves them.
pub(super) use crate::pool::trace_reserve as trace_claim;

/// `fold` folds the next `len` items of the current claim: the pool records a part, shown
/// as a [`SpanKind::Piece`](crate::trace::SpanKind::Piece).
pub(super) use crate::pool::trace_part as trace_fold;

/// A loop folded here and now, with no range of its own (on a pool of one worker, or
/// nested in an owner's cheap items): recorded as a series of the current worker.
pub(super) use crate::pool::trace_series_here as trace_loop_here;

/// Inside a "steal me" job: the thief took `rel` of the victim's range and drives it as a
/// range of its own until the returned span ends, recorded as a hand-over
/// ([`MarkKind::RangeSteal`](crate::trace::MarkKind::RangeSteal)).
pub(super) use crate::pool::trace_handover as trace_range_steal;
