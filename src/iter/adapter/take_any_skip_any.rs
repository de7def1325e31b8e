//! `take_any(n)` and `skip_any(n)`: `n` items (or all but `n`) in no particular order. One
//! shared counter hands out the `n` places; whoever gets one keeps (or skips) its item.
//! Both claim their places in batches where the items are certain to come (see
//! [`PlacesFolder::consume_iter`]): one read-modify-write per item on a counter shared by
//! every thread made `take_any` 5x slower than Rayon on 2 threads.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::iter::plumbing::*;
use crate::iter::ParallelIterator;

/// The most places a `take_any` or `skip_any` folder claims at once: few enough that the places (and the
/// work downstream of them) still spread over the threads, many enough that the shared
/// counter is touched once per this many items.
const TAKE_BATCH: usize = 64;

/// Claims one of the places left in `remaining`; false when none is left.
#[inline]
fn claim(remaining: &AtomicUsize) -> bool {
    // ORDERING: see `claim_up_to`.
    let claimed = remaining.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
        left.checked_sub(1)
    });
    claimed.is_ok()
}

/// Claims up to `wanted` of the places left in `remaining`; returns how many it got (0 once
/// none is left).
#[inline]
fn claim_up_to(remaining: &AtomicUsize, wanted: usize) -> usize {
    // ORDERING: only the count matters (each place is handed out once by the RMW itself);
    // no other memory is published through it, so Relaxed suffices.
    let claimed = remaining.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
        (left > 0).then(|| left - left.min(wanted))
    });
    claimed.map_or(0, |left| left.min(wanted))
}

/// Whether every place has been handed out.
#[inline]
fn all_claimed(remaining: &AtomicUsize) -> bool {
    // ORDERING: see `claim_up_to`.
    remaining.load(Ordering::Relaxed) == 0
}

/// The iterator returned by [`ParallelIterator::take_any`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = (0..100).into_par_iter().take_any(5).collect();
/// assert_eq!(v.len(), 5);
/// assert!(v.iter().all(|x| (0..100).contains(x)));
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct TakeAny<I> {
    base: I,
    n: usize,
}

impl<I> TakeAny<I> {
    pub(crate) fn new(base: I, n: usize) -> Self {
        TakeAny { base, n }
    }
}

impl<I: ParallelIterator> ParallelIterator for TakeAny<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let remaining = AtomicUsize::new(self.n);
        let places = Places {
            remaining: &remaining,
            take: true,
        };
        self.base.drive_unindexed(PlacesConsumer {
            base: consumer,
            places,
        })
    }
}

/// The shared counter of places and what a place means: `take` passes the items that get
/// one on (`take_any`); otherwise they are dropped and the rest passed on (`skip_any`).
#[derive(Clone, Copy)]
struct Places<'r> {
    remaining: &'r AtomicUsize,
    take: bool,
}

impl Places<'_> {
    /// Whether no item can get through any more: `take_any` with every place handed out.
    #[inline]
    fn closed(self) -> bool {
        self.take && all_claimed(self.remaining)
    }
}

struct PlacesConsumer<'r, C> {
    base: C,
    places: Places<'r>,
}

impl<C> PlacesConsumer<'_, C> {
    /// Splits the base consumer with `split` (`split_at` or `split_at_sized`) and wraps
    /// each piece.
    fn split_base<Red>(self, split: impl FnOnce(C) -> (C, C, Red)) -> (Self, Self, Red) {
        let (left, right, reducer) = split(self.base);
        let places = self.places;
        (
            PlacesConsumer { base: left, places },
            PlacesConsumer {
                base: right,
                places,
            },
            reducer,
        )
    }
}

impl<'r, T, C: Consumer<T>> Consumer<T> for PlacesConsumer<'r, C> {
    type Folder = PlacesFolder<'r, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    super::splits_through_base!();

    fn into_folder(self) -> Self::Folder {
        PlacesFolder {
            base: self.base.into_folder(),
            places: self.places,
        }
    }

    fn full(&self) -> bool {
        self.places.closed() || self.base.full()
    }

    fn continue_folder(self, folder: Self::Folder) -> Result<Self::Folder, (Self, Self::Folder)> {
        let places = self.places;
        super::continue_base_folder!(
            self.base,
            folder.base,
            |base| PlacesConsumer { base, places },
            |base| PlacesFolder { base, places },
        )
    }
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<T> for PlacesConsumer<'_, C> {
    fn split_off_left(&self) -> Self {
        PlacesConsumer {
            base: self.base.split_off_left(),
            places: self.places,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct PlacesFolder<'r, F> {
    base: F,
    places: Places<'r>,
}

impl<T, F: Folder<T>> Folder<T> for PlacesFolder<'_, F> {
    type Result = F::Result;

    const MAY_STOP_EARLY: bool = true;

    fn consume(mut self, item: T) -> Self {
        if claim(self.places.remaining) == self.places.take {
            self.base = self.base.consume(item);
        }
        self
    }

    /// Where the iterator promises more items (its `size_hint` lower bound), places for up
    /// to [`TAKE_BATCH`] of them are claimed in one step and that many items are passed on
    /// (`take_any`) or dropped (`skip_any`); otherwise one place is claimed per item, with
    /// the item already in hand. Either way a place is only claimed for an item that
    /// exists, so exactly `min(n, len)` items are taken or skipped in all, as with one claim
    /// per item. (An iterator whose `size_hint` overstates its lower bound breaks
    /// `Iterator`'s contract; here that costs unused places, never soundness.)
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let Places { remaining, take } = self.places;
        let mut items = iter.into_iter();
        while !self.full() {
            if !take && all_claimed(remaining) {
                // Every skip place is handed out: the rest all go through.
                self.base = self.base.consume_iter(items);
                break;
            }
            let promised = items.size_hint().0;
            if promised == 0 {
                let Some(item) = items.next() else { break };
                self = self.consume(item);
                continue;
            }
            let got = claim_up_to(remaining, promised.min(TAKE_BATCH));
            let claimed = items.by_ref().take(got);
            if take {
                if got == 0 {
                    break;
                }
                self.base = self.base.consume_iter(claimed);
            } else {
                claimed.for_each(drop);
            }
        }
        self
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.places.closed() || self.base.full()
    }
}

/// The iterator returned by [`ParallelIterator::skip_any`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = (0..100).into_par_iter().skip_any(95).collect();
/// assert_eq!(v.len(), 5);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct SkipAny<I> {
    base: I,
    n: usize,
}

impl<I> SkipAny<I> {
    pub(crate) fn new(base: I, n: usize) -> Self {
        SkipAny { base, n }
    }
}

impl<I: ParallelIterator> ParallelIterator for SkipAny<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let remaining = AtomicUsize::new(self.n);
        let places = Places {
            remaining: &remaining,
            take: false,
        };
        self.base.drive_unindexed(PlacesConsumer {
            base: consumer,
            places,
        })
    }
}
