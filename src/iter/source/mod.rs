//! Sources: where items come from. Each file is one family of producers.

pub(crate) mod array; // [T; N] by value
pub(crate) mod bridge; // par_bridge
pub(crate) mod collections; // HashMap, BTreeMap, VecDeque, … (by value, ref, mut ref)
pub(crate) mod either;
pub(crate) mod option;
pub(crate) mod range; // Range<integer>, Range<char>
pub(crate) mod range_char; // Range<char>, RangeInclusive<char>
pub(crate) mod range_inclusive; // RangeInclusive<integer>
pub(crate) mod repeat; // empty, once, repeat, repeat_n, split (until split into files)
pub(crate) mod slice; // &[T], &mut [T]
pub(crate) mod str; // ParallelString
pub(crate) mod vec; // Vec<T> by value, par_drain // Option<T>, Result<T, E> // Either<L, R>
pub(crate) mod walk_tree; // walk_tree, walk_tree_prefix, walk_tree_postfix
