//! Sources: where items come from. Each file is one family of producers.

pub(crate) mod array; // [T; N] by value
pub(crate) mod bridge; // par_bridge
pub(crate) mod collections; // HashMap, BTreeMap, VecDeque, … (by value, ref, mut ref)
pub(crate) mod either; // Either<L, R> of two parallel iterators
pub(crate) mod empty_once; // empty, once
pub(crate) mod option; // Option<T>, Result<T, E> (by value, ref, mut ref)
pub(crate) mod range; // Range<integer>
pub(crate) mod range_char; // Range<char>, RangeInclusive<char>
pub(crate) mod range_inclusive; // RangeInclusive<integer>
pub(crate) mod repeat; // repeat, repeat_n
pub(crate) mod slice; // &[T], &mut [T]
pub(crate) mod split; // split
pub(crate) mod str; // ParallelString
pub(crate) mod vec; // Vec<T> and Box<[T]> by value, Vec::par_drain
pub(crate) mod walk_tree; // walk_tree, walk_tree_prefix, walk_tree_postfix
