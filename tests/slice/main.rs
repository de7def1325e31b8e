//! The slice and sort tests (`ParallelSliceMut`, the parallel sorts and their panic safety),
//! one module per former test file, built as one test binary. The panic hook
//! `sort_panic_safety` installs passes every panic that is not its own to the hook it
//! replaced.

#[path = "../common/mod.rs"]
mod common;

mod slice_mut;
mod sort;
mod sort_panic_safety;
