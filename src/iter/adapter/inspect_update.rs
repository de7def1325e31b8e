//! `inspect` (look at each item) and `update` (mutate each item in place): both are a
//! `map` that hands the item back.

use std::fmt;

use super::map::Map;
use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`ParallelIterator::inspect`].
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use weft::prelude::*;
///
/// let seen = AtomicUsize::new(0);
/// let sum: i32 = (1..=3).into_par_iter().inspect(|_| { seen.fetch_add(1, Ordering::Relaxed); }).sum();
/// assert_eq!((sum, seen.into_inner()), (6, 3));
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Inspect<I, F> {
    base: I,
    op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for Inspect<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inspect").field("base", &self.base).finish()
    }
}

impl<I, F> Inspect<I, F> {
    pub(crate) fn new(base: I, op: F) -> Self {
        Inspect { base, op }
    }
}

impl<I, F> Inspect<I, F>
where
    I: ParallelIterator,
    F: Fn(&I::Item) + Sync + Send,
{
    /// The `map` this is: each item shown to `op`, then passed on. `op` moves into the
    /// closure, so nothing points into `self` (see `Map::drive`).
    fn into_map(self) -> Map<I, impl Fn(I::Item) -> I::Item + Sync + Send> {
        let Inspect { base, op } = self;
        Map::new(base, move |item| {
            op(&item);
            item
        })
    }
}

impl<I, F> ParallelIterator for Inspect<I, F>
where
    I: ParallelIterator,
    F: Fn(&I::Item) + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        self.into_map().drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, F> IndexedParallelIterator for Inspect<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(&I::Item) + Sync + Send,
{
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        self.into_map().drive(consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        self.into_map().with_producer(callback)
    }
}

/// The iterator returned by [`ParallelIterator::update`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<Vec<i32>> = vec![vec![2, 1], vec![4, 3]];
/// let sorted: Vec<Vec<i32>> = v.into_par_iter().update(|x| x.sort()).collect();
/// assert_eq!(sorted, [[1, 2], [3, 4]]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Update<I, F> {
    base: I,
    op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for Update<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Update").field("base", &self.base).finish()
    }
}

impl<I, F> Update<I, F> {
    pub(crate) fn new(base: I, op: F) -> Self {
        Update { base, op }
    }
}

impl<I, F> Update<I, F>
where
    I: ParallelIterator,
    F: Fn(&mut I::Item) + Sync + Send,
{
    /// The `map` this is: each item handed to `op` to change, then passed on (see
    /// `Inspect::into_map`).
    fn into_map(self) -> Map<I, impl Fn(I::Item) -> I::Item + Sync + Send> {
        let Update { base, op } = self;
        Map::new(base, move |mut item| {
            op(&mut item);
            item
        })
    }
}

impl<I, F> ParallelIterator for Update<I, F>
where
    I: ParallelIterator,
    F: Fn(&mut I::Item) + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        self.into_map().drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, F> IndexedParallelIterator for Update<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(&mut I::Item) + Sync + Send,
{
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        self.into_map().drive(consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        self.into_map().with_producer(callback)
    }
}
