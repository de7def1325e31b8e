//! `try_reduce` and `try_reduce_with`: `reduce` over `Try` values (`Option`, `Result`,
//! `ControlFlow`) that stops everywhere at the first early exit.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::iter::private::Try;
use crate::iter::ParallelIterator;
use crate::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

pub(crate) fn try_reduce<I, T, ID, OP>(par_iter: I, identity: &ID, op: &OP) -> I::Item
where
    I: ParallelIterator,
    I::Item: Try<Output = T>,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> I::Item + Sync,
{
    let stopped = AtomicBool::new(false);
    let start = || Some(I::Item::from_output(identity()));
    let consumer = TryReduce {
        start: &start,
        op,
        stopped: &stopped,
    };
    let result = par_iter.drive_unindexed(consumer);
    result.unwrap_or_else(|| I::Item::from_output(identity()))
}

pub(crate) fn try_reduce_with<I, T, OP>(par_iter: I, op: &OP) -> Option<I::Item>
where
    I: ParallelIterator,
    I::Item: Try<Output = T>,
    OP: Fn(T, T) -> I::Item + Sync,
{
    let stopped = AtomicBool::new(false);
    let start = || None;
    par_iter.drive_unindexed(TryReduce {
        start: &start,
        op,
        stopped: &stopped,
    })
}

/// Each piece starts from `start()` (the identity, or nothing yet).
struct TryReduce<'f, S, OP> {
    start: &'f S,
    op: &'f OP,
    stopped: &'f AtomicBool,
}

impl<S, OP> Clone for TryReduce<'_, S, OP> {
    fn clone(&self) -> Self {
        TryReduce {
            start: self.start,
            op: self.op,
            stopped: self.stopped,
        }
    }
}

impl<S, OP> TryReduce<'_, S, OP> {
    fn stopped(&self) -> bool {
        // ORDERING: a stop hint; the early-exit value itself travels through the results,
        // so Relaxed suffices. Pairs with the Relaxed store in `combine`.
        self.stopped.load(Ordering::Relaxed)
    }

    /// Combines two partial results in order; `None` means "no item yet".
    fn combine<R, T>(&self, left: Option<R>, right: Option<R>) -> Option<R>
    where
        R: Try<Output = T>,
        OP: Fn(T, T) -> R,
    {
        let (left, right) = match (left, right) {
            (Some(left), Some(right)) => (left, right),
            (left, None) => return left,
            (None, right) => return right,
        };
        let combined = match (left.branch(), right.branch()) {
            (ControlFlow::Continue(a), ControlFlow::Continue(b)) => (self.op)(a, b),
            (ControlFlow::Break(residual), _) | (_, ControlFlow::Break(residual)) => {
                R::from_residual(residual)
            }
        };
        let combined = match combined.branch() {
            ControlFlow::Continue(value) => R::from_output(value),
            ControlFlow::Break(residual) => {
                // ORDERING: see `stopped`.
                self.stopped.store(true, Ordering::Relaxed);
                R::from_residual(residual)
            }
        };
        Some(combined)
    }
}

impl<'f, R, T, S, OP> Consumer<R> for TryReduce<'f, S, OP>
where
    R: Try<Output = T> + Send,
    S: Fn() -> Option<R> + Sync,
    OP: Fn(T, T) -> R + Sync,
{
    type Folder = TryReduceFolder<'f, S, OP, R>;
    type Reducer = Self;
    type Result = Option<R>;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self.clone(), self.clone(), self)
    }

    fn into_folder(self) -> Self::Folder {
        let acc = (self.start)();
        TryReduceFolder {
            consumer: self,
            acc,
            broken: false,
        }
    }

    fn full(&self) -> bool {
        self.stopped()
    }
}

impl<R, T, S, OP> UnindexedConsumer<R> for TryReduce<'_, S, OP>
where
    R: Try<Output = T> + Send,
    S: Fn() -> Option<R> + Sync,
    OP: Fn(T, T) -> R + Sync,
{
    fn split_off_left(&self) -> Self {
        self.clone()
    }

    fn to_reducer(&self) -> Self {
        self.clone()
    }
}

impl<R, T, S, OP> Reducer<Option<R>> for TryReduce<'_, S, OP>
where
    R: Try<Output = T>,
    OP: Fn(T, T) -> R,
{
    fn reduce(self, left: Option<R>, right: Option<R>) -> Option<R> {
        self.combine(left, right)
    }
}

struct TryReduceFolder<'f, S, OP, R> {
    consumer: TryReduce<'f, S, OP>,
    acc: Option<R>,
    /// Whether `acc` holds an early exit.
    broken: bool,
}

impl<R, T, S, OP> Folder<R> for TryReduceFolder<'_, S, OP, R>
where
    R: Try<Output = T>,
    OP: Fn(T, T) -> R,
{
    type Result = Option<R>;

    fn consume(mut self, item: R) -> Self {
        let acc = self.consumer.combine(self.acc.take(), Some(item));
        let stopped = self.consumer.stopped();
        TryReduceFolder {
            acc,
            broken: self.broken || stopped,
            ..self
        }
    }

    fn complete(self) -> Option<R> {
        self.acc
    }

    fn full(&self) -> bool {
        self.broken || self.consumer.stopped()
    }
}
