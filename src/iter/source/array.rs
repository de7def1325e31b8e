//! `[T; N]` by value: the array's items move out through a [`DrainProducer`].

use std::mem::ManuallyDrop;

use crate::iter::plumbing::*;
use crate::iter::source::vec::DrainProducer;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// A parallel iterator that moves the items out of an array.
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<String> = [String::from("x"), String::from("y")].into_par_iter().collect();
/// assert_eq!(v, ["x", "y"]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct IntoIter<T, const N: usize> {
    array: [T; N],
}

impl<T: Send, const N: usize> IntoParallelIterator for [T; N] {
    type Iter = IntoIter<T, N>;
    type Item = T;

    fn into_par_iter(self) -> IntoIter<T, N> {
        IntoIter { array: self }
    }
}

impl<T: Send, const N: usize> ParallelIterator for IntoIter<T, N> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(N)
    }
}

impl<T: Send, const N: usize> IndexedParallelIterator for IntoIter<T, N> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        N
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let mut array = ManuallyDrop::new(self.array);
        // SAFETY: the array is never dropped (ManuallyDrop) and not used after this, so the
        // producer becomes the only owner of its items.
        let producer = unsafe { DrainProducer::new(&mut array[..]) };
        callback.callback(producer)
    }
}
