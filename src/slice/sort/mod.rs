//! Parallel sorts. TEMPORARY STUB (skeleton): sequential std sorts with the final signatures;
//! `ParallelSliceMut::par_sort*` (in `slice/mod.rs`) calls these three functions.

use std::cmp::Ordering;

/// Unstable parallel sort (quicksort) by a comparator.
#[allow(dead_code)]
pub(crate) fn par_sort_unstable_by<T, F>(v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    v.sort_unstable_by(compare)
}

/// Stable parallel sort (merge sort) by a comparator.
#[allow(dead_code)]
pub(crate) fn par_sort_by<T, F>(v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    v.sort_by(compare)
}

/// Stable parallel sort by a key computed once per element.
#[allow(dead_code)]
pub(crate) fn par_sort_by_cached_key<T, K, F>(v: &mut [T], f: F)
where
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
{
    v.sort_by_cached_key(f)
}
