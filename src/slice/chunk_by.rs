//! `par_chunk_by`: runs of neighbours related by a predicate. A piece splits only between
//! two neighbours the predicate separates, so the runs of the halves are the runs of the
//! whole.

use std::fmt;

use crate::iter::plumbing::*;
use crate::iter::ParallelIterator;

/// Parallel iterator over runs, from [`par_chunk_by`](super::ParallelSlice::par_chunk_by).
///
/// ```
/// use weft::prelude::*;
///
/// let runs: Vec<&[i32]> = [1, 1, 2, 3, 3].par_chunk_by(|a, b| a == b).collect();
/// assert_eq!(runs, [&[1, 1][..], &[2][..], &[3, 3][..]]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct ChunkBy<'data, T, F> {
    slice: &'data [T],
    pred: F,
}

impl<T: fmt::Debug, F> fmt::Debug for ChunkBy<'_, T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkBy")
            .field("slice", &self.slice)
            .finish()
    }
}

impl<'data, T, F> ChunkBy<'data, T, F> {
    pub(super) fn new(slice: &'data [T], pred: F) -> Self {
        ChunkBy { slice, pred }
    }
}

impl<'data, T, F> ParallelIterator for ChunkBy<'data, T, F>
where
    T: Sync,
    F: Fn(&T, &T) -> bool + Send + Sync,
{
    type Item = &'data [T];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            ChunkByProducer {
                slice: self.slice,
                pred: &self.pred,
            },
            consumer,
        )
    }
}

struct ChunkByProducer<'data, 'p, T, F> {
    slice: &'data [T],
    pred: &'p F,
}

impl<'data, T, F> UnindexedProducer for ChunkByProducer<'data, '_, T, F>
where
    T: Sync,
    F: Fn(&T, &T) -> bool + Sync,
{
    type Item = &'data [T];

    fn split(self) -> (Self, Option<Self>) {
        let (slice, pred) = (self.slice, self.pred);
        let breaks_before = |i: &usize| !pred(&slice[i - 1], &slice[*i]);
        let mid = slice.len() / 2;
        let at = (1..=mid)
            .rev()
            .find(breaks_before)
            .or_else(|| (mid + 1..slice.len()).find(breaks_before));
        match at {
            Some(at) if at > 0 => {
                let (left, right) = slice.split_at(at);
                (
                    ChunkByProducer { slice: left, pred },
                    Some(ChunkByProducer { slice: right, pred }),
                )
            }
            _ => (self, None),
        }
    }

    fn fold_with<G: Folder<Self::Item>>(self, folder: G) -> G {
        folder.consume_iter(self.slice.chunk_by(self.pred))
    }
}
