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
