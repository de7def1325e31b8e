//! `for_each`: the simplest consumer; every leaf runs the closure over its items.

use crate::iter::ParallelIterator;
use crate::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

#[inline]
pub(crate) fn for_each<I, F>(par_iter: I, op: &F)
where
    I: ParallelIterator,
    F: Fn(I::Item) + Sync,
{
    par_iter.drive_unindexed(ForEachConsumer { op })
}

/// Calls `op` on every item; splitting copies the reference.
pub(crate) struct ForEachConsumer<'f, F> {
    op: &'f F,
}

impl<'f, F, T> Consumer<T> for ForEachConsumer<'f, F>
where
    F: Fn(T) + Sync,
{
    type Folder = Self;
    type Reducer = NoopReducer;
    type Result = ();

    fn split_at(self, _index: usize) -> (Self, Self, NoopReducer) {
        (self.split_off_left(), self, NoopReducer)
    }

    fn into_folder(self) -> Self {
        self
    }

    fn full(&self) -> bool {
        false
    }

    fn continue_folder(self, folder: Self::Folder) -> Result<Self::Folder, (Self, Self::Folder)> {
        Ok(folder)
    }
}

impl<F, T> UnindexedConsumer<T> for ForEachConsumer<'_, F>
where
    F: Fn(T) + Sync,
{
    fn split_off_left(&self) -> Self {
        ForEachConsumer { op: self.op }
    }

    fn to_reducer(&self) -> NoopReducer {
        NoopReducer
    }
}

impl<F, T> Folder<T> for ForEachConsumer<'_, F>
where
    F: Fn(T) + Sync,
{
    type Result = ();

    fn consume(self, item: T) -> Self {
        (self.op)(item);
        self
    }

    #[allow(clippy::redundant_closure)] // a direct call, not `&F`'s shim: see `MapIter`
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        // A closure of our own that calls `op` directly: passing `&F` itself would go through
        // core's `FnMut for &F` shim, which LLVM often leaves uninlined (see `MapIter`).
        let op = self.op;
        iter.into_iter().for_each(move |item| op(item));
        self
    }

    fn complete(self) {}

    fn full(&self) -> bool {
        false
    }
}

/// Combines two `()` results.
pub(crate) struct NoopReducer;

impl Reducer<()> for NoopReducer {
    #[inline]
    fn reduce(self, _left: (), _right: ()) {}
}
