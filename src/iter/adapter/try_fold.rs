//! `try_fold` and `try_fold_with`: like `fold`, but a piece stops folding at the first
//! early exit (`None`, `Err`, `Break`) and yields it.

use std::fmt;
use std::marker::PhantomData;
use std::ops::ControlFlow;

use super::state::{CloneState, InitState, StateSource};
use crate::iter::plumbing::*;
use crate::iter::private::Try;
use crate::iter::ParallelIterator;

/// The iterator returned by [`ParallelIterator::try_fold`].
///
/// ```
/// use weft::prelude::*;
///
/// let sums: Option<u8> = (1..=10u8).into_par_iter().try_fold(|| 0u8, u8::checked_add).try_reduce(|| 0, u8::checked_add);
/// assert_eq!(sums, Some(55));
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
pub struct TryFold<I, R, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
    // `R` (the fold's result type) is only named, never stored; `fn() -> R` keeps the
    // adapter `Send`/`Sync` whatever `R` is.
    result: PhantomData<fn() -> R>,
}

impl<I: Clone, R, ID: Clone, F: Clone> Clone for TryFold<I, R, ID, F> {
    fn clone(&self) -> Self {
        TryFold::new(
            self.base.clone(),
            self.identity.clone(),
            self.fold_op.clone(),
        )
    }
}

impl<I: fmt::Debug, R, ID, F> fmt::Debug for TryFold<I, R, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryFold").field("base", &self.base).finish()
    }
}

impl<I, R, ID, F> TryFold<I, R, ID, F> {
    pub(crate) fn new(base: I, identity: ID, fold_op: F) -> Self {
        TryFold {
            base,
            identity,
            fold_op,
            result: PhantomData,
        }
    }
}

impl<U, R, I, ID, F> ParallelIterator for TryFold<I, R, ID, F>
where
    I: ParallelIterator,
    F: Fn(U, I::Item) -> R + Sync + Send,
    ID: Fn() -> U + Sync + Send,
    R: Try<Output = U> + Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let TryFold {
            base,
            identity,
            fold_op,
            ..
        } = self;
        let (source, op) = (InitState(&identity), &fold_op);
        base.drive_unindexed(TryFoldConsumer {
            base: consumer,
            source,
            op,
        })
    }
}

/// The iterator returned by [`ParallelIterator::try_fold_with`].
///
/// ```
/// use weft::prelude::*;
///
/// let r: Result<u32, String> = (1..=4u32).into_par_iter()
///     .try_fold_with(0, |acc, x| if x < 10 { Ok(acc + x) } else { Err("big".into()) })
///     .try_reduce(|| 0, |a, b| Ok(a + b));
/// assert_eq!(r, Ok(10));
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
pub struct TryFoldWith<I, R: Try, F> {
    base: I,
    item: R::Output,
    fold_op: F,
}

impl<I: Clone, R: Try, F: Clone> Clone for TryFoldWith<I, R, F>
where
    R::Output: Clone,
{
    fn clone(&self) -> Self {
        TryFoldWith::new(self.base.clone(), self.item.clone(), self.fold_op.clone())
    }
}

impl<I: fmt::Debug, R: Try, F> fmt::Debug for TryFoldWith<I, R, F>
where
    R::Output: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryFoldWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, R: Try, F> TryFoldWith<I, R, F> {
    pub(crate) fn new(base: I, item: R::Output, fold_op: F) -> Self {
        TryFoldWith {
            base,
            item,
            fold_op,
        }
    }
}

impl<U, R, I, F> ParallelIterator for TryFoldWith<I, R, F>
where
    I: ParallelIterator,
    F: Fn(U, I::Item) -> R + Sync + Send,
    U: Send + Clone,
    R: Try<Output = U> + Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let TryFoldWith {
            base,
            item,
            fold_op,
        } = self;
        let pristine = std::sync::Mutex::new(item);
        let (source, op) = (CloneState(&pristine), &fold_op);
        base.drive_unindexed(TryFoldConsumer {
            base: consumer,
            source,
            op,
        })
    }
}

struct TryFoldConsumer<'f, C, S, F> {
    base: C,
    source: S,
    op: &'f F,
}

impl<C, S: StateSource, F> TryFoldConsumer<'_, C, S, F> {
    /// Splits the base consumer with `split` (`split_at` or `split_at_sized`) and wraps
    /// each piece.
    fn split_base<Red>(self, split: impl FnOnce(C) -> (C, C, Red)) -> (Self, Self, Red) {
        let (left, right, reducer) = split(self.base);
        let (op, left_source) = (self.op, self.source.split());
        let left = TryFoldConsumer {
            base: left,
            source: left_source,
            op,
        };
        (
            left,
            TryFoldConsumer {
                base: right,
                source: self.source,
                op,
            },
            reducer,
        )
    }
}

impl<'f, T, R, C, S, F> Consumer<T> for TryFoldConsumer<'f, C, S, F>
where
    C: Consumer<R>,
    S: StateSource,
    F: Fn(S::State, T) -> R + Sync,
    R: Try<Output = S::State> + Send,
{
    type Folder = TryFoldFolder<'f, C, R, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    super::splits_through_base!();

    fn into_folder(self) -> Self::Folder {
        let acc = ControlFlow::Continue(self.source.into_state());
        TryFoldFolder {
            base: self.base,
            acc,
            op: self.op,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, R, C, S, F> UnindexedConsumer<T> for TryFoldConsumer<'_, C, S, F>
where
    C: UnindexedConsumer<R>,
    S: StateSource,
    F: Fn(S::State, T) -> R + Sync,
    R: Try<Output = S::State> + Send,
{
    fn split_off_left(&self) -> Self {
        let (base, source) = (self.base.split_off_left(), self.source.split());
        TryFoldConsumer {
            base,
            source,
            op: self.op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct TryFoldFolder<'f, C, R: Try, F> {
    base: C,
    acc: ControlFlow<R::Residual, R::Output>,
    op: &'f F,
}

impl<T, R, C, F> Folder<T> for TryFoldFolder<'_, C, R, F>
where
    C: Consumer<R>,
    F: Fn(R::Output, T) -> R,
    R: Try,
{
    type Result = C::Result;

    const MAY_STOP_EARLY: bool = <C::Folder as Folder<R>>::MAY_STOP_EARLY;

    fn consume(self, item: T) -> Self {
        let acc = match self.acc {
            ControlFlow::Continue(value) => (self.op)(value, item).branch(),
            stopped => stopped,
        };
        TryFoldFolder { acc, ..self }
    }

    /// The running value stays in a local (the default would move the whole folder through
    /// the loop per item). As in the default, the base's `full` is checked after every item.
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        if self.full() {
            return self;
        }
        let ControlFlow::Continue(value) = self.acc else {
            unreachable!("a folder whose value broke is full")
        };
        let (op, base) = (self.op, &self.base);
        // A `next` loop with the running value in a mutable local, not `Iterator::try_fold`:
        // through `try_fold` LLVM rotated the loop to test the flag first and kept the sum in
        // two registers, one move per item more than Rayon's loop; this loop compiles to
        // Rayon's.
        let mut iter = iter.into_iter();
        let mut value = value;
        let acc = loop {
            let Some(item) = iter.next() else {
                break ControlFlow::Continue(value);
            };
            match op(value, item).branch() {
                ControlFlow::Continue(next) if base.full() => break ControlFlow::Continue(next),
                ControlFlow::Continue(next) => value = next,
                ControlFlow::Break(residual) => break ControlFlow::Break(residual),
            }
        };
        TryFoldFolder { acc, ..self }
    }

    fn complete(self) -> C::Result {
        let result = match self.acc {
            ControlFlow::Continue(value) => R::from_output(value),
            ControlFlow::Break(residual) => R::from_residual(residual),
        };
        self.base.into_folder().consume(result).complete()
    }

    fn full(&self) -> bool {
        self.acc.is_break() || self.base.full()
    }
}
