//! Every item is dropped exactly once, and nothing leaks, when a closure panics midway
//! through `collect`, `par_drain` or `into_par_iter` (issue #3).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use weft::prelude::*;
use weft::ThreadPoolBuilder;

/// Counts its drops in a shared per-item table.
struct Tracked<'a> {
    id: usize,
    drops: &'a [AtomicUsize],
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.drops[self.id].fetch_add(1, Ordering::Relaxed);
    }
}

fn table(n: usize) -> Vec<AtomicUsize> {
    (0..n).map(|_| AtomicUsize::new(0)).collect()
}

fn items(drops: &[AtomicUsize]) -> Vec<Tracked<'_>> {
    (0..drops.len()).map(|id| Tracked { id, drops }).collect()
}

fn assert_each_dropped_once(drops: &[AtomicUsize], what: &str) {
    for (id, count) in drops.iter().enumerate() {
        assert_eq!(
            count.load(Ordering::Relaxed),
            1,
            "{what}: item {id} dropped wrong number of times"
        );
    }
}

const SIZES: [usize; 5] = [1, 2, 7, 64, 1000];
const THREADS: [usize; 4] = [1, 2, 3, 8];

fn in_pools(test: impl Fn() + Sync) {
    for threads in THREADS {
        ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(&test);
    }
}

#[test]
fn collect_indexed_with_panic_in_map() {
    in_pools(|| {
        for n in SIZES {
            let drops = table(n);
            let poison = n / 2;
            let result = catch_unwind(AssertUnwindSafe(|| {
                items(&drops)
                    .into_par_iter()
                    .map(|item| {
                        assert!(item.id != poison, "boom");
                        item
                    })
                    .collect::<Vec<_>>()
            }));
            assert!(result.is_err());
            assert_each_dropped_once(&drops, "collect (indexed)");
        }
    });
}

/// The same through a source std can index at random (a range, mapped): the collect's
/// zipped store loop, which keeps its count in a register until the panic. Every item made
/// (the poisoned one never is) must be dropped exactly once: none leaked, none twice.
#[test]
fn collect_range_with_panic_in_map() {
    in_pools(|| {
        for n in SIZES {
            let drops = table(n);
            let made = table(n);
            let poison = n / 2;
            let result = catch_unwind(AssertUnwindSafe(|| {
                (0..n)
                    .into_par_iter()
                    .map(|id| {
                        assert!(id != poison, "boom");
                        made[id].fetch_add(1, Ordering::SeqCst);
                        Tracked { id, drops: &drops }
                    })
                    .collect::<Vec<_>>()
            }));
            assert!(result.is_err());
            for id in 0..n {
                let (made, dropped) = (
                    made[id].load(Ordering::SeqCst),
                    drops[id].load(Ordering::SeqCst),
                );
                assert!(made <= 1, "item {id} made {made} times (n = {n})");
                assert_eq!(
                    dropped, made,
                    "item {id}: made {made}, dropped {dropped} (n = {n})"
                );
            }
            assert_eq!(made[poison].load(Ordering::SeqCst), 0);
        }
    });
}

#[test]
fn collect_unindexed_with_panic_in_filter() {
    in_pools(|| {
        for n in SIZES {
            let drops = table(n);
            let poison = n - 1;
            let result = catch_unwind(AssertUnwindSafe(|| {
                items(&drops)
                    .into_par_iter()
                    .filter(|item| {
                        assert!(item.id != poison, "boom");
                        item.id % 3 != 0
                    })
                    .collect::<Vec<_>>()
            }));
            assert!(result.is_err());
            assert_each_dropped_once(&drops, "collect (unindexed)");
        }
    });
}

/// A filtered collect that completes (its pieces written in place, moved together as they
/// merge) drops every item once: the rejected ones in the filter, the kept ones with the
/// result.
#[test]
fn collect_unindexed_drops_each_item_once() {
    in_pools(|| {
        for n in SIZES {
            let drops = table(n);
            let kept = items(&drops)
                .into_par_iter()
                .with_max_len(3)
                .filter(|item| item.id % 3 != 1)
                .collect::<Vec<_>>();
            assert!(kept
                .iter()
                .map(|item| item.id)
                .eq((0..n).filter(|i| i % 3 != 1)));
            drop(kept);
            assert_each_dropped_once(&drops, "collect (unindexed, completed)");
        }
    });
}

#[test]
fn par_drain_with_panic_keeps_the_rest() {
    in_pools(|| {
        for n in SIZES {
            let drops = table(n);
            let mut v = items(&drops);
            let (start, end) = (n / 4, n - n / 4);
            let poison = (start + end) / 2;
            let result = catch_unwind(AssertUnwindSafe(|| {
                v.par_drain(start..end)
                    .for_each(|item| assert!(item.id != poison, "boom"));
            }));
            assert_eq!(result.is_err(), start < end);
            let kept: Vec<usize> = v.iter().map(|item| item.id).collect();
            let expected: Vec<usize> = (0..start).chain(end..n).collect();
            assert_eq!(kept, expected, "par_drain must close the gap");
            for (id, count) in drops.iter().enumerate().take(end).skip(start) {
                assert_eq!(count.load(Ordering::Relaxed), 1, "drained item {id}");
            }
            drop(v);
            assert_each_dropped_once(&drops, "par_drain");
        }
    });
}

#[test]
fn into_par_iter_with_panic_in_for_each() {
    in_pools(|| {
        for n in SIZES {
            let drops = table(n);
            let poison = n / 3;
            let result = catch_unwind(AssertUnwindSafe(|| {
                items(&drops)
                    .into_par_iter()
                    .for_each(|item| assert!(item.id != poison, "boom"));
            }));
            assert!(result.is_err());
            assert_each_dropped_once(&drops, "into_par_iter");
        }
    });
}

#[test]
fn unconsumed_sources_drop_their_items() {
    let drops = table(10);
    let mut v = items(&drops);
    drop(v.par_drain(2..5));
    assert_eq!(v.len(), 7);
    drop(v);
    assert_each_dropped_once(&drops, "unconsumed par_drain");

    let drops = table(10);
    let taken: Vec<usize> = items(&drops)
        .into_par_iter()
        .skip(3)
        .take(4)
        .map(|t| t.id)
        .collect();
    assert_eq!(taken, [3, 4, 5, 6]);
    assert_each_dropped_once(&drops, "skip/take over owned items");
}
