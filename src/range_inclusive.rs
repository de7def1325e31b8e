//! Parallel iterators over `start..=end` ranges (Rayon's `rayon::range_inclusive`).
//!
//! ```
//! use weft::prelude::*;
//!
//! let r: weft::range_inclusive::Iter<u8> = (0..=255u8).into_par_iter();
//! assert_eq!(r.count(), 256);
//! ```

pub use crate::iter::source::range_inclusive::Iter;
