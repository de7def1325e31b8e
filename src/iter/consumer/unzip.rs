//! `unzip`, `partition` and `partition_map`: one pass over the iterator feeds two
//! collections at once.
//!
//! The two collections are extended through their own `ParallelExtend` impls, nested: the
//! left one is extended by [`UnzipA`], whose `drive_unindexed` receives the left
//! collection's consumer and extends the right collection by [`UnzipB`]; that one receives
//! the right consumer and finally drives the real iterator into an [`UnzipConsumer`] that
//! feeds each item's parts to both. So each side gets exactly the consumer it would get
//! from a plain `par_extend`: a `Vec` with a known length (`unzip` of an indexed iterator)
//! is written in place, in parallel, with no intermediate copy; `partition`'s sides,
//! whose lengths are unknown, collect per-piece vectors like any unindexed extend.

use either::Either;

use crate::iter::{ParallelExtend, ParallelIterator};
use crate::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

pub(crate) fn partition_map<I, A, B, FA, FB, F>(par_iter: I, split: &F) -> (FA, FB)
where
    I: ParallelIterator,
    A: Send,
    B: Send,
    FA: Default + Send + ParallelExtend<A>,
    FB: Default + Send + ParallelExtend<B>,
    F: Fn(I::Item) -> Either<A, B> + Sync,
{
    execute(par_iter, Partition(split))
}

pub(crate) fn unzip<I, A, B, FA, FB>(par_iter: I) -> (FA, FB)
where
    I: ParallelIterator<Item = (A, B)>,
    A: Send,
    B: Send,
    FA: Default + Send + ParallelExtend<A>,
    FB: Default + Send + ParallelExtend<B>,
{
    execute(par_iter, Unzip)
}

/// `unzip_into_vecs`: appends the pairs' parts to `left` and `right` (written in place).
pub(crate) fn unzip_into<I, A, B, FA, FB>(par_iter: I, left: &mut FA, right: &mut FB)
where
    I: ParallelIterator<Item = (A, B)>,
    A: Send,
    B: Send,
    FA: Send + ParallelExtend<A>,
    FB: Send + ParallelExtend<B>,
{
    extend_both(par_iter, Unzip, left, right)
}

/// `ParallelExtend<Either<A, B>>` for a pair: appends the `Left`s to `left` and the
/// `Right`s to `right`.
pub(crate) fn partition_into<I, A, B, FA, FB>(par_iter: I, left: &mut FA, right: &mut FB)
where
    I: ParallelIterator<Item = Either<A, B>>,
    A: Send,
    B: Send,
    FA: Send + ParallelExtend<A>,
    FB: Send + ParallelExtend<B>,
{
    extend_both(par_iter, Partition(&std::convert::identity), left, right)
}

fn execute<I, OP, FA, FB>(par_iter: I, op: OP) -> (FA, FB)
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    FA: Default + Send + ParallelExtend<OP::Left>,
    FB: Default + Send + ParallelExtend<OP::Right>,
{
    let (mut left, mut right) = (FA::default(), FB::default());
    extend_both(par_iter, op, &mut left, &mut right);
    (left, right)
}

/// One pass over `par_iter` extends `left` and `right` with the parts `op` divides each
/// item into.
fn extend_both<I, OP, FA, FB>(par_iter: I, op: OP, left: &mut FA, right: &mut FB)
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    FA: Send + ParallelExtend<OP::Left>,
    FB: Send + ParallelExtend<OP::Right>,
{
    left.par_extend(UnzipA {
        base: par_iter,
        op,
        right,
    });
}

/// How an item is divided between the two sides.
trait UnzipOp<T>: Sync + Send {
    type Left: Send;
    type Right: Send;

    /// Feeds the parts of `item` to the folders they belong to.
    fn consume<FA, FB>(&self, item: T, left: FA, right: FB) -> (FA, FB)
    where
        FA: Folder<Self::Left>,
        FB: Folder<Self::Right>;

    /// True if every item gives each side exactly one value (so the sides have the base's
    /// length and may be collected in place).
    fn each_item_feeds_both(&self) -> bool;
}

/// `unzip`: a pair feeds its first part left and its second part right.
struct Unzip;

impl<A: Send, B: Send> UnzipOp<(A, B)> for Unzip {
    type Left = A;
    type Right = B;

    fn consume<FA, FB>(&self, (a, b): (A, B), left: FA, right: FB) -> (FA, FB)
    where
        FA: Folder<A>,
        FB: Folder<B>,
    {
        (left.consume(a), right.consume(b))
    }

    fn each_item_feeds_both(&self) -> bool {
        true
    }
}

/// `partition_map`: the closure's `Either` says which side gets the item.
struct Partition<'f, F>(&'f F);

impl<T, A, B, F> UnzipOp<T> for Partition<'_, F>
where
    A: Send,
    B: Send,
    F: Fn(T) -> Either<A, B> + Sync,
{
    type Left = A;
    type Right = B;

    fn consume<FA, FB>(&self, item: T, left: FA, right: FB) -> (FA, FB)
    where
        FA: Folder<A>,
        FB: Folder<B>,
    {
        match (self.0)(item) {
            Either::Left(a) => (left.consume(a), right),
            Either::Right(b) => (left, right.consume(b)),
        }
    }

    fn each_item_feeds_both(&self) -> bool {
        false
    }
}

/// The length of each side: the base's, if every item feeds both sides.
fn side_len<I: ParallelIterator, OP: UnzipOp<I::Item>>(base: &I, op: &OP) -> Option<usize> {
    if op.each_item_feeds_both() {
        base.opt_len()
    } else {
        None
    }
}

/// The left side as a parallel iterator: driving it extends the right side.
struct UnzipA<'r, I, OP, FB> {
    base: I,
    op: OP,
    right: &'r mut FB,
}

impl<I, OP, FB> ParallelIterator for UnzipA<'_, I, OP, FB>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    FB: Send + ParallelExtend<OP::Right>,
{
    type Item = OP::Left;

    fn drive_unindexed<C>(self, left: C) -> C::Result
    where
        C: UnindexedConsumer<OP::Left>,
    {
        let mut left_result = None;
        self.right.par_extend(UnzipB {
            base: self.base,
            op: self.op,
            left,
            left_result: &mut left_result,
        });
        left_result.expect("the right side's `par_extend` drives the iterator exactly once")
    }

    fn opt_len(&self) -> Option<usize> {
        side_len(&self.base, &self.op)
    }
}

/// The right side as a parallel iterator, holding the left side's consumer: driving it
/// drives the real iterator into both consumers at once.
struct UnzipB<'l, I, OP, CA>
where
    CA: Consumer<OP::Left>,
    OP: UnzipOp<I::Item>,
    I: ParallelIterator,
{
    base: I,
    op: OP,
    left: CA,
    left_result: &'l mut Option<CA::Result>,
}

impl<I, OP, CA> ParallelIterator for UnzipB<'_, I, OP, CA>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    CA: UnindexedConsumer<OP::Left>,
{
    type Item = OP::Right;

    fn drive_unindexed<C>(self, right: C) -> C::Result
    where
        C: UnindexedConsumer<OP::Right>,
    {
        let consumer = UnzipConsumer {
            op: &self.op,
            left: self.left,
            right,
        };
        let (left, right) = self.base.drive_unindexed(consumer);
        *self.left_result = Some(left);
        right
    }

    fn opt_len(&self) -> Option<usize> {
        side_len(&self.base, &self.op)
    }
}

/// Splits both consumers at the same places and feeds each item's parts to both.
struct UnzipConsumer<'o, OP, CA, CB> {
    op: &'o OP,
    left: CA,
    right: CB,
}

impl<OP, CA, CB> UnzipConsumer<'_, OP, CA, CB> {
    /// Splits both sides at the same place (`split_at` or `split_at_sized`).
    fn split_both<RA, RB>(
        self,
        split_left: impl FnOnce(CA) -> (CA, CA, RA),
        split_right: impl FnOnce(CB) -> (CB, CB, RB),
    ) -> (Self, Self, UnzipReducer<RA, RB>) {
        let (left_lower, left_upper, left_reducer) = split_left(self.left);
        let (right_lower, right_upper, right_reducer) = split_right(self.right);
        let op = self.op;
        (
            UnzipConsumer {
                op,
                left: left_lower,
                right: right_lower,
            },
            UnzipConsumer {
                op,
                left: left_upper,
                right: right_upper,
            },
            UnzipReducer(left_reducer, right_reducer),
        )
    }
}

impl<'o, T, OP, CA, CB> Consumer<T> for UnzipConsumer<'o, OP, CA, CB>
where
    OP: UnzipOp<T>,
    CA: Consumer<OP::Left>,
    CB: Consumer<OP::Right>,
{
    type Folder = UnzipFolder<'o, OP, CA::Folder, CB::Folder>;
    type Reducer = UnzipReducer<CA::Reducer, CB::Reducer>;
    type Result = (CA::Result, CB::Result);

    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer) {
        self.split_both(|left| left.split_at(index), |right| right.split_at(index))
    }

    fn split_at_sized(self, index: usize, len: usize) -> (Self, Self, Self::Reducer) {
        self.split_both(
            |left| left.split_at_sized(index, len),
            |right| right.split_at_sized(index, len),
        )
    }

    fn into_folder(self) -> Self::Folder {
        UnzipFolder {
            op: self.op,
            left: self.left.into_folder(),
            right: self.right.into_folder(),
        }
    }

    fn full(&self) -> bool {
        // Either side may still want items while the other does not.
        self.left.full() && self.right.full()
    }
}

impl<T, OP, CA, CB> UnindexedConsumer<T> for UnzipConsumer<'_, OP, CA, CB>
where
    OP: UnzipOp<T>,
    CA: UnindexedConsumer<OP::Left>,
    CB: UnindexedConsumer<OP::Right>,
{
    fn split_off_left(&self) -> Self {
        UnzipConsumer {
            op: self.op,
            left: self.left.split_off_left(),
            right: self.right.split_off_left(),
        }
    }

    fn to_reducer(&self) -> Self::Reducer {
        UnzipReducer(self.left.to_reducer(), self.right.to_reducer())
    }
}

/// The two folders of one piece.
struct UnzipFolder<'o, OP, FA, FB> {
    op: &'o OP,
    left: FA,
    right: FB,
}

impl<T, OP, FA, FB> Folder<T> for UnzipFolder<'_, OP, FA, FB>
where
    OP: UnzipOp<T>,
    FA: Folder<OP::Left>,
    FB: Folder<OP::Right>,
{
    type Result = (FA::Result, FB::Result);

    const MAY_STOP_EARLY: bool = FA::MAY_STOP_EARLY && FB::MAY_STOP_EARLY;

    fn consume(self, item: T) -> Self {
        let (left, right) = self.op.consume(item, self.left, self.right);
        UnzipFolder {
            op: self.op,
            left,
            right,
        }
    }

    fn complete(self) -> Self::Result {
        (self.left.complete(), self.right.complete())
    }

    fn full(&self) -> bool {
        self.left.full() && self.right.full()
    }
}

/// Reduces each side with its own reducer.
pub(crate) struct UnzipReducer<RA, RB>(RA, RB);

impl<A, B, RA, RB> Reducer<(A, B)> for UnzipReducer<RA, RB>
where
    RA: Reducer<A>,
    RB: Reducer<B>,
{
    fn reduce(self, left: (A, B), right: (A, B)) -> (A, B) {
        (
            self.0.reduce(left.0, right.0),
            self.1.reduce(left.1, right.1),
        )
    }
}
