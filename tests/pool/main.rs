//! The thread-pool tests, one module per former `tests/pool_*.rs` file, built as one test
//! binary. Every test here builds its own pools or uses the global pool as it is, with its
//! default size. The tests that must have a process of their own stay separate: those that
//! configure the global pool (`tests/pool_build_global*.rs`, `tests/pool_one_thread_global.rs`)
//! or race to create it (`tests/pool_global_first_use.rs`), and `tests/pool_shutdown.rs`,
//! which counts the process's threads.

#[path = "../common/mod.rs"]
mod common;
#[path = "../common_pool/mod.rs"]
mod common_pool;

mod builder;
mod cancel;
mod cancel_probe;
// tokio, which awaits futures on the pool, is no dev-dependency under `--cfg loom`.
#[cfg(not(loom))]
mod future;
// tokio, which awaits the handles, is no dev-dependency under `--cfg loom` (Cargo.toml).
#[cfg(not(loom))]
mod handle;
mod isolate;
mod join;
mod nested;
mod panics;
mod progress;
mod resize;
mod scope;
mod spawn;
mod spawn_handler;
mod user_code_panics;
