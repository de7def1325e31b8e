//! Parallel sorts: quicksort for `par_sort_unstable*`, merge sort for `par_sort*`.
//!
//! - [`par_sort_unstable_by`]: parallel quicksort with robust pivots, recursion on
//!   `join`, std's `sort_unstable_by` on small pieces and as the O(n log n) fallback
//!   (`quicksort.rs`, `partition.rs`).
//! - [`par_sort_by`]: stable merge sort: leaves sorted by std's `sort_by` in parallel, then
//!   parallel merges split at a binary-searched point, with one buffer of `n` slots
//!   (`mergesort.rs`).
//! - [`par_sort_by_cached_key`]: keys computed once per element in parallel, `(key, index)`
//!   pairs sorted by the quicksort, then the permutation applied (`cached_key.rs`).
//!
//! On a one-thread pool and for short slices, each sort is exactly the std sort.
//!
//! **Panic safety.** If the comparator or key function panics, the panic reaches the caller
//! and the slice is left holding a permutation of its input: no element is lost,
//! duplicated, leaked or dropped twice (the order is unspecified).
//!
//! The quicksort and the cached-key sort move elements only by swapping and are safe code.
//! The merge sort's buffer needs `unsafe`: its operations are all in `guard.rs`, called
//! from four places in `mergesort.rs`, each with its `SAFETY` comment.

mod cached_key;
mod guard;
mod mergesort;
mod partition;
mod quicksort;

pub(crate) use cached_key::par_sort_by_cached_key;
pub(crate) use mergesort::par_sort_by;
pub(crate) use quicksort::par_sort_unstable_by;
