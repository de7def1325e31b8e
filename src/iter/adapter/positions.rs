//! `positions`: the indices of the items that match a predicate (an `enumerate` plus a
//! `filter_map`).

use std::fmt;

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`IndexedParallelIterator::positions`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<usize> = [1, 0, 3, 0].par_iter().positions(|&x| x == 0).collect();
/// assert_eq!(v, [1, 3]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Positions<I, P> {
    base: I,
    predicate: P,
}

impl<I: fmt::Debug, P> fmt::Debug for Positions<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Positions")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, P> Positions<I, P> {
    pub(crate) fn new(base: I, predicate: P) -> Self {
        Positions { base, predicate }
    }
}

impl<I, P> ParallelIterator for Positions<I, P>
where
    I: IndexedParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    type Item = usize;

    fn drive_unindexed<C: UnindexedConsumer<usize>>(self, consumer: C) -> C::Result {
        let Positions { base, predicate } = self;
        let predicate = &predicate;
        let matching = move |(index, item)| if predicate(item) { Some(index) } else { None };
        base.enumerate()
            .filter_map(matching)
            .drive_unindexed(consumer)
    }
}
