//! `par_chunk_by` and `par_chunk_by_mut`: runs of neighbours related by a predicate. A piece
//! splits only between two neighbours the predicate separates, so the runs of the halves are
//! the runs of the whole. One producer serves both, generic over [`Piece`].
//!
//! The predicate runs once per pair of neighbours, as in a sequential `chunk_by` (and in
//! Rayon): what a split's search has learnt (a stretch of pairs that hold) stays with the
//! piece it belongs to, and neither later splits nor the leaf ask about those pairs again.

use super::piece::{piece_iterator, Piece};
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
    |slice, pred| ChunkByProducer::new(slice, pred)
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
    |slice, pred| ChunkByProducer::new(slice, pred)
}

/// `S` is `&[T]` or `&mut [T]`. Pair `i` is the two neighbours `i` and `i + 1` of `piece`.
/// Pairs `unknown..` are known to hold (the piece ends in one run from item `unknown` on,
/// found by an earlier search); pairs `..unknown` have not been asked about.
struct ChunkByProducer<'p, S, F> {
    piece: S,
    pred: &'p F,
    unknown: usize,
}

impl<'p, S: Piece, F> ChunkByProducer<'p, S, F> {
    /// A piece none of whose pairs has been asked about.
    fn new(piece: S, pred: &'p F) -> Self {
        let unknown = piece.elems().len().saturating_sub(1);
        ChunkByProducer {
            piece,
            pred,
            unknown,
        }
    }
}

/// Whether `pred` separates pair `i` of `elems`.
fn breaks<T, F: Fn(&T, &T) -> bool>(elems: &[T], pred: &F, i: usize) -> bool {
    !pred(&elems[i], &elems[i + 1])
}

impl<S, F> UnindexedProducer for ChunkByProducer<'_, S, F>
where
    S: Piece,
    F: Fn(&S::Elem, &S::Elem) -> bool + Sync,
{
    type Item = S;

    fn split(self) -> (Self, Option<Self>) {
        let (pred, unknown) = (self.pred, self.unknown);
        let elems = self.piece.elems();
        // Look for a break from the middle of the unknown pairs up, then down: the pairs
        // passed over hold, and they end up at the end of the left piece or all in the
        // right piece, so each piece's known pairs stay a suffix.
        let mid = unknown / 2;
        let (cut, left_unknown, right_unknown) =
            match (mid..unknown).find(|&i| breaks(elems, pred, i)) {
                Some(i) => (i + 1, mid, unknown - (i + 1)),
                None => match (0..mid).rev().find(|&i| breaks(elems, pred, i)) {
                    Some(i) => (i + 1, i, 0),
                    None => return (ChunkByProducer { unknown: 0, ..self }, None),
                },
            };
        let (left, right) = self.piece.cut(cut);
        (
            ChunkByProducer {
                piece: left,
                pred,
                unknown: left_unknown,
            },
            Some(ChunkByProducer {
                piece: right,
                pred,
                unknown: right_unknown,
            }),
        )
    }

    fn fold_with<G: Folder<S>>(self, folder: G) -> G {
        let elems = self.piece.elems();
        if elems.is_empty() {
            return folder;
        }
        if self.unknown + 1 == elems.len() {
            return self.piece.fold_chunk_by(self.pred, folder);
        }
        // The last break among the unknown pairs starts the known last run; std's
        // `chunk_by` finds the runs before it.
        match (0..self.unknown)
            .rev()
            .find(|&i| breaks(elems, self.pred, i))
        {
            None => folder.consume(self.piece),
            Some(i) => {
                let (runs, last) = self.piece.cut(i + 1);
                let folder = runs.fold_chunk_by(self.pred, folder);
                if folder.full() {
                    return folder;
                }
                folder.consume(last)
            }
        }
    }
}
