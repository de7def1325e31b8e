//! `chunks`: groups consecutive items into `Vec`s of `size` (the last may be shorter).
//! Output item `i` is built from base items `i * size ..`; a leaf splits its producer
//! one chunk at a time.

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`IndexedParallelIterator::chunks`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<Vec<i32>> = (0..5).into_par_iter().chunks(2).collect();
/// assert_eq!(v, [vec![0, 1], vec![2, 3], vec![4]]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Chunks<I> {
    base: I,
    size: usize,
}

impl<I> Chunks<I> {
    pub(crate) fn new(base: I, size: usize) -> Self {
        assert!(size != 0, "chunk_size must not be zero");
        Chunks { base, size }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Chunks<I> {
    type Item = Vec<I::Item>;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Chunks<I> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        with_chunk_producer(self.base, self.size, CollectChunk, callback)
    }
}

/// What becomes of each chunk: `chunks` collects it into a `Vec`, `fold_chunks` folds it
/// in place (no `Vec` per chunk).
pub(crate) trait PerChunk<T>: Clone + Send {
    /// The item made from one chunk.
    type Output;

    /// Whether making an item runs no user code, so that a skipped chunk need not be made
    /// (see `Producer::INERT`).
    const INERT: bool;

    /// The item for the chunk `items` (`len` items).
    fn per_chunk<It: Iterator<Item = T>>(&self, items: It, len: usize) -> Self::Output;
}

/// `chunks`: each chunk as a `Vec`.
#[derive(Clone, Copy)]
struct CollectChunk;

impl<T> PerChunk<T> for CollectChunk {
    type Output = Vec<T>;
    const INERT: bool = true;

    /// `extend`ed into a vector reserved up front. From a `TrustedLen` iterator (std's
    /// `Copied` of a slice's, which `copied()` passes on) that is one copy of the block;
    /// from any other (say a `MapIter`) std's loop tests the capacity per item, but that
    /// test never fails here, and both beat pushing every item from the iterator's own
    /// `fold`.
    fn per_chunk<It: Iterator<Item = T>>(&self, items: It, len: usize) -> Vec<T> {
        let mut chunk = Vec::with_capacity(len);
        chunk.extend(items);
        chunk
    }
}

/// Drives `base` as chunks of `size` items, each turned into one item by `per_chunk`.
pub(crate) fn with_chunk_producer<I, K, CB>(
    base: I,
    size: usize,
    per_chunk: K,
    callback: CB,
) -> CB::Output
where
    I: IndexedParallelIterator,
    K: PerChunk<I::Item>,
    CB: ProducerCallback<K::Output>,
{
    let base_len = base.len();
    base.with_producer(ChunksCallback {
        callback,
        size,
        base_len,
        per_chunk,
    })
}

struct ChunksCallback<CB, K> {
    callback: CB,
    size: usize,
    base_len: usize,
    per_chunk: K,
}

impl<T, K, CB> ProducerCallback<T> for ChunksCallback<CB, K>
where
    K: PerChunk<T>,
    CB: ProducerCallback<K::Output>,
{
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let (size, base_len, per_chunk) = (self.size, self.base_len, self.per_chunk);
        self.callback.callback(ChunksProducer {
            base,
            size,
            base_len,
            per_chunk,
        })
    }
}

struct ChunksProducer<P, K> {
    base: P,
    size: usize,
    base_len: usize,
    per_chunk: K,
}

impl<P: Producer, K: PerChunk<P::Item>> Producer for ChunksProducer<P, K> {
    type Item = K::Output;
    type IntoIter = ChunkSeq<P, K>;
    const INERT: bool = P::INERT && K::INERT;

    fn into_iter(self) -> ChunkSeq<P, K> {
        let base = (self.base_len > 0).then_some(self.base);
        ChunkSeq {
            base,
            size: self.size,
            base_len: self.base_len,
            per_chunk: self.per_chunk,
        }
    }

    fn split_tree(&self) -> crate::plumbing::SplitTree {
        self.base.split_tree()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let mid = Ord::min(index.saturating_mul(self.size), self.base_len);
        let (left, right) = self.base.split_at(mid);
        let size = self.size;
        let left = ChunksProducer {
            base: left,
            size,
            base_len: mid,
            per_chunk: self.per_chunk.clone(),
        };
        (
            left,
            ChunksProducer {
                base: right,
                size,
                base_len: self.base_len - mid,
                per_chunk: self.per_chunk,
            },
        )
    }
}

struct ChunkSeq<P, K> {
    base: Option<P>,
    size: usize,
    base_len: usize,
    per_chunk: K,
}

impl<P: Producer, K: PerChunk<P::Item>> Iterator for ChunkSeq<P, K> {
    type Item = K::Output;

    fn next(&mut self) -> Option<Self::Item> {
        let base = self.base.take()?;
        let take = Ord::min(self.size, self.base_len);
        let (chunk, rest) = base.split_at(take);
        self.base_len -= take;
        if self.base_len > 0 {
            self.base = Some(rest);
        }
        Some(self.per_chunk.per_chunk(chunk.into_iter(), take))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.base_len.div_ceil(self.size);
        (len, Some(len))
    }

    /// A leaf's whole run of chunks: the rest carried as a plain producer, not taken out of
    /// an `Option` and put back per chunk as `next` must.
    fn fold<B, G>(self, init: B, mut g: G) -> B
    where
        G: FnMut(B, Self::Item) -> B,
    {
        // `base` is `Some` only while `base_len > 0`, so the last chunk is never empty.
        let Some(mut base) = self.base else {
            return init;
        };
        let (size, per_chunk) = (self.size, self.per_chunk);
        let (mut left, mut acc) = (self.base_len, init);
        while left > size {
            let (chunk, rest) = base.split_at(size);
            acc = g(acc, per_chunk.per_chunk(chunk.into_iter(), size));
            (base, left) = (rest, left - size);
        }
        g(acc, per_chunk.per_chunk(base.into_iter(), left))
    }

    /// Over inert items (see `Producer::INERT`), `n` chunks are cut off and dropped in one
    /// `split_at`: `step_by` over chunks of a range costs the chunks it keeps. Otherwise
    /// every skipped chunk is made, as Rayon makes it.
    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        if !<ChunksProducer<P, K> as Producer>::INERT {
            for _ in 0..n {
                self.next()?;
            }
            return self.next();
        }
        let skip = n.saturating_mul(self.size);
        if skip >= self.base_len {
            (self.base, self.base_len) = (None, 0);
            return None;
        }
        let base = self.base.take()?;
        let (_, rest) = base.split_at(skip);
        (self.base, self.base_len) = (Some(rest), self.base_len - skip);
        self.next()
    }
}

impl<P: Producer, K: PerChunk<P::Item>> DoubleEndedIterator for ChunkSeq<P, K> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let base = self.base.take()?;
        let last_len = match self.base_len % self.size {
            0 => self.size,
            short => short,
        };
        let (rest, chunk) = base.split_at(self.base_len - last_len);
        self.base_len -= last_len;
        if self.base_len > 0 {
            self.base = Some(rest);
        }
        Some(self.per_chunk.per_chunk(chunk.into_iter(), last_len))
    }

    /// As [`nth`](Iterator::nth), from the back.
    fn nth_back(&mut self, n: usize) -> Option<Self::Item> {
        let len = self.len();
        if !<ChunksProducer<P, K> as Producer>::INERT || n >= len {
            for _ in 0..n {
                self.next_back()?;
            }
            return self.next_back();
        }
        // Keep the first `len - n` chunks: all of them full but the last.
        let keep = Ord::min((len - n) * self.size, self.base_len);
        let base = self.base.take()?;
        let (kept, _) = base.split_at(keep);
        (self.base, self.base_len) = (Some(kept), keep);
        self.next_back()
    }
}

impl<P: Producer, K: PerChunk<P::Item>> ExactSizeIterator for ChunkSeq<P, K> {}
