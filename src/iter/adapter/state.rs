//! Where per-piece state comes from, for `map_with`/`map_init`, `fold`/`fold_with` and
//! `try_fold`/`try_fold_with`: a value cloned at every split, or an `init` closure called
//! once per piece.

/// A source of per-piece state: splits along with the work, becomes state in the leaf.
pub(crate) trait StateSource: Send {
    type State;
    /// A source for the other half of a split.
    fn split(&self) -> Self;
    /// The state for a leaf.
    fn into_state(self) -> Self::State;
}

/// `map_with` / `fold_with`: the value is cloned for each piece.
pub(crate) struct CloneState<T>(pub(crate) T);

impl<T: Clone + Send> StateSource for CloneState<T> {
    type State = T;

    fn split(&self) -> Self {
        CloneState(self.0.clone())
    }

    fn into_state(self) -> T {
        self.0
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
