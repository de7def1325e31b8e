//! Pivot choice and partitioning for the parallel quicksort.
//!
//! Partitioning moves elements through a held-out temporary (`guard::partition_cyclic`),
//! whose drop guard keeps the slice a permutation of its input whatever the comparator does
//! (including panicking half-way).

/// Slices at least this long take their pivot as a pseudo-median of 81 samples; shorter
/// ones use a ninther (pseudo-median of 9).
const LARGE_SAMPLE_MIN_LEN: usize = 1 << 14;

/// Returns the index of a pivot for `v` (`v.len() >= 9`): the median of medians of 3 over
/// 81 evenly spread samples for large slices, a ninther for smaller ones. The sample grid
/// is shifted by a length-dependent offset so that fixed-stride adversarial patterns have a
/// harder time defeating it (and the caller's bad-partition limit catches the rest).
pub(super) fn choose_pivot<T, F>(v: &[T], is_less: &F) -> usize
where
    F: Fn(&T, &T) -> bool,
{
    let samples = if v.len() >= LARGE_SAMPLE_MIN_LEN {
        81
    } else {
        9
    };
    let stride = v.len() / samples;
    let offset = (v.len() % stride.max(1)) / 2;
    let mut indices = [0usize; 81];
    for (k, slot) in indices[..samples].iter_mut().enumerate() {
        *slot = offset + k * stride;
    }
    pseudo_median(v, &indices[..samples], is_less)
}

/// The median of medians of 3 of `v[indices]`, `indices.len()` a power of 3.
fn pseudo_median<T, F>(v: &[T], indices: &[usize], is_less: &F) -> usize
where
    F: Fn(&T, &T) -> bool,
{
    if indices.len() == 1 {
        return indices[0];
    }
    let third = indices.len() / 3;
    let a = pseudo_median(v, &indices[..third], is_less);
    let b = pseudo_median(v, &indices[third..2 * third], is_less);
    let c = pseudo_median(v, &indices[2 * third..], is_less);
    median_of_3(v, a, b, c, is_less)
}

/// The index among `a`, `b`, `c` whose element is the median of the three.
fn median_of_3<T, F>(v: &[T], a: usize, b: usize, c: usize, is_less: &F) -> usize
where
    F: Fn(&T, &T) -> bool,
{
    let ab = is_less(&v[a], &v[b]);
    let bc = is_less(&v[b], &v[c]);
    if ab == bc {
        return b; // a < b < c or c <= b <= a
    }
    let ac = is_less(&v[a], &v[c]);
    // b is the smallest or the largest: the median is whichever of a, c is larger than
    // the other when b is the smallest, smaller when b is the largest.
    if ab == ac {
        c
    } else {
        a
    }
}

/// Moves the elements for which `goes_left` holds to the front of `v` and returns how many
/// there are: the branch-free cyclic partition in `guard.rs` (it holds one element out while
/// it runs, and its drop guard puts it back if `goes_left` panics).
pub(super) fn partition<T>(v: &mut [T], goes_left: impl FnMut(&T) -> bool) -> usize {
    super::guard::partition_cyclic(v, goes_left)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_3_all_orders() {
        let less = |a: &i32, b: &i32| a < b;
        for perm in [
            [1, 2, 3],
            [1, 3, 2],
            [2, 1, 3],
            [2, 3, 1],
            [3, 1, 2],
            [3, 2, 1],
        ] {
            let m = median_of_3(&perm, 0, 1, 2, &less);
            assert_eq!(perm[m], 2, "{perm:?}");
        }
        assert_eq!([5, 5, 1][median_of_3(&[5, 5, 1], 0, 1, 2, &less)], 5);
    }

    #[test]
    fn partition_splits_by_predicate() {
        let mut v: Vec<u32> = (0..1000).map(|i| (i * 7919) % 1000).collect();
        let n = partition(&mut v, |&x| x < 300);
        assert_eq!(n, 300);
        assert!(v[..n].iter().all(|&x| x < 300));
        assert!(v[n..].iter().all(|&x| x >= 300));
        let mut sorted = v.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn partition_of_every_small_length_and_split_matches_a_filter() {
        for len in 0..40u32 {
            for cut in 0..=len {
                let mut v: Vec<u32> = (0..len).map(|i| (i * 17 + 5) % len.max(1)).collect();
                let expected_left = v.iter().filter(|&&x| x < cut).count();
                let n = partition(&mut v, |&x| x < cut);
                assert_eq!(n, expected_left, "len {len}, cut {cut}");
                assert!(v[..n].iter().all(|&x| x < cut) && v[n..].iter().all(|&x| x >= cut));
                let mut sorted = v.clone();
                sorted.sort_unstable();
                let mut original: Vec<u32> = (0..len).map(|i| (i * 17 + 5) % len.max(1)).collect();
                original.sort_unstable();
                assert_eq!(sorted, original, "a permutation of the input");
            }
        }
    }

    #[test]
    fn a_panicking_predicate_leaves_a_permutation_and_drops_each_value_once() {
        use std::panic::{catch_unwind, AssertUnwindSafe};
        use std::rc::Rc;
        // Each value is an `Rc` of its identity: strong counts reveal lost or doubled values.
        for len in [1usize, 2, 3, 10, 257] {
            for panic_at in 0..len {
                let values: Vec<Rc<usize>> = (0..len).map(Rc::new).collect();
                let mut v: Vec<Rc<usize>> = values.iter().rev().cloned().collect();
                let mut calls = 0;
                let result = catch_unwind(AssertUnwindSafe(|| {
                    partition(&mut v, |x| {
                        calls += 1;
                        assert!(calls <= panic_at, "deliberate");
                        **x % 3 == 0
                    })
                }));
                assert!(result.is_err(), "len {len}, panic at call {}", panic_at + 1);
                let mut seen: Vec<usize> = v.iter().map(|x| **x).collect();
                seen.sort_unstable();
                assert_eq!(seen, (0..len).collect::<Vec<_>>(), "len {len}");
                assert!(values.iter().all(|x| Rc::strong_count(x) == 2));
                drop(v);
                assert!(values.iter().all(|x| Rc::strong_count(x) == 1));
            }
        }
    }

    #[test]
    fn pivot_of_sorted_input_is_central() {
        let v: Vec<u32> = (0..100_000).collect();
        let p = choose_pivot(&v, &|a: &u32, b: &u32| a < b);
        assert!((40_000..60_000).contains(&v[p]), "pivot {}", v[p]);
    }
}
