//! Unit tests of the scheduler's internals and a few end-to-end smoke checks; the broad
//! API tests live in `tests/pool/` and the `tests/pool_*.rs` binaries that need a process of their own.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use super::*;

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn fib_seq(n: u64) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

fn pool(n: usize) -> ThreadPool {
    ThreadPoolBuilder::new().num_threads(n).build().unwrap()
}

#[test]
fn join_fib_in_pools_of_various_sizes() {
    for threads in [1, 2, 3, 8] {
        let pool = pool(threads);
        for n in [0, 1, 2, 10, 22] {
            assert_eq!(pool.install(|| fib(n)), fib_seq(n), "fib({n}) on {threads}");
        }
    }
}

#[test]
fn join_from_outside_any_pool_uses_the_global_pool() {
    assert_eq!(fib(18), fib_seq(18));
}

#[test]
fn scope_runs_every_spawn_before_returning() {
    let pool = pool(4);
    let hits: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
    pool.scope(|s| {
        for (i, hit) in hits.iter().enumerate() {
            s.spawn(move |s| {
                hit.fetch_add(1, Ordering::Relaxed);
                if i % 10 == 0 {
                    s.spawn(move |_| {
                        hit.fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
        }
    });
    for (i, hit) in hits.iter().enumerate() {
        let expected = if i % 10 == 0 { 2 } else { 1 };
        assert_eq!(hit.load(Ordering::Relaxed), expected, "task {i}");
    }
}

#[test]
fn panics_propagate_and_the_pool_stays_usable() {
    let pool = pool(2);
    let ran_b = AtomicUsize::new(0);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            join(
                || panic!("left"),
                || {
                    ran_b.fetch_add(1, Ordering::SeqCst);
                },
            )
        })
    }));
    let payload = caught.unwrap_err();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"left"));
    assert_eq!(ran_b.load(Ordering::SeqCst), 1, "b runs even when a panics");
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.scope(|s| {
            s.spawn(|_| panic!("task"));
            s.spawn(|_| ());
        })
    }));
    assert_eq!(caught.unwrap_err().downcast_ref::<&str>(), Some(&"task"));
    assert_eq!(pool.install(|| fib(15)), fib_seq(15));
}

#[test]
fn broadcast_reaches_every_worker_once() {
    let pool = pool(5);
    let indices = pool.broadcast(|ctx| (ctx.index(), current_thread_index()));
    let expected: Vec<_> = (0..5).map(|i| (i, Some(i))).collect();
    assert_eq!(indices, expected);
}

#[test]
fn install_across_pools_does_not_deadlock() {
    let outer = pool(2);
    let inner = pool(2);
    let got = outer.install(|| {
        join(
            || inner.install(|| fib(16)),
            || inner.install(|| outer.install(|| fib(12))),
        )
    });
    assert_eq!(got, (fib_seq(16), fib_seq(12)));
}

#[test]
fn spawned_tasks_hold_the_pool_alive_until_they_finish() {
    let done = Arc::new(AtomicUsize::new(0));
    let pool = pool(2);
    for _ in 0..100 {
        let done = Arc::clone(&done);
        pool.spawn(move || {
            fib(10);
            done.fetch_add(1, Ordering::SeqCst);
        });
    }
    pool.shutdown_and_wait();
    assert_eq!(done.load(Ordering::SeqCst), 100);
}

#[test]
fn scope_fifo_on_one_thread_runs_in_spawn_order() {
    let pool = pool(1);
    let order = std::sync::Mutex::new(Vec::new());
    pool.scope_fifo(|s| {
        for i in 0..20 {
            let order = &order;
            s.spawn_fifo(move |_| order.lock().unwrap().push(i));
        }
    });
    assert_eq!(order.into_inner().unwrap(), (0..20).collect::<Vec<_>>());
}

#[test]
fn one_worker_never_publishes_or_steals_a_fork() {
    let pool = pool(1);
    let before = pool.stats();
    assert_eq!(pool.install(|| fib(20)), fib_seq(20));
    let delta = pool.stats() - before;
    assert_eq!(delta.jobs_injected, 1, "the install itself");
    assert_eq!(delta.jobs_executed, 1, "forks run inline are not jobs");
    assert_eq!((delta.forks_published, delta.jobs_stolen), (0, 0));
}

#[test]
fn overflowing_the_private_fork_stack_still_computes() {
    // A left-leaning recursion deeper than the fork stack: excess forks go straight to the
    // deque and come back through the published path.
    fn depth_sum(depth: u64) -> u64 {
        if depth == 0 {
            return 0;
        }
        let (deeper, here) = join(|| depth_sum(depth - 1), || depth);
        deeper + here
    }
    for threads in [1, 2] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(64 << 20)
            .build()
            .unwrap();
        assert_eq!(pool.install(|| depth_sum(1000)), 1000 * 1001 / 2);
    }
}

#[test]
fn first_use_of_the_global_pool_from_many_threads_at_once() {
    // Regression: the threads that lost the race to create the global pool used to panic.
    // (In this test binary the global pool may exist already; then this checks the fast path.)
    let barrier = std::sync::Barrier::new(8);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                barrier.wait();
                assert_eq!(fib(12), fib_seq(12));
                assert!(current_num_threads() >= 1);
            });
        }
    });
}

/// Spins until `flag` is set; false if it stays unset for a minute (a hang guard: the
/// tests below would otherwise wait forever when `b` is never run by another thread).
fn wait_for(flag: &AtomicBool) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !flag.load(Ordering::SeqCst) {
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::yield_now();
    }
    true
}

#[test]
fn join_on_a_fresh_pool_runs_b_beside_a() {
    // `a` returns only once `b` has started, so `b` must run on another worker while `a`
    // runs. The other workers of a new pool are still starting (not yet idle) when the
    // first join forks; `b` used to stay private and the join never finished.
    for threads in [2, 3] {
        let b_started = AtomicBool::new(false);
        let (a, ()) = pool(threads).install(|| {
            join(
                || wait_for(&b_started),
                || b_started.store(true, Ordering::SeqCst),
            )
        });
        assert!(a, "b never ran while a waited ({threads} threads)");
    }
}

#[test]
fn a_worker_falling_idle_during_a_long_a_takes_b() {
    // The only other worker is busy when the join forks and falls idle only afterwards,
    // while `a` (which never joins again) waits for `b`.
    let pool = pool(2);
    let (busy, joined, b_started) = (
        AtomicBool::new(false),
        AtomicBool::new(false),
        AtomicBool::new(false),
    );
    let a = pool.in_place_scope(|s| {
        s.spawn(|_| {
            busy.store(true, Ordering::SeqCst);
            assert!(wait_for(&joined), "the join never started");
        });
        pool.install(|| {
            assert!(wait_for(&busy), "the spawned job never ran");
            let (a, ()) = join(
                || {
                    joined.store(true, Ordering::SeqCst);
                    wait_for(&b_started)
                },
                || b_started.store(true, Ordering::SeqCst),
            );
            a
        })
    });
    assert!(a, "b never ran while a waited");
}
