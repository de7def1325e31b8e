//! The traits users import with `use weft::prelude::*;`.
//!
//! ```
//! use weft::prelude::*;
//!
//! assert_eq!(vec![1, 2, 3].par_iter().map(|x| x * 2).sum::<i32>(), 12);
//! ```

pub use crate::iter::{
    FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull, ParallelDrainRange,
    ParallelExtend, ParallelIterator,
};
pub use crate::slice::{ParallelSlice, ParallelSliceMut};
pub use crate::str::ParallelString;
