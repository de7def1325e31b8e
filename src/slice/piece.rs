//! What the unindexed slice sources (`par_split*` and `par_chunk_by*`, shared and mutable)
//! have in common: [`Piece`], a shared or mutable sub-slice a producer owns and cuts in two;
//! [`position_near_middle`], the search for a cut near the middle; and [`piece_iterator!`],
//! which defines a public iterator struct over a slice and its rule.
//!
//! A producer is written once, generic over `Piece`; the `&[T]` and `&mut [T]` sources differ
//! only in the `split_at` / `split_at_mut` behind [`Piece::cut`] and in the std iterators
//! their leaves fold with.

use crate::iter::plumbing::Folder;

/// A sub-slice that a producer owns and can cut in two: `&[T]` or `&mut [T]`. Its pieces are
/// folded with std's own iterators (`split`, `chunk_by`, ... or their `_mut` twins), so a
/// leaf is exactly std's sequential loop.
pub(super) trait Piece: Sized + Send {
    /// The slice's item type.
    type Elem;

    /// The items, to search.
    fn elems(&self) -> &[Self::Elem];

    /// The items before `at` and the items from `at` on. Panics if `at > len`.
    fn cut(self, at: usize) -> (Self, Self);

    /// Feeds `folder` the pieces between separators, as std's `split` finds them (or
    /// `split_inclusive`, keeping each separator at the end of the piece before it).
    fn fold_split<P, G>(self, separator: &P, inclusive: bool, folder: G) -> G
    where
        P: Fn(&Self::Elem) -> bool,
        G: Folder<Self>;

    /// Feeds `folder` the runs of neighbours related by `pred`, as std's `chunk_by` finds them.
    fn fold_chunk_by<P, G>(self, pred: &P, folder: G) -> G
    where
        P: Fn(&Self::Elem, &Self::Elem) -> bool,
        G: Folder<Self>;
}

impl<T: Sync> Piece for &[T] {
    type Elem = T;

    fn elems(&self) -> &[T] {
        self
    }

    fn cut(self, at: usize) -> (Self, Self) {
        self.split_at(at)
    }

    fn fold_split<P, G>(self, separator: &P, inclusive: bool, folder: G) -> G
    where
        P: Fn(&T) -> bool,
        G: Folder<Self>,
    {
        if inclusive {
            folder.consume_iter(self.split_inclusive(separator))
        } else {
            folder.consume_iter(self.split(separator))
        }
    }

    fn fold_chunk_by<P, G>(self, pred: &P, folder: G) -> G
    where
        P: Fn(&T, &T) -> bool,
        G: Folder<Self>,
    {
        folder.consume_iter(self.chunk_by(pred))
    }
}

impl<T: Send> Piece for &mut [T] {
    type Elem = T;

    fn elems(&self) -> &[T] {
        self
    }

    fn cut(self, at: usize) -> (Self, Self) {
        self.split_at_mut(at)
    }

    fn fold_split<P, G>(self, separator: &P, inclusive: bool, folder: G) -> G
    where
        P: Fn(&T) -> bool,
        G: Folder<Self>,
    {
        if inclusive {
            folder.consume_iter(self.split_inclusive_mut(separator))
        } else {
            folder.consume_iter(self.split_mut(separator))
        }
    }

    fn fold_chunk_by<P, G>(self, pred: &P, folder: G) -> G
    where
        P: Fn(&T, &T) -> bool,
        G: Folder<Self>,
    {
        folder.consume_iter(self.chunk_by_mut(pred))
    }
}

/// The position in `candidates` of a hit nearest the middle: the last hit before the middle,
/// else the first from the middle on. `None` if nothing hits.
pub(super) fn position_near_middle<I, F>(candidates: I, mut is_hit: F) -> Option<usize>
where
    I: Clone + DoubleEndedIterator + ExactSizeIterator,
    F: FnMut(I::Item) -> bool,
{
    let mid = candidates.len() / 2;
    let before = candidates.clone().take(mid).rposition(&mut is_hit);
    before.or_else(|| candidates.skip(mid).position(is_hit).map(|i| mid + i))
}

/// Defines a public parallel iterator over the pieces of a slice: the struct (the slice and
/// its rule, a separator or a predicate), its `Debug` (the slice only), a `Clone` when asked
/// for (shared slices), `new`, and a `ParallelIterator` that hands
/// `|slice, rule| producer` to `bridge_unindexed`, with `rule` borrowed from the iterator.
///
/// ```text
/// piece_iterator! {
///     /// docs
///     SplitMut, &'data mut [T], where [T: Send, P: Fn(&T) -> bool + Sync + Send],
///     |slice, rule| SplitProducer::new(slice, rule, false)
/// }
/// ```
macro_rules! piece_iterator {
    (
        $(#[$attr:meta])*
        $name:ident $(: $clone:ident)?, $slice:ty, where [$($bounds:tt)*],
        |$piece:ident, $rule:ident| $producer:expr
    ) => {
        $(#[$attr])*
        #[must_use = "iterators are lazy and do nothing unless consumed"]
        pub struct $name<'data, T, P> {
            slice: $slice,
            rule: P,
        }

        $(
            impl<T, P: $clone> $clone for $name<'_, T, P> {
                fn clone(&self) -> Self {
                    $name {
                        slice: self.slice,
                        rule: self.rule.clone(),
                    }
                }
            }
        )?

        impl<T: ::std::fmt::Debug, P> ::std::fmt::Debug for $name<'_, T, P> {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("slice", &self.slice)
                    .finish()
            }
        }

        impl<'data, T, P> $name<'data, T, P> {
            pub(super) fn new(slice: $slice, rule: P) -> Self {
                $name { slice, rule }
            }
        }

        impl<'data, T, P> $crate::iter::ParallelIterator for $name<'data, T, P>
        where
            $($bounds)*
        {
            type Item = $slice;

            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: $crate::iter::plumbing::UnindexedConsumer<Self::Item>,
            {
                let ($piece, $rule) = (self.slice, &self.rule);
                $crate::iter::plumbing::bridge_unindexed($producer, consumer)
            }
        }
    };
}

pub(super) use piece_iterator;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_near_middle_prefers_the_last_hit_before_the_middle() {
        let hits = |v: &[u8]| position_near_middle(v.iter(), |&x| x == 1);
        assert_eq!(hits(&[]), None);
        assert_eq!(hits(&[0, 0, 0]), None);
        assert_eq!(hits(&[1]), Some(0));
        assert_eq!(hits(&[1, 1, 0, 0]), Some(1));
        assert_eq!(hits(&[0, 0, 0, 1, 1]), Some(3));
        assert_eq!(hits(&[1, 0, 1, 1, 0, 0]), Some(2));
    }
}
