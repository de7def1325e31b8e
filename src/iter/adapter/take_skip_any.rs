//! `take_any(n)` and `skip_any(n)`: `n` items (or all but `n`) in no particular order. One
//! shared counter hands out the `n` places; whoever gets one keeps (or skips) its item.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::iter::ParallelIterator;
use crate::plumbing::UnindexedConsumer;

/// Claims one of the places left in `remaining`; false when none is left.
#[inline]
fn claim(remaining: &AtomicUsize) -> bool {
    // ORDERING: only the count matters (each place is handed out once by the RMW itself);
    // no other memory is published through it, so Relaxed suffices.
    let claimed = remaining.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
        left.checked_sub(1)
    });
    claimed.is_ok()
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
        let remaining = &remaining;
        // ORDERING: see `claim`.
        let base = self.base.take_any_while(|_| claim(remaining));
        base.drive_unindexed(consumer)
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
        let remaining = &remaining;
        self.base
            .filter(|_| !claim(remaining))
            .drive_unindexed(consumer)
    }
}
