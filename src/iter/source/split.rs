//! `split`: a value split recursively by a user's closure; the pieces are the items.

use std::fmt;

use crate::iter::plumbing::*;
use crate::iter::ParallelIterator;

/// Splits `data` recursively with `splitter` (which returns `None` once a piece should
/// not be split further); the pieces are the items.
///
/// ```
/// use weft::prelude::*;
///
/// let pieces = weft::iter::split(0..100u32, |r| {
///     if r.len() <= 10 {
///         return (r, None);
///     }
///     let mid = r.start + r.len() as u32 / 2;
///     (r.start..mid, Some(mid..r.end))
/// });
/// assert_eq!(pieces.map(|r| r.sum::<u32>()).sum::<u32>(), 4950);
/// ```
pub fn split<D, S>(data: D, splitter: S) -> Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync + Send,
{
    Split { data, splitter }
}

/// The iterator returned by [`split`].
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Split<D, S> {
    data: D,
    splitter: S,
}

impl<D: fmt::Debug, S> fmt::Debug for Split<D, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Split").field("data", &self.data).finish()
    }
}

impl<D, S> ParallelIterator for Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync + Send,
{
    type Item = D;

    fn drive_unindexed<C: UnindexedConsumer<D>>(self, consumer: C) -> C::Result {
        let producer = SplitProducer {
            data: self.data,
            splitter: &self.splitter,
        };
        bridge_unindexed(producer, consumer)
    }
}

struct SplitProducer<'s, D, S> {
    data: D,
    splitter: &'s S,
}

impl<D, S> UnindexedProducer for SplitProducer<'_, D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    type Item = D;

    fn split(self) -> (Self, Option<Self>) {
        let splitter = self.splitter;
        let (left, right) = splitter(self.data);
        let right = right.map(|data| SplitProducer { data, splitter });
        (
            SplitProducer {
                data: left,
                splitter,
            },
            right,
        )
    }

    fn fold_with<F: Folder<D>>(self, folder: F) -> F {
        folder.consume(self.data)
    }
}
