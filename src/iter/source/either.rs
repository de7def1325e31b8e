//! `Either<L, R>` of two parallel iterators with the same item type is a parallel iterator
//! (indexed if both sides are), as in Rayon.

use either::Either;

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Runs whichever side is present.
///
/// ```
/// use weft::iter::Either;
/// use weft::prelude::*;
///
/// let it: Either<_, weft::range::Iter<i32>> = Either::Left(vec![1, 2].into_par_iter());
/// assert_eq!(it.sum::<i32>(), 3);
/// ```
impl<L, R> ParallelIterator for Either<L, R>
where
    L: ParallelIterator,
    R: ParallelIterator<Item = L::Item>,
{
    type Item = L::Item;

    fn drive_unindexed<C: UnindexedConsumer<L::Item>>(self, consumer: C) -> C::Result {
        match self {
            Either::Left(left) => left.drive_unindexed(consumer),
            Either::Right(right) => right.drive_unindexed(consumer),
        }
    }

    fn opt_len(&self) -> Option<usize> {
        self.as_ref().either(L::opt_len, R::opt_len)
    }
}

impl<L, R> IndexedParallelIterator for Either<L, R>
where
    L: IndexedParallelIterator,
    R: IndexedParallelIterator<Item = L::Item>,
{
    fn drive<C: Consumer<L::Item>>(self, consumer: C) -> C::Result {
        match self {
            Either::Left(left) => left.drive(consumer),
            Either::Right(right) => right.drive(consumer),
        }
    }

    fn len(&self) -> usize {
        self.as_ref().either(L::len, R::len)
    }

    fn with_producer<CB: ProducerCallback<L::Item>>(self, callback: CB) -> CB::Output {
        match self {
            Either::Left(left) => left.with_producer(callback),
            Either::Right(right) => right.with_producer(callback),
        }
    }
}
