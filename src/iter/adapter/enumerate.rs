//! `enumerate`: pairs each item with its index. The producer remembers the index of its
//! first item, so each piece numbers its items without coordination.

use std::ops::Range;

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`IndexedParallelIterator::enumerate`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<(usize, char)> = ['a', 'b'].par_iter().copied().enumerate().collect();
/// assert_eq!(v, [(0, 'a'), (1, 'b')]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Enumerate<I> {
    base: I,
}

impl<I> Enumerate<I> {
    pub(crate) fn new(base: I) -> Self {
        Enumerate { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Enumerate<I> {
    type Item = (usize, I::Item);

    #[inline]
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Enumerate<I> {
    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(EnumerateCallback { callback })
    }
}

struct EnumerateCallback<CB> {
    callback: CB,
}

impl<T, CB> ProducerCallback<T> for EnumerateCallback<CB>
where
    CB: ProducerCallback<(usize, T)>,
{
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback
            .callback(EnumerateProducer { base, offset: 0 })
    }
}

/// `offset` is the index of the first item of `base`.
struct EnumerateProducer<P> {
    base: P,
    offset: usize,
}

impl<P: Producer> Producer for EnumerateProducer<P> {
    type Item = (usize, P::Item);
    type IntoIter = std::iter::Zip<Range<usize>, P::IntoIter>;
    const INERT: bool = P::INERT;
    // SAFETY: `into_iter` zips the base with a range of exactly its length, and std's `Zip`
    // yields pairs while both sides do and reports the shorter length; a `Range<usize>`
    // yields its length.
    const EXACT_LEN: Option<ExactLen<Self::IntoIter>> = unsafe { ExactLen::carried(&P::EXACT_LEN) };

    fn into_iter(self) -> Self::IntoIter {
        let base = self.base.into_iter();
        let end = self.offset + base.len();
        (self.offset..end).zip(base)
    }

    super::lengths_from_base!();

    fn duplicate(&self) -> Option<Self> {
        Some(EnumerateProducer {
            base: self.base.duplicate()?,
            offset: self.offset,
        })
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let left = EnumerateProducer {
            base: left,
            offset: self.offset,
        };
        (
            left,
            EnumerateProducer {
                base: right,
                offset: self.offset + index,
            },
        )
    }

    /// The leaf loop is the base's own `fold` with a counter, as std's `enumerate` does; the
    /// zip with a range in `into_iter` tests both sides for the end at every item.
    fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        let mut index = self.offset;
        folder.consume_iter(self.base.into_iter().map(move |item| {
            let numbered = (index, item);
            index += 1;
            numbered
        }))
    }
}
