//! TEMPORARY public entry points for the sorts, used by the tests, benches and examples
//! until `ParallelSliceMut::par_sort*` (which calls the same three functions) is merged.
//! Hidden from the docs; the lead will switch callers to the trait methods.

use std::cmp::Ordering;

/// Sorts `v` in parallel, unstably (parallel quicksort).
///
/// ```
/// let mut v = vec![5, 1, 4, 1, 3];
/// weft::slice::par_sort_unstable(&mut v);
/// assert_eq!(v, [1, 1, 3, 4, 5]);
/// ```
pub fn par_sort_unstable<T: Ord + Send>(v: &mut [T]) {
    super::par_sort_unstable_by(v, T::cmp);
}

/// Sorts `v` in parallel with a comparator, unstably (parallel quicksort).
///
/// ```
/// let mut v = vec![5, 1, 4, 1, 3];
/// weft::slice::par_sort_unstable_by(&mut v, |a, b| b.cmp(a));
/// assert_eq!(v, [5, 4, 3, 1, 1]);
/// ```
pub fn par_sort_unstable_by<T, F>(v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    super::par_sort_unstable_by(v, compare);
}

/// Sorts `v` in parallel by a key, unstably (parallel quicksort). The key function may be
/// called several times per element.
///
/// ```
/// let mut v = vec![-5i32, 1, -4, 3];
/// weft::slice::par_sort_unstable_by_key(&mut v, |x| x.abs());
/// assert_eq!(v, [1, 3, -4, -5]);
/// ```
pub fn par_sort_unstable_by_key<T, K, F>(v: &mut [T], key_of: F)
where
    T: Send,
    K: Ord,
    F: Fn(&T) -> K + Sync,
{
    super::par_sort_unstable_by(v, |a, b| key_of(a).cmp(&key_of(b)));
}

/// Sorts `v` in parallel, stably (parallel merge sort).
///
/// ```
/// let mut v = vec![5, 1, 4, 1, 3];
/// weft::slice::par_sort(&mut v);
/// assert_eq!(v, [1, 1, 3, 4, 5]);
/// ```
pub fn par_sort<T: Ord + Send>(v: &mut [T]) {
    super::par_sort_by(v, T::cmp);
}

/// Sorts `v` in parallel with a comparator, stably (parallel merge sort).
///
/// ```
/// let mut v = vec![(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd')];
/// weft::slice::par_sort_by(&mut v, |a, b| a.0.cmp(&b.0));
/// assert_eq!(v, [(1, 'b'), (1, 'd'), (2, 'a'), (2, 'c')]);
/// ```
pub fn par_sort_by<T, F>(v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    super::par_sort_by(v, compare);
}

/// Sorts `v` in parallel by a key, stably (parallel merge sort). The key function may be
/// called several times per element.
///
/// ```
/// let mut v = vec!["bb", "a", "cc", "d"];
/// weft::slice::par_sort_by_key(&mut v, |s| s.len());
/// assert_eq!(v, ["a", "d", "bb", "cc"]);
/// ```
pub fn par_sort_by_key<T, K, F>(v: &mut [T], key_of: F)
where
    T: Send,
    K: Ord,
    F: Fn(&T) -> K + Sync,
{
    super::par_sort_by(v, |a, b| key_of(a).cmp(&key_of(b)));
}

/// Sorts `v` in parallel by a key computed once per element (in parallel), stably.
///
/// ```
/// let mut v = vec![10, 9, 100, 1];
/// weft::slice::par_sort_by_cached_key(&mut v, |x| x.to_string());
/// assert_eq!(v, [1, 10, 100, 9]);
/// ```
pub fn par_sort_by_cached_key<T, K, F>(v: &mut [T], key_of: F)
where
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
{
    super::par_sort_by_cached_key(v, key_of);
}
