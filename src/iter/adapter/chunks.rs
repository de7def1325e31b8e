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
        let base_len = self.base.len();
        self.base.with_producer(ChunksCallback {
            callback,
            size: self.size,
            base_len,
        })
    }
}

struct ChunksCallback<CB> {
    callback: CB,
    size: usize,
    base_len: usize,
}

impl<T, CB: ProducerCallback<Vec<T>>> ProducerCallback<T> for ChunksCallback<CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let (size, base_len) = (self.size, self.base_len);
        self.callback.callback(ChunksProducer {
            base,
            size,
            base_len,
        })
    }
}

struct ChunksProducer<P> {
    base: P,
    size: usize,
    base_len: usize,
}

impl<P: Producer> Producer for ChunksProducer<P> {
    type Item = Vec<P::Item>;
    type IntoIter = ChunkSeq<P>;

    fn into_iter(self) -> ChunkSeq<P> {
        let base = (self.base_len > 0).then_some(self.base);
        ChunkSeq {
            base,
            size: self.size,
            base_len: self.base_len,
        }
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let mid = Ord::min(index.saturating_mul(self.size), self.base_len);
        let (left, right) = self.base.split_at(mid);
        let size = self.size;
        let left = ChunksProducer {
            base: left,
            size,
            base_len: mid,
        };
        (
            left,
            ChunksProducer {
                base: right,
                size,
                base_len: self.base_len - mid,
            },
        )
    }
}

/// The chunks of one leaf: cuts a chunk off the front (or back) of the producer.
struct ChunkSeq<P> {
    base: Option<P>,
    size: usize,
    base_len: usize,
}

/// The `len` items of `chunk` as a vector. Pushed from the producer's own `fold` into a
/// vector reserved up front, rather than `collect`ed: a producer's iterator (say a
/// `MapIter`) is not `TrustedLen`, and `collect` then writes the length back to memory and
/// tests the capacity per item (`chunks(16)` of copied `u64`s: 10 instructions per item in
/// that loop, against a copy for Rayon's `TrustedLen` iterators).
fn chunk_vec<P: Producer>(chunk: P, len: usize) -> Vec<P::Item> {
    let mut items = Vec::with_capacity(len);
    chunk.into_iter().for_each(|item| items.push(item));
    items
}

impl<P: Producer> Iterator for ChunkSeq<P> {
    type Item = Vec<P::Item>;

    fn next(&mut self) -> Option<Self::Item> {
        let base = self.base.take()?;
        let take = Ord::min(self.size, self.base_len);
        let (chunk, rest) = base.split_at(take);
        self.base_len -= take;
        if self.base_len > 0 {
            self.base = Some(rest);
        }
        Some(chunk_vec(chunk, take))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.base_len.div_ceil(self.size);
        (len, Some(len))
    }
}

impl<P: Producer> DoubleEndedIterator for ChunkSeq<P> {
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
        Some(chunk_vec(chunk, last_len))
    }
}

impl<P: Producer> ExactSizeIterator for ChunkSeq<P> {}
