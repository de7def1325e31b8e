//! `repeat` and `repeat_n`: clones of one value, without end or `n` times.

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator, Zip};

/// Clones of `element`, without end: bound it with `take_any`, `zip`, `find_any`, …
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<(i32, char)> = (0..3).into_par_iter().zip(weft::iter::repeat('x').take(3)).collect();
/// assert_eq!(v, [(0, 'x'), (1, 'x'), (2, 'x')]);
/// ```
pub fn repeat<T: Clone + Send>(element: T) -> Repeat<T> {
    Repeat { element }
}

/// The iterator returned by [`repeat`].
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct Repeat<T> {
    element: T,
}

impl<T: Clone + Send> Repeat<T> {
    /// `n` clones: an indexed iterator (the same as [`repeat_n`]).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!(weft::iter::repeat(2).take(5).sum::<i32>(), 10);
    /// ```
    pub fn take(self, n: usize) -> RepeatN<T> {
        repeat_n(self.element, n)
    }

    /// Pairs a clone with each item of an indexed iterator (as long as that iterator).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<(char, i32)> = weft::iter::repeat('x').zip(0..2).collect();
    /// assert_eq!(v, [('x', 0), ('x', 1)]);
    /// ```
    pub fn zip<Z>(self, zip_op: Z) -> Zip<RepeatN<T>, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = zip_op.into_par_iter();
        let len = other.len();
        self.take(len).zip(other)
    }
}

impl<T: Clone + Send> ParallelIterator for Repeat<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            EndlessProducer {
                element: self.element,
            },
            consumer,
        )
    }
}

/// Splits without end; each leaf yields clones until its folder is full.
struct EndlessProducer<T> {
    element: T,
}

impl<T: Clone + Send> UnindexedProducer for EndlessProducer<T> {
    type Item = T;

    fn split(self) -> (Self, Option<Self>) {
        let other = EndlessProducer {
            element: self.element.clone(),
        };
        (self, Some(other))
    }

    fn fold_with<F: Folder<T>>(self, folder: F) -> F {
        folder.consume_iter(std::iter::repeat(self.element))
    }
}

/// `count` clones of `element`.
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<&str> = weft::iter::repeat_n("ab", 3).collect();
/// assert_eq!(v, ["ab", "ab", "ab"]);
/// ```
pub fn repeat_n<T: Clone + Send>(element: T, count: usize) -> RepeatN<T> {
    RepeatN { element, count }
}

/// `count` clones of `element`: Rayon 1.10's name for [`repeat_n`] (deprecated since
/// Rayon 1.11, which renamed it to match `std::iter::repeat_n`).
///
/// ```
/// #![allow(deprecated)]
/// use weft::prelude::*;
///
/// assert_eq!(weft::iter::repeatn(7u8, 3).collect::<Vec<_>>(), [7, 7, 7]);
/// ```
#[deprecated(note = "use `repeat_n`")]
pub fn repeatn<T: Clone + Send>(element: T, count: usize) -> RepeatN<T> {
    repeat_n(element, count)
}

/// The iterator returned by [`repeat_n`].
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct RepeatN<T> {
    element: T,
    count: usize,
}

impl<T: Clone + Send> ParallelIterator for RepeatN<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.count)
    }
}

impl<T: Clone + Send> IndexedParallelIterator for RepeatN<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.count
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(RepeatNProducer {
            element: (self.count > 0).then_some(self.element),
            count: self.count,
        })
    }
}

/// `count` clones of `element`, which is `None` exactly when `count` is 0. Each piece's
/// last item is the element itself, so the items of `count` pieces cost `count - 1` clones
/// in all (one per split, one per item but the last of each piece), none for an empty
/// piece and none for an item that is skipped (`step_by`).
struct RepeatNProducer<T> {
    element: Option<T>,
    count: usize,
}

impl<T: Clone + Send> Producer for RepeatNProducer<T> {
    type Item = T;
    type IntoIter = RepeatNIter<T>;
    const INERT: bool = true;

    fn into_iter(self) -> RepeatNIter<T> {
        RepeatNIter {
            element: self.element,
            count: self.count,
        }
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = (index, self.count - index);
        let (left_element, right_element) = match self.element {
            Some(element) if left > 0 && right > 0 => (Some(element.clone()), Some(element)),
            element if left > 0 => (element, None),
            element => (None, element),
        };
        (
            RepeatNProducer {
                element: left_element,
                count: left,
            },
            RepeatNProducer {
                element: right_element,
                count: right,
            },
        )
    }
}

/// `count` copies of `element` (`None` once `count` is 0), from either end: clones, and the
/// element itself last.
struct RepeatNIter<T> {
    element: Option<T>,
    count: usize,
}

impl<T: Clone> Iterator for RepeatNIter<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.nth(0)
    }

    /// Skips `n` items without cloning for them.
    fn nth(&mut self, n: usize) -> Option<T> {
        if n >= self.count {
            (self.element, self.count) = (None, 0);
            return None;
        }
        self.count -= n + 1;
        if self.count == 0 {
            self.element.take()
        } else {
            self.element.clone()
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.count, Some(self.count))
    }
}

impl<T: Clone> DoubleEndedIterator for RepeatNIter<T> {
    fn next_back(&mut self) -> Option<T> {
        self.nth(0)
    }

    fn nth_back(&mut self, n: usize) -> Option<T> {
        self.nth(n)
    }
}

impl<T: Clone> ExactSizeIterator for RepeatNIter<T> {}
