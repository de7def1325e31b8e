//! A std / loom facade: everything in the crate that needs atomics, locks or threads takes
//! them from here, so that loom model tests (`cfg(all(test, loom))`) can swap them in.

#[cfg(not(all(test, loom)))]
#[allow(unused_imports)]
pub(crate) use std::{
    sync::{atomic, Arc, Condvar, Mutex},
    thread,
};

#[cfg(all(test, loom))]
#[allow(unused_imports)]
pub(crate) use loom::{
    sync::{atomic, Arc, Condvar, Mutex},
    thread,
};

#[cfg(all(test, loom))]
pub(crate) use loom::cell::UnsafeCell;

/// std's `UnsafeCell` behind loom's closure-based interface (`with` / `with_mut`), so that the
/// same code is checked for data races by loom in the models and compiles to plain accesses
/// otherwise.
#[cfg(not(all(test, loom)))]
#[derive(Debug)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(all(test, loom)))]
impl<T> UnsafeCell<T> {
    pub(crate) fn new(value: T) -> Self {
        UnsafeCell(std::cell::UnsafeCell::new(value))
    }

    /// Calls `f` with a pointer for reading the value.
    #[inline]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    /// Calls `f` with a pointer for writing the value.
    #[inline]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}
