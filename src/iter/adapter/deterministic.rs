//! `deterministic`: the same items, but driven in a split tree fixed by the length alone, so
//! that every reduction gives the same bits on any pool. The producer carries the request
//! (`Producer::split_tree`) through the adapters after it to the driver
//! (`drive/fixed_tree.rs`).

use std::num::NonZeroUsize;

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use crate::plumbing::SplitTree;

/// The iterator returned by [`IndexedParallelIterator::deterministic`]: the same items,
/// reduced in a tree that depends only on their number (and the grain).
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<f32> = (0..10_000).map(|i| 1.0 / (1 + i) as f32).collect();
/// let pool = |threads| weft::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
/// let sum = |threads| pool(threads).install(|| v.par_iter().deterministic().sum::<f32>());
/// assert_eq!(sum(1).to_bits(), sum(3).to_bits());
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Deterministic<I> {
    base: I,
    grain: Option<NonZeroUsize>,
}

impl<I> Deterministic<I> {
    pub(crate) fn new(base: I) -> Self {
        Deterministic { base, grain: None }
    }

    /// Sets the leaf length of the fixed tree: the items are cut into leaves of `grain`
    /// items (the last one may be shorter), each folded in order by one folder. Larger
    /// leaves cost less (one `join`, one folder and one reduce per leaf); smaller ones
    /// balance better when items are slow. `with_min_len` / `with_max_len` earlier in the
    /// chain still bound the leaf. Without this the grain is `len / 256` rounded up, at most
    /// 4096 (see [`IndexedParallelIterator::deterministic`]).
    ///
    /// The result of a reduction depends on the grain (a float sum is added up in another
    /// order), but for a given grain it is the same on every pool.
    ///
    /// # Panics
    /// If `grain` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// // Slow items: one leaf per item, so that 64 items keep many workers busy.
    /// let total: u64 = (0..64u32)
    ///     .into_par_iter()
    ///     .deterministic()
    ///     .with_grain(1)
    ///     .map(|i| u64::from(i * i))
    ///     .sum();
    /// assert_eq!(total, (0..64u64).map(|i| i * i).sum());
    /// ```
    pub fn with_grain(self, grain: usize) -> Self {
        let grain = NonZeroUsize::new(grain)
            .expect("`Deterministic::with_grain`: the grain (items per leaf) must be at least 1");
        Deterministic {
            base: self.base,
            grain: Some(grain),
        }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Deterministic<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Deterministic<I> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let grain = self.grain;
        self.base
            .with_producer(DeterministicCallback { callback, grain })
    }
}

/// Receives the base's producer and passes on one that asks for a fixed tree.
struct DeterministicCallback<CB> {
    callback: CB,
    grain: Option<NonZeroUsize>,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for DeterministicCallback<CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let grain = self.grain;
        self.callback
            .callback(DeterministicProducer { base, grain })
    }
}

/// The base's producer, asking the driver for a fixed tree ([`SplitTree::Fixed`]).
struct DeterministicProducer<P> {
    base: P,
    grain: Option<NonZeroUsize>,
}

impl<P: Producer> Producer for DeterministicProducer<P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;
    const EXACT_LEN: Option<ExactLen<P::IntoIter>> = P::EXACT_LEN;

    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_tree(&self) -> SplitTree {
        SplitTree::Fixed(self.grain)
    }

    fn duplicate(&self) -> Option<Self> {
        Some(DeterministicProducer {
            base: self.base.duplicate()?,
            grain: self.grain,
        })
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let grain = self.grain;
        (
            DeterministicProducer { base: left, grain },
            DeterministicProducer { base: right, grain },
        )
    }

    fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_with(folder)
    }
}
