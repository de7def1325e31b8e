//! `par_sort*`: stable parallel merge sort.
//!
//! The slice is cut in halves recursively (on `join`) down to leaves of [`leaf_len`]; each
//! leaf is sorted with std's stable sort. On the way back up, the two sorted halves are
//! merged in parallel: the longer run's middle element is located in the other run by
//! binary search, which splits one merge into two independent ones.
//!
//! One scratch buffer of `v.len()` slots is used. Levels alternate between the slice and
//! the buffer ("ping-pong"), so each level moves every element once: a region asked to end
//! up in the buffer sorts its halves into the slice and merges them into the buffer, and the
//! other way round.
//!
//! Panics: every task catches a comparator panic in the [`PanicSlot`]; the merges then keep
//! moving (without comparing) until every value is back in the slice, and only then does
//! the first panic resume. So each value sits in exactly one place at every moment, whatever
//! the scheduler did with the other half of a `join`.

use std::cmp::Ordering;
use std::mem::MaybeUninit;

use super::guard::{self, PanicSlot};
use super::std_sorts;
use crate::pool;

/// Below this length (or on one thread) std's `sort_by` runs on the whole slice.
const PAR_MIN_LEN: usize = if cfg!(miri) { 64 } else { 1 << 13 };
/// Leaves get at least this many elements, so a `join` is negligible next to a leaf sort.
const MIN_LEAF_LEN: usize = if cfg!(miri) { 8 } else { 1 << 11 };
/// Merges shorter than this are done sequentially.
const MIN_PAR_MERGE_LEN: usize = if cfg!(miri) { 16 } else { 1 << 13 };

/// Stable sort of `v` by `compare`, in parallel; see the module docs.
pub(crate) fn par_sort_by<T, F>(v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let threads = pool::current_num_threads();
    if threads <= 1 || v.len() < PAR_MIN_LEN || std::mem::size_of::<T>() == 0 {
        std_sorts::sort_by(v, compare);
        return;
    }
    let mut buffer: Vec<T> = Vec::new();
    crate::huge_pages::reserve(&mut buffer, v.len()); // fresh memory: see `huge_pages`
    let scratch = &mut buffer.spare_capacity_mut()[..v.len()];
    let sort = MergeSort {
        compare: &compare,
        is_less: &|a: &T, b: &T| compare(a, b) == Ordering::Less,
        leaf_len: leaf_len(v.len(), threads),
        panics: PanicSlot::default(),
    };
    // SAFETY: `sort_into(.., into_scratch = false)` returns with every value back in the
    // slice, exactly once, also when the comparator panicked (see the module docs); it
    // never unwinds, because all user code runs under `PanicSlot::catch`, and no stop of a
    // `cancellable` region can unwind through its joins (`unstoppable`: one that would
    // drop a `join`'s second half unrun would leave values in the buffer).
    let slots = unsafe { guard::as_slots(v) };
    pool::unstoppable(|| sort.sort_into(slots, scratch, false));
    // `buffer` still has length 0: dropping it frees memory and no values.
    sort.panics.resume();
    pool::stop_if_cancelled();
}

/// Leaf length for `len` elements on `threads` threads: the fewest leaves that give every
/// thread two, rounded up to a power of 4. An even number of halvings means the leaves sort
/// in place and the last merge lands in the slice, so no level is spent on a plain copy;
/// few leaves mean few merge passes, and the merges themselves split finely enough to keep
/// every thread busy.
fn leaf_len(len: usize, threads: usize) -> usize {
    let mut leaves = 1;
    while leaves < 2 * threads {
        leaves *= 4;
    }
    len.div_ceil(leaves).max(MIN_LEAF_LEN)
}

/// One parallel merge sort: the comparator, its "less than" form, and the first panic.
struct MergeSort<'c, F, L> {
    compare: &'c F,
    is_less: &'c L,
    leaf_len: usize,
    panics: PanicSlot,
}

impl<F, L> MergeSort<'_, F, L> {
    /// Sorts the values of `slots` (which all hold live values) into `slots` itself, or
    /// into `scratch` (same length, no live values) if `into_scratch`. Never unwinds.
    fn sort_into<T>(
        &self,
        slots: &mut [MaybeUninit<T>],
        scratch: &mut [MaybeUninit<T>],
        into_scratch: bool,
    ) where
        T: Send,
        F: Fn(&T, &T) -> Ordering + Sync,
        L: Fn(&T, &T) -> bool + Sync,
    {
        let len = slots.len();
        if len <= self.leaf_len {
            if !self.panics.has_panicked() {
                // SAFETY: `slots` holds live values (this function's precondition).
                let values = unsafe { guard::assume_live(slots) };
                // std's sort leaves a permutation if `compare` panics.
                self.panics
                    .catch(|| std_sorts::sort_by(values, self.compare));
            }
            if into_scratch {
                guard::move_run(slots, scratch);
            }
            return;
        }
        let mid = len / 2;
        {
            let (slots_lo, slots_hi) = slots.split_at_mut(mid);
            let (scratch_lo, scratch_hi) = scratch.split_at_mut(mid);
            pool::join(
                || self.sort_into(slots_lo, scratch_lo, !into_scratch),
                || self.sort_into(slots_hi, scratch_hi, !into_scratch),
            );
        }
        // The sorted halves are now where this region must *not* end up.
        let (src, dest) = if into_scratch {
            (slots, scratch)
        } else {
            (scratch, slots)
        };
        let (left, right) = src.split_at_mut(mid);
        self.merge(left, right, dest);
    }

    /// Merges the sorted runs `left` and `right` (live values) into `dest`, splitting the
    /// work in two with a binary search while it is long. Never unwinds.
    fn merge<T>(
        &self,
        left: &mut [MaybeUninit<T>],
        right: &mut [MaybeUninit<T>],
        dest: &mut [MaybeUninit<T>],
    ) where
        T: Send,
        F: Sync,
        L: Fn(&T, &T) -> bool + Sync,
    {
        if self.panics.has_panicked() {
            // Order no longer matters: just put every value in place.
            return concatenate(left, right, dest);
        }
        if dest.len() < MIN_PAR_MERGE_LEN || left.is_empty() || right.is_empty() {
            // SAFETY: both runs hold live values (this function's precondition); on a
            // panic `merge_runs` still moves every value into `dest` before unwinding
            // into `catch`.
            self.panics
                .catch(|| unsafe { guard::merge_runs(left, right, dest, self.is_less) });
            return;
        }
        let mut plan = MergePlan::InOrder;
        if !self.panics.catch(|| plan = self.plan(left, right)) {
            return self.merge(left, right, dest); // now moves without comparing
        }
        let (i, j) = match plan {
            MergePlan::InOrder => return concatenate(left, right, dest),
            MergePlan::Swapped => return concatenate(right, left, dest),
            MergePlan::Split(i, j) => (i, j),
        };
        let (left_lo, left_hi) = left.split_at_mut(i);
        let (right_lo, right_hi) = right.split_at_mut(j);
        let (dest_lo, dest_hi) = dest.split_at_mut(i + j);
        pool::join(
            || self.merge(left_lo, right_lo, dest_lo),
            || self.merge(left_hi, right_hi, dest_hi),
        );
    }

    /// Decides how to merge two non-empty sorted runs: no merge at all if they are already
    /// in order (presorted input) or in reverse order with no ties; otherwise the cut
    /// `(i, j)` such that merging `left[..i]` with `right[..j]`, then `left[i..]` with
    /// `right[j..]`, is the stable merge of the two runs (the longer run is cut in the middle).
    fn plan<T>(&self, left: &mut [MaybeUninit<T>], right: &mut [MaybeUninit<T>]) -> MergePlan
    where
        L: Fn(&T, &T) -> bool,
    {
        // SAFETY: both runs hold live values (precondition of `merge`, the only caller,
        // which also checked that neither run is empty).
        let (left, right) = unsafe { (guard::assume_live(left), guard::assume_live(right)) };
        let is_less = self.is_less;
        if !is_less(&right[0], &left[left.len() - 1]) {
            return MergePlan::InOrder;
        }
        if is_less(&right[right.len() - 1], &left[0]) {
            return MergePlan::Swapped;
        }
        if left.len() >= right.len() {
            let i = left.len() / 2;
            // Equal elements of `right` go after `left[i]`: count only the smaller ones.
            let j = right.partition_point(|r| is_less(r, &left[i]));
            MergePlan::Split(i, j)
        } else {
            let j = right.len() / 2;
            // Equal elements of `left` go before `right[j]`: count them in.
            let i = left.partition_point(|l| !is_less(&right[j], l));
            MergePlan::Split(i, j)
        }
    }
}

/// How [`MergeSort::merge`] handles two runs.
enum MergePlan {
    /// Every element of the left run goes before every element of the right run.
    InOrder,
    /// Every element of the right run is strictly less than every element of the left run.
    Swapped,
    /// Merge the two halves cut at these indices separately.
    Split(usize, usize),
}

/// Moves `first` then `second` into `dest`.
fn concatenate<T>(
    first: &mut [MaybeUninit<T>],
    second: &mut [MaybeUninit<T>],
    dest: &mut [MaybeUninit<T>],
) {
    let (dest_first, dest_second) = dest.split_at_mut(first.len());
    guard::move_run(first, dest_first);
    guard::move_run(second, dest_second);
}

#[cfg(all(test, not(miri)))]
mod tests {
    use super::{leaf_len, MIN_LEAF_LEN};

    #[test]
    fn leaves_come_in_powers_of_four_with_two_per_thread() {
        let len = 1 << 24;
        assert_eq!(len / leaf_len(len, 1), 4);
        assert_eq!(len / leaf_len(len, 2), 4);
        assert_eq!(len / leaf_len(len, 3), 16);
        assert_eq!(len / leaf_len(len, 8), 16);
        assert_eq!(len / leaf_len(len, 9), 64);
        assert_eq!(leaf_len(10_001, 2), 2501);
        assert_eq!(leaf_len(5000, 8), MIN_LEAF_LEN);
    }
}
