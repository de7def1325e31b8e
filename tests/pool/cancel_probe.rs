//! Attacks on `cancellable` (issue #51): user code that panics in a closure's `Drop` where a
//! stop drops the closure unrun, scopes and tasks that straddle a region's edge, cancelled
//! regions' reductions (every item made dropped exactly once), panics in every kind of user
//! callback meeting a cancel, items that wait on each other, and the rest of the pool's
//! features used inside regions. Everything that could hang runs under a watchdog; no test
//! asserts on time.

use std::collections::{HashMap, LinkedList};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{random_u64s, POOL_SIZES};
use crate::common_pool::{
    assert_pool_still_works, boom, boom_tag, pool, wait_until, with_watchdog,
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

/// Sets its flag, then panics with `Boom(tag)`, when dropped.
struct PanicOnDrop<'a>(&'a AtomicBool, &'static str);

impl Drop for PanicOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, SeqCst);
        boom(self.1)
    }
}

/// Runs `op` and returns its panic payload's `Boom` tag, or fails if it did not panic.
fn panic_tag<R>(what: &str, op: impl FnOnce() -> R) -> &'static str {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(op)) {
        Ok(_) => panic!("{what}: no panic"),
        Err(payload) => boom_tag(payload),
    }
}

#[test]
fn a_scope_task_dropped_unrun_whose_closure_panics_in_drop_is_a_panic_not_a_hang() {
    with_watchdog("a stopped scope task whose drop panics", || {
        for threads in [1, 2, 3] {
            let pool = pool(threads);
            let token = CancelToken::new();
            let dropped = AtomicBool::new(false);
            let tag = panic_tag("scope", || {
                pool.cancellable(&token, || {
                    weft::scope(|s| {
                        let bomb = PanicOnDrop(&dropped, "drop");
                        s.spawn(move |_| drop(bomb));
                        token.cancel();
                        // Let another worker take the task (after the cancel: unrun).
                        if threads > 1 {
                            assert!(wait_until(|| dropped.load(SeqCst)));
                        }
                    })
                })
            });
            assert_eq!(tag, "drop", "{threads} threads");
            assert_pool_still_works(&pool);
        }
    });
}

#[test]
fn a_join_b_dropped_unrun_by_a_thief_whose_closure_panics_in_drop_is_a_panic_not_a_hang() {
    with_watchdog("a stopped join half whose drop panics", || {
        for threads in [1, 2, 3] {
            let pool = pool(threads);
            let token = CancelToken::new();
            let dropped = AtomicBool::new(false);
            let tag = panic_tag("join", || {
                pool.cancellable(&token, || {
                    let bomb = PanicOnDrop(&dropped, "drop");
                    weft::join(
                        || {
                            token.cancel();
                            // Let another worker take `b` (after the cancel: unrun).
                            if threads > 1 {
                                assert!(wait_until(|| dropped.load(SeqCst)));
                            }
                        },
                        move || drop(bomb),
                    )
                })
            });
            assert_eq!(tag, "drop", "{threads} threads");
            assert_pool_still_works(&pool);
        }
    });
}

#[test]
fn a_scope_outside_a_region_is_not_stopped_by_the_regions_tasks() {
    with_watchdog("a scope around a region", || {
        // One worker: the task cannot start before the region is cancelled.
        let pool = pool(1);
        let token = CancelToken::new();
        let ran = AtomicBool::new(false);
        let after = AtomicBool::new(false);
        let got = pool.install(|| {
            weft::scope(|s| {
                let inner = weft::cancellable(&token, || {
                    s.spawn(|_| ran.store(true, SeqCst));
                    token.cancel();
                });
                after.store(true, SeqCst);
                inner
            })
        });
        assert_eq!(got, Err(Cancelled));
        assert!(after.into_inner());
        assert!(!ran.into_inner(), "the region's task ran after its stop");
        assert_pool_still_works(&pool);
    });
}

#[test]
fn a_task_spawned_outside_a_region_and_joined_inside_it_is_not_stopped() {
    with_watchdog("a task joined inside a cancelled region", || {
        // One worker: the task cannot start before the join runs it inline.
        let pool = pool(1);
        let token = CancelToken::new();
        let items = Arc::new(AtomicUsize::new(0));
        let got = pool.install(|| {
            let counted = Arc::clone(&items);
            let outside = weft::spawn_handle(move || {
                (0..200_000u64)
                    .into_par_iter()
                    .map(|i| {
                        counted.fetch_add(1, SeqCst);
                        std::hint::black_box(i) % 7
                    })
                    .sum::<u64>()
            });
            weft::cancellable(&token, || {
                token.cancel();
                outside.join()
            })
        });
        assert_eq!(got, Err(Cancelled));
        assert_eq!(
            items.load(SeqCst),
            200_000,
            "work outside the token was stopped"
        );
        assert_pool_still_works(&pool);
    });
}

#[test]
fn a_thiefs_panic_that_lost_to_its_joins_a_panic_is_not_resumed_by_a_later_stop() {
    with_watchdog("a join's b panic superseded by a's", || {
        for threads in [2, 3] {
            let pool = pool(threads);
            let token = CancelToken::new();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.cancellable(&token, || {
                    // Both halves panic, `b` on a thief: `join` resumes `a`'s panic and drops
                    // `b`'s (Rayon's contract); the region's code catches `a`'s and goes on.
                    let b_started = AtomicBool::new(false);
                    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        weft::join(
                            || {
                                assert!(wait_until(|| b_started.load(SeqCst)));
                                boom("a")
                            },
                            || {
                                b_started.store(true, SeqCst);
                                boom("b")
                            },
                        )
                    }));
                    assert_eq!(boom_tag(caught.unwrap_err()), "a");
                    // Later, the region is cancelled: its next loop stops.
                    (0..u64::MAX).into_par_iter().for_each(|i| {
                        if i == 1000 {
                            token.cancel();
                        }
                    });
                })
            }));
            let result = result.map_err(boom_tag);
            assert_eq!(result, Ok(Err(Cancelled)), "{threads} threads");
        }
    });
}

/// Runs `op` in a region of a fresh token on `pool`, where `op` gets the token (to cancel
/// from its items); asserts the region was stopped.
fn stopped_region<R: Send>(
    pool: &weft::ThreadPool,
    what: &str,
    op: impl FnOnce(&CancelToken) -> R + Send,
) {
    let token = CancelToken::new();
    let result = pool.cancellable(&token, || op(&token));
    assert!(result.is_err(), "{what}: the region was not stopped");
}

#[test]
fn every_reduction_of_droppable_items_drops_each_item_made_exactly_once_when_stopped() {
    with_watchdog("reductions of droppable items cancelled", || {
        const N: u32 = 3_000_000;
        const CANCEL_AT: u32 = 20_000;
        for threads in POOL_SIZES {
            let pool = pool(threads);
            let (made, dropped) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let item = |i: u32, token: &CancelToken| {
                if i == CANCEL_AT {
                    token.cancel();
                }
                made.fetch_add(1, SeqCst);
                Counted(&dropped)
            };
            stopped_region(&pool, "unzip", |token| {
                let (a, b): (Vec<_>, Vec<_>) = (0..N)
                    .into_par_iter()
                    .map(|i| (item(i, token), item(i, token)))
                    .unzip();
                (a.len(), b.len())
            });
            stopped_region(&pool, "partition", |token| {
                let (a, b): (Vec<_>, Vec<_>) = (0..N)
                    .into_par_iter()
                    .map(|i| (i, item(i, token)))
                    .partition(|(i, _)| i % 3 == 0);
                (a.len(), b.len())
            });
            stopped_region(&pool, "HashMap", |token| {
                let map: HashMap<u32, Counted<'_>> = (0..N)
                    .into_par_iter()
                    .map(|i| (i, item(i, token)))
                    .collect();
                map.len()
            });
            stopped_region(&pool, "LinkedList", |token| {
                let list: LinkedList<Counted<'_>> =
                    (0..N).into_par_iter().map(|i| item(i, token)).collect();
                list.len()
            });
            stopped_region(&pool, "filter_map collect", |token| {
                let kept: Vec<Counted<'_>> = (0..N)
                    .into_par_iter()
                    .filter_map(|i| {
                        let counted = item(i, token);
                        (i % 2 == 0).then_some(counted)
                    })
                    .collect();
                kept.len()
            });
            stopped_region(&pool, "flat_map_iter collect", |token| {
                let kept: Vec<Counted<'_>> = (0..N / 4)
                    .into_par_iter()
                    .flat_map_iter(|i| (0..4).map(move |j| i * 4 + j))
                    .map(|i| item(i, token))
                    .collect();
                kept.len()
            });
            stopped_region(&pool, "fold and reduce into vectors", |token| {
                (0..N)
                    .into_par_iter()
                    .fold(Vec::new, |mut v, i| {
                        v.push(item(i, token));
                        v
                    })
                    .reduce(Vec::new, |mut a, mut b| {
                        a.append(&mut b);
                        a
                    })
                    .len()
            });
            // par_extend of a vector that already holds items: they stay, once each.
            let mut held: Vec<Counted<'_>> = (0..10).map(|_| Counted(&dropped)).collect();
            made.fetch_add(10, SeqCst);
            stopped_region(&pool, "par_extend", |token| {
                held.par_extend((0..N).into_par_iter().map(|i| item(i, token)));
            });
            assert_eq!(held.len(), 10, "{threads} threads: par_extend kept a part");
            drop(held);
            let (made, dropped) = (made.into_inner(), dropped.into_inner());
            assert!(
                made < 7 * N as usize,
                "{threads} threads: nothing was stopped"
            );
            assert_eq!(dropped, made, "{threads} threads");
            // Strings: a double drop or a leak of their buffers would crash or show in
            // the allocator; the region only has to stop.
            stopped_region(&pool, "String", |token| {
                (0..N)
                    .into_par_iter()
                    .map(|i| {
                        if i == CANCEL_AT {
                            token.cancel();
                        }
                        i.to_string()
                    })
                    .collect::<String>()
                    .len()
            });
            assert_pool_still_works(&pool);
        }
    });
}

#[test]
fn a_sort_stopped_midway_leaves_a_permutation_of_its_items() {
    with_watchdog("sorts cancelled midway", || {
        let words: Vec<String> = random_u64s(20_000, 61)
            .into_iter()
            .map(|x| format!("w{:x}", x % 1_000_003))
            .collect();
        let mut want = words.clone();
        want.sort();
        for threads in [1, 2, 3, 8] {
            let pool = pool(threads);
            type Sort = fn(&mut [String], &(dyn Fn() + Sync));
            let sorts: [(&str, Sort); 4] = [
                ("par_sort_by", |v, look| {
                    v.par_sort_by(|a, b| {
                        look();
                        a.cmp(b)
                    })
                }),
                ("par_sort_unstable_by", |v, look| {
                    v.par_sort_unstable_by(|a, b| {
                        look();
                        a.cmp(b)
                    })
                }),
                ("par_sort_by_key", |v, look| {
                    v.par_sort_by_key(|a| {
                        look();
                        a.clone()
                    })
                }),
                ("par_sort_by_cached_key", |v, look| {
                    v.par_sort_by_cached_key(|a| {
                        look();
                        a.clone()
                    })
                }),
            ];
            for (name, sort) in sorts {
                for cancel_at in [1usize, 3_000, 100_000] {
                    let mut v = words.clone();
                    let token = CancelToken::new();
                    let calls = AtomicUsize::new(0);
                    let look = || {
                        if calls.fetch_add(1, SeqCst) == cancel_at {
                            token.cancel();
                        }
                    };
                    let result = pool.cancellable(&token, || sort(&mut v, &look));
                    if result.is_ok() {
                        assert!(calls.into_inner() <= cancel_at, "{name}: not stopped");
                        assert_eq!(v, want, "{name} {threads} threads");
                    } else {
                        v.sort();
                        assert_eq!(v, want, "{name} {threads} threads at {cancel_at}");
                    }
                }
            }
        }
    });
}

#[test]
fn a_vec_consumed_by_a_stopped_loop_drops_each_item_exactly_once() {
    with_watchdog("vectors consumed by stopped loops", || {
        const N: usize = 2_000_000;
        for threads in POOL_SIZES {
            let pool = pool(threads);
            let dropped = AtomicUsize::new(0);
            let make = || -> Vec<Counted<'_>> { (0..N).map(|_| Counted(&dropped)).collect() };
            let v = make();
            stopped_region(&pool, "into_par_iter", |token| {
                v.into_par_iter().enumerate().for_each(|(i, item)| {
                    if i == 20_000 {
                        token.cancel();
                    }
                    drop(item);
                })
            });
            assert_eq!(dropped.load(SeqCst), N, "{threads} threads: into_par_iter");
            let mut v = make();
            stopped_region(&pool, "par_drain", |token| {
                v.par_drain(N / 4..).enumerate().for_each(|(i, item)| {
                    if i == 20_000 {
                        token.cancel();
                    }
                    drop(item);
                })
            });
            assert_eq!(v.len(), N / 4, "{threads} threads: par_drain");
            drop(v);
            assert_eq!(dropped.load(SeqCst), 2 * N, "{threads} threads: par_drain");
        }
    });
}

#[test]
fn a_panic_in_any_user_callback_that_also_cancels_is_a_panic() {
    with_watchdog("panics in every callback kind, with a cancel", || {
        const N: u64 = 1_000_000;
        for threads in POOL_SIZES {
            let pool = pool(threads);
            let check = |what: &str, tag: &str, op: &(dyn Fn(&CancelToken) + Sync)| {
                let token = CancelToken::new();
                let got = panic_tag(what, || pool.cancellable(&token, || op(&token)));
                assert_eq!(got, tag, "{what}, {threads} threads");
            };
            let cancel_and_boom = |token: &CancelToken, tag: &'static str| -> ! {
                token.cancel();
                boom(tag)
            };
            check("map", "map", &|t| {
                (0..N)
                    .into_par_iter()
                    .map(|i| {
                        if i == 5000 {
                            cancel_and_boom(t, "map")
                        } else {
                            i
                        }
                    })
                    .sum::<u64>();
            });
            check("fold identity", "identity", &|t| {
                (0..N)
                    .into_par_iter()
                    .fold(|| cancel_and_boom(t, "identity"), |a: u64, i| a + i)
                    .sum::<u64>();
            });
            let calls = AtomicUsize::new(0);
            check("reduce op", "reduce", &|t| {
                (0..N).into_par_iter().reduce(
                    || 0,
                    |a, b| {
                        if calls.fetch_add(1, SeqCst) == 5000 {
                            cancel_and_boom(t, "reduce")
                        }
                        a ^ b
                    },
                );
            });
            check("for_each", "for_each", &|t| {
                (0..N).into_par_iter().for_each(|i| {
                    if i == 5000 {
                        cancel_and_boom(t, "for_each")
                    }
                })
            });
            check("join a", "a", &|t| {
                weft::join(|| cancel_and_boom(t, "a"), || ());
            });
            check("join b", "b", &|t| {
                weft::join(|| (), || cancel_and_boom(t, "b"));
            });
            check("scope task", "task", &|t| {
                weft::scope(|s| {
                    for i in 0..2000 {
                        s.spawn(move |_| {
                            if i == 1000 {
                                cancel_and_boom(t, "task")
                            }
                        });
                    }
                })
            });
            let dropped = AtomicBool::new(false);
            check("an item's drop", "item drop", &|t| {
                (0..N).into_par_iter().for_each(|i| {
                    if i == 5000 {
                        t.cancel();
                        drop(PanicOnDrop(&dropped, "item drop"));
                    }
                })
            });
            check("a producer's split", "split", &|t| {
                // Every split of the range cancels and panics: the first one is enough.
                weft::iter::split(0..N, |_| -> (std::ops::Range<u64>, Option<_>) {
                    cancel_and_boom(t, "split")
                })
                .for_each(|r| {
                    std::hint::black_box(r);
                });
            });
            assert_pool_still_works(&pool);
        }
    });
}

#[test]
fn a_panic_and_a_cancel_from_items_on_different_workers_give_the_panic() {
    with_watchdog("a panic on one worker, a cancel on another", || {
        const N: u64 = 1_000_000;
        for threads in [2, 3, 8] {
            let pool = pool(threads);
            let token = CancelToken::new();
            let last_started = AtomicBool::new(false);
            let got = panic_tag("items on two workers", || {
                pool.cancellable(&token, || {
                    (0..N).into_par_iter().for_each(|i| {
                        if i == 0 {
                            // The last item runs on a thief: it panics once this cancels.
                            assert!(wait_until(|| last_started.load(SeqCst)));
                            token.cancel();
                        } else if i == N - 1 {
                            last_started.store(true, SeqCst);
                            assert!(wait_until(|| token.is_cancelled()));
                            boom("last")
                        }
                    })
                })
            });
            assert_eq!(got, "last", "{threads} threads");
        }
    });
}

#[test]
fn items_that_wait_on_each_other_end_cancelled_or_not() {
    with_watchdog("items waiting on each other in regions", || {
        const N: u64 = 100_000;
        for threads in [2, 3, 8] {
            let pool = pool(threads);
            for cancel in [false, true] {
                let token = CancelToken::new();
                let last_ran = AtomicBool::new(false);
                let result = pool.cancellable(&token, || {
                    (0..N).into_par_iter().for_each(|i| {
                        if i == 0 {
                            if cancel {
                                token.cancel();
                            }
                            while !last_ran.load(SeqCst) && !token.is_cancelled() {
                                std::hint::spin_loop();
                            }
                        } else if i == N - 1 {
                            last_ran.store(true, SeqCst);
                        }
                    });
                    // A join whose `a` waits for its `b`.
                    let b_ran = AtomicBool::new(false);
                    weft::join(
                        || {
                            while !b_ran.load(SeqCst) && !token.is_cancelled() {
                                std::hint::spin_loop();
                            }
                        },
                        || b_ran.store(true, SeqCst),
                    );
                    b_ran.into_inner()
                });
                let want = if cancel { Err(Cancelled) } else { Ok(true) };
                assert_eq!(result, want, "{threads} threads, cancel {cancel}");
            }
        }
    });
}

#[test]
fn a_token_shared_by_two_concurrent_regions_stops_both_and_deadlines_stop_too() {
    with_watchdog("a token shared by two regions", || {
        for threads in [1, 2, 3, 8] {
            let pool = pool(threads);
            let token = CancelToken::new();
            let endless = |token: &CancelToken, cancel: bool| {
                pool.cancellable(token, || {
                    (0..u64::MAX).into_par_iter().for_each(|i| {
                        if cancel && i == 50_000 {
                            token.cancel();
                        }
                    })
                })
            };
            // The token is cancelled from outside both regions: an item of one region
            // cannot be relied on to cancel, since the other region's endless loop may hold
            // every worker before the first one starts (its work waits in the injector).
            // (In a pool of one, that is certain: the pair runs on 2 threads and more.)
            if threads > 1 {
                let (a, b) = std::thread::scope(|s| {
                    let a = s.spawn(|| endless(&token, false));
                    let b = s.spawn(|| endless(&token, false));
                    std::thread::sleep(Duration::from_millis(20));
                    token.cancel();
                    (a.join().unwrap(), b.join().unwrap())
                });
                assert_eq!(
                    (a, b),
                    (Err(Cancelled), Err(Cancelled)),
                    "{threads} threads"
                );
            }
            let deadline =
                CancelToken::with_deadline(std::time::Instant::now() + Duration::from_millis(10));
            assert_eq!(
                endless(&deadline, false),
                Err(Cancelled),
                "{threads} threads"
            );
            let timeout = CancelToken::with_timeout(Duration::from_millis(10));
            assert_eq!(
                endless(&timeout, false),
                Err(Cancelled),
                "{threads} threads"
            );
            // A timeout too long for an `Instant` never expires.
            let never = CancelToken::with_timeout(Duration::MAX);
            assert_eq!(
                pool.cancellable(&never, || (0..1000u64).into_par_iter().sum::<u64>()),
                Ok(499_500)
            );
        }
    });
}

#[test]
fn regions_and_isolate_nest_both_ways() {
    with_watchdog("regions and isolate", || {
        let v = random_u64s(100_000, 62);
        let want: u64 = v.iter().map(|x| x % 1009).sum();
        for threads in [1, 2, 3] {
            let pool = pool(threads);
            let ok = CancelToken::new();
            let got = pool.cancellable(&ok, || {
                weft::isolate(|| v.par_iter().map(|x| x % 1009).sum::<u64>())
            });
            assert_eq!(got, Ok(want), "{threads} threads");
            let token = CancelToken::new();
            let got = pool.cancellable(&token, || {
                weft::isolate(|| {
                    (0..u64::MAX).into_par_iter().for_each(|i| {
                        if i == 10_000 {
                            token.cancel();
                        }
                    })
                })
            });
            assert_eq!(got, Err(Cancelled), "{threads} threads");
            let token = CancelToken::new();
            let (inner, sum) = pool.install(|| {
                weft::isolate(|| {
                    let inner = weft::cancellable(&token, || {
                        (0..u64::MAX).into_par_iter().for_each(|i| {
                            if i == 10_000 {
                                token.cancel();
                            }
                        })
                    });
                    (inner, v.par_iter().map(|x| x % 1009).sum::<u64>())
                })
            });
            assert_eq!((inner, sum), (Err(Cancelled), want), "{threads} threads");
        }
    });
}

#[test]
fn unindexed_deterministic_and_scanning_loops_stop_and_match_std_when_not_cancelled() {
    with_watchdog("par_bridge, deterministic and scans in regions", || {
        let v = random_u64s(50_000, 63);
        let want_sum: u64 = v.iter().map(|x| x % 1013).sum();
        let want_scan: Vec<u64> = v
            .iter()
            .scan(0u64, |acc, x| {
                *acc = acc.wrapping_add(x % 1013);
                Some(*acc)
            })
            .collect();
        for threads in [1, 2, 3, 8] {
            let pool = pool(threads);
            let ok = CancelToken::new();
            let got = pool
                .cancellable(&ok, || {
                    let bridged: u64 = v.iter().par_bridge().map(|x| x % 1013).sum();
                    let det: u64 = v.par_iter().deterministic().map(|x| x % 1013).sum();
                    let scan: Vec<u64> = v
                        .par_iter()
                        .map(|x| x % 1013)
                        .inclusive_scan(|| 0, u64::wrapping_add)
                        .collect();
                    (bridged, det, scan)
                })
                .unwrap();
            assert_eq!(got, (want_sum, want_sum, want_scan.clone()), "{threads}");
            stopped_region(&pool, "par_bridge", |token| {
                (0..u64::MAX).par_bridge().for_each(|i| {
                    if i == 10_000 {
                        token.cancel();
                    }
                })
            });
            stopped_region(&pool, "deterministic", |token| {
                (0..usize::MAX)
                    .into_par_iter()
                    .deterministic()
                    .map(|i| {
                        if i == 10_000 {
                            token.cancel();
                        }
                        i & 1
                    })
                    .sum::<usize>()
            });
            stopped_region(&pool, "scan", |token| {
                (0..5_000_000u32)
                    .into_par_iter()
                    .map(|i| {
                        if i == 10_000 {
                            token.cancel();
                        }
                        u64::from(i)
                    })
                    .inclusive_scan(|| 0, u64::wrapping_add)
                    .for_each(|x| {
                        std::hint::black_box(x);
                    })
            });
            let mut w: Vec<u64> = v.iter().map(|x| x % 1013).collect();
            let token = CancelToken::new();
            let _ = pool.cancellable(&token, || {
                w.par_inclusive_scan_mut(|a, b| {
                    token.cancel();
                    a.wrapping_add(b)
                })
            });
            assert_eq!(w.len(), v.len());
        }
    });
}

#[test]
fn futures_broadcasts_and_block_on_in_regions() {
    with_watchdog("futures, broadcasts and block_on in regions", || {
        const N: u64 = 100_000;
        for threads in [1, 2, 3] {
            let pool = pool(threads);
            // A future spawned in a region is not stopped with it.
            let token = CancelToken::new();
            let handle = Mutex::new(None);
            let result = pool.cancellable(&token, || {
                *handle.lock().unwrap() = Some(weft::spawn_future(async move {
                    (0..N).into_par_iter().map(|i| i % 3).sum::<u64>()
                }));
                token.cancel();
                (0..u64::MAX).into_par_iter().for_each(|_| ());
            });
            assert_eq!(result, Err(Cancelled), "{threads} threads");
            let handle = handle.into_inner().unwrap().unwrap();
            let want: u64 = (0..N).map(|i| i % 3).sum();
            assert_eq!(weft::block_on(handle), want, "{threads} threads");
            // `block_on` inside a region: the future's loop is the region's work.
            let token = CancelToken::new();
            let result = pool.cancellable(&token, || {
                weft::block_on(async {
                    (0..u64::MAX).into_par_iter().for_each(|i| {
                        if i == 10_000 {
                            token.cancel();
                        }
                    })
                })
            });
            assert_eq!(result, Err(Cancelled), "{threads} threads");
            // A broadcast is not stopped; the region stops after it.
            let token = CancelToken::new();
            let hits = AtomicUsize::new(0);
            let result = pool.cancellable(&token, || {
                token.cancel();
                weft::broadcast(|_| {
                    hits.fetch_add(1, SeqCst);
                    (0..1000u64).into_par_iter().sum::<u64>()
                })
            });
            assert_eq!(result, Err(Cancelled), "{threads} threads");
            assert_eq!(hits.into_inner(), threads, "{threads} threads");
            assert_pool_still_works(&pool);
        }
    });
}

#[test]
fn a_pool_resized_during_a_region_stops_it_and_stays_usable() {
    with_watchdog("a resize during a region", || {
        for (from, to) in [(4, 1), (1, 3), (2, 8), (8, 2)] {
            let pool = pool(from);
            let token = CancelToken::new();
            let resized = AtomicBool::new(false);
            let result = pool.cancellable(&token, || {
                (0..u64::MAX).into_par_iter().for_each(|i| {
                    if i == 10_000 && !resized.swap(true, SeqCst) {
                        pool.set_num_threads(to).unwrap();
                    }
                    if i == 200_000 {
                        token.cancel();
                    }
                })
            });
            assert_eq!(result, Err(Cancelled), "{from} -> {to}");
            assert_eq!(pool.current_num_threads(), to);
            assert_pool_still_works(&pool);
        }
    });
}
