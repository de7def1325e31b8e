//! `sum`, `product` and `count`: each leaf uses the sequential `Iterator::sum`/`product`
//! on its whole piece (so ranges and slices vectorize), then pieces combine in order.

use std::iter::{Product, Sum};
use std::marker::PhantomData;

use crate::iter::ParallelIterator;
use crate::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

#[inline]
pub(crate) fn sum<I, S>(par_iter: I) -> S
where
    I: ParallelIterator,
    S: Send + Sum<I::Item> + Sum<S>,
{
    par_iter.drive_unindexed(Accumulate::<Summing, S>::new())
}

#[inline]
pub(crate) fn product<I, P>(par_iter: I) -> P
where
    I: ParallelIterator,
    P: Send + Product<I::Item> + Product<P>,
{
    par_iter.drive_unindexed(Accumulate::<Multiplying, P>::new())
}

#[inline]
pub(crate) fn count<I: ParallelIterator>(par_iter: I) -> usize {
    sum(par_iter.map(|_| 1usize))
}

/// Which of `Sum` or `Product` an [`Accumulate`] uses.
pub(crate) trait Operation<T, A> {
    fn fold_all<I: Iterator<Item = T>>(items: I) -> A;
    fn combine(left: A, right: A) -> A;
}

/// Selects `Sum`.
pub(crate) struct Summing;
/// Selects `Product`.
pub(crate) struct Multiplying;

impl<T, S: Sum<T> + Sum<S>> Operation<T, S> for Summing {
    fn fold_all<I: Iterator<Item = T>>(items: I) -> S {
        items.sum()
    }
    fn combine(left: S, right: S) -> S {
        [left, right].into_iter().sum()
    }
}

impl<T, P: Product<T> + Product<P>> Operation<T, P> for Multiplying {
    fn fold_all<I: Iterator<Item = T>>(items: I) -> P {
        items.product()
    }
    fn combine(left: P, right: P) -> P {
        [left, right].into_iter().product()
    }
}

/// Consumer, folder and reducer at once: the accumulated value of one piece.
pub(crate) struct Accumulate<Op, A> {
    acc: Option<A>,
    op: PhantomData<fn() -> Op>,
}

impl<Op, A> Accumulate<Op, A> {
    fn new() -> Self {
        Accumulate {
            acc: None,
            op: PhantomData,
        }
    }
}

impl<Op, T, A> Consumer<T> for Accumulate<Op, A>
where
    Op: Operation<T, A> + Operation<A, A>,
    A: Send,
{
    type Folder = Self;
    type Reducer = Self;
    type Result = A;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (Self::new(), Self::new(), Self::new())
    }

    fn into_folder(self) -> Self {
        self
    }

    fn full(&self) -> bool {
        false
    }

    fn continue_folder(self, folder: Self::Folder) -> Result<Self::Folder, (Self, Self::Folder)> {
        Ok(folder)
    }
}

impl<Op, T, A> UnindexedConsumer<T> for Accumulate<Op, A>
where
    Op: Operation<T, A> + Operation<A, A>,
    A: Send,
{
    fn split_off_left(&self) -> Self {
        Self::new()
    }

    fn to_reducer(&self) -> Self {
        Self::new()
    }
}

impl<Op, T, A> Folder<T> for Accumulate<Op, A>
where
    Op: Operation<T, A> + Operation<A, A>,
{
    type Result = A;

    fn consume(self, item: T) -> Self {
        self.consume_iter(Some(item))
    }

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let piece = <Op as Operation<T, A>>::fold_all(iter.into_iter());
        let acc = match self.acc {
            None => piece,
            Some(acc) => <Op as Operation<T, A>>::combine(acc, piece),
        };
        Accumulate {
            acc: Some(acc),
            op: PhantomData,
        }
    }

    fn complete(self) -> A {
        match self.acc {
            Some(acc) => acc,
            None => <Op as Operation<T, A>>::fold_all(std::iter::empty()),
        }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<Op: Operation<A, A>, A> Reducer<A> for Accumulate<Op, A> {
    #[inline]
    fn reduce(self, left: A, right: A) -> A {
        <Op as Operation<A, A>>::combine(left, right)
    }
}
