//! `flat_map_iter` and `flatten_iter`: each item becomes a *sequential* iterator whose
//! items are fed straight into the current folder (cheaper than `flat_map` for small
//! inner sequences).

use std::fmt;

use crate::iter::plumbing::*;
use crate::iter::ParallelIterator;

/// The iterator returned by [`ParallelIterator::flat_map_iter`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<char> = ["ab", "c"].par_iter().flat_map_iter(|s| s.chars()).collect();
/// assert_eq!(v, ['a', 'b', 'c']);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FlatMapIter<I, F> {
    base: I,
    map_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for FlatMapIter<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlatMapIter")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, F> FlatMapIter<I, F> {
    pub(crate) fn new(base: I, map_op: F) -> Self {
        FlatMapIter { base, map_op }
    }
}

impl<I, F, SI> ParallelIterator for FlatMapIter<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> SI + Sync + Send,
    SI: IntoIterator,
    SI::Item: Send,
{
    type Item = SI::Item;

    fn drive_unindexed<C: UnindexedConsumer<SI::Item>>(self, consumer: C) -> C::Result {
        let FlatMapIter { base, map_op } = self;
        base.drive_unindexed(FlatMapIterConsumer {
            base: consumer,
            map_op: &map_op,
        })
    }
}

/// The iterator returned by [`ParallelIterator::flatten_iter`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = vec![vec![1, 2], vec![3]].into_par_iter().flatten_iter().collect();
/// assert_eq!(v, [1, 2, 3]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct FlattenIter<I> {
    base: I,
}

impl<I> FlattenIter<I> {
    pub(crate) fn new(base: I) -> Self {
        FlattenIter { base }
    }
}

impl<I> ParallelIterator for FlattenIter<I>
where
    I: ParallelIterator,
    I::Item: IntoIterator,
    <I::Item as IntoIterator>::Item: Send,
{
    type Item = <I::Item as IntoIterator>::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let map_op = &std::convert::identity;
        self.base.drive_unindexed(FlatMapIterConsumer {
            base: consumer,
            map_op,
        })
    }
}

struct FlatMapIterConsumer<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<C, F> FlatMapIterConsumer<'_, C, F> {
    /// Splits the base consumer with `split` (`split_at` or `split_at_sized`) and wraps
    /// each piece.
    fn split_base<Red>(self, split: impl FnOnce(C) -> (C, C, Red)) -> (Self, Self, Red) {
        let (left, right, reducer) = split(self.base);
        let map_op = self.map_op;
        let left = FlatMapIterConsumer { base: left, map_op };
        (
            left,
            FlatMapIterConsumer {
                base: right,
                map_op,
            },
            reducer,
        )
    }
}

impl<'f, T, C, F, SI> Consumer<T> for FlatMapIterConsumer<'f, C, F>
where
    C: Consumer<SI::Item>,
    F: Fn(T) -> SI + Sync,
    SI: IntoIterator,
{
    type Folder = FlatMapIterFolder<'f, C::Folder, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    super::splits_through_base!();

    fn into_folder(self) -> Self::Folder {
        FlatMapIterFolder {
            base: self.base.into_folder(),
            map_op: self.map_op,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }

    fn continue_folder(self, folder: Self::Folder) -> Result<Self::Folder, (Self, Self::Folder)> {
        let map_op = self.map_op;
        super::continue_base_folder!(
            self.base,
            folder.base,
            |base| FlatMapIterConsumer { base, map_op },
            |base| FlatMapIterFolder { base, map_op },
        )
    }
}

impl<T, C, F, SI> UnindexedConsumer<T> for FlatMapIterConsumer<'_, C, F>
where
    C: UnindexedConsumer<SI::Item>,
    F: Fn(T) -> SI + Sync,
    SI: IntoIterator,
{
    fn split_off_left(&self) -> Self {
        FlatMapIterConsumer {
            base: self.base.split_off_left(),
            map_op: self.map_op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FlatMapIterFolder<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<T, C, F, SI> Folder<T> for FlatMapIterFolder<'_, C, F>
where
    C: Folder<SI::Item>,
    F: Fn(T) -> SI,
    SI: IntoIterator,
{
    type Result = C::Result;

    const MAY_STOP_EARLY: bool = C::MAY_STOP_EARLY;

    fn consume(self, item: T) -> Self {
        let base = self.base.consume_iter((self.map_op)(item));
        FlatMapIterFolder { base, ..self }
    }

    #[allow(clippy::redundant_closure)] // a direct call, not `&F`'s shim: see `MapIter`
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        // `move |item| map_op(item)`, not `map_op`: see `MapIter`.
        let map_op = self.map_op;
        let base = super::consume_checking_full!(
            C::MAY_STOP_EARLY,
            self.base,
            iter.into_iter(),
            |batch| batch.flat_map(move |item| map_op(item))
        );
        FlatMapIterFolder { base, ..self }
    }

    fn complete(self) -> C::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
