//! The `IndexedParallelIterator` trait: parallel iterators with a known length whose items
//! can be addressed by index (and so zipped, enumerated, split at a position).

use crate::iter::consumer;
use crate::iter::ParallelIterator;
use crate::plumbing::{Consumer, ProducerCallback};

/// A [`ParallelIterator`] that knows its length and can hand out a
/// [`Producer`](crate::iter::plumbing::Producer) splittable at any index.
///
/// ```
/// use weft::prelude::*;
///
/// let v = vec![10, 20, 30];
/// assert_eq!(v.par_iter().len(), 3);
/// ```
#[allow(clippy::len_without_is_empty)] // as in Rayon: emptiness is `len() == 0`
pub trait IndexedParallelIterator: ParallelIterator {
    /// Drives every item into an indexed `consumer` (usually via
    /// [`bridge`](crate::iter::plumbing::bridge)).
    fn drive<C>(self, consumer: C) -> C::Result
    where
        C: Consumer<Self::Item>;

    /// The exact number of items.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((5..25).into_par_iter().len(), 20);
    /// ```
    fn len(&self) -> usize;

    /// Calls `callback` with this iterator's producer.
    fn with_producer<CB>(self, callback: CB) -> CB::Output
    where
        CB: ProducerCallback<Self::Item>;

    /// Collects into `target`, replacing its contents and reusing its allocation. The items
    /// are written straight into the vector's buffer, in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = vec![9; 2];
    /// (0..4).into_par_iter().map(|x| x * x).collect_into_vec(&mut v);
    /// assert_eq!(v, [0, 1, 4, 9]);
    /// ```
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        consumer::collect_into_vec(self, target)
    }
}
