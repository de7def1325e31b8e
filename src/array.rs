//! Parallel iterators over arrays by value (Rayon's `rayon::array`).
//!
//! ```
//! use weft::prelude::*;
//!
//! let it: weft::array::IntoIter<u8, 3> = [1u8, 2, 3].into_par_iter();
//! assert_eq!(it.map(u32::from).sum::<u32>(), 6);
//! ```

pub use crate::iter::source::array::IntoIter;
