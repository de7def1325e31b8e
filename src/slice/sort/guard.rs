//! Moving elements between the slice and the merge buffer, and deferring panics.
//!
//! All of the sorts' `unsafe` code is here, including the quicksort's cyclic partition
//! ([`partition_cyclic`]), whose guard puts a held-out element back if the comparator panics. The merge sort treats the slice and its scratch
//! buffer as two arrays of [`MaybeUninit<T>`]; every element lives in exactly one of them
//! at any time. The functions below move whole runs bitwise (a move, not a copy: the source
//! slots are dead afterwards) and merge two runs through a [`MergeCursor`] whose `Drop`
//! finishes the move, so that a panicking comparator still leaves every element in the
//! destination exactly once.
//!
//! [`PanicSlot`] holds the first panic of a parallel sort until all elements are back in the
//! caller's slice; it is what lets the merge sort keep its "exactly one place" invariant
//! whatever the scheduler does with the other half of a `join`.

use std::any::Any;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Views a slice of live values as slots.
///
/// # Safety
///
/// When the returned borrow ends, every slot must hold a live `T` again (the caller's slice
/// is used as `[T]` afterwards), and no value may be left duplicated in another live slot.
pub(super) unsafe fn as_slots<T>(v: &mut [T]) -> &mut [MaybeUninit<T>] {
    let len = v.len();
    // SAFETY: `MaybeUninit<T>` has the size, alignment and layout of `T`, so the same memory
    // is a valid `[MaybeUninit<T>]` of the same length; the caller promises to restore live
    // values before the original `&mut [T]` is used again.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<MaybeUninit<T>>(), len) }
}

/// Views slots that all hold live values as a slice of values.
///
/// # Safety
///
/// Every slot of `slots` holds a live `T` owned by this region.
pub(super) unsafe fn assume_live<T>(slots: &mut [MaybeUninit<T>]) -> &mut [T] {
    let len = slots.len();
    // SAFETY: same layout as above; the caller promises every slot is initialised.
    unsafe { std::slice::from_raw_parts_mut(slots.as_mut_ptr().cast::<T>(), len) }
}

/// Moves the values of `src` into `dest` (equal lengths). Afterwards the values live in
/// `dest`; the slots of `src` hold stale bits that must not be read as values.
pub(super) fn move_run<T>(src: &mut [MaybeUninit<T>], dest: &mut [MaybeUninit<T>]) {
    assert_eq!(src.len(), dest.len(), "move_run: runs of unequal length");
    // SAFETY: both pointers are valid for `len` slots (they come from slices of that
    // length) and cannot overlap, because they come from two distinct `&mut` borrows.
    // Copying bits between `MaybeUninit` slots is always allowed.
    unsafe { ptr::copy_nonoverlapping(src.as_ptr(), dest.as_mut_ptr(), src.len()) }
}

/// Merges the sorted runs `left` and `right` into `dest` (of length `left.len() +
/// right.len()`), stably: on ties the element of `left` comes first.
///
/// The merge runs from both ends at once: the front takes the smaller head (the left one on
/// ties) into the front of `dest`, the back takes the larger tail (the right one on ties)
/// into the back. The two steps do not depend on each other, so the processor overlaps
/// them. Both steps stop
/// as soon as either run is used up, so every step moves a value no step has moved before,
/// whatever the comparator answers; the rest of the other run then fills the gap.
///
/// If `is_less` panics, the values not yet merged are moved to the gap in `dest` before the
/// panic continues, so all values end up in `dest` exactly once in any case.
///
/// # Safety
///
/// Every slot of `left` and `right` holds a live `T`.
pub(super) unsafe fn merge_runs<T, F>(
    left: &mut [MaybeUninit<T>],
    right: &mut [MaybeUninit<T>],
    dest: &mut [MaybeUninit<T>],
    is_less: &F,
) where
    F: Fn(&T, &T) -> bool,
{
    assert_eq!(
        left.len() + right.len(),
        dest.len(),
        "merge_runs: bad lengths"
    );
    let left_range = left.as_mut_ptr_range();
    let right_range = right.as_mut_ptr_range();
    let dest_range = dest.as_mut_ptr_range();
    let mut cursor = MergeCursor {
        left: left_range.start.cast::<T>(),
        left_end: left_range.end.cast::<T>(),
        right: right_range.start.cast::<T>(),
        right_end: right_range.end.cast::<T>(),
        out: dest_range.start.cast::<T>(),
    };
    // One past the last free slot of `dest`: the back step fills `dest` downwards from here.
    let mut out_end = dest_range.end.cast::<T>();
    while cursor.both_left() {
        // Front. SAFETY: both runs are non-empty (loop condition), so `left` and `right`
        // point at live values not moved yet; only shared references are made. The free
        // slots `[out, out_end)` are as many as the values left, so `out` is one of them;
        // `dest` is a distinct borrow, so the copy does not overlap.
        unsafe {
            let take_right = is_less(&*cursor.right, &*cursor.left);
            let from = if take_right {
                cursor.right
            } else {
                cursor.left
            };
            ptr::copy_nonoverlapping(from, cursor.out, 1);
            cursor.out = cursor.out.add(1);
            cursor.right = cursor.right.add(usize::from(take_right));
            cursor.left = cursor.left.add(usize::from(!take_right));
        }
        if !cursor.both_left() {
            break;
        }
        // Back. SAFETY: both runs are still non-empty (checked just above), so the last
        // unmoved value of each run sits just below its `end`; as for the front, the gap has
        // room, and `out_end - 1` is its last slot. Each pointer moves by at most one within
        // its own allocation.
        unsafe {
            let left_last = cursor.left_end.sub(1);
            let right_last = cursor.right_end.sub(1);
            let take_left = is_less(&*right_last, &*left_last);
            let from = if take_left { left_last } else { right_last };
            out_end = out_end.sub(1);
            ptr::copy_nonoverlapping(from, out_end, 1);
            cursor.left_end = cursor.left_end.sub(usize::from(take_left));
            cursor.right_end = cursor.right_end.sub(usize::from(!take_left));
        }
    }
    // Dropping `cursor` moves whichever run still has values into the gap `[out, out_end)`.
}

/// The state of a merge in progress: `[left, left_end)` and `[right, right_end)` hold the
/// values not yet moved, `out` is the first free slot of the destination, and the free
/// slots from there on are exactly as many as those values (the back of the destination
/// may be filled already).
///
/// Its `Drop` moves the rest of both runs to `out`, both when the merge loop finishes (one
/// run is then empty) and when the comparator panics.
struct MergeCursor<T> {
    left: *mut T,
    left_end: *mut T,
    right: *mut T,
    right_end: *mut T,
    out: *mut T,
}

impl<T> MergeCursor<T> {
    /// Both runs still hold values.
    #[inline]
    fn both_left(&self) -> bool {
        self.left < self.left_end && self.right < self.right_end
    }
}

impl<T> Drop for MergeCursor<T> {
    fn drop(&mut self) {
        // SAFETY: the cursors were built from slices by `merge_runs`: each pair delimits the
        // unmoved values of one run, so `end >= start` in the same allocation.
        let left_len = unsafe { self.left_end.offset_from(self.left) } as usize;
        // SAFETY: as for `left_len`.
        let right_len = unsafe { self.right_end.offset_from(self.right) } as usize;
        // SAFETY: `out` has room for exactly `left_len + right_len` more values (every value
        // moved so far took one slot); the runs and `dest` are distinct borrows.
        unsafe {
            ptr::copy_nonoverlapping(self.left, self.out, left_len);
            ptr::copy_nonoverlapping(self.right, self.out.add(left_len), right_len);
        }
    }
}

/// The first panic raised by user code during a sort, kept until the slice is whole again.
#[derive(Default)]
pub(super) struct PanicSlot {
    /// Set once a panic was caught; later work skips the comparator.
    panicked: AtomicBool,
    payload: Mutex<Option<Box<dyn Any + Send>>>,
}

impl std::fmt::Debug for PanicSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PanicSlot")
            .field("panicked", &self.has_panicked())
            .finish_non_exhaustive()
    }
}

impl PanicSlot {
    /// True once some task caught a panic. A hint only: a task that misses a concurrent
    /// panic just does work that will be thrown away.
    pub(super) fn has_panicked(&self) -> bool {
        // ORDERING: a hint that only lets tasks skip comparisons; the payload itself is
        // handed over through the mutex, so no data is published by this flag.
        self.panicked.load(Ordering::Relaxed)
    }

    /// Runs `task`; if it panics, records the panic (the first one wins) and returns false.
    pub(super) fn catch(&self, task: impl FnOnce()) -> bool {
        match panic::catch_unwind(AssertUnwindSafe(task)) {
            Ok(()) => true,
            Err(payload) => {
                // ORDERING: see `has_panicked`; the mutex below orders the payload.
                self.panicked.store(true, Ordering::Relaxed);
                let mut slot = self.payload.lock().unwrap_or_else(|e| e.into_inner());
                slot.get_or_insert(payload);
                false
            }
        }
    }

    /// Resumes the recorded panic, if any, on the calling thread.
    pub(super) fn resume(self) {
        let payload = self.payload.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(payload) = payload {
            panic::resume_unwind(payload);
        }
    }
}

/// Moves the elements for which `goes_left` holds to the front of `v` and returns how many
/// there are (the order within each side is not kept). Branch-free cyclic Lomuto scheme: the
/// first element is held out, leaving a gap; each step tests the next element, moves the
/// first element of the right side into the gap and the tested one to the end of the left
/// side, and the gap moves to where the tested element was. Each element is tested once and
/// moved twice, where a swap-based Lomuto moves it three times per swap.
///
/// If `goes_left` panics, the guard writes the held-out element into the gap: `v` is always a
/// permutation of its input.
pub(super) fn partition_cyclic<T, F>(v: &mut [T], mut goes_left: F) -> usize
where
    F: FnMut(&T) -> bool,
{
    let len = v.len();
    if len == 0 {
        return 0;
    }
    let base = v.as_mut_ptr();
    // SAFETY: `len > 0`, so slot 0 holds a live value. Reading it out makes slot 0 the gap;
    // from here on exactly one slot (`gap.at`) is dead, and the guard owns the held value.
    let held = ManuallyDrop::new(unsafe { ptr::read(base) });
    let mut gap = GapGuard { held, at: base };
    let mut left = 0;
    for right in 1..len {
        // SAFETY: `left < right < len`, and the gap is in `left..right` (it starts at 0 and
        // then is always the previous `right`, while `left` only grows to at most `right`):
        // every pointer is in bounds. `v[right]` is live when it is tested. The first copy
        // fills the gap from `v[left]` (possibly the gap itself: `copy` allows the overlap),
        // the second refills `v[left]` from `v[right]` (distinct slots), and then
        // `v[right]` is the only dead slot: the invariant holds again.
        unsafe {
            let tested = base.add(right);
            let goes = goes_left(&*tested);
            let left_end = base.add(left);
            ptr::copy(left_end, gap.at, 1);
            ptr::copy_nonoverlapping(tested, left_end, 1);
            gap.at = tested;
            left += usize::from(goes);
        }
    }
    // The held-out element is tested last; if that panics, the guard fills the gap with it.
    let goes = goes_left(&gap.held);
    // SAFETY: as in the loop, with the held value in the role of `v[right]`: `v[left]` moves
    // into the gap, and the guard's drop (next statement) writes the held value into
    // `v[left]`, the only dead slot.
    unsafe {
        let left_end = base.add(left);
        ptr::copy(left_end, gap.at, 1);
        gap.at = left_end;
    }
    drop(gap);
    left + usize::from(goes)
}

/// Owns the element held out by [`partition_cyclic`] and writes it into the dead slot `at`
/// when dropped (normally or by a panic in the predicate).
struct GapGuard<T> {
    held: ManuallyDrop<T>,
    at: *mut T,
}

impl<T> Drop for GapGuard<T> {
    fn drop(&mut self) {
        // SAFETY: `at` is the one dead slot of the slice being partitioned, and `held` is the
        // one value that belongs there; after this copy the guard is gone, so the value is
        // owned by the slice alone (`held` is `ManuallyDrop` and never dropped here).
        unsafe { ptr::copy_nonoverlapping(&*self.held, self.at, 1) }
    }
}

#[cfg(test)]
mod tests {
    use super::merge_runs;
    use std::cell::Cell;
    use std::mem::MaybeUninit;
    use std::panic::{self, AssertUnwindSafe};
    use std::rc::Rc;

    /// A value with a sort key, an identity, and a shared drop counter.
    #[derive(Debug)]
    struct Tracked {
        key: u8,
        id: usize,
        drops: Rc<Cell<usize>>,
    }

    impl Drop for Tracked {
        fn drop(&mut self) {
            self.drops.set(self.drops.get() + 1);
        }
    }

    fn slots(values: Vec<Tracked>) -> Vec<MaybeUninit<Tracked>> {
        values.into_iter().map(MaybeUninit::new).collect()
    }

    /// Runs `merge_runs` on runs of `left_keys` and `right_keys` with `is_less`, catching a
    /// panic, and returns the ids found in the destination (which then owns every value).
    fn merge_ids(
        left_keys: &[u8],
        right_keys: &[u8],
        is_less: &dyn Fn(&Tracked, &Tracked) -> bool,
    ) -> (Vec<usize>, Rc<Cell<usize>>) {
        let drops = Rc::new(Cell::new(0));
        let make = |keys: &[u8], first_id: usize| -> Vec<Tracked> {
            let ids = first_id..;
            keys.iter()
                .zip(ids)
                .map(|(&key, id)| Tracked {
                    key,
                    id,
                    drops: Rc::clone(&drops),
                })
                .collect()
        };
        let mut left = slots(make(left_keys, 0));
        let mut right = slots(make(right_keys, left_keys.len()));
        let mut dest: Vec<MaybeUninit<Tracked>> = (0..left.len() + right.len())
            .map(|_| MaybeUninit::uninit())
            .collect();
        let _ = panic::catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: every slot of both runs holds a live value.
            unsafe { merge_runs(&mut left, &mut right, &mut dest, &is_less) }
        }));
        // The runs' slots are stale now; `dest` owns every value, panic or not.
        let merged: Vec<Tracked> = dest
            .into_iter()
            // SAFETY: `merge_runs` moved every value into `dest`, also when it panicked.
            .map(|slot| unsafe { slot.assume_init() })
            .collect();
        let ids = merged.iter().map(|t| t.id).collect();
        drop(merged);
        (ids, drops)
    }

    #[test]
    fn merges_every_small_pair_of_runs_stably() {
        let by_key = |a: &Tracked, b: &Tracked| a.key < b.key;
        let keys = |len: usize, seed: usize| -> Vec<u8> {
            let mut keys: Vec<u8> = (0..len).map(|i| ((i * 7 + seed * 3) % 4) as u8).collect();
            keys.sort_unstable();
            keys
        };
        for left_len in 0..9 {
            for right_len in 0..9 {
                for seed in 0..3 {
                    let (l, r) = (keys(left_len, seed), keys(right_len, seed + 1));
                    let (ids, drops) = merge_ids(&l, &r, &by_key);
                    // The stable merge: the concatenation sorted stably by key.
                    let mut expected: Vec<(u8, usize)> =
                        l.iter().chain(&r).copied().zip(0..).collect();
                    expected.sort_by_key(|&(key, _)| key);
                    let expected: Vec<usize> = expected.into_iter().map(|(_, id)| id).collect();
                    assert_eq!(ids, expected, "{l:?} + {r:?}");
                    assert_eq!(drops.get(), left_len + right_len, "each value dropped once");
                }
            }
        }
    }

    #[test]
    fn any_comparator_answers_or_panics_leave_each_value_in_dest_exactly_once() {
        let (l, r) = ([0u8, 1, 1, 2, 5, 7], [1u8, 1, 3, 4, 4, 6, 8]);
        let total = l.len() + r.len();
        for seed in 0..64u64 {
            for panic_at in [None, Some(0), Some(1), Some(3), Some(6), Some(9)] {
                let calls = Cell::new(0u64);
                let state = Cell::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
                // Answers at random (not a total order), and panics at call `panic_at`.
                let chaotic = |_: &Tracked, _: &Tracked| {
                    let call = calls.get();
                    calls.set(call + 1);
                    if panic_at == Some(call) {
                        panic!("planned comparator panic");
                    }
                    let mut x = state.get();
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    state.set(x);
                    x & 1 == 1
                };
                let (mut ids, drops) = merge_ids(&l, &r, &chaotic);
                ids.sort_unstable();
                assert_eq!(ids, (0..total).collect::<Vec<_>>(), "seed {seed}");
                assert_eq!(drops.get(), total, "seed {seed}: each value dropped once");
            }
        }
    }
}
