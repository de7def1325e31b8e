//! One worker's recording side: the records it appends to its ring, and where it stands in
//! the parallel loops it runs (so that loop pieces carry their positions within the loop).
//!
//! ## Loop positions
//! The loop driver knows only positions within the range it owns, and a thief's range
//! starts again at 0. The writer keeps a small context per worker (`Ctx`), always set and
//! restored around a call (never left behind, even by a panic), so it nests like the
//! worker's stack:
//!
//! - `begin_range`: a range starts on this worker (`pool::on_a_worker`). It is the range a
//!   `trace_range_steal` just announced, if any, else a new loop (a fresh id, base 0).
//! - `claim(rel)`: the owner claimed `rel` (positions within its range);
//!   `begin_fold(len)`: it folds the next `len` items of that claim, recorded as a piece
//!   when the span ends. While it folds (user code) the context is empty, so a loop started
//!   there is a new loop.
//! - `begin_stolen_from(origin)` / `begin_range_steal(rel)`: the owner's "steal me" job
//!   carries the owner's loop and base (`origin`); a thief that takes `rel` of that range
//!   runs it as the range `origin.base + rel`.
//! - A job taken from a queue runs with an empty context.
//!
//! Each `begin_*` returns a [`Span`], plain data that [`TraceWriter::end`] (or, when the
//! traced code unwinds, [`TraceWriter::restore`]) takes back: the hooks hold it across the
//! traced closure without a borrow of the writer and without taking the closure itself, so
//! none of this is compiled once per closure type.

use std::cell::Cell;
use std::ops::Range;
use std::time::Instant;

use super::ring::Producer;
use super::JobKind;

/// One record: a span (`start < end`) or an instant (`start == end`), in nanoseconds since
/// the pool's epoch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Record {
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) what: What,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum What {
    Job(JobKind),
    /// A part of a series: positions `first..end` of series `series`, run in one go.
    Part {
        series: u64,
        first: u64,
        end: u64,
    },
    Sleep,
    Steal {
        victim: u32,
    },
    Injected,
    /// Positions `first..end` of worker `victim`'s series `series` were handed over to
    /// this worker.
    Handover {
        victim: u32,
        series: u64,
        first: u64,
        end: u64,
    },
}

/// Where a range lies: its loop, and the loop position of its index 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RangePos {
    loop_id: u64,
    base: u64,
}

/// The range a "steal me" job belongs to, carried from its owner to the thief.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Origin {
    range: RangePos,
    worker: u32,
}

/// A worker's place in the loops it runs (see the module doc).
#[derive(Clone, Copy, Debug, Default)]
struct Ctx {
    /// The range being run here.
    range: Option<RangePos>,
    /// Loop positions of the current claim not folded yet: `next..claim_end`.
    next: u64,
    claim_end: u64,
    /// Inside a "steal me" job: the range it steals from.
    origin: Option<Origin>,
    /// Announced by `range_steal`: the next range started here is this one.
    adopt: Option<RangePos>,
}

/// Puts a saved context back when dropped: on return and on unwind alike.
pub(crate) struct Restore<'w> {
    ctx: &'w Cell<Ctx>,
    saved: Ctx,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        self.ctx.set(self.saved);
    }
}

/// A span of traced code in progress on one writer (see the module doc): the context to
/// put back when it ends, and, for a fold, the piece to record then.
#[derive(Clone, Copy, Debug)]
#[must_use = "a span is ended (or restored) on the writer that began it"]
pub(crate) struct Span {
    saved: Ctx,
    fold: Option<FoldSpan>,
}

/// A fold in progress: when it started, and the loop positions it folds.
#[derive(Clone, Copy, Debug)]
struct FoldSpan {
    start: u64,
    loop_id: u64,
    first: u64,
    end: u64,
}

/// What a worker records with; it lives in its `WorkerThread` (only that thread uses it).
#[derive(Debug)]
pub(crate) struct TraceWriter {
    producer: Producer<Record>,
    epoch: Instant,
    worker: u32,
    ctx: Cell<Ctx>,
    loops_started: Cell<u32>,
}

impl TraceWriter {
    pub(crate) fn new(producer: Producer<Record>, epoch: Instant, worker: usize) -> Self {
        TraceWriter {
            producer,
            epoch,
            worker: worker as u32,
            ctx: Cell::new(Ctx::default()),
            loops_started: Cell::new(0),
        }
    }

    /// Nanoseconds since the pool's epoch.
    #[inline]
    pub(crate) fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    fn push(&self, start: u64, end: u64, what: What) {
        self.producer.push(Record { start, end, what });
    }

    fn mark(&self, what: What) {
        let now = self.now();
        self.push(now, now, what);
    }

    /// Sets the context to `ctx` until the returned guard drops.
    fn enter(&self, ctx: Ctx) -> Restore<'_> {
        self.restore_on_drop(self.begin(ctx))
    }

    /// A guard that ends `span` when it drops, returning or unwinding alike, recording
    /// nothing (for spans that record nothing at their end).
    fn restore_on_drop(&self, span: Span) -> Restore<'_> {
        Restore {
            ctx: &self.ctx,
            saved: span.saved,
        }
    }

    /// Runs a job (`run`) and records it as a span of its `kind`.
    #[cold]
    #[inline(never)]
    pub(crate) fn execute(&self, kind: JobKind, run: impl FnOnce()) {
        let _restore = self.enter(Ctx::default());
        let start = self.now();
        run();
        self.push(start, self.now(), What::Job(kind));
    }

    /// A job was taken from worker `victim`'s deque.
    #[cold]
    pub(crate) fn stole_job(&self, victim: usize) {
        self.mark(What::Steal {
            victim: victim as u32,
        });
    }

    /// A job was taken from the injector.
    #[cold]
    pub(crate) fn took_injected(&self) {
        self.mark(What::Injected);
    }

    /// The worker parked at `start` (a time from [`now`](Self::now)) and was just woken.
    #[cold]
    pub(crate) fn slept(&self, start: u64) {
        self.push(start, self.now(), What::Sleep);
    }

    /// Sets the context to `ctx` until the returned span ends.
    fn begin(&self, ctx: Ctx) -> Span {
        Span {
            saved: self.ctx.replace(ctx),
            fold: None,
        }
    }

    /// A range starts on this worker (see the module doc).
    pub(crate) fn begin_range(&self) -> Span {
        let range = self.ctx.get().adopt.unwrap_or_else(|| {
            let sequence = self.loops_started.get();
            self.loops_started.set(sequence.wrapping_add(1));
            RangePos {
                loop_id: (u64::from(self.worker) << 32) | u64::from(sequence),
                base: 0,
            }
        });
        // The announced range is adopted once: clear it in what is restored, too.
        self.ctx.set(Ctx {
            adopt: None,
            ..self.ctx.get()
        });
        self.begin(Ctx {
            range: Some(range),
            ..Ctx::default()
        })
    }

    /// [`begin_range`](Self::begin_range), ended when the returned guard drops (returning
    /// or unwinding alike: a range records nothing at its end).
    pub(crate) fn enter_range(&self) -> Restore<'_> {
        self.restore_on_drop(self.begin_range())
    }

    /// Ends `span`: puts back the context it saved, and records its piece if it folded one.
    pub(crate) fn end(&self, span: Span) {
        let mut ctx = span.saved;
        if let Some(fold) = span.fold {
            self.push(
                fold.start,
                self.now(),
                What::Part {
                    series: fold.loop_id,
                    first: fold.first,
                    end: fold.end,
                },
            );
            // The claim goes on after the piece.
            ctx.next = fold.end;
        }
        self.ctx.set(ctx);
    }

    /// Puts back the context `span` saved and records nothing: the traced code unwound.
    pub(crate) fn restore(&self, span: Span) {
        self.ctx.set(span.saved);
    }

    /// The owner claimed `rel` (positions within its range).
    pub(crate) fn claim(&self, rel: Range<usize>) {
        let ctx = self.ctx.get();
        if let Some(range) = ctx.range {
            self.ctx.set(Ctx {
                next: range.base + rel.start as u64,
                claim_end: range.base + rel.end as u64,
                ..ctx
            });
        }
    }

    /// The next `len` items of the current claim are folded until the returned span ends,
    /// then recorded as a piece; `None` outside a range (nothing to record).
    pub(crate) fn begin_fold(&self, len: usize) -> Option<Span> {
        let ctx = self.ctx.get();
        let range = ctx.range?;
        let first = ctx.next;
        let end = first + len as u64;
        debug_assert!(end <= ctx.claim_end, "weft: a fold beyond its claim");
        let mut span = self.begin(Ctx::default());
        span.fold = Some(FoldSpan {
            start: self.now(),
            loop_id: range.loop_id,
            first,
            end,
        });
        Some(span)
    }

    /// The range this worker runs, to be carried by its "steal me" job.
    pub(crate) fn origin(&self) -> Option<Origin> {
        self.ctx.get().range.map(|range| Origin {
            range,
            worker: self.worker,
        })
    }

    /// A "steal me" job of the range `origin` runs until the returned span ends.
    pub(crate) fn begin_stolen_from(&self, origin: Origin) -> Span {
        self.begin(Ctx {
            origin: Some(origin),
            ..Ctx::default()
        })
    }

    /// Inside a "steal me" job: took `rel` of its range, which runs as a range here until
    /// the returned span ends; `None` if the job carries no range.
    pub(crate) fn begin_range_steal(&self, rel: Range<usize>) -> Option<Span> {
        let origin = self.ctx.get().origin?;
        let first = origin.range.base + rel.start as u64;
        let end = origin.range.base + rel.end as u64;
        self.mark(What::Handover {
            victim: origin.worker,
            series: origin.range.loop_id,
            first,
            end,
        });
        Some(self.begin(Ctx {
            adopt: Some(RangePos {
                loop_id: origin.range.loop_id,
                base: first,
            }),
            ..Ctx::default()
        }))
    }
}
