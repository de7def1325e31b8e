//! `par_split` and `par_split_mut`: sub-slices between separators. Unindexed: a piece is
//! split at a separator near its middle, and the separator itself is dropped, so the pieces
//! of the two halves are exactly the pieces of the whole.

use std::fmt;

use crate::iter::plumbing::*;
use crate::iter::ParallelIterator;

/// Parallel iterator over sub-slices separated by items matching a predicate, from
/// [`par_split`](super::ParallelSlice::par_split).
///
/// ```
/// use weft::prelude::*;
///
/// let parts: Vec<&[i32]> = [1, 0, 2, 3, 0, 4].par_split(|&x| x == 0).collect();
/// assert_eq!(parts, [&[1][..], &[2, 3][..], &[4][..]]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Split<'data, T, P> {
    slice: &'data [T],
    separator: P,
}

impl<T: fmt::Debug, P> fmt::Debug for Split<'_, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Split").field("slice", &self.slice).finish()
    }
}

impl<'data, T, P> Split<'data, T, P> {
    pub(super) fn new(slice: &'data [T], separator: P) -> Self {
        Split { slice, separator }
    }
}

impl<'data, T, P> ParallelIterator for Split<'data, T, P>
where
    T: Sync,
    P: Fn(&T) -> bool + Sync + Send,
{
    type Item = &'data [T];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let producer = SplitProducer {
            slice: self.slice,
            separator: &self.separator,
            inclusive: false,
        };
        bridge_unindexed(producer, consumer)
    }
}

/// Parallel iterator over sub-slices that each end with a separator (except possibly the
/// last), from [`par_split_inclusive`](super::ParallelSlice::par_split_inclusive).
///
/// ```
/// use weft::prelude::*;
///
/// let parts: Vec<&[i32]> = [1, 0, 2, 0].par_split_inclusive(|&x| x == 0).collect();
/// assert_eq!(parts, [&[1, 0][..], &[2, 0][..]]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct SplitInclusive<'data, T, P> {
    slice: &'data [T],
    separator: P,
}

impl<T: fmt::Debug, P> fmt::Debug for SplitInclusive<'_, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SplitInclusive")
            .field("slice", &self.slice)
            .finish()
    }
}

impl<'data, T, P> SplitInclusive<'data, T, P> {
    pub(super) fn new(slice: &'data [T], separator: P) -> Self {
        SplitInclusive { slice, separator }
    }
}

impl<'data, T, P> ParallelIterator for SplitInclusive<'data, T, P>
where
    T: Sync,
    P: Fn(&T) -> bool + Sync + Send,
{
    type Item = &'data [T];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let producer = SplitProducer {
            slice: self.slice,
            separator: &self.separator,
            inclusive: true,
        };
        bridge_unindexed(producer, consumer)
    }
}

/// The index of a separator near the middle of `slice`, if there is one.
fn separator_near_middle<T>(slice: &[T], is_separator: impl Fn(&T) -> bool) -> Option<usize> {
    let mid = slice.len() / 2;
    let before = slice[..mid].iter().rposition(&is_separator);
    before.or_else(|| slice[mid..].iter().position(&is_separator).map(|i| mid + i))
}

/// `inclusive`: the separator stays at the end of the piece before it.
struct SplitProducer<'data, 'p, T, P> {
    slice: &'data [T],
    separator: &'p P,
    inclusive: bool,
}

impl<'data, T, P> UnindexedProducer for SplitProducer<'data, '_, T, P>
where
    T: Sync,
    P: Fn(&T) -> bool + Sync,
{
    type Item = &'data [T];

    fn split(self) -> (Self, Option<Self>) {
        match separator_near_middle(self.slice, self.separator) {
            None => (self, None),
            Some(at) => {
                let (separator, inclusive) = (self.separator, self.inclusive);
                let left_end = if inclusive { at + 1 } else { at };
                let left = SplitProducer {
                    slice: &self.slice[..left_end],
                    separator,
                    inclusive,
                };
                let right = SplitProducer {
                    slice: &self.slice[at + 1..],
                    separator,
                    inclusive,
                };
                (left, Some(right))
            }
        }
    }

    fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        if self.inclusive {
            folder.consume_iter(self.slice.split_inclusive(self.separator))
        } else {
            folder.consume_iter(self.slice.split(self.separator))
        }
    }
}

/// Parallel iterator over mutable sub-slices separated by items matching a predicate, from
/// [`par_split_mut`](super::ParallelSliceMut::par_split_mut).
///
/// ```
/// use weft::prelude::*;
///
/// let mut v = [3, 1, 0, 2, 1];
/// v.par_split_mut(|&x| x == 0).for_each(|part| part.sort());
/// assert_eq!(v, [1, 3, 0, 1, 2]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
pub struct SplitMut<'data, T, P> {
    slice: &'data mut [T],
    separator: P,
}

impl<T: fmt::Debug, P> fmt::Debug for SplitMut<'_, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SplitMut")
            .field("slice", &self.slice)
            .finish()
    }
}

impl<'data, T, P> SplitMut<'data, T, P> {
    pub(super) fn new(slice: &'data mut [T], separator: P) -> Self {
        SplitMut { slice, separator }
    }
}

impl<'data, T, P> ParallelIterator for SplitMut<'data, T, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync + Send,
{
    type Item = &'data mut [T];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let producer = SplitMutProducer {
            slice: self.slice,
            separator: &self.separator,
        };
        bridge_unindexed(producer, consumer)
    }
}

struct SplitMutProducer<'data, 'p, T, P> {
    slice: &'data mut [T],
    separator: &'p P,
}

impl<'data, T, P> UnindexedProducer for SplitMutProducer<'data, '_, T, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    type Item = &'data mut [T];

    fn split(self) -> (Self, Option<Self>) {
        match separator_near_middle(self.slice, self.separator) {
            None => (self, None),
            Some(at) => {
                let separator = self.separator;
                let (left, right) = self.slice.split_at_mut(at);
                let left = SplitMutProducer {
                    slice: left,
                    separator,
                };
                (
                    left,
                    Some(SplitMutProducer {
                        slice: &mut right[1..],
                        separator,
                    }),
                )
            }
        }
    }

    fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        folder.consume_iter(self.slice.split_mut(self.separator))
    }
}
