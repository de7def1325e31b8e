//! Panic safety of the iterator family (issue #3): a panic in a user closure reaches the caller
//! with its original payload, every value that was created is dropped exactly once (checked
//! with per-element counters, in the style of Rayon's `tests/sort-panic-safe.rs`), and the
//! pool runs the next job normally. Bad arguments panic with a clear message.

use crate::common;

use common::par::prelude::*;
use common::{in_pools, random_u32s};
use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Once;

/// The payload of every panic these tests cause on purpose.
const BOOM: &str = "boom (expected by the test)";

/// Sizes with at least one item, so a panic can happen.
const SIZES: [usize; 7] = [1, 2, 3, 7, 64, 1000, 100_003];

/// Keeps the deliberate panics out of the test output; other panics are still printed.
fn silence_expected_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if payload_text(info.payload()) != Some(BOOM) {
                default(info);
            }
        }));
    });
}

/// The message of a panic payload (`panic!` with arguments carries a `String`).
fn payload_text(payload: &(dyn Any + Send)) -> Option<&str> {
    match payload.downcast_ref::<&str>() {
        Some(text) => Some(text),
        None => payload.downcast_ref::<String>().map(String::as_str),
    }
}

/// Counts, per index, how many values were created and how many were dropped.
#[derive(Debug)]
struct Ledger {
    created: Vec<AtomicUsize>,
    dropped: Vec<AtomicUsize>,
}

/// A value that records its own drop in a [`Ledger`].
#[derive(Debug)]
struct Tracked<'a> {
    index: usize,
    ledger: &'a Ledger,
}

impl Ledger {
    fn new(n: usize) -> Self {
        let zeros = || (0..n).map(|_| AtomicUsize::new(0)).collect();
        Ledger {
            created: zeros(),
            dropped: zeros(),
        }
    }

    fn make(&self, index: usize) -> Tracked<'_> {
        self.created[index].fetch_add(1, Relaxed);
        Tracked {
            index,
            ledger: self,
        }
    }

    /// Every created value was dropped exactly once; nothing else was dropped.
    fn assert_balanced(&self, what: &str) {
        for (i, (created, dropped)) in self.created.iter().zip(&self.dropped).enumerate() {
            let (created, dropped) = (created.load(Relaxed), dropped.load(Relaxed));
            assert!(created <= 1, "{what}: item {i} created {created} times");
            assert_eq!(
                created, dropped,
                "{what}: item {i} created {created}, dropped {dropped}"
            );
        }
    }
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.ledger.dropped[self.index].fetch_add(1, Relaxed);
    }
}

/// Runs `body`, which must panic with [`BOOM`], and checks the pool still works afterwards.
fn expect_boom<R>(what: &str, body: impl FnOnce() -> R) {
    silence_expected_panics();
    let payload = match panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(_) => panic!("{what}: the panic did not reach the caller"),
        Err(payload) => payload,
    };
    assert_eq!(
        payload_text(&*payload),
        Some(BOOM),
        "{what}: payload changed"
    );
    let after: usize = (0..10_000usize).into_par_iter().map(|x| x % 7).sum();
    assert_eq!(
        after,
        (0..10_000usize).map(|x| x % 7).sum(),
        "{what}: pool unusable after panic"
    );
}

fn panic_points(n: usize) -> [usize; 3] {
    [0, n / 2, n - 1]
}

#[test]
fn panic_in_map_during_collect_drops_each_value_once() {
    in_pools(|threads| {
        for n in SIZES {
            for at in panic_points(n) {
                let what = format!("collect, {threads} threads, n={n}, panic at {at}");
                let ledger = Ledger::new(n);
                expect_boom(&what, || {
                    (0..n)
                        .into_par_iter()
                        .map(|i| {
                            if i == at {
                                panic!("{}", BOOM)
                            } else {
                                ledger.make(i)
                            }
                        })
                        .collect::<Vec<_>>()
                });
                ledger.assert_balanced(&what);

                let ledger = Ledger::new(n);
                expect_boom(&what, || {
                    (0..n)
                        .into_par_iter()
                        .filter(|i| i % 3 != 1 || *i == at)
                        .map(|i| {
                            if i == at {
                                panic!("{}", BOOM)
                            } else {
                                ledger.make(i)
                            }
                        })
                        .collect::<Vec<_>>()
                });
                ledger.assert_balanced(&format!("unindexed {what}"));

                let ledger = Ledger::new(n);
                expect_boom(&what, || {
                    (0..n)
                        .into_par_iter()
                        .map(|i| {
                            if i == at {
                                panic!("{}", BOOM)
                            } else {
                                (ledger.make(i), i)
                            }
                        })
                        .unzip::<_, _, Vec<_>, Vec<_>>()
                });
                ledger.assert_balanced(&format!("unzip {what}"));
            }
        }
    });
}

#[test]
fn panic_while_consuming_a_vec_by_value_drops_each_item_once() {
    in_pools(|threads| {
        for n in SIZES {
            for at in panic_points(n) {
                let what = format!("into_par_iter, {threads} threads, n={n}, panic at {at}");
                let ledger = Ledger::new(n);
                let items: Vec<Tracked<'_>> = (0..n).map(|i| ledger.make(i)).collect();
                expect_boom(&what, || {
                    items
                        .into_par_iter()
                        .map(|item| {
                            if item.index == at {
                                panic!("{}", BOOM)
                            } else {
                                item.index
                            }
                        })
                        .sum::<usize>()
                });
                ledger.assert_balanced(&what);
            }
        }
    });
}

#[test]
fn partly_consumed_vec_drops_the_rest() {
    in_pools(|_| {
        for n in SIZES {
            let ledger = Ledger::new(n);
            let items: Vec<Tracked<'_>> = (0..n).map(|i| ledger.make(i)).collect();
            let kept: Vec<usize> = items
                .into_par_iter()
                .skip(n / 3)
                .take(n / 3)
                .map(|t| t.index)
                .collect();
            assert_eq!(kept, (n / 3..n / 3 + n / 3).collect::<Vec<_>>());
            ledger.assert_balanced("skip/take on Vec by value");

            let ledger = Ledger::new(n);
            let items: Vec<Tracked<'_>> = (0..n).map(|i| ledger.make(i)).collect();
            let found = items
                .into_par_iter()
                .find_any(|t| t.index == n / 2)
                .map(|t| t.index);
            assert_eq!(found, Some(n / 2));
            ledger.assert_balanced("find_any on Vec by value");
        }
    });
}

#[test]
fn panic_during_par_drain_drops_each_item_once() {
    in_pools(|threads| {
        for n in SIZES {
            let (lo, hi) = (n / 4, n - n / 4);
            if lo == hi {
                continue;
            }
            for at in [lo, (lo + hi) / 2, hi - 1] {
                let what =
                    format!("par_drain({lo}..{hi}), {threads} threads, n={n}, panic at {at}");
                let ledger = Ledger::new(n);
                let mut items: Vec<Tracked<'_>> = (0..n).map(|i| ledger.make(i)).collect();
                expect_boom(&what, || {
                    items
                        .par_drain(lo..hi)
                        .map(|item| {
                            if item.index == at {
                                panic!("{}", BOOM)
                            } else {
                                item
                            }
                        })
                        .collect::<Vec<_>>()
                });
                // Whatever the drain left in the vector is still owned by it, exactly once.
                assert!(items.len() <= n);
                drop(items);
                ledger.assert_balanced(&what);
            }
        }
    });
}

#[test]
fn panics_in_other_closures_reach_the_caller() {
    let v = random_u32s(100_003, 1000, 80);
    in_pools(|_| {
        expect_boom("filter", || {
            v.par_iter()
                .filter(|&&x| if x == 999 { panic!("{}", BOOM) } else { true })
                .count()
        });
        expect_boom("for_each", || {
            v.par_iter().for_each(|&x| assert!(x != 999, "{}", BOOM))
        });
        expect_boom("reduce op", || {
            v.par_iter().map(|&x| u64::from(x)).reduce(
                || 0,
                |a, b| {
                    if a + b > 1_000_000 {
                        panic!("{}", BOOM)
                    } else {
                        a + b
                    }
                },
            )
        });
        expect_boom("every item", || {
            (0..10_000).into_par_iter().for_each(|_| panic!("{}", BOOM))
        });
        expect_boom("fold identity", || {
            (0..1000)
                .into_par_iter()
                .fold(|| -> u32 { panic!("{}", BOOM) }, |a, b| a + b)
                .count()
        });
        expect_boom("par_bridge source", || {
            (0..1000u32)
                .map(|x| if x == 500 { panic!("{}", BOOM) } else { x })
                .par_bridge()
                .count()
        });
        expect_boom("panic_fuse", || {
            (0..100_000)
                .into_par_iter()
                .panic_fuse()
                .for_each(|x| assert!(x != 50_000, "{}", BOOM))
        });
    });
}

#[test]
fn panic_fuse_stops_other_pieces_on_the_producer_path_too() {
    // `enumerate` takes `panic_fuse`'s producer, not its consumer. Item 1000 panics early in
    // the owner's piece; without the fuse a thief would still work through its whole half
    // (about n/2 items) before the panic could reach the caller.
    let n = 2_000_000usize;
    let pool = common::par::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let processed = AtomicUsize::new(0);
    pool.install(|| {
        expect_boom("panic_fuse + enumerate", || {
            (0..n)
                .into_par_iter()
                .panic_fuse()
                .enumerate()
                .for_each(|(i, x)| {
                    processed.fetch_add(1, Relaxed);
                    assert!(i != 1000, "{}", BOOM);
                    std::hint::black_box((0..20).fold(x, |a, b| a.rotate_left(7) ^ b));
                })
        });
    });
    let processed = processed.into_inner();
    assert!(
        processed < n / 4,
        "{processed} of {n} items ran after the fuse blew"
    );
}

#[test]
#[should_panic(expected = "same length")]
fn zip_eq_with_unequal_lengths_panics() {
    let a = vec![1, 2, 3];
    let b = vec![1, 2];
    let _ = a.par_iter().zip_eq(&b).count();
}

#[test]
#[should_panic(expected = "chunk_size must not be zero")]
fn par_chunks_of_zero_panics() {
    let v = [1, 2, 3];
    let _ = v.par_chunks(0).count();
}

#[test]
#[should_panic(expected = "chunk_size must not be zero")]
fn par_chunks_mut_of_zero_panics() {
    let mut v = [1, 2, 3];
    v.par_chunks_mut(0).for_each(|_| {});
}

#[test]
#[should_panic(expected = "chunk_size must not be zero")]
fn par_chunks_exact_of_zero_panics() {
    let v = [1, 2, 3];
    let _ = v.par_chunks_exact(0).count();
}

#[test]
#[should_panic(expected = "chunk_size must not be zero")]
fn par_rchunks_of_zero_panics() {
    let v = [1, 2, 3];
    let _ = v.par_rchunks(0).count();
}

#[test]
#[should_panic(expected = "chunk_size must not be zero")]
fn iterator_chunks_of_zero_panics() {
    let _ = (0..10).into_par_iter().chunks(0).count();
}

// Rayon panics here only with "assertion failed: self.window_size >= 1", so no `expected`;
// weft should say something clearer (e.g. "window size must not be zero").
#[test]
#[should_panic]
fn par_windows_of_zero_panics() {
    let v = [1, 2, 3];
    let _ = v.par_windows(0).count();
}

#[test]
#[should_panic(expected = "window length N must not be zero")]
fn par_array_windows_of_zero_panics() {
    let v = [1, 2, 3];
    let _ = v.par_array_windows::<0>().count();
}
