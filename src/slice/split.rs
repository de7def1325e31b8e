//! `par_split`, `par_split_inclusive` and their `_mut` twins: sub-slices between separators.
//! Unindexed: a piece is split at a separator near its middle, and the separator goes where
//! the sequential split puts it (dropped, or kept at the end of the left piece), so the pieces
//! of the two halves are exactly the pieces of the whole. One producer serves all four,
//! generic over [`Piece`].

use super::piece::{piece_iterator, position_near_middle, Piece};
use crate::iter::plumbing::*;

piece_iterator! {
    /// Parallel iterator over sub-slices separated by items matching a predicate, from
    /// [`par_split`](super::ParallelSlice::par_split).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let parts: Vec<&[i32]> = [1, 0, 2, 3, 0, 4].par_split(|&x| x == 0).collect();
    /// assert_eq!(parts, [&[1][..], &[2, 3][..], &[4][..]]);
    /// ```
    Split: Clone, &'data [T], where [T: Sync, P: Fn(&T) -> bool + Sync + Send],
    |slice, separator| SplitProducer { piece: slice, separator, inclusive: false }
}

piece_iterator! {
    /// Parallel iterator over sub-slices that each end with a separator (except possibly the
    /// last), from [`par_split_inclusive`](super::ParallelSlice::par_split_inclusive).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let parts: Vec<&[i32]> = [1, 0, 2, 0].par_split_inclusive(|&x| x == 0).collect();
    /// assert_eq!(parts, [&[1, 0][..], &[2, 0][..]]);
    /// ```
    SplitInclusive: Clone, &'data [T], where [T: Sync, P: Fn(&T) -> bool + Sync + Send],
    |slice, separator| SplitProducer { piece: slice, separator, inclusive: true }
}

piece_iterator! {
    /// Parallel iterator over mutable sub-slices separated by items matching a predicate,
    /// from [`par_split_mut`](super::ParallelSliceMut::par_split_mut).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [3, 1, 0, 2, 1];
    /// v.par_split_mut(|&x| x == 0).for_each(|part| part.sort());
    /// assert_eq!(v, [1, 3, 0, 1, 2]);
    /// ```
    SplitMut, &'data mut [T], where [T: Send, P: Fn(&T) -> bool + Sync + Send],
    |slice, separator| SplitProducer { piece: slice, separator, inclusive: false }
}

piece_iterator! {
    /// Parallel iterator over mutable sub-slices that each end with a separator (except
    /// possibly the last), from
    /// [`par_split_inclusive_mut`](super::ParallelSliceMut::par_split_inclusive_mut).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [3, 1, 0, 2, 1];
    /// v.par_split_inclusive_mut(|&x| x == 0).for_each(|part| part.reverse());
    /// assert_eq!(v, [0, 1, 3, 1, 2]);
    /// ```
    SplitInclusiveMut, &'data mut [T], where [T: Send, P: Fn(&T) -> bool + Sync + Send],
    |slice, separator| SplitProducer { piece: slice, separator, inclusive: true }
}

/// `S` is `&[T]` or `&mut [T]`. `inclusive`: the separator stays at the end of the piece
/// before it.
struct SplitProducer<'p, S, P> {
    piece: S,
    separator: &'p P,
    inclusive: bool,
}

/// What comes before the separator at `at` (with it, if `inclusive`) and what comes after.
fn cut_at_separator<S: Piece>(piece: S, at: usize, inclusive: bool) -> (S, S) {
    if inclusive {
        piece.cut(at + 1)
    } else {
        let (before, from_separator) = piece.cut(at);
        (before, from_separator.cut(1).1)
    }
}

impl<S, P> UnindexedProducer for SplitProducer<'_, S, P>
where
    S: Piece,
    P: Fn(&S::Elem) -> bool + Sync,
{
    type Item = S;

    fn split(self) -> (Self, Option<Self>) {
        let (separator, inclusive) = (self.separator, self.inclusive);
        let Some(at) = position_near_middle(self.piece.elems().iter(), separator) else {
            return (self, None);
        };
        let (left, right) = cut_at_separator(self.piece, at, inclusive);
        let producer = |piece| SplitProducer {
            piece,
            separator,
            inclusive,
        };
        (producer(left), Some(producer(right)))
    }

    fn fold_with<F: Folder<S>>(self, folder: F) -> F {
        self.piece
            .fold_split(self.separator, self.inclusive, folder)
    }
}
