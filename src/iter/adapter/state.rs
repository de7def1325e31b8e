//! Where per-piece state comes from, for `map_with`/`map_init`, `fold`/`fold_with` and
//! `try_fold`/`try_fold_with`: a clone of one pristine value, or an `init` closure. Either
//! way the state is made when a piece becomes a folder, not when work splits: on the
//! on-steal driver an owner folds its whole run of chunks into one folder, so `init` (or
//! the clone) runs once per owner, not once per chunk.

use std::sync::{Mutex, PoisonError};

/// A source of per-piece state: splits along with the work, becomes state in the leaf.
pub(crate) trait StateSource: Send {
    type State;
    /// A source for the other half of a split.
    fn split(&self) -> Self;
    /// The state for a leaf.
    fn into_state(self) -> Self::State;
}

/// `map_with` / `fold_with`: each folder's state is a clone of the caller's value, which
/// stays pristine behind a mutex for the whole call (so `T: Send` suffices to share it).
/// Splitting copies the reference; the clone is made in `into_state`. That is one clone per
/// folder, where cloning at every split (as Rayon does) would make one per chunk here. The
/// price: the caller's value itself is never handed to a folder, so a one-piece run makes
/// one clone where Rayon makes none.
pub(crate) struct CloneState<'v, T>(pub(crate) &'v Mutex<T>);

impl<T: Clone + Send> StateSource for CloneState<'_, T> {
    type State = T;

    fn split(&self) -> Self {
        CloneState(self.0)
    }

    fn into_state(self) -> T {
        // A clone that panicked left the value untouched (it had `&T`): ignore the poison.
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// `map_init` / `fold`: each piece calls `init`.
pub(crate) struct InitState<'f, INIT>(pub(crate) &'f INIT);

impl<INIT, T> StateSource for InitState<'_, INIT>
where
    INIT: Fn() -> T + Sync,
{
    type State = T;

    fn split(&self) -> Self {
        InitState(self.0)
    }

    fn into_state(self) -> T {
        (self.0)()
    }
}
