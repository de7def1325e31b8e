//! `par_sort_unstable*`: parallel quicksort.
//!
//! Each level picks a pivot ([`choose_pivot`]), partitions around it and sorts the two
//! sides on the two arms of a `join`. Pieces of at most [`leaf_len`] elements are handed to
//! std's `sort_unstable_by`, which is faster than any sequential code here could be; on a
//! one-thread pool the whole slice goes to it directly.
//!
//! **The first partitions run in parallel.** A single pivot would have to be shared by the
//! threads that compare against it, which needs `T: Sync`; `par_sort_unstable` only asks
//! for `T: Send`. So a large slice is cut into one block per thread, and each block gets
//! its *own* pivot, moved into it: the pivots are adjacent order statistics of a sorted
//! sample, so they differ little. The blocks are partitioned in parallel
//! ([`QuickSort::split_blocks`]), then the low part of each right-hand block is swapped
//! (in parallel too) past the high part of its left neighbour. Everything left of the split
//! is below the largest pivot and everything right of it at least the smallest, so only
//! values between the pivots (about `n / SAMPLES_PER_BLOCK` of them) can be on the wrong
//! side. Once both sides are sorted, those sit in a short run around the split, and
//! [`QuickSort::mend_seam`] sorts that run. The mend is correct for any split; good pivots
//! only keep it short.
//!
//! Two guards keep the worst case at O(n log n):
//! - *equal keys*: a right-hand side whose pivot equals the pivot of the level above (its
//!   *ancestor*) holds many copies of it; those are split off in one pass and never
//!   recursed into, so all-equal and few-unique inputs cost O(n) per distinct value;
//! - *bad pivots*: after `log2(n)` partitions that leave less than an eighth on one side,
//!   the piece is sorted by std's `sort_unstable_by`, whose worst case is O(n log n).
//!
//! Swaps and the guarded cyclic partition move elements, so a panicking comparator leaves a permutation; the panic
//! unwinds through `join` to the caller.

use std::cmp::Ordering;

use super::partition::{choose_pivot, partition};
use super::std_sorts;
use crate::pool;

/// Below this length (or on one thread) std's `sort_unstable_by` sorts the whole slice.
const PAR_MIN_LEN: usize = if cfg!(miri) { 64 } else { 1 << 13 };
/// Leaves get at least this many elements, so a `join` is negligible next to a leaf sort.
const MIN_LEAF_LEN: usize = if cfg!(miri) { 16 } else { 1 << 11 };
/// A slice is partitioned in parallel blocks only if each block gets at least this many
/// elements: below that, sampling and the block swap cost more than the parallel pass saves.
const MIN_BLOCK_LEN: usize = if cfg!(miri) { 64 } else { 1 << 18 };
/// At most this many blocks in one parallel partition, so the pivots stay close together.
const MAX_BLOCKS: usize = 16;
/// Sample elements per block for choosing the block pivots: with `k` blocks, the pivots
/// span `k - 1` of the `k * SAMPLES_PER_BLOCK + 1` gaps of the sorted sample, so about
/// `n / SAMPLES_PER_BLOCK` elements lie between the smallest and the largest pivot.
const SAMPLES_PER_BLOCK: usize = 512;
/// Swaps of more than this many elements are split across a `join`.
const MIN_PAR_SWAP_LEN: usize = 1 << 16;

/// Unstable sort of `v` by `compare`, in parallel; see the module docs.
pub(crate) fn par_sort_unstable_by<T, F>(v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let threads = pool::current_num_threads();
    if threads <= 1 || v.len() < PAR_MIN_LEN || std::mem::size_of::<T>() == 0 {
        std_sorts::sort_unstable_by(v, compare);
        return;
    }
    let sort = QuickSort {
        compare: &compare,
        is_less: &|a: &T, b: &T| compare(a, b) == Ordering::Less,
        leaf_len: leaf_len(v.len(), threads),
        min_block_len: MIN_BLOCK_LEN,
    };
    let bad_pivots_allowed = usize::BITS - v.len().leading_zeros();
    sort.sort(v, None, bad_pivots_allowed, threads.min(MAX_BLOCKS));
}

/// Leaf length for `len` elements on `threads` threads: about 128 leaves per thread. The
/// last leaves decide how long a thread idles at the end, and the levels above a leaf cost
/// what std's own partitions of that leaf would, so many small leaves are nearly free:
/// going from 8 to 128 leaves per thread took 10^7 random `u64` from about 1.6x to 1.7x
/// std's speed on two threads.
fn leaf_len(len: usize, threads: usize) -> usize {
    (len / (threads * 128)).max(MIN_LEAF_LEN)
}

/// One parallel quicksort: the comparator and its "less than" form.
struct QuickSort<'c, F, L> {
    compare: &'c F,
    is_less: &'c L,
    leaf_len: usize,
    /// Smallest block of a parallel partition ([`MIN_BLOCK_LEN`]; smaller in unit tests).
    min_block_len: usize,
}

impl<F, L> QuickSort<'_, F, L> {
    /// Sorts `v`. `ancestor`, if any, is the pivot of an enclosing level that is known to
    /// be `<=` every element of `v` (it is owned by this call, not shared, so `T: Sync` is
    /// not needed). `bad_pivots_allowed` counts down on unbalanced partitions. `blocks` is
    /// how many parallel blocks the partition of `v` may use (1: a sequential partition).
    fn sort<T>(
        &self,
        mut v: &mut [T],
        ancestor: Option<&mut T>,
        mut bad_pivots_allowed: u32,
        blocks: usize,
    ) where
        T: Send,
        F: Fn(&T, &T) -> Ordering + Sync,
        L: Fn(&T, &T) -> bool + Sync,
    {
        let is_less = self.is_less;
        loop {
            if v.len() <= self.leaf_len || bad_pivots_allowed == 0 {
                std_sorts::sort_unstable_by(v, self.compare);
                return;
            }
            let blocks = blocks.min(v.len() / self.min_block_len.max(4 * blocks));
            if blocks >= 2 {
                self.sort_in_blocks(v, ancestor, bad_pivots_allowed, blocks);
                return;
            }
            let pivot_index = choose_pivot(v, is_less);
            v.swap(0, pivot_index);

            if let Some(ancestor) = ancestor.as_deref() {
                let (pivot, rest) = v.split_first_mut().expect("v is longer than a leaf");
                if !is_less(ancestor, pivot) {
                    // pivot == ancestor: split off everything equal to it (it is a lower
                    // bound), then go on with the larger elements only.
                    let equal = partition(rest, |x| !is_less(pivot, x));
                    v = &mut v[equal + 1..];
                    continue;
                }
            }

            let (pivot, rest) = v.split_first_mut().expect("v is longer than a leaf");
            let smaller = partition(rest, |x| is_less(x, pivot));
            v.swap(0, smaller);
            let (left, pivot_and_right) = v.split_at_mut(smaller);
            let (pivot, right) = pivot_and_right
                .split_first_mut()
                .expect("the pivot is in this half");
            if is_unbalanced(left.len(), right.len()) {
                bad_pivots_allowed -= 1;
            }
            pool::join(
                || self.sort(left, ancestor, bad_pivots_allowed, 1),
                || self.sort(right, Some(pivot), bad_pivots_allowed, 1),
            );
            return;
        }
    }

    /// One level of the quicksort with its partition spread over `blocks` parallel blocks
    /// (see the module docs): partition, sort both sides (each side's own partitions use
    /// half the blocks), then mend the seam.
    fn sort_in_blocks<T>(
        &self,
        v: &mut [T],
        ancestor: Option<&mut T>,
        mut bad_pivots_allowed: u32,
        blocks: usize,
    ) where
        T: Send,
        F: Fn(&T, &T) -> Ordering + Sync,
        L: Fn(&T, &T) -> bool + Sync,
    {
        self.place_block_pivots(v, blocks);
        let split = self.split_blocks(v, blocks);
        let (left, right) = v.split_at_mut(split);
        if is_unbalanced(left.len(), right.len()) {
            bad_pivots_allowed -= 1;
        }
        // The ancestor bounds both sides from below; it is handed to one of them. (Each
        // side is shorter than `v` unless the split is empty: then `blocks` halves, so this
        // recursion ends.)
        let half = blocks / 2;
        pool::join(
            || self.sort(left, ancestor, bad_pivots_allowed, half),
            || self.sort(right, None, bad_pivots_allowed, blocks - half),
        );
        self.mend_seam(v, split, bad_pivots_allowed);
    }

    /// Chooses one pivot per block and moves it to the start of its block (as
    /// [`split_blocks`](Self::split_blocks) cuts `v`): the `blocks` middle elements of a
    /// sorted sample of `SAMPLES_PER_BLOCK` elements per block, evenly spread over `v`.
    fn place_block_pivots<T>(&self, v: &mut [T], blocks: usize)
    where
        F: Fn(&T, &T) -> Ordering,
    {
        // `sort` guarantees `v.len() / blocks >= 4 * blocks`, so the sample has room for the
        // pivots in its middle (`first >= 1`) and ends before the second block starts.
        let samples = (SAMPLES_PER_BLOCK * blocks).min(v.len() / blocks);
        let stride = v.len() / samples;
        for i in 0..samples {
            v.swap(i, i * stride + stride / 2);
        }
        std_sorts::sort_unstable_by(&mut v[..samples], self.compare);
        let first = samples / 2 - blocks / 2;
        let mut starts = Vec::with_capacity(blocks);
        block_starts(0, v.len(), blocks, &mut starts);
        for (k, start) in starts.into_iter().enumerate() {
            v.swap(start, first + k);
        }
    }

    /// Partitions each of `blocks` blocks of `v` around the pivot at its start, in parallel,
    /// and gathers the low parts at the front; returns how many elements are low. Each low
    /// element is below its own block's pivot, each high one at least its block's pivot.
    fn split_blocks<T>(&self, v: &mut [T], blocks: usize) -> usize
    where
        T: Send,
        F: Sync,
        L: Fn(&T, &T) -> bool + Sync,
    {
        let is_less = self.is_less;
        if blocks == 1 {
            let (pivot, rest) = v.split_first_mut().expect("blocks are not empty");
            let smaller = partition(rest, |x| is_less(x, pivot));
            v.swap(0, smaller);
            return smaller;
        }
        let mid = split_point(v.len(), blocks);
        let (left, right) = v.split_at_mut(mid);
        let half = blocks / 2;
        let (low_left, low_right) = pool::join(
            || self.split_blocks(left, half),
            || self.split_blocks(right, blocks - half),
        );
        // [low_left | high_left | low_right | high_right]: exchange the shorter of the two
        // middle parts with the far end of the other one.
        let exchanged = (mid - low_left).min(low_right);
        let (front, back) = v[low_left..mid + low_right].split_at_mut(exchanged);
        let back_len = back.len();
        swap_in_parallel(front, &mut back[back_len - exchanged..]);
        low_left + low_right
    }

    /// `v[..split]` and `v[split..]` are sorted: sorts the run around `split` holding the
    /// elements of the left side above the right side's first one and those of the right
    /// side below the left side's last one. Everything before that run is at most the
    /// right side's minimum, everything after it at least the left side's maximum, so `v`
    /// is then sorted.
    fn mend_seam<T>(&self, v: &mut [T], split: usize, bad_pivots_allowed: u32)
    where
        T: Send,
        F: Fn(&T, &T) -> Ordering + Sync,
        L: Fn(&T, &T) -> bool + Sync,
    {
        let is_less = self.is_less;
        if split == 0 || split == v.len() {
            return;
        }
        let (left, right) = v.split_at(split);
        let (right_min, left_max) = (&right[0], &left[split - 1]);
        if !is_less(right_min, left_max) {
            return;
        }
        let start = left.partition_point(|x| !is_less(right_min, x));
        let end = split + right.partition_point(|y| is_less(y, left_max));
        self.sort(&mut v[start..end], None, bad_pivots_allowed, 1);
    }
}

/// True if a partition left less than an eighth on one side.
fn is_unbalanced(left: usize, right: usize) -> bool {
    left.min(right) < (left + right) / 8
}

/// Where [`QuickSort::split_blocks`] cuts `len` elements in `blocks >= 2` blocks: after
/// `blocks / 2` blocks of `len / blocks` elements, so every block has at least that many.
fn split_point(len: usize, blocks: usize) -> usize {
    len / blocks * (blocks / 2)
}

/// Appends to `starts` the first index of each block, as [`QuickSort::split_blocks`] cuts
/// `offset..offset + len` into `blocks` blocks.
fn block_starts(offset: usize, len: usize, blocks: usize, starts: &mut Vec<usize>) {
    if blocks == 1 {
        starts.push(offset);
        return;
    }
    let mid = split_point(len, blocks);
    block_starts(offset, mid, blocks / 2, starts);
    block_starts(offset + mid, len - mid, blocks - blocks / 2, starts);
}

/// Swaps the contents of `a` and `b` (equal lengths), long ones on both arms of a `join`.
fn swap_in_parallel<T: Send>(a: &mut [T], b: &mut [T]) {
    if a.len() <= MIN_PAR_SWAP_LEN {
        a.swap_with_slice(b);
        return;
    }
    let half = a.len() / 2;
    let (a_low, a_high) = a.split_at_mut(half);
    let (b_low, b_high) = b.split_at_mut(half);
    pool::join(
        || swap_in_parallel(a_low, b_low),
        || swap_in_parallel(a_high, b_high),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use std::panic::{catch_unwind, AssertUnwindSafe};

    /// Sorts `v` with tiny blocks and leaves, so that short inputs take the block partition.
    fn sort_in_small_blocks(
        v: &mut [u32],
        blocks: usize,
        compare: impl Fn(&u32, &u32) -> Ordering + Sync,
    ) {
        let sort = QuickSort {
            compare: &compare,
            is_less: &|a: &u32, b: &u32| compare(a, b) == Ordering::Less,
            leaf_len: 4,
            min_block_len: 1,
        };
        sort.sort(v, None, 64, blocks);
    }

    fn pools() -> Vec<crate::ThreadPool> {
        [1, 2, 3]
            .into_iter()
            .map(|n| {
                crate::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .unwrap()
            })
            .collect()
    }

    #[test]
    fn block_partitions_sort_every_pattern_like_std() {
        let mut rng = SmallRng::seed_from_u64(55);
        for pool in pools() {
            for len in (0..300).chain([1000, 4099]) {
                for blocks in 2..=5 {
                    let modulus = [u32::MAX, 4, 1][len % 3];
                    let patterns: [Vec<u32>; 3] = [
                        (0..len).map(|_| rng.random_range(0..=modulus)).collect(),
                        (0..len as u32).collect(),
                        (0..len as u32).rev().map(|x| x / 3).collect(),
                    ];
                    for input in patterns {
                        let mut expected = input.clone();
                        expected.sort_unstable();
                        let mut v = input;
                        pool.install(|| sort_in_small_blocks(&mut v, blocks, u32::cmp));
                        assert_eq!(v, expected, "len {len}, blocks {blocks}");
                    }
                }
            }
        }
    }

    #[test]
    fn split_blocks_puts_values_below_the_largest_pivot_left_and_the_rest_right() {
        let mut rng = SmallRng::seed_from_u64(56);
        let compare = u32::cmp;
        let sort = QuickSort {
            compare: &compare,
            is_less: &|a: &u32, b: &u32| a < b,
            leaf_len: 4,
            min_block_len: 1,
        };
        for pool in pools() {
            for len in [40usize, 41, 97, 500, 5000] {
                for blocks in 2..=(len / 20).min(6) {
                    let input: Vec<u32> = (0..len).map(|_| rng.random_range(0..1000)).collect();
                    let mut v = input.clone();
                    sort.place_block_pivots(&mut v, blocks);
                    let mut starts = Vec::new();
                    block_starts(0, len, blocks, &mut starts);
                    let pivots: Vec<u32> = starts.iter().map(|&i| v[i]).collect();
                    let (low, high) = (pivots.iter().min().unwrap(), pivots.iter().max().unwrap());
                    let split = pool.install(|| sort.split_blocks(&mut v, blocks));
                    let what = format!("len {len}, blocks {blocks}, pivots {pivots:?}");
                    assert!(v[..split].iter().all(|x| x < high), "{what}");
                    assert!(v[split..].iter().all(|x| x >= low), "{what}");
                    let below_low = input.iter().filter(|x| *x < low).count();
                    let below_high = input.iter().filter(|x| *x < high).count();
                    assert!((below_low..=below_high).contains(&split), "{what}");
                    let (mut sorted, mut expected) = (v, input);
                    sorted.sort_unstable();
                    expected.sort_unstable();
                    assert_eq!(sorted, expected, "{what}: not a permutation");
                }
            }
        }
    }

    #[test]
    fn block_starts_match_the_split_points() {
        for len in [16usize, 17, 100, 1001] {
            for blocks in 1..=7 {
                let mut starts = Vec::new();
                block_starts(0, len, blocks, &mut starts);
                assert_eq!(starts.len(), blocks);
                assert_eq!(starts[0], 0);
                let mut ends = starts[1..].to_vec();
                ends.push(len);
                for (start, end) in starts.iter().zip(&ends) {
                    assert!(
                        end - start >= len / blocks,
                        "len {len}, blocks {blocks}: {starts:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_panic_in_a_block_partition_leaves_a_permutation() {
        use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
        let mut panics = 0;
        for pool in pools() {
            for panic_at in (0..3000).step_by(97) {
                let input: Vec<u32> = (0..500u32)
                    .map(|i| i.wrapping_mul(2_654_435_761) >> 8)
                    .collect();
                let mut v = input.clone();
                let calls = AtomicUsize::new(0);
                let result = catch_unwind(AssertUnwindSafe(|| {
                    pool.install(|| {
                        sort_in_small_blocks(&mut v, 3, |a, b| {
                            assert!(calls.fetch_add(1, Relaxed) != panic_at, "deliberate");
                            a.cmp(b)
                        })
                    })
                }));
                let mut seen = v.clone();
                seen.sort_unstable();
                let mut expected = input;
                expected.sort_unstable();
                assert_eq!(
                    seen, expected,
                    "panic at call {panic_at}: not a permutation"
                );
                match result {
                    Ok(()) => assert_eq!(v, expected, "no panic, so sorted"),
                    Err(_) => panics += 1,
                }
            }
        }
        // 500 elements take a few thousand comparisons: most planned panics fire.
        assert!(panics >= 3 * 20, "only {panics} planned panics fired");
    }
}
