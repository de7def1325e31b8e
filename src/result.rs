//! Parallel iterators over the `Ok` value of a `Result` (Rayon's `rayon::result`).
//!
//! ```
//! use weft::prelude::*;
//!
//! let it: weft::result::IntoIter<i32> = Ok::<i32, String>(4).into_par_iter();
//! assert_eq!(it.collect::<Vec<_>>(), [4]);
//! ```

pub use crate::iter::source::option::{IntoIter, Iter, IterMut};
