//! `par_windows`: overlapping windows; window `i` is `slice[i..i + size]`.

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// How many windows of `size` items `len` items hold.
fn window_count(len: usize, size: usize) -> usize {
    (len + 1).saturating_sub(size)
}

/// Splits `slice` so that its windows of `size` before `index` are the left part's and the
/// rest the right part's; the parts overlap by `size - 1` items.
fn split_windows<T>(slice: &[T], size: usize, index: usize) -> (&[T], &[T]) {
    let left_end = Ord::min(index + size - 1, slice.len());
    let right_start = Ord::min(index, slice.len());
    (&slice[..left_end], &slice[right_start..])
}

/// Parallel iterator over overlapping windows, from
/// [`par_windows`](super::ParallelSlice::par_windows).
///
/// ```
/// use weft::prelude::*;
///
/// let rising = [1, 3, 2, 5].par_windows(2).filter(|w| w[0] < w[1]).count();
/// assert_eq!(rising, 2);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug)]
pub struct Windows<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<T> Clone for Windows<'_, T> {
    fn clone(&self) -> Self {
        Windows { ..*self }
    }
}

impl<'data, T: Sync> Windows<'data, T> {
    pub(super) fn new(slice: &'data [T], size: usize) -> Self {
        assert!(size != 0, "window_size must not be zero");
        Windows { slice, size }
    }
}

impl<'data, T: Sync> ParallelIterator for Windows<'data, T> {
    type Item = &'data [T];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'data, T: Sync> IndexedParallelIterator for Windows<'data, T> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        window_count(self.slice.len(), self.size)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(WindowsProducer {
            slice: self.slice,
            size: self.size,
        })
    }
}

/// Holds `slice`, whose windows of `size` are the items; pieces overlap by `size - 1`.
struct WindowsProducer<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<'data, T: Sync> Producer for WindowsProducer<'data, T> {
    type Item = &'data [T];
    type IntoIter = std::slice::Windows<'data, T>;
    const INERT: bool = true;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.windows(self.size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let size = self.size;
        let (left, right) = split_windows(self.slice, size, index);
        (
            WindowsProducer { slice: left, size },
            WindowsProducer { slice: right, size },
        )
    }
}

/// Parallel iterator over overlapping windows of a constant length `N`, as arrays, from
/// [`par_array_windows`](super::ParallelSlice::par_array_windows).
///
/// ```
/// use weft::prelude::*;
///
/// let rising = [1, 3, 2, 5].par_array_windows().filter(|[a, b]| a < b).count();
/// assert_eq!(rising, 2);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug)]
pub struct ArrayWindows<'data, T, const N: usize> {
    slice: &'data [T],
}

impl<T, const N: usize> Clone for ArrayWindows<'_, T, N> {
    fn clone(&self) -> Self {
        ArrayWindows { ..*self }
    }
}

impl<'data, T: Sync, const N: usize> ArrayWindows<'data, T, N> {
    pub(super) fn new(slice: &'data [T]) -> Self {
        assert!(
            N != 0,
            "par_array_windows: the window length N must not be zero"
        );
        ArrayWindows { slice }
    }
}

impl<'data, T: Sync, const N: usize> ParallelIterator for ArrayWindows<'data, T, N> {
    type Item = &'data [T; N];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'data, T: Sync, const N: usize> IndexedParallelIterator for ArrayWindows<'data, T, N> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        window_count(self.slice.len(), N)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(ArrayWindowsIter::<T, N> { slice: self.slice })
    }
}

/// Both the producer and its sequential iterator: `slice` spans exactly the remaining
/// windows, so window `i` is `slice[i..i + N]` and pieces overlap by `N - 1`.
struct ArrayWindowsIter<'data, T, const N: usize> {
    slice: &'data [T],
}

impl<'data, T, const N: usize> Iterator for ArrayWindowsIter<'data, T, N> {
    type Item = &'data [T; N];

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let window = self.slice.first_chunk::<N>()?;
        self.slice = &self.slice[1..];
        Some(window)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = window_count(self.slice.len(), N);
        (len, Some(len))
    }
}

impl<T, const N: usize> DoubleEndedIterator for ArrayWindowsIter<'_, T, N> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        let window = self.slice.last_chunk::<N>()?;
        self.slice = &self.slice[..self.slice.len() - 1];
        Some(window)
    }
}

impl<T, const N: usize> ExactSizeIterator for ArrayWindowsIter<'_, T, N> {}

impl<'data, T: Sync, const N: usize> Producer for ArrayWindowsIter<'data, T, N> {
    type Item = &'data [T; N];
    type IntoIter = Self;
    const INERT: bool = true;

    fn into_iter(self) -> Self {
        self
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = split_windows(self.slice, N, index);
        (
            ArrayWindowsIter { slice: left },
            ArrayWindowsIter { slice: right },
        )
    }
}
