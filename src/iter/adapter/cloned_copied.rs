//! `cloned` and `copied`: turn `&T` items into `T`. Both are a `map` under the hood.

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`ParallelIterator::cloned`].
///
/// ```
/// use weft::prelude::*;
///
/// let words = [String::from("a"), String::from("b")];
/// let owned: Vec<String> = words.par_iter().cloned().collect();
/// assert_eq!(owned, words);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Cloned<I> {
    base: I,
}

impl<I> Cloned<I> {
    pub(crate) fn new(base: I) -> Self {
        Cloned { base }
    }
}

impl<'a, T, I> ParallelIterator for Cloned<I>
where
    I: ParallelIterator<Item = &'a T>,
    T: 'a + Clone + Send + Sync,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        self.base.map(T::clone).drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<'a, T, I> IndexedParallelIterator for Cloned<I>
where
    I: IndexedParallelIterator<Item = &'a T>,
    T: 'a + Clone + Send + Sync,
{
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.base.map(T::clone).drive(consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        self.base.map(T::clone).with_producer(callback)
    }
}

/// The iterator returned by [`ParallelIterator::copied`].
///
/// ```
/// use weft::prelude::*;
///
/// let v = [1, 2, 3];
/// let copy: Vec<i32> = v.par_iter().copied().collect();
/// assert_eq!(copy, v);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Copied<I> {
    base: I,
}

impl<I> Copied<I> {
    pub(crate) fn new(base: I) -> Self {
        Copied { base }
    }
}

fn copy<T: Copy>(item: &T) -> T {
    *item
}

impl<'a, T, I> ParallelIterator for Copied<I>
where
    I: ParallelIterator<Item = &'a T>,
    T: 'a + Copy + Send + Sync,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        self.base.map(copy).drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<'a, T, I> IndexedParallelIterator for Copied<I>
where
    I: IndexedParallelIterator<Item = &'a T>,
    T: 'a + Copy + Send + Sync,
{
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.base.map(copy).drive(consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        self.base.map(copy).with_producer(callback)
    }
}
