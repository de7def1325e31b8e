//! `fold_chunks` and `fold_chunks_with`: one folded value per chunk of `chunk_size` items.
//! Built on `chunks` (each chunk is gathered into a `Vec`, then folded).

use std::fmt;

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`IndexedParallelIterator::fold_chunks`].
///
/// ```
/// use weft::prelude::*;
///
/// let sums: Vec<i32> = (1..6).into_par_iter().fold_chunks(2, || 0, |a, b| a + b).collect();
/// assert_eq!(sums, [3, 7, 5]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FoldChunks<I, ID, F> {
    base: I,
    chunk_size: usize,
    identity: ID,
    fold_op: F,
}

impl<I: fmt::Debug, ID, F> fmt::Debug for FoldChunks<I, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = self.chunk_size;
        f.debug_struct("FoldChunks")
            .field("base", &self.base)
            .field("chunk_size", &size)
            .finish()
    }
}

impl<I, ID, F> FoldChunks<I, ID, F> {
    pub(crate) fn new(base: I, chunk_size: usize, identity: ID, fold_op: F) -> Self {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        FoldChunks {
            base,
            chunk_size,
            identity,
            fold_op,
        }
    }
}

impl<I, ID, F, U> ParallelIterator for FoldChunks<I, ID, F>
where
    I: IndexedParallelIterator,
    ID: Fn() -> U + Sync + Send,
    F: Fn(U, I::Item) -> U + Sync + Send,
    U: Send,
{
    type Item = U;

    fn drive_unindexed<C: UnindexedConsumer<U>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I, ID, F, U> IndexedParallelIterator for FoldChunks<I, ID, F>
where
    I: IndexedParallelIterator,
    ID: Fn() -> U + Sync + Send,
    F: Fn(U, I::Item) -> U + Sync + Send,
    U: Send,
{
    fn drive<C: Consumer<U>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len().div_ceil(self.chunk_size)
    }

    fn with_producer<CB: ProducerCallback<U>>(self, callback: CB) -> CB::Output {
        let (identity, fold_op) = (&self.identity, &self.fold_op);
        let fold = |chunk: Vec<I::Item>| chunk.into_iter().fold(identity(), fold_op);
        self.base
            .chunks(self.chunk_size)
            .map(fold)
            .with_producer(callback)
    }
}

/// The iterator returned by [`IndexedParallelIterator::fold_chunks_with`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<u32> = (1..6u32).into_par_iter().fold_chunks_with(2, 10, |a, b| a + b).collect();
/// assert_eq!(v, [13, 17, 15]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FoldChunksWith<I, U, F> {
    base: I,
    chunk_size: usize,
    item: U,
    fold_op: F,
}

impl<I: fmt::Debug, U: fmt::Debug, F> fmt::Debug for FoldChunksWith<I, U, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldChunksWith")
            .field("base", &self.base)
            .field("chunk_size", &self.chunk_size)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, U, F> FoldChunksWith<I, U, F> {
    pub(crate) fn new(base: I, chunk_size: usize, item: U, fold_op: F) -> Self {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        FoldChunksWith {
            base,
            chunk_size,
            item,
            fold_op,
        }
    }
}

impl<I, U, F> ParallelIterator for FoldChunksWith<I, U, F>
where
    I: IndexedParallelIterator,
    U: Send + Clone,
    F: Fn(U, I::Item) -> U + Sync + Send,
{
    type Item = U;

    fn drive_unindexed<C: UnindexedConsumer<U>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I, U, F> IndexedParallelIterator for FoldChunksWith<I, U, F>
where
    I: IndexedParallelIterator,
    U: Send + Clone,
    F: Fn(U, I::Item) -> U + Sync + Send,
{
    fn drive<C: Consumer<U>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len().div_ceil(self.chunk_size)
    }

    fn with_producer<CB: ProducerCallback<U>>(self, callback: CB) -> CB::Output {
        // `map_with` hands each piece its own copy of `item` (so `U` need not be `Sync`);
        // each chunk folds from a clone of that copy.
        let fold_op = &self.fold_op;
        let fold =
            move |item: &mut U, chunk: Vec<I::Item>| chunk.into_iter().fold(item.clone(), fold_op);
        self.base
            .chunks(self.chunk_size)
            .map_with(self.item, fold)
            .with_producer(callback)
    }
}
