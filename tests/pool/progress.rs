//! Progress like Rayon's: an idle worker can always take a fork (`join`'s second closure) or
//! the unclaimed rest of a parallel loop while the owner is blocked in user code, whether
//! the worker was idle when the fork was made or became idle later. Before forks were
//! stealable from the moment they are made, the deep join and the loop here hung (checked
//! against that code); the shallow joins passed only because a fork made while the owner's
//! deque was empty was published at once. A hang fails the test through the watchdog
//! instead of hanging CI.

use crate::common_pool;

use common_pool::{par, pool, with_watchdog};
use par::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;

const THREADS: [usize; 3] = [2, 4, 8];

/// Blocks the calling thread (outside the pool's knowledge) until `flag` is set.
fn wait_for(flag: &AtomicBool) {
    while !flag.load(Ordering::Acquire) {
        thread::sleep(Duration::from_micros(200));
    }
}

/// Runs `body` on a worker of `pool` while every other worker is busy with a task that
/// ends `busy_for` after `body` starts: the others are busy when `body` forks, idle later.
fn with_the_others_busy<R: Send>(
    pool: &par::ThreadPool,
    busy_for: Duration,
    body: impl FnOnce() -> R + Send,
) -> R {
    let others = pool.current_num_threads() - 1;
    let started = AtomicUsize::new(0);
    let release = AtomicBool::new(false);
    pool.in_place_scope(|scope| {
        for _ in 0..others {
            scope.spawn(|_| {
                started.fetch_add(1, Ordering::AcqRel);
                wait_for(&release);
            });
        }
        // Every other worker is now inside one of the tasks above (this thread is a worker
        // too, and waits here in user code: the tasks can only run elsewhere).
        while started.load(Ordering::Acquire) < others {
            thread::yield_now();
        }
        let result = thread::scope(|threads| {
            threads.spawn(|| {
                thread::sleep(busy_for);
                release.store(true, Ordering::Release);
            });
            body()
        });
        result
    })
}

/// `join(a, b)` where `a` waits for a flag that only `b` sets.
fn a_waits_for_b() -> u32 {
    let flag = AtomicBool::new(false);
    let (a, b) = par::join(
        || {
            wait_for(&flag);
            1
        },
        || {
            flag.store(true, Ordering::Release);
            2
        },
    );
    a + b
}

#[test]
fn join_whose_a_waits_for_b_finishes_when_the_other_workers_were_idle() {
    for threads in THREADS {
        let pool = pool(threads);
        let sum = with_watchdog("join, a waits for b, idle pool", move || {
            pool.install(a_waits_for_b)
        });
        assert_eq!(sum, 3, "{threads} threads");
    }
}

#[test]
fn join_whose_a_waits_for_b_finishes_when_the_other_workers_fall_idle_later() {
    for threads in THREADS {
        let pool = pool(threads);
        let sum = with_watchdog("join, a waits for b, busy then idle", move || {
            pool.install(|| with_the_others_busy(&pool, Duration::from_millis(200), a_waits_for_b))
        });
        assert_eq!(sum, 3, "{threads} threads");
    }
}

/// [`a_waits_for_b`] under `depth` outer `join`s, each forking a trivial `b`: the forks
/// of a recursion in flight, where the innermost one is the newest.
fn a_waits_for_b_under(depth: u32) -> u32 {
    if depth == 0 {
        return a_waits_for_b();
    }
    let (inner, outer) = par::join(|| a_waits_for_b_under(depth - 1), || depth);
    inner + outer
}

#[test]
fn a_deep_join_whose_a_waits_for_b_finishes_when_the_other_workers_fall_idle_later() {
    for threads in THREADS {
        for depth in [2, 4, 8] {
            let pool = pool(threads);
            let sum = with_watchdog("deep join, a waits for b, busy then idle", move || {
                pool.install(|| {
                    with_the_others_busy(&pool, Duration::from_millis(100), || {
                        a_waits_for_b_under(depth)
                    })
                })
            });
            assert_eq!(
                sum,
                3 + depth * (depth + 1) / 2,
                "{threads} threads, depth {depth}"
            );
        }
    }
}

/// `join(producer, consumer)` over a channel of capacity 1: the producer blocks on the
/// second item until the consumer runs.
fn producer_and_consumer(items: u64) -> (u64, u64) {
    let (sender, receiver) = mpsc::sync_channel(1);
    par::join(
        move || {
            let mut sent = 0;
            for item in 0..items {
                sender.send(item).unwrap();
                sent += item;
            }
            sent
        },
        move || receiver.iter().sum::<u64>(),
    )
}

#[test]
fn join_of_a_producer_and_a_consumer_over_a_bounded_channel_finishes() {
    let expected: u64 = (0..1000).sum();
    for threads in THREADS {
        let pool = Arc::new(pool(threads));
        let idle = with_watchdog("producer/consumer join, idle pool", {
            let pool = Arc::clone(&pool);
            move || pool.install(|| producer_and_consumer(1000))
        });
        assert_eq!(idle, (expected, expected), "{threads} threads, idle");
        let later = with_watchdog("producer/consumer join, busy then idle", move || {
            pool.install(|| {
                with_the_others_busy(&pool, Duration::from_millis(200), || {
                    producer_and_consumer(1000)
                })
            })
        });
        assert_eq!(
            later,
            (expected, expected),
            "{threads} threads, busy then idle"
        );
    }
}

/// A loop whose first item waits for its last one.
fn first_item_waits_for_the_last(len: usize) -> usize {
    let last_done = AtomicBool::new(false);
    let ran = AtomicUsize::new(0);
    (0..len).into_par_iter().for_each(|i| {
        if i == 0 {
            wait_for(&last_done);
        } else if i == len - 1 {
            last_done.store(true, Ordering::Release);
        }
        ran.fetch_add(1, Ordering::Relaxed);
    });
    ran.into_inner()
}

#[test]
fn a_loop_whose_first_item_waits_for_its_last_finishes_on_an_idle_pool() {
    for threads in THREADS {
        let pool = Arc::new(pool(threads));
        for len in [2, 32, 64, 256, 1024] {
            let pool = Arc::clone(&pool);
            let ran = with_watchdog("loop, item 0 waits for the last item", move || {
                pool.install(|| first_item_waits_for_the_last(len))
            });
            assert_eq!(ran, len, "{threads} threads, {len} items");
        }
    }
}

/// A fork deep in a recursion: the innermost `a` waits for the outermost `b`, which is the
/// oldest fork, the one thieves take first.
#[test]
fn a_nested_join_waiting_for_an_outer_fork_finishes() {
    for threads in THREADS {
        let pool = pool(threads);
        let total = with_watchdog("nested join, inner a waits for outer b", move || {
            pool.install(|| {
                let flag = AtomicBool::new(false);
                let ((x, y), z) = par::join(
                    || {
                        par::join(
                            || {
                                wait_for(&flag);
                                1
                            },
                            || 2,
                        )
                    },
                    || {
                        flag.store(true, Ordering::Release);
                        4
                    },
                );
                x + y + z
            })
        });
        assert_eq!(total, 7, "{threads} threads");
    }
}
