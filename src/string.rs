//! `par_drain` on a `String` (Rayon's `rayon::string`).
//!
//! ```
//! use weft::prelude::*;
//!
//! let mut s = String::from("hello, world");
//! let drained: weft::string::Drain<'_> = s.par_drain(5..);
//! assert_eq!(drained.collect::<String>(), ", world");
//! assert_eq!(s, "hello");
//! ```

/// The parallel iterator returned by `par_drain` on a `&mut String`: the drained `char`s,
/// in order. They are moved out of the string when the drain is made; `'a` is the borrow
/// of the string, named as in Rayon's `Drain<'a>`.
///
/// ```
/// use weft::prelude::*;
///
/// let mut s = String::from("añb");
/// let d: weft::string::Drain<'_> = s.par_drain(..);
/// assert_eq!(d.collect::<Vec<char>>(), ['a', 'ñ', 'b']);
/// assert!(s.is_empty());
/// ```
pub type Drain<'a> = crate::vec::IntoIter<char>;
