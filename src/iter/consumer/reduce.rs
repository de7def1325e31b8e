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
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        // A direct call, not `&OP`'s `FnMut` shim (see `MapIter`).
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

pub(crate) fn reduce_with<I, OP>(par_iter: I, op: &OP) -> Option<I::Item>
where
    I: ParallelIterator,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync,
{
    par_iter.drive_unindexed(ReduceWithConsumer::<OP, false> { op })
}

/// [`reduce_with`] whose leaves run a `for` loop over their items instead of handing them
/// to the source's `Iterator::fold` (see [`ReduceWithFolder::consume_iter`]): for `min`
/// and `max`.
pub(crate) fn reduce_with_loop<I, OP>(par_iter: I, op: &OP) -> Option<I::Item>
where
    I: ParallelIterator,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync,
{
    par_iter.drive_unindexed(ReduceWithConsumer::<OP, true> { op })
}

/// `reduce_with`: like [`ReduceConsumer`] without an identity, so a leaf's running value is
/// `None` until its first item. With `LOOP`, leaves fold with a `for` loop rather than
/// `Iterator::fold`.
struct ReduceWithConsumer<'f, OP, const LOOP: bool> {
    op: &'f OP,
}

impl<OP, const LOOP: bool> Clone for ReduceWithConsumer<'_, OP, LOOP> {
    fn clone(&self) -> Self {
        ReduceWithConsumer { op: self.op }
    }
}

/// The running value of one leaf, `None` before its first item.
struct ReduceWithFolder<'f, T, OP, const LOOP: bool> {
    op: &'f OP,
    acc: Option<T>,
}

impl<'f, T, OP, const LOOP: bool> Consumer<T> for ReduceWithConsumer<'f, OP, LOOP>
where
    T: Send,
    OP: Fn(T, T) -> T + Sync,
{
    type Folder = ReduceWithFolder<'f, T, OP, LOOP>;
    type Reducer = Self;
    type Result = Option<T>;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self.clone(), self.clone(), self)
    }

    fn into_folder(self) -> ReduceWithFolder<'f, T, OP, LOOP> {
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

impl<T, OP, const LOOP: bool> UnindexedConsumer<T> for ReduceWithConsumer<'_, OP, LOOP>
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

impl<T, OP, const LOOP: bool> Reducer<Option<T>> for ReduceWithConsumer<'_, OP, LOOP>
where
    OP: Fn(T, T) -> T,
{
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        match (left, right) {
            (Some(left), Some(right)) => Some((self.op)(left, right)),
            (left, None) => left,
            (None, right) => right,
        }
    }
}

impl<T, OP, const LOOP: bool> Folder<T> for ReduceWithFolder<'_, T, OP, LOOP>
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

    /// Takes the first item out of the loop, so that the loop itself has no `Option` to
    /// test per item (`max` on `u64`s: half the instructions). Then, by default, the
    /// source's own `Iterator::fold` drives the rest (internal iteration: a slice or an
    /// `enumerate` loops by index). Against a `for` loop here, at 1 thread (instructions
    /// under callgrind; weft time / Rayon time in two alternating runs):
    /// `enumerate().max_by_key()` 2.00M → 1.70M (Rayon 2.00M), 1.16–1.19 → 0.94–0.95;
    /// `map().reduce_with(max)` 2.20M → 1.70M (Rayon 2.20M), 0.95–1.05 → 0.88–0.96.
    /// But `copied().max()` on `u64` went from 1.40M to 1.85M instructions and from
    /// 0.91–1.06 to 1.13–1.36 of Rayon's time: LLVM vectorizes that fold with SSE2 compares
    /// that emulate an unsigned 64-bit max, slower than the scalar `cmov` loop. So `min` and
    /// `max` by `Ord` (where such element types meet) keep the `for` loop (`LOOP`). Which
    /// form wins has flipped between builds before: an earlier build kept `max_by_key`'s
    /// 24-byte accumulator on the stack in the `fold` form, 4x slower.
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let mut iter = iter.into_iter();
        let Some(mut acc) = self.acc.or_else(|| iter.next()) else {
            return ReduceWithFolder {
                op: self.op,
                acc: None,
            };
        };
        let op = self.op;
        if LOOP {
            for item in iter {
                acc = op(acc, item);
            }
        } else {
            acc = iter.fold(acc, op);
        }
        ReduceWithFolder {
            op: self.op,
            acc: Some(acc),
        }
    }

    fn complete(self) -> Option<T> {
        self.acc
    }

    fn full(&self) -> bool {
        false
    }
}
