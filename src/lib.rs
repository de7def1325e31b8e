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
mod drive; // how a producer is split across workers
pub mod iter; // the ParallelIterator family
mod plumbing; // producer / consumer vocabulary (re-exported as `weft::iter::plumbing`)
mod pool; // the work-stealing scheduler
pub mod prelude; // the traits users import with `use weft::prelude::*`
pub mod slice; // ParallelSlice / ParallelSliceMut and parallel sorts
mod sync; // std / loom facade

pub use pool::{
    broadcast, current_num_threads, current_thread_index, in_place_scope, in_place_scope_fifo,
    join, join_context, max_num_threads, scope, scope_fifo, spawn, spawn_broadcast, spawn_fifo,
    yield_local, yield_now, BroadcastContext, FnContext, PoolStats, Scope, ScopeFifo, ThreadPool,
    ThreadPoolBuildError, ThreadPoolBuilder, Yield,
};
