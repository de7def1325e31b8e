//! `interleave`: `a0, b0, a1, b1, …`, then the rest of the longer side. A piece is
//! `(a, b, a_first)`; splitting at `i` gives `a` the first `ceil(i / 2)` or `floor(i / 2)`
//! places of the alternation (all of them once `b` runs out), and `b` the rest.

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator, Take};

/// The iterator returned by [`IndexedParallelIterator::interleave`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = vec![1, 3, 5, 7].into_par_iter().interleave(vec![2, 4]).collect();
/// assert_eq!(v, [1, 2, 3, 4, 5, 7]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Interleave<A, B> {
    a: A,
    b: B,
}

impl<A, B> Interleave<A, B> {
    pub(crate) fn new(a: A, b: B) -> Self {
        Interleave { a, b }
    }
}

impl<A, B> ParallelIterator for Interleave<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn drive_unindexed<C: UnindexedConsumer<A::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A, B> IndexedParallelIterator for Interleave<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    fn drive<C: Consumer<A::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.a
            .len()
            .checked_add(self.b.len())
            .expect("interleave: length overflows usize")
    }

    fn with_producer<CB: ProducerCallback<A::Item>>(self, callback: CB) -> CB::Output {
        let (a_len, b_len) = (self.a.len(), self.b.len());
        self.a.with_producer(OuterCallback {
            callback,
            b: self.b,
            a_len,
            b_len,
        })
    }
}

struct OuterCallback<CB, B> {
    callback: CB,
    b: B,
    a_len: usize,
    b_len: usize,
}

impl<CB, B> ProducerCallback<B::Item> for OuterCallback<CB, B>
where
    B: IndexedParallelIterator,
    CB: ProducerCallback<B::Item>,
{
    type Output = CB::Output;

    fn callback<A: Producer<Item = B::Item>>(self, a: A) -> CB::Output {
        let (a_len, b_len, callback) = (self.a_len, self.b_len, self.callback);
        self.b.with_producer(InnerCallback {
            callback,
            a,
            a_len,
            b_len,
        })
    }
}

struct InnerCallback<CB, A> {
    callback: CB,
    a: A,
    a_len: usize,
    b_len: usize,
}

impl<CB, A> ProducerCallback<A::Item> for InnerCallback<CB, A>
where
    A: Producer,
    CB: ProducerCallback<A::Item>,
{
    type Output = CB::Output;

    fn callback<B: Producer<Item = A::Item>>(self, b: B) -> CB::Output {
        let producer = InterleaveProducer {
            a: self.a,
            b,
            a_len: self.a_len,
            b_len: self.b_len,
            a_first: true,
        };
        self.callback.callback(producer)
    }
}

/// Pieces of `a` and `b`, alternating from `a` if `a_first`.
struct InterleaveProducer<A, B> {
    a: A,
    b: B,
    a_len: usize,
    b_len: usize,
    a_first: bool,
}

/// How many of the first `index` places go to the side that starts, given the lengths.
#[inline]
fn taken_by_first(index: usize, first_len: usize, second_len: usize) -> usize {
    let alternating = index.div_ceil(2);
    Ord::min(
        first_len,
        Ord::max(alternating, index.saturating_sub(second_len)),
    )
}

impl<A, B> Producer for InterleaveProducer<A, B>
where
    A: Producer,
    B: Producer<Item = A::Item>,
{
    type Item = A::Item;
    type IntoIter = InterleaveIter<A::IntoIter, B::IntoIter>;
    const INERT: bool = A::INERT && B::INERT;

    fn into_iter(self) -> Self::IntoIter {
        InterleaveIter {
            a: self.a.into_iter(),
            b: self.b.into_iter(),
            a_next: self.a_first,
        }
    }

    fn min_len(&self) -> usize {
        Ord::max(self.a.min_len(), self.b.min_len())
    }

    fn max_len(&self) -> usize {
        Ord::min(self.a.max_len(), self.b.max_len())
    }

    fn split_tree(&self) -> crate::plumbing::SplitTree {
        self.a.split_tree().or(self.b.split_tree())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (a_index, b_index) = if self.a_first {
            let a_index = taken_by_first(index, self.a_len, self.b_len);
            (a_index, index - a_index)
        } else {
            let b_index = taken_by_first(index, self.b_len, self.a_len);
            (index - b_index, b_index)
        };
        let (a_left, a_right) = self.a.split_at(a_index);
        let (b_left, b_right) = self.b.split_at(b_index);
        let right_a_first = self.a_first == (index % 2 == 0);
        let left = InterleaveProducer {
            a: a_left,
            b: b_left,
            a_len: a_index,
            b_len: b_index,
            a_first: self.a_first,
        };
        let right = InterleaveProducer {
            a: a_right,
            b: b_right,
            a_len: self.a_len - a_index,
            b_len: self.b_len - b_index,
            a_first: right_a_first,
        };
        (left, right)
    }
}

/// Alternates between `a` and `b`, starting with `a` if `a_next`.
struct InterleaveIter<A, B> {
    a: A,
    b: B,
    a_next: bool,
}

impl<A, B> Iterator for InterleaveIter<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn next(&mut self) -> Option<A::Item> {
        let from_a = if self.a_next {
            self.a.len() > 0
        } else {
            self.b.len() == 0
        };
        self.a_next = !from_a;
        if from_a {
            self.a.next()
        } else {
            self.b.next()
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.a.len() + self.b.len();
        (len, Some(len))
    }
}

impl<A, B> DoubleEndedIterator for InterleaveIter<A, B>
where
    A: DoubleEndedIterator + ExactSizeIterator,
    B: DoubleEndedIterator + ExactSizeIterator<Item = A::Item>,
{
    fn next_back(&mut self) -> Option<A::Item> {
        // The last item comes from the longer side; on a tie, from the side that goes second.
        let (a_len, b_len) = (self.a.len(), self.b.len());
        let from_a = match a_len.cmp(&b_len) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => !self.a_next,
        };
        if from_a {
            self.a.next_back()
        } else {
            self.b.next_back()
        }
    }
}

impl<A, B> ExactSizeIterator for InterleaveIter<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
}

/// The iterator returned by [`IndexedParallelIterator::interleave_shortest`]: an
/// [`Interleave`] of both sides cut so that it stops when either runs out.
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = (0..2).into_par_iter().interleave_shortest(10..20).collect();
/// assert_eq!(v, [0, 10, 1, 11]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct InterleaveShortest<A, B> {
    inner: Interleave<Take<A>, Take<B>>,
}

impl<A, B> InterleaveShortest<A, B> {
    pub(crate) fn new(inner: Interleave<Take<A>, Take<B>>) -> Self {
        InterleaveShortest { inner }
    }
}

impl<A, B> ParallelIterator for InterleaveShortest<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn drive_unindexed<C: UnindexedConsumer<A::Item>>(self, consumer: C) -> C::Result {
        self.inner.drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.inner.len())
    }
}

impl<A, B> IndexedParallelIterator for InterleaveShortest<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    fn drive<C: Consumer<A::Item>>(self, consumer: C) -> C::Result {
        self.inner.drive(consumer)
    }

    fn len(&self) -> usize {
        self.inner.len()
    }

    fn with_producer<CB: ProducerCallback<A::Item>>(self, callback: CB) -> CB::Output {
        self.inner.with_producer(callback)
    }
}
