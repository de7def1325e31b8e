//! `reduce`: each leaf folds its items onto `identity()`; neighbours are combined with the
//! same `op`, left operand first, so only associativity is needed.

use crate::iter::ParallelIterator;
use crate::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

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
    fn continue_folder(
        self,
        folder: ReduceFolder<'f, T, OP>,
    ) -> Result<ReduceFolder<'f, T, OP>, (Self, ReduceFolder<'f, T, OP>)> {
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

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let acc = iter.into_iter().fold(self.acc, self.op);
        ReduceFolder { op: self.op, acc }
    }

    fn complete(self) -> T {
        self.acc
    }

    fn full(&self) -> bool {
        false
    }
}

pub(crate) fn reduce_with<I, OP>(par_iter: I, op: &OP) -> Option<I::Item>
where
    I: ParallelIterator,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync,
{
    let combine = |left: Option<I::Item>, right: Option<I::Item>| match (left, right) {
        (Some(left), Some(right)) => Some(op(left, right)),
        (left, None) => left,
        (None, right) => right,
    };
    reduce(par_iter.map(Some), &|| None, &combine)
}
