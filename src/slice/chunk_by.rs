//! `par_chunk_by` and `par_chunk_by_mut`: runs of neighbours related by a predicate. A piece
//! splits only between two neighbours the predicate separates, so the runs of the halves are
//! the runs of the whole. One producer serves both, generic over [`Piece`].

use super::piece::{piece_iterator, position_near_middle, Piece};
use crate::iter::plumbing::*;

piece_iterator! {
    /// Parallel iterator over runs, from [`par_chunk_by`](super::ParallelSlice::par_chunk_by).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let runs: Vec<&[i32]> = [1, 1, 2, 3, 3].par_chunk_by(|a, b| a == b).collect();
    /// assert_eq!(runs, [&[1, 1][..], &[2][..], &[3, 3][..]]);
    /// ```
    ChunkBy: Clone, &'data [T], where [T: Sync, P: Fn(&T, &T) -> bool + Send + Sync],
    |slice, pred| ChunkByProducer { piece: slice, pred }
}

piece_iterator! {
    /// Parallel iterator over mutable runs, from
    /// [`par_chunk_by_mut`](super::ParallelSliceMut::par_chunk_by_mut).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [1, 1, 2, 3, 3, 3];
    /// v.par_chunk_by_mut(|a, b| a == b).for_each(|run| {
    ///     let len = run.len() as i32;
    ///     run.iter_mut().for_each(|x| *x *= len);
    /// });
    /// assert_eq!(v, [2, 2, 2, 9, 9, 9]);
    /// ```
    ChunkByMut, &'data mut [T], where [T: Send, P: Fn(&T, &T) -> bool + Send + Sync],
    |slice, pred| ChunkByProducer { piece: slice, pred }
}

/// `S` is `&[T]` or `&mut [T]`.
struct ChunkByProducer<'p, S, F> {
    piece: S,
    pred: &'p F,
}

impl<S, F> UnindexedProducer for ChunkByProducer<'_, S, F>
where
    S: Piece,
    F: Fn(&S::Elem, &S::Elem) -> bool + Sync,
{
    type Item = S;

    fn split(self) -> (Self, Option<Self>) {
        let pred = self.pred;
        let pairs = self.piece.elems().windows(2);
        // A break between pair `i`'s two items is a cut before item `i + 1`.
        match position_near_middle(pairs, |pair| !pred(&pair[0], &pair[1])) {
            None => (self, None),
            Some(i) => {
                let (left, right) = self.piece.cut(i + 1);
                (
                    ChunkByProducer { piece: left, pred },
                    Some(ChunkByProducer { piece: right, pred }),
                )
            }
        }
    }

    fn fold_with<G: Folder<S>>(self, folder: G) -> G {
        self.piece.fold_chunk_by(self.pred, folder)
    }
}
