//! Types that appear in public signatures but are not meant to be used or implemented
//! outside weft (as in Rayon's `rayon::iter::private`).

use std::convert::Infallible;
use std::ops::ControlFlow;

/// A stable stand-in for the unstable `std::ops::Try`: the types a `try_*` method can
/// return (`Option`, `Result` and `ControlFlow`). Sealed.
///
/// ```
/// use weft::prelude::*;
///
/// let ok: Result<(), String> = (0..10).into_par_iter().try_for_each(|_| Ok(()));
/// assert!(ok.is_ok());
/// ```
pub trait Try: Sized + sealed::Sealed {
    /// The value carried on success.
    type Output;
    /// What is carried on early exit.
    type Residual;

    /// Wraps a success value.
    fn from_output(output: Self::Output) -> Self;
    /// Rebuilds from an early-exit value.
    fn from_residual(residual: Self::Residual) -> Self;
    /// Continue with the output, or break with the residual.
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output>;
}

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for Option<T> {}
    impl<T, E> Sealed for Result<T, E> {}
    impl<B, C> Sealed for std::ops::ControlFlow<B, C> {}
}

impl<T> Try for Option<T> {
    type Output = T;
    type Residual = Option<Infallible>;

    fn from_output(output: T) -> Self {
        Some(output)
    }
    fn from_residual(_: Option<Infallible>) -> Self {
        None
    }
    fn branch(self) -> ControlFlow<Option<Infallible>, T> {
        match self {
            Some(value) => ControlFlow::Continue(value),
            None => ControlFlow::Break(None),
        }
    }
}

impl<T, E> Try for Result<T, E> {
    type Output = T;
    type Residual = Result<Infallible, E>;

    fn from_output(output: T) -> Self {
        Ok(output)
    }
    fn from_residual(residual: Result<Infallible, E>) -> Self {
        match residual {
            Err(error) => Err(error),
            Ok(never) => match never {},
        }
    }
    fn branch(self) -> ControlFlow<Result<Infallible, E>, T> {
        match self {
            Ok(value) => ControlFlow::Continue(value),
            Err(error) => ControlFlow::Break(Err(error)),
        }
    }
}

impl<B, C> Try for ControlFlow<B, C> {
    type Output = C;
    type Residual = ControlFlow<B, Infallible>;

    fn from_output(output: C) -> Self {
        ControlFlow::Continue(output)
    }
    fn from_residual(residual: ControlFlow<B, Infallible>) -> Self {
        match residual {
            ControlFlow::Break(stop) => ControlFlow::Break(stop),
            ControlFlow::Continue(never) => match never {},
        }
    }
    fn branch(self) -> ControlFlow<ControlFlow<B, Infallible>, C> {
        match self {
            ControlFlow::Continue(value) => ControlFlow::Continue(value),
            ControlFlow::Break(stop) => ControlFlow::Break(ControlFlow::Break(stop)),
        }
    }
}
