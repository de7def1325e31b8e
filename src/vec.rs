//! Parallel iterators that move items out of a `Vec` (Rayon's `rayon::vec`).
//!
//! ```
//! use weft::prelude::*;
//!
//! let it: weft::vec::IntoIter<i32> = vec![1, 2].into_par_iter();
//! assert_eq!(it.sum::<i32>(), 3);
//! ```

pub use crate::iter::source::vec::{Drain, IntoIter};
