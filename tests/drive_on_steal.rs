//! The on-steal driver's observable contract (issue #4): on one thread an indexed loop is
//! never split (no range steals), and in every pool size order-sensitive results match the
//! sequential ones.

use weft::prelude::*;

fn pool(threads: usize) -> weft::ThreadPool {
    weft::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

#[test]
fn one_thread_runs_an_indexed_loop_without_any_range_steal() {
    let pool = pool(1);
    let n = 1_000_000u64;
    let before = pool.stats();
    let sum: u64 = pool.install(|| (0..n).into_par_iter().map(|x| x ^ (x >> 3)).sum());
    let delta = pool.stats() - before;
    assert_eq!(sum, (0..n).map(|x| x ^ (x >> 3)).sum::<u64>());
    assert_eq!(delta.range_steals, 0, "{delta:?}");
    assert_eq!(delta.forks_published, 0, "{delta:?}");
    // With nobody to share with, the whole loop is one chunk.
    assert_eq!(delta.chunks_taken, 1, "{delta:?}");
}

#[test]
fn one_thread_calls_init_once_and_more_threads_once_per_chunk_at_most() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let n = 1_000_000u64;
    for threads in [1, 2, 3] {
        let pool = pool(threads);
        let inits = AtomicUsize::new(0);
        let before = pool.stats();
        let sum: u64 = pool.install(|| {
            (0..n)
                .into_par_iter()
                .map_init(|| inits.fetch_add(1, Ordering::Relaxed), |_, x| x * 2)
                .sum()
        });
        let delta = pool.stats() - before;
        assert_eq!(sum, n * (n - 1));
        let inits = inits.into_inner() as u64;
        if threads == 1 {
            assert_eq!(inits, 1);
        } else {
            // `init` runs once per chunk an owner folds (see drive/README.md).
            assert!(
                (1..=delta.chunks_taken).contains(&inits),
                "{inits} {delta:?}"
            );
        }
    }
}

#[test]
fn unbalanced_order_sensitive_work_matches_sequential_in_every_pool() {
    // Item i costs O(i), so the upper half is the expensive one and thieves must split it.
    let n = 3_000usize;
    let cost = |i: usize| (0..i as u64).fold(i as u64, |acc, j| acc.rotate_left(5) ^ j);
    let expected: Vec<u64> = (0..n).map(cost).collect();
    let expected_concat: String = (0..200).map(|i| i.to_string()).collect();
    for threads in [1, 2, 3, 8] {
        let pool = pool(threads);
        let got: Vec<u64> = pool.install(|| (0..n).into_par_iter().map(cost).collect());
        assert_eq!(got, expected, "collect on {threads} threads");
        let concat = pool.install(|| {
            (0..200)
                .into_par_iter()
                .map(|i| i.to_string())
                .reduce(String::new, |a, b| a + &b)
        });
        assert_eq!(
            concat, expected_concat,
            "non-commutative reduce on {threads} threads"
        );
        let first = pool.install(|| (0..n).into_par_iter().find_first(|&i| cost(i) % 7 == 3));
        assert_eq!(
            first,
            (0..n).find(|&i| cost(i) % 7 == 3),
            "{threads} threads"
        );
    }
}
