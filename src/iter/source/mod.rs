//! Sources: where items come from. Each file is one family of producers.

pub(crate) mod array; // [T; N] by value
pub(crate) mod option;
pub(crate) mod range; // Range<integer>, Range<char>
pub(crate) mod slice; // &[T], &mut [T]
pub(crate) mod vec; // Vec<T> by value, par_drain // Option<T>, Result<T, E>
