//! `panic_fuse`: once any closure panics, every other piece stops early (the panic still
//! propagates to the caller once in-flight work has ended).

use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator returned by [`ParallelIterator::panic_fuse`].
///
/// ```
/// use weft::prelude::*;
///
/// let sum: i32 = (0..100).into_par_iter().panic_fuse().sum();
/// assert_eq!(sum, 4950);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct PanicFuse<I> {
    base: I,
}

impl<I> PanicFuse<I> {
    pub(crate) fn new(base: I) -> Self {
        PanicFuse { base }
    }
}

impl<I: ParallelIterator> ParallelIterator for PanicFuse<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let panicked = AtomicBool::new(false);
        self.base.drive_unindexed(FuseConsumer {
            base: consumer,
            panicked: &panicked,
        })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for PanicFuse<I> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        let panicked = AtomicBool::new(false);
        self.base.drive(FuseConsumer {
            base: consumer,
            panicked: &panicked,
        })
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let panicked = AtomicBool::new(false);
        self.base.with_producer(FuseCallback {
            callback,
            panicked: &panicked,
        })
    }
}

/// Wraps the base producer in a [`FuseProducer`] on its way to `callback`.
struct FuseCallback<'p, CB> {
    callback: CB,
    panicked: &'p AtomicBool,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for FuseCallback<'_, CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(FuseProducer {
            base,
            panicked: self.panicked,
        })
    }
}

/// The producer side of the fuse (for adapters that take producers, such as `zip` and
/// `enumerate`): pieces fold through a [`FuseFolder`], and the sequential iterator is a
/// [`FuseIter`], so either way a piece stops at its next item once any piece has panicked.
struct FuseProducer<'p, P> {
    base: P,
    panicked: &'p AtomicBool,
}

impl<'p, P: Producer> Producer for FuseProducer<'p, P> {
    type Item = P::Item;
    type IntoIter = FuseIter<'p, P::IntoIter>;
    const INERT: bool = P::INERT;

    fn into_iter(self) -> Self::IntoIter {
        FuseIter {
            base: self.base.into_iter(),
            guard: PanicGuard(self.panicked),
        }
    }

    super::lengths_from_base!();

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let panicked = self.panicked;
        (
            FuseProducer {
                base: left,
                panicked,
            },
            FuseProducer {
                base: right,
                panicked,
            },
        )
    }

    fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
        let panicked = self.panicked;
        self.base
            .fold_with(FuseFolder {
                base: folder,
                panicked,
            })
            .base
    }
}

/// Reports "full" once `panicked` is set; its folders set it when unwinding.
struct FuseConsumer<'p, C> {
    base: C,
    panicked: &'p AtomicBool,
}

impl<'p, C> FuseConsumer<'p, C> {
    fn fused(&self) -> bool {
        // ORDERING: a hint only (stop early); no data is published through this flag, so
        // Relaxed suffices. Pairs with the Relaxed store in `PanicGuard::drop`.
        self.panicked.load(Ordering::Relaxed)
    }
}

impl<C> FuseConsumer<'_, C> {
    /// Splits the base consumer with `split` (`split_at` or `split_at_sized`) and wraps
    /// each piece.
    fn split_base<Red>(self, split: impl FnOnce(C) -> (C, C, Red)) -> (Self, Self, Red) {
        let (left, right, reducer) = split(self.base);
        let panicked = self.panicked;
        (
            FuseConsumer {
                base: left,
                panicked,
            },
            FuseConsumer {
                base: right,
                panicked,
            },
            reducer,
        )
    }
}

impl<'p, T, C: Consumer<T>> Consumer<T> for FuseConsumer<'p, C> {
    type Folder = FuseFolder<'p, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    super::splits_through_base!();

    fn into_folder(self) -> Self::Folder {
        FuseFolder {
            base: self.base.into_folder(),
            panicked: self.panicked,
        }
    }

    fn full(&self) -> bool {
        self.fused() || self.base.full()
    }
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<T> for FuseConsumer<'_, C> {
    fn split_off_left(&self) -> Self {
        FuseConsumer {
            base: self.base.split_off_left(),
            panicked: self.panicked,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FuseFolder<'p, C> {
    base: C,
    panicked: &'p AtomicBool,
}

/// Sets the flag if dropped during a panic.
struct PanicGuard<'p>(&'p AtomicBool);

impl Drop for PanicGuard<'_> {
    fn drop(&mut self) {
        if thread::panicking() {
            // ORDERING: see `FuseConsumer::fused`.
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

impl<T, C: Folder<T>> Folder<T> for FuseFolder<'_, C> {
    type Result = C::Result;

    const MAY_STOP_EARLY: bool = C::MAY_STOP_EARLY;

    fn consume(self, item: T) -> Self {
        let guard = PanicGuard(self.panicked);
        let base = self.base.consume(item);
        drop(guard);
        FuseFolder {
            base,
            panicked: self.panicked,
        }
    }

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let guard = PanicGuard(self.panicked);
        let panicked = self.panicked;
        // ORDERING: see `FuseConsumer::fused`.
        let unfused = iter
            .into_iter()
            .take_while(|_| !panicked.load(Ordering::Relaxed));
        let base = self.base.consume_iter(unfused);
        drop(guard);
        FuseFolder { base, panicked }
    }

    fn complete(self) -> C::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        // ORDERING: see `FuseConsumer::fused`.
        self.panicked.load(Ordering::Relaxed) || self.base.full()
    }
}

/// A piece's sequential iterator under the fuse: ends early once any piece has panicked
/// (its length is then an overestimate, which only a panicking computation ever sees), and
/// blows the fuse itself if it is dropped by a panic (in whatever consumes it).
struct FuseIter<'p, I> {
    base: I,
    /// Blows the fuse if the iterator is dropped by a panic.
    guard: PanicGuard<'p>,
}

impl<I> FuseIter<'_, I> {
    fn blown(&self) -> bool {
        // ORDERING: see `FuseConsumer::fused`.
        self.guard.0.load(Ordering::Relaxed)
    }
}

impl<I: Iterator> Iterator for FuseIter<'_, I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        if self.blown() {
            return None;
        }
        self.base.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }
}

impl<I: DoubleEndedIterator> DoubleEndedIterator for FuseIter<'_, I> {
    fn next_back(&mut self) -> Option<I::Item> {
        if self.blown() {
            return None;
        }
        self.base.next_back()
    }
}

impl<I: ExactSizeIterator> ExactSizeIterator for FuseIter<'_, I> {}
