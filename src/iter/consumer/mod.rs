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

use std::convert::Infallible;

use crate::iter::private::Try;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The leaf loop of the reducing folders (`reduce`, `reduce_with`, `min`/`max` and their
/// `_by`/`_by_key` forms, `fold`): `op` applied to `init` and every item of `iter`, in order.
///
/// Driven by `Iterator::try_fold` with a closure that never breaks, not by `fold`: std's
/// composite iterators (`Chain`, `FlatMap`, `Flatten`, `Copied`, `Map`) still loop
/// internally, but a slice's items come through `next`, which LLVM compiles to a loop it
/// unrolls eight times and whose compare-and-select it turns into predicted branches. A
/// slice's own `fold` is an index loop that LLVM vectorizes instead, and on the x86-64
/// baseline (SSE2, which has no 64-bit compare) a `u64` or `i64` max vectorized that way
/// is several times slower than the branches (Rayon's folder gets the same branches through
/// `take_while`). Sums and other arithmetic
/// reductions vectorize in both forms alike.
#[inline(always)]
pub(crate) fn fold_items<I, B>(mut iter: I, init: B, mut op: impl FnMut(B, I::Item) -> B) -> B
where
    I: Iterator,
{
    match iter.try_fold(init, |acc, item| Ok::<B, Infallible>(op(acc, item))) {
        Ok(acc) => acc,
        Err(never) => match never {},
    }
}

pub(crate) fn collect_into_vec<I: IndexedParallelIterator>(par_iter: I, target: &mut Vec<I::Item>) {
    target.clear();
    let len = par_iter.len();
    collect::extend_vec_exact(target, len, |slots| par_iter.drive(slots));
}

pub(crate) fn try_for_each<I, R, OP>(par_iter: I, op: OP) -> R
where
    I: ParallelIterator,
    OP: Fn(I::Item) -> R + Sync + Send,
    R: Try<Output = ()> + Send,
{
    try_reduce::try_reduce(par_iter.map(op), &|| (), &|(), ()| R::from_output(()))
}

pub(crate) fn any<I, P>(par_iter: I, predicate: P) -> bool
where
    I: ParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    find::find_map_any(par_iter.map(move |item| predicate(item).then_some(()))).is_some()
}

pub(crate) fn all<I, P>(par_iter: I, predicate: P) -> bool
where
    I: ParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    !any(par_iter, move |item| !predicate(item))
}

/// `Some(item)` if `predicate(&item)`.
fn keep_if<T>(predicate: &impl Fn(&T) -> bool, item: T) -> Option<T> {
    if predicate(&item) {
        Some(item)
    } else {
        None
    }
}

pub(crate) fn find_any<I, P>(par_iter: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    find::find_map_any(par_iter.map(move |item| keep_if(&predicate, item)))
}

pub(crate) fn find_first<I, P>(par_iter: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    find::find_map_first(par_iter.map(move |item| keep_if(&predicate, item)))
}

pub(crate) fn find_last<I, P>(par_iter: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    find::find_map_last(par_iter.map(move |item| keep_if(&predicate, item)))
}

/// Which match a `position_*` wants.
pub(crate) enum Which {
    Any,
    First,
    Last,
}

/// `predicate` is taken by value, so that the search loop's closure owns it (one reference
/// less to follow per item; with `&P`, LLVM could leave the search's `try_fold` out of
/// line).
pub(crate) fn position<I, P>(par_iter: I, predicate: P, which: Which) -> Option<usize>
where
    I: IndexedParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    let matches = par_iter
        .enumerate()
        .map(move |(index, item)| predicate(item).then_some(index));
    match which {
        Which::Any => find::find_map_any(matches),
        Which::First => find::find_map_first(matches),
        Which::Last => find::find_map_last(matches),
    }
}
