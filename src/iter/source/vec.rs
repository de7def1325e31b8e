//! `Vec<T>` by value and `par_drain`: a producer that owns the items of a slice of the
//! vector's buffer and moves them out one by one.
//!
//! Ownership protocol: before producing, the vector's length is cut to the start of the
//! drained range, so the vector no longer owns those items. Each [`DrainProducer`] owns
//! exactly the items of its slice: splitting divides them, iterating moves them out, and
//! dropping drops what is left. After the drain, [`Drain`]'s `Drop` closes the gap by
//! moving the tail down and restoring the length.

use std::ops::{Bound, Range, RangeBounds};
use std::{mem, ptr, slice};

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// A parallel iterator that moves the items out of a `Vec` (from `into_par_iter()`).
///
/// ```
/// use weft::prelude::*;
///
/// let words = vec![String::from("a"), String::from("bc")];
/// let joined: String = words.into_par_iter().collect();
/// assert_eq!(joined, "abc");
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct IntoIter<T> {
    vec: Vec<T>,
}

impl<T: Send> IntoParallelIterator for Vec<T> {
    type Iter = IntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter { vec: self }
    }
}

/// A boxed slice by value: moves its items out (no copy of the buffer).
impl<T: Send> IntoParallelIterator for Box<[T]> {
    type Iter = IntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter {
            vec: self.into_vec(),
        }
    }
}

impl<T: Send> ParallelIterator for IntoIter<T> {
    type Item = T;

    #[inline]
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.vec.len())
    }
}

impl<T: Send> IndexedParallelIterator for IntoIter<T> {
    #[inline]
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.vec.len()
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<T>>(mut self, callback: CB) -> CB::Output {
        let len = self.vec.len();
        Drain::new(&mut self.vec, 0..len).with_producer(callback)
    }
}

/// A parallel iterator that moves a range of items out of a `Vec` (from `par_drain`); the
/// items after the range close the gap when it is dropped.
///
/// ```
/// use weft::prelude::*;
///
/// let mut v: Vec<i32> = (0..10).collect();
/// let middle: Vec<i32> = v.par_drain(3..7).collect();
/// assert_eq!(middle, [3, 4, 5, 6]);
/// assert_eq!(v, [0, 1, 2, 7, 8, 9]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug)]
pub struct Drain<'data, T> {
    vec: &'data mut Vec<T>,
    range: Range<usize>,
    /// The vector's length before the drain; `Some` once the items were handed to a producer.
    produced_from: Option<usize>,
}

impl<'data, T: Send> Drain<'data, T> {
    pub(crate) fn new<R: RangeBounds<usize>>(vec: &'data mut Vec<T>, range: R) -> Self {
        let range = resolve_range(range, vec.len());
        Drain {
            vec,
            range,
            produced_from: None,
        }
    }
}

impl<T: Send> ParallelIterator for Drain<'_, T> {
    type Item = T;

    #[inline]
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.range.len())
    }
}

impl<T: Send> IndexedParallelIterator for Drain<'_, T> {
    #[inline]
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.range.len()
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<T>>(mut self, callback: CB) -> CB::Output {
        let Range { start, end } = self.range;
        self.produced_from = Some(self.vec.len());
        // SAFETY: `start <= len`, and shortening only gives up ownership of the items at
        // `start..`: from now on the producer owns `start..end` and `Drop` restores the tail.
        unsafe { self.vec.set_len(start) };
        // SAFETY: `start..end` lies within the old length (checked in `new`), so the items
        // are initialised; nothing else accesses them while the producer borrows them.
        let items =
            unsafe { slice::from_raw_parts_mut(self.vec.as_mut_ptr().add(start), end - start) };
        callback.callback(DrainProducer { items })
    }
}

impl<T> Drop for Drain<'_, T> {
    fn drop(&mut self) {
        let Range { start, end } = self.range;
        match self.produced_from {
            // Never iterated: drain sequentially, which drops the items.
            None => {
                self.vec.drain(start..end);
            }
            Some(old_len) => {
                let tail = old_len - end;
                let base = self.vec.as_mut_ptr();
                // SAFETY: the producer moved out or dropped every item of `start..end`; the
                // tail `end..old_len` is still initialised and unowned, and both regions lie
                // inside the allocation. `ptr::copy` handles the overlap.
                unsafe { ptr::copy(base.add(end), base.add(start), tail) };
                // SAFETY: `start + tail` items are now initialised and contiguous.
                unsafe { self.vec.set_len(start + tail) };
            }
        }
    }
}

/// Owns the items of `items`: moving them out is the only way they leave.
pub(crate) struct DrainProducer<'data, T> {
    items: &'data mut [T],
}

impl<'data, T> DrainProducer<'data, T> {
    /// A producer that owns the items of `items`.
    ///
    /// # Safety
    ///
    /// The caller must give up ownership of the items: nothing else may read or drop them
    /// after this call (the producer moves them out or drops them).
    pub(crate) unsafe fn new(items: &'data mut [T]) -> Self {
        DrainProducer { items }
    }
}

impl<'data, T: Send> Producer for DrainProducer<'data, T> {
    type Item = T;
    type IntoIter = DrainIter<'data, T>;
    const INERT: bool = true;

    fn into_iter(mut self) -> DrainIter<'data, T> {
        let items = mem::take(&mut self.items);
        DrainIter {
            items: items.iter_mut(),
        }
    }

    fn split_at(mut self, index: usize) -> (Self, Self) {
        let (left, right) = mem::take(&mut self.items).split_at_mut(index);
        (
            DrainProducer { items: left },
            DrainProducer { items: right },
        )
    }
}

impl<T> Drop for DrainProducer<'_, T> {
    fn drop(&mut self) {
        // SAFETY: this producer owns the items of `items` (see the module doc) and none were
        // moved out: moving out goes through `into_iter`, which empties `items` first.
        unsafe { ptr::drop_in_place(mem::take(&mut self.items) as *mut [T]) }
    }
}

/// Moves the items of a slice out, front or back; drops the rest when dropped.
pub(crate) struct DrainIter<'data, T> {
    items: slice::IterMut<'data, T>,
}

impl<T> Iterator for DrainIter<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        let slot = self.items.next()?;
        // SAFETY: this iterator owns the items not yet yielded; `slot` has just left `items`,
        // so it is read exactly once and never dropped here.
        Some(unsafe { ptr::read(slot) })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }
}

impl<T> DoubleEndedIterator for DrainIter<'_, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        let slot = self.items.next_back()?;
        // SAFETY: as in `next`, from the back.
        Some(unsafe { ptr::read(slot) })
    }
}

impl<T> ExactSizeIterator for DrainIter<'_, T> {}

impl<T> Drop for DrainIter<'_, T> {
    fn drop(&mut self) {
        let rest = mem::take(&mut self.items).into_slice();
        // SAFETY: the items still in `items` were never yielded, so this iterator owns them.
        unsafe { ptr::drop_in_place(rest as *mut [T]) }
    }
}

/// Turns any `RangeBounds` into `start..end` within `0..len`, panicking like slicing does.
pub(crate) fn resolve_range<R: RangeBounds<usize>>(range: R, len: usize) -> Range<usize> {
    let start = match range.start_bound() {
        Bound::Included(&start) => start,
        Bound::Excluded(&start) => start.checked_add(1).expect("range start overflows usize"),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&end) => end.checked_add(1).expect("range end overflows usize"),
        Bound::Excluded(&end) => end,
        Bound::Unbounded => len,
    };
    assert!(
        start <= end,
        "drain range starts at {start} but ends at {end}"
    );
    assert!(
        end <= len,
        "drain range end {end} is out of bounds for length {len}"
    );
    start..end
}
