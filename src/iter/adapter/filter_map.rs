//! `filter_map` and `filter`: keep some items (mapped). Unindexed: the output length is
//! unknown, so only the consumer side is wrapped.

use std::fmt;

use crate::iter::plumbing::*;
use crate::iter::ParallelIterator;

/// The iterator returned by [`ParallelIterator::filter_map`].
///
/// ```
/// use weft::prelude::*;
///
/// let n: Vec<i32> = ["1", "x", "3"].par_iter().filter_map(|s| s.parse().ok()).collect();
/// assert_eq!(n, [1, 3]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FilterMap<I, F> {
    base: I,
    op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for FilterMap<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilterMap")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, F> FilterMap<I, F> {
    pub(crate) fn new(base: I, op: F) -> Self {
        FilterMap { base, op }
    }
}

impl<I, F, R> ParallelIterator for FilterMap<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> Option<R> + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let FilterMap { base, op } = self;
        base.drive_unindexed(FilterMapConsumer {
            base: consumer,
            op: &op,
        })
    }

    /// The base's bound: each of its items yields at most one, and the consumer wrapper
    /// passes splits on unchanged.
    fn upper_len_by_position(&self) -> Option<usize> {
        self.base.upper_len_by_position()
    }
}

/// The iterator returned by [`ParallelIterator::filter`].
///
/// ```
/// use weft::prelude::*;
///
/// let even: Vec<i32> = (0..7).into_par_iter().filter(|x| x % 2 == 0).collect();
/// assert_eq!(even, [0, 2, 4, 6]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Filter<I, P> {
    base: I,
    predicate: P,
}

impl<I: fmt::Debug, P> fmt::Debug for Filter<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Filter").field("base", &self.base).finish()
    }
}

impl<I, P> Filter<I, P> {
    pub(crate) fn new(base: I, predicate: P) -> Self {
        Filter { base, predicate }
    }
}

impl<I, P> ParallelIterator for Filter<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let Filter { base, predicate } = self;
        let predicate = &predicate;
        let op = move |item| if predicate(&item) { Some(item) } else { None };
        base.drive_unindexed(FilterMapConsumer {
            base: consumer,
            op: &op,
        })
    }

    /// The base's bound: each of its items is kept or not, and the consumer wrapper passes
    /// splits on unchanged.
    fn upper_len_by_position(&self) -> Option<usize> {
        self.base.upper_len_by_position()
    }
}

/// Passes on `op(item)` when it is `Some`.
struct FilterMapConsumer<'f, C, F> {
    base: C,
    op: &'f F,
}

impl<C, F> FilterMapConsumer<'_, C, F> {
    /// Splits the base consumer with `split` (`split_at` or `split_at_sized`) and wraps
    /// each piece.
    fn split_base<Red>(self, split: impl FnOnce(C) -> (C, C, Red)) -> (Self, Self, Red) {
        let (left, right, reducer) = split(self.base);
        let op = self.op;
        (
            FilterMapConsumer { base: left, op },
            FilterMapConsumer { base: right, op },
            reducer,
        )
    }
}

impl<'f, T, R, C, F> Consumer<T> for FilterMapConsumer<'f, C, F>
where
    C: Consumer<R>,
    F: Fn(T) -> Option<R> + Sync,
{
    type Folder = FilterMapFolder<'f, C::Folder, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    super::splits_through_base!();

    fn into_folder(self) -> Self::Folder {
        FilterMapFolder {
            base: self.base.into_folder(),
            op: self.op,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }

    fn continue_folder(self, folder: Self::Folder) -> Result<Self::Folder, (Self, Self::Folder)> {
        let op = self.op;
        super::continue_base_folder!(
            self.base,
            folder.base,
            |base| FilterMapConsumer { base, op },
            |base| FilterMapFolder { base, op },
        )
    }
}

impl<T, R, C, F> UnindexedConsumer<T> for FilterMapConsumer<'_, C, F>
where
    C: UnindexedConsumer<R>,
    F: Fn(T) -> Option<R> + Sync,
{
    fn split_off_left(&self) -> Self {
        FilterMapConsumer {
            base: self.base.split_off_left(),
            op: self.op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FilterMapFolder<'f, C, F> {
    base: C,
    op: &'f F,
}

impl<T, R, C, F> Folder<T> for FilterMapFolder<'_, C, F>
where
    C: Folder<R>,
    F: Fn(T) -> Option<R>,
{
    type Result = C::Result;

    const MAY_STOP_EARLY: bool = C::MAY_STOP_EARLY;

    fn consume(self, item: T) -> Self {
        match (self.op)(item) {
            Some(kept) => FilterMapFolder {
                base: self.base.consume(kept),
                ..self
            },
            None => self,
        }
    }

    #[allow(clippy::redundant_closure)] // a direct call, not `&F`'s shim: see `MapIter`
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let op = self.op;
        // `move |item| op(item)`, not `op`: see `MapIter`.
        let base = super::consume_checking_full!(
            C::MAY_STOP_EARLY,
            self.base,
            iter.into_iter(),
            |batch| batch.filter_map(move |item| op(item))
        );
        FilterMapFolder { base, ..self }
    }

    fn complete(self) -> C::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
