//! What a [`Deterministic`] chain offers only while it is [`Indexed`]: the grain, the
//! adapters that need the items' positions (their producers become part of the one
//! producer the fixed tree splits), and the reductions by index.

use std::num::NonZeroUsize;

use super::{Deterministic, FixedTree, Indexed, Unindexed};
use crate::iter::{
    Chain, Chunks, Enumerate, ExclusiveScan, FoldChunks, FoldChunksWith, InclusiveScan,
    IndexedParallelIterator, Interleave, InterleaveShortest, Intersperse, IntoParallelIterator,
    MaxLen, MinLen, Positions, Rev, Skip, StepBy, Take, Zip, ZipEq,
};

impl<I: IndexedParallelIterator> Deterministic<I, Indexed> {
    /// An adapter over the indexed chain: `adapt` wraps the base, the grain stays.
    fn adapt_indexed<J: IndexedParallelIterator>(
        self,
        adapt: impl FnOnce(I) -> J,
    ) -> Deterministic<J, Indexed> {
        Deterministic {
            base: adapt(self.base),
            mode: self.mode,
        }
    }

    /// The chain so far in its fixed tree, for an adapter that drives it through a producer
    /// of its own (`positions`, the scans).
    fn fixed(self) -> FixedTree<I> {
        FixedTree::new(self.base, self.mode.grain)
    }

    /// Sets the leaf length of the fixed tree: the items are cut into leaves of `grain`
    /// items (the last one may be shorter), each folded in order by one folder. Larger
    /// leaves cost less (one `join`, one folder and one reduce per leaf); smaller ones
    /// balance better when items are slow. `with_min_len` / `with_max_len` in the chain
    /// still bound the leaf. Without this the grain is `len / 256` rounded up, at most 4096
    /// (see [`IndexedParallelIterator::deterministic`]). The leaves are counted in the
    /// items the reduction at the end sees (chunks after `chunks`), at any point of the
    /// indexed chain; a scan in the chain cuts its blocks at the leaves it sees.
    ///
    /// The result of a reduction depends on the grain (a float sum is added up in another
    /// order), but for a given grain it is the same on every pool.
    ///
    /// # Panics
    /// If `grain` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// // Slow items: one leaf per item, so that 64 items keep many workers busy.
    /// let total: u64 = (0..64u32)
    ///     .into_par_iter()
    ///     .deterministic()
    ///     .with_grain(1)
    ///     .map(|i| u64::from(i * i))
    ///     .sum();
    /// assert_eq!(total, (0..64u64).map(|i| i * i).sum());
    /// ```
    pub fn with_grain(self, grain: usize) -> Self {
        let grain = NonZeroUsize::new(grain)
            .expect("`Deterministic::with_grain`: the grain (items per leaf) must be at least 1");
        Deterministic {
            base: self.base,
            mode: Indexed { grain: Some(grain) },
        }
    }

    /// As [`IndexedParallelIterator::with_min_len`]: leaves of at least `min` items.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let list = (0..10u32).into_par_iter().deterministic().with_grain(2).with_min_len(5).collect_vec_list();
    /// assert_eq!(list.len(), 2);
    /// ```
    pub fn with_min_len(self, min: usize) -> Deterministic<MinLen<I>, Indexed> {
        self.adapt_indexed(|base| base.with_min_len(min))
    }

    /// As [`IndexedParallelIterator::with_max_len`]: leaves of at most `max` items.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let list = (0..10u32).into_par_iter().deterministic().with_grain(5).with_max_len(2).collect_vec_list();
    /// assert_eq!(list.len(), 5);
    /// ```
    pub fn with_max_len(self, max: usize) -> Deterministic<MaxLen<I>, Indexed> {
        self.adapt_indexed(|base| base.with_max_len(max))
    }

    /// As [`IndexedParallelIterator::enumerate`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let weighted: f64 = [1.0, 1.0, 1.0].par_iter().deterministic().enumerate().map(|(i, x)| i as f64 * x).sum();
    /// assert_eq!(weighted, 3.0);
    /// ```
    pub fn enumerate(self) -> Deterministic<Enumerate<I>, Indexed> {
        self.adapt_indexed(IndexedParallelIterator::enumerate)
    }

    /// As [`IndexedParallelIterator::zip`], with any indexed parallel iterator: the pair is
    /// one producer, split in the one fixed tree.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let (a, b) = (vec![1.0, 2.0], vec![3.0, 4.0]);
    /// let dot: f64 = a.par_iter().deterministic().zip(&b).map(|(x, y)| x * y).sum();
    /// assert_eq!(dot, 11.0);
    /// ```
    pub fn zip<Z>(self, zip_op: Z) -> Deterministic<Zip<I, Z::Iter>, Indexed>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        self.adapt_indexed(|base| base.zip(zip_op))
    }

    /// As [`IndexedParallelIterator::zip_eq`] (as [`zip`](Self::zip)).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let (a, b) = (vec![1, 2], vec![3, 4]);
    /// let v: Vec<i32> = a.par_iter().deterministic().zip_eq(&b).map(|(x, y)| x + y).collect();
    /// assert_eq!(v, [4, 6]);
    /// ```
    pub fn zip_eq<Z>(self, zip_op: Z) -> Deterministic<ZipEq<I, Z::Iter>, Indexed>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        self.adapt_indexed(|base| base.zip_eq(zip_op))
    }

    /// As [`ParallelIterator::chain`](crate::iter::ParallelIterator::chain), with an indexed
    /// parallel iterator: the two are one producer, split in one fixed tree over all their
    /// items.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let (a, b) = (vec![0.5f32; 3], vec![0.25f32; 2]);
    /// let sum: f32 = a.par_iter().deterministic().chain(&b).sum();
    /// assert_eq!(sum, 2.0);
    /// ```
    pub fn chain<C>(self, chain: C) -> Deterministic<Chain<I, C::Iter>, Indexed>
    where
        C: IntoParallelIterator<Item = I::Item>,
        C::Iter: IndexedParallelIterator,
    {
        self.adapt_indexed(|base| base.chain(chain))
    }

    /// As [`IndexedParallelIterator::interleave`] (one producer, as [`chain`](Self::chain)).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = (0..3u32).into_par_iter().deterministic().interleave(10..12u32).collect();
    /// assert_eq!(v, [0, 10, 1, 11, 2]);
    /// ```
    pub fn interleave<J>(self, other: J) -> Deterministic<Interleave<I, J::Iter>, Indexed>
    where
        J: IntoParallelIterator<Item = I::Item>,
        J::Iter: IndexedParallelIterator<Item = I::Item>,
    {
        self.adapt_indexed(|base| base.interleave(other))
    }

    /// As [`IndexedParallelIterator::interleave_shortest`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = (0..3u32).into_par_iter().deterministic().interleave_shortest(10..11u32).collect();
    /// assert_eq!(v, [0, 10, 1]);
    /// ```
    pub fn interleave_shortest<J>(
        self,
        other: J,
    ) -> Deterministic<InterleaveShortest<I, J::Iter>, Indexed>
    where
        J: IntoParallelIterator<Item = I::Item>,
        J::Iter: IndexedParallelIterator<Item = I::Item>,
    {
        self.adapt_indexed(|base| base.interleave_shortest(other))
    }

    /// As [`ParallelIterator::intersperse`](crate::iter::ParallelIterator::intersperse). Only
    /// while the chain is indexed: after an unindexed adapter, `intersperse` gathers the items and drives them again as a new
    /// sequence, outside the chain's tree.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = (1..4u32).into_par_iter().deterministic().intersperse(0).collect();
    /// assert_eq!(v, [1, 0, 2, 0, 3]);
    /// ```
    pub fn intersperse(self, element: I::Item) -> Deterministic<Intersperse<I>, Indexed>
    where
        I::Item: Clone,
    {
        self.adapt_indexed(|base| base.intersperse(element))
    }

    /// As [`IndexedParallelIterator::rev`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = (0..3u32).into_par_iter().deterministic().rev().collect();
    /// assert_eq!(v, [2, 1, 0]);
    /// ```
    pub fn rev(self) -> Deterministic<Rev<I>, Indexed> {
        self.adapt_indexed(IndexedParallelIterator::rev)
    }

    /// As [`IndexedParallelIterator::skip`] (skipped items still run the closures before
    /// them, for their side effects).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..10u32).into_par_iter().deterministic().skip(7).sum::<u32>(), 24);
    /// ```
    pub fn skip(self, n: usize) -> Deterministic<Skip<I>, Indexed> {
        self.adapt_indexed(|base| base.skip(n))
    }

    /// As [`IndexedParallelIterator::take`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..10u32).into_par_iter().deterministic().take(3).sum::<u32>(), 3);
    /// ```
    pub fn take(self, n: usize) -> Deterministic<Take<I>, Indexed> {
        self.adapt_indexed(|base| base.take(n))
    }

    /// As [`IndexedParallelIterator::step_by`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = (0..10u32).into_par_iter().deterministic().step_by(4).collect();
    /// assert_eq!(v, [0, 4, 8]);
    /// ```
    pub fn step_by(self, step: usize) -> Deterministic<StepBy<I>, Indexed> {
        self.adapt_indexed(|base| base.step_by(step))
    }

    /// As [`IndexedParallelIterator::chunks`]: the leaves are counted in chunks.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let sums: Vec<u32> = (0..7u32).into_par_iter().deterministic().chunks(3).map(|c| c.iter().sum()).collect();
    /// assert_eq!(sums, [3, 12, 6]);
    /// ```
    pub fn chunks(self, chunk_size: usize) -> Deterministic<Chunks<I>, Indexed> {
        self.adapt_indexed(|base| base.chunks(chunk_size))
    }

    /// As [`IndexedParallelIterator::fold_chunks`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let sums: Vec<u32> = (0..7u32).into_par_iter().deterministic().fold_chunks(3, || 0, |a, x| a + x).collect();
    /// assert_eq!(sums, [3, 12, 6]);
    /// ```
    pub fn fold_chunks<T, ID, F>(
        self,
        chunk_size: usize,
        identity: ID,
        fold_op: F,
    ) -> Deterministic<FoldChunks<I, ID, F>, Indexed>
    where
        ID: Fn() -> T + Send + Sync,
        F: Fn(T, I::Item) -> T + Send + Sync,
        T: Send,
    {
        self.adapt_indexed(|base| base.fold_chunks(chunk_size, identity, fold_op))
    }

    /// As [`IndexedParallelIterator::fold_chunks_with`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let sums: Vec<u32> = (0..7u32).into_par_iter().deterministic().fold_chunks_with(3, 0, |a, x| a + x).collect();
    /// assert_eq!(sums, [3, 12, 6]);
    /// ```
    pub fn fold_chunks_with<T, F>(
        self,
        chunk_size: usize,
        init: T,
        fold_op: F,
    ) -> Deterministic<FoldChunksWith<I, T, F>, Indexed>
    where
        T: Send + Clone,
        F: Fn(T, I::Item) -> T + Send + Sync,
    {
        self.adapt_indexed(|base| base.fold_chunks_with(chunk_size, init, fold_op))
    }

    /// As [`IndexedParallelIterator::inclusive_scan`], whose blocks are the leaves of this
    /// chain's tree (its grain); a scan's results are the same on every pool anyway.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = (1..5u32).into_par_iter().deterministic().inclusive_scan(|| 0, |a, b| a + b).collect();
    /// assert_eq!(v, [1, 3, 6, 10]);
    /// ```
    pub fn inclusive_scan<ID, OP>(
        self,
        identity: ID,
        op: OP,
    ) -> Deterministic<InclusiveScan<FixedTree<I>, ID, OP>, Indexed>
    where
        I::Item: Clone + Send + Sync,
        ID: Fn() -> I::Item + Sync + Send,
        OP: Fn(I::Item, I::Item) -> I::Item + Sync + Send,
    {
        let mode = self.mode;
        Deterministic {
            base: self.fixed().inclusive_scan(identity, op),
            mode,
        }
    }

    /// As [`IndexedParallelIterator::exclusive_scan`] (as
    /// [`inclusive_scan`](Self::inclusive_scan)).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u32> = (1..5u32).into_par_iter().deterministic().exclusive_scan(|| 0, |a, b| a + b).collect();
    /// assert_eq!(v, [0, 1, 3, 6]);
    /// ```
    pub fn exclusive_scan<ID, OP>(
        self,
        identity: ID,
        op: OP,
    ) -> Deterministic<ExclusiveScan<FixedTree<I>, ID, OP>, Indexed>
    where
        I::Item: Clone + Send + Sync,
        ID: Fn() -> I::Item + Sync + Send,
        OP: Fn(I::Item, I::Item) -> I::Item + Sync + Send,
    {
        let mode = self.mode;
        Deterministic {
            base: self.fixed().exclusive_scan(identity, op),
            mode,
        }
    }

    /// As [`IndexedParallelIterator::positions`]; the chain is unindexed from here on.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<usize> = [1, 0, 3, 0].par_iter().deterministic().positions(|&x| x == 0).collect();
    /// assert_eq!(v, [1, 3]);
    /// ```
    pub fn positions<P>(self, predicate: P) -> Deterministic<Positions<FixedTree<I>, P>, Unindexed>
    where
        P: Fn(I::Item) -> bool + Sync + Send,
    {
        Deterministic {
            base: self.fixed().positions(predicate),
            mode: Unindexed(()),
        }
    }

    /// As [`IndexedParallelIterator::len`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..10u32).into_par_iter().deterministic().step_by(3).len(), 4);
    /// ```
    #[allow(clippy::len_without_is_empty)] // as for IndexedParallelIterator
    pub fn len(&self) -> usize {
        self.base.len()
    }

    /// As [`IndexedParallelIterator::collect_into_vec`]: in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = vec![7; 2];
    /// (0..3u32).into_par_iter().deterministic().collect_into_vec(&mut v);
    /// assert_eq!(v, [0, 1, 2]);
    /// ```
    pub fn collect_into_vec(self, target: &mut Vec<I::Item>) {
        self.fixed().collect_into_vec(target)
    }

    /// As [`IndexedParallelIterator::unzip_into_vecs`]: in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let (mut a, mut b) = (Vec::new(), Vec::new());
    /// (0..3u32).into_par_iter().deterministic().map(|x| (x, -(x as i32))).unzip_into_vecs(&mut a, &mut b);
    /// assert_eq!((a, b), (vec![0, 1, 2], vec![0, -1, -2]));
    /// ```
    pub fn unzip_into_vecs<A, B>(self, left: &mut Vec<A>, right: &mut Vec<B>)
    where
        I: IndexedParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
    {
        self.fixed().unzip_into_vecs(left, right)
    }

    /// As [`IndexedParallelIterator::position_first`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([1, 2, 1, 2].par_iter().deterministic().position_first(|&x| x == 2), Some(1));
    /// ```
    pub fn position_first<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(I::Item) -> bool + Sync + Send,
    {
        self.fixed().position_first(predicate)
    }

    /// As [`IndexedParallelIterator::position_last`].
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([1, 2, 1, 2].par_iter().deterministic().position_last(|&x| x == 1), Some(2));
    /// ```
    pub fn position_last<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(I::Item) -> bool + Sync + Send,
    {
        self.fixed().position_last(predicate)
    }
}
