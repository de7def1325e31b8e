//! `map`: applies a closure to every item. The consumer side wraps the downstream folder;
//! the producer side wraps the upstream producer, so `map` stays indexed.

use std::fmt;

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`ParallelIterator::map`].
///
/// ```
/// use weft::prelude::*;
///
/// let lens: Vec<usize> = ["a", "bcd"].par_iter().map(|s| s.len()).collect();
/// assert_eq!(lens, [1, 3]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Map<I, F> {
    base: I,
    map_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for Map<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Map").field("base", &self.base).finish()
    }
}

impl<I, F> Map<I, F> {
    pub(crate) fn new(base: I, map_op: F) -> Self {
        Map { base, map_op }
    }
}

impl<I, F, R> ParallelIterator for Map<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    #[inline]
    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let Map { base, map_op } = self;
        base.drive_unindexed(MapConsumer {
            base: consumer,
            map_op: &map_op,
        })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }

    /// The base's bound: one item per item, splits passed on unchanged.
    fn upper_len_by_position(&self) -> Option<usize> {
        self.base.upper_len_by_position()
    }
}

impl<I, F, R> IndexedParallelIterator for Map<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    #[inline]
    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        // Taken apart first, as in every adapter holding a closure: `&self.map_op` pointed
        // into `self`, which then had to live in memory, and LLVM wrote the base there on
        // every call, even when the loop was folded inline and never read it.
        let Map { base, map_op } = self;
        base.drive(MapConsumer {
            base: consumer,
            map_op: &map_op,
        })
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let Map { base, map_op } = self;
        base.with_producer(MapCallback {
            callback,
            map_op: &map_op,
        })
    }
}

/// Wraps the downstream consumer: items are mapped before they reach it.
struct MapConsumer<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<C, F> MapConsumer<'_, C, F> {
    /// Splits the base consumer with `split` (`split_at` or `split_at_sized`) and wraps
    /// each piece.
    fn split_base<Red>(self, split: impl FnOnce(C) -> (C, C, Red)) -> (Self, Self, Red) {
        let (left, right, reducer) = split(self.base);
        let map_op = self.map_op;
        (
            MapConsumer { base: left, map_op },
            MapConsumer {
                base: right,
                map_op,
            },
            reducer,
        )
    }
}

impl<'f, T, R, C, F> Consumer<T> for MapConsumer<'f, C, F>
where
    C: Consumer<R>,
    F: Fn(T) -> R + Sync,
{
    type Folder = MapFolder<'f, C::Folder, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    super::splits_through_base!();

    fn into_folder(self) -> Self::Folder {
        MapFolder {
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
            |base| MapConsumer { base, map_op },
            |base| MapFolder { base, map_op },
        )
    }
}

impl<T, R, C, F> UnindexedConsumer<T> for MapConsumer<'_, C, F>
where
    C: UnindexedConsumer<R>,
    F: Fn(T) -> R + Sync,
{
    fn split_off_left(&self) -> Self {
        MapConsumer {
            base: self.base.split_off_left(),
            map_op: self.map_op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// Maps each item, then hands it to the downstream folder.
struct MapFolder<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<T, R, C, F> Folder<T> for MapFolder<'_, C, F>
where
    C: Folder<R>,
    F: Fn(T) -> R,
{
    type Result = C::Result;

    const MAY_STOP_EARLY: bool = C::MAY_STOP_EARLY;

    fn consume(self, item: T) -> Self {
        let mapped = (self.map_op)(item);
        MapFolder {
            base: self.base.consume(mapped),
            map_op: self.map_op,
        }
    }

    #[allow(clippy::redundant_closure)] // a direct call, not `&F`'s shim: see `MapIter`
    #[inline(always)] // into the leaf: see `ReduceWithFolder::consume_iter`
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        // `move |item| map_op(item)`, not `map_op`: see `MapIter`.
        let map_op = self.map_op;
        let base = self
            .base
            .consume_iter(iter.into_iter().map(move |item| map_op(item)));
        MapFolder {
            base,
            map_op: self.map_op,
        }
    }

    fn complete(self) -> C::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

/// Receives the upstream producer and passes on a mapping one.
struct MapCallback<'f, CB, F> {
    callback: CB,
    map_op: &'f F,
}

impl<T, R, CB, F> ProducerCallback<T> for MapCallback<'_, CB, F>
where
    CB: ProducerCallback<R>,
    F: Fn(T) -> R + Sync,
{
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let map_op = self.map_op;
        self.callback.callback(MapProducer { base, map_op })
    }
}

/// Maps the items of the upstream producer.
struct MapProducer<'f, P, F> {
    base: P,
    map_op: &'f F,
}

impl<'f, P, F, R> Producer for MapProducer<'f, P, F>
where
    P: Producer,
    F: Fn(P::Item) -> R + Sync,
{
    type Item = R;
    type IntoIter = MapIter<'f, P::IntoIter, F>;
    // SAFETY: `MapIter::next` calls its base's `next` once and maps a `Some`, and its
    // length is its base's (`ExactSizeIterator`'s default `len`, from `size_hint`).
    const EXACT_LEN: Option<ExactLen<Self::IntoIter>> = unsafe { ExactLen::carried(&P::EXACT_LEN) };

    fn into_iter(self) -> Self::IntoIter {
        MapIter {
            base: self.base.into_iter(),
            map_op: self.map_op,
        }
    }

    super::lengths_from_base!();

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let map_op = self.map_op;
        (
            MapProducer { base: left, map_op },
            MapProducer {
                base: right,
                map_op,
            },
        )
    }

    fn fold_with<G: Folder<R>>(self, folder: G) -> G {
        let map_op = self.map_op;
        self.base
            .fold_with(MapFolder {
                base: folder,
                map_op,
            })
            .base
    }
}

/// The sequential iterator of a map producer. It calls the closure itself rather than being a
/// `std::iter::Map<I, &F>`: that one calls through core's `FnMut for &F` shim, which lands in
/// another codegen unit than the loop and is then often not inlined; a direct call is
/// inlined as in the sequential loop.
pub(crate) struct MapIter<'f, I, F> {
    base: I,
    map_op: &'f F,
}

impl<I, F, R> Iterator for MapIter<'_, I, F>
where
    I: Iterator,
    F: Fn(I::Item) -> R,
{
    type Item = R;

    #[allow(clippy::redundant_closure)] // a direct call, not `&F`'s shim: see `MapIter`
    fn next(&mut self) -> Option<R> {
        let map_op = self.map_op;
        self.base.next().map(move |item| map_op(item))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }

    fn fold<B, G: FnMut(B, R) -> B>(self, init: B, mut g: G) -> B {
        let map_op = self.map_op;
        self.base.fold(init, move |acc, item| g(acc, map_op(item)))
    }
}

impl<I, F, R> DoubleEndedIterator for MapIter<'_, I, F>
where
    I: DoubleEndedIterator,
    F: Fn(I::Item) -> R,
{
    #[allow(clippy::redundant_closure)] // a direct call, not `&F`'s shim: see `MapIter`
    fn next_back(&mut self) -> Option<R> {
        let map_op = self.map_op;
        self.base.next_back().map(move |item| map_op(item))
    }

    fn rfold<B, G: FnMut(B, R) -> B>(self, init: B, mut g: G) -> B {
        let map_op = self.map_op;
        self.base.rfold(init, move |acc, item| g(acc, map_op(item)))
    }
}

impl<I, F, R> ExactSizeIterator for MapIter<'_, I, F>
where
    I: ExactSizeIterator,
    F: Fn(I::Item) -> R,
{
}
