//! `step_by`: every `step`-th item. Piece `i` of the output starts at base index `i * step`.

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`IndexedParallelIterator::step_by`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = (0..10).into_par_iter().step_by(4).collect();
/// assert_eq!(v, [0, 4, 8]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct StepBy<I> {
    base: I,
    step: usize,
}

impl<I> StepBy<I> {
    pub(crate) fn new(base: I, step: usize) -> Self {
        assert!(step != 0, "step_by: step must not be zero");
        StepBy { base, step }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for StepBy<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for StepBy<I> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len().div_ceil(self.step)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let base_len = self.base.len();
        self.base.with_producer(StepByCallback {
            callback,
            step: self.step,
            base_len,
        })
    }
}

struct StepByCallback<CB> {
    callback: CB,
    step: usize,
    base_len: usize,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for StepByCallback<CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let (step, base_len) = (self.step, self.base_len);
        self.callback.callback(StepByProducer {
            base,
            step,
            base_len,
        })
    }
}

struct StepByProducer<P> {
    base: P,
    step: usize,
    base_len: usize,
}

impl<P: Producer> Producer for StepByProducer<P> {
    type Item = P::Item;
    type IntoIter = std::iter::StepBy<P::IntoIter>;
    const INERT: bool = P::INERT;

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().step_by(self.step)
    }

    fn split_tree(&self) -> crate::plumbing::SplitTree {
        self.base.split_tree()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let mid = Ord::min(index.saturating_mul(self.step), self.base_len);
        let (left, right) = self.base.split_at(mid);
        let step = self.step;
        let left = StepByProducer {
            base: left,
            step,
            base_len: mid,
        };
        (
            left,
            StepByProducer {
                base: right,
                step,
                base_len: self.base_len - mid,
            },
        )
    }
}
