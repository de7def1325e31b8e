//! Terminal operations. Each file defines the consumer, folder and reducer it drives; the
//! small ones that are compositions of others live here.

pub(crate) mod collect; // collect into Vec (spare capacity) or a list of vectors
pub(crate) mod compare; // cmp, partial_cmp, eq
pub(crate) mod find; // find_map_any / first / last
pub(crate) mod for_each; // for_each
pub(crate) mod min_max; // min, max, *_by, *_by_key
pub(crate) mod reduce; // reduce, reduce_with
pub(crate) mod sum_product; // sum, product, count
pub(crate) mod try_reduce; // try_reduce, try_reduce_with
pub(crate) mod unzip; // unzip, partition, partition_map

use crate::iter::private::Try;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

pub(crate) fn collect_into_vec<I: IndexedParallelIterator>(par_iter: I, target: &mut Vec<I::Item>) {
    target.clear();
    let len = par_iter.len();
    collect::extend_vec_exact(target, len, |slots| par_iter.drive(slots));
}

pub(crate) fn try_for_each<I, R, OP>(par_iter: I, op: &OP) -> R
where
    I: ParallelIterator,
    OP: Fn(I::Item) -> R + Sync,
    R: Try<Output = ()> + Send,
{
    try_reduce::try_reduce(par_iter.map(op), &|| (), &|(), ()| R::from_output(()))
}

pub(crate) fn any<I, P>(par_iter: I, predicate: &P) -> bool
where
    I: ParallelIterator,
    P: Fn(I::Item) -> bool + Sync,
{
    find::find_map_any(par_iter.map(|item| predicate(item).then_some(()))).is_some()
}

pub(crate) fn all<I, P>(par_iter: I, predicate: &P) -> bool
where
    I: ParallelIterator,
    P: Fn(I::Item) -> bool + Sync,
{
    !any(par_iter, &|item| !predicate(item))
}

/// `Some(item)` if `predicate(&item)`.
fn keep_if<T>(predicate: &impl Fn(&T) -> bool, item: T) -> Option<T> {
    if predicate(&item) {
        Some(item)
    } else {
        None
    }
}

pub(crate) fn find_any<I, P>(par_iter: I, predicate: &P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    find::find_map_any(par_iter.map(|item| keep_if(predicate, item)))
}

pub(crate) fn find_first<I, P>(par_iter: I, predicate: &P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    find::find_map_first(par_iter.map(|item| keep_if(predicate, item)))
}

pub(crate) fn find_last<I, P>(par_iter: I, predicate: &P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    find::find_map_last(par_iter.map(|item| keep_if(predicate, item)))
}

/// Which match a `position_*` wants.
pub(crate) enum Which {
    Any,
    First,
    Last,
}

/// `predicate` is taken by value, so that the search loop's closure owns it (one reference
/// less to follow per item; with `&P`, `position_any` came out 40% above Rayon in
/// instructions on one build, its `try_fold` not inlined).
pub(crate) fn position<I, P>(par_iter: I, predicate: P, which: Which) -> Option<usize>
where
    I: IndexedParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    let matches = par_iter
        .enumerate()
        .map(|(index, item)| predicate(item).then_some(index));
    match which {
        Which::Any => find::find_map_any(matches),
        Which::First => find::find_map_first(matches),
        Which::Last => find::find_map_last(matches),
    }
}
