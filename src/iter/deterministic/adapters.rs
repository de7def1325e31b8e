//! The adapters a [`Deterministic`] chain offers in both modes: those that keep the items'
//! positions keep the mode, those that do not make it [`Unindexed`]. Each only wraps the
//! base (or the [`FixedTree`](super::FixedTree) it is driven in) with weft's own adapter.

use super::{Deterministic, Mode, Unindexed};
use crate::iter::{
    Cloned, Copied, Filter, FilterMap, FlatMap, FlatMapIter, Flatten, FlattenIter, Fold, FoldWith,
    Inspect, IntoParallelIterator, Map, MapInit, MapWith, PanicFuse, ParallelIterator, Update,
};

impl<I, M> Deterministic<I, M>
where
    I: ParallelIterator,
    M: Mode<I>,
{
    /// As [`ParallelIterator::map`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let sum: f64 = [1.0, 2.0, 3.0].par_iter().deterministic().map(|x| x * 2.0).sum();
    /// assert_eq!(sum, 12.0);
    /// ```
    pub fn map<F, R>(self, map_op: F) -> Deterministic<Map<I, F>, M>
    where
        F: Fn(I::Item) -> R + Sync + Send,
        R: Send,
    {
        self.adapt(|base| base.map(map_op))
    }

    /// As [`ParallelIterator::map_with`]: one clone of `init` per leaf of the tree.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = (0..4u32).into_par_iter().deterministic().map_with(10, |k, x| x + *k).collect();
    /// assert_eq!(v, [10, 11, 12, 13]);
    /// ```
    pub fn map_with<F, T, R>(self, init: T, map_op: F) -> Deterministic<MapWith<I, T, F>, M>
    where
        F: Fn(&mut T, I::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Send,
    {
        self.adapt(|base| base.map_with(init, map_op))
    }

    /// As [`ParallelIterator::map_init`]: `init` runs once per leaf of the tree.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = (0..4u32).into_par_iter().deterministic().map_init(|| 10, |k, x| x + *k).collect();
    /// assert_eq!(v, [10, 11, 12, 13]);
    /// ```
    pub fn map_init<F, INIT, T, R>(
        self,
        init: INIT,
        map_op: F,
    ) -> Deterministic<MapInit<I, INIT, F>, M>
    where
        F: Fn(&mut T, I::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Send,
    {
        self.adapt(|base| base.map_init(init, map_op))
    }

    /// As [`ParallelIterator::cloned`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let words = vec![String::from("a"), String::from("b")];
    /// let v: Vec<String> = words.par_iter().deterministic().cloned().collect();
    /// assert_eq!(v, words);
    /// ```
    pub fn cloned<'a, T>(self) -> Deterministic<Cloned<I>, M>
    where
        T: 'a + Clone + Send + Sync,
        I: ParallelIterator<Item = &'a T>,
    {
        self.adapt(ParallelIterator::cloned)
    }

    /// As [`ParallelIterator::copied`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let sum: f32 = [0.5f32, 0.25].par_iter().deterministic().copied().sum();
    /// assert_eq!(sum, 0.75);
    /// ```
    pub fn copied<'a, T>(self) -> Deterministic<Copied<I>, M>
    where
        T: 'a + Copy + Send + Sync,
        I: ParallelIterator<Item = &'a T>,
    {
        self.adapt(ParallelIterator::copied)
    }

    /// As [`ParallelIterator::inspect`] (the closure runs at times and on threads that vary).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use weft::prelude::*;
    ///
    /// let seen = AtomicUsize::new(0);
    /// let sum: u32 = (0..10u32)
    ///     .into_par_iter()
    ///     .deterministic()
    ///     .inspect(|_| {
    ///         seen.fetch_add(1, Ordering::Relaxed);
    ///     })
    ///     .sum();
    /// assert_eq!((sum, seen.into_inner()), (45, 10));
    /// ```
    pub fn inspect<OP>(self, inspect_op: OP) -> Deterministic<Inspect<I, OP>, M>
    where
        OP: Fn(&I::Item) + Sync + Send,
    {
        self.adapt(|base| base.inspect(inspect_op))
    }

    /// As [`ParallelIterator::update`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = (0..3u32).into_par_iter().deterministic().update(|x| *x *= 2).collect();
    /// assert_eq!(v, [0, 2, 4]);
    /// ```
    pub fn update<F>(self, update_op: F) -> Deterministic<Update<I, F>, M>
    where
        F: Fn(&mut I::Item) + Sync + Send,
    {
        self.adapt(|base| base.update(update_op))
    }

    /// As [`ParallelIterator::panic_fuse`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..10u32).into_par_iter().deterministic().panic_fuse().sum::<u32>(), 45);
    /// ```
    pub fn panic_fuse(self) -> Deterministic<PanicFuse<I>, M> {
        self.adapt(ParallelIterator::panic_fuse)
    }

    /// As [`ParallelIterator::filter`]; the chain is unindexed from here on, its leaves
    /// still cut over the items before the filter.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let even = (0..10u32).into_par_iter().deterministic().filter(|x| x % 2 == 0);
    /// assert_eq!(even.sum::<u32>(), 20);
    /// ```
    pub fn filter<P>(self, filter_op: P) -> Deterministic<Filter<M::Driven, P>, Unindexed>
    where
        P: Fn(&I::Item) -> bool + Sync + Send,
    {
        self.unindex(|base| base.filter(filter_op))
    }

    /// As [`ParallelIterator::filter_map`]; the chain is unindexed from here on.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let halves: Vec<u32> = (0..10u32)
    ///     .into_par_iter()
    ///     .deterministic()
    ///     .filter_map(|x| (x % 2 == 0).then_some(x / 2))
    ///     .collect();
    /// assert_eq!(halves, [0, 1, 2, 3, 4]);
    /// ```
    pub fn filter_map<P, R>(self, filter_op: P) -> Deterministic<FilterMap<M::Driven, P>, Unindexed>
    where
        P: Fn(I::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.unindex(|base| base.filter_map(filter_op))
    }

    /// As [`ParallelIterator::flat_map`]; the chain is unindexed from here on. The inner
    /// iterators are driven inside the leaves, so each takes a fixed tree of its own if it
    /// is indexed (an unindexed one, such as `par_bridge`'s, is not covered).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = (1..4u32).into_par_iter().deterministic().flat_map(|n| 0..n).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    pub fn flat_map<F, PI>(self, map_op: F) -> Deterministic<FlatMap<M::Driven, F>, Unindexed>
    where
        F: Fn(I::Item) -> PI + Sync + Send,
        PI: IntoParallelIterator,
    {
        self.unindex(|base| base.flat_map(map_op))
    }

    /// As [`ParallelIterator::flat_map_iter`]; the chain is unindexed from here on.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = (1..4u32).into_par_iter().deterministic().flat_map_iter(|n| 0..n).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    pub fn flat_map_iter<F, SI>(
        self,
        map_op: F,
    ) -> Deterministic<FlatMapIter<M::Driven, F>, Unindexed>
    where
        F: Fn(I::Item) -> SI + Sync + Send,
        SI: IntoIterator,
        SI::Item: Send,
    {
        self.unindex(|base| base.flat_map_iter(map_op))
    }

    /// As [`ParallelIterator::flatten`]; the chain is unindexed from here on (the inner
    /// iterators as in [`flat_map`](Self::flat_map)).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = vec![vec![1, 2], vec![], vec![3]].into_par_iter().deterministic().flatten().collect();
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    pub fn flatten(self) -> Deterministic<Flatten<M::Driven>, Unindexed>
    where
        I::Item: IntoParallelIterator,
    {
        self.unindex(ParallelIterator::flatten)
    }

    /// As [`ParallelIterator::flatten_iter`]; the chain is unindexed from here on.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = vec![vec![1, 2], vec![], vec![3]].into_par_iter().deterministic().flatten_iter().collect();
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    pub fn flatten_iter(self) -> Deterministic<FlattenIter<M::Driven>, Unindexed>
    where
        I::Item: IntoIterator,
        <I::Item as IntoIterator>::Item: Send,
    {
        self.unindex(ParallelIterator::flatten_iter)
    }

    /// As [`ParallelIterator::fold`]: one accumulator per leaf of the tree, so the
    /// accumulators themselves are the same on every pool. The chain is unindexed from here
    /// on.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// // 1000 items, leaves of 100: ten accumulators, in order.
    /// let sums: Vec<u32> = (0..1000u32)
    ///     .into_par_iter()
    ///     .deterministic()
    ///     .with_grain(100)
    ///     .fold(|| 0, |a, x| a + x)
    ///     .collect();
    /// assert_eq!(sums.len(), 10);
    /// assert_eq!(sums[0], (0..100).sum());
    /// ```
    pub fn fold<T, ID, F>(
        self,
        identity: ID,
        fold_op: F,
    ) -> Deterministic<Fold<M::Driven, ID, F>, Unindexed>
    where
        F: Fn(T, I::Item) -> T + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        T: Send,
    {
        self.unindex(|base| base.fold(identity, fold_op))
    }

    /// As [`ParallelIterator::fold_with`]: one accumulator per leaf, as
    /// [`fold`](Self::fold).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let total: u32 = (0..100u32).into_par_iter().deterministic().fold_with(0, |a, x| a + x).sum();
    /// assert_eq!(total, 4950);
    /// ```
    pub fn fold_with<F, T>(
        self,
        init: T,
        fold_op: F,
    ) -> Deterministic<FoldWith<M::Driven, T, F>, Unindexed>
    where
        F: Fn(T, I::Item) -> T + Sync + Send,
        T: Send + Clone,
    {
        self.unindex(|base| base.fold_with(init, fold_op))
    }
}
