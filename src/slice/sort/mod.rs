//! Parallel sorts: quicksort for `par_sort_unstable*`, merge sort for `par_sort*`.
//!
//! - [`par_sort_unstable_by`]: parallel quicksort with robust pivots, the first partitions
//!   spread over parallel blocks (one pivot per block, so `T: Sync` is not needed),
//!   recursion on `join`, std's `sort_unstable_by` on small pieces and as the O(n log n)
//!   fallback (`quicksort.rs`, `partition.rs`).
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
//! **Comparators that are not total orders** leave a permutation in an unspecified order and
//! do not panic, as Rayon documents: std's sorts, which may panic on them since Rust 1.81,
//! are called through `std_sorts.rs`, which drops that one panic.
//!
//! The cached-key sort and the quicksort's block exchanges move elements only by swapping
//! and are safe code. The quicksort's cyclic partition and the merge sort's buffer need
//! `unsafe`: all of it is in `guard.rs`, and the merge sort's four call sites in
//! `mergesort.rs` each have their `SAFETY` comment.

mod cached_key;
mod guard;
mod mergesort;
mod partition;
mod quicksort;
mod std_sorts; // std's sorts, minus their panic on a comparator that is not a total order

pub(crate) use cached_key::par_sort_by_cached_key;
pub(crate) use mergesort::par_sort_by;
pub(crate) use quicksort::par_sort_unstable_by;
