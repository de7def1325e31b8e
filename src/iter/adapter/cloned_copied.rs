//! `cloned` and `copied`: turn `&T` items into `T`. Unindexed, both are a `map`; indexed,
//! their producer's sequential iterator is std's `Cloned` / `Copied` of the upstream one,
//! so that a slice's `TrustedLen` reaches the folders (`Vec::extend` of copied `u64`s is
//! then a copy of the whole block, not a loop testing the capacity per item).

use std::marker::PhantomData;

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`ParallelIterator::cloned`].
///
/// ```
/// use weft::prelude::*;
///
/// let words = [String::from("a"), String::from("b")];
/// let owned: Vec<String> = words.par_iter().cloned().collect();
/// assert_eq!(owned, words);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Cloned<I> {
    base: I,
}

impl<I> Cloned<I> {
    pub(crate) fn new(base: I) -> Self {
        Cloned { base }
    }
}

impl<'a, T, I> ParallelIterator for Cloned<I>
where
    I: ParallelIterator<Item = &'a T>,
    T: 'a + Clone + Send + Sync,
{
    type Item = T;

    #[inline]
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        self.base.map(T::clone).drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<'a, T, I> IndexedParallelIterator for Cloned<I>
where
    I: IndexedParallelIterator<Item = &'a T>,
    T: 'a + Clone + Send + Sync,
{
    #[inline]
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let kind = ByClone;
        self.base.with_producer(OwningCallback { callback, kind })
    }
}

/// The iterator returned by [`ParallelIterator::copied`].
///
/// ```
/// use weft::prelude::*;
///
/// let v = [1, 2, 3];
/// let copy: Vec<i32> = v.par_iter().copied().collect();
/// assert_eq!(copy, v);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Copied<I> {
    base: I,
}

impl<I> Copied<I> {
    pub(crate) fn new(base: I) -> Self {
        Copied { base }
    }
}

fn copy<T: Copy>(item: &T) -> T {
    *item
}

impl<'a, T, I> ParallelIterator for Copied<I>
where
    I: ParallelIterator<Item = &'a T>,
    T: 'a + Copy + Send + Sync,
{
    type Item = T;

    #[inline]
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        self.base.map(copy).drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<'a, T, I> IndexedParallelIterator for Copied<I>
where
    I: IndexedParallelIterator<Item = &'a T>,
    T: 'a + Copy + Send + Sync,
{
    #[inline]
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let kind = ByCopy;
        self.base.with_producer(OwningCallback { callback, kind })
    }
}

/// How a producer of `&T` becomes one of `T`: std's `Cloned` or `Copied` of its iterator.
trait Owning<'a, T: 'a>: Copy + Send {
    type Iter<I>: Iterator<Item = T> + DoubleEndedIterator + ExactSizeIterator
    where
        I: Iterator<Item = &'a T> + DoubleEndedIterator + ExactSizeIterator;

    fn own<I>(items: I) -> Self::Iter<I>
    where
        I: Iterator<Item = &'a T> + DoubleEndedIterator + ExactSizeIterator;

    /// `folder.consume_iter` of the owned items, for any iterator of `&T`.
    fn consume_all<F: Folder<T>, I: Iterator<Item = &'a T>>(folder: F, items: I) -> F;
}

/// `cloned`: each item is `T::clone`d.
#[derive(Clone, Copy)]
struct ByClone;

/// `copied`: each item is copied bit for bit (never through a `Clone` impl).
#[derive(Clone, Copy)]
struct ByCopy;

impl<'a, T: 'a + Clone> Owning<'a, T> for ByClone {
    type Iter<I>
        = std::iter::Cloned<I>
    where
        I: Iterator<Item = &'a T> + DoubleEndedIterator + ExactSizeIterator;

    fn own<I>(items: I) -> Self::Iter<I>
    where
        I: Iterator<Item = &'a T> + DoubleEndedIterator + ExactSizeIterator,
    {
        items.cloned()
    }

    fn consume_all<F: Folder<T>, I: Iterator<Item = &'a T>>(folder: F, items: I) -> F {
        folder.consume_iter(items.cloned())
    }
}

impl<'a, T: 'a + Copy> Owning<'a, T> for ByCopy {
    type Iter<I>
        = std::iter::Copied<I>
    where
        I: Iterator<Item = &'a T> + DoubleEndedIterator + ExactSizeIterator;

    fn own<I>(items: I) -> Self::Iter<I>
    where
        I: Iterator<Item = &'a T> + DoubleEndedIterator + ExactSizeIterator,
    {
        items.copied()
    }

    fn consume_all<F: Folder<T>, I: Iterator<Item = &'a T>>(folder: F, items: I) -> F {
        folder.consume_iter(items.copied())
    }
}

/// Receives the upstream producer of `&T` and passes on one of `T`.
struct OwningCallback<CB, K> {
    callback: CB,
    kind: K,
}

impl<'a, T, CB, K> ProducerCallback<&'a T> for OwningCallback<CB, K>
where
    T: 'a,
    CB: ProducerCallback<T>,
    K: Owning<'a, T>,
{
    type Output = CB::Output;

    fn callback<P: Producer<Item = &'a T>>(self, base: P) -> CB::Output {
        let kind = self.kind;
        self.callback.callback(OwningProducer { base, kind })
    }
}

/// Clones or copies the items of the upstream producer.
struct OwningProducer<P, K> {
    base: P,
    kind: K,
}

impl<'a, T, P, K> Producer for OwningProducer<P, K>
where
    T: 'a,
    P: Producer<Item = &'a T>,
    K: Owning<'a, T>,
{
    type Item = T;
    type IntoIter = K::Iter<P::IntoIter>;
    const INERT: bool = P::INERT;
    // SAFETY: `K::Iter` is std's `Copied` or `Cloned` (the only two `Owning` kinds), which
    // yield one item per item of their base and report its length.
    const EXACT_LEN: Option<ExactLen<Self::IntoIter>> = unsafe { ExactLen::carried(&P::EXACT_LEN) };

    fn into_iter(self) -> Self::IntoIter {
        K::own(self.base.into_iter())
    }

    super::lengths_from_base!();

    /// Copies and clones read the items again: nothing of the user's runs twice but `Clone`.
    fn duplicate(&self) -> Option<Self> {
        let base = self.base.duplicate()?;
        Some(OwningProducer {
            base,
            kind: self.kind,
        })
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let kind = self.kind;
        (
            OwningProducer { base: left, kind },
            OwningProducer { base: right, kind },
        )
    }

    /// Through the upstream producer's own `fold_with` (which may have a faster loop than
    /// its iterator), as `map` did before.
    fn fold_with<F: Folder<T>>(self, folder: F) -> F {
        let kind = PhantomData::<K>;
        self.base
            .fold_with(OwningFolder { base: folder, kind })
            .base
    }
}

/// Clones or copies each item on its way to the downstream folder.
struct OwningFolder<F, K> {
    base: F,
    kind: PhantomData<K>,
}

impl<'a, T, F, K> Folder<&'a T> for OwningFolder<F, K>
where
    T: 'a,
    F: Folder<T>,
    K: Owning<'a, T>,
{
    type Result = F::Result;

    fn consume(self, item: &'a T) -> Self {
        let base = K::consume_all(self.base, std::iter::once(item));
        OwningFolder { base, ..self }
    }

    fn consume_iter<I: IntoIterator<Item = &'a T>>(self, iter: I) -> Self {
        let base = K::consume_all(self.base, iter.into_iter());
        OwningFolder { base, ..self }
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
