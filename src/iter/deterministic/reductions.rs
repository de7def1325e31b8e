//! The reductions a [`Deterministic`] chain offers in both modes: each drives the chain as
//! its mode says (the indexed part in a [`FixedTree`](super::FixedTree)) with weft's own
//! consumer.

use std::cmp::Ordering;
use std::collections::LinkedList;
use std::iter::{Product, Sum};

use super::{Deterministic, Mode};
use crate::iter::{Either, FromParallelIterator, ParallelExtend, ParallelIterator};

impl<I, M> Deterministic<I, M>
where
    I: ParallelIterator,
    M: Mode<I>,
{
    /// As [`ParallelIterator::for_each`]: `op` sees the same items in the same leaves on
    /// every pool, at times and on threads that vary.
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use weft::prelude::*;
    ///
    /// let seen = Mutex::new(Vec::new());
    /// (0..5u32).into_par_iter().deterministic().for_each(|x| seen.lock().unwrap().push(x));
    /// let mut seen = seen.into_inner().unwrap();
    /// seen.sort();
    /// assert_eq!(seen, [0, 1, 2, 3, 4]);
    /// ```
    pub fn for_each<OP>(self, op: OP)
    where
        OP: Fn(I::Item) + Sync + Send,
    {
        self.driven().for_each(op)
    }

    /// As [`ParallelIterator::for_each_with`]: one clone of `init` per leaf, which sees the
    /// leaf's items in order.
    ///
    /// ```
    /// use std::sync::mpsc::channel;
    /// use weft::prelude::*;
    ///
    /// let (sender, receiver) = channel();
    /// (0..5u32).into_par_iter().deterministic().for_each_with(sender, |s, x| s.send(x).unwrap());
    /// let mut got: Vec<u32> = receiver.iter().collect();
    /// got.sort();
    /// assert_eq!(got, [0, 1, 2, 3, 4]);
    /// ```
    pub fn for_each_with<OP, T>(self, init: T, op: OP)
    where
        OP: Fn(&mut T, I::Item) + Sync + Send,
        T: Send + Clone,
    {
        self.driven().for_each_with(init, op)
    }

    /// As [`ParallelIterator::for_each_init`]: `init` runs once per leaf, and its value sees
    /// the leaf's items in order.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use weft::prelude::*;
    ///
    /// // 100 items in leaves of 10: ten `init`s on every pool.
    /// let inits = AtomicUsize::new(0);
    /// (0..100u32).into_par_iter().deterministic().with_grain(10).for_each_init(
    ///     || inits.fetch_add(1, Ordering::Relaxed),
    ///     |_, _| {},
    /// );
    /// assert_eq!(inits.into_inner(), 10);
    /// ```
    pub fn for_each_init<OP, INIT, T>(self, init: INIT, op: OP)
    where
        OP: Fn(&mut T, I::Item) + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
    {
        self.driven().for_each_init(init, op)
    }

    /// As [`ParallelIterator::count`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..10u32).into_par_iter().deterministic().filter(|x| x % 3 == 0).count(), 4);
    /// ```
    pub fn count(self) -> usize {
        self.driven().count()
    }

    /// As [`ParallelIterator::sum`], added up in the fixed tree: the same bits on every pool,
    /// for floats too (not those of a sequential sum, which adds in another order).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<f64> = (1..=1000).map(|i| 1.0 / i as f64).collect();
    /// let sum = |threads| {
    ///     let pool = weft::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    ///     pool.install(|| v.par_iter().deterministic().sum::<f64>())
    /// };
    /// assert_eq!(sum(1).to_bits(), sum(4).to_bits());
    /// ```
    pub fn sum<S>(self) -> S
    where
        S: Send + Sum<I::Item> + Sum<S>,
    {
        self.driven().sum()
    }

    /// As [`ParallelIterator::product`], multiplied in the fixed tree (as [`sum`](Self::sum)).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([1u64, 2, 3, 4, 5].par_iter().deterministic().product::<u64>(), 120);
    /// ```
    pub fn product<P>(self) -> P
    where
        P: Send + Product<I::Item> + Product<P>,
    {
        self.driven().product()
    }

    /// As [`ParallelIterator::reduce`]: `op` gets the same operands in the same order on
    /// every pool (`identity()` starts every leaf).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let max = (0..100u32).into_par_iter().deterministic().reduce(|| 0, u32::max);
    /// assert_eq!(max, 99);
    /// ```
    pub fn reduce<OP, ID>(self, identity: ID, op: OP) -> I::Item
    where
        OP: Fn(I::Item, I::Item) -> I::Item + Sync + Send,
        ID: Fn() -> I::Item + Sync + Send,
    {
        self.driven().reduce(identity, op)
    }

    /// As [`ParallelIterator::reduce_with`], with the same operands in the same order on
    /// every pool.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let longest = ["a", "bcd", "ef"].par_iter().deterministic().copied().reduce_with(|a, b| {
    ///     if b.len() > a.len() { b } else { a }
    /// });
    /// assert_eq!(longest, Some("bcd"));
    /// ```
    pub fn reduce_with<OP>(self, op: OP) -> Option<I::Item>
    where
        OP: Fn(I::Item, I::Item) -> I::Item + Sync + Send,
    {
        self.driven().reduce_with(op)
    }

    /// As [`ParallelIterator::min`]: the first of equal minima.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([3, 1, 2].par_iter().deterministic().min(), Some(&1));
    /// ```
    pub fn min(self) -> Option<I::Item>
    where
        I::Item: Ord,
    {
        self.driven().min()
    }

    /// As [`ParallelIterator::min_by`]: the first of equal minima; with a comparison that is
    /// not a total order (`partial_cmp` with NaN taken as equal), the answer the fixed tree
    /// gives, the same on every pool.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v = [(1, 'a'), (0, 'b'), (0, 'c')];
    /// assert_eq!(v.par_iter().deterministic().min_by(|x, y| x.0.cmp(&y.0)), Some(&(0, 'b')));
    /// ```
    pub fn min_by<F>(self, f: F) -> Option<I::Item>
    where
        F: Sync + Send + Fn(&I::Item, &I::Item) -> Ordering,
    {
        self.driven().min_by(f)
    }

    /// As [`ParallelIterator::min_by_key`]: the first of equal minima.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v = [(1, 'a'), (0, 'b'), (0, 'c')];
    /// assert_eq!(v.par_iter().deterministic().min_by_key(|x| x.0), Some(&(0, 'b')));
    /// ```
    pub fn min_by_key<K, F>(self, f: F) -> Option<I::Item>
    where
        K: Ord + Send,
        F: Sync + Send + Fn(&I::Item) -> K,
    {
        self.driven().min_by_key(f)
    }

    /// As [`ParallelIterator::max`]: the last of equal maxima.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([3, 1, 2].par_iter().deterministic().max(), Some(&3));
    /// ```
    pub fn max(self) -> Option<I::Item>
    where
        I::Item: Ord,
    {
        self.driven().max()
    }

    /// As [`ParallelIterator::max_by`]: the last of equal maxima (with a comparison that is
    /// not a total order, as [`min_by`](Self::min_by)).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v = [(1, 'a'), (1, 'b'), (0, 'c')];
    /// assert_eq!(v.par_iter().deterministic().max_by(|x, y| x.0.cmp(&y.0)), Some(&(1, 'b')));
    /// ```
    pub fn max_by<F>(self, f: F) -> Option<I::Item>
    where
        F: Sync + Send + Fn(&I::Item, &I::Item) -> Ordering,
    {
        self.driven().max_by(f)
    }

    /// As [`ParallelIterator::max_by_key`]: the last of equal maxima.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v = [(1, 'a'), (1, 'b'), (0, 'c')];
    /// assert_eq!(v.par_iter().deterministic().max_by_key(|x| x.0), Some(&(1, 'b')));
    /// ```
    pub fn max_by_key<K, F>(self, f: F) -> Option<I::Item>
    where
        K: Ord + Send,
        F: Sync + Send + Fn(&I::Item) -> K,
    {
        self.driven().max_by_key(f)
    }

    /// As [`ParallelIterator::find_first`]: the first match in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..100u32).into_par_iter().deterministic().find_first(|x| x % 7 == 6), Some(6));
    /// ```
    pub fn find_first<P>(self, predicate: P) -> Option<I::Item>
    where
        P: Fn(&I::Item) -> bool + Sync + Send,
    {
        self.driven().find_first(predicate)
    }

    /// As [`ParallelIterator::find_last`]: the last match in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..100u32).into_par_iter().deterministic().find_last(|x| x % 7 == 6), Some(97));
    /// ```
    pub fn find_last<P>(self, predicate: P) -> Option<I::Item>
    where
        P: Fn(&I::Item) -> bool + Sync + Send,
    {
        self.driven().find_last(predicate)
    }

    /// As [`ParallelIterator::find_map_first`]: the result for the first match in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let first = (1..100u32).into_par_iter().deterministic().find_map_first(|x| (x % 7 == 0).then_some(x * 10));
    /// assert_eq!(first, Some(70));
    /// ```
    pub fn find_map_first<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(I::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.driven().find_map_first(predicate)
    }

    /// As [`ParallelIterator::find_map_last`]: the result for the last match in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let last = (1..100u32).into_par_iter().deterministic().find_map_last(|x| (x % 7 == 0).then_some(x * 10));
    /// assert_eq!(last, Some(980));
    /// ```
    pub fn find_map_last<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(I::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.driven().find_map_last(predicate)
    }

    /// As [`ParallelIterator::any`]: the answer is the same on every pool; which items were
    /// looked at before it was known is not.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert!((0..100u32).into_par_iter().deterministic().any(|x| x == 42));
    /// ```
    pub fn any<P>(self, predicate: P) -> bool
    where
        P: Fn(I::Item) -> bool + Sync + Send,
    {
        self.driven().any(predicate)
    }

    /// As [`ParallelIterator::all`] (as [`any`](Self::any)).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert!((0..100u32).into_par_iter().deterministic().all(|x| x < 100));
    /// ```
    pub fn all<P>(self, predicate: P) -> bool
    where
        P: Fn(I::Item) -> bool + Sync + Send,
    {
        self.driven().all(predicate)
    }

    /// As [`ParallelIterator::collect`]: in order, as always; the fixed tree matters only
    /// to a `C` whose result depends on how the items were grouped.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = (0..5u32).into_par_iter().deterministic().map(|x| x * x).collect();
    /// assert_eq!(v, [0, 1, 4, 9, 16]);
    /// ```
    pub fn collect<C>(self) -> C
    where
        C: FromParallelIterator<I::Item>,
    {
        self.driven().collect()
    }

    /// As [`ParallelIterator::collect_vec_list`]: one vector per leaf of the tree (the
    /// empty ones left out), the same on every pool.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let list = (0..10u32).into_par_iter().deterministic().with_grain(4).collect_vec_list();
    /// assert_eq!(list.into_iter().collect::<Vec<_>>(), [vec![0, 1, 2, 3], vec![4, 5, 6, 7], vec![8, 9]]);
    /// ```
    pub fn collect_vec_list(self) -> LinkedList<Vec<I::Item>> {
        self.driven().collect_vec_list()
    }

    /// As [`ParallelIterator::unzip`]: in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let (a, b): (Vec<u32>, Vec<u32>) = (0..3u32).into_par_iter().deterministic().map(|x| (x, 2 * x)).unzip();
    /// assert_eq!((a, b), (vec![0, 1, 2], vec![0, 2, 4]));
    /// ```
    pub fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        I: ParallelIterator<Item = (A, B)>,
        FromA: Default + Send + ParallelExtend<A>,
        FromB: Default + Send + ParallelExtend<B>,
        A: Send,
        B: Send,
    {
        self.driven().unzip()
    }

    /// As [`ParallelIterator::partition`]: in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let (even, odd): (Vec<u32>, Vec<u32>) = (0..6u32).into_par_iter().deterministic().partition(|x| x % 2 == 0);
    /// assert_eq!((even, odd), (vec![0, 2, 4], vec![1, 3, 5]));
    /// ```
    pub fn partition<A, B, P>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<I::Item>,
        B: Default + Send + ParallelExtend<I::Item>,
        P: Fn(&I::Item) -> bool + Sync + Send,
    {
        self.driven().partition(predicate)
    }

    /// As [`ParallelIterator::partition_map`]: in order.
    ///
    /// ```
    /// use weft::iter::Either;
    /// use weft::prelude::*;
    ///
    /// let (small, big): (Vec<u32>, Vec<String>) = (0..4u32)
    ///     .into_par_iter()
    ///     .deterministic()
    ///     .partition_map(|x| if x < 2 { Either::Left(x) } else { Either::Right(x.to_string()) });
    /// assert_eq!((small, big), (vec![0, 1], vec!["2".to_string(), "3".to_string()]));
    /// ```
    pub fn partition_map<A, B, P, L, R>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<L>,
        B: Default + Send + ParallelExtend<R>,
        P: Fn(I::Item) -> Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        self.driven().partition_map(predicate)
    }
}
