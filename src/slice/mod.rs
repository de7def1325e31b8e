//! Parallel operations on slices: `ParallelSlice`, `ParallelSliceMut` and parallel sorts.

mod sort; // parallel quicksort and merge sort

#[doc(hidden)]
pub use sort::public::*; // TEMPORARY: sort entry points until ParallelSliceMut lands
