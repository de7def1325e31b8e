//! `flat_map` and `flatten`: each item becomes a parallel iterator of its own, driven
//! with a consumer split off the current one; results are reduced in item order.

use std::fmt;

use crate::iter::plumbing::*;
use crate::iter::{IntoParallelIterator, ParallelIterator};

/// The iterator returned by [`ParallelIterator::flat_map`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map(|n| 0..n).collect();
/// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FlatMap<I, F> {
    base: I,
    map_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for FlatMap<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlatMap").field("base", &self.base).finish()
    }
}

impl<I, F> FlatMap<I, F> {
    pub(crate) fn new(base: I, map_op: F) -> Self {
        FlatMap { base, map_op }
    }
}

impl<I, F, PI> ParallelIterator for FlatMap<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> PI + Sync + Send,
    PI: IntoParallelIterator,
{
    type Item = PI::Item;

    fn drive_unindexed<C: UnindexedConsumer<PI::Item>>(self, consumer: C) -> C::Result {
        let FlatMap { base, map_op } = self;
        base.drive_unindexed(FlatMapConsumer {
            base: consumer,
            map_op: &map_op,
        })
    }
}

/// The iterator returned by [`ParallelIterator::flatten`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = vec![vec![1], vec![], vec![2, 3]].into_par_iter().flatten().collect();
/// assert_eq!(v, [1, 2, 3]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Flatten<I> {
    base: I,
}

impl<I> Flatten<I> {
    pub(crate) fn new(base: I) -> Self {
        Flatten { base }
    }
}

impl<I> ParallelIterator for Flatten<I>
where
    I: ParallelIterator,
    I::Item: IntoParallelIterator,
{
    type Item = <I::Item as IntoParallelIterator>::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let map_op = &std::convert::identity;
        self.base.drive_unindexed(FlatMapConsumer {
            base: consumer,
            map_op,
        })
    }
}

struct FlatMapConsumer<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<C, F> FlatMapConsumer<'_, C, F> {
    /// Splits the base consumer with `split` (`split_at` or `split_at_sized`) and wraps
    /// each piece.
    fn split_base<Red>(self, split: impl FnOnce(C) -> (C, C, Red)) -> (Self, Self, Red) {
        let (left, right, reducer) = split(self.base);
        let map_op = self.map_op;
        (
            FlatMapConsumer { base: left, map_op },
            FlatMapConsumer {
                base: right,
                map_op,
            },
            reducer,
        )
    }
}

impl<'f, T, C, F, PI> Consumer<T> for FlatMapConsumer<'f, C, F>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    type Folder = FlatMapFolder<'f, C, F, C::Result>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    super::splits_through_base!();

    fn into_folder(self) -> Self::Folder {
        FlatMapFolder {
            base: self.base,
            map_op: self.map_op,
            previous: None,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, C, F, PI> UnindexedConsumer<T> for FlatMapConsumer<'_, C, F>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    fn split_off_left(&self) -> Self {
        FlatMapConsumer {
            base: self.base.split_off_left(),
            map_op: self.map_op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// Drives each item's inner iterator and reduces the results left to right.
struct FlatMapFolder<'f, C, F, R> {
    base: C,
    map_op: &'f F,
    previous: Option<R>,
}

impl<T, C, F, PI> Folder<T> for FlatMapFolder<'_, C, F, C::Result>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    type Result = C::Result;

    const MAY_STOP_EARLY: bool = <C::Folder as Folder<PI::Item>>::MAY_STOP_EARLY;

    fn consume(self, item: T) -> Self {
        let inner = (self.map_op)(item).into_par_iter();
        let result = inner.drive_unindexed(self.base.split_off_left());
        let previous = match self.previous {
            None => result,
            Some(previous) => self.base.to_reducer().reduce(previous, result),
        };
        FlatMapFolder {
            previous: Some(previous),
            ..self
        }
    }

    fn complete(self) -> C::Result {
        match self.previous {
            Some(previous) => previous,
            None => self.base.into_folder().complete(),
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
