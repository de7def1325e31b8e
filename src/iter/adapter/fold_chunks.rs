//! `fold_chunks` and `fold_chunks_with`: one folded value per chunk of `chunk_size` items.
//! Built on `chunks`' producer, each chunk folded in place: gathering each chunk into a
//! `Vec` first, as `chunks(n).map(fold)`, costs an allocation and a copy per chunk.

use std::fmt;

use super::chunks::{with_chunk_producer, PerChunk};
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
        let FoldChunks {
            base,
            chunk_size,
            identity,
            fold_op,
        } = self;
        let fold = FoldChunk {
            identity: &identity,
            fold_op: &fold_op,
        };
        with_chunk_producer(base, chunk_size, fold, callback)
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
        let FoldChunksWith {
            base,
            chunk_size,
            item,
            fold_op,
        } = self;
        // Each piece of the producer owns a copy of `item` (so `U` need not be `Sync`);
        // each chunk folds from a clone of that copy.
        let fold = FoldChunkWith {
            item,
            fold_op: &fold_op,
        };
        with_chunk_producer(base, chunk_size, fold, callback)
    }
}

/// `fold_chunks`: each chunk folded from `identity()`.
struct FoldChunk<'f, ID, F> {
    identity: &'f ID,
    fold_op: &'f F,
}

impl<ID, F> Clone for FoldChunk<'_, ID, F> {
    fn clone(&self) -> Self {
        FoldChunk {
            identity: self.identity,
            fold_op: self.fold_op,
        }
    }
}

impl<T, U, ID, F> PerChunk<T> for FoldChunk<'_, ID, F>
where
    ID: Fn() -> U + Sync,
    F: Fn(U, T) -> U + Sync,
{
    type Output = U;
    const INERT: bool = false;

    #[allow(clippy::redundant_closure)] // a direct call, not `&F`'s shim: see `MapIter`
    fn per_chunk<It: Iterator<Item = T>>(&self, items: It, _len: usize) -> U {
        // A direct call, not `&F`'s `FnMut` shim (see `MapIter`).
        let fold_op = self.fold_op;
        items.fold((self.identity)(), |acc, item| fold_op(acc, item))
    }
}

/// `fold_chunks_with`: each chunk folded from a clone of the piece's own `item`.
struct FoldChunkWith<'f, U, F> {
    item: U,
    fold_op: &'f F,
}

impl<U: Clone, F> Clone for FoldChunkWith<'_, U, F> {
    fn clone(&self) -> Self {
        FoldChunkWith {
            item: self.item.clone(),
            fold_op: self.fold_op,
        }
    }
}

impl<T, U, F> PerChunk<T> for FoldChunkWith<'_, U, F>
where
    U: Clone + Send,
    F: Fn(U, T) -> U + Sync,
{
    type Output = U;
    const INERT: bool = false;

    #[allow(clippy::redundant_closure)] // a direct call, not `&F`'s shim: see `MapIter`
    fn per_chunk<It: Iterator<Item = T>>(&self, items: It, _len: usize) -> U {
        let fold_op = self.fold_op;
        items.fold(self.item.clone(), |acc, item| fold_op(acc, item))
    }
}
