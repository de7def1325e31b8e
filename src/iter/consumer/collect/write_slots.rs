//! The consumer that writes items straight into a `Vec`'s uninitialised spare capacity.
//!
//! The spare capacity is a `&mut [MaybeUninit<T>]`; splitting the consumer splits that
//! run of slots, so each leaf owns a disjoint run and fills it front to back. A leaf's
//! result ([`WrittenSlots`]) owns the items it wrote: if anything panics, dropping the
//! partial results drops each written item exactly once. Neighbouring results are merged
//! when the left one ends where the right one starts; if the left one is not full (a
//! filter's piece keeps fewer items than its positions), the right one's items move down
//! to follow it, so a merged run still holds its items at its front. At the end the caller
//! checks the result (every slot written, or one run over all of them) before taking
//! ownership with `set_len`.
//!
//! A run is a raw pointer and a length, not a `&mut` sub-slice: every run is derived from
//! the one slice given to [`WriteSlots::new`] by pointer arithmetic, so two neighbouring
//! runs can become one again. Extending a `&mut` sub-slice over its neighbour instead (what
//! this file did before) makes a reference reach past the range it borrowed; Miri (Tree
//! Borrows) reported that as undefined behaviour once the neighbour's own reference had
//! been moved in between. Slices are made from the pointer only for the moment they are
//! used.

use std::marker::PhantomData;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::ptr;

use crate::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

/// A run of `len` uninitialised slots from `start`, to fill in order.
///
/// Invariant: the run lies inside the slice given to [`WriteSlots::new`] (it is derived from
/// it by `split_at` only), and no other `WriteSlots` or [`WrittenSlots`] covers any of it.
pub(crate) struct WriteSlots<'c, T> {
    start: *mut MaybeUninit<T>,
    len: usize,
    /// The run is borrowed from the caller's slice for `'c`, exclusively.
    borrow: PhantomData<&'c mut [MaybeUninit<T>]>,
}

// SAFETY: a `WriteSlots` is an exclusive borrow of its run (its invariant), like the
// `&mut [MaybeUninit<T>]` it stands for, which is `Send` when `T` is; it has no shared
// state.
unsafe impl<T: Send> Send for WriteSlots<'_, T> {}

impl<'c, T> WriteSlots<'c, T> {
    pub(crate) fn new(slots: &'c mut [MaybeUninit<T>]) -> Self {
        WriteSlots {
            start: slots.as_mut_ptr(),
            len: slots.len(),
            borrow: PhantomData,
        }
    }
}

/// The run of slots a leaf was given, of which the first `written` hold items this value
/// owns.
///
/// Invariant: `run` keeps the invariant of [`WriteSlots`]; its first `written` slots are
/// initialised and owned by `self` (dropped by its `Drop`).
pub(crate) struct WrittenSlots<'c, T> {
    run: WriteSlots<'c, T>,
    written: usize,
    /// Marks that this value owns (and drops) `T`s.
    owns: PhantomData<T>,
}

impl<T> WrittenSlots<'_, T> {
    /// How many items were written.
    pub(crate) fn written(&self) -> usize {
        self.written
    }

    /// The number of slots of the run (written or not).
    pub(crate) fn run_len(&self) -> usize {
        self.run.len
    }

    /// True if the run `next` starts where `self` ends. (Only compares addresses.)
    fn can_append(&self, next: &WriteSlots<'_, T>) -> bool {
        self.run.start.wrapping_add(self.run.len) == next.start
    }

    /// Extends `self` over the next run, `len` slots of which the first `written` hold items
    /// that `self` now owns; if `self` is not full, those items first move down to follow
    /// its own. The caller checked `can_append` and gives up the next run (it consumed the
    /// `WriteSlots` or forgot the `WrittenSlots` that held it).
    fn append(&mut self, len: usize, written: usize) {
        let next = self.run.start.wrapping_add(self.run.len);
        if written > 0 && self.written < self.run.len {
            // SAFETY: the next run starts at `next` (`can_append`) and its first `written`
            // slots hold initialised items, which are now ours; the destination, the slots
            // after our `written`, lies in our run and the next one (`self.written +
            // written <= self.run.len + len`) and holds nothing we own. Both runs come from
            // the one slice of `WriteSlots::new`, so source and destination are in one
            // allocation; they may overlap, which `ptr::copy` allows. The moved-from slots
            // are then past our new `written` and count as uninitialised again.
            unsafe { ptr::copy(next, self.run.start.add(self.written), written) };
        }
        // Both runs come from the one slice of `WriteSlots::new` (no other code makes a
        // run), so the joined run lies inside it too, and it is exclusively ours: the next
        // run's owner is gone.
        self.run.len += len;
        self.written += written;
    }

    /// Gives up ownership of the written items; the caller now owns them (via `set_len`).
    pub(crate) fn release_ownership(self) {
        let _ = ManuallyDrop::new(self);
    }
}

impl<T> Drop for WrittenSlots<'_, T> {
    fn drop(&mut self) {
        let initialised = self.run.start.cast::<T>();
        // SAFETY: by the struct invariant the first `written` slots of the run hold
        // initialised items that this value owns and nobody else will read or drop.
        unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(initialised, self.written)) }
    }
}

impl<'c, T: Send> Consumer<T> for WriteSlots<'c, T> {
    type Folder = WrittenSlots<'c, T>;
    type Reducer = MergeSlots;
    type Result = WrittenSlots<'c, T>;

    fn split_at(self, index: usize) -> (Self, Self, MergeSlots) {
        assert!(
            index <= self.len,
            "split index {index} past {} slots",
            self.len
        );
        let left = WriteSlots {
            start: self.start,
            len: index,
            borrow: PhantomData,
        };
        let right = WriteSlots {
            // `wrapping_add` stays in bounds here (`index <= len`); it only avoids `unsafe`
            // for the arithmetic.
            start: self.start.wrapping_add(index),
            len: self.len - index,
            borrow: PhantomData,
        };
        (left, right, MergeSlots)
    }

    fn into_folder(self) -> WrittenSlots<'c, T> {
        WrittenSlots {
            run: self,
            written: 0,
            owns: PhantomData,
        }
    }

    fn full(&self) -> bool {
        false
    }

    /// Continues a folder that ends where these slots start: one run, one result (its items
    /// stay at the run's front; a folder that is not full just writes on after them).
    fn continue_folder(
        self,
        mut folder: Self::Folder,
    ) -> Result<Self::Folder, (Self, Self::Folder)> {
        if folder.can_append(&self) {
            folder.append(self.len, 0);
            Ok(folder)
        } else {
            Err((self, folder))
        }
    }
}

impl<T: Send> UnindexedConsumer<T> for WriteSlots<'_, T> {
    fn split_off_left(&self) -> Self {
        unreachable!("collecting into slots requires an indexed iterator (opt_len was Some)")
    }

    fn to_reducer(&self) -> MergeSlots {
        MergeSlots
    }
}

impl<'c, T> Folder<T> for WrittenSlots<'c, T> {
    type Result = Self;

    fn consume(mut self, item: T) -> Self {
        if self.written == self.run.len {
            too_many_items();
        }
        // SAFETY: `written < len`, so the slot is in this value's run (struct invariant),
        // which nobody else accesses; it is not yet initialised, so nothing is overwritten.
        unsafe {
            self.run
                .start
                .add(self.written)
                .write(MaybeUninit::new(item))
        };
        self.written += 1;
        self
    }

    fn consume_iter<I>(mut self, iter: I) -> Self
    where
        I: IntoIterator<Item = T>,
    {
        // At most the free slots' count of items, through `take`: std runs `take` over a
        // random-access iterator (ranges, slices, and `map`s of them) as one counted loop
        // with no exit test per item, which LLVM unrolls like a sequential `collect`; other
        // iterators keep their own `fold`. The count lives in a local guard (a register),
        // which records it in `written` even if an item's closure panics.
        let free = self.run.len - self.written;
        // `wrapping_add` stays in bounds (`written <= len`); it only avoids `unsafe` here.
        let first = self.run.start.wrapping_add(self.written);
        let mut guard = CountGuard {
            count: 0,
            written: &mut self.written,
        };
        let mut iter = iter.into_iter();
        iter.by_ref().take(free).for_each(|item| {
            // SAFETY: `take(free)` yields at most `free` items, so `count < free` here, and
            // the slot `first + count` is one of this value's run's free slots (struct
            // invariant), uninitialised and accessed by nobody else.
            unsafe { first.add(guard.count).write(MaybeUninit::new(item)) };
            guard.count += 1;
        });
        // Only a loop stopped by the count may have left items behind: an iterator that
        // ended first is not asked again (it need not be fused).
        let filled = guard.count == free;
        drop(guard);
        if filled && iter.next().is_some() {
            too_many_items();
        }
        self
    }

    fn complete(self) -> Self {
        self
    }

    fn full(&self) -> bool {
        false
    }
}

/// Adds the items written so far to `written` when dropped (normally or by a panic).
struct CountGuard<'a> {
    count: usize,
    written: &'a mut usize,
}

impl Drop for CountGuard<'_> {
    fn drop(&mut self) {
        *self.written += self.count;
    }
}

#[cold]
#[inline(never)]
fn too_many_items() -> ! {
    panic!("a producer yielded more items than its length")
}

/// Merges two neighbouring [`WrittenSlots`] (the right one's items move down when the
/// left one is not full).
pub(crate) struct MergeSlots;

impl<'c, T> Reducer<WrittenSlots<'c, T>> for MergeSlots {
    fn reduce(
        self,
        mut left: WrittenSlots<'c, T>,
        right: WrittenSlots<'c, T>,
    ) -> WrittenSlots<'c, T> {
        if left.can_append(&right.run) {
            // `right` is forgotten: its run and items now belong to `left` alone.
            let right = ManuallyDrop::new(right);
            left.append(right.run.len, right.written);
        }
        // Otherwise `right` is dropped with its items, and the caller's check fails.
        left
    }
}
