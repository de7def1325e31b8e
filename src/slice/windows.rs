//! `par_windows`: overlapping windows; window `i` is `slice[i..i + size]`.

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

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
        (self.slice.len() + 1).saturating_sub(self.size)
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

    fn into_iter(self) -> Self::IntoIter {
        self.slice.windows(self.size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let left_end = Ord::min(index + self.size - 1, self.slice.len());
        let right_start = Ord::min(index, self.slice.len());
        let size = self.size;
        let left = WindowsProducer {
            slice: &self.slice[..left_end],
            size,
        };
        (
            left,
            WindowsProducer {
                slice: &self.slice[right_start..],
                size,
            },
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
        (self.slice.len() + 1).saturating_sub(N)
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
        let len = (self.slice.len() + 1).saturating_sub(N);
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

    fn into_iter(self) -> Self {
        self
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let left_end = Ord::min(index + N - 1, self.slice.len());
        let right_start = Ord::min(index, self.slice.len());
        (
            ArrayWindowsIter {
                slice: &self.slice[..left_end],
            },
            ArrayWindowsIter {
                slice: &self.slice[right_start..],
            },
        )
    }
}
