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
    let start = || Some(identity());
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
    S: Fn() -> Option<T> + Sync,
    OP: Fn(T, T) -> R + Sync,
{
    type Folder = TryReduceFolder<'f, S, OP, T, R::Residual>;
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
            residual: None,
        }
    }

    fn full(&self) -> bool {
        self.stopped()
    }
}

impl<R, T, S, OP> UnindexedConsumer<R> for TryReduce<'_, S, OP>
where
    R: Try<Output = T> + Send,
    S: Fn() -> Option<T> + Sync,
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

/// One piece's fold. It keeps the plain success value (`T`, not `R`) and the early exit
/// apart, so the per-item path is a call of `op` and one branch, with no re-wrapping.
struct TryReduceFolder<'f, S, OP, T, B> {
    consumer: TryReduce<'f, S, OP>,
    /// The fold of the items so far; `None` before the first item of a `try_reduce_with`.
    acc: Option<T>,
    /// The early exit this piece met, if any; nothing is folded after it.
    residual: Option<B>,
}

impl<S, OP, T, B> TryReduceFolder<'_, S, OP, T, B> {
    /// Records an early exit and tells the other pieces to stop.
    fn break_with(mut self, residual: B) -> Self {
        self.residual = Some(residual);
        // ORDERING: see `TryReduce::stopped`.
        self.consumer.stopped.store(true, Ordering::Relaxed);
        self
    }
}

impl<R, T, S, OP> Folder<R> for TryReduceFolder<'_, S, OP, T, R::Residual>
where
    R: Try<Output = T>,
    OP: Fn(T, T) -> R,
{
    type Result = Option<R>;

    const MAY_STOP_EARLY: bool = true;

    fn consume(self, item: R) -> Self {
        self.consume_iter(Some(item))
    }

    /// Folds with the accumulator in a local: folding through `Folder`-by-value steps (the
    /// default `consume_iter`) made the compiler keep the whole folder on the stack and
    /// reload it for every item.
    fn consume_iter<I>(mut self, iter: I) -> Self
    where
        I: IntoIterator<Item = R>,
    {
        if self.full() {
            return self;
        }
        let (op, stopped) = (self.consumer.op, self.consumer.stopped);
        let mut acc = self.acc.take();
        let flow = iter.into_iter().try_for_each(|item| {
            let value = match item.branch() {
                ControlFlow::Continue(value) => value,
                ControlFlow::Break(residual) => return ControlFlow::Break(Some(residual)),
            };
            acc = Some(match acc.take() {
                None => value,
                Some(acc) => match op(acc, value).branch() {
                    ControlFlow::Continue(value) => value,
                    ControlFlow::Break(residual) => return ControlFlow::Break(Some(residual)),
                },
            });
            // ORDERING: see `TryReduce::stopped`.
            if stopped.load(Ordering::Relaxed) {
                return ControlFlow::Break(None);
            }
            ControlFlow::Continue(())
        });
        self.acc = acc;
        match flow {
            ControlFlow::Break(Some(residual)) => self.break_with(residual),
            ControlFlow::Break(None) | ControlFlow::Continue(()) => self,
        }
    }

    fn complete(self) -> Option<R> {
        match self.residual {
            Some(residual) => Some(R::from_residual(residual)),
            None => self.acc.map(R::from_output),
        }
    }

    fn full(&self) -> bool {
        self.residual.is_some() || self.consumer.stopped()
    }
}
