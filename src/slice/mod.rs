//! Parallel operations on slices: `ParallelSlice`, `ParallelSliceMut` and parallel sorts.

mod sort; // parallel quicksort and merge sort
