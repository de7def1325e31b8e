//! `intersperse`: a clone of `separator` between neighbouring items. Indexed: a piece is
//! described by a [`Shape`] (leading separator, base items, trailing separator), and
//! splitting at an output index splits the shape and the base producer to match.
//! Exact-length bases driven as unindexed work use the consumer side, whose splits are
//! exact too. Bases of unknown length are gathered first: a piece cannot know whether an
//! earlier piece had items (Rayon guesses "yes", and so can start with a separator).

use std::cell::Cell;

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

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
pub struct Intersperse<I>
where
    I: ParallelIterator,
    I::Item: Clone,
{
    base: I,
    separator: I::Item,
}

impl<I> Intersperse<I>
where
    I: ParallelIterator,
    I::Item: Clone,
{
    pub(crate) fn new(base: I, separator: I::Item) -> Self {
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

impl<I, T> ParallelIterator for Intersperse<I>
where
    I: ParallelIterator<Item = T>,
    T: Clone + Send,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        if self.base.opt_len().is_none() {
            // Whether a piece's first item needs a separator depends on whether any earlier
            // piece had items, which is unknown while pieces run. So gather the items first
            // (in parallel, in order) and intersperse the gathered, indexed sequence.
            let pieces = self.base.collect_vec_list();
            let mut items = Vec::with_capacity(pieces.iter().map(Vec::len).sum());
            pieces
                .into_iter()
                .for_each(|mut piece| items.append(&mut piece));
            return items
                .into_par_iter()
                .intersperse(self.separator)
                .drive_unindexed(consumer);
        }
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

impl<I, T> IndexedParallelIterator for Intersperse<I>
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
        let shape = Shape {
            base_len: self.base_len,
            lead: false,
            trail: false,
        };
        self.callback.callback(IntersperseProducer {
            base,
            separator: self.separator,
            shape,
        })
    }
}

/// The layout of a piece: an optional separator in front (`lead`), `base_len` items with
/// separators between them, and an optional separator at the end (`trail`, only when
/// `base_len > 0`). A piece without items is empty or a single leading separator.
#[derive(Clone, Copy, Debug)]
struct Shape {
    base_len: usize,
    lead: bool,
    trail: bool,
}

impl Shape {
    fn len(self) -> usize {
        match self.base_len {
            0 => usize::from(self.lead),
            n => 2 * n - 1 + usize::from(self.lead) + usize::from(self.trail),
        }
    }

    /// Whether output position `pos` holds a separator (rather than a base item).
    #[inline]
    fn is_separator(self, pos: usize) -> bool {
        let lead = usize::from(self.lead);
        pos < lead || (pos - lead) % 2 == 1
    }

    /// The shapes of the output positions before and from `index`, and how many base
    /// items the left one holds.
    fn split_at(self, index: usize) -> (Shape, Shape) {
        let lead = usize::from(self.lead);
        let left_base = if index <= lead {
            0
        } else {
            Ord::min(self.base_len, (index - lead).div_ceil(2))
        };
        let left = Shape {
            base_len: left_base,
            lead: self.lead && index > 0,
            trail: left_base > 0 && (index - lead) % 2 == 0,
        };
        let right_base = self.base_len - left_base;
        let right = Shape {
            base_len: right_base,
            lead: index < self.len() && self.is_separator(index),
            trail: self.trail && right_base > 0,
        };
        (left, right)
    }
}

struct IntersperseProducer<P, T> {
    base: P,
    separator: T,
    shape: Shape,
}

impl<P, T> Producer for IntersperseProducer<P, T>
where
    P: Producer<Item = T>,
    T: Clone + Send,
{
    type Item = T;
    type IntoIter = IntersperseIter<P::IntoIter, T>;
    const INERT: bool = P::INERT;

    fn into_iter(self) -> Self::IntoIter {
        let (shape, back) = (self.shape, self.shape.len());
        let base = self.base.into_iter();
        IntersperseIter {
            base,
            separator: self.separator,
            shape,
            front: 0,
            back,
        }
    }

    super::lengths_from_base!();

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left_shape, right_shape) = self.shape.split_at(index);
        let (left, right) = self.base.split_at(left_shape.base_len);
        let left = IntersperseProducer {
            base: left,
            separator: self.separator.clone(),
            shape: left_shape,
        };
        (
            left,
            IntersperseProducer {
                base: right,
                separator: self.separator,
                shape: right_shape,
            },
        )
    }
}

/// Walks output positions `front..back` of a piece: separators are cloned, base items
/// taken from the matching end of `base`.
struct IntersperseIter<I, T> {
    base: I,
    separator: T,
    shape: Shape,
    front: usize,
    back: usize,
}

impl<I, T> Iterator for IntersperseIter<I, T>
where
    I: DoubleEndedIterator<Item = T>,
    T: Clone,
{
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.front == self.back {
            return None;
        }
        self.front += 1;
        if self.shape.is_separator(self.front - 1) {
            Some(self.separator.clone())
        } else {
            self.base.next()
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.back - self.front;
        (len, Some(len))
    }
}

impl<I, T> DoubleEndedIterator for IntersperseIter<I, T>
where
    I: DoubleEndedIterator<Item = T>,
    T: Clone,
{
    fn next_back(&mut self) -> Option<T> {
        if self.front == self.back {
            return None;
        }
        self.back -= 1;
        if self.shape.is_separator(self.back) {
            Some(self.separator.clone())
        } else {
            self.base.next_back()
        }
    }
}

impl<I, T> ExactSizeIterator for IntersperseIter<I, T>
where
    I: DoubleEndedIterator<Item = T>,
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

impl<C, T: Clone> IntersperseConsumer<C, T> {
    /// Splits the base consumer with `split` (`split_at` or `split_at_sized`, at the output
    /// position of input `index`) and wraps each piece.
    fn split_base<Red>(
        self,
        index: usize,
        split: impl FnOnce(C) -> (C, C, Red),
    ) -> (Self, Self, Red) {
        let lead = self.lead.get();
        let (left, right, reducer) = split(self.base);
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
        self.split_base(index, |base| base.split_at(output_len(index, lead)))
    }

    fn split_at_sized(self, index: usize, len: usize) -> (Self, Self, C::Reducer) {
        let lead = self.lead.get();
        // The base sees about twice as many items; past `usize` it gets a plain split.
        match len.checked_mul(2) {
            Some(_) => self.split_base(index, |base| {
                base.split_at_sized(output_len(index, lead), output_len(len, lead))
            }),
            None => self.split_base(index, |base| base.split_at(output_len(index, lead))),
        }
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

    const MAY_STOP_EARLY: bool = C::MAY_STOP_EARLY;

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

#[cfg(test)]
mod tests {
    use crate::iter::{IntoParallelIterator, ParallelIterator};
    use crate::ThreadPoolBuilder;

    #[test]
    fn matches_sequential_even_when_early_pieces_are_empty() {
        let expected: Vec<i32> = {
            let kept: Vec<i32> = (0..1000).filter(|x| *x >= 500).collect();
            let mut out = Vec::new();
            for (i, x) in kept.into_iter().enumerate() {
                if i > 0 {
                    out.push(-1);
                }
                out.push(x);
            }
            out
        };
        for threads in [1, 2, 3, 8] {
            let pool = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let got: Vec<i32> = pool.install(|| {
                (0..1000)
                    .into_par_iter()
                    .filter(|x| *x >= 500)
                    .intersperse(-1)
                    .collect()
            });
            assert_eq!(got, expected, "{threads} threads");
            let indexed: Vec<i32> =
                pool.install(|| (500..1000).into_par_iter().intersperse(-1).collect());
            assert_eq!(indexed, expected, "{threads} threads, indexed");
        }
    }
}
