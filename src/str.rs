//! Parallel iterators over string slices: [`ParallelString`] (Rayon's `rayon::str`).
//!
//! ```
//! use weft::prelude::*;
//!
//! let words = "the quick brown fox".par_split_whitespace().count();
//! assert_eq!(words, 4);
//! ```

pub use crate::iter::source::str::{
    Bytes, CharIndices, Chars, EncodeUtf16, Lines, MatchIndices, Matches, ParallelString, Pattern,
    Split, SplitAsciiWhitespace, SplitInclusive, SplitTerminator, SplitWhitespace, Utf16Units,
};
