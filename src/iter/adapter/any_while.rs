//! `take_any_while` and `skip_any_while`: like `take_while`/`skip_while`, but a shared
//! flag is set when any piece sees the predicate fail, so which items make it depends on
//! timing. Items are checked in order within each piece.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::iter::ParallelIterator;
use crate::plumbing::UnindexedConsumer;

/// The iterator returned by [`ParallelIterator::take_any_while`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = (0..100).into_par_iter().take_any_while(|&x| x < 50).collect();
/// assert!(v.iter().all(|&x| x < 50));
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct TakeAnyWhile<I, P> {
    base: I,
    predicate: P,
}

impl<I: fmt::Debug, P> fmt::Debug for TakeAnyWhile<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TakeAnyWhile")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, P> TakeAnyWhile<I, P> {
    pub(crate) fn new(base: I, predicate: P) -> Self {
        TakeAnyWhile { base, predicate }
    }
}

impl<I, P> ParallelIterator for TakeAnyWhile<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let failed = AtomicBool::new(false);
        let TakeAnyWhile { base, predicate } = self;
        let (failed, predicate) = (&failed, &predicate);
        let take = move |item| {
            // ORDERING: a stop hint only, nothing is published through it: Relaxed
            // suffices (pairs with the Relaxed store below).
            if failed.load(Ordering::Relaxed) {
                return None;
            }
            if predicate(&item) {
                Some(item)
            } else {
                failed.store(true, Ordering::Relaxed);
                None
            }
        };
        base.map(take).while_some().drive_unindexed(consumer)
    }
}

/// The iterator returned by [`ParallelIterator::skip_any_while`].
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<i32> = (0..100).into_par_iter().skip_any_while(|&x| x < 50).collect();
/// assert!(v.contains(&99));
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct SkipAnyWhile<I, P> {
    base: I,
    predicate: P,
}

impl<I: fmt::Debug, P> fmt::Debug for SkipAnyWhile<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkipAnyWhile")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, P> SkipAnyWhile<I, P> {
    pub(crate) fn new(base: I, predicate: P) -> Self {
        SkipAnyWhile { base, predicate }
    }
}

impl<I, P> ParallelIterator for SkipAnyWhile<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let failed = AtomicBool::new(false);
        let SkipAnyWhile { base, predicate } = self;
        let (failed, predicate) = (&failed, &predicate);
        let keep = move |item: &I::Item| {
            // ORDERING: as in `TakeAnyWhile`: a hint only, Relaxed suffices.
            if failed.load(Ordering::Relaxed) || !predicate(item) {
                failed.store(true, Ordering::Relaxed);
                true
            } else {
                false
            }
        };
        base.filter(keep).drive_unindexed(consumer)
    }
}
