//! Parallel operations on slices: [`ParallelSlice`] and [`ParallelSliceMut`] (chunks,
//! windows, splits and the parallel sorts).
//!
//! ```
//! use weft::slice::ParallelSliceMut;
//!
//! let mut v = vec![5, 2, 8, 1];
//! v.par_sort();
//! assert_eq!(v, [1, 2, 5, 8]);
//! ```

mod chunk_by; // par_chunk_by, par_chunk_by_mut
mod chunks; // par_chunks, par_chunks_mut
mod chunks_exact; // par_chunks_exact, par_chunks_exact_mut, par_rchunks_exact, par_rchunks_exact_mut
mod piece; // what the unindexed sources (split, chunk_by) share
mod rchunks; // par_rchunks, par_rchunks_mut
mod scan; // par_inclusive_scan_mut
mod sort; // parallel quicksort and merge sort
mod split; // par_split, par_split_inclusive, par_split_mut, par_split_inclusive_mut
mod windows; // par_windows

use std::cmp::Ordering;

pub use crate::iter::source::slice::{Iter, IterMut};
pub use chunk_by::{ChunkBy, ChunkByMut};
pub use chunks::{Chunks, ChunksMut};
pub use chunks_exact::{ChunksExact, ChunksExactMut, RChunksExact, RChunksExactMut};
pub use rchunks::{RChunks, RChunksMut};
pub use split::{Split, SplitInclusive, SplitInclusiveMut, SplitMut};
pub use windows::{ArrayWindows, Windows};

/// Parallel methods on shared slices.
///
/// ```
/// use weft::prelude::*;
///
/// let v = [1, 2, 3, 4];
/// assert_eq!(v.par_chunks(2).count(), 2);
/// ```
pub trait ParallelSlice<T: Sync> {
    /// The slice the methods work on.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!(vec![1, 2].as_parallel_slice(), &[1, 2]);
    /// ```
    fn as_parallel_slice(&self) -> &[T];

    /// Sub-slices separated by items matching `separator` (which are not included).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let words: Vec<&[u8]> = b"ab cd".par_split(|&b| b == b' ').collect();
    /// assert_eq!(words, [&b"ab"[..], &b"cd"[..]]);
    /// ```
    fn par_split<P>(&self, separator: P) -> Split<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Split::new(self.as_parallel_slice(), separator)
    }

    /// Sub-slices that each end with an item matching `separator` (the last may not).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let lines: Vec<&[u8]> = b"a\nb".par_split_inclusive(|&b| b == b'\n').collect();
    /// assert_eq!(lines, [&b"a\n"[..], &b"b"[..]]);
    /// ```
    fn par_split_inclusive<P>(&self, separator: P) -> SplitInclusive<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitInclusive::new(self.as_parallel_slice(), separator)
    }

    /// Runs of neighbours for which `pred(a, b)` holds (like `slice::chunk_by`).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let runs: Vec<&[i32]> = [1, 2, 2, 1, 3].par_chunk_by(|a, b| a <= b).collect();
    /// assert_eq!(runs, [&[1, 2, 2][..], &[1, 3][..]]);
    /// ```
    fn par_chunk_by<F>(&self, pred: F) -> ChunkBy<'_, T, F>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        ChunkBy::new(self.as_parallel_slice(), pred)
    }

    /// Overlapping windows of `window_size` items. Panics if `window_size` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let sums: Vec<i32> = [1, 2, 3].par_windows(2).map(|w| w[0] + w[1]).collect();
    /// assert_eq!(sums, [3, 5]);
    /// ```
    fn par_windows(&self, window_size: usize) -> Windows<'_, T> {
        Windows::new(self.as_parallel_slice(), window_size)
    }

    /// Overlapping windows of a constant length `N`, as array references. Panics if `N`
    /// is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let sums: Vec<i32> = [1, 2, 3].par_array_windows().map(|[a, b]| a + b).collect();
    /// assert_eq!(sums, [3, 5]);
    /// ```
    fn par_array_windows<const N: usize>(&self) -> ArrayWindows<'_, T, N> {
        ArrayWindows::new(self.as_parallel_slice())
    }

    /// Chunks of `chunk_size` items from the start; the last may be shorter. Panics if
    /// `chunk_size` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let lens: Vec<usize> = [0; 5].par_chunks(2).map(|c| c.len()).collect();
    /// assert_eq!(lens, [2, 2, 1]);
    /// ```
    fn par_chunks(&self, chunk_size: usize) -> Chunks<'_, T> {
        Chunks::new(self.as_parallel_slice(), chunk_size)
    }

    /// Chunks of exactly `chunk_size` items from the start; the remainder is left out.
    /// Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([0; 5].par_chunks_exact(2).count(), 2);
    /// ```
    fn par_chunks_exact(&self, chunk_size: usize) -> ChunksExact<'_, T> {
        ChunksExact::new(self.as_parallel_slice(), chunk_size)
    }

    /// Chunks of `chunk_size` items from the end; the last may be shorter. Panics if
    /// `chunk_size` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let firsts: Vec<i32> = [1, 2, 3].par_rchunks(2).map(|c| c[0]).collect();
    /// assert_eq!(firsts, [2, 1]);
    /// ```
    fn par_rchunks(&self, chunk_size: usize) -> RChunks<'_, T> {
        RChunks::new(self.as_parallel_slice(), chunk_size)
    }

    /// Chunks of exactly `chunk_size` items from the end; the remainder (at the front) is
    /// left out. Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([0; 5].par_rchunks_exact(2).count(), 2);
    /// ```
    fn par_rchunks_exact(&self, chunk_size: usize) -> RChunksExact<'_, T> {
        RChunksExact::new(self.as_parallel_slice(), chunk_size)
    }
}

impl<T: Sync> ParallelSlice<T> for [T] {
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}

/// Parallel methods on mutable slices, including the parallel sorts.
///
/// ```
/// use weft::prelude::*;
///
/// let mut v = [3, 1, 2];
/// v.par_sort_unstable();
/// assert_eq!(v, [1, 2, 3]);
/// ```
pub trait ParallelSliceMut<T: Send> {
    /// The slice the methods work on.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = vec![1, 2];
    /// v.as_parallel_slice_mut()[0] = 7;
    /// assert_eq!(v, [7, 2]);
    /// ```
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    /// Mutable sub-slices separated by items matching `separator`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [2, 1, 0, 4, 3];
    /// v.par_split_mut(|&x| x == 0).for_each(|s| s.reverse());
    /// assert_eq!(v, [1, 2, 0, 3, 4]);
    /// ```
    fn par_split_mut<P>(&mut self, separator: P) -> SplitMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// Mutable sub-slices that each end with an item matching `separator` (the last may
    /// not).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [2, 1, 0, 4, 3];
    /// v.par_split_inclusive_mut(|&x| x == 0).for_each(|s| s.sort());
    /// assert_eq!(v, [0, 1, 2, 3, 4]);
    /// ```
    fn par_split_inclusive_mut<P>(&mut self, separator: P) -> SplitInclusiveMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitInclusiveMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// Mutable runs of neighbours for which `pred(a, b)` holds (like
    /// `slice::chunk_by_mut`).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [3, 1, 2, 2, 0];
    /// v.par_chunk_by_mut(|a, b| a != b).for_each(|run| run.sort());
    /// assert_eq!(v, [1, 2, 3, 0, 2]);
    /// ```
    fn par_chunk_by_mut<F>(&mut self, pred: F) -> ChunkByMut<'_, T, F>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        ChunkByMut::new(self.as_parallel_slice_mut(), pred)
    }

    /// Mutable chunks of `chunk_size` items from the start. Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_chunks_mut(2).for_each(|c| c.reverse());
    /// assert_eq!(v, [2, 1, 4, 3, 5]);
    /// ```
    fn par_chunks_mut(&mut self, chunk_size: usize) -> ChunksMut<'_, T> {
        ChunksMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Mutable chunks of `chunk_size` items from the end. Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_rchunks_mut(2).for_each(|c| c.reverse());
    /// assert_eq!(v, [1, 3, 2, 5, 4]);
    /// ```
    fn par_rchunks_mut(&mut self, chunk_size: usize) -> RChunksMut<'_, T> {
        RChunksMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Mutable chunks of exactly `chunk_size` items from the start. Panics if `chunk_size`
    /// is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [1, 2, 3];
    /// v.par_chunks_exact_mut(2).for_each(|c| c[0] = 0);
    /// assert_eq!(v, [0, 2, 3]);
    /// ```
    fn par_chunks_exact_mut(&mut self, chunk_size: usize) -> ChunksExactMut<'_, T> {
        ChunksExactMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Mutable chunks of exactly `chunk_size` items from the end. Panics if `chunk_size` is
    /// 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [1, 2, 3];
    /// v.par_rchunks_exact_mut(2).for_each(|c| c[0] = 0);
    /// assert_eq!(v, [1, 0, 3]);
    /// ```
    fn par_rchunks_exact_mut(&mut self, chunk_size: usize) -> RChunksExactMut<'_, T> {
        RChunksExactMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Replaces every item by the running result of `op` up to it, in place: item `i`
    /// becomes `op(...op(op(x0, x1), x2)..., xi)`, grouped another way (`op` must be
    /// associative; it need not be commutative, and no identity is needed: the first item
    /// stays as it is). A weft extension (Rayon has no scan).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v: Vec<u64> = (1..=10_000).collect();
    /// v.par_inclusive_scan_mut(|a, b| a + b);
    /// assert_eq!(v[..4], [1, 3, 6, 10]);
    /// assert_eq!(v[9_999], 50_005_000);
    ///
    /// let mut words = vec!["a".to_string(), "b".into(), "c".into()];
    /// words.par_inclusive_scan_mut(|a, b| a + &b);
    /// assert_eq!(words, ["a", "ab", "abc"]);
    /// ```
    ///
    /// The items are cut into the blocks of [`inclusive_scan`]. On one thread the slice is
    /// scanned in one pass (computing each block's total alongside); on more, in two: the
    /// blocks' totals (reading the slice), then every block from the combined totals before
    /// it (reading and writing). Either way `op` runs about twice per item (for its result
    /// and for its block's total, but in the last block). Each result is defined by one
    /// order of `op` calls, so the slice ends the same on every pool, floats included.
    ///
    /// # Panics
    /// A panic in `op` propagates to the caller. The slice then holds some items scanned and
    /// some not; every item is a valid value, none is dropped twice.
    ///
    /// [`inclusive_scan`]: crate::iter::IndexedParallelIterator::inclusive_scan
    fn par_inclusive_scan_mut<OP>(&mut self, op: OP)
    where
        T: Clone + Sync,
        OP: Fn(T, T) -> T + Sync,
    {
        scan::inclusive_scan_mut(self.as_parallel_slice_mut(), &op)
    }

    /// Sorts the slice in parallel, stable.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [5, -1, 3];
    /// v.par_sort();
    /// assert_eq!(v, [-1, 3, 5]);
    /// ```
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        sort::par_sort_by(self.as_parallel_slice_mut(), T::cmp)
    }

    /// Sorts the slice in parallel with a comparator, stable.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [1, 3, 2];
    /// v.par_sort_by(|a, b| b.cmp(a));
    /// assert_eq!(v, [3, 2, 1]);
    /// ```
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        sort::par_sort_by(self.as_parallel_slice_mut(), compare)
    }

    /// Sorts the slice in parallel by a key, stable.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [-3i32, 1, -2];
    /// v.par_sort_by_key(|x| x.abs());
    /// assert_eq!(v, [1, -2, -3]);
    /// ```
    fn par_sort_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        sort::par_sort_by(self.as_parallel_slice_mut(), |a, b| f(a).cmp(&f(b)))
    }

    /// Sorts the slice in parallel by a key computed once per item, stable.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = ["ccc", "a", "bb"];
    /// v.par_sort_by_cached_key(|s| s.len());
    /// assert_eq!(v, ["a", "bb", "ccc"]);
    /// ```
    fn par_sort_by_cached_key<K, F>(&mut self, f: F)
    where
        K: Ord + Send,
        F: Fn(&T) -> K + Sync,
    {
        sort::par_sort_by_cached_key(self.as_parallel_slice_mut(), f)
    }

    /// Sorts the slice in parallel, unstable.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [4, 4, 1];
    /// v.par_sort_unstable();
    /// assert_eq!(v, [1, 4, 4]);
    /// ```
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        sort::par_sort_unstable_by(self.as_parallel_slice_mut(), T::cmp)
    }

    /// Sorts the slice in parallel with a comparator, unstable.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [1, 3, 2];
    /// v.par_sort_unstable_by(|a, b| b.cmp(a));
    /// assert_eq!(v, [3, 2, 1]);
    /// ```
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        sort::par_sort_unstable_by(self.as_parallel_slice_mut(), compare)
    }

    /// Sorts the slice in parallel by a key, unstable.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [(2, 'a'), (1, 'b')];
    /// v.par_sort_unstable_by_key(|p| p.0);
    /// assert_eq!(v, [(1, 'b'), (2, 'a')]);
    /// ```
    fn par_sort_unstable_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        sort::par_sort_unstable_by(self.as_parallel_slice_mut(), |a, b| f(a).cmp(&f(b)))
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}
