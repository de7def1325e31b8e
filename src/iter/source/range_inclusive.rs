//! `RangeInclusive<T>` for every integer type: `start..=end` runs as `start..end + 1`, or,
//! when `end` is the type's maximum, as `start..end` chained with one last item. As in
//! Rayon, only `u8`, `u16`, `i8` and `i16` inclusive ranges are indexed.

use std::ops::{Range, RangeInclusive};

use either::Either;

use super::range::{IndexedInclusiveInteger, Iter as RangeIter, RangeInteger};
use crate::iter::plumbing::*;
use crate::iter::{
    once, Chain, IndexedParallelIterator, IntoParallelIterator, Once, ParallelIterator,
};

/// A parallel iterator over a `RangeInclusive`.
///
/// ```
/// use weft::prelude::*;
///
/// assert_eq!((1..=100u64).into_par_iter().sum::<u64>(), 5050);
/// assert_eq!((250..=255u8).into_par_iter().count(), 6);
/// assert_eq!((5..=4).into_par_iter().count(), 0);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct Iter<T> {
    pub(super) range: RangeInclusive<T>,
}

impl<T: RangeInteger> IntoParallelIterator for RangeInclusive<T>
where
    Range<T>: DoubleEndedIterator<Item = T>,
{
    type Iter = Iter<T>;
    type Item = T;

    fn into_par_iter(self) -> Iter<T> {
        Iter { range: self }
    }
}

/// The half-open form of an inclusive range, plus its last item if `end` is the maximum.
type Parts<T> = Either<RangeIter<T>, Chain<RangeIter<T>, Once<T>>>;

impl<T: RangeInteger> Iter<T>
where
    Range<T>: DoubleEndedIterator<Item = T>,
{
    fn parts(self) -> Parts<T> {
        let (start, end) = (*self.range.start(), *self.range.end());
        if self.range.is_empty() {
            return Either::Left(RangeIter::new(start..start));
        }
        match end.successor() {
            Some(after_end) => Either::Left(RangeIter::new(start..after_end)),
            None => Either::Right(RangeIter::new(start..end).chain(once(end))),
        }
    }
}

impl<T: RangeInteger> ParallelIterator for Iter<T>
where
    Range<T>: DoubleEndedIterator<Item = T>,
{
    type Item = T;

    #[inline]
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        match self.parts() {
            Either::Left(range) => range.drive_unindexed(consumer),
            Either::Right(chain) => chain.drive_unindexed(consumer),
        }
    }

    fn opt_len(&self) -> Option<usize> {
        if self.range.is_empty() {
            return Some(0);
        }
        let span = T::span(*self.range.start(), *self.range.end());
        usize::try_from(span.checked_add(1)?).ok()
    }
}

impl<T: IndexedInclusiveInteger> IndexedParallelIterator for Iter<T>
where
    Range<T>: DoubleEndedIterator<Item = T>,
{
    #[inline]
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.opt_len()
            .expect("the length of a small-integer range fits usize")
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        match self.parts() {
            Either::Left(range) => range.with_producer(callback),
            Either::Right(chain) => chain.with_producer(callback),
        }
    }
}
