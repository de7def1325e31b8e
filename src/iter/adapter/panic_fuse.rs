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
        // The producer side has no folder to fuse; consumers reached through `drive` and
        // `drive_unindexed` get the fuse.
        self.base.with_producer(callback)
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

impl<'p, T, C: Consumer<T>> Consumer<T> for FuseConsumer<'p, C> {
    type Folder = FuseFolder<'p, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
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
