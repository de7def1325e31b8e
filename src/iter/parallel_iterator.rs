//! The `ParallelIterator` trait. Every provided method is a one-line constructor of an
//! adapter (in `adapter/`) or a call into a consumer (in `consumer/`).

use crate::iter::adapter::*;
use crate::iter::consumer;
use crate::iter::FromParallelIterator;
use crate::plumbing::UnindexedConsumer;

/// A parallel version of [`Iterator`]: items are produced and consumed across the pool's
/// workers. Closures given to its methods are `Fn + Sync + Send`, so they can be called
/// from many threads at once.
///
/// ```
/// use weft::prelude::*;
///
/// let sum_of_squares: u64 = (1..=10u64).into_par_iter().map(|x| x * x).sum();
/// assert_eq!(sum_of_squares, 385);
/// ```
pub trait ParallelIterator: Sized + Send {
    /// The type of item this iterator yields.
    type Item: Send;

    /// Drives every item into `consumer`: the one required method, usually a call to
    /// [`bridge`](crate::iter::plumbing::bridge) or
    /// [`bridge_unindexed`](crate::iter::plumbing::bridge_unindexed).
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>;

    /// The exact number of items, if known without running the iterator.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..10).into_par_iter().opt_len(), Some(10));
    /// assert_eq!((0..10).into_par_iter().filter(|x| x % 2 == 0).opt_len(), None);
    /// ```
    fn opt_len(&self) -> Option<usize> {
        None
    }

    /// Calls `op` on every item.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use weft::prelude::*;
    ///
    /// let total = AtomicUsize::new(0);
    /// (1..=4usize).into_par_iter().for_each(|x| {
    ///     total.fetch_add(x, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 10);
    /// ```
    fn for_each<OP>(self, op: OP)
    where
        OP: Fn(Self::Item) + Sync + Send,
    {
        consumer::for_each::for_each(self, &op)
    }

    /// Applies `map_op` to every item.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..4).into_par_iter().map(|x| x * 3).collect();
    /// assert_eq!(v, [0, 3, 6, 9]);
    /// ```
    fn map<F, R>(self, map_op: F) -> Map<Self, F>
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Send,
    {
        Map::new(self, map_op)
    }

    /// Combines all items with the associative `op`, starting each piece from `identity()`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let product = (1..=5u64).into_par_iter().reduce(|| 1, |a, b| a * b);
    /// assert_eq!(product, 120);
    /// ```
    fn reduce<OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
        ID: Fn() -> Self::Item + Sync + Send,
    {
        consumer::reduce::reduce(self, &identity, &op)
    }

    /// Sums the items; the pieces' sums are added in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((1..=100).into_par_iter().sum::<i32>(), 5050);
    /// ```
    fn sum<S>(self) -> S
    where
        S: Send + std::iter::Sum<Self::Item> + std::iter::Sum<S>,
    {
        consumer::sum_product::sum(self)
    }

    /// Multiplies the items.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((1..=6u64).into_par_iter().product::<u64>(), 720);
    /// ```
    fn product<P>(self) -> P
    where
        P: Send + std::iter::Product<Self::Item> + std::iter::Product<P>,
    {
        consumer::sum_product::product(self)
    }

    /// Counts the items.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..1000).into_par_iter().count(), 1000);
    /// ```
    fn count(self) -> usize {
        consumer::sum_product::count(self)
    }

    /// Collects the items into any [`FromParallelIterator`] collection; order is kept for
    /// ordered collections.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u8> = (0..5u8).into_par_iter().collect();
    /// assert_eq!(v, [0, 1, 2, 3, 4]);
    /// ```
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        C::from_par_iter(self)
    }
}
