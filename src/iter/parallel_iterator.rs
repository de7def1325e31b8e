//! The `ParallelIterator` trait. Every provided method is a one-line constructor of an
//! adapter (in `adapter/`) or a call into a consumer (in `consumer/`).

use std::cmp::Ordering;
use std::collections::LinkedList;
use std::iter::{Product, Sum};

use either::Either;

use crate::iter::adapter::*;
use crate::iter::consumer;
use crate::iter::private::Try;
use crate::iter::{FromParallelIterator, IntoParallelIterator, ParallelExtend};
use crate::plumbing::UnindexedConsumer;

/// A parallel version of [`Iterator`]: items are produced and consumed across the pool's
/// workers. Closures given to its methods are `Fn + Sync + Send`, so they can be called
/// from many threads at once.
///
/// ```
/// use weft::prelude::*;
///
/// let sum_of_squares: u64 = (1..=10u64).into_par_iter().map(|x| x * x).sum();
/// assert_eq!(sum_of_squares, 385);
/// ```
pub trait ParallelIterator: Sized + Send {
    /// The type of item this iterator yields.
    type Item: Send;

    /// Drives every item into `consumer`: the one required method, usually a call to
    /// [`bridge`](crate::iter::plumbing::bridge) or
    /// [`bridge_unindexed`](crate::iter::plumbing::bridge_unindexed).
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>;

    /// The exact number of items, if known without running the iterator.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..10).into_par_iter().opt_len(), Some(10));
    /// assert_eq!((0..10).into_par_iter().filter(|x| x % 2 == 0).opt_len(), None);
    /// ```
    fn opt_len(&self) -> Option<usize> {
        None
    }

    /// weft-internal, not part of Rayon's trait: a bound `n` on the items that holds for
    /// every piece. `Some(n)` promises that [`drive_unindexed`](Self::drive_unindexed)
    /// splits consumers by position only (`Consumer::split_at`, never
    /// `UnindexedConsumer::split_off_left`) over `n` positions, and that the positions
    /// `a..b` yield at most `b - a` items. An exact length ([`opt_len`](Self::opt_len), the
    /// default) is such a bound; `filter`, `filter_map` and `map` pass on their base's. A
    /// `collect` into a `Vec` uses it to write every piece in place. Implementations outside
    /// weft should keep the default.
    #[doc(hidden)]
    fn upper_len_by_position(&self) -> Option<usize> {
        self.opt_len()
    }

    /// Calls `op` on every item.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use weft::prelude::*;
    ///
    /// let total = AtomicUsize::new(0);
    /// (1..=4usize).into_par_iter().for_each(|x| {
    ///     total.fetch_add(x, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 10);
    /// ```
    #[inline]
    fn for_each<OP>(self, op: OP)
    where
        OP: Fn(Self::Item) + Sync + Send,
    {
        consumer::for_each::for_each(self, &op)
    }

    /// Calls `op` on every item with `&mut` to a clone of `init`: one clone per piece, and on
    /// an indexed iterator a piece is everything one worker folds in a row (the first worker
    /// plus one per steal). `init` itself stays untouched and is dropped at the end.
    ///
    /// ```
    /// use std::sync::mpsc::channel;
    /// use weft::prelude::*;
    ///
    /// let (sender, receiver) = channel();
    /// (0..5).into_par_iter().for_each_with(sender, |s, x| s.send(x).unwrap());
    /// let mut got: Vec<i32> = receiver.iter().collect();
    /// got.sort();
    /// assert_eq!(got, [0, 1, 2, 3, 4]);
    /// ```
    fn for_each_with<OP, T>(self, init: T, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        T: Send + Clone,
    {
        self.map_with(init, op).for_each(drop)
    }

    /// Calls `op` on every item with `&mut` to a value made by `init`.
    ///
    /// `init` runs once per worker that owns part of the work: on indexed iterators, the
    /// first one plus one per successful steal (`ThreadPool::stats().range_steals`), never
    /// once per item or per chunk; the value never leaves the worker that made it, so it
    /// need not be `Send`.
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use weft::prelude::*;
    ///
    /// let out = Mutex::new(Vec::new());
    /// (0..4).into_par_iter().for_each_init(String::new, |buf, x| {
    ///     buf.clear();
    ///     buf.push_str(&x.to_string());
    ///     out.lock().unwrap().push(buf.clone());
    /// });
    /// let mut out = out.into_inner().unwrap();
    /// out.sort();
    /// assert_eq!(out, ["0", "1", "2", "3"]);
    /// ```
    fn for_each_init<OP, INIT, T>(self, init: INIT, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
    {
        self.map_init(init, op).for_each(drop)
    }

    /// Calls a fallible `op` on every item, stopping everywhere at the first error.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let r = (0..100).into_par_iter().try_for_each(|x| if x < 50 { Ok(()) } else { Err(x) });
    /// assert!(matches!(r, Err(x) if x >= 50));
    /// ```
    fn try_for_each<OP, R>(self, op: OP) -> R
    where
        OP: Fn(Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        consumer::try_for_each(self, op)
    }

    /// `try_for_each` with `&mut` to a clone of `init` per piece.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let r: Option<()> = (0..10).into_par_iter().try_for_each_with(5, |limit, x| (x < *limit * 2).then_some(()));
    /// assert_eq!(r, Some(()));
    /// ```
    fn try_for_each_with<OP, T, R>(self, init: T, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Try<Output = ()> + Send,
    {
        self.map_with(init, op).try_for_each(std::convert::identity)
    }

    /// `try_for_each` with `&mut` to a value made by `init` per piece.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let r: Result<(), String> = (0..10).into_par_iter().try_for_each_init(Vec::new, |v, x| {
    ///     v.push(x);
    ///     if x == 7 { Err("seven".to_string()) } else { Ok(()) }
    /// });
    /// assert_eq!(r, Err("seven".to_string()));
    /// ```
    fn try_for_each_init<OP, INIT, T, R>(self, init: INIT, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map_init(init, op).try_for_each(std::convert::identity)
    }

    /// Counts the items.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..1000).into_par_iter().filter(|x| x % 3 == 0).count(), 334);
    /// ```
    #[inline]
    fn count(self) -> usize {
        consumer::sum_product::count(self)
    }

    /// Applies `map_op` to every item.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..4).into_par_iter().map(|x| x * 3).collect();
    /// assert_eq!(v, [0, 3, 6, 9]);
    /// ```
    fn map<F, R>(self, map_op: F) -> Map<Self, F>
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Send,
    {
        Map::new(self, map_op)
    }

    /// Applies `map_op` with `&mut` to a clone of `init`: one clone per piece, and on an
    /// indexed iterator a piece is everything one worker folds in a row (the first worker
    /// plus one per steal). `init` itself stays untouched and is dropped at the end.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..3).into_par_iter().map_with(10, |ten, x| *ten + x).collect();
    /// assert_eq!(v, [10, 11, 12]);
    /// ```
    fn map_with<F, T, R>(self, init: T, map_op: F) -> MapWith<Self, T, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Send,
    {
        MapWith::new(self, init, map_op)
    }

    /// Applies `map_op` with `&mut` to a value made by `init`.
    ///
    /// `init` runs once per worker that owns part of the work: on indexed iterators, the
    /// first one plus one per successful steal (`ThreadPool::stats().range_steals`), so
    /// an expensive value (a buffer, a random number generator) is made a handful of times;
    /// it never leaves the worker that made it, so it need not be `Send`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<usize> = ["a", "bb"].par_iter().map_init(String::new, |buf, s| {
    ///     buf.clear();
    ///     buf.push_str(s);
    ///     buf.len()
    /// }).collect();
    /// assert_eq!(v, [1, 2]);
    /// ```
    fn map_init<F, INIT, T, R>(self, init: INIT, map_op: F) -> MapInit<Self, INIT, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Send,
    {
        MapInit::new(self, init, map_op)
    }

    /// Clones every `&T` item.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v = vec![String::from("a")];
    /// assert_eq!(v.par_iter().cloned().collect::<Vec<_>>(), v);
    /// ```
    fn cloned<'a, T>(self) -> Cloned<Self>
    where
        T: 'a + Clone + Send + Sync,
        Self: ParallelIterator<Item = &'a T>,
    {
        Cloned::new(self)
    }

    /// Copies every `&T` item.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([1, 2].par_iter().copied().sum::<i32>(), 3);
    /// ```
    fn copied<'a, T>(self) -> Copied<Self>
    where
        T: 'a + Copy + Send + Sync,
        Self: ParallelIterator<Item = &'a T>,
    {
        Copied::new(self)
    }

    /// Calls `inspect_op` on a reference to each item as it passes.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicI32, Ordering};
    /// use weft::prelude::*;
    ///
    /// let seen = AtomicI32::new(0);
    /// let v: Vec<i32> = (1..4).into_par_iter().inspect(|x| { seen.fetch_add(*x, Ordering::Relaxed); }).collect();
    /// assert_eq!((v, seen.into_inner()), (vec![1, 2, 3], 6));
    /// ```
    fn inspect<OP>(self, inspect_op: OP) -> Inspect<Self, OP>
    where
        OP: Fn(&Self::Item) + Sync + Send,
    {
        Inspect::new(self, inspect_op)
    }

    /// Mutates each item in place with `update_op`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (1..4).into_par_iter().update(|x| *x *= -1).collect();
    /// assert_eq!(v, [-1, -2, -3]);
    /// ```
    fn update<F>(self, update_op: F) -> Update<Self, F>
    where
        F: Fn(&mut Self::Item) + Sync + Send,
    {
        Update::new(self, update_op)
    }

    /// Keeps the items for which `filter_op` returns true.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..10).into_par_iter().filter(|x| x % 4 == 0).collect();
    /// assert_eq!(v, [0, 4, 8]);
    /// ```
    fn filter<P>(self, filter_op: P) -> Filter<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Filter::new(self, filter_op)
    }

    /// Maps each item to an `Option` and keeps the `Some` values.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = ['1', 'x', '2'].par_iter().filter_map(|c| c.to_digit(10)).collect();
    /// assert_eq!(v, [1, 2]);
    /// ```
    fn filter_map<P, R>(self, filter_op: P) -> FilterMap<Self, P>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        FilterMap::new(self, filter_op)
    }

    /// Maps each item to a parallel iterator and flattens them, in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..3).into_par_iter().flat_map(|x| vec![x; x as usize]).collect();
    /// assert_eq!(v, [1, 2, 2]);
    /// ```
    fn flat_map<F, PI>(self, map_op: F) -> FlatMap<Self, F>
    where
        F: Fn(Self::Item) -> PI + Sync + Send,
        PI: IntoParallelIterator,
    {
        FlatMap::new(self, map_op)
    }

    /// Maps each item to a sequential iterator and flattens them, in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u8> = (1..4u8).into_par_iter().flat_map_iter(|x| 0..x).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    fn flat_map_iter<F, SI>(self, map_op: F) -> FlatMapIter<Self, F>
    where
        F: Fn(Self::Item) -> SI + Sync + Send,
        SI: IntoIterator,
        SI::Item: Send,
    {
        FlatMapIter::new(self, map_op)
    }

    /// Flattens items that are themselves parallel iterables.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = vec![vec![1, 2], vec![3]].into_par_iter().flatten().collect();
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    fn flatten(self) -> Flatten<Self>
    where
        Self::Item: IntoParallelIterator,
    {
        Flatten::new(self)
    }

    /// Flattens items that are sequential iterables.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = vec![Some(1), None, Some(3)].into_par_iter().flatten_iter().collect();
    /// assert_eq!(v, [1, 3]);
    /// ```
    fn flatten_iter(self) -> FlattenIter<Self>
    where
        Self::Item: IntoIterator,
        <Self::Item as IntoIterator>::Item: Send,
    {
        FlattenIter::new(self)
    }

    /// Combines all items with the associative `op`, starting each piece from `identity()`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let product = (1..=5u64).into_par_iter().reduce(|| 1, |a, b| a * b);
    /// assert_eq!(product, 120);
    /// ```
    #[inline]
    fn reduce<OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
        ID: Fn() -> Self::Item + Sync + Send,
    {
        consumer::reduce::reduce(self, &identity, &op)
    }

    /// Combines all items with the associative `op`; `None` if there are none.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let s = ["a", "b", "c"].par_iter().map(|s| s.to_string()).reduce_with(|a, b| a + &b);
    /// assert_eq!(s.as_deref(), Some("abc"));
    /// ```
    #[inline]
    fn reduce_with<OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        consumer::reduce::reduce_with(self, &op)
    }

    /// Reduces `Try` items (`Option`, `Result`, …), stopping at the first early exit.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let sum = (1..=10u8).into_par_iter().map(Some).try_reduce(|| 0, u8::checked_add);
    /// assert_eq!(sum, Some(55));
    /// let overflow = (1..=100u8).into_par_iter().map(Some).try_reduce(|| 0, u8::checked_add);
    /// assert_eq!(overflow, None);
    /// ```
    fn try_reduce<T, OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        consumer::try_reduce::try_reduce(self, &identity, &op)
    }

    /// Like `try_reduce` without an identity; `None` if there are no items.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let r = vec![Ok(1), Ok(2)].into_par_iter().try_reduce_with(|a, b| Ok::<i32, ()>(a + b));
    /// assert_eq!(r, Some(Ok(3)));
    /// ```
    fn try_reduce_with<T, OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        consumer::try_reduce::try_reduce_with(self, &op)
    }

    /// Folds each piece into one value, starting from `identity()`: yields one item per
    /// piece.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let s: usize = ["ab", "c"].par_iter().fold(|| 0, |n, s| n + s.len()).sum();
    /// assert_eq!(s, 3);
    /// ```
    fn fold<T, ID, F>(self, identity: ID, fold_op: F) -> Fold<Self, ID, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        T: Send,
    {
        Fold::new(self, identity, fold_op)
    }

    /// Folds each piece into a clone of `init`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let n: u32 = (0..10u32).into_par_iter().fold_with(0, |a, b| a + b).sum();
    /// assert_eq!(n, 45);
    /// ```
    fn fold_with<F, T>(self, init: T, fold_op: F) -> FoldWith<Self, T, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        T: Send + Clone,
    {
        FoldWith::new(self, init, fold_op)
    }

    /// Folds each piece with a fallible `fold_op`; a piece stops at its first early exit.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let r: Option<u32> = (0..10u32).into_par_iter()
    ///     .try_fold(|| 0u32, |a, b| a.checked_add(b))
    ///     .try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(r, Some(45));
    /// ```
    fn try_fold<T, R, ID, F>(self, identity: ID, fold_op: F) -> TryFold<Self, R, ID, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        R: Try<Output = T> + Send,
    {
        TryFold::new(self, identity, fold_op)
    }

    /// `try_fold` starting each piece from a clone of `init`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let r: Option<u32> = (0..10u32).into_par_iter()
    ///     .try_fold_with(0u32, |a, b| a.checked_add(b))
    ///     .try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(r, Some(45));
    /// ```
    fn try_fold_with<F, T, R>(self, init: T, fold_op: F) -> TryFoldWith<Self, R, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        R: Try<Output = T> + Send,
        T: Clone + Send,
    {
        TryFoldWith::new(self, init, fold_op)
    }

    /// Sums the items; the pieces' sums are added in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((1..=100).into_par_iter().sum::<i32>(), 5050);
    /// ```
    #[inline]
    fn sum<S>(self) -> S
    where
        S: Send + Sum<Self::Item> + Sum<S>,
    {
        consumer::sum_product::sum(self)
    }

    /// Multiplies the items.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((1..=6u64).into_par_iter().product::<u64>(), 720);
    /// ```
    #[inline]
    fn product<P>(self) -> P
    where
        P: Send + Product<Self::Item> + Product<P>,
    {
        consumer::sum_product::product(self)
    }

    /// The smallest item (the first one if several are equal).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([3, 1, 2].par_iter().min(), Some(&1));
    /// ```
    #[inline]
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        consumer::min_max::min(self)
    }

    /// The smallest item by `f`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([-3, 1, 2].par_iter().min_by(|a, b| b.cmp(a)), Some(&2));
    /// ```
    #[inline]
    fn min_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Sync + Send + Fn(&Self::Item, &Self::Item) -> Ordering,
    {
        consumer::min_max::min_by(self, f)
    }

    /// The item with the smallest key.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([-3i32, 1, 2].par_iter().min_by_key(|x| x.abs()), Some(&1));
    /// ```
    #[inline]
    fn min_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Sync + Send + Fn(&Self::Item) -> K,
    {
        consumer::min_max::min_by_key(self, f)
    }

    /// The largest item (the last one if several are equal).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([3, 1, 2].par_iter().max(), Some(&3));
    /// ```
    #[inline]
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        consumer::min_max::max(self)
    }

    /// The largest item by `f`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([-3, 1, 2].par_iter().max_by(|a, b| b.cmp(a)), Some(&-3));
    /// ```
    #[inline]
    fn max_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Sync + Send + Fn(&Self::Item, &Self::Item) -> Ordering,
    {
        consumer::min_max::max_by(self, f)
    }

    /// The item with the largest key.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([-3i32, 1, 2].par_iter().max_by_key(|x| x.abs()), Some(&-3));
    /// ```
    #[inline]
    fn max_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Sync + Send + Fn(&Self::Item) -> K,
    {
        consumer::min_max::max_by_key(self, f)
    }

    /// The items of `self`, then those of `chain`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..2).into_par_iter().chain(5..7).collect();
    /// assert_eq!(v, [0, 1, 5, 6]);
    /// ```
    fn chain<C>(self, chain: C) -> Chain<Self, C::Iter>
    where
        C: IntoParallelIterator<Item = Self::Item>,
    {
        Chain::new(self, chain.into_par_iter())
    }

    /// Some item matching `predicate`, whichever is found first by any thread.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..100).into_par_iter().find_any(|&x| x == 42), Some(42));
    /// ```
    fn find_any<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        consumer::find_any(self, predicate)
    }

    /// Deprecated (as in Rayon): [`find_any`](Self::find_any) under its old name. The search
    /// is not in order; use `find_any`, `find_first` or `find_last`.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..100).into_par_iter().find(|&x| x * x == 49), Some(7));
    /// ```
    #[deprecated(note = "parallel `find` does not search in order: use `find_any`, \
                         `find_first` or `find_last`")]
    fn find<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.find_any(predicate)
    }

    /// The sequentially first item matching `predicate`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..100).into_par_iter().find_first(|x| x % 7 == 6), Some(6));
    /// ```
    fn find_first<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        consumer::find_first(self, predicate)
    }

    /// The sequentially last item matching `predicate`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..100).into_par_iter().find_last(|x| x % 7 == 6), Some(97));
    /// ```
    fn find_last<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        consumer::find_last(self, predicate)
    }

    /// Some `Some` result of `predicate`, whichever is found first by any thread.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let n = ["x", "7", "y"].par_iter().find_map_any(|s| s.parse::<i32>().ok());
    /// assert_eq!(n, Some(7));
    /// ```
    fn find_map_any<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        consumer::find::find_map_any(self.map(predicate))
    }

    /// The sequentially first `Some` result of `predicate`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let n = ["x", "7", "8"].par_iter().find_map_first(|s| s.parse::<i32>().ok());
    /// assert_eq!(n, Some(7));
    /// ```
    fn find_map_first<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        consumer::find::find_map_first(self.map(predicate))
    }

    /// The sequentially last `Some` result of `predicate`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let n = ["x", "7", "8"].par_iter().find_map_last(|s| s.parse::<i32>().ok());
    /// assert_eq!(n, Some(8));
    /// ```
    fn find_map_last<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        consumer::find::find_map_last(self.map(predicate))
    }

    /// True if any item matches `predicate` (stops early).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert!((0..100).into_par_iter().any(|x| x == 99));
    /// ```
    fn any<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        consumer::any(self, predicate)
    }

    /// True if every item matches `predicate` (stops early).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert!(!(0..100).into_par_iter().all(|x| x < 99));
    /// ```
    fn all<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        consumer::all(self, predicate)
    }

    /// The `Some` values, stopping everywhere once a `None` is seen. Which `Some` values after
    /// the first `None` still come through depends on timing, but none that the base
    /// produced is thrown away: each piece looks for the stop before it pulls an item.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..5).into_par_iter().map(Some).while_some().collect();
    /// assert_eq!(v, [0, 1, 2, 3, 4]);
    /// ```
    fn while_some<T>(self) -> WhileSome<Self>
    where
        Self: ParallelIterator<Item = Option<T>>,
        T: Send,
    {
        WhileSome::new(self)
    }

    /// Stops all pieces early once any closure panics (the panic still propagates).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..10).into_par_iter().panic_fuse().count(), 10);
    /// ```
    fn panic_fuse(self) -> PanicFuse<Self> {
        PanicFuse::new(self)
    }

    /// Collects the items into any [`FromParallelIterator`] collection; order is kept for
    /// ordered collections.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u8> = (0..5u8).into_par_iter().collect();
    /// assert_eq!(v, [0, 1, 2, 3, 4]);
    /// ```
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        C::from_par_iter(self)
    }

    /// Splits pairs into two collections, keeping order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let (a, b): (Vec<i32>, Vec<char>) = vec![(1, 'a'), (2, 'b')].into_par_iter().unzip();
    /// assert_eq!((a, b), (vec![1, 2], vec!['a', 'b']));
    /// ```
    fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        Self: ParallelIterator<Item = (A, B)>,
        FromA: Default + Send + ParallelExtend<A>,
        FromB: Default + Send + ParallelExtend<B>,
        A: Send,
        B: Send,
    {
        consumer::unzip::unzip(self)
    }

    /// Splits items into those matching `predicate` and the rest, keeping order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let (even, odd): (Vec<i32>, Vec<i32>) = (0..6).into_par_iter().partition(|x| x % 2 == 0);
    /// assert_eq!((even, odd), (vec![0, 2, 4], vec![1, 3, 5]));
    /// ```
    fn partition<A, B, P>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<Self::Item>,
        B: Default + Send + ParallelExtend<Self::Item>,
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        let side = |item| {
            if predicate(&item) {
                Either::Left(item)
            } else {
                Either::Right(item)
            }
        };
        consumer::unzip::partition_map(self, &side)
    }

    /// Sends each item left or right by `predicate`'s `Either`, keeping order.
    ///
    /// ```
    /// use weft::iter::Either;
    /// use weft::prelude::*;
    ///
    /// let (n, s): (Vec<i32>, Vec<String>) = (0..4).into_par_iter()
    ///     .partition_map(|x| if x % 2 == 0 { Either::Left(x) } else { Either::Right(x.to_string()) });
    /// assert_eq!((n, s), (vec![0, 2], vec!["1".to_string(), "3".to_string()]));
    /// ```
    fn partition_map<A, B, P, L, R>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<L>,
        B: Default + Send + ParallelExtend<R>,
        P: Fn(Self::Item) -> Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        consumer::unzip::partition_map(self, &predicate)
    }

    /// A clone of `element` between each pair of neighbouring items.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = vec![1, 2, 3].into_par_iter().intersperse(0).collect();
    /// assert_eq!(v, [1, 0, 2, 0, 3]);
    /// ```
    fn intersperse(self, element: Self::Item) -> Intersperse<Self>
    where
        Self::Item: Clone,
    {
        Intersperse::new(self, element)
    }

    /// At most `n` items, in no particular order or choice.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..100).into_par_iter().take_any(7).count(), 7);
    /// ```
    fn take_any(self, n: usize) -> TakeAny<Self> {
        TakeAny::new(self, n)
    }

    /// All but `n` items, in no particular order or choice.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..100).into_par_iter().skip_any(7).count(), 93);
    /// ```
    fn skip_any(self, n: usize) -> SkipAny<Self> {
        SkipAny::new(self, n)
    }

    /// Items while `predicate` holds; once it fails for any item, all pieces stop.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..100).into_par_iter().take_any_while(|&x| x < 10).collect();
    /// assert!(v.iter().all(|&x| x < 10));
    /// ```
    fn take_any_while<P>(self, predicate: P) -> TakeAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        TakeAnyWhile::new(self, predicate)
    }

    /// Skips items while `predicate` holds; once it fails for any item, the rest pass.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..100).into_par_iter().skip_any_while(|&x| x < 10).collect();
    /// assert!(v.contains(&99));
    /// ```
    fn skip_any_while<P>(self, predicate: P) -> SkipAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        SkipAnyWhile::new(self, predicate)
    }

    /// Collects into a list of vectors whose concatenation is in order (cheap to build).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let list = (0..5).into_par_iter().collect_vec_list();
    /// assert_eq!(list.into_iter().flatten().collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
    /// ```
    fn collect_vec_list(self) -> LinkedList<Vec<Self::Item>> {
        consumer::collect::collect_vec_list(self)
    }
}
