//! `map_with` and `map_init`: a `map` whose closure also gets `&mut` per-piece state (a
//! clone of a value, or the result of `init`). The state splits with the work: see
//! `state.rs`.

use std::fmt;

use super::state::{CloneState, InitState, StateSource};
use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use crate::plumbing::IndexedDriver;

/// The iterator returned by [`ParallelIterator::map_with`].
///
/// ```
/// use std::sync::mpsc::channel;
/// use weft::prelude::*;
///
/// let (sender, receiver) = channel();
/// let v: Vec<i32> = (0..5).into_par_iter().map_with(sender, |s, x| { s.send(x).unwrap(); x }).collect();
/// let mut got: Vec<i32> = receiver.iter().collect();
/// got.sort();
/// assert_eq!(got, v);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct MapWith<I, T, F> {
    base: I,
    item: T,
    map_op: F,
}

impl<I: fmt::Debug, T: fmt::Debug, F> fmt::Debug for MapWith<I, T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, T, F> MapWith<I, T, F> {
    pub(crate) fn new(base: I, item: T, map_op: F) -> Self {
        MapWith { base, item, map_op }
    }
}

impl<I, T, F, R> ParallelIterator for MapWith<I, T, F>
where
    I: ParallelIterator,
    T: Send + Clone,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let MapWith { base, item, map_op } = self;
        let pristine = std::sync::Mutex::new(item);
        let (source, op) = (CloneState(&pristine), &map_op);
        base.drive_unindexed(StateConsumer {
            base: consumer,
            source,
            op,
        })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, T, F, R> IndexedParallelIterator for MapWith<I, T, F>
where
    I: IndexedParallelIterator,
    T: Send + Clone,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let MapWith { base, item, map_op } = self;
        let pristine = std::sync::Mutex::new(item);
        let (source, op) = (CloneState(&pristine), &map_op);
        base.drive(StateConsumer {
            base: consumer,
            source,
            op,
        })
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let MapWith { base, item, map_op } = self;
        let pristine = std::sync::Mutex::new(item);
        let (source, op) = (CloneState(&pristine), &map_op);
        base.with_producer(StateCallback {
            callback,
            source,
            op,
        })
    }
}

/// The iterator returned by [`ParallelIterator::map_init`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<usize> = (0..4usize)
///     .into_par_iter()
///     .map_init(Vec::new, |scratch: &mut Vec<usize>, x| { scratch.push(x); x * 2 })
///     .collect();
/// assert_eq!(v, [0, 2, 4, 6]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct MapInit<I, INIT, F> {
    base: I,
    init: INIT,
    map_op: F,
}

impl<I: fmt::Debug, INIT, F> fmt::Debug for MapInit<I, INIT, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapInit").field("base", &self.base).finish()
    }
}

impl<I, INIT, F> MapInit<I, INIT, F> {
    pub(crate) fn new(base: I, init: INIT, map_op: F) -> Self {
        MapInit { base, init, map_op }
    }
}

impl<I, INIT, T, F, R> ParallelIterator for MapInit<I, INIT, F>
where
    I: ParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let MapInit { base, init, map_op } = self;
        let (source, op) = (InitState(&init), &map_op);
        base.drive_unindexed(StateConsumer {
            base: consumer,
            source,
            op,
        })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, INIT, T, F, R> IndexedParallelIterator for MapInit<I, INIT, F>
where
    I: IndexedParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let MapInit { base, init, map_op } = self;
        let (source, op) = (InitState(&init), &map_op);
        base.drive(StateConsumer {
            base: consumer,
            source,
            op,
        })
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let MapInit { base, init, map_op } = self;
        let (source, op) = (InitState(&init), &map_op);
        base.with_producer(StateCallback {
            callback,
            source,
            op,
        })
    }
}

/// Maps with per-piece state; the source splits along with the consumer.
struct StateConsumer<'f, C, S, F> {
    base: C,
    source: S,
    op: &'f F,
}

impl<C, S: StateSource, F> StateConsumer<'_, C, S, F> {
    /// Splits the base consumer with `split` (`split_at` or `split_at_sized`) and wraps
    /// each piece.
    fn split_base<Red>(self, split: impl FnOnce(C) -> (C, C, Red)) -> (Self, Self, Red) {
        let (left, right, reducer) = split(self.base);
        let (op, left_source) = (self.op, self.source.split());
        let left = StateConsumer {
            base: left,
            source: left_source,
            op,
        };
        (
            left,
            StateConsumer {
                base: right,
                source: self.source,
                op,
            },
            reducer,
        )
    }
}

impl<'f, T, R, C, S, F> Consumer<T> for StateConsumer<'f, C, S, F>
where
    C: Consumer<R>,
    S: StateSource,
    F: Fn(&mut S::State, T) -> R + Sync,
{
    type Folder = StateFolder<'f, C::Folder, S::State, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    super::splits_through_base!();

    fn into_folder(self) -> Self::Folder {
        let state = self.source.into_state();
        StateFolder {
            base: self.base.into_folder(),
            state,
            op: self.op,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }

    /// The folder keeps its state: `init` (or the clone) is not made again for the chunk.
    fn continue_folder(self, folder: Self::Folder) -> Result<Self::Folder, (Self, Self::Folder)> {
        let (source, StateFolder { base, state, op }) = (self.source, folder);
        super::continue_base_folder!(
            self.base,
            base,
            |base| StateConsumer { base, source, op },
            |base| StateFolder { base, state, op },
        )
    }
}

impl<T, R, C, S, F> UnindexedConsumer<T> for StateConsumer<'_, C, S, F>
where
    C: UnindexedConsumer<R>,
    S: StateSource,
    F: Fn(&mut S::State, T) -> R + Sync,
{
    fn split_off_left(&self) -> Self {
        let (base, source) = (self.base.split_off_left(), self.source.split());
        StateConsumer {
            base,
            source,
            op: self.op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct StateFolder<'f, C, ST, F> {
    base: C,
    state: ST,
    op: &'f F,
}

impl<T, R, C, ST, F> Folder<T> for StateFolder<'_, C, ST, F>
where
    C: Folder<R>,
    F: Fn(&mut ST, T) -> R,
{
    type Result = C::Result;

    const MAY_STOP_EARLY: bool = C::MAY_STOP_EARLY;

    fn consume(mut self, item: T) -> Self {
        let mapped = (self.op)(&mut self.state, item);
        self.base = self.base.consume(mapped);
        self
    }

    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let (state, op) = (&mut self.state, self.op);
        self.base = self
            .base
            .consume_iter(iter.into_iter().map(|item| op(state, item)));
        self
    }

    fn complete(self) -> C::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

struct StateCallback<'f, CB, S, F> {
    callback: CB,
    source: S,
    op: &'f F,
}

impl<T, R, CB, S, F> ProducerCallback<T> for StateCallback<'_, CB, S, F>
where
    CB: ProducerCallback<R>,
    S: StateSource,
    F: Fn(&mut S::State, T) -> R + Sync,
{
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let (source, op) = (self.source, self.op);
        self.callback.callback(StateProducer { base, source, op })
    }
}

struct StateProducer<'f, P, S, F> {
    base: P,
    source: S,
    op: &'f F,
}

impl<'f, P, S, F, R> Producer for StateProducer<'f, P, S, F>
where
    P: Producer,
    S: StateSource,
    F: Fn(&mut S::State, P::Item) -> R + Sync,
{
    type Item = R;
    type IntoIter = StateIter<'f, P::IntoIter, S::State, F>;

    fn into_iter(self) -> Self::IntoIter {
        let state = self.source.into_state();
        StateIter {
            base: self.base.into_iter(),
            state,
            op: self.op,
        }
    }

    super::lengths_from_base!();

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let (op, left_source) = (self.op, self.source.split());
        let left = StateProducer {
            base: left,
            source: left_source,
            op,
        };
        (
            left,
            StateProducer {
                base: right,
                source: self.source,
                op,
            },
        )
    }

    /// The state moves to the consumer side, where the driver keeps one folder (and so one
    /// state) for each run of chunks an owner folds, instead of one per chunk.
    fn drive_with<C, D>(self, len: usize, consumer: C, driver: D) -> C::Result
    where
        C: Consumer<R>,
        D: IndexedDriver,
    {
        let consumer = StateConsumer {
            base: consumer,
            source: self.source,
            op: self.op,
        };
        self.base.drive_with(len, consumer, driver)
    }

    fn fold_with<G: Folder<R>>(self, folder: G) -> G {
        let state = self.source.into_state();
        let op = self.op;
        self.base
            .fold_with(StateFolder {
                base: folder,
                state,
                op,
            })
            .base
    }
}

/// The sequential iterator of a state-mapping producer.
struct StateIter<'f, I, ST, F> {
    base: I,
    state: ST,
    op: &'f F,
}

impl<I, ST, F, R> Iterator for StateIter<'_, I, ST, F>
where
    I: Iterator,
    F: Fn(&mut ST, I::Item) -> R,
{
    type Item = R;

    fn next(&mut self) -> Option<R> {
        let item = self.base.next()?;
        Some((self.op)(&mut self.state, item))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }

    fn fold<B, G: FnMut(B, R) -> B>(self, init: B, mut g: G) -> B {
        let (mut state, op) = (self.state, self.op);
        self.base
            .fold(init, |acc, item| g(acc, op(&mut state, item)))
    }
}

impl<I, ST, F, R> DoubleEndedIterator for StateIter<'_, I, ST, F>
where
    I: DoubleEndedIterator,
    F: Fn(&mut ST, I::Item) -> R,
{
    fn next_back(&mut self) -> Option<R> {
        let item = self.base.next_back()?;
        Some((self.op)(&mut self.state, item))
    }
}

impl<I, ST, F, R> ExactSizeIterator for StateIter<'_, I, ST, F>
where
    I: ExactSizeIterator,
    F: Fn(&mut ST, I::Item) -> R,
{
}
