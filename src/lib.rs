//! # weft — data parallelism for Rust
//!
//! A Rayon-compatible parallel iterator framework on a work-stealing scheduler.
//!
//! ```text
//! user code:  v.par_iter().map(f).sum()     join(a, b)     v.par_sort_unstable()
//!                  │                           │                 │
//! iter/, slice/    sources, adapters, consumers │           slice/sort
//!                  │                           │                 │
//! plumbing/        producer / consumer vocabulary (traits only)  │
//!                  │                           │                 │
//! drive/           split a producer across workers               │
//!                  └─────────────┬─────────────┘─────────────────┘
//! pool/                  join / scope / spawn / install
//!                        registry, per-worker deques, injector, sleep
//! sync                   std or loom atomics (cfg(all(test, loom)))
//! ```
//!
//! Where the `unsafe` lives (a reviewer's map): `pool/job.rs`, `pool/latch.rs`,
//! `pool/worker.rs`, `pool/join.rs`, `pool/scope.rs`, `pool/registry.rs`; `iter/` collect and
//! `Vec` sources; and `slice/sort/`.
//!
//! ```
//! let (left, right) = weft::join(|| (1..=50u32).sum::<u32>(), || (51..=100u32).sum::<u32>());
//! assert_eq!(left + right, 5050);
//! ```

// Modules in data-flow order, top (what users call) to bottom (threads and atomics).
pub mod array; // arrays by value (Rayon's `rayon::array`)
pub mod collections; // std collections (Rayon's `rayon::collections`)
mod drive; // how a producer is split across workers
mod huge_pages; // madvise(MADV_HUGEPAGE) for large fresh buffers (Linux)
pub mod iter; // the ParallelIterator family
pub mod option; // Option by value and reference (Rayon's `rayon::option`)
mod plumbing; // producer / consumer vocabulary (re-exported as `weft::iter::plumbing`)
mod pool; // the work-stealing scheduler
pub mod prelude; // the traits users import with `use weft::prelude::*`
pub mod range; // parallel iterators over `Range` (Rayon's `rayon::range`)
pub mod range_inclusive; // parallel iterators over `RangeInclusive`
pub mod result; // Result by value and reference (Rayon's `rayon::result`)
pub mod slice; // ParallelSlice / ParallelSliceMut and parallel sorts
pub mod str; // ParallelString (Rayon's `rayon::str`)
pub mod string; // String's par_drain type (Rayon's `rayon::string`)
mod sync; // std / loom facade
pub mod vec; // Vec by value and par_drain (Rayon's `rayon::vec`)

/// Benchmark knob: `true` sends indexed work to the split-in-half driver instead of the
/// on-steal one (process-wide). Not part of the stable API.
#[doc(hidden)]
pub use drive::use_halving_for_indexed;
pub use pool::{
    broadcast, current_num_threads, current_thread_has_pending_tasks, current_thread_index,
    in_place_scope, in_place_scope_fifo, join, join_context, max_num_threads, scope, scope_fifo,
    spawn, spawn_broadcast, spawn_fifo, yield_local, yield_now, BroadcastContext, FnContext,
    PoolStats, Scope, ScopeFifo, ThreadBuilder, ThreadPool, ThreadPoolBuildError,
    ThreadPoolBuilder, Yield,
};
// Rayon's deprecated configuration API (rayon-core 1.13 still has it).
#[allow(deprecated)]
pub use pool::{initialize, Configuration};

/// The README's examples run as doc tests, so the front page cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
