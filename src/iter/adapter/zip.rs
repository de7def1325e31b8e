//! `zip` and `zip_eq`: pairs items of two indexed iterators. The two producers are fetched
//! one inside the other (two nested callbacks) and split at the same indices.

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`IndexedParallelIterator::zip`]; as long as the shorter side.
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<(i32, char)> = (1..10).into_par_iter().zip(vec!['a', 'b']).collect();
/// assert_eq!(v, [(1, 'a'), (2, 'b')]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Zip<A, B> {
    a: A,
    b: B,
}

impl<A, B> Zip<A, B> {
    pub(crate) fn new(a: A, b: B) -> Self {
        Zip { a, b }
    }
}

impl<A, B> ParallelIterator for Zip<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    type Item = (A::Item, B::Item);

    #[inline]
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A, B> IndexedParallelIterator for Zip<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        Ord::min(self.a.len(), self.b.len())
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.a.with_producer(OuterCallback {
            callback,
            b: self.b,
        })
    }
}

/// Receives `a`'s producer, then asks `b` for its own.
struct OuterCallback<CB, B> {
    callback: CB,
    b: B,
}

impl<CB, ItemA, B> ProducerCallback<ItemA> for OuterCallback<CB, B>
where
    B: IndexedParallelIterator,
    CB: ProducerCallback<(ItemA, B::Item)>,
{
    type Output = CB::Output;

    fn callback<A: Producer<Item = ItemA>>(self, a: A) -> CB::Output {
        self.b.with_producer(InnerCallback {
            callback: self.callback,
            a,
        })
    }
}

/// Holds `a`'s producer while receiving `b`'s.
struct InnerCallback<CB, A> {
    callback: CB,
    a: A,
}

impl<CB, A, ItemB> ProducerCallback<ItemB> for InnerCallback<CB, A>
where
    A: Producer,
    CB: ProducerCallback<(A::Item, ItemB)>,
{
    type Output = CB::Output;

    fn callback<B: Producer<Item = ItemB>>(self, b: B) -> CB::Output {
        self.callback.callback(ZipProducer { a: self.a, b })
    }
}

struct ZipProducer<A, B> {
    a: A,
    b: B,
}

impl<A: Producer, B: Producer> Producer for ZipProducer<A, B> {
    type Item = (A::Item, B::Item);
    type IntoIter = std::iter::Zip<A::IntoIter, B::IntoIter>;
    const INERT: bool = A::INERT && B::INERT;
    const EXACT_LEN: Option<ExactLen<Self::IntoIter>> = match (&A::EXACT_LEN, &B::EXACT_LEN) {
        // SAFETY: std's `Zip` yields a pair while both sides yield an item and reports the
        // shorter length, which is what both sides yield when each yields its length.
        (Some(_), Some(_)) => Some(unsafe { ExactLen::new() }),
        _ => None,
    };

    fn into_iter(self) -> Self::IntoIter {
        self.a.into_iter().zip(self.b.into_iter())
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

    fn duplicate(&self) -> Option<Self> {
        Some(ZipProducer {
            a: self.a.duplicate()?,
            b: self.b.duplicate()?,
        })
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (a_left, a_right) = self.a.split_at(index);
        let (b_left, b_right) = self.b.split_at(index);
        (
            ZipProducer {
                a: a_left,
                b: b_left,
            },
            ZipProducer {
                a: a_right,
                b: b_right,
            },
        )
    }

    /// The leaf loop is `a`'s own `fold`, taking `b`'s items one by one. std's `Zip` only
    /// indexes both sides directly for its own iterators (`TrustedRandomAccess` is not
    /// stable); on others it calls `next` on both and tests both for the end.
    ///
    /// When both sides' iterators are known to yield exactly their lengths
    /// ([`Producer::EXACT_LEN`]: slices and `map`, `copied`, `enumerate`, `zip` over them),
    /// `b`'s items are taken without the test for its end, as std's `Zip` does on its own
    /// random-access iterators: one end test per pair where a short-circuiting consumer
    /// (`all`, `find`, `eq`) made two.
    fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        let (a, mut b) = (self.a.into_iter(), self.b.into_iter());
        if a.len() > b.len() {
            return folder.consume_iter(a.zip(b));
        }
        if A::EXACT_LEN.is_some() && B::EXACT_LEN.is_some() {
            return folder.consume_iter(a.map(move |x| {
                // The hint lets LLVM drop `b`'s end test, which an `unwrap_unchecked` of
                // `next` did not (it kept the test and a flag).
                if b.len() == 0 {
                    // SAFETY: unreachable: `a` yields exactly its `len()` items
                    // (`A::EXACT_LEN`), at most `b`'s length, and this closure runs once for
                    // each and takes one item of `b`; so before the call for `a`'s k-th item,
                    // `b` has given k - 1 items, fewer than its length at the start, and its
                    // `len()`, exact (`B::EXACT_LEN`), is not 0. (A consumer only pulls
                    // forward: `consume_iter` takes an `IntoIterator`.)
                    unsafe { std::hint::unreachable_unchecked() }
                }
                match b.next() {
                    Some(y) => (x, y),
                    None => unreachable!("`b` yields its length (`B::EXACT_LEN`)"),
                }
            }));
        }
        folder.consume_iter(a.map(move |x| match b.next() {
            Some(y) => (x, y),
            None => unreachable!("`b` is at least as long as `a` (exact sizes)"),
        }))
    }
}

/// The iterator returned by [`IndexedParallelIterator::zip_eq`]: a [`Zip`] of two
/// iterators checked to have the same length.
///
/// ```
/// use weft::prelude::*;
///
/// let dot: i32 = [1, 2, 3].par_iter().zip_eq(&[4, 5, 6]).map(|(a, b)| a * b).sum();
/// assert_eq!(dot, 32);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct ZipEq<A, B> {
    zip: Zip<A, B>,
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> ZipEq<A, B> {
    pub(crate) fn new(a: A, b: B) -> Self {
        let (a_len, b_len) = (a.len(), b.len());
        assert!(
            a_len == b_len,
            "zip_eq: iterators must have the same length (left {a_len}, right {b_len})"
        );
        ZipEq {
            zip: Zip::new(a, b),
        }
    }
}

impl<A, B> ParallelIterator for ZipEq<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    type Item = (A::Item, B::Item);

    #[inline]
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self.zip, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.zip.len())
    }
}

impl<A, B> IndexedParallelIterator for ZipEq<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    #[inline]
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self.zip, consumer)
    }

    fn len(&self) -> usize {
        self.zip.len()
    }

    #[inline]
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.zip.with_producer(callback)
    }
}
