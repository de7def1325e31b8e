//! Order tests (issue #3): `collect`, `find_first`/`find_last` and a non-commutative `reduce`
//! must give the sequential answer even when work is skewed so that idle threads steal, in
//! pools of 1, 2, 3 and 8 threads.
//!
//! The skew makes a block of items (at the front, the back or scattered) much more costly than
//! the rest, so the thread holding them falls behind and the others steal what remains.

use crate::common;

use common::par::prelude::*;
use common::{in_pools, rng, spin};
use rand::Rng;

const N: usize = 20_000;
const ROUNDS: usize = 3;

/// Where the costly items are.
#[derive(Clone, Copy, Debug)]
enum Skew {
    Front,
    Back,
    Scattered,
}

/// Costly work for the items `skew` selects, nothing for the others; returns `i` unchanged.
fn skewed(i: usize, skew: Skew) -> usize {
    let heavy = match skew {
        Skew::Front => i < N / 8,
        Skew::Back => i >= N - N / 8,
        Skew::Scattered => i % 61 == 0,
    };
    if heavy {
        spin(600); // black-boxed inside, so it is not optimised away
    }
    i
}

fn each_skew(check: impl Fn(Skew) + Sync) {
    in_pools(|_| {
        for _ in 0..ROUNDS {
            for skew in [Skew::Front, Skew::Back, Skew::Scattered] {
                check(skew);
            }
        }
    });
}

#[test]
fn collect_keeps_index_order_under_stealing() {
    let expected: Vec<usize> = (0..N).collect();
    each_skew(|skew| {
        let indexed: Vec<usize> = (0..N).into_par_iter().map(|i| skewed(i, skew)).collect();
        assert_eq!(indexed, expected, "{skew:?}");
        let unindexed: Vec<usize> = (0..N)
            .into_par_iter()
            .filter(|&i| skewed(i, skew) % 3 != 0)
            .collect();
        assert_eq!(
            unindexed,
            (0..N).filter(|i| i % 3 != 0).collect::<Vec<_>>(),
            "{skew:?}"
        );
        let nested: Vec<usize> = (0..N / 100)
            .into_par_iter()
            .flat_map(|block| {
                (block * 100..block * 100 + 100)
                    .into_par_iter()
                    .map(move |i| skewed(i, skew))
            })
            .collect();
        assert_eq!(nested, expected, "{skew:?}");
        let (evens, odds): (Vec<usize>, Vec<usize>) = (0..N)
            .into_par_iter()
            .map(|i| skewed(i, skew))
            .partition(|i| i % 2 == 0);
        assert_eq!(evens, (0..N).step_by(2).collect::<Vec<_>>());
        assert_eq!(odds, (1..N).step_by(2).collect::<Vec<_>>());
    });
}

#[test]
fn find_first_and_last_return_the_sequential_match() {
    each_skew(|skew| {
        // Many items match: only the sequentially first/last one is right.
        let hit = |i: &usize| skewed(*i, skew) % 10 == 3;
        assert_eq!((0..N).into_par_iter().find_first(hit), Some(3), "{skew:?}");
        assert_eq!(
            (0..N).into_par_iter().find_last(hit),
            Some(N - 7),
            "{skew:?}"
        );
        assert_eq!((0..N).into_par_iter().position_first(|i| hit(&i)), Some(3));
        assert_eq!(
            (0..N).into_par_iter().position_last(|i| hit(&i)),
            Some(N - 7)
        );
        let unindexed_first = (0..N)
            .into_par_iter()
            .filter(|i| i % 2 == 1)
            .find_first(hit);
        assert_eq!(unindexed_first, Some(3));
        let unindexed_last = (0..N).into_par_iter().filter(|i| i % 2 == 1).find_last(hit);
        assert_eq!(unindexed_last, Some(N - 7));
        let mapped = (0..N)
            .into_par_iter()
            .find_map_first(|i| hit(&i).then_some(i * 2));
        assert_eq!(mapped, Some(6));
        let mapped = (0..N)
            .into_par_iter()
            .find_map_last(|i| hit(&i).then_some(i * 2));
        assert_eq!(mapped, Some(2 * (N - 7)));
    });
}

/// A 2x2 matrix over the integers mod 2^64: multiplication is associative but not commutative.
type Matrix = [[u64; 2]; 2];

const IDENTITY: Matrix = [[1, 0], [0, 1]];

fn mul(a: Matrix, b: Matrix) -> Matrix {
    let cell = |r: usize, c: usize| {
        a[r][0]
            .wrapping_mul(b[0][c])
            .wrapping_add(a[r][1].wrapping_mul(b[1][c]))
    };
    [[cell(0, 0), cell(0, 1)], [cell(1, 0), cell(1, 1)]]
}

#[test]
fn non_commutative_reduce_keeps_operand_order() {
    let mut rng = rng(70);
    let matrices: Vec<Matrix> = (0..N)
        .map(|_| {
            [
                [rng.random_range(0..5), rng.random_range(0..5)],
                [rng.random_range(0..5), rng.random_range(0..5)],
            ]
        })
        .collect();
    let expected = matrices.iter().fold(IDENTITY, |acc, &m| mul(acc, m));
    let words: Vec<String> = (0..N).map(|i| format!("{i},")).collect();
    let concatenated = words.concat();
    each_skew(|skew| {
        let product = matrices
            .par_iter()
            .enumerate()
            .map(|(i, _)| matrices[skewed(i, skew)])
            .reduce(|| IDENTITY, mul);
        assert_eq!(product, expected, "reduce {skew:?}");
        let product = matrices
            .par_iter()
            .enumerate()
            .map(|(i, _)| matrices[skewed(i, skew)])
            .reduce_with(mul);
        assert_eq!(product, Some(expected), "reduce_with {skew:?}");
        let product = (0..N)
            .into_par_iter()
            .fold(|| IDENTITY, |acc, i| mul(acc, matrices[skewed(i, skew)]))
            .reduce(|| IDENTITY, mul);
        assert_eq!(product, expected, "fold + reduce {skew:?}");

        let text = (0..N)
            .into_par_iter()
            .map(|i| words[skewed(i, skew)].clone())
            .reduce(String::new, |a, b| a + &b);
        assert_eq!(text, concatenated, "string reduce {skew:?}");
        let text: String = (0..N)
            .into_par_iter()
            .map(|i| words[skewed(i, skew)].as_str())
            .collect();
        assert_eq!(text, concatenated, "string collect {skew:?}");
    });
}
