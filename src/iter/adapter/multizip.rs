//! Tuples of indexed parallel iterables zip into a parallel iterator of tuples (Rayon's
//! `MultiZip`): `(a, b, c).into_par_iter()` is `a.zip(b).zip(c)` with the nesting undone.

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// The iterator over a tuple of indexed parallel iterators, from `into_par_iter()` on the
/// tuple; as long as the shortest.
///
/// ```
/// use weft::prelude::*;
///
/// let a = [1, 2, 3];
/// let v: Vec<(&i32, char, usize)> = (&a, vec!['x', 'y', 'z'], 0..3).into_par_iter().collect();
/// assert_eq!(v, [(&1, 'x', 0), (&2, 'y', 1), (&3, 'z', 2)]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct MultiZip<T> {
    tuple: T,
}

impl<A, B> IntoParallelIterator for (A, B)
where
    A: IntoParallelIterator,
    A::Iter: IndexedParallelIterator,
    B: IntoParallelIterator,
    B::Iter: IndexedParallelIterator,
{
    type Iter = MultiZip<(A::Iter, B::Iter)>;
    type Item = (A::Item, B::Item);

    fn into_par_iter(self) -> Self::Iter {
        MultiZip {
            tuple: (self.0.into_par_iter(), self.1.into_par_iter()),
        }
    }
}

impl<A, B, C> IntoParallelIterator for (A, B, C)
where
    A: IntoParallelIterator,
    A::Iter: IndexedParallelIterator,
    B: IntoParallelIterator,
    B::Iter: IndexedParallelIterator,
    C: IntoParallelIterator,
    C::Iter: IndexedParallelIterator,
{
    type Iter = MultiZip<(A::Iter, B::Iter, C::Iter)>;
    type Item = (A::Item, B::Item, C::Item);

    fn into_par_iter(self) -> Self::Iter {
        let (a, b, c) = self;
        MultiZip {
            tuple: (a.into_par_iter(), b.into_par_iter(), c.into_par_iter()),
        }
    }
}

impl<A, B> ParallelIterator for MultiZip<(A, B)>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    type Item = (A::Item, B::Item);

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A, B> IndexedParallelIterator for MultiZip<(A, B)>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        Ord::min(self.tuple.0.len(), self.tuple.1.len())
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let (a, b) = self.tuple;
        a.zip(b).with_producer(callback)
    }
}

fn flatten3<A, B, C>(((a, b), c): ((A, B), C)) -> (A, B, C) {
    (a, b, c)
}

impl<A, B, C> ParallelIterator for MultiZip<(A, B, C)>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
    C: IndexedParallelIterator,
{
    type Item = (A::Item, B::Item, C::Item);

    fn drive_unindexed<CO: UnindexedConsumer<Self::Item>>(self, consumer: CO) -> CO::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A, B, C> IndexedParallelIterator for MultiZip<(A, B, C)>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
    C: IndexedParallelIterator,
{
    fn drive<CO: Consumer<Self::Item>>(self, consumer: CO) -> CO::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        let (a, b, c) = &self.tuple;
        a.len().min(b.len()).min(c.len())
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let (a, b, c) = self.tuple;
        a.zip(b).zip(c).map(flatten3).with_producer(callback)
    }
}
