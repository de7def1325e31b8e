//! Oracle tests for the parallel sorts (issue #5): every entry point against std's sort on
//! seeded inputs of every pattern, in pools of 1, 2, 3 and 8 threads.

use std::sync::Mutex;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use weft::slice::ParallelSliceMut;

const POOL_SIZES: [usize; 4] = [1, 2, 3, 8];

/// Runs `check` inside a fresh pool of each size.
fn in_each_pool(check: impl Fn(usize) + Sync) {
    for threads in POOL_SIZES {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| check(threads));
    }
}

/// [`in_each_pool`] with pools built with `huge_pages(true)`.
fn in_each_pool_with_huge_pages(check: impl Fn(usize) + Sync) {
    for threads in POOL_SIZES {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .huge_pages(true)
            .build()
            .unwrap();
        pool.install(|| check(threads));
    }
}

#[derive(Debug, Clone, Copy)]
enum Pattern {
    Random,
    FewUnique,
    AllEqual,
    Sorted,
    Reverse,
    OrganPipe,
    Sawtooth,
    SortedThenRandom,
}

const PATTERNS: [Pattern; 8] = [
    Pattern::Random,
    Pattern::FewUnique,
    Pattern::AllEqual,
    Pattern::Sorted,
    Pattern::Reverse,
    Pattern::OrganPipe,
    Pattern::Sawtooth,
    Pattern::SortedThenRandom,
];

fn input(pattern: Pattern, len: usize, seed: u64) -> Vec<u64> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let len64 = len as u64;
    (0..len64)
        .map(|i| match pattern {
            Pattern::Random => rng.random(),
            Pattern::FewUnique => rng.random_range(0..4),
            Pattern::AllEqual => 7,
            Pattern::Sorted => i,
            Pattern::Reverse => len64 - i,
            Pattern::OrganPipe => i.min(len64 - i),
            Pattern::Sawtooth => i % 1000,
            Pattern::SortedThenRandom if i < len64 * 9 / 10 => i,
            Pattern::SortedThenRandom => rng.random_range(0..len64),
        })
        .collect()
}

/// Sizes: all small lengths, then lengths on both sides of the parallel thresholds.
fn sizes() -> Vec<usize> {
    let mut sizes: Vec<usize> = (0..=20).collect();
    sizes.extend([1000, 8191, 8193, 20_000, 100_000]);
    sizes
}

/// Checks the three unstable and four stable entry points on `values` against std.
fn check_all_sorts(values: &[u64], what: &str) {
    let mut expected = values.to_vec();
    expected.sort_unstable();

    let mut v = values.to_vec();
    v.par_sort_unstable();
    assert_eq!(v, expected, "par_sort_unstable {what}");
    let mut v = values.to_vec();
    v.par_sort();
    assert_eq!(v, expected, "par_sort {what}");

    let mut reversed = expected.clone();
    reversed.reverse();
    let mut v = values.to_vec();
    v.par_sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(v, reversed, "par_sort_unstable_by {what}");

    // Stability: sort (key, original index) pairs by a coarse key only.
    let pairs: Vec<(u64, usize)> = values.iter().map(|&x| x % 16).zip(0..).collect();
    let mut stable = pairs.clone();
    stable.sort_by_key(|p| p.0);
    let mut v = pairs.clone();
    v.par_sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(v, stable, "par_sort_by stability {what}");
    let mut v = pairs.clone();
    v.par_sort_by_key(|p| p.0);
    assert_eq!(v, stable, "par_sort_by_key stability {what}");
    let mut v = pairs.clone();
    v.par_sort_by_cached_key(|p| p.0);
    assert_eq!(v, stable, "par_sort_by_cached_key stability {what}");
    let mut v = pairs;
    v.par_sort_unstable_by_key(|p| p.0);
    let keys: Vec<u64> = v.iter().map(|p| p.0).collect();
    let expected_keys: Vec<u64> = stable.iter().map(|p| p.0).collect();
    assert_eq!(keys, expected_keys, "par_sort_unstable_by_key {what}");
    let mut indices: Vec<usize> = v.iter().map(|p| p.1).collect();
    indices.sort_unstable();
    assert!(
        indices.iter().copied().eq(0..values.len()),
        "lost an element {what}"
    );
}

#[test]
fn every_pattern_and_size_matches_std() {
    in_each_pool(|threads| {
        for pattern in PATTERNS {
            for len in sizes() {
                let values = input(pattern, len, len as u64 ^ 0x5eed);
                check_all_sorts(&values, &format!("{pattern:?} len {len} threads {threads}"));
            }
        }
    });
}

/// Sorts whose scratch buffers get the huge-page advice (at least 32 MiB, in pools with
/// `huge_pages(true)`): the stable sort of 5 million 16-byte pairs by a key with many ties
/// (so a stability error shows), and the cached-key sort, whose keyed copy is 48 MB, against
/// std.
#[test]
fn sorts_with_huge_page_buffers_match_std() {
    let pairs: Vec<(u64, u64)> = input(Pattern::Random, 5_000_000, 46)
        .into_iter()
        .enumerate()
        .map(|(i, x)| (x % 1000, i as u64))
        .collect();
    let mut expected = pairs.clone();
    expected.sort_by_key(|pair| pair.0);
    let keys = input(Pattern::Random, 3_000_000, 47);
    let mut expected_keys = keys.clone();
    expected_keys.sort_by_cached_key(|&x| x.rotate_left(7));
    in_each_pool_with_huge_pages(|threads| {
        let mut v = pairs.clone();
        v.par_sort_by_key(|pair| pair.0);
        assert!(v == expected, "par_sort_by_key, {threads} threads");
        let mut v = keys.clone();
        v.par_sort_by_cached_key(|&x| x.rotate_left(7));
        assert!(
            v == expected_keys,
            "par_sort_by_cached_key, {threads} threads"
        );
    });
}

#[test]
fn a_million_of_each_pattern_matches_std() {
    in_each_pool(|threads| {
        for pattern in PATTERNS {
            let values = input(pattern, 1_000_000, 42);
            let mut expected = values.clone();
            expected.sort_unstable();
            let mut v = values.clone();
            v.par_sort_unstable();
            assert_eq!(
                v, expected,
                "par_sort_unstable {pattern:?} threads {threads}"
            );
            let mut v = values;
            v.par_sort();
            assert_eq!(v, expected, "par_sort {pattern:?} threads {threads}");
        }
    });
}

#[test]
fn strings_sort_like_std() {
    let mut rng = SmallRng::seed_from_u64(7);
    let words: Vec<String> = (0..50_000)
        .map(|_| {
            let len = rng.random_range(0..12);
            (0..len).map(|_| rng.random_range('a'..='e')).collect()
        })
        .collect();
    let mut expected = words.clone();
    expected.sort();
    in_each_pool(|threads| {
        let mut v = words.clone();
        v.par_sort_unstable();
        assert_eq!(v, expected, "par_sort_unstable threads {threads}");
        let mut v = words.clone();
        v.par_sort();
        assert_eq!(v, expected, "par_sort threads {threads}");
        let mut v = words.clone();
        v.par_sort_by_cached_key(|s| s.clone());
        assert_eq!(v, expected, "par_sort_by_cached_key threads {threads}");
    });
}

#[test]
fn zero_sized_elements_keep_their_count() {
    in_each_pool(|_| {
        let mut v: Vec<()> = std::iter::repeat_n((), 100_000).collect();
        v.par_sort_unstable();
        v.par_sort();
        v.par_sort_by_cached_key(|_| 0u8);
        assert_eq!(v.len(), 100_000);
    });
}

#[test]
fn cached_key_calls_the_key_function_once_per_element() {
    let values = input(Pattern::Random, 50_000, 3);
    let calls = std::sync::atomic::AtomicUsize::new(0);
    in_each_pool(|_| {
        calls.store(0, std::sync::atomic::Ordering::SeqCst);
        let mut v = values.clone();
        v.par_sort_by_cached_key(|&x| {
            calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            x
        });
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(
            calls.load(std::sync::atomic::Ordering::SeqCst),
            values.len()
        );
    });
}

/// McIlroy's "killer adversary" for quicksort: the comparator decides values lazily so
/// that each pivot comes out as badly as possible. Sorting indices with it yields an input
/// that is adversarial for this very algorithm (the sort is deterministic per pool size).
fn adversarial_input(len: usize) -> Vec<u64> {
    struct Adversary {
        values: Vec<u64>,
        next_solid: u64,
        candidate: usize,
    }
    let gas = len as u64;
    let state = Mutex::new(Adversary {
        values: vec![gas; len],
        next_solid: 0,
        candidate: 0,
    });
    let mut indices: Vec<usize> = (0..len).collect();
    indices.par_sort_unstable_by(|&x, &y| {
        let mut s = state.lock().unwrap();
        if s.values[x] == gas && s.values[y] == gas {
            let frozen = if x == s.candidate { x } else { y };
            s.values[frozen] = s.next_solid;
            s.next_solid += 1;
        }
        if s.values[x] == gas {
            s.candidate = x;
        } else if s.values[y] == gas {
            s.candidate = y;
        }
        s.values[x].cmp(&s.values[y])
    });
    state.into_inner().unwrap().values
}

#[test]
fn adversarial_input_stays_n_log_n() {
    in_each_pool(|threads| {
        let len = 50_000;
        let values = adversarial_input(len);
        let comparisons = std::sync::atomic::AtomicUsize::new(0);
        let mut v = values.clone();
        v.par_sort_unstable_by(|a, b| {
            comparisons.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            a.cmp(b)
        });
        let mut expected = values;
        expected.sort_unstable();
        assert_eq!(v, expected, "threads {threads}");
        // n log2 n is about 780k here; a quadratic run would need hundreds of millions.
        let count = comparisons.into_inner();
        assert!(
            count < 8 * len * 16,
            "{count} comparisons, threads {threads}"
        );
    });
}
