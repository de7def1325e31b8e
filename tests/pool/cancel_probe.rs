//! Attacks on `cancellable` (issue #51): user code that panics in a closure's `Drop` where a
//! stop drops the closure unrun, scopes and tasks that straddle a region's edge, cancelled
//! regions' reductions (every item made dropped exactly once), panics in every kind of user
//! callback meeting a cancel, items that wait on each other, and the rest of the pool's
//! features used inside regions. Everything that could hang runs under a watchdog; no test
//! asserts on time.

use std::collections::{BTreeSet, HashMap, LinkedList};
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
            let result = result.map_err(|payload| boom_tag(payload));
            assert_eq!(result, Ok(Err(Cancelled)), "{threads} threads");
        }
    });
}
