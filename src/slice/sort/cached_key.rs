//! `par_sort_by_cached_key`: compute each key once, in parallel, then sort `(key, index)`.

use std::collections::LinkedList;

use super::quicksort::par_sort_unstable_by;
use super::std_sorts;
use crate::pool;

/// Below this length (or on one thread) std's `sort_by_cached_key` does the whole job.
const PAR_MIN_LEN: usize = if cfg!(miri) { 64 } else { 1 << 12 };
/// Key computation leaves get at least this many elements.
const MIN_KEY_CHUNK_LEN: usize = if cfg!(miri) { 8 } else { 1 << 10 };

/// Stable sort of `v` by the key `key_of`, called exactly once per element.
///
/// The keys are paired with the element's index; since indices are unique, an unstable
/// sort of the pairs orders equal keys by index, which makes the result stable. The sorted
/// indices are then applied to `v` as a permutation, by swapping along its cycles.
pub(crate) fn par_sort_by_cached_key<T, K, F>(v: &mut [T], key_of: F)
where
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
{
    let threads = pool::current_num_threads();
    if threads <= 1 || v.len() < PAR_MIN_LEN {
        std_sorts::sort_by_cached_key(v, key_of);
        return;
    }
    let chunk_len = (v.len() / (threads * 4)).max(MIN_KEY_CHUNK_LEN);
    let parts = keys_of(v, 0, &key_of, chunk_len);
    let mut keyed = Vec::new();
    crate::huge_pages::reserve(&mut keyed, v.len()); // fresh memory: see `huge_pages`
    for mut part in parts {
        keyed.append(&mut part);
    }
    par_sort_unstable_by(&mut keyed, |a: &(K, usize), b: &(K, usize)| a.cmp(b));
    let mut sources: Vec<usize> = keyed.into_iter().map(|(_, index)| index).collect();
    apply_permutation(v, &mut sources);
}

/// `(key_of(&v[i]), first_index + i)` for every element, computed on `join` in chunks of
/// about `chunk_len`, returned as a list of parts in index order.
fn keys_of<T, K, F>(
    v: &mut [T],
    first_index: usize,
    key_of: &F,
    chunk_len: usize,
) -> LinkedList<Vec<(K, usize)>>
where
    T: Send,
    K: Send,
    F: Fn(&T) -> K + Sync,
{
    if v.len() <= chunk_len {
        let part = v
            .iter()
            .enumerate()
            .map(|(i, x)| (key_of(x), first_index + i))
            .collect();
        return LinkedList::from([part]);
    }
    let mid = v.len() / 2;
    let (lo, hi) = v.split_at_mut(mid);
    let (mut left, mut right) = pool::join(
        || keys_of(lo, first_index, key_of, chunk_len),
        || keys_of(hi, first_index + mid, key_of, chunk_len),
    );
    left.append(&mut right);
    left
}

/// Rearranges `v` so that the new `v[i]` is the old `v[sources[i]]`. `sources` must be a
/// permutation of `0..v.len()`; it is used up (every entry becomes its own index).
fn apply_permutation<T>(v: &mut [T], sources: &mut [usize]) {
    for start in 0..v.len() {
        // Follow the cycle through `start`; each swap puts one element in its final place
        // and moves the displaced one along the cycle. Visited entries point to themselves.
        let mut place = start;
        loop {
            let source = std::mem::replace(&mut sources[place], place);
            if source == start {
                break;
            }
            v.swap(place, source);
            place = source;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::apply_permutation;

    #[test]
    fn permutation_moves_each_element_to_its_place() {
        let original: Vec<u32> = (0..50).map(|i| i * 3).collect();
        let sources: Vec<usize> = (0..50).map(|i| (i * 17 + 5) % 50).collect();
        let mut v = original.clone();
        let mut scratch = sources.clone();
        apply_permutation(&mut v, &mut scratch);
        let expected: Vec<u32> = sources.iter().map(|&s| original[s]).collect();
        assert_eq!(v, expected);
    }
}
