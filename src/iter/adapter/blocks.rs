//! `by_exponential_blocks` and `by_uniform_blocks`: run an indexed iterator as a sequence
//! of blocks, one after another, each block in parallel. Later blocks are not started once
//! the consumer is full, so `find_first` and friends stop early on long inputs.

use crate::drive::pacing_workers;
use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`IndexedParallelIterator::by_exponential_blocks`]: blocks
/// start at a few items per thread (4 per thread, or 4 when nested in a leaf of a
/// deterministic chain) and double.
///
/// ```
/// use weft::prelude::*;
///
/// let first = (0..1_000_000).into_par_iter().by_exponential_blocks().find_first(|&x| x > 10);
/// assert_eq!(first, Some(11));
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct ExponentialBlocks<I> {
    base: I,
}

impl<I> ExponentialBlocks<I> {
    pub(crate) fn new(base: I) -> Self {
        ExponentialBlocks { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for ExponentialBlocks<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let len = self.base.len();
        // Inside a fixed tree's leaf, as on a pool of one: the blocks must not depend on
        // the pool there (`deterministic()`).
        let first = 4 * pacing_workers();
        self.base.with_producer(BlocksCallback {
            consumer,
            len,
            first,
            grow: true,
        })
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

/// The iterator returned by [`IndexedParallelIterator::by_uniform_blocks`]: blocks of
/// `block_size` items.
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = (0..10).into_par_iter().by_uniform_blocks(3).collect();
/// assert_eq!(v, (0..10).collect::<Vec<_>>());
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct UniformBlocks<I> {
    base: I,
    block_size: usize,
}

impl<I> UniformBlocks<I> {
    pub(crate) fn new(base: I, block_size: usize) -> Self {
        assert!(block_size != 0, "block_size must not be zero");
        UniformBlocks { base, block_size }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for UniformBlocks<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let (len, first) = (self.base.len(), self.block_size);
        self.base.with_producer(BlocksCallback {
            consumer,
            len,
            first,
            grow: false,
        })
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

struct BlocksCallback<C> {
    consumer: C,
    len: usize,
    first: usize,
    grow: bool,
}

impl<T, C: Consumer<T>> ProducerCallback<T> for BlocksCallback<C> {
    type Output = C::Result;

    fn callback<P: Producer<Item = T>>(self, producer: P) -> C::Result {
        let (mut producer, mut consumer) = (producer, self.consumer);
        let (mut remaining, mut block) = (self.len, Ord::max(self.first, 1));
        let mut done: Option<(C::Result, C::Reducer)> = None;
        while remaining > block && !consumer.full() {
            let (block_producer, rest_producer) = producer.split_at(block);
            let (block_consumer, rest_consumer, reducer) =
                consumer.split_at_sized(block, remaining);
            let result = bridge_producer_consumer(block, block_producer, block_consumer);
            done = Some(match done {
                None => (result, reducer),
                Some((before, previous)) => (previous.reduce(before, result), reducer),
            });
            (producer, consumer, remaining) = (rest_producer, rest_consumer, remaining - block);
            if self.grow {
                block = block.saturating_mul(2);
            }
        }
        let last = if consumer.full() {
            consumer.into_folder().complete()
        } else {
            bridge_producer_consumer(remaining, producer, consumer)
        };
        match done {
            None => last,
            Some((before, reducer)) => reducer.reduce(before, last),
        }
    }
}
