//! `while_some`: items of `Option<T>`, stopping everywhere at the first `None` seen.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::iter::plumbing::*;
use crate::iter::ParallelIterator;

/// The iterator returned by [`ParallelIterator::while_some`]. Items after a `None` may or
/// may not be produced (other pieces stop as soon as they notice).
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = vec![Some(1), Some(2), None, Some(4)].into_par_iter().while_some().collect();
/// assert!(v.len() < 4 && v.iter().all(|x| [1, 2, 4].contains(x)));
/// let all: Vec<i32> = vec![Some(1), Some(2)].into_par_iter().while_some().collect();
/// assert_eq!(all, [1, 2]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct WhileSome<I> {
    base: I,
}

impl<I> WhileSome<I> {
    pub(crate) fn new(base: I) -> Self {
        WhileSome { base }
    }
}

impl<I, T> ParallelIterator for WhileSome<I>
where
    I: ParallelIterator<Item = Option<T>>,
    T: Send,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let stop = AtomicBool::new(false);
        self.base.drive_unindexed(WhileSomeConsumer {
            base: consumer,
            stop: &stop,
        })
    }
}

struct WhileSomeConsumer<'s, C> {
    base: C,
    stop: &'s AtomicBool,
}

/// Whether some piece has seen a `None`.
#[inline]
fn stopped(stop: &AtomicBool) -> bool {
    // ORDERING: a stop hint only, nothing is published through it: Relaxed suffices.
    // Pairs with the Relaxed store in `WhileSomeFolder::consume_iter`.
    stop.load(Ordering::Relaxed)
}

impl<C> WhileSomeConsumer<'_, C> {
    /// Splits the base consumer with `split` (`split_at` or `split_at_sized`) and wraps
    /// each piece.
    fn split_base<Red>(self, split: impl FnOnce(C) -> (C, C, Red)) -> (Self, Self, Red) {
        let (left, right, reducer) = split(self.base);
        let stop = self.stop;
        (
            WhileSomeConsumer { base: left, stop },
            WhileSomeConsumer { base: right, stop },
            reducer,
        )
    }
}

impl<'s, T, C: Consumer<T>> Consumer<Option<T>> for WhileSomeConsumer<'s, C> {
    type Folder = WhileSomeFolder<'s, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    super::splits_through_base!();

    fn into_folder(self) -> Self::Folder {
        WhileSomeFolder {
            base: self.base.into_folder(),
            stop: self.stop,
        }
    }

    fn full(&self) -> bool {
        stopped(self.stop) || self.base.full()
    }
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<Option<T>> for WhileSomeConsumer<'_, C> {
    fn split_off_left(&self) -> Self {
        WhileSomeConsumer {
            base: self.base.split_off_left(),
            stop: self.stop,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct WhileSomeFolder<'s, C> {
    base: C,
    stop: &'s AtomicBool,
}

impl<T, C: Folder<T>> Folder<Option<T>> for WhileSomeFolder<'_, C> {
    type Result = C::Result;

    const MAY_STOP_EARLY: bool = true;

    fn consume(self, item: Option<T>) -> Self {
        self.consume_iter(Some(item))
    }

    fn consume_iter<I: IntoIterator<Item = Option<T>>>(self, iter: I) -> Self {
        let stop = self.stop;
        let somes = Somes {
            items: iter.into_iter(),
            stop,
        };
        WhileSomeFolder {
            base: self.base.consume_iter(somes),
            stop,
        }
    }

    fn complete(self) -> C::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        stopped(self.stop) || self.base.full()
    }
}

/// The `Some` values of `items` up to the first `None`, which sets `stop`; ends early once
/// `stop` is set. The flag is read *before* each item is pulled: an item already produced
/// upstream (whose closure may have had effects, as in `take_any`) is never thrown away.
struct Somes<'s, I> {
    items: I,
    stop: &'s AtomicBool,
}

impl<T, I: Iterator<Item = Option<T>>> Iterator for Somes<'_, I> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if stopped(self.stop) {
            return None;
        }
        let item = self.items.next()?;
        if item.is_none() {
            // ORDERING: see `stopped`.
            self.stop.store(true, Ordering::Relaxed);
        }
        item
    }

    /// The base's own `try_fold`, reading the flag after each item folded (so before the
    /// next is pulled): a slice's indexed loop, where `next` through `from_fn` made LLVM
    /// keep a pointer pair.
    fn fold<B, F: FnMut(B, T) -> B>(mut self, init: B, mut f: F) -> B {
        if stopped(self.stop) {
            return init;
        }
        let stop = self.stop;
        let folded = self.items.try_fold(init, |acc, item| match item {
            Some(item) => {
                let acc = f(acc, item);
                if stopped(stop) {
                    ControlFlow::Break(acc)
                } else {
                    ControlFlow::Continue(acc)
                }
            }
            None => {
                // ORDERING: see `stopped`.
                stop.store(true, Ordering::Relaxed);
                ControlFlow::Break(acc)
            }
        });
        match folded {
            ControlFlow::Continue(acc) | ControlFlow::Break(acc) => acc,
        }
    }
}
