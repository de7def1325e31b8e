//! `with_min_len` and `with_max_len`: bounds on the pieces the driver makes; the producer
//! reports them through `Producer::min_len` / `max_len`.

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`IndexedParallelIterator::with_min_len`] and
/// [`IndexedParallelIterator::with_max_len`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<u32> = (0..100u32).into_par_iter().with_min_len(10).map(|x| x + 1).collect();
/// assert_eq!(v, (1..=100).collect::<Vec<_>>());
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct MinMaxLen<I> {
    base: I,
    min: usize,
    max: usize,
}

/// Rayon's name for the `with_min_len` adapter.
pub type MinLen<I> = MinMaxLen<I>;
/// Rayon's name for the `with_max_len` adapter.
pub type MaxLen<I> = MinMaxLen<I>;

impl<I> MinMaxLen<I> {
    pub(crate) fn new(base: I, min: usize, max: usize) -> Self {
        MinMaxLen { base, min, max }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for MinMaxLen<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for MinMaxLen<I> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let (min, max) = (self.min, self.max);
        self.base
            .with_producer(MinMaxCallback { callback, min, max })
    }
}

struct MinMaxCallback<CB> {
    callback: CB,
    min: usize,
    max: usize,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for MinMaxCallback<CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(MinMaxProducer {
            base,
            min: self.min,
            max: self.max,
        })
    }
}

struct MinMaxProducer<P> {
    base: P,
    min: usize,
    max: usize,
}

impl<P: Producer> Producer for MinMaxProducer<P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;
    const INERT: bool = P::INERT;
    const EXACT_LEN: Option<ExactLen<P::IntoIter>> = P::EXACT_LEN;

    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }

    fn min_len(&self) -> usize {
        Ord::max(self.min, self.base.min_len())
    }

    fn max_len(&self) -> usize {
        Ord::min(self.max, self.base.max_len())
    }

    fn split_tree(&self) -> crate::plumbing::SplitTree {
        self.base.split_tree()
    }

    fn duplicate(&self) -> Option<Self> {
        Some(MinMaxProducer {
            base: self.base.duplicate()?,
            min: self.min,
            max: self.max,
        })
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let (min, max) = (self.min, self.max);
        (
            MinMaxProducer {
                base: left,
                min,
                max,
            },
            MinMaxProducer {
                base: right,
                min,
                max,
            },
        )
    }

    fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_with(folder)
    }
}
