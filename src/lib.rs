//! # weft — data parallelism for Rust
//!
//! Rayon's API on a work-stealing scheduler of its own: parallel iterators, `join`, scopes,
//! parallel sorts and thread pools. Code written for Rayon compiles against weft with
//! `use weft as rayon;` (see [Switching from Rayon](#switching-from-rayon)).
//!
//! ## Parallel iterators
//!
//! Bring the traits in with the prelude, then call `par_iter()` where you would call
//! `iter()` (or `into_par_iter()`, `par_iter_mut()`, `par_chunks()`, ...). The work is
//! split across the pool's threads; results come back in the sequential order.
//!
//! ```
//! use weft::prelude::*;
//!
//! let words = vec!["apple", "banana", "cherry", "date"];
//! let letters: usize = words.par_iter().map(|w| w.len()).sum();
//! assert_eq!(letters, 21);
//!
//! let squares: Vec<u64> = (0..1000u64).into_par_iter().map(|x| x * x).collect();
//! assert_eq!(squares[999], 998_001);
//!
//! let mut v = vec![1, 2, 3, 4];
//! v.par_iter_mut().for_each(|x| *x *= 10);
//! assert_eq!(v, [10, 20, 30, 40]);
//! ```
//!
//! ## `join`: two closures that may run in parallel
//!
//! [`join`] runs both closures and returns both results; the second one runs on another
//! thread only if one is idle, so a recursion can `join` at every level cheaply.
//!
//! ```
//! fn sum(v: &[u64]) -> u64 {
//!     if v.len() <= 1024 {
//!         return v.iter().sum();
//!     }
//!     let (left, right) = v.split_at(v.len() / 2);
//!     let (a, b) = weft::join(|| sum(left), || sum(right));
//!     a + b
//! }
//! let v: Vec<u64> = (1..=100_000).collect();
//! assert_eq!(sum(&v), 5_000_050_000);
//! ```
//!
//! [`scope`] spawns any number of tasks that may borrow from the caller's stack.
//!
//! ## Sorting
//!
//! ```
//! use weft::prelude::*;
//!
//! let mut v: Vec<u32> = (0..100_000u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
//! v.par_sort_unstable();
//! assert!(v.windows(2).all(|w| w[0] <= w[1]));
//! ```
//!
//! `par_sort` is stable; `par_sort_by`, `par_sort_by_key` and their `_unstable` forms take
//! a comparator or a key, as in std.
//!
//! ## Thread pools
//!
//! Parallel work runs on the global pool, started on first use with one thread per core
//! (or `WEFT_NUM_THREADS`, below). [`ThreadPoolBuilder`] builds pools of your own, or
//! configures the global one with `build_global`; [`ThreadPool::install`] runs a closure,
//! and all the parallel work inside it, on that pool.
//!
//! ```
//! use weft::prelude::*;
//!
//! let pool = weft::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
//! let sum: u64 = pool.install(|| (1..=100u64).into_par_iter().sum());
//! assert_eq!(sum, 5050);
//! assert_eq!(pool.current_num_threads(), 2);
//! ```
//!
//! [`ThreadPool::stats`] tells what a pool did (jobs run and stolen, loops split): see
//! [`PoolStats`].
//!
//! ## Environment variables
//!
//! | variable | effect |
//! |---|---|
//! | `WEFT_NUM_THREADS` | threads of the global pool and of pools built with `num_threads(0)` (default: one per core) |
//! | `RAYON_NUM_THREADS` | the same, read when `WEFT_NUM_THREADS` is not set, so a Rayon setting carries over |
//! | `WEFT_HUGE_PAGES` | `1` lets large fresh buffers (a `collect` of 32 MiB or more, the stable sort's scratch buffer) ask Linux for transparent huge pages, `0` never does; see README, "How it differs from Rayon inside" |
//!
//! The thread counts are read when a pool is built (the global pool: on first use), the
//! huge-page setting once per process.
//!
//! ## Switching from Rayon
//!
//! Write `use weft as rayon;`, or rename the dependency so that every `rayon::` path means
//! weft: `rayon = { package = "weft", version = "0.1" }` under `[dependencies]`. For crates
//! you depend on that use Rayon themselves, the README gives a `[patch]` recipe with the
//! compat crates. weft keeps Rayon's names, bounds and results; the few deliberate
//! differences are listed in the README's "Differences from Rayon", and what weft adds in
//! "Beyond Rayon".
//!
//! ## Inside
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
//! Where the `unsafe` lives (a reviewer's map): `pool/` (`job.rs`, `latch.rs`, the current
//! worker's thread-local in `worker.rs`, `join.rs`, `scope.rs`, `registry.rs`, the job
//! handles of `spawn.rs`, `broadcast.rs` and `mod.rs`, `spawn_handle`'s task and slot in
//! `handle.rs` and `handle/slot.rs`, and a spawned future's waker and pinned future in
//! `future.rs`); `drive/clock.rs` (`rdtsc`); `iter/` collect and the `Vec` and array
//! sources; `huge_pages.rs`; and `slice/sort/`.

// Modules in data-flow order, top (what users call) to bottom (threads and atomics).
pub mod array; // arrays by value (Rayon's `rayon::array`)
#[cfg(feature = "bench-internals")]
#[doc(hidden)]
pub mod bench_internals; // internals for this repository's benches only (not an API)
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
pub mod trace; // a pool's recorded schedule, rendered as Chrome JSON and SVG
pub mod vec; // Vec by value and par_drain (Rayon's `rayon::vec`)

pub use pool::{
    block_on, broadcast, cancellable, current_num_threads, current_thread_has_pending_tasks,
    current_thread_index, in_place_scope, in_place_scope_fifo, isolate, join, join_context,
    max_num_threads, scope, scope_fifo, set_num_threads, spawn, spawn_broadcast, spawn_fifo,
    spawn_future, spawn_handle, yield_local, yield_now, BroadcastContext, CancelToken, Cancelled,
    FnContext, JoinHandle, PoolStats, Scope, ScopeFifo, ScopedJoinHandle, ThreadBuilder,
    ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder, Yield,
};
// Rayon's deprecated configuration API (rayon-core 1.13 still has it).
#[allow(deprecated)]
pub use pool::{initialize, Configuration};

/// The README's examples run as doc tests, so the front page cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
