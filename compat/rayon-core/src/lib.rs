//! rayon-core 1.13's public root, served by [weft](https://docs.rs/weft): a crate that names
//! `rayon_core::...` runs on weft's scheduler when this crate is patched in for
//! `rayon-core` (see weft's README, "Replacing Rayon in a whole dependency graph").
//!
//! The list below is rayon-core 1.13's root, item for item, deprecated ones included.

#![allow(deprecated)]

pub use weft::{
    broadcast, current_num_threads, current_thread_has_pending_tasks, current_thread_index,
    in_place_scope, in_place_scope_fifo, initialize, join, join_context, max_num_threads, scope,
    scope_fifo, spawn, spawn_broadcast, spawn_fifo, yield_local, yield_now, BroadcastContext,
    Configuration, FnContext, Scope, ScopeFifo, ThreadBuilder, ThreadPool, ThreadPoolBuildError,
    ThreadPoolBuilder, Yield,
};
