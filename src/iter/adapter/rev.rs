//! `rev`: reverses an indexed iterator. Splitting at `i` splits the base at `len - i` and
//! swaps the halves.

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`IndexedParallelIterator::rev`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = (0..4).into_par_iter().rev().collect();
/// assert_eq!(v, [3, 2, 1, 0]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Rev<I> {
    base: I,
}

impl<I> Rev<I> {
    pub(crate) fn new(base: I) -> Self {
        Rev { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Rev<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Rev<I> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let len = self.base.len();
        self.base.with_producer(RevCallback { callback, len })
    }
}

struct RevCallback<CB> {
    callback: CB,
    len: usize,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for RevCallback<CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(RevProducer {
            base,
            len: self.len,
        })
    }
}

struct RevProducer<P> {
    base: P,
    len: usize,
}

impl<P: Producer> Producer for RevProducer<P> {
    type Item = P::Item;
    type IntoIter = std::iter::Rev<P::IntoIter>;
    const INERT: bool = P::INERT;

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().rev()
    }

    super::lengths_from_base!();

    fn duplicate(&self) -> Option<Self> {
        Some(RevProducer {
            base: self.base.duplicate()?,
            len: self.len,
        })
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (front, back) = self.base.split_at(self.len - index);
        let left = RevProducer {
            base: back,
            len: index,
        };
        (
            left,
            RevProducer {
                base: front,
                len: self.len - index,
            },
        )
    }
}
