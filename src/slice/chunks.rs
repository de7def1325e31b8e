//! `par_chunks` and `par_chunks_mut`: indexed iterators over
//! consecutive sub-slices; chunk `i` starts at `i * size`.

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Panics with a clear message unless `size > 0`.
pub(super) fn check_chunk_size(size: usize) {
    assert!(size != 0, "chunk_size must not be zero");
}

/// Parallel iterator over chunks of a slice, from [`par_chunks`](super::ParallelSlice::par_chunks)
/// (and [`par_chunks_exact`](super::ParallelSlice::par_chunks_exact), whose slice is cut
/// to a multiple of the size).
///
/// ```
/// use weft::prelude::*;
///
/// let sums: Vec<i32> = [1, 2, 3, 4, 5].par_chunks(2).map(|c| c.iter().sum()).collect();
/// assert_eq!(sums, [3, 7, 5]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug)]
pub struct Chunks<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<T> Clone for Chunks<'_, T> {
    fn clone(&self) -> Self {
        Chunks { ..*self }
    }
}

impl<'data, T: Sync> Chunks<'data, T> {
    pub(super) fn new(slice: &'data [T], size: usize) -> Self {
        check_chunk_size(size);
        Chunks { slice, size }
    }

    /// The slice and the chunk size.
    pub(super) fn into_parts(self) -> (&'data [T], usize) {
        (self.slice, self.size)
    }
}

impl<'data, T: Sync> ParallelIterator for Chunks<'data, T> {
    type Item = &'data [T];

    #[inline]
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'data, T: Sync> IndexedParallelIterator for Chunks<'data, T> {
    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(ChunksProducer {
            slice: self.slice,
            size: self.size,
        })
    }
}

struct ChunksProducer<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<'data, T: Sync> Producer for ChunksProducer<'data, T> {
    type Item = &'data [T];
    type IntoIter = std::slice::Chunks<'data, T>;
    const INERT: bool = true;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks(self.size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let mid = Ord::min(index.saturating_mul(self.size), self.slice.len());
        let (left, right) = self.slice.split_at(mid);
        let size = self.size;
        (
            ChunksProducer { slice: left, size },
            ChunksProducer { slice: right, size },
        )
    }
}

/// Parallel iterator over mutable chunks, from
/// [`par_chunks_mut`](super::ParallelSliceMut::par_chunks_mut).
///
/// ```
/// use weft::prelude::*;
///
/// let mut v = [0; 5];
/// v.par_chunks_mut(2).enumerate().for_each(|(i, c)| c.fill(i));
/// assert_eq!(v, [0, 0, 1, 1, 2]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug)]
pub struct ChunksMut<'data, T> {
    slice: &'data mut [T],
    size: usize,
}

impl<'data, T: Send> ChunksMut<'data, T> {
    pub(super) fn new(slice: &'data mut [T], size: usize) -> Self {
        check_chunk_size(size);
        ChunksMut { slice, size }
    }

    /// The slice and the chunk size.
    pub(super) fn into_parts(self) -> (&'data mut [T], usize) {
        (self.slice, self.size)
    }
}

impl<'data, T: Send> ParallelIterator for ChunksMut<'data, T> {
    type Item = &'data mut [T];

    #[inline]
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'data, T: Send> IndexedParallelIterator for ChunksMut<'data, T> {
    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(ChunksMutProducer {
            slice: self.slice,
            size: self.size,
        })
    }
}

struct ChunksMutProducer<'data, T> {
    slice: &'data mut [T],
    size: usize,
}

impl<'data, T: Send> Producer for ChunksMutProducer<'data, T> {
    type Item = &'data mut [T];
    type IntoIter = std::slice::ChunksMut<'data, T>;
    const INERT: bool = true;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks_mut(self.size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let mid = Ord::min(index.saturating_mul(self.size), self.slice.len());
        let (left, right) = self.slice.split_at_mut(mid);
        let size = self.size;
        (
            ChunksMutProducer { slice: left, size },
            ChunksMutProducer { slice: right, size },
        )
    }
}
