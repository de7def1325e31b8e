//! A picture of the schedule: what each worker ran and when.
//!
//! A pool built with [`ThreadPoolBuilder::trace`](crate::ThreadPoolBuilder::trace) (or while
//! `WEFT_TRACE` is set, see below) records, per worker:
//!
//! - every job it ran from a queue, as a [`Span`] of kind [`SpanKind::Job`] with its
//!   [`JobKind`] (the stolen half of a `join`, a scope task, a `spawn`, a broadcast, work
//!   injected from outside the pool, a poll of a spawned future);
//! - every piece of an indexed parallel loop it folded, with the piece's index range within
//!   the loop ([`SpanKind::Piece`]);
//! - every time it parked for lack of work, until it was woken ([`SpanKind::Sleep`]);
//! - the jobs it stole from another worker's deque, the jobs it took from the pool's
//!   injector, and the index ranges it stole from another worker's loop ([`Mark`]s).
//!
//! [`ThreadPool::take_trace`](crate::ThreadPool::take_trace) hands over what was recorded
//! since the previous call as a [`Trace`], which writes itself as Chrome trace-event JSON
//! ([`Trace::write_chrome_json`]: open it in Perfetto or `chrome://tracing`) or as an SVG
//! timeline ([`Trace::write_svg`]: one lane per worker).
//!
//! ```
//! use weft::prelude::*;
//!
//! let pool = weft::ThreadPoolBuilder::new().num_threads(2).trace(true).build().unwrap();
//! let sum: u64 = pool.install(|| (0..100_000u64).into_par_iter().sum());
//! assert_eq!(sum, 4_999_950_000);
//! let trace = pool.take_trace().expect("the pool records");
//! // The loop's pieces cover each of its indices exactly once.
//! let mut pieces: Vec<_> = trace
//!     .spans()
//!     .iter()
//!     .filter_map(|span| match &span.kind {
//!         weft::trace::SpanKind::Piece { indices, .. } => Some(indices.clone()),
//!         _ => None,
//!     })
//!     .collect();
//! pieces.sort_by_key(|piece| piece.start);
//! assert_eq!(pieces.first().unwrap().start, 0);
//! assert!(pieces.windows(2).all(|pair| pair[0].end == pair[1].start));
//! assert_eq!(pieces.last().unwrap().end, 100_000);
//! let mut svg = Vec::new();
//! trace.write_svg(&mut svg).unwrap();
//! assert!(String::from_utf8(svg).unwrap().starts_with("<svg"));
//! ```
//!
//! # Cost
//! Off (the default), each place that could record tests one flag: a field of the worker
//! for the scheduler's own events, a process-wide relaxed load for the loop driver's (once
//! some pool of the process records, the driver's hooks in every pool also read the
//! current worker from a thread-local and test its field). On,
//! each worker appends fixed-size records to its own ring (allocated when the pool is
//! built, [`ThreadPoolBuilder::trace_capacity`](crate::ThreadPoolBuilder::trace_capacity)
//! records per worker): no lock, no allocation, no shared write, two clock reads (`Instant`)
//! per span. A ring that is full drops the *newest* records and counts them
//! ([`Trace::dropped`]); taking the trace empties the rings.
//!
//! # `WEFT_TRACE`
//! Set to a directory (`WEFT_TRACE=traces`, created if missing; `0` or empty means off),
//! every pool built afterwards records (unless its builder says `.trace(false)`), and its
//! recording is written to `DIR/weft-trace-<process id>-<pool>.json` and `.svg`, where
//! `<pool>` is `global` for the global pool and a number counting the pools the process
//! built otherwise. A pool's files are written once its workers have all exited, or at
//! process exit (after `main` returns or `std::process::exit`) if that comes first, as for
//! the global pool. What an earlier `take_trace` took is not in the files.
//!
//! # Limits
//! - A job appears once it has ended: a trace taken while a job runs shows it in the next
//!   trace. Loop pieces and sleeps likewise.
//! - Pieces are recorded by the on-steal driver (indexed loops). Unindexed loops
//!   (`filter(..).collect()` and friends) and the split-in-half driver show as the stolen
//!   join halves they run in, without index ranges.
//! - A loop longer than `u32::MAX` items is split in two halves first; each half is then a
//!   loop of its own in the trace.
//!
//! # Where this lives
//! The recording (the workers' rings and the records they write) is the pool's, in
//! `pool/trace/`, in the pool's own terms: jobs, sleeps, steals, and numbered *series* of
//! positions that the loop driver starts, runs in parts and hands over. This module reads
//! a pool's recording into a [`Trace`] (a series is a loop, its parts are [`SpanKind::Piece`]s,
//! its hand-overs [`MarkKind::RangeSteal`]s), renders it (`chrome.rs`, `svg.rs`, through
//! [`Trace`]'s public accessors) and writes `WEFT_TRACE`'s files (`files.rs`).

mod chrome;
mod files;
mod svg;

use std::fmt;
use std::io;
use std::ops::Range;
use std::time::Duration;

pub use crate::pool::trace::JobKind;
use crate::pool::trace::{Record, Recording, What};
use crate::PoolStats;
pub(crate) use files::write_files;

/// Something a worker did for a while.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Span {
    /// The worker's index in its pool.
    pub worker: usize,
    /// When it started, since the pool was built.
    pub start: Duration,
    /// When it ended, since the pool was built.
    pub end: Duration,
    /// What it was.
    pub kind: SpanKind,
}

/// What a [`Span`] was.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpanKind {
    /// A job taken from a queue and run to its end. Work it waited for meanwhile (the
    /// worker runs other jobs while it waits) shows as spans nested inside it.
    Job(JobKind),
    /// A piece of an indexed parallel loop: the items `indices` of the loop `loop_id`,
    /// folded in one go. The pieces of one loop cover each of its indices exactly once (a
    /// search that stops early leaves the rest uncovered).
    Piece {
        /// Identifies the loop within the pool (the same for all its pieces and steals).
        loop_id: u64,
        /// The piece's items, as positions within the whole loop.
        indices: Range<usize>,
    },
    /// Parked for lack of work, from falling asleep until woken.
    Sleep,
}

/// Something a worker did at one instant.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Mark {
    /// The worker's index in its pool.
    pub worker: usize,
    /// When, since the pool was built.
    pub time: Duration,
    /// What it was.
    pub kind: MarkKind,
}

/// What a [`Mark`] was.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MarkKind {
    /// Took a job from worker `victim`'s deque.
    Steal {
        /// The worker whose deque the job came from.
        victim: usize,
    },
    /// Took a job from the pool's injector (work submitted from outside the pool).
    Injected,
    /// Took the upper half of what was left of worker `victim`'s range of loop `loop_id`:
    /// the items `indices` (positions within the whole loop), which it then ran as a range
    /// of its own.
    RangeSteal {
        /// The worker that owned the range.
        victim: usize,
        /// The loop (as in [`SpanKind::Piece`]).
        loop_id: u64,
        /// The stolen items, as positions within the whole loop.
        indices: Range<usize>,
    },
}

/// What a pool's workers did between two [`ThreadPool::take_trace`] calls (or since the pool
/// was built): see the [module documentation](self).
///
/// [`ThreadPool::take_trace`]: crate::ThreadPool::take_trace
#[derive(Clone)]
pub struct Trace {
    names: Vec<String>,
    spans: Vec<Span>,
    marks: Vec<Mark>,
    interval: Range<Duration>,
    stats: PoolStats,
    dropped: u64,
}

impl fmt::Debug for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trace")
            .field("workers", &self.names.len())
            .field("spans", &self.spans.len())
            .field("marks", &self.marks.len())
            .field("interval", &self.interval)
            .field("dropped", &self.dropped)
            .finish_non_exhaustive()
    }
}

impl Trace {
    /// The number of workers of the pool (one lane each in the pictures).
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(3).trace(true).build().unwrap();
    /// assert_eq!(pool.take_trace().unwrap().num_workers(), 3);
    /// ```
    pub fn num_workers(&self) -> usize {
        self.names.len()
    }

    /// Worker `index`'s thread name (`"worker <index>"` if it has none).
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .thread_name(|i| format!("crunch-{i}"))
    ///     .trace(true)
    ///     .build()
    ///     .unwrap();
    /// pool.install(|| ()); // the worker has started
    /// assert_eq!(pool.take_trace().unwrap().worker_name(0), "crunch-0");
    /// ```
    pub fn worker_name(&self, index: usize) -> &str {
        &self.names[index]
    }

    /// The spans, ordered by worker, then by start time (outer spans before the spans
    /// nested in them).
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(1).trace(true).build().unwrap();
    /// pool.spawn(|| ());
    /// pool.install(|| ()); // one worker: the spawned task ran before or inside this one
    /// let trace = pool.take_trace().unwrap();
    /// let spawns = trace.spans().iter().filter(|span| {
    ///     span.kind == weft::trace::SpanKind::Job(weft::trace::JobKind::Spawn)
    /// });
    /// assert_eq!(spawns.count(), 1);
    /// ```
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// The marks, ordered by time.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(1).trace(true).build().unwrap();
    /// pool.install(|| ());
    /// let trace = pool.take_trace().unwrap();
    /// // `install` from outside the pool goes through the injector.
    /// assert!(trace.marks().iter().any(|mark| mark.kind == weft::trace::MarkKind::Injected));
    /// ```
    pub fn marks(&self) -> &[Mark] {
        &self.marks
    }

    /// The time this trace covers, since the pool was built: from the previous
    /// `take_trace` (or the pool's start) to this one.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(1).trace(true).build().unwrap();
    /// let first = pool.take_trace().unwrap();
    /// let second = pool.take_trace().unwrap();
    /// assert_eq!(first.interval().end, second.interval().start);
    /// ```
    pub fn interval(&self) -> Range<Duration> {
        self.interval.clone()
    }

    /// The pool's counters over [`interval`](Self::interval) (the difference of two
    /// [`ThreadPool::stats`](crate::ThreadPool::stats) snapshots).
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(1).trace(true).build().unwrap();
    /// pool.install(|| ());
    /// assert_eq!(pool.take_trace().unwrap().stats().jobs_injected, 1);
    /// ```
    pub fn stats(&self) -> PoolStats {
        self.stats
    }

    /// Records lost because a worker's buffer was full (the newest are dropped; raise
    /// [`trace_capacity`](crate::ThreadPoolBuilder::trace_capacity) or take traces more often).
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(1).trace(true).build().unwrap();
    /// pool.install(|| ());
    /// assert_eq!(pool.take_trace().unwrap().dropped(), 0);
    /// ```
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

impl Trace {
    /// Reads a pool's recording: each record becomes a span or a mark, spans ordered by
    /// worker, then by start (outer spans first where two start together, so that spans
    /// nest in order), marks by time.
    pub(crate) fn read(recording: Recording) -> Trace {
        let Recording {
            names,
            records,
            interval,
            stats,
            dropped,
        } = recording;
        let (mut spans, mut marks) = (Vec::new(), Vec::new());
        for (worker, record) in &records {
            decode(*worker, record, &mut spans, &mut marks);
        }
        spans.sort_by(|a, b| {
            (a.worker, a.start)
                .cmp(&(b.worker, b.start))
                .then(b.end.cmp(&a.end))
        });
        marks.sort_by_key(|mark| (mark.time, mark.worker));
        Trace {
            names,
            spans,
            marks,
            interval,
            stats,
            dropped,
        }
    }
}

/// One record as a span or a mark: a series of the pool's records is a loop here, its
/// parts are the loop's pieces and its hand-overs are range steals.
fn decode(worker: usize, record: &Record, spans: &mut Vec<Span>, marks: &mut Vec<Mark>) {
    let (start, end) = (
        Duration::from_nanos(record.start),
        Duration::from_nanos(record.end),
    );
    let span = |kind| Span {
        worker,
        start,
        end,
        kind,
    };
    let mark = |kind| Mark {
        worker,
        time: start,
        kind,
    };
    match record.what {
        What::Job(kind) => spans.push(span(SpanKind::Job(kind))),
        What::Part { series, first, end } => spans.push(span(SpanKind::Piece {
            loop_id: series,
            indices: first as usize..end as usize,
        })),
        What::Sleep => spans.push(span(SpanKind::Sleep)),
        What::Steal { victim } => marks.push(mark(MarkKind::Steal {
            victim: victim as usize,
        })),
        What::Injected => marks.push(mark(MarkKind::Injected)),
        What::Handover {
            victim,
            series,
            first,
            end,
        } => marks.push(mark(MarkKind::RangeSteal {
            victim: victim as usize,
            loop_id: series,
            indices: first as usize..end as usize,
        })),
    }
}

impl Trace {
    /// Writes the trace as Chrome trace-event JSON (the "JSON object format"): one thread per
    /// worker, spans as complete (`"X"`) events, marks as instant (`"i"`) events, the pool's
    /// counters under `otherData`. Perfetto (<https://ui.perfetto.dev>) and
    /// `chrome://tracing` open it.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).trace(true).build().unwrap();
    /// pool.install(|| weft::join(|| 1, || 2));
    /// let mut json = Vec::new();
    /// pool.take_trace().unwrap().write_chrome_json(&mut json).unwrap();
    /// let json = String::from_utf8(json).unwrap();
    /// assert!(json.starts_with("{\"traceEvents\":["));
    /// assert!(json.contains("\"thread_name\""));
    /// ```
    pub fn write_chrome_json(&self, out: impl io::Write) -> io::Result<()> {
        chrome::write(self, out)
    }

    /// Writes the trace as an SVG timeline: one lane per worker, jobs and loop pieces as
    /// bars coloured by kind (nested spans drawn inside the spans that contain them), sleeps
    /// in grey, steals as arrows from the victim's lane to the thief's, a time axis, a
    /// legend, and the pool's counters in the caption. Hovering a bar shows what it was.
    ///
    /// ```
    /// let pool = weft::ThreadPoolBuilder::new().num_threads(2).trace(true).build().unwrap();
    /// pool.install(|| weft::join(|| 1, || 2));
    /// let mut svg = Vec::new();
    /// pool.take_trace().unwrap().write_svg(&mut svg).unwrap();
    /// let svg = String::from_utf8(svg).unwrap();
    /// assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    /// ```
    pub fn write_svg(&self, out: impl io::Write) -> io::Result<()> {
        svg::write(self, out)
    }
}
