//! `reduce`: each leaf folds its items onto `identity()`; neighbours are combined with the
//! same `op`, left operand first, so only associativity is needed.

use super::fold_items;
use crate::iter::ParallelIterator;
use crate::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

#[inline]
pub(crate) fn reduce<I, ID, OP>(par_iter: I, identity: &ID, op: &OP) -> I::Item
where
    I: ParallelIterator,
    ID: Fn() -> I::Item + Sync,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync,
{
    par_iter.drive_unindexed(ReduceConsumer { identity, op })
}

/// Folds onto `identity()` with `op` and reduces neighbours with `op`.
pub(crate) struct ReduceConsumer<'f, ID, OP> {
    identity: &'f ID,
    op: &'f OP,
}

impl<ID, OP> Clone for ReduceConsumer<'_, ID, OP> {
    fn clone(&self) -> Self {
        ReduceConsumer {
            identity: self.identity,
            op: self.op,
        }
    }
}

/// The running value of one leaf.
pub(crate) struct ReduceFolder<'f, T, OP> {
    op: &'f OP,
    acc: T,
}

impl<'f, T, ID, OP> Consumer<T> for ReduceConsumer<'f, ID, OP>
where
    T: Send,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
{
    type Folder = ReduceFolder<'f, T, OP>;
    type Reducer = Self;
    type Result = T;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self.clone(), self.clone(), self)
    }

    fn into_folder(self) -> ReduceFolder<'f, T, OP> {
        ReduceFolder {
            op: self.op,
            acc: (self.identity)(),
        }
    }

    fn full(&self) -> bool {
        false
    }

    /// The running value goes on (`identity` is not called again).
    fn continue_folder(self, folder: Self::Folder) -> Result<Self::Folder, (Self, Self::Folder)> {
        Ok(folder)
    }
}

impl<T, ID, OP> UnindexedConsumer<T> for ReduceConsumer<'_, ID, OP>
where
    T: Send,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
{
    fn split_off_left(&self) -> Self {
        self.clone()
    }

    fn to_reducer(&self) -> Self {
        self.clone()
    }
}

impl<T, ID, OP> Reducer<T> for ReduceConsumer<'_, ID, OP>
where
    OP: Fn(T, T) -> T,
{
    #[inline]
    fn reduce(self, left: T, right: T) -> T {
        (self.op)(left, right)
    }
}

impl<T, OP> Folder<T> for ReduceFolder<'_, T, OP>
where
    OP: Fn(T, T) -> T,
{
    type Result = T;

    fn consume(self, item: T) -> Self {
        let acc = (self.op)(self.acc, item);
        ReduceFolder { op: self.op, acc }
    }

    #[allow(clippy::redundant_closure)] // a direct call, not `&F`'s shim: see `MapIter`
    #[inline(always)] // into the leaf, like `ReduceWithFolder::consume_iter`
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        // A direct call, not `&OP`'s `FnMut` shim (see `MapIter`). `Iterator::fold`, not
        // `fold_items`: with an identity, `reduce(|| f64::NEG_INFINITY, f64::max)` is the
        // usual way to write an `f64` max, and LLVM vectorizes `fold`'s index loop over a
        // slice of `f64` with `maxpd`, where the `next` loop stays scalar (2.1x the time in an
        // interleaved run; Rayon's `reduce` folds this way too).
        let op = self.op;
        let acc = iter.into_iter().fold(self.acc, |acc, item| op(acc, item));
        ReduceFolder { op: self.op, acc }
    }

    fn complete(self) -> T {
        self.acc
    }

    fn full(&self) -> bool {
        false
    }
}

/// `reduce_with` with the caller's `op`: each leaf folds in the loop shape Rayon's does (an
/// `Option` test per item; see [`ReduceWithConsumer`] for why).
#[inline]
pub(crate) fn reduce_with<I, OP>(par_iter: I, op: &OP) -> Option<I::Item>
where
    I: ParallelIterator,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync,
{
    reduce_with_leaf_loop::<I, OP, false>(par_iter, op)
}

/// `reduce_with` whose leaves fold with the first item out of the loop when `FIRST_OUT`
/// ([`ReduceWithConsumer`]): `min`, `max` and their `_by_key` forms, whose comparisons weft
/// writes itself, pass `true`.
#[inline]
pub(crate) fn reduce_with_leaf_loop<I, OP, const FIRST_OUT: bool>(
    par_iter: I,
    op: &OP,
) -> Option<I::Item>
where
    I: ParallelIterator,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync,
{
    par_iter.drive_unindexed(ReduceWithConsumer::<OP, FIRST_OUT> { op })
}

/// `reduce_with`: like [`ReduceConsumer`] without an identity, so a leaf's running value is
/// `None` until its first item.
///
/// `FIRST_OUT` picks how a leaf folds a run of items; neither form is faster for every `op`
/// (the breadth kernels' figures are in `benches/RESULTS.md`):
/// - `true`: the first item is taken out of the loop, so the loop has no `Option` to test
///   (see `consume_iter`), which suits a comparison of plain values such as `max_by_key`
///   over `u64`. But when the items are references and `op` reads through them, LLVM may
///   carry the best item's value in a register beside its address and select both per
///   item, which makes a loop like `min_by(|a, b| a.abs().total_cmp(&b.abs()))` over
///   `&f64` slower than Rayon's although it runs fewer instructions.
/// - `false`: the running value stays an `Option` tested per item, as in Rayon's
///   `reduce_with` folder, so the leaf is Rayon's own loop.
///
/// So `min`, `max`, `min_by_key` and `max_by_key`, whose comparisons are `Ord::cmp` on an
/// item or a key, take the first item out; `reduce_with`, `min_by` and `max_by`, which run a
/// closure of the caller's, keep Rayon's loop.
struct ReduceWithConsumer<'f, OP, const FIRST_OUT: bool> {
    op: &'f OP,
}

impl<OP, const FIRST_OUT: bool> Clone for ReduceWithConsumer<'_, OP, FIRST_OUT> {
    fn clone(&self) -> Self {
        ReduceWithConsumer { op: self.op }
    }
}

/// The running value of one leaf, `None` before its first item.
struct ReduceWithFolder<'f, T, OP, const FIRST_OUT: bool> {
    op: &'f OP,
    acc: Option<T>,
}

impl<'f, T, OP, const FIRST_OUT: bool> Consumer<T> for ReduceWithConsumer<'f, OP, FIRST_OUT>
where
    T: Send,
    OP: Fn(T, T) -> T + Sync,
{
    type Folder = ReduceWithFolder<'f, T, OP, FIRST_OUT>;
    type Reducer = Self;
    type Result = Option<T>;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self.clone(), self.clone(), self)
    }

    fn into_folder(self) -> ReduceWithFolder<'f, T, OP, FIRST_OUT> {
        ReduceWithFolder {
            op: self.op,
            acc: None,
        }
    }

    fn full(&self) -> bool {
        false
    }

    /// The running value goes on.
    fn continue_folder(self, folder: Self::Folder) -> Result<Self::Folder, (Self, Self::Folder)> {
        Ok(folder)
    }
}

impl<T, OP, const FIRST_OUT: bool> UnindexedConsumer<T> for ReduceWithConsumer<'_, OP, FIRST_OUT>
where
    T: Send,
    OP: Fn(T, T) -> T + Sync,
{
    fn split_off_left(&self) -> Self {
        self.clone()
    }

    fn to_reducer(&self) -> Self {
        self.clone()
    }
}

impl<T, OP, const FIRST_OUT: bool> Reducer<Option<T>> for ReduceWithConsumer<'_, OP, FIRST_OUT>
where
    OP: Fn(T, T) -> T,
{
    #[inline]
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        match (left, right) {
            (Some(left), Some(right)) => Some((self.op)(left, right)),
            (left, None) => left,
            (None, right) => right,
        }
    }
}

impl<T, OP, const FIRST_OUT: bool> Folder<T> for ReduceWithFolder<'_, T, OP, FIRST_OUT>
where
    OP: Fn(T, T) -> T,
{
    type Result = Option<T>;

    fn consume(self, item: T) -> Self {
        let acc = match self.acc {
            Some(acc) => (self.op)(acc, item),
            None => item,
        };
        ReduceWithFolder {
            op: self.op,
            acc: Some(acc),
        }
    }

    /// With `FIRST_OUT`, takes the first item out of the loop and runs the loop
    /// ([`fold_items`]) from one of two places, one for a folder that already has a value
    /// and one for a fresh folder: with a single loop entered from both, its start pointer
    /// was a merge of the two and LLVM neither unrolled it nor turned its `cmov` into
    /// branches (a `cmov` adds a dependency per item). Without it, Rayon's loop: an
    /// `Option` per item ([`ReduceWithConsumer`] says when each is faster).
    ///
    /// Always inlined: LLVM unrolls the `next()` loop only where it knows the slice's
    /// length, which is in the leaf function that made the slice iterator (`fold_leaf`);
    /// a `consume_iter` left out of line receives only the iterator's two pointers (a
    /// bench build did that, and the loop stayed a 7-instruction `cmov` loop).
    #[inline(always)]
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let op = self.op;
        let mut iter = iter.into_iter();
        if !FIRST_OUT {
            let acc = fold_items(iter, self.acc, |acc, item| {
                Some(match acc {
                    Some(acc) => op(acc, item),
                    None => item,
                })
            });
            return ReduceWithFolder { op, acc };
        }
        let acc = match self.acc {
            Some(acc) => fold_items(iter, acc, op),
            None => match iter.next() {
                Some(first) => fold_items(iter, first, op),
                None => return self,
            },
        };
        ReduceWithFolder { op, acc: Some(acc) }
    }

    fn complete(self) -> Option<T> {
        self.acc
    }

    fn full(&self) -> bool {
        false
    }
}
