//! `Range<T>` for every integer type (`Range<char>` is in `range_char.rs`): the indexed
//! source the driver serves best.
//!
//! As in Rayon, ranges of types whose length always fits in `usize` on every platform
//! (`u8`..`u32`, `i8`..`i32`, `usize`, `isize`) are indexed; `u64`, `i64`, `u128` and `i128`
//! ranges are unindexed but report `opt_len` and run as indexed work whenever their length
//! fits in `usize`. Longer ranges split by halving their `u128` length.

use std::ops::Range;

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// The integer types that form parallel ranges (sealed: implemented for all primitive
/// integers).
pub trait RangeInteger: Copy + Ord + Send + Sync + 'static + sealed::Sealed {
    /// The number of values in `start..end` (0 when empty), as `u128` so it never overflows.
    #[doc(hidden)]
    fn span(start: Self, end: Self) -> u128;
    /// `self + n`, wrapping (callers only ask for in-range values).
    #[doc(hidden)]
    fn offset(self, n: u128) -> Self;
    /// `self + 1`, or `None` at the type's maximum.
    #[doc(hidden)]
    fn successor(self) -> Option<Self>;
    /// The sequential iterator a piece of a range becomes: std's `Range` itself where it is
    /// exact-size (the indexed types; std's `Zip` and `Enumerate` then jump over items with
    /// `nth` as they do for Rayon's ranges), [`RangeIter`] for the others.
    #[doc(hidden)]
    type Seq: Iterator<Item = Self> + DoubleEndedIterator + ExactSizeIterator + Send;
    /// `range` as a [`Seq`](RangeInteger::Seq).
    #[doc(hidden)]
    fn seq(range: Range<Self>) -> Self::Seq;
}

/// Integer types whose ranges are [`IndexedParallelIterator`]s, as in Rayon.
pub trait IndexedRangeInteger: RangeInteger {}

/// Integer types whose inclusive ranges are [`IndexedParallelIterator`]s, as in Rayon
/// (their length always fits in `usize`).
pub trait IndexedInclusiveInteger: IndexedRangeInteger {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! range_integer {
    ($($t:ty => $unsigned:ty, $seq:ty, $($marker:ident)*;)*) => {$(
        impl sealed::Sealed for $t {}
        impl RangeInteger for $t {
            type Seq = $seq;
            fn seq(range: Range<Self>) -> $seq {
                range.into()
            }
            fn span(start: Self, end: Self) -> u128 {
                if end > start { end.wrapping_sub(start) as $unsigned as u128 } else { 0 }
            }
            fn offset(self, n: u128) -> Self {
                self.wrapping_add(n as $t)
            }
            fn successor(self) -> Option<Self> {
                self.checked_add(1)
            }
        }
        $(impl $marker for $t {})*
    )*};
}

range_integer! {
    u8 => u8, Range<u8>, IndexedRangeInteger IndexedInclusiveInteger;
    u16 => u16, Range<u16>, IndexedRangeInteger IndexedInclusiveInteger;
    u32 => u32, Range<u32>, IndexedRangeInteger; usize => usize, Range<usize>, IndexedRangeInteger;
    i8 => u8, Range<i8>, IndexedRangeInteger IndexedInclusiveInteger;
    i16 => u16, Range<i16>, IndexedRangeInteger IndexedInclusiveInteger;
    i32 => u32, Range<i32>, IndexedRangeInteger; isize => usize, Range<isize>, IndexedRangeInteger;
    u64 => u64, RangeIter<u64>,; i64 => u64, RangeIter<i64>,;
    u128 => u128, RangeIter<u128>,; i128 => u128, RangeIter<i128>,;
}

/// A parallel iterator over a `Range` (see [`IntoParallelIterator`] for `Range<T>`).
///
/// ```
/// use weft::prelude::*;
///
/// assert_eq!((0..100u64).into_par_iter().sum::<u64>(), 4950);
/// assert_eq!((-3..3i8).into_par_iter().collect::<Vec<_>>(), [-3, -2, -1, 0, 1, 2]);
/// assert_eq!((5..5).into_par_iter().count(), 0);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct Iter<T> {
    pub(super) range: Range<T>,
}

impl<T: RangeInteger> IntoParallelIterator for Range<T>
where
    Range<T>: DoubleEndedIterator<Item = T>,
{
    type Iter = Iter<T>;
    type Item = T;

    fn into_par_iter(self) -> Iter<T> {
        Iter { range: self }
    }
}

impl<T> Iter<T> {
    pub(crate) fn new(range: Range<T>) -> Self {
        Iter { range }
    }
}

impl<T: RangeInteger> Iter<T> {
    fn producer(self) -> RangeProducer<T> {
        RangeProducer { range: self.range }
    }
}

impl<T: RangeInteger> ParallelIterator for Iter<T>
where
    Range<T>: DoubleEndedIterator<Item = T>,
{
    type Item = T;

    #[inline]
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        match self.opt_len() {
            Some(len) => bridge_producer_consumer(len, self.producer(), consumer),
            None => bridge_unindexed(self.producer(), consumer),
        }
    }

    fn opt_len(&self) -> Option<usize> {
        usize::try_from(T::span(self.range.start, self.range.end)).ok()
    }
}

impl<T: IndexedRangeInteger> IndexedParallelIterator for Iter<T>
where
    Range<T>: DoubleEndedIterator<Item = T>,
{
    #[inline]
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge_producer_consumer(self.len(), self.producer(), consumer)
    }

    fn len(&self) -> usize {
        T::span(self.range.start, self.range.end) as usize
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(self.producer())
    }
}

/// Splits a range at an index (indexed use, length fits `usize`) or in half (unindexed).
struct RangeProducer<T> {
    range: Range<T>,
}

impl<T: RangeInteger> Producer for RangeProducer<T>
where
    Range<T>: DoubleEndedIterator<Item = T>,
{
    type Item = T;
    type IntoIter = T::Seq;
    const INERT: bool = true;

    fn into_iter(self) -> T::Seq {
        T::seq(self.range)
    }

    fn duplicate(&self) -> Option<Self> {
        Some(RangeProducer {
            range: self.range.start..self.range.end,
        })
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        assert!(index as u128 <= T::span(self.range.start, self.range.end));
        let mid = self.range.start.offset(index as u128);
        let left = RangeProducer {
            range: self.range.start..mid,
        };
        (
            left,
            RangeProducer {
                range: mid..self.range.end,
            },
        )
    }
}

impl<T: RangeInteger> UnindexedProducer for RangeProducer<T>
where
    Range<T>: DoubleEndedIterator<Item = T>,
{
    type Item = T;

    fn split(self) -> (Self, Option<Self>) {
        let half = T::span(self.range.start, self.range.end) / 2;
        if half == 0 {
            return (self, None);
        }
        let mid = self.range.start.offset(half);
        let left = RangeProducer {
            range: self.range.start..mid,
        };
        (
            left,
            Some(RangeProducer {
                range: mid..self.range.end,
            }),
        )
    }

    fn fold_with<F: Folder<T>>(self, folder: F) -> F {
        folder.consume_iter(self.range)
    }
}

/// `Range<T>` made exact-size for the `T` whose std ranges are not (`u64`, `i64`, `u128`,
/// `i128`: their length fits `usize` wherever one is used as a producer's iterator); `fold`
/// delegates to the range's own loop.
#[doc(hidden)]
#[derive(Debug)]
pub struct RangeIter<T> {
    range: Range<T>,
}

impl<T> From<Range<T>> for RangeIter<T> {
    fn from(range: Range<T>) -> Self {
        RangeIter { range }
    }
}

impl<T: RangeInteger> Iterator for RangeIter<T>
where
    Range<T>: DoubleEndedIterator<Item = T>,
{
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        self.range.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = T::span(self.range.start, self.range.end) as usize;
        (len, Some(len))
    }

    /// O(1), as `Range`'s own: `step_by` and the sequential `skip` jump over the items.
    #[inline]
    fn nth(&mut self, n: usize) -> Option<T> {
        self.range.nth(n)
    }

    #[inline]
    fn fold<B, F: FnMut(B, T) -> B>(self, init: B, f: F) -> B {
        self.range.fold(init, f)
    }
}

impl<T: RangeInteger> DoubleEndedIterator for RangeIter<T>
where
    Range<T>: DoubleEndedIterator<Item = T>,
{
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        self.range.next_back()
    }

    /// O(1), as `Range`'s own.
    #[inline]
    fn nth_back(&mut self, n: usize) -> Option<T> {
        self.range.nth_back(n)
    }

    #[inline]
    fn rfold<B, F: FnMut(B, T) -> B>(self, init: B, f: F) -> B {
        self.range.rfold(init, f)
    }
}

impl<T: RangeInteger> ExactSizeIterator for RangeIter<T> where
    Range<T>: DoubleEndedIterator<Item = T>
{
}
