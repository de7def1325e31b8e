//! The std collections other than `Vec`, by value, by reference and by mutable reference.
//!
//! `VecDeque` and `BinaryHeap` expose slices and split them directly. The hash and tree
//! collections and `LinkedList` cannot be split without walking them, so their items (or
//! references to them) are first gathered into a `Vec`, which then splits freely; the walk
//! is sequential, the work on the items is parallel.

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::mem;
use std::ops::RangeBounds;

use crate::iter::source::slice::{Iter as SliceIter, IterMut as SliceIterMut};
use crate::iter::source::vec::{resolve_range, IntoIter as VecIntoIter};
use crate::iter::{
    Chain, IntoParallelIterator, ParallelDrainFull, ParallelDrainRange, ParallelIterator,
};

/// Gathers a sequential iterator's items into a `Vec` to iterate them in parallel.
fn gathered<I>(iter: I) -> VecIntoIter<I::Item>
where
    I: Iterator,
    I::Item: Send,
{
    iter.collect::<Vec<_>>().into_par_iter()
}

impl<K: Send, V: Send, S> IntoParallelIterator for HashMap<K, V, S> {
    type Iter = VecIntoIter<(K, V)>;
    type Item = (K, V);

    fn into_par_iter(self) -> Self::Iter {
        gathered(self.into_iter())
    }
}

impl<'a, K: Sync, V: Sync, S> IntoParallelIterator for &'a HashMap<K, V, S> {
    type Iter = VecIntoIter<(&'a K, &'a V)>;
    type Item = (&'a K, &'a V);

    fn into_par_iter(self) -> Self::Iter {
        gathered(self.iter())
    }
}

impl<'a, K: Sync, V: Send, S> IntoParallelIterator for &'a mut HashMap<K, V, S> {
    type Iter = VecIntoIter<(&'a K, &'a mut V)>;
    type Item = (&'a K, &'a mut V);

    fn into_par_iter(self) -> Self::Iter {
        gathered(self.iter_mut())
    }
}

impl<K: Send, V: Send, S> ParallelDrainFull for &mut HashMap<K, V, S> {
    type Iter = VecIntoIter<(K, V)>;
    type Item = (K, V);

    fn par_drain(self) -> Self::Iter {
        gathered(self.drain())
    }
}

impl<T: Send, S> IntoParallelIterator for HashSet<T, S> {
    type Iter = VecIntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> Self::Iter {
        gathered(self.into_iter())
    }
}

impl<'a, T: Sync, S> IntoParallelIterator for &'a HashSet<T, S> {
    type Iter = VecIntoIter<&'a T>;
    type Item = &'a T;

    fn into_par_iter(self) -> Self::Iter {
        gathered(self.iter())
    }
}

impl<T: Send, S> ParallelDrainFull for &mut HashSet<T, S> {
    type Iter = VecIntoIter<T>;
    type Item = T;

    fn par_drain(self) -> Self::Iter {
        gathered(self.drain())
    }
}

impl<K: Send, V: Send> IntoParallelIterator for BTreeMap<K, V> {
    type Iter = VecIntoIter<(K, V)>;
    type Item = (K, V);

    fn into_par_iter(self) -> Self::Iter {
        gathered(self.into_iter())
    }
}

impl<'a, K: Sync, V: Sync> IntoParallelIterator for &'a BTreeMap<K, V> {
    type Iter = VecIntoIter<(&'a K, &'a V)>;
    type Item = (&'a K, &'a V);

    fn into_par_iter(self) -> Self::Iter {
        gathered(self.iter())
    }
}

impl<'a, K: Sync, V: Send> IntoParallelIterator for &'a mut BTreeMap<K, V> {
    type Iter = VecIntoIter<(&'a K, &'a mut V)>;
    type Item = (&'a K, &'a mut V);

    fn into_par_iter(self) -> Self::Iter {
        gathered(self.iter_mut())
    }
}

impl<T: Send> IntoParallelIterator for BTreeSet<T> {
    type Iter = VecIntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> Self::Iter {
        gathered(self.into_iter())
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a BTreeSet<T> {
    type Iter = VecIntoIter<&'a T>;
    type Item = &'a T;

    fn into_par_iter(self) -> Self::Iter {
        gathered(self.iter())
    }
}

impl<T: Send> IntoParallelIterator for LinkedList<T> {
    type Iter = VecIntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> Self::Iter {
        gathered(self.into_iter())
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a LinkedList<T> {
    type Iter = VecIntoIter<&'a T>;
    type Item = &'a T;

    fn into_par_iter(self) -> Self::Iter {
        gathered(self.iter())
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut LinkedList<T> {
    type Iter = VecIntoIter<&'a mut T>;
    type Item = &'a mut T;

    fn into_par_iter(self) -> Self::Iter {
        gathered(self.iter_mut())
    }
}

impl<T: Send> IntoParallelIterator for VecDeque<T> {
    type Iter = VecIntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> Self::Iter {
        Vec::from(self).into_par_iter()
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a VecDeque<T> {
    type Iter = Chain<SliceIter<'a, T>, SliceIter<'a, T>>;
    type Item = &'a T;

    fn into_par_iter(self) -> Self::Iter {
        let (front, back) = self.as_slices();
        front.into_par_iter().chain(back)
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut VecDeque<T> {
    type Iter = Chain<SliceIterMut<'a, T>, SliceIterMut<'a, T>>;
    type Item = &'a mut T;

    fn into_par_iter(self) -> Self::Iter {
        let (front, back) = self.as_mut_slices();
        front.into_par_iter().chain(back)
    }
}

impl<T: Send> ParallelDrainRange<usize> for &mut VecDeque<T> {
    type Iter = VecIntoIter<T>;
    type Item = T;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Self::Iter {
        let range = resolve_range(range, self.len());
        gathered(self.drain(range))
    }
}

impl<T: Send> IntoParallelIterator for BinaryHeap<T> {
    type Iter = VecIntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> Self::Iter {
        self.into_vec().into_par_iter()
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a BinaryHeap<T> {
    type Iter = SliceIter<'a, T>;
    type Item = &'a T;

    fn into_par_iter(self) -> Self::Iter {
        self.as_slice().into_par_iter()
    }
}

impl<T: Send> ParallelDrainFull for &mut BinaryHeap<T> {
    type Iter = VecIntoIter<T>;
    type Item = T;

    fn par_drain(self) -> Self::Iter {
        // The items leave in their buffer, without a copy; the heap keeps a buffer of the
        // same capacity, as a drain in place would (Rayon documents that it does).
        let items = mem::take(self).into_vec();
        *self = BinaryHeap::with_capacity(items.capacity());
        items.into_par_iter()
    }
}

impl ParallelDrainRange<usize> for &mut String {
    type Iter = VecIntoIter<char>;
    type Item = char;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Self::Iter {
        let range = resolve_range(range, self.len());
        gathered(self.drain(range))
    }
}
