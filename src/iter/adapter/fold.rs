//! `fold` and `fold_with`: each piece folds its items into one accumulator, which becomes
//! one item of the output (so the output has one item per piece, in order).

use std::fmt;

use super::state::{CloneState, InitState, StateSource};
use crate::iter::plumbing::*;
use crate::iter::ParallelIterator;

/// The iterator returned by [`ParallelIterator::fold`].
///
/// ```
/// use weft::prelude::*;
///
/// let total: u32 = (1..=100u32).into_par_iter().fold(|| 0, |acc, x| acc + x).sum();
/// assert_eq!(total, 5050);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Fold<I, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
}

impl<I: fmt::Debug, ID, F> fmt::Debug for Fold<I, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fold").field("base", &self.base).finish()
    }
}

impl<I, ID, F> Fold<I, ID, F> {
    pub(crate) fn new(base: I, identity: ID, fold_op: F) -> Self {
        Fold {
            base,
            identity,
            fold_op,
        }
    }
}

impl<U, I, ID, F> ParallelIterator for Fold<I, ID, F>
where
    I: ParallelIterator,
    F: Fn(U, I::Item) -> U + Sync + Send,
    ID: Fn() -> U + Sync + Send,
    U: Send,
{
    type Item = U;

    fn drive_unindexed<C: UnindexedConsumer<U>>(self, consumer: C) -> C::Result {
        let (source, op) = (InitState(&self.identity), &self.fold_op);
        self.base.drive_unindexed(FoldConsumer {
            base: consumer,
            source,
            op,
        })
    }
}

/// The iterator returned by [`ParallelIterator::fold_with`].
///
/// ```
/// use weft::prelude::*;
///
/// let lists: Vec<Vec<i32>> = (0..3).into_par_iter().fold_with(Vec::new(), |mut v, x| { v.push(x); v }).collect();
/// assert_eq!(lists.concat(), [0, 1, 2]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FoldWith<I, U, F> {
    base: I,
    item: U,
    fold_op: F,
}

impl<I: fmt::Debug, U: fmt::Debug, F> fmt::Debug for FoldWith<I, U, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, U, F> FoldWith<I, U, F> {
    pub(crate) fn new(base: I, item: U, fold_op: F) -> Self {
        FoldWith {
            base,
            item,
            fold_op,
        }
    }
}

impl<U, I, F> ParallelIterator for FoldWith<I, U, F>
where
    I: ParallelIterator,
    F: Fn(U, I::Item) -> U + Sync + Send,
    U: Send + Clone,
{
    type Item = U;

    fn drive_unindexed<C: UnindexedConsumer<U>>(self, consumer: C) -> C::Result {
        let pristine = std::sync::Mutex::new(self.item);
        let (source, op) = (CloneState(&pristine), &self.fold_op);
        self.base.drive_unindexed(FoldConsumer {
            base: consumer,
            source,
            op,
        })
    }
}

/// Folds a piece into the state from `source`, then passes the result downstream.
struct FoldConsumer<'f, C, S, F> {
    base: C,
    source: S,
    op: &'f F,
}

impl<C, S: StateSource, F> FoldConsumer<'_, C, S, F> {
    /// Splits the base consumer with `split` (`split_at` or `split_at_sized`) and wraps
    /// each piece.
    fn split_base<Red>(self, split: impl FnOnce(C) -> (C, C, Red)) -> (Self, Self, Red) {
        let (left, right, reducer) = split(self.base);
        let (op, left_source) = (self.op, self.source.split());
        let left = FoldConsumer {
            base: left,
            source: left_source,
            op,
        };
        (
            left,
            FoldConsumer {
                base: right,
                source: self.source,
                op,
            },
            reducer,
        )
    }
}

impl<'f, T, C, S, F> Consumer<T> for FoldConsumer<'f, C, S, F>
where
    C: Consumer<S::State>,
    S: StateSource,
    F: Fn(S::State, T) -> S::State + Sync,
{
    type Folder = FoldFolder<'f, C, S::State, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    super::splits_through_base!();

    fn into_folder(self) -> Self::Folder {
        let acc = self.source.into_state();
        FoldFolder {
            base: self.base,
            acc,
            op: self.op,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }

    /// The accumulator goes on over this piece's items too. The fold then yields one item
    /// for both pieces, into the lower piece's consumer; this piece's downstream consumer is
    /// dropped unused, exactly as if its piece had yielded no item (fold is unindexed, so
    /// downstream consumers accept any number of items).
    fn continue_folder(self, folder: Self::Folder) -> Result<Self::Folder, (Self, Self::Folder)> {
        Ok(folder)
    }
}

impl<T, C, S, F> UnindexedConsumer<T> for FoldConsumer<'_, C, S, F>
where
    C: UnindexedConsumer<S::State>,
    S: StateSource,
    F: Fn(S::State, T) -> S::State + Sync,
{
    fn split_off_left(&self) -> Self {
        let (base, source) = (self.base.split_off_left(), self.source.split());
        FoldConsumer {
            base,
            source,
            op: self.op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FoldFolder<'f, C, U, F> {
    base: C,
    acc: U,
    op: &'f F,
}

impl<T, C, U, F> Folder<T> for FoldFolder<'_, C, U, F>
where
    C: Consumer<U>,
    F: Fn(U, T) -> U,
{
    type Result = C::Result;

    fn consume(self, item: T) -> Self {
        let acc = (self.op)(self.acc, item);
        FoldFolder { acc, ..self }
    }

    #[allow(clippy::redundant_closure)] // a direct call, not `&F`'s shim: see `MapIter`
    #[inline(always)] // into the leaf: see `ReduceWithFolder::consume_iter`
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        // A direct call, not `&F`'s `FnMut` shim (see `MapIter`): with the shim, collecting
        // chars into a `String` called it per char, out of line. `try_fold` (`fold_items`),
        // neither `fold` nor a `for` loop: `fold` vectorized a `u64` max over a slice into
        // slow SSE2 code (see `fold_items`), and a `for` loop drove nested iterators by
        // `next` (`flat_map_iter(..).fold(..)`: 8.0M instead of 3.6M instructions, breadth
        // kernel `flat_map_iter_fold`), where `try_fold` loops inside them.
        let op = self.op;
        let acc = crate::iter::consumer::fold_items(iter.into_iter(), self.acc, |acc, item| {
            op(acc, item)
        });
        FoldFolder { acc, ..self }
    }

    fn complete(self) -> C::Result {
        self.base.into_folder().consume(self.acc).complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
