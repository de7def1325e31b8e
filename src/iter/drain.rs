//! `par_drain`: `ParallelDrainRange` (a range of a `Vec`, `VecDeque` or `String`) and
//! `ParallelDrainFull` (everything in a hash map, hash set or binary heap).

use std::ops::RangeBounds;

use crate::iter::source::vec::Drain;
use crate::iter::ParallelIterator;

/// Moves a range of items out of a collection in parallel; the rest closes the gap.
///
/// ```
/// use weft::prelude::*;
///
/// let mut v = vec![1, 2, 3, 4];
/// let tail: Vec<i32> = v.par_drain(2..).collect();
/// assert_eq!((v, tail), (vec![1, 2], vec![3, 4]));
/// ```
pub trait ParallelDrainRange<Idx = usize> {
    /// The draining parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The items moved out.
    type Item: Send;

    /// Moves the items in `range` out; panics if the range is out of bounds.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = vec![1, 2, 3];
    /// assert_eq!(v.par_drain(..).sum::<i32>(), 6);
    /// assert!(v.is_empty());
    /// ```
    fn par_drain<R: RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

/// Moves every item out of a collection in parallel, leaving it empty (with its capacity).
///
/// ```
/// use std::collections::HashSet;
/// use weft::prelude::*;
///
/// let mut set: HashSet<i32> = (0..10).collect();
/// assert_eq!(set.par_drain().sum::<i32>(), 45);
/// assert!(set.is_empty());
/// ```
pub trait ParallelDrainFull {
    /// The draining parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The items moved out.
    type Item: Send;

    /// Moves every item out.
    ///
    /// ```
    /// use std::collections::BinaryHeap;
    /// use weft::prelude::*;
    ///
    /// let mut heap: BinaryHeap<i32> = vec![3, 1, 2].into();
    /// assert_eq!(heap.par_drain().max(), Some(3));
    /// ```
    fn par_drain(self) -> Self::Iter;
}

impl<'data, T: Send> ParallelDrainRange<usize> for &'data mut Vec<T> {
    type Iter = Drain<'data, T>;
    type Item = T;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Drain<'data, T> {
        Drain::new(self, range)
    }
}
