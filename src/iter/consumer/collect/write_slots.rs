//! The consumer that writes items straight into a `Vec`'s uninitialised spare capacity.
//!
//! The spare capacity is a `&mut [MaybeUninit<T>]`; splitting the consumer splits that
//! slice, so each leaf owns a disjoint run of slots and fills it front to back. A leaf's
//! result ([`WrittenSlots`]) owns the items it wrote: if anything panics, dropping the
//! partial results drops each written item exactly once. Neighbouring results are merged
//! when the left one is full and ends where the right one starts; at the end the caller
//! checks that one result covers every slot before taking ownership with `set_len`.

use std::marker::PhantomData;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::{ptr, slice};

use crate::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

/// A run of uninitialised slots to fill, in order.
pub(crate) struct WriteSlots<'c, T> {
    slots: &'c mut [MaybeUninit<T>],
}

impl<'c, T> WriteSlots<'c, T> {
    pub(crate) fn new(slots: &'c mut [MaybeUninit<T>]) -> Self {
        WriteSlots { slots }
    }
}

/// The slots a leaf was given, of which the first `written` hold items this value owns.
///
/// Invariant: `slots[..written]` are initialised and owned by `self` (dropped by its `Drop`).
pub(crate) struct WrittenSlots<'c, T> {
    slots: &'c mut [MaybeUninit<T>],
    written: usize,
    /// Marks that this value owns (and drops) `T`s.
    owns: PhantomData<T>,
}

impl<'c, T> WrittenSlots<'c, T> {
    /// How many items were written.
    pub(crate) fn len(&self) -> usize {
        self.written
    }

    /// True if every slot of `self` is written and `next` starts where `self` ends.
    fn can_append(&self, next: &[MaybeUninit<T>]) -> bool {
        self.written == self.slots.len() && self.slots.as_ptr_range().end == next.as_ptr()
    }

    /// Extends `self` over `next`, whose first `written` slots hold items that `self` now
    /// owns. Requires `can_append(next)`.
    fn append(&mut self, next: &'c mut [MaybeUninit<T>], written: usize) {
        debug_assert!(self.can_append(next));
        let len = self.slots.len() + next.len();
        // SAFETY: `self.slots` and `next` are runs of one `'c` slice of slots, cut apart by
        // the consumer's `split_at_mut`s (no other code makes `WriteSlots`), and adjacent
        // (`can_append`), so together they are one valid, exclusively borrowed run; `next`
        // is consumed here, so nothing else reaches those slots any more.
        self.slots = unsafe { slice::from_raw_parts_mut(self.slots.as_mut_ptr(), len) };
        self.written += written;
    }

    /// Gives up ownership of the written items; the caller now owns them (via `set_len`).
    pub(crate) fn release_ownership(self) {
        let _ = ManuallyDrop::new(self);
    }
}

impl<T> Drop for WrittenSlots<'_, T> {
    fn drop(&mut self) {
        let initialised = self.slots[..self.written].as_mut_ptr().cast::<T>();
        // SAFETY: by the struct invariant the first `written` slots hold initialised items
        // that this value owns and nobody else will read or drop.
        unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(initialised, self.written)) }
    }
}

impl<'c, T: Send> Consumer<T> for WriteSlots<'c, T> {
    type Folder = WrittenSlots<'c, T>;
    type Reducer = MergeSlots;
    type Result = WrittenSlots<'c, T>;

    fn split_at(self, index: usize) -> (Self, Self, MergeSlots) {
        let (left, right) = self.slots.split_at_mut(index);
        (WriteSlots::new(left), WriteSlots::new(right), MergeSlots)
    }

    fn into_folder(self) -> WrittenSlots<'c, T> {
        WrittenSlots {
            slots: self.slots,
            written: 0,
            owns: PhantomData,
        }
    }

    fn full(&self) -> bool {
        false
    }

    /// Continues a full folder that ends where these slots start: one run, one result.
    fn continue_folder(
        self,
        mut folder: WrittenSlots<'c, T>,
    ) -> Result<WrittenSlots<'c, T>, (Self, WrittenSlots<'c, T>)> {
        if folder.can_append(self.slots) {
            folder.append(self.slots, 0);
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
        match self.slots.get_mut(self.written) {
            Some(slot) => slot.write(item),
            None => too_many_items(),
        };
        self.written += 1;
        self
    }

    fn consume_iter<I>(mut self, iter: I) -> Self
    where
        I: IntoIterator<Item = T>,
    {
        // The loop keeps its position in a local guard (a register), not in `self`, so it
        // compiles to a plain store loop; the guard records progress even on a panic.
        let free = self.slots[self.written..].iter_mut();
        let mut guard = WriteGuard {
            offered: free.len(),
            free,
            written: &mut self.written,
        };
        iter.into_iter().for_each(|item| match guard.free.next() {
            Some(slot) => {
                slot.write(item);
            }
            None => too_many_items(),
        });
        drop(guard);
        self
    }

    fn complete(self) -> Self {
        self
    }

    fn full(&self) -> bool {
        false
    }
}

/// Counts the slots taken from `free` into `written` when dropped (normally or by a panic).
struct WriteGuard<'a, 'c, T> {
    free: slice::IterMut<'c, MaybeUninit<T>>,
    /// `free.len()` when the guard was made.
    offered: usize,
    written: &'a mut usize,
}

impl<T> Drop for WriteGuard<'_, '_, T> {
    fn drop(&mut self) {
        // Every slot taken from `free` was written before the next one was taken.
        *self.written += self.offered - self.free.len();
    }
}

#[cold]
#[inline(never)]
fn too_many_items() -> ! {
    panic!("a producer yielded more items than its length")
}

/// Merges two neighbouring [`WrittenSlots`] when the left one is full.
pub(crate) struct MergeSlots;

impl<'c, T> Reducer<WrittenSlots<'c, T>> for MergeSlots {
    fn reduce(
        self,
        mut left: WrittenSlots<'c, T>,
        right: WrittenSlots<'c, T>,
    ) -> WrittenSlots<'c, T> {
        if left.can_append(right.slots) {
            let mut right = ManuallyDrop::new(right);
            let written = right.written;
            // `right` is forgotten: its items are now owned by `left` alone.
            left.append(std::mem::take(&mut right.slots), written);
        }
        // Otherwise `right` is dropped with its items, and the caller's count check fails.
        left
    }
}
