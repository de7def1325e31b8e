//! One worker's recording side: the records it appends to its ring, and where it stands in
//! the *series* it runs, so that each part carries its positions within its series.
//!
//! ## Series
//! A series is a numbered run of positions that a driver starts on a worker (the loop
//! driver: a parallel loop's index range), reserves in runs, runs in parts, and hands over
//! in pieces to other workers, which continue it as their own. The driver knows only
//! positions relative to what it holds (a worker handed positions counts from 0 again), so
//! the writer keeps a small context per worker (`Ctx`), always set and restored around a
//! call (never left behind, even by a panic), so it nests like the worker's stack:
//!
//! - `begin_series`: a series starts on this worker (`pool::on_a_worker`). It continues
//!   the series a `begin_handover` just announced, if any, else it is a new one (a fresh
//!   id, base 0).
//! - `reserve(rel)`: positions `rel` are reserved for the parts that follow;
//!   `begin_part(len)`: the next `len` of them run, recorded as a part when the span ends.
//!   While a part runs (user code) the context is empty, so a series started there is a
//!   new one.
//! - `begin_stolen_from(origin)` / `begin_handover(rel)`: a job made inside a series
//!   carries that series and its base (`origin`) to whichever worker runs it; if that job
//!   takes positions `rel` of the series, they continue it from `origin.base + rel`.
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

/// Where a series lies: its id, and the series position of its position 0 here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SeriesPos {
    series: u64,
    base: u64,
}

/// The series a job was made in, carried from the worker that made it to the one that runs
/// it (`join`'s stolen half).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Origin {
    series: SeriesPos,
    worker: u32,
}

/// A worker's place in the series it runs (see the module doc).
#[derive(Clone, Copy, Debug, Default)]
struct Ctx {
    /// The series being run here.
    series: Option<SeriesPos>,
    /// Series positions reserved and not run yet: `next..reserved_end`.
    next: u64,
    reserved_end: u64,
    /// Inside a job made in a series: that series.
    origin: Option<Origin>,
    /// Announced by `begin_handover`: the next series started here continues this one.
    adopt: Option<SeriesPos>,
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
/// put back when it ends, and, for a part, the record to write then.
#[derive(Clone, Copy, Debug)]
#[must_use = "a span is ended (or restored) on the writer that began it"]
pub(crate) struct Span {
    saved: Ctx,
    part: Option<PartSpan>,
}

/// A part in progress: when it started, and the series positions it runs.
#[derive(Clone, Copy, Debug)]
struct PartSpan {
    start: u64,
    series: u64,
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
    series_started: Cell<u32>,
}

impl TraceWriter {
    pub(crate) fn new(producer: Producer<Record>, epoch: Instant, worker: usize) -> Self {
        TraceWriter {
            producer,
            epoch,
            worker: worker as u32,
            ctx: Cell::new(Ctx::default()),
            series_started: Cell::new(0),
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
            part: None,
        }
    }

    /// A series starts on this worker (see the module doc).
    pub(crate) fn begin_series(&self) -> Span {
        let series = self.ctx.get().adopt.unwrap_or_else(|| {
            let sequence = self.series_started.get();
            self.series_started.set(sequence.wrapping_add(1));
            SeriesPos {
                series: (u64::from(self.worker) << 32) | u64::from(sequence),
                base: 0,
            }
        });
        // The announced series is adopted once: clear it in what is restored, too.
        self.ctx.set(Ctx {
            adopt: None,
            ..self.ctx.get()
        });
        self.begin(Ctx {
            series: Some(series),
            ..Ctx::default()
        })
    }

    /// [`begin_series`](Self::begin_series), ended when the returned guard drops (returning
    /// or unwinding alike: a series records nothing at its end).
    pub(crate) fn enter_series(&self) -> Restore<'_> {
        self.restore_on_drop(self.begin_series())
    }

    /// Ends `span`: puts back the context it saved, and records its part if it ran one.
    pub(crate) fn end(&self, span: Span) {
        let mut ctx = span.saved;
        if let Some(part) = span.part {
            self.push(
                part.start,
                self.now(),
                What::Part {
                    series: part.series,
                    first: part.first,
                    end: part.end,
                },
            );
            // The reservation goes on after the part.
            ctx.next = part.end;
        }
        self.ctx.set(ctx);
    }

    /// Puts back the context `span` saved and records nothing: the traced code unwound.
    pub(crate) fn restore(&self, span: Span) {
        self.ctx.set(span.saved);
    }

    /// Positions `rel` of the current series (relative to its base) are reserved for the
    /// parts that follow.
    pub(crate) fn reserve(&self, rel: Range<usize>) {
        let ctx = self.ctx.get();
        if let Some(series) = ctx.series {
            self.ctx.set(Ctx {
                next: series.base + rel.start as u64,
                reserved_end: series.base + rel.end as u64,
                ..ctx
            });
        }
    }

    /// The next `len` reserved positions run until the returned span ends, then are
    /// recorded as a part; `None` outside a series (nothing to record).
    pub(crate) fn begin_part(&self, len: usize) -> Option<Span> {
        let ctx = self.ctx.get();
        let series = ctx.series?;
        let first = ctx.next;
        let end = first + len as u64;
        debug_assert!(
            end <= ctx.reserved_end,
            "weft: a part beyond its reservation"
        );
        let mut span = self.begin(Ctx::default());
        span.part = Some(PartSpan {
            start: self.now(),
            series: series.series,
            first,
            end,
        });
        Some(span)
    }

    /// The series this worker runs, to be carried by a job made in it.
    pub(crate) fn origin(&self) -> Option<Origin> {
        self.ctx.get().series.map(|series| Origin {
            series,
            worker: self.worker,
        })
    }

    /// A job made in the series `origin` runs until the returned span ends.
    pub(crate) fn begin_stolen_from(&self, origin: Origin) -> Span {
        self.begin(Ctx {
            origin: Some(origin),
            ..Ctx::default()
        })
    }

    /// Inside a job made in a series: positions `rel` of that series (relative to its base)
    /// are handed over to this worker, and run as a series here until the returned span
    /// ends; `None` if the job carries no series.
    pub(crate) fn begin_handover(&self, rel: Range<usize>) -> Option<Span> {
        let origin = self.ctx.get().origin?;
        let first = origin.series.base + rel.start as u64;
        let end = origin.series.base + rel.end as u64;
        self.mark(What::Handover {
            victim: origin.worker,
            series: origin.series.series,
            first,
            end,
        });
        Some(self.begin(Ctx {
            adopt: Some(SeriesPos {
                series: origin.series.series,
                base: first,
            }),
            ..Ctx::default()
        }))
    }
}
