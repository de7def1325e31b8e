//! `par_rchunks` and `par_rchunks_mut`: chunks counted from the end of the slice; chunk `i`
//! ends `i * size` items before the end, and the short chunk (if any) comes last.

use super::chunks::check_chunk_size;
use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator over chunks taken from the end, from
/// [`par_rchunks`](super::ParallelSlice::par_rchunks).
///
/// ```
/// use weft::prelude::*;
///
/// let chunks: Vec<&[i32]> = [1, 2, 3, 4, 5].par_rchunks(2).collect();
/// assert_eq!(chunks, [&[4, 5][..], &[2, 3][..], &[1][..]]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug)]
pub struct RChunks<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<T> Clone for RChunks<'_, T> {
    fn clone(&self) -> Self {
        RChunks { ..*self }
    }
}

impl<'data, T: Sync> RChunks<'data, T> {
    pub(super) fn new(slice: &'data [T], size: usize) -> Self {
        check_chunk_size(size);
        RChunks { slice, size }
    }
}

impl<'data, T: Sync> ParallelIterator for RChunks<'data, T> {
    type Item = &'data [T];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'data, T: Sync> IndexedParallelIterator for RChunks<'data, T> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(RChunksProducer {
            slice: self.slice,
            size: self.size,
        })
    }
}

struct RChunksProducer<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<'data, T: Sync> Producer for RChunksProducer<'data, T> {
    type Item = &'data [T];
    type IntoIter = std::slice::RChunks<'data, T>;
    const INERT: bool = true;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.rchunks(self.size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let taken = Ord::min(index.saturating_mul(self.size), self.slice.len());
        let (front, back) = self.slice.split_at(self.slice.len() - taken);
        let size = self.size;
        (
            RChunksProducer { slice: back, size },
            RChunksProducer { slice: front, size },
        )
    }
}

/// Parallel iterator over mutable chunks taken from the end, from
/// [`par_rchunks_mut`](super::ParallelSliceMut::par_rchunks_mut).
///
/// ```
/// use weft::prelude::*;
///
/// let mut v = [0; 5];
/// v.par_rchunks_mut(2).enumerate().for_each(|(i, c)| c.fill(i));
/// assert_eq!(v, [2, 1, 1, 0, 0]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug)]
pub struct RChunksMut<'data, T> {
    slice: &'data mut [T],
    size: usize,
}

impl<'data, T: Send> RChunksMut<'data, T> {
    pub(super) fn new(slice: &'data mut [T], size: usize) -> Self {
        check_chunk_size(size);
        RChunksMut { slice, size }
    }
}

impl<'data, T: Send> ParallelIterator for RChunksMut<'data, T> {
    type Item = &'data mut [T];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'data, T: Send> IndexedParallelIterator for RChunksMut<'data, T> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(RChunksMutProducer {
            slice: self.slice,
            size: self.size,
        })
    }
}

struct RChunksMutProducer<'data, T> {
    slice: &'data mut [T],
    size: usize,
}

impl<'data, T: Send> Producer for RChunksMutProducer<'data, T> {
    type Item = &'data mut [T];
    type IntoIter = std::slice::RChunksMut<'data, T>;
    const INERT: bool = true;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.rchunks_mut(self.size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let taken = Ord::min(index.saturating_mul(self.size), self.slice.len());
        let mid = self.slice.len() - taken;
        let (front, back) = self.slice.split_at_mut(mid);
        let size = self.size;
        (
            RChunksMutProducer { slice: back, size },
            RChunksMutProducer { slice: front, size },
        )
    }
}
