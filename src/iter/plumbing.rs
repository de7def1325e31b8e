//! `weft::iter::plumbing`: the producer / consumer traits (defined in the crate's
//! `plumbing` module) and the `bridge*` functions that hand a pair to the driver.
//!
//! Write a custom parallel iterator by implementing these traits, then call [`bridge`]
//! (indexed) or [`bridge_unindexed`] from `drive_unindexed`.

#[doc(hidden)]
pub use crate::plumbing::ExactLen;
pub use crate::plumbing::{
    Consumer, Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer, UnindexedProducer,
};

use crate::drive::{drive_indexed, drive_unindexed};
use crate::iter::IndexedParallelIterator;

/// Drives an indexed parallel iterator into a consumer: the usual body of
/// `drive_unindexed` and `drive` for an indexed iterator.
///
/// ```
/// use weft::iter::plumbing::{bridge, Consumer, UnindexedConsumer};
/// use weft::prelude::*;
///
/// struct Evens(Vec<u32>);
/// impl ParallelIterator for Evens {
///     type Item = u32;
///     fn drive_unindexed<C: UnindexedConsumer<u32>>(self, consumer: C) -> C::Result {
///         bridge(self.0.into_par_iter().map(|x| x * 2), consumer)
///     }
/// }
/// assert_eq!(Evens(vec![1, 2, 3]).sum::<u32>(), 12);
/// ```
#[inline]
pub fn bridge<I, C>(par_iter: I, consumer: C) -> C::Result
where
    I: IndexedParallelIterator,
    C: Consumer<I::Item>,
{
    let len = par_iter.len();
    par_iter.with_producer(BridgeCallback { len, consumer })
}

/// The callback `bridge` gives to `with_producer`: the producer meets the consumer here.
struct BridgeCallback<C> {
    len: usize,
    consumer: C,
}

impl<C, T> ProducerCallback<T> for BridgeCallback<C>
where
    C: Consumer<T>,
{
    type Output = C::Result;

    #[inline]
    fn callback<P>(self, producer: P) -> C::Result
    where
        P: Producer<Item = T>,
    {
        producer.drive_with(self.len, self.consumer, Driver)
    }
}

/// The indexed driver, as [`Producer::drive_with`] expects it.
struct Driver;

impl crate::plumbing::IndexedDriver for Driver {
    #[inline]
    fn drive<P, C>(self, len: usize, producer: P, consumer: C) -> C::Result
    where
        P: Producer,
        C: Consumer<P::Item>,
    {
        drive_indexed(len, producer, consumer)
    }
}

/// Splits `producer` (of `len` items) and `consumer` across workers and combines the results.
///
/// ```
/// use weft::iter::plumbing::{bridge_producer_consumer, Producer, UnindexedConsumer};
/// use weft::prelude::*;
///
/// // Producer of the even numbers `2 * i` for `i` in a range.
/// struct Evens(std::ops::Range<u32>);
/// impl Producer for Evens {
///     type Item = u32;
///     type IntoIter = std::iter::Map<std::ops::Range<u32>, fn(u32) -> u32>;
///     fn into_iter(self) -> Self::IntoIter {
///         self.0.map(|i| 2 * i)
///     }
///     fn split_at(self, index: usize) -> (Self, Self) {
///         let mid = self.0.start + index as u32;
///         (Evens(self.0.start..mid), Evens(mid..self.0.end))
///     }
/// }
/// struct EvenNumbers(u32);
/// impl ParallelIterator for EvenNumbers {
///     type Item = u32;
///     fn drive_unindexed<C: UnindexedConsumer<u32>>(self, consumer: C) -> C::Result {
///         bridge_producer_consumer(self.0 as usize, Evens(0..self.0), consumer)
///     }
/// }
/// assert_eq!(EvenNumbers(4).sum::<u32>(), 12);
/// assert_eq!(EvenNumbers(3).collect::<Vec<_>>(), [0, 2, 4]);
/// ```
#[inline]
pub fn bridge_producer_consumer<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    producer.drive_with(len, consumer, Driver)
}

/// Splits an unindexed `producer` and `consumer` across workers and combines the results.
///
/// ```
/// use weft::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
/// use weft::prelude::*;
///
/// struct Halves(std::ops::Range<u32>);
/// impl UnindexedProducer for Halves {
///     type Item = u32;
///     fn split(self) -> (Self, Option<Self>) {
///         if self.0.len() < 2 {
///             return (self, None);
///         }
///         let mid = self.0.start + self.0.len() as u32 / 2;
///         (Halves(self.0.start..mid), Some(Halves(mid..self.0.end)))
///     }
///     fn fold_with<F: Folder<u32>>(self, folder: F) -> F {
///         folder.consume_iter(self.0)
///     }
/// }
/// struct Numbers(u32);
/// impl ParallelIterator for Numbers {
///     type Item = u32;
///     fn drive_unindexed<C: UnindexedConsumer<u32>>(self, consumer: C) -> C::Result {
///         bridge_unindexed(Halves(0..self.0), consumer)
///     }
/// }
/// assert_eq!(Numbers(100).collect::<Vec<_>>(), (0..100).collect::<Vec<_>>());
/// ```
pub fn bridge_unindexed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    drive_unindexed(producer, consumer)
}
