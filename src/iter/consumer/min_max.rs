//! `min`/`max` and their `_by`/`_by_key` forms: a `reduce_with` that keeps the first
//! minimum and the last maximum, like `Iterator::min`/`max`.

use std::cmp::Ordering;

use crate::iter::ParallelIterator;

pub(crate) fn min_by<I, F>(par_iter: I, compare: &F) -> Option<I::Item>
where
    I: ParallelIterator,
    F: Fn(&I::Item, &I::Item) -> Ordering + Sync,
{
    par_iter.reduce_with(|a, b| match compare(&a, &b) {
        Ordering::Greater => b,
        _ => a,
    })
}

pub(crate) fn max_by<I, F>(par_iter: I, compare: &F) -> Option<I::Item>
where
    I: ParallelIterator,
    F: Fn(&I::Item, &I::Item) -> Ordering + Sync,
{
    par_iter.reduce_with(|a, b| match compare(&a, &b) {
        Ordering::Greater => a,
        _ => b,
    })
}

pub(crate) fn min_by_key<I, K, F>(par_iter: I, key: &F) -> Option<I::Item>
where
    I: ParallelIterator,
    K: Ord + Send,
    F: Fn(&I::Item) -> K + Sync,
{
    let keyed = par_iter.map(|item| (key(&item), item));
    min_by(keyed, &|a: &(K, I::Item), b: &(K, I::Item)| a.0.cmp(&b.0)).map(|(_, item)| item)
}

pub(crate) fn max_by_key<I, K, F>(par_iter: I, key: &F) -> Option<I::Item>
where
    I: ParallelIterator,
    K: Ord + Send,
    F: Fn(&I::Item) -> K + Sync,
{
    let keyed = par_iter.map(|item| (key(&item), item));
    max_by(keyed, &|a: &(K, I::Item), b: &(K, I::Item)| a.0.cmp(&b.0)).map(|(_, item)| item)
}
