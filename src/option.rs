//! Parallel iterators over the value of an `Option` (Rayon's `rayon::option`).
//!
//! ```
//! use weft::prelude::*;
//!
//! let it: weft::option::IntoIter<i32> = Some(4).into_par_iter();
//! assert_eq!(it.collect::<Vec<_>>(), [4]);
//! ```

pub use crate::iter::source::option::{IntoIter, Iter, IterMut};
