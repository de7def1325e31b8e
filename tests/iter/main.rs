//! The parallel-iterator tests, one module per former test file, built as two test binaries:
//! this one (adapters, consumers, sources) and `tests/iter_drive/` (drivers, order, panics,
//! producers), whose module files live in this folder too. Each file a binary of its own
//! cost a separate release build and link of most of weft's generic code; all of them in one
//! binary made it the long pole of `cargo test --release` (one rustc busy for about 15
//! minutes while the other core idled); two binaries build side by side. No test in either
//! configures the global pool, sets an environment variable or counts the process's
//! threads: those stay in binaries of their own (`tests/pool_*.rs`, `tests/trace.rs`). The
//! panic hooks installed in them (`panics`, `walk_tree`) each pass every panic that is not
//! their own to the hook they replaced.

#[path = "../common/mod.rs"]
mod common;

mod adapter_traits;
mod adapters;
mod bridge;
mod collect;
mod collections;
mod consumers;
mod deterministic_all;
mod rayon_extras;
mod rayon_semantics;
mod scan;
mod sources;
mod strings;
mod walk_tree;
