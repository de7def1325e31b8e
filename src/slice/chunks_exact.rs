//! `par_chunks_exact`, `par_chunks_exact_mut`, `par_rchunks_exact` and `par_rchunks_exact_mut`: the slice is cut
//! into whole chunks plus a remainder, and the whole part is iterated by the plain chunk
//! iterators.

use super::chunks::{check_chunk_size, Chunks, ChunksMut};
use super::rchunks::{RChunks, RChunksMut};
use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// Parallel iterator over chunks of exactly `size` items; the remainder is left out.
///
/// ```
/// use weft::prelude::*;
///
/// let data = [1, 2, 3, 4, 5];
/// let chunks = data.par_chunks_exact(2);
/// assert_eq!(chunks.remainder(), &[5]);
/// assert_eq!(chunks.collect::<Vec<_>>(), [&[1, 2][..], &[3, 4][..]]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug)]
pub struct ChunksExact<'data, T> {
    chunks: Chunks<'data, T>,
    rem: &'data [T],
}

impl<T> Clone for ChunksExact<'_, T> {
    fn clone(&self) -> Self {
        ChunksExact {
            chunks: self.chunks.clone(),
            rem: self.rem,
        }
    }
}

impl<'data, T: Sync> ChunksExact<'data, T> {
    pub(super) fn new(slice: &'data [T], size: usize) -> Self {
        check_chunk_size(size);
        let (whole, rem) = slice.split_at(slice.len() - slice.len() % size);
        ChunksExact {
            chunks: Chunks::new(whole, size),
            rem,
        }
    }

    /// The items left over after the last whole chunk (fewer than `size`).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([1, 2, 3].par_chunks_exact(2).remainder(), &[3]);
    /// ```
    pub fn remainder(&self) -> &'data [T] {
        self.rem
    }
}

/// Parallel iterator over mutable chunks of exactly `size` items from the start, from
/// [`par_chunks_exact_mut`](super::ParallelSliceMut::par_chunks_exact_mut).
///
/// ```
/// use weft::prelude::*;
///
/// let mut v = [1, 2, 3, 4, 5];
/// v.par_chunks_exact_mut(2).for_each(|c| c.swap(0, 1));
/// assert_eq!(v, [2, 1, 4, 3, 5]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug)]
pub struct ChunksExactMut<'data, T> {
    chunks: ChunksMut<'data, T>,
    rem: &'data mut [T],
}

impl<'data, T: Send> ChunksExactMut<'data, T> {
    pub(super) fn new(slice: &'data mut [T], size: usize) -> Self {
        check_chunk_size(size);
        let whole = slice.len() - slice.len() % size;
        let (whole, rem) = slice.split_at_mut(whole);
        ChunksExactMut {
            chunks: ChunksMut::new(whole, size),
            rem,
        }
    }

    /// The items after the last whole chunk, consuming the iterator.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [1, 2, 3];
    /// assert_eq!(v.par_chunks_exact_mut(2).into_remainder(), &mut [3]);
    /// ```
    pub fn into_remainder(self) -> &'data mut [T] {
        self.rem
    }

    /// The items after the last whole chunk, borrowed through the iterator.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [1, 2, 3];
    /// let mut chunks = v.par_chunks_exact_mut(2);
    /// chunks.remainder()[0] = 7;
    /// assert_eq!(chunks.count(), 1);
    /// assert_eq!(v, [1, 2, 7]);
    /// ```
    pub fn remainder(&mut self) -> &mut [T] {
        self.rem
    }

    /// The items after the last whole chunk, with the slice's lifetime; later calls return an empty slice.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [1, 2, 3];
    /// let mut chunks = v.par_chunks_exact_mut(2);
    /// assert_eq!(chunks.take_remainder(), &mut [3]);
    /// assert!(chunks.take_remainder().is_empty());
    /// ```
    pub fn take_remainder(&mut self) -> &'data mut [T] {
        std::mem::take(&mut self.rem)
    }
}

/// Parallel iterator over chunks of exactly `size` items from the end, from
/// [`par_rchunks_exact`](super::ParallelSlice::par_rchunks_exact).
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<&[i32]> = [1, 2, 3, 4, 5].par_rchunks_exact(2).collect();
/// assert_eq!(v, [&[4, 5][..], &[2, 3][..]]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug)]
pub struct RChunksExact<'data, T> {
    chunks: RChunks<'data, T>,
    rem: &'data [T],
}

impl<T> Clone for RChunksExact<'_, T> {
    fn clone(&self) -> Self {
        RChunksExact {
            chunks: self.chunks.clone(),
            rem: self.rem,
        }
    }
}

impl<'data, T: Sync> RChunksExact<'data, T> {
    pub(super) fn new(slice: &'data [T], size: usize) -> Self {
        check_chunk_size(size);
        let (rem, whole) = slice.split_at(slice.len() % size);
        RChunksExact {
            chunks: RChunks::new(whole, size),
            rem,
        }
    }

    /// The items before the first whole chunk (fewer than `size`).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([1, 2, 3].par_rchunks_exact(2).remainder(), &[1]);
    /// ```
    pub fn remainder(&self) -> &'data [T] {
        self.rem
    }
}

/// Parallel iterator over mutable chunks of exactly `size` items from the end, from
/// [`par_rchunks_exact_mut`](super::ParallelSliceMut::par_rchunks_exact_mut).
///
/// ```
/// use weft::prelude::*;
///
/// let mut v = [1, 2, 3, 4, 5];
/// v.par_rchunks_exact_mut(2).for_each(|c| c.swap(0, 1));
/// assert_eq!(v, [1, 3, 2, 5, 4]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug)]
pub struct RChunksExactMut<'data, T> {
    chunks: RChunksMut<'data, T>,
    rem: &'data mut [T],
}

impl<'data, T: Send> RChunksExactMut<'data, T> {
    pub(super) fn new(slice: &'data mut [T], size: usize) -> Self {
        check_chunk_size(size);
        let (rem, whole) = slice.split_at_mut(slice.len() % size);
        RChunksExactMut {
            chunks: RChunksMut::new(whole, size),
            rem,
        }
    }

    /// The items before the first whole chunk, consuming the iterator.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [1, 2, 3];
    /// assert_eq!(v.par_rchunks_exact_mut(2).into_remainder(), &mut [1]);
    /// ```
    pub fn into_remainder(self) -> &'data mut [T] {
        self.rem
    }

    /// The items before the first whole chunk, borrowed through the iterator.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [1, 2, 3];
    /// let mut chunks = v.par_rchunks_exact_mut(2);
    /// chunks.remainder()[0] = 7;
    /// assert_eq!(chunks.count(), 1);
    /// assert_eq!(v, [7, 2, 3]);
    /// ```
    pub fn remainder(&mut self) -> &mut [T] {
        self.rem
    }

    /// The items before the first whole chunk, with the slice's lifetime; later calls return an empty slice.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [1, 2, 3];
    /// let mut chunks = v.par_rchunks_exact_mut(2);
    /// assert_eq!(chunks.take_remainder(), &mut [1]);
    /// assert!(chunks.take_remainder().is_empty());
    /// ```
    pub fn take_remainder(&mut self) -> &'data mut [T] {
        std::mem::take(&mut self.rem)
    }
}

/// The `ParallelIterator` and `IndexedParallelIterator` impls: delegate to `chunks`.
macro_rules! delegate_to_chunks {
    ($name:ident, $bound:ident, $item:ty) => {
        impl<'data, T: $bound> ParallelIterator for $name<'data, T> {
            type Item = $item;
            fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
                self.chunks.drive_unindexed(consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                self.chunks.opt_len()
            }
        }
        impl<'data, T: $bound> IndexedParallelIterator for $name<'data, T> {
            fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
                self.chunks.drive(consumer)
            }
            fn len(&self) -> usize {
                self.chunks.len()
            }
            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                self.chunks.with_producer(callback)
            }
        }
    };
}

/// Like `delegate_to_chunks`, but the producer's sequential iterator is std's
/// `chunks_exact`(`_mut`), whose chunks have a length known to the loop: `chunks` would
/// recompute `min(size, rest)` per chunk.
macro_rules! exact_chunks {
    ($name:ident, $bound:ident, $item:ty, $producer:ident, $iter:ident, $method:ident,
     $split:ident) => {
        impl<'data, T: $bound> ParallelIterator for $name<'data, T> {
            type Item = $item;
            fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                self.chunks.opt_len()
            }
        }
        impl<'data, T: $bound> IndexedParallelIterator for $name<'data, T> {
            fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn len(&self) -> usize {
                self.chunks.len()
            }
            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                let (slice, size) = self.chunks.into_parts();
                callback.callback($producer { slice, size })
            }
        }

        /// Whole chunks of `size` items (`slice.len()` is a multiple of `size`).
        struct $producer<'data, T> {
            slice: $item,
            size: usize,
        }

        impl<'data, T: $bound> Producer for $producer<'data, T> {
            type Item = $item;
            type IntoIter = std::slice::$iter<'data, T>;
            const INERT: bool = true;

            fn into_iter(self) -> Self::IntoIter {
                self.slice.$method(self.size)
            }

            fn split_at(self, index: usize) -> (Self, Self) {
                let mid = Ord::min(index.saturating_mul(self.size), self.slice.len());
                let (left, right) = self.slice.$split(mid);
                let size = self.size;
                (
                    $producer { slice: left, size },
                    $producer { slice: right, size },
                )
            }
        }
    };
}

exact_chunks!(
    ChunksExact,
    Sync,
    &'data [T],
    ChunksExactProducer,
    ChunksExact,
    chunks_exact,
    split_at
);
exact_chunks!(
    ChunksExactMut,
    Send,
    &'data mut [T],
    ChunksExactMutProducer,
    ChunksExactMut,
    chunks_exact_mut,
    split_at_mut
);
delegate_to_chunks!(RChunksExact, Sync, &'data [T]);
delegate_to_chunks!(RChunksExactMut, Send, &'data mut [T]);
