//! `weft::isolate`: a worker waiting inside an isolated region runs only that region's work.
//! The deadlock it removes (a `Mutex` held across an inner parallel loop), the rule itself
//! (no outer task ever starts on a thread that is inside a region), parallelism inside a
//! region, nesting, scopes, spawned tasks, handles and panics.

use crate::common_pool;

use common_pool::{boom, boom_tag, fib_iterative, fib_join, par, pool, with_watchdog};
use par::prelude::*;
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The example, made small: outer items each take the lock and run an inner
/// parallel loop of small pieces while holding it.
fn locked_inner_loops(outer: u64, inner: u32) -> u64 {
    let total = Mutex::new(0u64);
    (0..outer).into_par_iter().for_each(|i| {
        let mut total = total.lock().unwrap();
        *total += par::isolate(|| {
            (0..inner)
                .into_par_iter()
                .with_max_len(16)
                .map(|x| u64::from(x) % 7 + i)
                .sum::<u64>()
        });
    });
    total.into_inner().unwrap()
}

fn locked_inner_loops_expected(outer: u64, inner: u32) -> u64 {
    (0..outer)
        .map(|i| (0..inner).map(|x| u64::from(x) % 7 + i).sum::<u64>())
        .sum()
}

#[test]
fn a_lock_held_across_an_isolated_inner_loop_never_deadlocks() {
    let (outer, inner) = (16, 512);
    let expected = locked_inner_loops_expected(outer, inner);
    for threads in [2, 8, 32] {
        let runs = with_watchdog("1000 runs of the locked inner loops", move || {
            for _ in 0..1000 {
                let pool = pool(threads);
                assert_eq!(pool.install(|| locked_inner_loops(outer, inner)), expected);
            }
            1000
        });
        assert_eq!(runs, 1000, "{threads} threads");
    }
}

thread_local! {
    /// How many region bodies or region pieces are running on this thread's stack.
    static INSIDE_REGION: Cell<usize> = const { Cell::new(0) };
}

fn inside_region<R>(body: impl FnOnce() -> R) -> R {
    INSIDE_REGION.with(|depth| depth.set(depth.get() + 1));
    let result = body();
    INSIDE_REGION.with(|depth| depth.set(depth.get() - 1));
    result
}

#[test]
fn no_outer_task_starts_on_a_thread_inside_an_isolated_region() {
    // Every outer item checks that its thread is not inside a region (a region body, or a
    // region's piece a thief runs and waits in). Without isolation, a worker waiting for a
    // stolen inner piece starts outer items while its region is on its stack.
    for threads in [2, 4, 8] {
        let violations = with_watchdog("the region-rule check", move || {
            let violations = AtomicUsize::new(0);
            for _ in 0..10 {
                let sums = pool(threads).install(|| {
                    (0..64u32)
                        .into_par_iter()
                        .with_max_len(1)
                        .map(|i| {
                            let i = u64::from(i);
                            if INSIDE_REGION.with(Cell::get) != 0 {
                                violations.fetch_add(1, Ordering::SeqCst);
                            }
                            inside_region(|| {
                                par::isolate(|| {
                                    (0..64u32)
                                        .into_par_iter()
                                        .with_max_len(1)
                                        .map(|x| inside_region(|| fib_join(13) + u64::from(x) * i))
                                        .sum::<u64>()
                                })
                            })
                        })
                        .collect::<Vec<_>>()
                });
                let expected: Vec<u64> = (0..64u64)
                    .map(|i| (0..64).map(|x| fib_iterative(13) + x * i).sum())
                    .collect();
                assert_eq!(sums, expected);
            }
            violations.into_inner()
        });
        assert_eq!(
            violations, 0,
            "outer items started inside a region ({threads} threads)"
        );
    }
}

#[test]
fn a_worker_waiting_in_a_region_leaves_an_outer_task_to_others() {
    // Worker A, inside a region, spawns a task of an outer scope (so it is not the region's
    // work) and then waits for the region's other half, which worker B took. Without
    // isolation A's wait starts the outer task at once, on top of the region; with it, A
    // leaves the task to B, which takes it once its half (bounded below) ends.
    for _ in 0..5 {
        let started_in_region = with_watchdog("an outer task spawned inside a region", || {
            let outer_ran = AtomicUsize::new(0);
            let started_in_region = AtomicUsize::new(0);
            let half_started = AtomicUsize::new(0);
            pool(2).scope(|s| {
                inside_region(|| {
                    par::isolate(|| {
                        par::join(
                            || {
                                // Wait until B has taken the other half, then spawn.
                                while half_started.load(Ordering::SeqCst) == 0 {
                                    thread::yield_now();
                                }
                                s.spawn(|_| {
                                    if INSIDE_REGION.with(Cell::get) != 0 {
                                        started_in_region.fetch_add(1, Ordering::SeqCst);
                                    }
                                    outer_ran.fetch_add(1, Ordering::SeqCst);
                                });
                            },
                            || {
                                half_started.store(1, Ordering::SeqCst);
                                let deadline = Instant::now() + Duration::from_millis(100);
                                while outer_ran.load(Ordering::SeqCst) == 0
                                    && Instant::now() < deadline
                                {
                                    thread::yield_now();
                                }
                            },
                        )
                    })
                })
            });
            assert_eq!(outer_ran.load(Ordering::SeqCst), 1);
            started_in_region.into_inner()
        });
        assert_eq!(
            started_in_region, 0,
            "the outer task started inside the region"
        );
    }
}

#[test]
fn other_workers_still_help_with_isolated_work() {
    // The first pieces of an isolated loop wait until a second worker has started one. If no
    // other worker helped the isolated region, they would wait forever (the watchdog fails).
    let pool = pool(4);
    let workers = with_watchdog("an isolated loop that needs two workers", move || {
        pool.install(|| {
            par::isolate(|| {
                let started = Mutex::new(std::collections::BTreeSet::new());
                (0..64u32).into_par_iter().with_max_len(1).for_each(|_| {
                    started
                        .lock()
                        .unwrap()
                        .insert(par::current_thread_index().unwrap());
                    while started.lock().unwrap().len() < 2 {
                        thread::yield_now();
                    }
                });
                started.into_inner().unwrap()
            })
        })
    });
    assert!(workers.len() >= 2, "isolated work ran on {workers:?} only");
}

#[test]
fn nested_isolation_with_a_lock_at_each_level() {
    let expected_inner: u64 = (0..64u64).sum();
    let total = with_watchdog("nested isolated regions", move || {
        let pool = pool(8);
        let (outer_lock, middle_lock) = (Mutex::new(0u64), Mutex::new(0u64));
        pool.install(|| {
            (0..8u64).into_par_iter().for_each(|_| {
                let mut outer = outer_lock.lock().unwrap();
                *outer += par::isolate(|| {
                    (0..8u64)
                        .into_par_iter()
                        .map(|_| {
                            let mut middle = middle_lock.lock().unwrap();
                            let inner = par::isolate(|| {
                                (0..64u32)
                                    .into_par_iter()
                                    .with_max_len(4)
                                    .map(u64::from)
                                    .sum::<u64>()
                            });
                            *middle += inner;
                            inner
                        })
                        .sum::<u64>()
                });
            })
        });
        (
            outer_lock.into_inner().unwrap(),
            middle_lock.into_inner().unwrap(),
        )
    });
    assert_eq!(total, (64 * expected_inner, 64 * expected_inner));
}

#[test]
fn isolation_inside_scopes_spawned_tasks_and_handles() {
    let inner = || {
        (0..256u32)
            .into_par_iter()
            .with_max_len(8)
            .map(|x| u64::from(x) * 3)
            .sum::<u64>()
    };
    let expected = (0..256u64).map(|x| x * 3).sum::<u64>();
    let (scoped, spawned, handled) = with_watchdog("isolate in scope/spawn/handle", move || {
        let pool = pool(4);
        let lock = Mutex::new(0u64);
        pool.scope(|s| {
            for _ in 0..16 {
                s.spawn(|_| {
                    let mut total = lock.lock().unwrap();
                    *total += par::isolate(inner);
                });
            }
        });
        let (sender, receiver) = mpsc::channel();
        let spawn_lock = std::sync::Arc::new(Mutex::new(0u64));
        for _ in 0..16 {
            let (sender, spawn_lock) = (sender.clone(), std::sync::Arc::clone(&spawn_lock));
            pool.spawn(move || {
                let mut total = spawn_lock.lock().unwrap();
                *total += par::isolate(inner);
                sender.send(()).unwrap();
            });
        }
        for _ in 0..16 {
            receiver.recv().unwrap();
        }
        let spawned = *spawn_lock.lock().unwrap();
        // Handles started and joined inside a region: the region's waiter may run them.
        let handled = pool.install(|| {
            par::isolate(|| {
                let handles: Vec<_> = (0..16).map(|_| par::spawn_handle(inner)).collect();
                handles.into_iter().map(|h| h.join()).sum::<u64>()
            })
        });
        (lock.into_inner().unwrap(), spawned, handled)
    });
    assert_eq!(
        (scoped, spawned, handled),
        (16 * expected, 16 * expected, 16 * expected)
    );
}

#[test]
fn a_panic_inside_isolate_propagates_and_the_pool_stays_usable() {
    let pool = pool(4);
    let payload = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.install(|| {
            par::isolate(|| {
                (0..1000u32).into_par_iter().with_max_len(8).for_each(|x| {
                    if x == 777 {
                        boom("isolated");
                    }
                })
            })
        })
    }))
    .unwrap_err();
    assert_eq!(boom_tag(payload), "isolated");
    // The worker left the region: plain and isolated work both still run.
    let (plain, isolated) = pool.install(|| {
        let isolated = par::isolate(|| fib_join(18));
        (fib_join(20), isolated)
    });
    assert_eq!((plain, isolated), (fib_iterative(20), fib_iterative(18)));
    assert_eq!(pool.isolate(|| fib_join(15)), fib_iterative(15));
}

#[test]
fn isolate_outside_any_pool_runs_on_the_caller() {
    let caller = thread::current().id();
    let (ran_on, sum) = par::isolate(|| {
        let sum = (0..1000u64).into_par_iter().sum::<u64>();
        (thread::current().id(), sum)
    });
    assert_eq!((ran_on, sum), (caller, 499_500));
}
