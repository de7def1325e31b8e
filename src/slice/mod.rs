//! Parallel operations on slices: `ParallelSlice`, `ParallelSliceMut` and parallel sorts.
