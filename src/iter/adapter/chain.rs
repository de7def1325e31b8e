//! `chain`: the items of `a`, then those of `b`. Indexed when both are: the producer splits
//! whichever side holds the index. Unindexed: the two sides are driven side by side with
//! a consumer split off for `a` (split at `a`'s length when known, which keeps collecting
//! into a buffer exact), and the results reduced.

use crate::drive::fork;
use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`ParallelIterator::chain`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = (0..2).into_par_iter().chain(vec![7, 8]).collect();
/// assert_eq!(v, [0, 1, 7, 8]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Chain<A, B> {
    a: A,
    b: B,
}

impl<A, B> Chain<A, B> {
    pub(crate) fn new(a: A, b: B) -> Self {
        Chain { a, b }
    }
}

impl<A, B> ParallelIterator for Chain<A, B>
where
    A: ParallelIterator,
    B: ParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn drive_unindexed<C: UnindexedConsumer<A::Item>>(self, consumer: C) -> C::Result {
        let (left, right, reducer) = match (self.a.opt_len(), self.b.opt_len()) {
            (Some(a_len), Some(b_len)) if a_len.checked_add(b_len).is_some() => {
                consumer.split_at_sized(a_len, a_len + b_len)
            }
            (Some(a_len), _) => consumer.split_at(a_len),
            (None, _) => {
                let reducer = consumer.to_reducer();
                (consumer.split_off_left(), consumer, reducer)
            }
        };
        let (a, b) = (self.a, self.b);
        let (left, right) = fork(|| a.drive_unindexed(left), || b.drive_unindexed(right));
        reducer.reduce(left, right)
    }

    fn opt_len(&self) -> Option<usize> {
        self.a.opt_len()?.checked_add(self.b.opt_len()?)
    }
}

impl<A, B> IndexedParallelIterator for Chain<A, B>
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
            .expect("chain: length overflows usize")
    }

    fn with_producer<CB: ProducerCallback<A::Item>>(self, callback: CB) -> CB::Output {
        let a_len = self.a.len();
        self.a.with_producer(OuterCallback {
            callback,
            b: self.b,
            a_len,
        })
    }
}

struct OuterCallback<CB, B> {
    callback: CB,
    b: B,
    a_len: usize,
}

impl<CB, B> ProducerCallback<B::Item> for OuterCallback<CB, B>
where
    B: IndexedParallelIterator,
    CB: ProducerCallback<B::Item>,
{
    type Output = CB::Output;

    fn callback<A: Producer<Item = B::Item>>(self, a: A) -> CB::Output {
        let a_len = self.a_len;
        self.b.with_producer(InnerCallback {
            callback: self.callback,
            a,
            a_len,
        })
    }
}

struct InnerCallback<CB, A> {
    callback: CB,
    a: A,
    a_len: usize,
}

impl<CB, A> ProducerCallback<A::Item> for InnerCallback<CB, A>
where
    A: Producer,
    CB: ProducerCallback<A::Item>,
{
    type Output = CB::Output;

    fn callback<B: Producer<Item = A::Item>>(self, b: B) -> CB::Output {
        self.callback.callback(ChainProducer {
            a: self.a,
            b,
            a_len: self.a_len,
        })
    }
}

/// `a` holds the first `a_len` items.
struct ChainProducer<A, B> {
    a: A,
    b: B,
    a_len: usize,
}

impl<A, B> Producer for ChainProducer<A, B>
where
    A: Producer,
    B: Producer<Item = A::Item>,
{
    type Item = A::Item;
    type IntoIter = ChainIter<A::IntoIter, B::IntoIter>;
    const INERT: bool = A::INERT && B::INERT;

    fn into_iter(self) -> Self::IntoIter {
        ChainIter {
            a: Some(self.a.into_iter()),
            b: Some(self.b.into_iter()),
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
        if index <= self.a_len {
            let (a_left, a_right) = self.a.split_at(index);
            let (b_left, b_right) = self.b.split_at(0);
            let left = ChainProducer {
                a: a_left,
                b: b_left,
                a_len: index,
            };
            (
                left,
                ChainProducer {
                    a: a_right,
                    b: b_right,
                    a_len: self.a_len - index,
                },
            )
        } else {
            let (a_left, a_right) = self.a.split_at(self.a_len);
            let (b_left, b_right) = self.b.split_at(index - self.a_len);
            let left = ChainProducer {
                a: a_left,
                b: b_left,
                a_len: self.a_len,
            };
            (
                left,
                ChainProducer {
                    a: a_right,
                    b: b_right,
                    a_len: 0,
                },
            )
        }
    }

    fn fold_with<F: Folder<A::Item>>(self, folder: F) -> F {
        let folder = self.a.fold_with(folder);
        if folder.full() {
            return folder;
        }
        self.b.fold_with(folder)
    }
}

/// `std::iter::Chain` with the exact length both halves know, which also lets `nth` jump:
/// std's `Chain` skips through its first half with `advance_by`, which iterators outside std
/// (weft's ranges) can only implement one item at a time. A half is dropped (`None`) once
/// exhausted, as in std.
struct ChainIter<A, B> {
    a: Option<A>,
    b: Option<B>,
}

impl<A, B> Iterator for ChainIter<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn next(&mut self) -> Option<A::Item> {
        if let Some(a) = &mut self.a {
            match a.next() {
                None => self.a = None,
                item => return item,
            }
        }
        self.b.as_mut()?.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.a.as_ref().map_or(0, A::len) + self.b.as_ref().map_or(0, B::len);
        (len, Some(len))
    }

    /// Each half's own `nth`: O(1) on ranges and slices. Skipped items of `a` are still
    /// produced by `a.nth` when `a` has side effects (a `map`), as they would be one by one.
    fn nth(&mut self, mut n: usize) -> Option<A::Item> {
        if let Some(a) = &mut self.a {
            let len = a.len();
            if n < len {
                return a.nth(n);
            }
            if len > 0 {
                a.nth(len - 1);
            }
            n -= len;
            self.a = None;
        }
        self.b.as_mut()?.nth(n)
    }

    fn fold<Acc, G: FnMut(Acc, A::Item) -> Acc>(self, init: Acc, mut g: G) -> Acc {
        let acc = match self.a {
            Some(a) => a.fold(init, &mut g),
            None => init,
        };
        match self.b {
            Some(b) => b.fold(acc, g),
            None => acc,
        }
    }
}

impl<A, B> DoubleEndedIterator for ChainIter<A, B>
where
    A: DoubleEndedIterator + ExactSizeIterator,
    B: DoubleEndedIterator + ExactSizeIterator<Item = A::Item>,
{
    fn next_back(&mut self) -> Option<A::Item> {
        if let Some(b) = &mut self.b {
            match b.next_back() {
                None => self.b = None,
                item => return item,
            }
        }
        self.a.as_mut()?.next_back()
    }

    /// As `nth`, from the back.
    fn nth_back(&mut self, mut n: usize) -> Option<A::Item> {
        if let Some(b) = &mut self.b {
            let len = b.len();
            if n < len {
                return b.nth_back(n);
            }
            if len > 0 {
                b.nth_back(len - 1);
            }
            n -= len;
            self.b = None;
        }
        self.a.as_mut()?.nth_back(n)
    }

    fn rfold<Acc, G: FnMut(Acc, A::Item) -> Acc>(self, init: Acc, mut g: G) -> Acc {
        let acc = match self.b {
            Some(b) => b.rfold(init, &mut g),
            None => init,
        };
        match self.a {
            Some(a) => a.rfold(acc, g),
            None => acc,
        }
    }
}

impl<A, B> ExactSizeIterator for ChainIter<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
}
