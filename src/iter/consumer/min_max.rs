//! `min`/`max` and their `_by`/`_by_key` forms: a `reduce_with` that keeps the first
//! minimum and the last maximum, like `Iterator::min`/`max`. The forms that compare with
//! `Ord::cmp` fold their leaves with the first item out of the loop, the `_by` forms (a
//! comparator of the caller's) in Rayon's loop: `ReduceWithConsumer` in `reduce.rs` says why.

use std::cmp::Ordering;

use crate::iter::ParallelIterator;

use super::reduce::{reduce_with, reduce_with_leaf_loop};

/// The leaf loop for comparisons by `Ord::cmp` (`reduce.rs`, `ReduceWithConsumer`).
const FIRST_OUT: bool = true;

#[inline]
pub(crate) fn min<I>(par_iter: I) -> Option<I::Item>
where
    I: ParallelIterator,
    I::Item: Ord,
{
    reduce_with_leaf_loop::<_, _, FIRST_OUT>(par_iter, &|a, b| keep_first_min(&Ord::cmp, a, b))
}

#[inline]
pub(crate) fn max<I>(par_iter: I) -> Option<I::Item>
where
    I: ParallelIterator,
    I::Item: Ord,
{
    reduce_with_leaf_loop::<_, _, FIRST_OUT>(par_iter, &|a, b| keep_last_max(&Ord::cmp, a, b))
}

/// The smaller of `a` and `b` by `compare`, `a` (the earlier one) if they are equal.
#[inline]
fn keep_first_min<T>(compare: &impl Fn(&T, &T) -> Ordering, a: T, b: T) -> T {
    match compare(&a, &b) {
        Ordering::Greater => b,
        _ => a,
    }
}

/// The larger of `a` and `b` by `compare`, `b` (the later one) if they are equal.
#[inline]
fn keep_last_max<T>(compare: &impl Fn(&T, &T) -> Ordering, a: T, b: T) -> T {
    match compare(&a, &b) {
        Ordering::Greater => a,
        _ => b,
    }
}

#[inline]
pub(crate) fn min_by<I, F>(par_iter: I, compare: F) -> Option<I::Item>
where
    I: ParallelIterator,
    F: Fn(&I::Item, &I::Item) -> Ordering + Sync,
{
    reduce_with(par_iter, &move |a, b| keep_first_min(&compare, a, b))
}

#[inline]
pub(crate) fn max_by<I, F>(par_iter: I, compare: F) -> Option<I::Item>
where
    I: ParallelIterator,
    F: Fn(&I::Item, &I::Item) -> Ordering + Sync,
{
    reduce_with(par_iter, &move |a, b| keep_last_max(&compare, a, b))
}

#[inline]
pub(crate) fn min_by_key<I, K, F>(par_iter: I, key: F) -> Option<I::Item>
where
    I: ParallelIterator,
    K: Ord + Send,
    F: Fn(&I::Item) -> K + Sync + Send,
{
    let keyed = par_iter.map(move |item| (key(&item), item));
    let first_min = |a, b| keep_first_min(&|a: &(K, _), b: &(K, _)| a.0.cmp(&b.0), a, b);
    reduce_with_leaf_loop::<_, _, FIRST_OUT>(keyed, &first_min).map(|(_, item)| item)
}

#[inline]
pub(crate) fn max_by_key<I, K, F>(par_iter: I, key: F) -> Option<I::Item>
where
    I: ParallelIterator,
    K: Ord + Send,
    F: Fn(&I::Item) -> K + Sync + Send,
{
    let keyed = par_iter.map(move |item| (key(&item), item));
    let last_max = |a, b| keep_last_max(&|a: &(K, _), b: &(K, _)| a.0.cmp(&b.0), a, b);
    reduce_with_leaf_loop::<_, _, FIRST_OUT>(keyed, &last_max).map(|(_, item)| item)
}
