//! `FixedTree`: an indexed chain driven in the fixed tree of `drive/fixed_tree.rs`. The part
//! of a deterministic chain that a reduction (or an unindexed adapter) drives.

use std::num::NonZeroUsize;

use crate::drive::{drive_with_grain, AskedMark};
use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use crate::plumbing::{IndexedDriver, SplitTree};

/// The indexed part of a [`Deterministic`](super::Deterministic) chain, driven in a split
/// tree fixed by its length and the grain: what a reduction at the end of the chain drives,
/// and what an adapter that makes the chain unindexed (`filter`, `fold`, ...) wraps. It
/// appears in the types of such chains; weft alone makes one.
///
/// ```
/// use weft::prelude::*;
///
/// let evens = (0..100u32).into_par_iter().deterministic().filter(|x| x % 2 == 0);
/// // Its type: Deterministic<Filter<FixedTree<Range<u32>>, {closure}>, Unindexed>.
/// assert_eq!(evens.count(), 50);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct FixedTree<I> {
    base: I,
    grain: Option<NonZeroUsize>,
}

impl<I> FixedTree<I> {
    pub(super) fn new(base: I, grain: Option<NonZeroUsize>) -> Self {
        FixedTree { base, grain }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for FixedTree<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        self.drive(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for FixedTree<I> {
    /// Hands the producer of the whole chain to the fixed-tree driver: no adapter of the
    /// chain has to pass anything on for the tree to be fixed. The mark covers the loops an
    /// adapter drives itself while it builds its producer (see `drive::AskedMark`).
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        let FixedTree { base, grain } = self;
        let len = base.len();
        let _asked = AskedMark::enter(grain);
        base.with_producer(FixedCallback {
            len,
            grain,
            consumer,
        })
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    /// For adapters over this one that drive through a producer of their own (`positions`,
    /// a scan, `position_first`): the base's producer, asking for the fixed tree with this
    /// grain (`Producer::split_tree`, which a scan reads to cut its blocks at the same
    /// leaves). The mark makes every loop started meanwhile on this thread, the driving
    /// one included, take a fixed tree with this grain even if some producer on the way
    /// does not pass the request on.
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let FixedTree { base, grain } = self;
        let _asked = AskedMark::enter(grain);
        base.with_producer(GrainCallback { callback, grain })
    }
}

/// Receives the producer of the whole indexed chain and drives it in the fixed tree.
struct FixedCallback<C> {
    len: usize,
    grain: Option<NonZeroUsize>,
    consumer: C,
}

impl<T, C: Consumer<T>> ProducerCallback<T> for FixedCallback<C> {
    type Output = C::Result;

    fn callback<P: Producer<Item = T>>(self, producer: P) -> C::Result {
        let driver = FixedDriver { grain: self.grain };
        producer.drive_with(self.len, self.consumer, driver)
    }
}

/// The fixed-tree driver with a grain, as [`Producer::drive_with`] expects it (`map_with`'s
/// producer moves its state onto the consumer side first).
struct FixedDriver {
    grain: Option<NonZeroUsize>,
}

impl IndexedDriver for FixedDriver {
    fn drive<P, C>(self, len: usize, producer: P, consumer: C) -> C::Result
    where
        P: Producer,
        C: Consumer<P::Item>,
    {
        drive_with_grain(len, self.grain, producer, consumer)
    }
}

/// Receives the base's producer and passes on one that asks for the fixed tree.
struct GrainCallback<CB> {
    callback: CB,
    grain: Option<NonZeroUsize>,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for GrainCallback<CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let grain = self.grain;
        self.callback.callback(GrainProducer { base, grain })
    }
}

/// The base's producer, asking the driver for the fixed tree with `grain`
/// ([`SplitTree::Fixed`]).
struct GrainProducer<P> {
    base: P,
    grain: Option<NonZeroUsize>,
}

impl<P: Producer> Producer for GrainProducer<P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;
    const INERT: bool = P::INERT;
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
        Some(GrainProducer {
            base: self.base.duplicate()?,
            grain: self.grain,
        })
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let grain = self.grain;
        (
            GrainProducer { base: left, grain },
            GrainProducer { base: right, grain },
        )
    }

    fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_with(folder)
    }
}
