//! `&[T]` and `&mut [T]` (and so `&Vec<T>`, `&[T; N]`, `&Box<[T]>`): producers that split the slice.

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// A parallel iterator over `&T`, from `par_iter()` on a slice, `Vec` or array.
///
/// ```
/// use weft::prelude::*;
///
/// let v = vec![3, 1, 4, 1, 5];
/// assert_eq!(v.par_iter().max(), Some(&5));
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug)]
pub struct Iter<'data, T> {
    slice: &'data [T],
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter { slice: self.slice }
    }
}

/// A parallel iterator over `&mut T`, from `par_iter_mut()` on a slice, `Vec` or array.
///
/// ```
/// use weft::prelude::*;
///
/// let mut v = vec![1, 2, 3];
/// v.par_iter_mut().for_each(|x| *x = -*x);
/// assert_eq!(v, [-1, -2, -3]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug)]
pub struct IterMut<'data, T> {
    slice: &'data mut [T],
}

impl<'data, T: Sync + 'data> IntoParallelIterator for &'data [T] {
    type Iter = Iter<'data, T>;
    type Item = &'data T;

    fn into_par_iter(self) -> Iter<'data, T> {
        Iter { slice: self }
    }
}

impl<'data, T: Sync + 'data> IntoParallelIterator for &'data Vec<T> {
    type Iter = Iter<'data, T>;
    type Item = &'data T;

    fn into_par_iter(self) -> Iter<'data, T> {
        Iter { slice: self }
    }
}

impl<'data, T: Sync + 'data, const N: usize> IntoParallelIterator for &'data [T; N] {
    type Iter = Iter<'data, T>;
    type Item = &'data T;

    fn into_par_iter(self) -> Iter<'data, T> {
        Iter { slice: self }
    }
}

impl<'data, T: Send + 'data> IntoParallelIterator for &'data mut [T] {
    type Iter = IterMut<'data, T>;
    type Item = &'data mut T;

    fn into_par_iter(self) -> IterMut<'data, T> {
        IterMut { slice: self }
    }
}

impl<'data, T: Send + 'data> IntoParallelIterator for &'data mut Vec<T> {
    type Iter = IterMut<'data, T>;
    type Item = &'data mut T;

    fn into_par_iter(self) -> IterMut<'data, T> {
        IterMut { slice: self }
    }
}

impl<'data, T: Send + 'data, const N: usize> IntoParallelIterator for &'data mut [T; N] {
    type Iter = IterMut<'data, T>;
    type Item = &'data mut T;

    fn into_par_iter(self) -> IterMut<'data, T> {
        IterMut { slice: self }
    }
}

/// `par_iter()` on a boxed slice, as on the slice it owns.
///
/// ```
/// use weft::prelude::*;
///
/// let b: Box<[u32]> = vec![1, 2, 3].into_boxed_slice();
/// let it: weft::slice::Iter<'_, u32> = (&b).into_par_iter();
/// assert_eq!(it.sum::<u32>(), 6);
/// ```
impl<'data, T: Sync + 'data> IntoParallelIterator for &'data Box<[T]> {
    type Iter = Iter<'data, T>;
    type Item = &'data T;

    fn into_par_iter(self) -> Iter<'data, T> {
        Iter { slice: self }
    }
}

/// `par_iter_mut()` on a boxed slice, as on the slice it owns.
///
/// ```
/// use weft::prelude::*;
///
/// let mut b: Box<[u32]> = vec![1, 2, 3].into_boxed_slice();
/// (&mut b).into_par_iter().for_each(|x| *x *= 10);
/// assert_eq!(&*b, &[10, 20, 30]);
/// ```
impl<'data, T: Send + 'data> IntoParallelIterator for &'data mut Box<[T]> {
    type Iter = IterMut<'data, T>;
    type Item = &'data mut T;

    fn into_par_iter(self) -> IterMut<'data, T> {
        IterMut { slice: self }
    }
}

impl<'data, T: Sync + 'data> ParallelIterator for Iter<'data, T> {
    type Item = &'data T;

    #[inline]
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.slice.len())
    }
}

impl<'data, T: Sync + 'data> IndexedParallelIterator for Iter<'data, T> {
    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.slice.len()
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(SliceProducer { slice: self.slice })
    }
}

impl<'data, T: Send + 'data> ParallelIterator for IterMut<'data, T> {
    type Item = &'data mut T;

    #[inline]
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.slice.len())
    }
}

impl<'data, T: Send + 'data> IndexedParallelIterator for IterMut<'data, T> {
    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.slice.len()
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(SliceMutProducer { slice: self.slice })
    }
}

/// Splits a shared slice.
pub(crate) struct SliceProducer<'data, T> {
    pub(crate) slice: &'data [T],
}

impl<'data, T: Sync + 'data> Producer for SliceProducer<'data, T> {
    type Item = &'data T;
    type IntoIter = std::slice::Iter<'data, T>;
    const INERT: bool = true;
    // SAFETY: std's slice iterator reports the items between its two ends as its length
    // and yields each of them once from `next`.
    const EXACT_LEN: Option<ExactLen<Self::IntoIter>> = Some(unsafe { ExactLen::new() });

    fn into_iter(self) -> Self::IntoIter {
        self.slice.iter()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split_at(index);
        (
            SliceProducer { slice: left },
            SliceProducer { slice: right },
        )
    }

    fn duplicate(&self) -> Option<Self> {
        Some(SliceProducer { slice: self.slice })
    }
}

/// Splits an exclusive slice.
struct SliceMutProducer<'data, T> {
    slice: &'data mut [T],
}

impl<'data, T: Send + 'data> Producer for SliceMutProducer<'data, T> {
    type Item = &'data mut T;
    type IntoIter = std::slice::IterMut<'data, T>;
    const INERT: bool = true;
    // SAFETY: as for `std::slice::Iter` above.
    const EXACT_LEN: Option<ExactLen<Self::IntoIter>> = Some(unsafe { ExactLen::new() });

    fn into_iter(self) -> Self::IntoIter {
        self.slice.iter_mut()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split_at_mut(index);
        (
            SliceMutProducer { slice: left },
            SliceMutProducer { slice: right },
        )
    }
}
