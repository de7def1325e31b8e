//! Parallel iterators over `start..end` ranges of integers and `char`
//! (the counterpart of Rayon's `rayon::range`).
//!
//! ```
//! use weft::prelude::*;
//!
//! let r: weft::range::Iter<u32> = (0..10u32).into_par_iter();
//! assert_eq!(r.sum::<u32>(), 45);
//! ```

pub use crate::iter::source::range::{
    IndexedInclusiveInteger, IndexedRangeInteger, Iter, RangeInteger,
};
