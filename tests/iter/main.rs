//! The parallel-iterator tests, one module per former test file, built as one test binary
//! (each file a binary of its own cost a separate release build and link of most of weft's
//! generic code). No test here configures the global pool, sets an environment variable or
//! counts the process's threads: those stay in binaries of their own (`tests/pool_*.rs`,
//! `tests/trace.rs`). The panic hooks installed here (`panics`, `walk_tree`) each pass
//! every panic that is not their own to the hook they replaced.

#[path = "../common/mod.rs"]
mod common;

mod adapter_traits;
mod adapters;
mod collect;
mod collections;
mod consumers;
mod deterministic;
mod drive_on_steal;
mod drop_counting;
mod endless_searches;
mod huge_ranges;
mod order;
mod panics;
mod producer_contract;
mod producer_split_at;
mod ranges;
mod rayon_extras;
mod rayon_semantics;
mod scan;
mod sources;
mod strings;
mod walk_tree;
