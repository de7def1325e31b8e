//! Panics from every entry point reach the caller, only after the work that may borrow from
//! the caller's frame has finished, and the pool stays usable; detached panics reach the
//! pool's `panic_handler`.

use crate::common_pool;

use common_pool::{assert_pool_still_works, boom, boom_tag, fib_iterative, fib_join, par, pool};
use common_pool::{wait_until, Boom};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Runs `op` in `pool`, expects it to panic with a [`Boom`], and returns the tag.
fn panic_tag_of<R: Send>(pool: &par::ThreadPool, op: impl FnOnce() -> R + Send) -> &'static str {
    match catch_unwind(AssertUnwindSafe(|| pool.install(op))) {
        Ok(_) => panic!("the operation was expected to panic"),
        Err(payload) => boom_tag(payload),
    }
}

/// Work that takes a while and then marks itself finished.
fn finish_slowly(finished: &AtomicUsize) -> u64 {
    let value = fib_join(18);
    finished.fetch_add(1, Ordering::SeqCst);
    value
}

// Rayon's `join` docs promise that both closures always run, and that when both panic the
// first closure's panic is the one propagated.

#[test]
fn a_panic_in_the_first_closure_of_join_waits_for_the_second() {
    let pool = pool(2);
    for _ in 0..20 {
        let finished = AtomicUsize::new(0);
        let tag = panic_tag_of(&pool, || {
            par::join(|| boom("join a"), || finish_slowly(&finished))
        });
        assert_eq!(tag, "join a");
        assert_eq!(finished.load(Ordering::SeqCst), 1, "b must finish first");
    }
    assert_pool_still_works(&pool);
}

#[test]
fn a_panic_in_the_second_closure_of_join_waits_for_the_first() {
    let pool = pool(2);
    for _ in 0..20 {
        let finished = AtomicUsize::new(0);
        let tag = panic_tag_of(&pool, || {
            par::join(|| finish_slowly(&finished), || boom("join b"))
        });
        assert_eq!(tag, "join b");
        assert_eq!(finished.load(Ordering::SeqCst), 1, "a must finish first");
    }
    assert_pool_still_works(&pool);
}

#[test]
fn when_both_closures_of_join_panic_the_first_ones_panic_wins() {
    let pool = pool(2);
    for _ in 0..20 {
        let tag = panic_tag_of(&pool, || par::join(|| boom("first"), || boom("second")));
        assert_eq!(tag, "first");
    }
    assert_pool_still_works(&pool);
}

#[test]
fn a_panic_deep_in_a_join_tree_reaches_the_caller() {
    fn fib_that_fails_at(n: u32, fail_at: u32) -> u64 {
        if n == fail_at {
            boom("deep");
        }
        if n < 2 {
            return u64::from(n);
        }
        let (a, b) = par::join(
            || fib_that_fails_at(n - 1, fail_at),
            || fib_that_fails_at(n - 2, fail_at),
        );
        a + b
    }
    let pool = pool(3);
    assert_eq!(panic_tag_of(&pool, || fib_that_fails_at(22, 5)), "deep");
    assert_pool_still_works(&pool);
}

#[test]
fn a_join_outside_any_pool_propagates_a_panic_and_the_global_pool_survives() {
    let result = catch_unwind(|| par::join(|| fib_join(10), || boom("global")));
    assert_eq!(boom_tag(result.unwrap_err()), "global");
    assert_eq!(par::join(|| fib_join(15), || 1).0, fib_iterative(15));
}

// Rayon's `scope` docs: a spawned task runs even if the spawner later panics, and the scope
// propagates the panic once every task has completed.
#[test]
fn a_panic_in_a_scope_body_comes_after_the_tasks_it_spawned() {
    let pool = pool(2);
    let finished = AtomicUsize::new(0);
    let tag = panic_tag_of(&pool, || {
        par::scope(|s| {
            for _ in 0..8 {
                s.spawn(|_| {
                    finish_slowly(&finished);
                });
            }
            boom("scope body");
        })
    });
    assert_eq!(tag, "scope body");
    assert_eq!(finished.load(Ordering::SeqCst), 8);
    assert_pool_still_works(&pool);
}

#[test]
fn a_panic_in_a_scoped_task_reaches_the_scope_after_the_other_tasks() {
    let pool = pool(2);
    for fifo in [false, true] {
        let finished = AtomicUsize::new(0);
        let finished = &finished;
        let tag = panic_tag_of(&pool, || {
            if fifo {
                par::scope_fifo(|s| (0..9).for_each(|i| s.spawn_fifo(move |_| task(i, finished))));
            } else {
                par::scope(|s| (0..9).for_each(|i| s.spawn(move |_| task(i, finished))));
            }
        });
        assert_eq!(tag, "scoped task");
        assert_eq!(finished.load(Ordering::SeqCst), 8, "fifo: {fifo}");
    }
    assert_pool_still_works(&pool);
}

fn task(index: usize, finished: &AtomicUsize) {
    if index == 4 {
        boom("scoped task");
    }
    finish_slowly(finished);
}

#[test]
fn a_panic_in_an_install_closure_reaches_the_caller() {
    let pool = pool(2);
    assert_eq!(panic_tag_of(&pool, || boom("install")), "install");
    assert_pool_still_works(&pool);
}

// Rayon's `broadcast` docs: exactly one panic propagates, after every thread has completed
// (or panicked in) its own call.
#[test]
fn a_panic_in_a_broadcast_comes_after_every_thread_ran() {
    let pool = pool(3);
    let finished = AtomicUsize::new(0);
    let result = catch_unwind(AssertUnwindSafe(|| {
        pool.broadcast(|ctx| {
            if ctx.index() == 1 {
                boom("broadcast");
            }
            finish_slowly(&finished)
        })
    }));
    assert_eq!(boom_tag(result.unwrap_err()), "broadcast");
    assert_eq!(finished.load(Ordering::SeqCst), 2);
    assert_pool_still_works(&pool);
}

#[test]
fn detached_panics_reach_the_panic_handler_and_the_workers_survive() {
    let handled = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&handled);
    let pool = par::ThreadPoolBuilder::new()
        .num_threads(3)
        .panic_handler(move |payload| {
            assert!(payload.downcast_ref::<Boom>().is_some(), "payload kept");
            counter.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();
    pool.spawn(|| boom("spawn"));
    pool.spawn(|| boom("spawn"));
    pool.spawn_fifo(|| boom("spawn_fifo"));
    pool.install(|| par::spawn(|| boom("spawn from a worker")));
    pool.spawn_broadcast(|_| boom("spawn_broadcast"));
    let expected = 4 + 3;
    assert!(
        wait_until(|| handled.load(Ordering::SeqCst) == expected),
        "panic_handler ran {} times, expected {expected}",
        handled.load(Ordering::SeqCst)
    );
    assert_pool_still_works(&pool);
    assert_eq!(handled.load(Ordering::SeqCst), expected);
}
