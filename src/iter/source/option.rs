//! `Option<T>` and `Result<T, E>` (and references to them): zero or one item.

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// A parallel iterator over the value in an `Option` (or the `Ok` value of a `Result`).
///
/// ```
/// use weft::prelude::*;
///
/// assert_eq!(Some(3).into_par_iter().sum::<i32>(), 3);
/// assert_eq!(Err::<i32, ()>(()).into_par_iter().count(), 0);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct IntoIter<T> {
    opt: Option<T>,
}

/// The iterator for `&Option<T>` (an [`IntoIter`] over a reference).
pub type Iter<'data, T> = IntoIter<&'data T>;
/// The iterator for `&mut Option<T>` (an [`IntoIter`] over a mutable reference).
pub type IterMut<'data, T> = IntoIter<&'data mut T>;

impl<T: Send> IntoParallelIterator for Option<T> {
    type Iter = IntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter { opt: self }
    }
}

impl<'data, T: Sync> IntoParallelIterator for &'data Option<T> {
    type Iter = IntoIter<&'data T>;
    type Item = &'data T;

    fn into_par_iter(self) -> Self::Iter {
        IntoIter { opt: self.as_ref() }
    }
}

impl<'data, T: Send> IntoParallelIterator for &'data mut Option<T> {
    type Iter = IntoIter<&'data mut T>;
    type Item = &'data mut T;

    fn into_par_iter(self) -> Self::Iter {
        IntoIter { opt: self.as_mut() }
    }
}

impl<T: Send, E> IntoParallelIterator for Result<T, E> {
    type Iter = IntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter { opt: self.ok() }
    }
}

impl<'data, T: Sync, E> IntoParallelIterator for &'data Result<T, E> {
    type Iter = IntoIter<&'data T>;
    type Item = &'data T;

    fn into_par_iter(self) -> Self::Iter {
        IntoIter {
            opt: self.as_ref().ok(),
        }
    }
}

impl<'data, T: Send, E> IntoParallelIterator for &'data mut Result<T, E> {
    type Iter = IntoIter<&'data mut T>;
    type Item = &'data mut T;

    fn into_par_iter(self) -> Self::Iter {
        IntoIter {
            opt: self.as_mut().ok(),
        }
    }
}

impl<T: Send> ParallelIterator for IntoIter<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<T: Send> IndexedParallelIterator for IntoIter<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        usize::from(self.opt.is_some())
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(OptionProducer { opt: self.opt })
    }
}

/// Zero or one item; splitting puts it on the side that holds its index.
pub(crate) struct OptionProducer<T> {
    pub(crate) opt: Option<T>,
}

impl<T: Send> Producer for OptionProducer<T> {
    type Item = T;
    type IntoIter = std::option::IntoIter<T>;
    const INERT: bool = true;

    fn into_iter(self) -> Self::IntoIter {
        self.opt.into_iter()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let empty = OptionProducer { opt: None };
        if index == 0 {
            (empty, self)
        } else {
            (self, empty)
        }
    }
}
