//! `skip` and `take`: the producer is split once at `n` and one side is dropped (for an
//! owning producer that drops the skipped items). As in Rayon, `skip` still runs the items
//! it skips through the adapters before it (a `map` sees every item), beside the rest; over
//! inert items (`Producer::INERT`: a range, a slice) it drops them at once, so that it costs
//! nothing.

use crate::drive::run_skipped_beside;
use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`IndexedParallelIterator::skip`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = (0..5).into_par_iter().skip(3).collect();
/// assert_eq!(v, [3, 4]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Skip<I> {
    base: I,
    n: usize,
}

impl<I: IndexedParallelIterator> Skip<I> {
    pub(crate) fn new(base: I, n: usize) -> Self {
        let n = Ord::min(n, base.len());
        Skip { base, n }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Skip<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Skip<I> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len() - self.n
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(SplitOnceCallback {
            callback,
            n: self.n,
            keep_left: false,
        })
    }
}

/// The iterator returned by [`IndexedParallelIterator::take`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = (0..5).into_par_iter().take(2).collect();
/// assert_eq!(v, [0, 1]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Take<I> {
    base: I,
    n: usize,
}

impl<I: IndexedParallelIterator> Take<I> {
    pub(crate) fn new(base: I, n: usize) -> Self {
        let n = Ord::min(n, base.len());
        Take { base, n }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Take<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Take<I> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.n
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(SplitOnceCallback {
            callback,
            n: self.n,
            keep_left: true,
        })
    }
}

/// Splits the producer at `n` and passes one side on.
struct SplitOnceCallback<CB> {
    callback: CB,
    n: usize,
    keep_left: bool,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for SplitOnceCallback<CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let (left, right) = base.split_at(self.n);
        if self.keep_left {
            drop(right);
            self.callback.callback(left)
        } else if P::INERT || self.n == 0 {
            drop(left);
            self.callback.callback(right)
        } else {
            let callback = self.callback;
            run_skipped_beside(self.n, left, move || callback.callback(right))
        }
    }
}
