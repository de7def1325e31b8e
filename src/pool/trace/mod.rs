//! The recording side of traces: what a pool that records keeps (`pool_trace.rs`), the
//! per-worker rings it keeps it in (`ring.rs`), the worker's writing end and its records
//! (`writer.rs`), and the recording points the scheduler and drivers call (`hooks.rs`).
//!
//! The records are the pool's own vocabulary: jobs ([`JobKind`]), sleeps, steals and
//! injections, and *series*: numbered runs of positions that a driver starts on a worker,
//! reserves, runs in parts and hands over to other workers (`writer.rs`). What a series
//! stands for (a parallel loop's index range) is the reader's business: `crate::trace`
//! reads a [`Recording`] into the public `Trace`, renders it (Chrome JSON, SVG) and writes
//! `WEFT_TRACE`'s files. This module renders nothing.

mod hooks;
mod pool_trace;
mod ring;
mod writer;

pub(crate) use hooks::{
    any_pool_records, trace_handover, trace_origin, trace_part, trace_reserve, trace_series_here,
    trace_stolen_from,
};
pub(crate) use pool_trace::{write_at_exit, PoolTrace, Recording, TraceConfig, DEFAULT_CAPACITY};
pub(crate) use writer::{Record, TraceWriter, What};

/// What kind of job a [`SpanKind::Job`](crate::trace::SpanKind::Job) span ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JobKind {
    /// The second closure of a `join`, run by a thief (a `join` whose halves both ran on
    /// the calling worker is not a job). Parallel loops hand work to thieves this way too.
    Join,
    /// A task spawned in a `scope` or `scope_fifo`.
    Scope,
    /// A detached task (`spawn`, `spawn_fifo`).
    Spawn,
    /// One worker's share of a `broadcast` or `spawn_broadcast`.
    Broadcast,
    /// Work handed to the pool from outside it (`install`, or a parallel call made on a
    /// thread that is not one of the pool's workers).
    Install,
    /// One poll of a future spawned on the pool (`spawn_future`, `Scope::spawn_future`).
    Future,
    /// Anything else.
    Other,
}

impl JobKind {
    /// A short lower-case name ("join", "scope", ...), as the JSON and SVG label it.
    ///
    /// ```
    /// assert_eq!(weft::trace::JobKind::Join.name(), "join");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            JobKind::Join => "join",
            JobKind::Scope => "scope",
            JobKind::Spawn => "spawn",
            JobKind::Broadcast => "broadcast",
            JobKind::Install => "install",
            JobKind::Future => "future",
            JobKind::Other => "job",
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
