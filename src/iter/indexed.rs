//! The `IndexedParallelIterator` trait: parallel iterators with a known length whose items
//! can be addressed by index (and so zipped, enumerated, split at a position).

use std::cmp::Ordering;

use crate::iter::adapter::*;
use crate::iter::consumer::{self, Which};
use crate::iter::deterministic::Deterministic;
use crate::iter::{IntoParallelIterator, ParallelIterator};
use crate::plumbing::{Consumer, ProducerCallback};

/// A [`ParallelIterator`] that knows its length and can hand out a
/// [`Producer`](crate::iter::plumbing::Producer) splittable at any index.
///
/// ```
/// use weft::prelude::*;
///
/// let v = vec![10, 20, 30];
/// assert_eq!(v.par_iter().len(), 3);
/// ```
#[allow(clippy::len_without_is_empty)] // as in Rayon: emptiness is `len() == 0`
pub trait IndexedParallelIterator: ParallelIterator {
    /// Drives every item into an indexed `consumer` (usually via
    /// [`bridge`](crate::iter::plumbing::bridge)).
    fn drive<C>(self, consumer: C) -> C::Result
    where
        C: Consumer<Self::Item>;

    /// The exact number of items.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((5..25).into_par_iter().len(), 20);
    /// ```
    fn len(&self) -> usize;

    /// Calls `callback` with this iterator's producer.
    fn with_producer<CB>(self, callback: CB) -> CB::Output
    where
        CB: ProducerCallback<Self::Item>;

    /// Collects into `target`, replacing its contents and reusing its allocation. The items
    /// are written straight into the vector's buffer, in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = vec![9; 2];
    /// (0..4).into_par_iter().map(|x| x * x).collect_into_vec(&mut v);
    /// assert_eq!(v, [0, 1, 4, 9]);
    /// ```
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        consumer::collect_into_vec(self, target)
    }

    /// Unzips pairs into two vectors, replacing their contents, in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let (mut a, mut b) = (vec![], vec![]);
    /// (0..3).into_par_iter().map(|x| (x, x * x)).unzip_into_vecs(&mut a, &mut b);
    /// assert_eq!((a, b), (vec![0, 1, 2], vec![0, 1, 4]));
    /// ```
    fn unzip_into_vecs<A, B>(self, left: &mut Vec<A>, right: &mut Vec<B>)
    where
        Self: IndexedParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
    {
        // Cleared first (as in Rayon); the vectors keep their capacity.
        left.clear();
        right.clear();
        crate::iter::consumer::unzip::unzip_into(self, left, right);
    }

    /// Pairs items with those of `zip_op`; as long as the shorter side.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<(i32, i32)> = (0..3).into_par_iter().zip(10..20).collect();
    /// assert_eq!(v, [(0, 10), (1, 11), (2, 12)]);
    /// ```
    fn zip<Z>(self, zip_op: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        Zip::new(self, zip_op.into_par_iter())
    }

    /// Like `zip`, but panics if the lengths differ.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<(i32, char)> = (0..2).into_par_iter().zip_eq(vec!['a', 'b']).collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'b')]);
    /// ```
    ///
    /// ```should_panic
    /// use weft::prelude::*;
    ///
    /// let _ = (0..2).into_par_iter().zip_eq(0..3);
    /// ```
    fn zip_eq<Z>(self, zip_op: Z) -> ZipEq<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        ZipEq::new(self, zip_op.into_par_iter())
    }

    /// Alternates items of `self` and `other`, then the rest of the longer one.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..3).into_par_iter().interleave(10..11).collect();
    /// assert_eq!(v, [0, 10, 1, 2]);
    /// ```
    fn interleave<I>(self, other: I) -> Interleave<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator<Item = Self::Item>,
    {
        Interleave::new(self, other.into_par_iter())
    }

    /// Groups items into `Vec`s of `chunk_size` (the last may be shorter). Panics if
    /// `chunk_size` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<Vec<i32>> = (0..5).into_par_iter().chunks(3).collect();
    /// assert_eq!(v, [vec![0, 1, 2], vec![3, 4]]);
    /// ```
    fn chunks(self, chunk_size: usize) -> Chunks<Self> {
        Chunks::new(self, chunk_size)
    }

    /// Lexicographic comparison with another indexed iterator.
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..3).into_par_iter().cmp(0..4), Ordering::Less);
    /// ```
    fn cmp<I>(self, other: I) -> Ordering
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
        Self::Item: Ord,
    {
        consumer::compare::cmp(self, other)
    }

    /// Lexicographic partial comparison with another indexed iterator.
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use weft::prelude::*;
    ///
    /// assert_eq!([1.0, 2.0].par_iter().partial_cmp(&[1.0, 3.0]), Some(Ordering::Less));
    /// ```
    fn partial_cmp<I>(self, other: I) -> Option<Ordering>
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        consumer::compare::partial_cmp(self, other)
    }

    /// True if both iterators have equal items and lengths.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert!((0..3).into_par_iter().eq(vec![0, 1, 2]));
    /// ```
    fn eq<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        consumer::compare::eq(self, other)
    }

    /// `!self.eq(other)`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert!((0..3).into_par_iter().ne(0..4));
    /// ```
    fn ne<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        !self.eq(other)
    }

    /// Lexicographically less than `other`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert!((0..3).into_par_iter().lt(1..2));
    /// ```
    fn lt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Less)
    }

    /// Lexicographically less than or equal to `other`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert!((0..3).into_par_iter().le(0..3));
    /// ```
    fn le<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Less | Ordering::Equal)
        )
    }

    /// Lexicographically greater than `other`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert!((1..3).into_par_iter().gt(0..3));
    /// ```
    fn gt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Greater)
    }

    /// Lexicographically greater than or equal to `other`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert!((0..3).into_par_iter().ge(0..2));
    /// ```
    fn ge<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Greater | Ordering::Equal)
        )
    }

    /// Pairs each item with its index.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<(usize, char)> = vec!['x', 'y'].into_par_iter().enumerate().collect();
    /// assert_eq!(v, [(0, 'x'), (1, 'y')]);
    /// ```
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// Every `step`-th item, starting with the first. Panics if `step` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..7).into_par_iter().step_by(3).collect();
    /// assert_eq!(v, [0, 3, 6]);
    /// ```
    fn step_by(self, step: usize) -> StepBy<Self> {
        StepBy::new(self, step)
    }

    /// Skips the first `n` items.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..10).into_par_iter().skip(8).collect::<Vec<_>>(), [8, 9]);
    /// ```
    fn skip(self, n: usize) -> Skip<Self> {
        Skip::new(self, n)
    }

    /// The first `n` items.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..10).into_par_iter().take(2).collect::<Vec<_>>(), [0, 1]);
    /// ```
    fn take(self, n: usize) -> Take<Self> {
        Take::new(self, n)
    }

    /// The index of some item matching `predicate`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([5, 6, 7].par_iter().position_any(|&x| x == 6), Some(1));
    /// ```
    fn position_any<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        consumer::position(self, predicate, Which::Any)
    }

    /// Deprecated (as in Rayon): [`position_any`](Self::position_any) under its old name.
    /// The search is not in order; use `position_any`, `position_first` or `position_last`.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use weft::prelude::*;
    ///
    /// assert_eq!([5, 6, 7].par_iter().position(|&x| x == 7), Some(2));
    /// ```
    #[deprecated(
        note = "parallel `position` does not search in order: use `position_any`, \
                         `position_first` or `position_last`"
    )]
    fn position<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.position_any(predicate)
    }

    /// The index of the sequentially first item matching `predicate`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([1, 2, 1, 2].par_iter().position_first(|&x| x == 2), Some(1));
    /// ```
    fn position_first<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        consumer::position(self, predicate, Which::First)
    }

    /// The index of the sequentially last item matching `predicate`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!([1, 2, 1, 2].par_iter().position_last(|&x| x == 1), Some(2));
    /// ```
    fn position_last<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        consumer::position(self, predicate, Which::Last)
    }

    /// The indices of all items matching `predicate`, in order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<usize> = (0..10).into_par_iter().positions(|x| x % 4 == 0).collect();
    /// assert_eq!(v, [0, 4, 8]);
    /// ```
    fn positions<P>(self, predicate: P) -> Positions<Self, P>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        Positions::new(self, predicate)
    }

    /// The items in reverse order.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..3).into_par_iter().rev().collect::<Vec<_>>(), [2, 1, 0]);
    /// ```
    fn rev(self) -> Rev<Self> {
        Rev::new(self)
    }

    /// Never split pieces shorter than `min` items (a hint to the driver).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..100).into_par_iter().with_min_len(50).sum::<i32>(), 4950);
    /// ```
    fn with_min_len(self, min: usize) -> MinLen<Self> {
        MinMaxLen::new(self, min, usize::MAX)
    }

    /// Split pieces until they hold at most `max` items (a hint to the driver).
    ///
    /// As in Rayon, no folder then sees more than `max` items, in any pool: `fold` makes at
    /// least one accumulator per `max` items and `map_init` calls `init` at least that often
    /// (without it, weft makes one per owner: the first worker plus one per steal).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..100).into_par_iter().with_max_len(10).sum::<i32>(), 4950);
    /// let counts: Vec<usize> = (0..4)
    ///     .into_par_iter()
    ///     .with_max_len(1)
    ///     .fold(|| 0, |count, _| count + 1)
    ///     .collect();
    /// assert_eq!(counts, [1, 1, 1, 1]);
    /// ```
    fn with_max_len(self, max: usize) -> MaxLen<Self> {
        MinMaxLen::new(self, 1, max)
    }

    /// Folds each chunk of `chunk_size` items into one value, starting from `identity()`.
    /// Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..6).into_par_iter().fold_chunks(4, || 0, |a, b| a + b).collect();
    /// assert_eq!(v, [6, 9]);
    /// ```
    fn fold_chunks<T, ID, F>(
        self,
        chunk_size: usize,
        identity: ID,
        fold_op: F,
    ) -> FoldChunks<Self, ID, F>
    where
        ID: Fn() -> T + Send + Sync,
        F: Fn(T, Self::Item) -> T + Send + Sync,
        T: Send,
    {
        FoldChunks::new(self, chunk_size, identity, fold_op)
    }

    /// Folds each chunk of `chunk_size` items into one value, starting from a clone of
    /// `init`. Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..6).into_par_iter().fold_chunks_with(4, 100, |a, b| a + b).collect();
    /// assert_eq!(v, [106, 109]);
    /// ```
    fn fold_chunks_with<T, F>(
        self,
        chunk_size: usize,
        init: T,
        fold_op: F,
    ) -> FoldChunksWith<Self, T, F>
    where
        T: Send + Clone,
        F: Fn(T, Self::Item) -> T + Send + Sync,
    {
        FoldChunksWith::new(self, chunk_size, init, fold_op)
    }

    /// Alternates items of `self` and `other` until either runs out.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..5).into_par_iter().interleave_shortest(10..12).collect();
    /// assert_eq!(v, [0, 10, 1, 11, 2]);
    /// ```
    fn interleave_shortest<I>(self, other: I) -> InterleaveShortest<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator<Item = Self::Item>,
    {
        let other = other.into_par_iter();
        let (a_len, b_len) = (self.len(), other.len());
        let (a_take, b_take) = if a_len <= b_len {
            (a_len, a_len)
        } else {
            (b_len + 1, b_len)
        };
        InterleaveShortest::new(self.take(a_take).interleave(other.take(b_take)))
    }

    /// Runs as a sequence of blocks (each in parallel) that start small and double, so
    /// that short-circuiting consumers stop early on long inputs.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<i32> = (0..100).into_par_iter().by_exponential_blocks().collect();
    /// assert_eq!(v, (0..100).collect::<Vec<_>>());
    /// ```
    fn by_exponential_blocks(self) -> ExponentialBlocks<Self> {
        ExponentialBlocks::new(self)
    }

    /// Runs as a sequence of blocks of `block_size` items (each in parallel). Panics if
    /// `block_size` is 0.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..100).into_par_iter().by_uniform_blocks(30).sum::<i32>(), 4950);
    /// ```
    fn by_uniform_blocks(self, block_size: usize) -> UniformBlocks<Self> {
        UniformBlocks::new(self, block_size)
    }

    /// Starts a chain whose reductions give bitwise the same result for the same input and
    /// closures, whatever the pool size and however work is stolen. A weft extension (Rayon
    /// has no such method).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// // Values spread over 30 orders of magnitude: the order of the adds shows in the bits.
    /// let v: Vec<f32> = (0..100_000u32)
    ///     .map(|i| (i % 97) as f32 * 1e-15 * 7e5f32.powi((i % 7) as i32))
    ///     .collect();
    /// let w: Vec<f32> = v.iter().rev().copied().collect();
    /// let sum = |threads| {
    ///     let pool = weft::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    ///     pool.install(|| {
    ///         v.par_iter().deterministic().chain(&w).map(|a| a * 1.0001).sum::<f32>()
    ///     })
    /// };
    /// let one = sum(1);
    /// for threads in [2, 3, 8] {
    ///     assert_eq!(sum(threads).to_bits(), one.to_bits());
    /// }
    /// ```
    ///
    /// **How.** Weft normally splits work where idle workers steal it, and reduces the pieces
    /// in that shape; for a float sum the shape shows in the last bits. A deterministic chain
    /// is split in a tree that depends on its length alone: the items are cut into *leaves*
    /// of a fixed number of items (the *grain*; the last leaf may be shorter), a node of
    /// several leaves gives the first half of them (rounded up) to its left child, each leaf
    /// is folded in index order into a folder of its own, and the results are reduced in that
    /// tree, left before right. Which worker folds which leaf is still decided by stealing,
    /// so the work stays balanced. The default grain is `len / 256` rounded up, at least 1
    /// and at most 4096 items: at least 256 leaves (enough to keep many workers busy when
    /// items are slow) and, for long inputs, leaves long enough that a leaf's own cost (about
    /// one `join`, a split, a folder and a reduce) stays near 1% of folding 4096 cheap items.
    /// [`Deterministic::with_grain`] sets another; `with_min_len` / `with_max_len` in the
    /// chain bound the leaf too. `len` and the leaves are those of the indexed chain where a
    /// reduction or an unindexed adapter meets it (so chunks after `chunks`, all the items of
    /// both sides after `chain`). The results depend on the grain and the length, never on
    /// the pool.
    ///
    /// **What it returns.** A [`Deterministic`], which is not a [`ParallelIterator`]: it
    /// offers exactly the adapters and reductions that keep the guarantee, each adapter
    /// returning another `Deterministic`, and nothing else compiles.
    ///
    /// **Adapters** (as the [`ParallelIterator`] / `IndexedParallelIterator` methods of the
    /// same names):
    /// - While the chain is indexed: `map`, `map_with`, `map_init`, `cloned`, `copied`,
    ///   `inspect`, `update`, `panic_fuse`, `enumerate`, `rev`, `skip`, `take`, `step_by`,
    ///   `chunks`, `fold_chunks`, `fold_chunks_with`, `with_min_len`, `with_max_len`,
    ///   `with_grain`, `intersperse`, `inclusive_scan`, `exclusive_scan` (whose blocks are the
    ///   leaves), and `zip`, `zip_eq`, `chain`, `interleave`, `interleave_shortest` with any
    ///   indexed parallel iterator, deterministic or not: the two sides are one producer,
    ///   split in the one fixed tree.
    /// - Adapters after which the chain is unindexed: `filter`, `filter_map`, `flat_map`,
    ///   `flat_map_iter`, `flatten`, `flatten_iter`, `fold`, `fold_with` (one accumulator per
    ///   leaf), `positions`. The leaves are still cut over the indexed items before them.
    ///   After them: these again, and `map`, `map_with`, `map_init`, `cloned`, `copied`,
    ///   `inspect`, `update`, `panic_fuse`.
    ///
    /// **Reductions**, each giving the same result on every pool:
    /// - `sum` and `product`, of floats too: the same bits. They are not the bits of the
    ///   sequential `Iterator::sum` (the tree adds in another order, which is usually more
    ///   accurate).
    /// - `reduce`, `reduce_with`: `op` gets the same operands in the same order.
    /// - `min`, `max`, `min_by`, `max_by`, `min_by_key`, `max_by_key`: the first of equal
    ///   minima, the last of equal maxima, as in `Iterator` (weft does so on every pool even
    ///   without `deterministic()` when the comparison is a total order; with one that is not,
    ///   such as `partial_cmp` on floats with NaN taken as equal, the fixed tree fixes the
    ///   answer too).
    /// - `count`, `collect`, `collect_into_vec`, `unzip`, `unzip_into_vecs`, `partition`,
    ///   `partition_map`: in index order, as always; `collect_vec_list`: one vector per leaf.
    /// - `find_first`, `find_last`, `find_map_first`, `find_map_last`, `position_first`,
    ///   `position_last`, `any`, `all`: the answer (not which items were looked at before it
    ///   was known).
    /// - `for_each`, `for_each_with`, `for_each_init`: the closure sees the same items in the
    ///   same leaves (one clone of `with`'s value, one call of `init`, per leaf, seeing that
    ///   leaf's items in order), at times and on threads that vary.
    /// - Loops nested inside: an indexed parallel iterator that a closure of the chain runs
    ///   while a leaf is folded on that thread (a `par_iter().sum()` inside `map`, the inner
    ///   iterators of `flat_map`) is driven in a fixed tree too, with the default grain for
    ///   its own length; a `by_exponential_blocks` nested there starts its blocks at 4 items,
    ///   as on a pool of one.
    ///
    /// **Not offered**, because the result could depend on the pool or on timing:
    /// - `find_any`, `find_map_any`, `position_any`, `take_any`, `skip_any`,
    ///   `take_any_while`, `skip_any_while`, `while_some`, and the `try_` reductions and
    ///   folds (`try_fold`, `try_reduce`, `try_for_each`, ...): which item or error stops
    ///   them depends on timing.
    /// - `by_exponential_blocks` (its first block is sized by the pool) and
    ///   `by_uniform_blocks` (each block a tree of its own; `find_first` in the fixed tree
    ///   already skips the leaves after a match).
    /// - `chain`, `interleave`, `zip` and `intersperse` once the chain is unindexed: an
    ///   unindexed `chain` drives its two sides apart, and `intersperse` gathers the items and
    ///   drives them again as a new sequence.
    /// - The comparisons (`cmp`, `eq`, `lt`, ...): their answer does not depend on the pool
    ///   anyway; call them on the plain iterator.
    ///
    /// **Not covered** even so:
    /// - Unindexed sources: `par_bridge` (its items arrive in whatever order the threads
    ///   pull them), `par_split`, `par_chars`, `split`, `walk_tree`, ...: they have no
    ///   `deterministic()`, and one nested inside a leaf still splits as threads come.
    /// - Loops that a closure hands to another thread: the closures of a `join`, `scope` or
    ///   `spawn` inside a leaf may run on a worker that is not folding a leaf, where a loop
    ///   splits as threads come.
    /// - Side effects: closures see the same items in the same leaves, but at times and on
    ///   threads that vary.
    ///
    /// Without `deterministic()`, a float `sum` may differ between runs, pool sizes and
    /// machines in its last bits, though it is always one of the sums of the items in
    /// order, grouped somehow.
    fn deterministic(self) -> Deterministic<Self> {
        Deterministic::new(self)
    }

    /// The running results of `op` from `identity()`: the item at `i` is
    /// `op(...op(op(identity(), x0), x1)..., xi)`, grouped another way (`op` must be
    /// associative and `identity()` neutral, as for [`reduce`](ParallelIterator::reduce);
    /// `op` need not be commutative). An indexed parallel iterator of the same length. A
    /// weft extension (Rayon has no scan).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<u64> = (1..=1000).collect();
    /// let prefix: Vec<u64> = v.par_iter().copied().inclusive_scan(|| 0, |a, b| a + b).collect();
    /// assert_eq!(prefix[..4], [1, 3, 6, 10]);
    /// assert_eq!(prefix[999], 500_500);
    ///
    /// // Not commutative: composing affine maps x -> m x + c (mod 1000), earliest first.
    /// let maps: Vec<(u64, u64)> = (0..500).map(|i| (i % 7 + 1, i % 11)).collect();
    /// let compose = |(m1, c1): (u64, u64), (m2, c2): (u64, u64)| {
    ///     ((m2 * m1) % 1000, (m2 * c1 + c2) % 1000)
    /// };
    /// let scanned: Vec<(u64, u64)> =
    ///     maps.par_iter().copied().inclusive_scan(|| (1, 0), compose).collect();
    /// let mut expected = (1, 0);
    /// for (i, &map) in maps.iter().enumerate() {
    ///     expected = compose(expected, map);
    ///     assert_eq!(scanned[i], expected);
    /// }
    /// ```
    ///
    /// **Work.** The items are cut into blocks, the leaves of the fixed tree of
    /// [`deterministic`](Self::deterministic) for this length (the chain's grain in a
    /// deterministic chain, else the base's if it sets one), and the scan is driven in that tree. Each block's results start from the
    /// combined totals of the blocks before it. `op` runs twice per item, once for the
    /// item's result and once for its block's total (once only in the last block, whose
    /// total nothing needs), plus once per block to combine the totals; a sequential scan
    /// runs it once per item. That holds on any pool (up to a block or two that two workers
    /// reach at the same time) and whatever follows the scan. On one thread the input is
    /// read once. On more threads a worker that reaches a block before the totals below it
    /// are known reads the blocks it is missing once more, for their totals: on two threads
    /// about 1.4 reads per item. Adapters after the scan that cut pieces inside blocks
    /// (`with_max_len` below the block length, `with_min_len`, `rev`, `skip`, `take`) get
    /// those pieces' results from the whole block's, computed once when the first of its
    /// pieces is reached and kept (one block of results) until its last piece takes them,
    /// so the work stays the same; only `rev`, whose first piece needs every total below it,
    /// reads the input twice on one thread.
    ///
    /// **Reading twice** is done through the base's producer when that is cheap and calls no
    /// closure of yours: slices, ranges, and `copied`, `cloned`, `enumerate`, `zip`, `rev`,
    /// `with_min_len` / `with_max_len` over them (in a deterministic chain too). Any other base (a
    /// `Vec` by value, a `map` whose closure would run twice) is first collected into a
    /// buffer of `len` items, and the scan reads clones of those: closures before a scan run
    /// exactly once per item. `Self::Item` must be `Clone` (each result is kept as the next
    /// running value and given out) and `Sync` (block totals are shared).
    ///
    /// **Deterministic**: each block's results, totals and starts are defined by one order of
    /// `op` calls whoever computes them, so a float scan gives the same bits on every pool
    /// (not those of a sequential scan, which groups the additions differently).
    ///
    /// # Panics
    /// A panic in `op` or `identity` propagates to the caller; the items and results made so
    /// far are dropped once.
    fn inclusive_scan<ID, OP>(self, identity: ID, op: OP) -> InclusiveScan<Self, ID, OP>
    where
        Self::Item: Clone + Send + Sync,
        ID: Fn() -> Self::Item + Sync + Send,
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        Scan::new(self, identity, op)
    }

    /// The running results of `op` from `identity()` *before* each item: the item at `i` is
    /// `op(...op(identity(), x0)..., x(i-1))`, and the first is `identity()` (so the last
    /// item's contribution is left out). As [`inclusive_scan`](Self::inclusive_scan) in every
    /// other respect (work, reading twice, determinism, panics). A weft extension.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// // Where each piece starts when the pieces are laid end to end.
    /// let lens: Vec<usize> = vec![3, 0, 2, 5];
    /// let offsets: Vec<usize> =
    ///     lens.par_iter().copied().exclusive_scan(|| 0, |a, b| a + b).collect();
    /// assert_eq!(offsets, [0, 3, 3, 5]);
    /// ```
    fn exclusive_scan<ID, OP>(self, identity: ID, op: OP) -> ExclusiveScan<Self, ID, OP>
    where
        Self::Item: Clone + Send + Sync,
        ID: Fn() -> Self::Item + Sync + Send,
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        Scan::new(self, identity, op)
    }
}
