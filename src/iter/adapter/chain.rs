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

    fn into_iter(self) -> Self::IntoIter {
        ChainIter {
            inner: self.a.into_iter().chain(self.b.into_iter()),
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

/// `std::iter::Chain` with the exact length both halves know.
struct ChainIter<A, B> {
    inner: std::iter::Chain<A, B>,
}

impl<A, B> Iterator for ChainIter<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn next(&mut self) -> Option<A::Item> {
        self.inner.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }

    fn fold<Acc, G: FnMut(Acc, A::Item) -> Acc>(self, init: Acc, g: G) -> Acc {
        self.inner.fold(init, g)
    }
}

impl<A, B> DoubleEndedIterator for ChainIter<A, B>
where
    A: DoubleEndedIterator + ExactSizeIterator,
    B: DoubleEndedIterator + ExactSizeIterator<Item = A::Item>,
{
    fn next_back(&mut self) -> Option<A::Item> {
        self.inner.next_back()
    }

    fn rfold<Acc, G: FnMut(Acc, A::Item) -> Acc>(self, init: Acc, g: G) -> Acc {
        self.inner.rfold(init, g)
    }
}

impl<A, B> ExactSizeIterator for ChainIter<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
}
