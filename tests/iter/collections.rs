//! Oracle tests for the std collections as sources (issue #3): `HashMap`, `HashSet`,
//! `BTreeMap`, `BTreeSet`, `VecDeque`, `BinaryHeap` and `LinkedList` by reference, by mutable
//! reference (where std has `iter_mut`) and by value, plus their `par_drain`.
//!
//! Ordered collections (`BTree*`, `VecDeque`, `LinkedList`) must yield std's order; hash
//! collections and `BinaryHeap` are compared as sorted multisets.

use crate::common;

use common::par::prelude::*;
use common::{in_pools, random_u32s, SIZES};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};

fn each_input(seed: u64, check: impl Fn(usize, Vec<u32>) + Sync) {
    in_pools(|_threads| {
        for n in SIZES {
            check(n, random_u32s(n, 1_000_000, seed));
        }
    });
}

fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items
}

#[test]
fn hash_map_and_hash_set() {
    each_input(60, |_, v| {
        let mut map: HashMap<u32, u64> = v.iter().map(|&x| (x, u64::from(x) * 2)).collect();
        let by_ref: Vec<(&u32, &u64)> = map.par_iter().collect();
        assert_eq!(sorted(by_ref), sorted(map.iter().collect()));
        map.par_iter_mut()
            .for_each(|(k, val)| *val += u64::from(*k));
        assert!(map.iter().all(|(&k, &val)| val == 3 * u64::from(k)));
        let by_value: Vec<(u32, u64)> = map.clone().into_par_iter().collect();
        assert_eq!(sorted(by_value), sorted(map.clone().into_iter().collect()));
        let drained: Vec<(u32, u64)> = map.par_drain().collect();
        assert!(map.is_empty());
        assert_eq!(
            sorted(drained.iter().map(|p| p.0).collect()),
            sorted(
                v.iter()
                    .copied()
                    .collect::<HashSet<_>>()
                    .into_iter()
                    .collect()
            )
        );

        let mut set: HashSet<u32> = v.iter().copied().collect();
        let by_ref: Vec<&u32> = set.par_iter().collect();
        assert_eq!(sorted(by_ref), sorted(set.iter().collect()));
        let by_value: Vec<u32> = set.clone().into_par_iter().collect();
        assert_eq!(sorted(by_value), sorted(set.iter().copied().collect()));
        let expected = sorted(set.iter().copied().collect());
        let drained: Vec<u32> = set.par_drain().collect();
        assert!(set.is_empty());
        assert_eq!(sorted(drained), expected);
    });
}

#[test]
fn btree_map_and_btree_set_keep_key_order() {
    each_input(61, |_, v| {
        let mut map: BTreeMap<u32, u64> = v.iter().map(|&x| (x, u64::from(x))).collect();
        let by_ref: Vec<(&u32, &u64)> = map.par_iter().collect();
        assert_eq!(by_ref, map.iter().collect::<Vec<_>>());
        map.par_iter_mut().for_each(|(_, val)| *val += 1);
        assert!(map.iter().all(|(&k, &val)| val == u64::from(k) + 1));
        let by_value: Vec<(u32, u64)> = map.clone().into_par_iter().collect();
        assert_eq!(by_value, map.into_iter().collect::<Vec<_>>());

        let set: BTreeSet<u32> = v.iter().copied().collect();
        let by_ref: Vec<&u32> = set.par_iter().collect();
        assert_eq!(by_ref, set.iter().collect::<Vec<_>>());
        let by_value: Vec<u32> = set.clone().into_par_iter().collect();
        assert_eq!(by_value, set.into_iter().collect::<Vec<_>>());
    });
}

#[test]
fn vec_deque_and_linked_list_keep_order() {
    each_input(62, |n, v| {
        // A deque whose contents wrap around the end of its buffer.
        let mut deque: VecDeque<u32> = VecDeque::with_capacity(n);
        for (i, &x) in v.iter().enumerate() {
            if i % 2 == 0 {
                deque.push_back(x);
            } else {
                deque.push_front(x);
            }
        }
        let by_ref: Vec<&u32> = deque.par_iter().collect();
        assert_eq!(by_ref, deque.iter().collect::<Vec<_>>());
        assert_eq!(deque.par_iter().len(), n);
        let mut bumped = deque.clone();
        bumped.par_iter_mut().for_each(|x| *x += 1);
        assert!(bumped.iter().zip(&deque).all(|(a, b)| *a == b + 1));
        let by_value: Vec<u32> = deque.clone().into_par_iter().collect();
        assert_eq!(by_value, deque.iter().copied().collect::<Vec<_>>());
        for (lo, hi) in [(0, n), (n / 4, n / 2), (n / 2, n)] {
            let mut par_deque = deque.clone();
            let mut seq_deque = deque.clone();
            let drained: Vec<u32> = par_deque.par_drain(lo..hi).collect();
            assert_eq!(drained, seq_deque.drain(lo..hi).collect::<Vec<_>>());
            assert_eq!(par_deque, seq_deque);
        }

        let mut list: LinkedList<u32> = v.iter().copied().collect();
        let by_ref: Vec<&u32> = list.par_iter().collect();
        assert_eq!(by_ref, list.iter().collect::<Vec<_>>());
        list.par_iter_mut().for_each(|x| *x *= 2);
        assert!(list.iter().zip(&v).all(|(a, b)| *a == 2 * b));
        let by_value: Vec<u32> = list.clone().into_par_iter().collect();
        assert_eq!(by_value, list.into_iter().collect::<Vec<_>>());
    });
}

/// A deque of `v` whose contents wrap around the end of its buffer: the first `v.len() / 3`
/// items are pushed to the front (last first), the rest to the back.
fn wrapped_deque(v: &[u32]) -> VecDeque<u32> {
    let split = v.len() / 3;
    let mut deque = VecDeque::with_capacity(v.len());
    for &x in v[..split].iter().rev() {
        deque.push_front(x);
    }
    deque.extend(&v[split..]);
    deque
}

#[test]
fn vec_deque_by_reference_walks_both_halves_in_place_and_in_order() {
    each_input(64, |n, v| {
        let mut deque = wrapped_deque(&v);
        assert!(deque.iter().eq(&v), "n={n}: the deque holds v in order");
        if n >= 3 {
            let (front, back) = deque.as_slices();
            assert!(
                !front.is_empty() && !back.is_empty(),
                "n={n}: the deque must wrap"
            );
        }
        // By reference: no copy (each item is the deque's own element), std's order, indexed.
        let refs: Vec<&u32> = deque.par_iter().collect();
        assert!(refs.len() == n && refs.iter().zip(&deque).all(|(a, b)| std::ptr::eq(*a, b)));
        let indexed: Vec<(usize, u32)> =
            deque.par_iter().enumerate().map(|(i, &x)| (i, x)).collect();
        assert_eq!(indexed, v.iter().copied().enumerate().collect::<Vec<_>>());
        let pairs: Vec<(u32, u32)> = deque
            .par_iter()
            .zip(v.par_iter())
            .map(|(&a, &b)| (a, b))
            .collect();
        assert!(
            pairs.len() == n && pairs.iter().all(|(a, b)| a == b),
            "n={n}: zip"
        );
        assert_eq!(
            deque.par_iter().rev().copied().collect::<Vec<_>>(),
            v.iter().rev().copied().collect::<Vec<_>>()
        );
        // By mutable reference, in place: each element learns its position.
        deque
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x = x.wrapping_mul(3) ^ i as u32);
        let expected: Vec<u32> = v
            .iter()
            .enumerate()
            .map(|(i, x)| x.wrapping_mul(3) ^ i as u32)
            .collect();
        assert!(deque.iter().eq(&expected), "n={n}: par_iter_mut");
        assert_eq!(deque.par_iter_mut().len(), n);
    });
}

#[test]
fn binary_heap() {
    each_input(63, |_, v| {
        let mut heap: BinaryHeap<u32> = v.iter().copied().collect();
        let by_ref: Vec<&u32> = heap.par_iter().collect();
        assert_eq!(sorted(by_ref), sorted(heap.iter().collect()));
        let by_value: Vec<u32> = heap.clone().into_par_iter().collect();
        assert_eq!(sorted(by_value), sorted(v.clone()));
        let capacity = heap.capacity();
        let drained: Vec<u32> = heap.par_drain().collect();
        assert!(heap.is_empty());
        // Drained, not taken: the heap keeps its capacity (Rayon documents this).
        assert_eq!(heap.capacity(), capacity);
        assert_eq!(sorted(drained), sorted(v.clone()));
    });
}
