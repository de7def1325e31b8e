//! `intersperse`: a clone of `separator` between neighbouring items. A piece knows whether
//! it starts with a separator (`lead`); splitting at output index `i` gives the left side
//! `(i + !lead) / 2` base items, and the right side leads with a separator if `i` lands on
//! one. Unindexed (consumer side): the right half of a split leads with a separator, as in
//! Rayon, which assumes the left half is not empty.

use std::cell::Cell;

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`ParallelIterator::intersperse`].
///
/// ```
/// use weft::prelude::*;
///
/// let s: String = ["a", "b", "c"].par_iter().copied().intersperse(", ").collect();
/// assert_eq!(s, "a, b, c");
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Intersperse<I, T> {
    base: I,
    separator: T,
}

impl<I, T> Intersperse<I, T> {
    pub(crate) fn new(base: I, separator: T) -> Self {
        Intersperse { base, separator }
    }
}

/// The number of output items of a piece with `base_len` items.
fn output_len(base_len: usize, lead: bool) -> usize {
    match base_len {
        0 => 0,
        n => 2 * n - 1 + usize::from(lead),
    }
}

impl<I, T> ParallelIterator for Intersperse<I, T>
where
    I: ParallelIterator<Item = T>,
    T: Clone + Send,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let consumer = IntersperseConsumer {
            base: consumer,
            separator: self.separator,
            lead: Cell::new(false),
        };
        self.base.drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(output_len(self.base.opt_len()?, false))
    }
}

impl<I, T> IndexedParallelIterator for Intersperse<I, T>
where
    I: IndexedParallelIterator<Item = T>,
    T: Clone + Send,
{
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        output_len(self.base.len(), false)
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let base_len = self.base.len();
        let separator = self.separator;
        self.base.with_producer(IntersperseCallback {
            callback,
            separator,
            base_len,
        })
    }
}

struct IntersperseCallback<CB, T> {
    callback: CB,
    separator: T,
    base_len: usize,
}

impl<T, CB> ProducerCallback<T> for IntersperseCallback<CB, T>
where
    CB: ProducerCallback<T>,
    T: Clone + Send,
{
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let producer = IntersperseProducer {
            base,
            separator: self.separator,
            base_len: self.base_len,
            lead: false,
        };
        self.callback.callback(producer)
    }
}

struct IntersperseProducer<P, T> {
    base: P,
    separator: T,
    base_len: usize,
    lead: bool,
}

impl<P, T> Producer for IntersperseProducer<P, T>
where
    P: Producer<Item = T>,
    T: Clone + Send,
{
    type Item = T;
    type IntoIter = IntersperseIter<P::IntoIter, T>;

    fn into_iter(self) -> Self::IntoIter {
        let base = self.base.into_iter();
        IntersperseIter {
            base,
            separator: self.separator,
            front_sep: self.lead,
            back_sep: false,
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let left_base = (index + usize::from(!self.lead)) / 2;
        let (left, right) = self.base.split_at(left_base);
        let right_lead = (index % 2 == 1) ^ self.lead;
        let left = IntersperseProducer {
            base: left,
            separator: self.separator.clone(),
            base_len: left_base,
            lead: self.lead,
        };
        let right = IntersperseProducer {
            base: right,
            separator: self.separator,
            base_len: self.base_len - left_base,
            lead: right_lead,
        };
        (left, right)
    }
}

/// The base items with separators between them (and one in front if `front_sep` starts
/// true). `front_sep`/`back_sep`: a separator is due before the next item from that end.
struct IntersperseIter<I, T> {
    base: I,
    separator: T,
    front_sep: bool,
    back_sep: bool,
}

impl<I, T> Iterator for IntersperseIter<I, T>
where
    I: ExactSizeIterator<Item = T>,
    T: Clone,
{
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.base.len() > 0 {
            if std::mem::replace(&mut self.front_sep, true) {
                self.front_sep = false;
                return Some(self.separator.clone());
            }
            return self.base.next();
        }
        self.middle_separator()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = match self.base.len() {
            0 => usize::from(self.front_sep && self.back_sep),
            n => 2 * n - 1 + usize::from(self.front_sep) + usize::from(self.back_sep),
        };
        (len, Some(len))
    }
}

impl<I, T> IntersperseIter<I, T>
where
    T: Clone,
{
    /// Once the base is empty, one separator remains only if both ends were waiting for it.
    fn middle_separator(&mut self) -> Option<T> {
        let due = self.front_sep && self.back_sep;
        self.front_sep = false;
        self.back_sep = false;
        due.then(|| self.separator.clone())
    }
}

impl<I, T> DoubleEndedIterator for IntersperseIter<I, T>
where
    I: DoubleEndedIterator + ExactSizeIterator<Item = T>,
    T: Clone,
{
    fn next_back(&mut self) -> Option<T> {
        if self.base.len() > 0 {
            if std::mem::replace(&mut self.back_sep, true) {
                self.back_sep = false;
                return Some(self.separator.clone());
            }
            return self.base.next_back();
        }
        self.middle_separator()
    }
}

impl<I, T> ExactSizeIterator for IntersperseIter<I, T>
where
    I: ExactSizeIterator<Item = T>,
    T: Clone,
{
}

/// The consumer side: emits a separator before every item but a piece's first, and before
/// the first too when the piece `lead`s.
struct IntersperseConsumer<C, T> {
    base: C,
    separator: T,
    lead: Cell<bool>,
}

impl<C, T> Consumer<T> for IntersperseConsumer<C, T>
where
    C: Consumer<T>,
    T: Clone + Send,
{
    type Folder = IntersperseFolder<C::Folder, T>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let lead = self.lead.get();
        let (left, right, reducer) = self.base.split_at(output_len(index, lead));
        let left = IntersperseConsumer {
            base: left,
            separator: self.separator.clone(),
            lead: Cell::new(lead),
        };
        let right_lead = lead || index > 0;
        let right = IntersperseConsumer {
            base: right,
            separator: self.separator,
            lead: Cell::new(right_lead),
        };
        (left, right, reducer)
    }

    fn into_folder(self) -> Self::Folder {
        IntersperseFolder {
            base: self.base.into_folder(),
            separator: self.separator,
            lead: self.lead.get(),
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<C, T> UnindexedConsumer<T> for IntersperseConsumer<C, T>
where
    C: UnindexedConsumer<T>,
    T: Clone + Send,
{
    fn split_off_left(&self) -> Self {
        let left = IntersperseConsumer {
            base: self.base.split_off_left(),
            separator: self.separator.clone(),
            lead: Cell::new(self.lead.get()),
        };
        self.lead.set(true);
        left
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct IntersperseFolder<C, T> {
    base: C,
    separator: T,
    lead: bool,
}

impl<C, T> Folder<T> for IntersperseFolder<C, T>
where
    C: Folder<T>,
    T: Clone,
{
    type Result = C::Result;

    fn consume(mut self, item: T) -> Self {
        if self.lead {
            self.base = self.base.consume(self.separator.clone());
            if self.base.full() {
                return self;
            }
        }
        self.lead = true;
        self.base = self.base.consume(item);
        self
    }

    fn complete(self) -> C::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
