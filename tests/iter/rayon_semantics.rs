//! Rayon's observable behaviour where weft's once differed (#22), each case checked in pools
//! of 1, 2, 3 and 8 threads against values computed independently (std's sequential code,
//! or Rayon's documented figures): piece lengths under `with_min_len` + `with_max_len`,
//! `skip` running what it skips, `fold(..).find_any(..)` stopping early, clones made by
//! `repeat_n`, predicate calls made by `par_chunk_by`, and sorts with a comparator that is
//! not a total order.

use crate::common;

use std::cmp::Ordering;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use common::{in_pools, par, rng};
use par::prelude::*;
use rand::Rng;

#[test]
fn with_min_len_wins_over_a_smaller_with_max_len() {
    // Rayon: no piece shorter than `min` (unless the input is), none longer than
    // `max(max, 2 * min - 1)`; `fold` makes one accumulator per piece, so its counts are
    // the pieces' lengths.
    let mut rng = rng(2201);
    let cases: Vec<(usize, usize, usize)> = (0..60)
        .map(|case| {
            let n = rng.random_range(0..40_000);
            let min = rng.random_range(1..3_000);
            // Half the cases with max <= min, half with max up to 3 * min.
            let max = rng.random_range(1..=min * (1 + 2 * (case % 2)));
            (n, min, max)
        })
        .chain([
            (1_048_576, 1_000, 10),
            (1_000, 30, 30),
            (29, 10, 1),
            (5, 10, 3),
        ])
        .collect();
    in_pools(|threads| {
        for &(n, min, max) in &cases {
            let min_first: Vec<usize> = (0..n)
                .into_par_iter()
                .with_min_len(min)
                .with_max_len(max)
                .fold(|| 0, |count, _| count + 1)
                .collect();
            let max_first: Vec<usize> = (0..n)
                .into_par_iter()
                .with_max_len(max)
                .with_min_len(min)
                .fold(|| 0, |count, _| count + 1)
                .collect();
            for pieces in [min_first, max_first] {
                let what = format!("{threads} threads, n {n}, min {min}, max {max}");
                assert_eq!(pieces.iter().sum::<usize>(), n, "{what}");
                let (lo, hi) = (min.min(n), max.max(2 * min - 1));
                assert!(
                    pieces.iter().all(|&len| lo <= len && len <= hi),
                    "{what}: {pieces:?}"
                );
            }
        }
    });
}

#[test]
fn skip_runs_the_skipped_items_through_the_adapters_before_it() {
    in_pools(|threads| {
        for n in [0usize, 1, 2, 10, 1000, 100_003] {
            for k in [0, 1, n / 2, n.saturating_sub(1), n, n + 5] {
                let seen = AtomicUsize::new(0);
                let kept: Vec<usize> = (0..n)
                    .into_par_iter()
                    .map(|i| {
                        seen.fetch_add(1, Relaxed);
                        i * 3
                    })
                    .skip(k)
                    .collect();
                let expected: Vec<usize> = (0..n).map(|i| i * 3).skip(k).collect();
                let what = format!("{threads} threads, n {n}, skip {k}");
                assert_eq!(kept, expected, "{what}");
                assert_eq!(seen.into_inner(), n, "{what}: every item mapped");
            }
        }
    });
}

/// Counts its drops.
struct Tracked<'a>(&'a AtomicUsize);

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Relaxed);
    }
}

#[test]
fn skip_drops_each_skipped_item_once_and_a_panic_among_them_reaches_the_caller() {
    in_pools(|threads| {
        let drops = AtomicUsize::new(0);
        let items: Vec<Tracked<'_>> = (0..10_000).map(|_| Tracked(&drops)).collect();
        let mapped = AtomicUsize::new(0);
        let kept = items
            .into_par_iter()
            .map(|item| {
                mapped.fetch_add(1, Relaxed);
                item
            })
            .skip(7_000)
            .count();
        assert_eq!(kept, 3_000, "{threads} threads");
        assert_eq!(mapped.into_inner(), 10_000, "{threads} threads");
        assert_eq!(drops.into_inner(), 10_000, "{threads} threads");

        let result = catch_unwind(AssertUnwindSafe(|| {
            (0..1000u32)
                .into_par_iter()
                .map(|i| {
                    assert!(i != 3, "item three");
                    i
                })
                .skip(10)
                .sum::<u32>()
        }));
        let payload = result.expect_err("item 3 panics, though skipped");
        assert_eq!(
            payload.downcast_ref::<&str>(),
            Some(&"item three"),
            "{threads} threads"
        );
    });
}

#[test]
fn fold_then_a_search_stops_early() {
    // Rayon stops at the end of the first leaf to finish; weft hands fold's accumulators on
    // in doubling batches when a search follows, so it stops after a few items.
    let n = 1u64 << 20;
    in_pools(|threads| {
        let seen = AtomicU64::new(0);
        let found = (0..n)
            .into_par_iter()
            .inspect(|_| {
                seen.fetch_add(1, Relaxed);
            })
            .fold(|| 0u64, |acc, x| acc + x)
            .find_any(|_| true);
        assert!(found.is_some());
        let seen = seen.into_inner();
        assert!(
            seen < n / 4,
            "{threads} threads: folded {seen} of {n} items"
        );

        let seen = AtomicU64::new(0);
        let any = (0..n)
            .into_par_iter()
            .inspect(|_| {
                seen.fetch_add(1, Relaxed);
            })
            .fold(Vec::new, |mut v, x| {
                v.push(x);
                v
            })
            .any(|v| !v.is_empty());
        assert!(any);
        let seen = seen.into_inner();
        assert!(
            seen < n / 4,
            "{threads} threads: folded {seen} of {n} items"
        );
    });
}

#[test]
fn fold_handing_accumulators_on_early_keeps_them_in_order() {
    // Each accumulator `find_first` sees is a contiguous run of the input, and the first one
    // holding the target holds it (a run ends where a later one begins).
    let n = 300_000u64;
    in_pools(|threads| {
        for target in [0, 1, 2, 1000, n / 2, n - 1] {
            let run = (0..n)
                .into_par_iter()
                .fold(Vec::new, |mut v, x| {
                    v.push(x);
                    v
                })
                .find_first(|v| v.contains(&target))
                .expect("some run holds the target");
            let what = format!("{threads} threads, target {target}");
            assert!(run.windows(2).all(|w| w[1] == w[0] + 1), "{what}");
            assert!(run.contains(&target), "{what}");
        }
        // Without a search after it, the fold's result is unchanged.
        let total: u64 = (0..n).into_par_iter().fold(|| 0, |a, x| a + x).sum();
        assert_eq!(total, n * (n - 1) / 2);
    });
}

/// Counts its clones and drops.
struct Counted<'a> {
    clones: &'a AtomicUsize,
    drops: &'a AtomicUsize,
}

impl Clone for Counted<'_> {
    fn clone(&self) -> Self {
        self.clones.fetch_add(1, Relaxed);
        Counted {
            clones: self.clones,
            drops: self.drops,
        }
    }
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Relaxed);
    }
}

#[test]
fn repeat_n_makes_no_more_clones_than_rayon() {
    in_pools(|threads| {
        let (clones, drops) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let element = || Counted {
            clones: &clones,
            drops: &drops,
        };
        let take = || (clones.swap(0, Relaxed), drops.swap(0, Relaxed));
        // Rayon's figures: n items cost n - 1 clones however the work is split (each piece
        // hands out the element itself last; each split clones once), and all n are dropped.
        assert_eq!(par::iter::repeat_n(element(), 100).count(), 100);
        assert_eq!(take(), (99, 100), "{threads} threads: count");
        assert_eq!(par::iter::repeat_n(element(), 0).count(), 0);
        assert_eq!(take(), (0, 1), "{threads} threads: empty");
        // Skipped items are never cloned: at most one clone per item produced (Rayon: 2
        // clones and 3 drops when it splits, 1 and 2 when it does not).
        let step99 = par::iter::repeat_n(element(), 100).step_by(99);
        assert_eq!(step99.count(), 2);
        let (made, dropped) = take();
        assert!(
            made <= 2 && dropped == made + 1,
            "{threads} threads: {made}, {dropped}"
        );
        let unsplit = par::iter::repeat_n(element(), 100)
            .step_by(99)
            .with_min_len(2);
        assert_eq!(unsplit.count(), 2);
        assert_eq!(take(), (1, 2), "{threads} threads: unsplit step_by");
        let step50: Vec<Counted<'_>> = par::iter::repeat_n(element(), 100).step_by(50).collect();
        assert_eq!(step50.len(), 2);
        drop(step50);
        let (made, dropped) = take();
        assert!(
            made <= 3 && dropped == made + 1,
            "{threads} threads: {made}, {dropped}"
        );
    });
}

#[test]
fn par_chunk_by_calls_the_predicate_once_per_pair_of_neighbours() {
    in_pools(|threads| {
        let mut rng = rng(2202);
        for n in [0usize, 1, 2, 3, 10, 1000, 100_003] {
            for run_len in [1u32, 3, 50, 1_000_000] {
                let v: Vec<u32> = (0..n)
                    .map(|_| rng.random_range(0..run_len.max(2)))
                    .collect();
                let same_run = |a: &u32, b: &u32| (a / 2 == b / 2) == (run_len > 1);
                let expected: Vec<&[u32]> = v.chunk_by(same_run).collect();

                let calls = AtomicUsize::new(0);
                let runs: Vec<&[u32]> = v
                    .par_chunk_by(|a, b| {
                        calls.fetch_add(1, Relaxed);
                        same_run(a, b)
                    })
                    .collect();
                let what = format!("{threads} threads, n {n}, runs of {run_len}");
                assert_eq!(runs, expected, "{what}");
                assert_eq!(calls.into_inner(), n.saturating_sub(1), "{what}");

                let mut w = v.clone();
                let calls = AtomicUsize::new(0);
                let lens: Vec<usize> = w
                    .par_chunk_by_mut(|a, b| {
                        calls.fetch_add(1, Relaxed);
                        same_run(a, b)
                    })
                    .map(|run| run.len())
                    .collect();
                let expected: Vec<usize> = expected.iter().map(|run| run.len()).collect();
                assert_eq!(lens, expected, "{what} (mut)");
                assert_eq!(calls.into_inner(), n.saturating_sub(1), "{what} (mut)");
            }
        }
    });
}

/// A comparator that answers at random (per call), as Rayon's own test of this does.
fn random_order(calls: &AtomicU64) -> impl Fn(&u32, &u32) -> Ordering + Sync + '_ {
    move |_, _| {
        let call = calls.fetch_add(1, Relaxed);
        let mixed = call.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 61;
        [Ordering::Less, Ordering::Equal, Ordering::Greater][(mixed % 3) as usize]
    }
}

/// A key whose `Ord` answers at random.
struct RandomKey<'a>(&'a AtomicU64);

impl PartialEq for RandomKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for RandomKey<'_> {}

impl PartialOrd for RandomKey<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for RandomKey<'_> {
    fn cmp(&self, _other: &Self) -> Ordering {
        random_order(self.0)(&0, &0)
    }
}

type Sort<'a> = dyn Fn(&mut Vec<u32>) + Sync + 'a;

#[test]
fn sorts_with_a_comparator_that_is_not_an_order_keep_every_element_and_do_not_panic() {
    in_pools(|threads| {
        for len in [10usize, 1000, 20_000, 100_000] {
            let input: Vec<u32> = (0..len as u32)
                .map(|i| i.wrapping_mul(2_654_435_761))
                .collect();
            let mut expected = input.clone();
            expected.sort_unstable();
            let calls = AtomicU64::new(0);
            let sorts: [&Sort<'_>; 5] = [
                &|v| v.par_sort_by(random_order(&calls)),
                &|v| v.par_sort_unstable_by(random_order(&calls)),
                &|v| v.par_sort_by_key(|_| RandomKey(&calls)),
                &|v| v.par_sort_unstable_by_key(|_| RandomKey(&calls)),
                &|v| v.par_sort_by_cached_key(|_| RandomKey(&calls)),
            ];
            for (which, sort) in sorts.iter().enumerate() {
                let mut v = input.clone();
                sort(&mut v);
                v.sort_unstable();
                assert_eq!(v, expected, "{threads} threads, len {len}, sort {which}");
            }
        }
    });
}
