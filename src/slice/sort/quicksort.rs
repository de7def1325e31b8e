//! `par_sort_unstable*`: parallel quicksort.
//!
//! Each level picks a pivot ([`choose_pivot`]), partitions around it and sorts the two
//! sides on the two arms of a `join`. Pieces of at most [`leaf_len`] elements are handed to
//! std's `sort_unstable_by`, which is faster than any sequential code here could be; on a
//! one-thread pool the whole slice goes to it directly.
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
use crate::pool;

/// Below this length (or on one thread) std's `sort_unstable_by` sorts the whole slice.
const PAR_MIN_LEN: usize = if cfg!(miri) { 64 } else { 1 << 13 };
/// Leaves get at least this many elements, so a `join` is negligible next to a leaf sort.
const MIN_LEAF_LEN: usize = if cfg!(miri) { 16 } else { 1 << 11 };

/// Unstable sort of `v` by `compare`, in parallel; see the module docs.
pub(crate) fn par_sort_unstable_by<T, F>(v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let threads = pool::current_num_threads();
    if threads <= 1 || v.len() < PAR_MIN_LEN || std::mem::size_of::<T>() == 0 {
        v.sort_unstable_by(compare);
        return;
    }
    let sort = QuickSort {
        compare: &compare,
        is_less: &|a: &T, b: &T| compare(a, b) == Ordering::Less,
        leaf_len: leaf_len(v.len(), threads),
    };
    let bad_pivots_allowed = usize::BITS - v.len().leading_zeros();
    sort.sort(v, None, bad_pivots_allowed);
}

/// Leaf length for `len` elements on `threads` threads: about eight leaves per thread, so
/// that uneven pivots and stolen halves still balance.
fn leaf_len(len: usize, threads: usize) -> usize {
    (len / (threads * 8)).max(MIN_LEAF_LEN)
}

/// One parallel quicksort: the comparator and its "less than" form.
struct QuickSort<'c, F, L> {
    compare: &'c F,
    is_less: &'c L,
    leaf_len: usize,
}

impl<F, L> QuickSort<'_, F, L> {
    /// Sorts `v`. `ancestor`, if any, is the pivot of an enclosing level that is known to
    /// be `<=` every element of `v` (it is owned by this call, not shared, so `T: Sync` is
    /// not needed). `bad_pivots_allowed` counts down on unbalanced partitions.
    fn sort<T>(&self, mut v: &mut [T], ancestor: Option<&mut T>, mut bad_pivots_allowed: u32)
    where
        T: Send,
        F: Fn(&T, &T) -> Ordering + Sync,
        L: Fn(&T, &T) -> bool + Sync,
    {
        let is_less = self.is_less;
        loop {
            if v.len() <= self.leaf_len || bad_pivots_allowed == 0 {
                v.sort_unstable_by(self.compare);
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
            if left.len().min(right.len()) < (left.len() + right.len()) / 8 {
                bad_pivots_allowed -= 1;
            }
            pool::join(
                || self.sort(left, ancestor, bad_pivots_allowed),
                || self.sort(right, Some(pivot), bad_pivots_allowed),
            );
            return;
        }
    }
}
