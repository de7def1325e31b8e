//! The `ParallelIterator` family: traits, sources, adapters and consumers.
//!
//! Import the traits with `use weft::prelude::*;`. The plumbing for writing custom
//! parallel iterators is in [`plumbing`].
//!
//! ```
//! use weft::prelude::*;
//!
//! let v: Vec<u32> = (0..1000u32).into_par_iter().map(|x| x % 7).collect();
//! assert_eq!(v.par_iter().sum::<u32>(), v.iter().sum::<u32>());
//! ```
//!
//! Closures run on many threads at once, so they must be `Sync` and `Send`; items must be
//! `Send`. Both are checked at compile time:
//!
//! ```compile_fail
//! use std::cell::Cell;
//! use weft::prelude::*;
//!
//! let count = Cell::new(0); // not Sync: cannot be shared by the workers
//! (0..10).into_par_iter().for_each(|_| count.set(count.get() + 1));
//! ```
//!
//! ```compile_fail
//! use std::rc::Rc;
//! use weft::prelude::*;
//!
//! let shared = vec![Rc::new(1)]; // Rc is neither Send nor Sync
//! let _sum: i32 = shared.par_iter().map(|x| **x).sum();
//! ```
//!
//! ```compile_fail
//! use weft::prelude::*;
//!
//! let mut v = vec![1, 2, 3];
//! let total = std::cell::RefCell::new(0);
//! // A shared reference to a RefCell is not Send: it cannot cross into the closure.
//! v.par_iter_mut().for_each(|x| *total.borrow_mut() += *x);
//! ```

mod adapter; // map, filter, zip, …: one file each
mod collect_targets; // FromParallelIterator / ParallelExtend for std collections
mod consumer; // for_each, reduce, sum, collect, find, …
pub mod deterministic; // deterministic(): the typed front of reproducible chains
mod drain; // ParallelDrainRange, ParallelDrainFull
mod from_par_iter; // FromParallelIterator, ParallelExtend
mod indexed; // IndexedParallelIterator
mod into; // IntoParallelIterator and the by-reference variants
mod parallel_iterator; // ParallelIterator
pub mod plumbing; // producer / consumer traits and the bridge functions
#[doc(hidden)]
pub mod private; // the sealed `Try` trait used in `try_*` signatures
pub(crate) mod source; // ranges, slices, vectors, …

pub use adapter::*;
pub use deterministic::Deterministic;
pub use drain::{ParallelDrainFull, ParallelDrainRange};
pub use either::Either;
pub use from_par_iter::{FromParallelIterator, ParallelExtend};
pub use indexed::IndexedParallelIterator;
pub use into::{IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator};
pub use parallel_iterator::ParallelIterator;
pub use source::bridge::{IterBridge, ParallelBridge};
pub use source::empty_once::{empty, once, Empty, Once};
#[allow(deprecated)]
pub use source::repeat::repeatn;
pub use source::repeat::{repeat, repeat_n, Repeat, RepeatN};
pub use source::split::{split, Split};
pub use source::walk_tree::{
    walk_tree, walk_tree_postfix, walk_tree_prefix, WalkTree, WalkTreePostfix, WalkTreePrefix,
};
