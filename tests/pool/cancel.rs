//! `cancellable` and `CancelToken` (issue #51): uncancelled regions give std's results; a
//! cancelled region stops its loops, scopes and spawned tasks (wherever they run, inside
//! `join`s too; a `join` itself runs both closures, as Rayon guarantees) and returns
//! `Err(Cancelled)`; nothing is dropped twice or leaked; panics stay panics;
//! work outside the token runs to its end; the pool stays usable. Every endless piece of
//! work here ends only by a stop, under a watchdog: a stop that never comes fails the test
//! instead of hanging it. No test asserts on time (the latency is measured in
//! `benches/beyond.rs`).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use crate::common::{random_u64s, POOL_SIZES};
use crate::common_pool::{
    assert_pool_still_works, boom, boom_tag, fib_iterative, fib_join, pool, with_watchdog,
};
use weft::prelude::*;
use weft::{CancelToken, Cancelled};

/// Counts its drops: every value made must be dropped exactly once.
struct Counted<'a>(&'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

#[test]
fn an_uncancelled_region_gives_the_results_of_its_work() {
    let v = random_u64s(100_003, 51);
    let want_sum: u64 = v.iter().map(|x| x % 1000).sum();
    let want_squares: Vec<u64> = v.iter().map(|x| (x % 1000) * (x % 1000)).collect();
    for threads in POOL_SIZES {
        let pool = pool(threads);
        let token = CancelToken::new();
        let got = pool.cancellable(&token, || {
            let sum: u64 = v.par_iter().map(|x| x % 1000).sum();
            let squares: Vec<u64> = v.par_iter().map(|x| (x % 1000) * (x % 1000)).collect();
            let fib = fib_join(20);
            let hits = AtomicUsize::new(0);
            weft::scope(|s| {
                for _ in 0..100 {
                    s.spawn(|_| {
                        hits.fetch_add(1, SeqCst);
                    });
                }
            });
            (sum, squares, fib, hits.into_inner())
        });
        let (sum, squares, fib, hits) = got.expect("nobody cancelled the token");
        assert_eq!(sum, want_sum, "{threads} threads");
        assert_eq!(squares, want_squares, "{threads} threads");
        assert_eq!((fib, hits), (fib_iterative(20), 100), "{threads} threads");
        // The global pool's `cancellable` too, from outside any pool.
        assert_eq!(
            weft::cancellable(&token, || v.par_iter().map(|x| x % 1000).sum::<u64>()),
            Ok(want_sum)
        );
    }
}

#[test]
fn a_token_cancelled_before_the_call_runs_nothing() {
    let token = CancelToken::new();
    token.cancel();
    let ran = AtomicBool::new(false);
    for threads in [1, 2] {
        let result = pool(threads).cancellable(&token, || ran.store(true, SeqCst));
        assert_eq!(result, Err(Cancelled));
    }
    assert!(!ran.load(SeqCst));
    let expired = CancelToken::with_deadline(std::time::Instant::now());
    assert_eq!(weft::cancellable(&expired, || 1), Err(Cancelled));
}

#[test]
fn a_region_cancelled_before_its_op_returns_is_an_error_even_if_its_work_completed() {
    let token = CancelToken::new();
    let result = pool(2).cancellable(&token, || {
        let sum: u64 = (0..1000u64).into_par_iter().sum();
        token.cancel();
        sum
    });
    assert_eq!(result, Err(Cancelled));
}

/// Runs an endless indexed loop (far more items than could run before the watchdog fires)
/// in a region of `token` on `pool`; `cancel_at` is called with each item's index and may
/// cancel. Returns the region's result, the code after the loop having run (it must not),
/// and how many items started.
fn endless_loop(
    pool: &weft::ThreadPool,
    token: &CancelToken,
    cancel_at: impl Fn(u64) + Sync,
) -> (Result<(), Cancelled>, bool, usize) {
    let started = AtomicUsize::new(0);
    let after = AtomicBool::new(false);
    let result = pool.cancellable(token, || {
        (0..u64::MAX).into_par_iter().for_each(|i| {
            started.fetch_add(1, SeqCst);
            cancel_at(i);
            std::hint::black_box(i);
        });
        after.store(true, SeqCst);
    });
    (result, after.into_inner(), started.into_inner())
}

#[test]
fn an_endless_loop_stops_once_an_item_cancels_it_on_every_pool() {
    with_watchdog("endless loops cancelled by an item", || {
        for threads in POOL_SIZES {
            let pool = pool(threads);
            let token = CancelToken::new();
            let (result, after, started) = endless_loop(&pool, &token, |i| {
                if i == 10_000 {
                    token.cancel();
                }
            });
            assert_eq!(result, Err(Cancelled), "{threads} threads");
            assert!(!after, "{threads} threads: code after a stopped loop ran");
            assert!(started > 0, "{threads} threads");
            assert_pool_still_works(&pool);
        }
    });
}

#[test]
fn an_endless_loop_stops_when_another_thread_cancels_or_a_deadline_passes() {
    with_watchdog("endless loops cancelled from outside", || {
        for threads in [1, 2, 8] {
            let pool = pool(threads);
            let token = CancelToken::new();
            let canceller = {
                let token = token.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(20));
                    token.cancel();
                })
            };
            let (result, after, _) = endless_loop(&pool, &token, |_| ());
            canceller.join().unwrap();
            assert_eq!(
                (result, after),
                (Err(Cancelled), false),
                "{threads} threads"
            );

            let token = CancelToken::with_timeout(Duration::from_millis(20));
            let (result, after, _) = endless_loop(&pool, &token, |_| ());
            assert_eq!(
                (result, after),
                (Err(Cancelled), false),
                "{threads} threads"
            );
            assert_pool_still_works(&pool);
        }
    });
}

#[test]
fn slow_items_and_loops_nested_in_items_stop_too() {
    with_watchdog("slow and nested loops cancelled", || {
        for threads in [1, 2, 3] {
            let pool = pool(threads);
            let token = CancelToken::new();
            let (started, inner) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let result = pool.cancellable(&token, || {
                (0..1_000_000u32).into_par_iter().for_each(|_| {
                    started.fetch_add(1, SeqCst);
                    // Each item runs an endless inner loop of its own.
                    (0..u64::MAX).into_par_iter().for_each(|_| {
                        if inner.fetch_add(1, SeqCst) == 1000 {
                            token.cancel();
                        }
                        std::thread::sleep(Duration::from_micros(1));
                    });
                });
            });
            assert_eq!(result, Err(Cancelled), "{threads} threads");
            assert!(started.into_inner() < 1_000_000, "{threads} threads");
        }
    });
}

/// A `join` tree of `2^depth` leaves, each a loop of 8 items; the item that makes
/// `cancel_at` items cancels the token. Counts the closures each join ran and the items.
fn join_tree(depth: u32, token: &CancelToken, counts: &[AtomicUsize; 2], cancel_at: usize) {
    let [sides, items] = counts;
    if depth == 0 {
        (0..8u32).into_par_iter().for_each(|_| {
            if items.fetch_add(1, SeqCst) + 1 == cancel_at {
                token.cancel();
            }
        });
        return;
    }
    weft::join(
        || {
            sides.fetch_add(1, SeqCst);
            join_tree(depth - 1, token, counts, cancel_at)
        },
        || {
            sides.fetch_add(1, SeqCst);
            join_tree(depth - 1, token, counts, cancel_at)
        },
    );
}

#[test]
fn a_join_runs_both_closures_in_a_cancelled_region_and_the_loops_inside_stop() {
    // Rayon's guarantee holds in a region: whatever happens, a `join` runs both closures
    // (unsafe code may rely on it). What runs inside them stops: once the token is
    // cancelled, no loop of the tree starts an item (the one that cancelled finishes).
    with_watchdog("a join tree cancelled", || {
        let depth = 10;
        for threads in POOL_SIZES {
            let pool = pool(threads);
            let token = CancelToken::new();
            let counts = [AtomicUsize::new(0), AtomicUsize::new(0)];
            let result = pool.cancellable(&token, || join_tree(depth, &token, &counts, 800));
            assert_eq!(result, Err(Cancelled), "{threads} threads");
            let [sides, items] = counts.map(AtomicUsize::into_inner);
            // Every join of the tree ran both sides: 2 + 4 + ... + 2^depth closures.
            assert_eq!(sides, (1 << (depth + 1)) - 2, "{threads} threads");
            // After the cancel no leaf loop starts; the ones running finish what they
            // claimed: at most one leaf loop's 8 items per worker.
            assert!(items >= 800, "{threads} threads: {items}");
            assert!(items - 800 <= 8 * threads, "{threads} threads: {items}");
            assert_pool_still_works(&pool);
        }
    });
}

#[test]
fn a_scopes_tasks_that_never_started_are_dropped_unrun_and_everything_is_dropped_once() {
    with_watchdog("a scope of a million tasks cancelled", || {
        for threads in [1, 2, 8] {
            let pool = pool(threads);
            let token = CancelToken::new();
            let (ran, made, dropped) = (
                AtomicUsize::new(0),
                AtomicUsize::new(0),
                AtomicUsize::new(0),
            );
            let result = pool.cancellable(&token, || {
                weft::scope(|s| {
                    for _ in 0..1_000_000 {
                        made.fetch_add(1, SeqCst);
                        let counted = Counted(&dropped);
                        let (ran, token) = (&ran, &token);
                        s.spawn(move |_| {
                            let _counted = counted;
                            if ran.fetch_add(1, SeqCst) == 100 {
                                token.cancel();
                            }
                        });
                    }
                });
            });
            assert_eq!(result, Err(Cancelled), "{threads} threads");
            let (ran, made) = (ran.into_inner(), made.into_inner());
            assert!(ran < 1_000_000, "{threads} threads: every task ran");
            assert!(ran > 100, "{threads} threads");
            assert_eq!(dropped.into_inner(), made, "{threads} threads");
            assert_pool_still_works(&pool);
        }
    });
}

#[test]
fn items_made_before_a_stop_are_dropped_exactly_once() {
    with_watchdog("collects cancelled", || {
        for threads in POOL_SIZES {
            let pool = pool(threads);
            let token = CancelToken::new();
            let (made, dropped) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let result = pool.cancellable(&token, || {
                let items: Vec<Counted<'_>> = (0..5_000_000u32)
                    .into_par_iter()
                    .map(|i| {
                        if i == 20_000 {
                            token.cancel();
                        }
                        made.fetch_add(1, SeqCst);
                        Counted(&dropped)
                    })
                    .collect();
                items.len()
            });
            assert_eq!(result, Err(Cancelled), "{threads} threads");
            let made = made.into_inner();
            assert!(
                made < 5_000_000,
                "{threads} threads: the loop ran to its end"
            );
            assert_eq!(dropped.into_inner(), made, "{threads} threads");
        }
    });
}

#[test]
fn a_panic_inside_a_cancelled_region_is_still_a_panic() {
    with_watchdog("panics in cancelled regions", || {
        for threads in [1, 2, 8] {
            let pool = pool(threads);
            // A panic after the cancel, in an item.
            let token = CancelToken::new();
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.cancellable(&token, || {
                    (0..1_000_000u32).into_par_iter().for_each(|i| {
                        if i == 500 {
                            token.cancel();
                            boom("item");
                        }
                    })
                })
            }));
            assert_eq!(boom_tag(caught.unwrap_err()), "item", "{threads} threads");
            // `a` is stopped while `b`, started before the cancel, panics: the panic wins.
            // (`a` waits for `b` to start: another worker must take it.)
            if threads > 1 {
                let token = CancelToken::new();
                let b_started = AtomicBool::new(false);
                let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    pool.cancellable(&token, || {
                        weft::join(
                            || {
                                while !b_started.load(SeqCst) {
                                    std::hint::spin_loop();
                                }
                                token.cancel();
                                weft::join(|| (), || ());
                            },
                            || {
                                b_started.store(true, SeqCst);
                                while !token.is_cancelled() {
                                    std::hint::spin_loop();
                                }
                                boom("b")
                            },
                        )
                    })
                }));
                assert_eq!(boom_tag(caught.unwrap_err()), "b", "{threads} threads");
            }
            // A scope's task cancels and then panics; the tasks that had not started are
            // stopped: the scope resumes the panic.
            let token = CancelToken::new();
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.cancellable(&token, || {
                    weft::scope(|s| {
                        for _ in 0..1000 {
                            s.spawn(|_| ());
                        }
                        s.spawn(|_| {
                            token.cancel();
                            boom("task")
                        });
                        for _ in 0..1000 {
                            s.spawn(|_| ());
                        }
                    })
                })
            }));
            let payload = caught.expect_err("a task's panic is not a stop");
            assert_eq!(boom_tag(payload), "task", "{threads} threads");
            assert_pool_still_works(&pool);
        }
    });
}

#[test]
fn work_outside_the_token_is_never_stopped() {
    with_watchdog("work beside a cancelled region", || {
        let v = random_u64s(2_000_000, 52);
        let want: u64 = v.iter().map(|x| x % 997).sum();
        for threads in [1, 2, 3, 8] {
            let pool = pool(threads);
            let token = CancelToken::new();
            let other = CancelToken::new();
            let (stopped, (plain, in_other)) = pool.join(
                || {
                    endless_loop(&pool, &token, |i| {
                        if i == 100_000 {
                            token.cancel();
                        }
                    })
                },
                || {
                    // Run while the region above is running and being cancelled: the same
                    // workers take pieces of both.
                    let plain: Vec<u64> = (0..20)
                        .map(|_| v.par_iter().map(|x| x % 997).sum())
                        .collect();
                    let in_other =
                        pool.cancellable(&other, || v.par_iter().map(|x| x % 997).sum::<u64>());
                    (plain, in_other)
                },
            );
            assert_eq!(stopped.0, Err(Cancelled), "{threads} threads");
            assert!(plain.iter().all(|&s| s == want), "{threads} threads");
            assert_eq!(in_other, Ok(want), "{threads} threads");
        }
    });
}

#[test]
fn nested_regions_stop_with_their_own_token_or_an_outer_one() {
    with_watchdog("nested regions", || {
        for threads in [1, 2, 8] {
            let pool = pool(threads);
            // The inner token: the inner region fails, the outer goes on.
            let (outer, inner) = (CancelToken::new(), CancelToken::new());
            let result = pool.cancellable(&outer, || {
                let stopped = weft::cancellable(&inner, || {
                    (0..u64::MAX).into_par_iter().for_each(|i| {
                        if i == 1000 {
                            inner.cancel();
                        }
                    })
                });
                let sum: u64 = (0..1000u64).into_par_iter().sum();
                (stopped, sum)
            });
            assert_eq!(result, Ok((Err(Cancelled), 499_500)), "{threads} threads");
            // The outer token stops the inner region's work, and the outer region fails.
            let (outer, inner) = (CancelToken::new(), CancelToken::new());
            let after = AtomicBool::new(false);
            let result = pool.cancellable(&outer, || {
                let _ = weft::cancellable(&inner, || {
                    (0..u64::MAX).into_par_iter().for_each(|i| {
                        if i == 1000 {
                            outer.cancel();
                        }
                    })
                });
                (0..1000u64).into_par_iter().for_each(|_| ());
                after.store(true, SeqCst);
            });
            assert_eq!(result, Err(Cancelled), "{threads} threads");
            assert!(!after.into_inner(), "{threads} threads");
        }
    });
}

#[test]
fn detached_and_handled_tasks_of_a_stopped_region_are_dropped_unrun() {
    with_watchdog("spawned tasks of a stopped region", || {
        // One worker, busy in the region while it spawns: no task can start before the
        // region is cancelled, so every one is dropped unrun when it is taken.
        let pool = pool(1);
        let token = CancelToken::new();
        let (ran, dropped) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        struct Owned(Arc<AtomicUsize>);
        impl Drop for Owned {
            fn drop(&mut self) {
                self.0.fetch_add(1, SeqCst);
            }
        }
        let result = pool.cancellable(&token, || {
            let mut handles = Vec::new();
            for _ in 0..100 {
                let (ran_detached, owned) = (Arc::clone(&ran), Owned(Arc::clone(&dropped)));
                weft::spawn(move || {
                    let _owned = owned;
                    ran_detached.fetch_add(1, SeqCst);
                });
                let ran_handled = Arc::clone(&ran);
                handles.push(weft::spawn_handle(move || {
                    ran_handled.fetch_add(1, SeqCst);
                }));
            }
            token.cancel();
            handles
        });
        assert_eq!(result.as_ref().err(), Some(&Cancelled));
        assert!(crate::common_pool::wait_until(
            || dropped.load(SeqCst) == 100
        ));
        // A handle of a stopped task reports the stop as an unwind with `Cancelled`.
        let handle = pool
            .cancellable(&CancelToken::new(), || {
                let token = CancelToken::new();
                let mut handle = None;
                let _ = weft::cancellable(&token, || {
                    handle = Some(weft::spawn_handle(|| 7));
                    token.cancel();
                });
                handle.unwrap()
            })
            .unwrap();
        let joined = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle.join()));
        assert!(joined.unwrap_err().is::<Cancelled>());
        assert_eq!(ran.load(SeqCst), 0);
        // Spawning in a stopped region stops the code that spawns.
        let token = CancelToken::new();
        let after = AtomicBool::new(false);
        let result = pool.cancellable(&token, || {
            token.cancel();
            weft::spawn(|| ());
            after.store(true, SeqCst);
        });
        assert_eq!((result, after.into_inner()), (Err(Cancelled), false));
        assert_pool_still_works(&pool);
    });
}

#[test]
fn work_handed_to_another_pool_stops_with_the_region() {
    with_watchdog("a region's work in another pool", || {
        let (here, there) = (pool(2), pool(2));
        let token = CancelToken::new();
        let result = here.cancellable(&token, || {
            there.install(|| {
                (0..u64::MAX).into_par_iter().for_each(|i| {
                    if i == 1000 {
                        token.cancel();
                    }
                })
            })
        });
        assert_eq!(result, Err(Cancelled));
        assert_pool_still_works(&there);
    });
}

#[test]
fn a_region_that_is_never_cancelled_matches_std_in_every_reduction() {
    let v = random_u64s(30_001, 53);
    for threads in POOL_SIZES {
        let pool = pool(threads);
        let token = CancelToken::with_timeout(Duration::from_secs(3600));
        let got = pool
            .cancellable(&token, || {
                let max = v.par_iter().max().copied();
                let found = v.par_iter().position_first(|&x| x % 101 == 0);
                let mut sorted = v.clone();
                sorted.par_sort_unstable();
                let evens = v.par_iter().filter(|&&x| x % 2 == 0).count();
                (max, found, sorted, evens)
            })
            .unwrap();
        let mut sorted = v.clone();
        sorted.sort_unstable();
        let want = (
            v.iter().max().copied(),
            v.iter().position(|&x| x % 101 == 0),
            sorted,
            v.iter().filter(|&&x| x % 2 == 0).count(),
        );
        assert_eq!(got, want, "{threads} threads");
    }
}
