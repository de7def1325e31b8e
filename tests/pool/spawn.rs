//! Detached `spawn` / `spawn_fifo`, `broadcast` and `spawn_broadcast`, and the work a pool
//! finishes after it is dropped.

use crate::common_pool;

use common_pool::{fib_iterative, fib_join, par, pool, wait_until, HANG_GUARD};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

/// Receives exactly `count` messages, failing the test instead of hanging.
fn receive<T>(receiver: &mpsc::Receiver<T>, count: usize) -> Vec<T> {
    (0..count)
        .map(|_| {
            receiver
                .recv_timeout(HANG_GUARD)
                .expect("a spawned task never reported")
        })
        .collect()
}

#[test]
fn detached_spawns_all_run() {
    let pool = pool(3);
    let (sender, receiver) = mpsc::channel();
    for index in 0..1000u32 {
        let sender = sender.clone();
        pool.spawn(move || sender.send((index, fib_join(index % 16))).unwrap());
    }
    let mut results = receive(&receiver, 1000);
    results.sort_unstable();
    let expected: Vec<(u32, u64)> = (0..1000).map(|i| (i, fib_iterative(i % 16))).collect();
    assert_eq!(results, expected);
}

#[test]
fn spawn_inside_a_pool_goes_to_that_pool() {
    let pool = pool(2);
    let (sender, receiver) = mpsc::channel();
    pool.install(|| {
        par::spawn(move || {
            let where_it_ran = (par::current_thread_index(), par::current_num_threads());
            sender.send(where_it_ran).unwrap();
        });
    });
    let (index, threads) = receive(&receiver, 1)[0];
    assert!(index.is_some_and(|i| i < 2), "{index:?}");
    assert_eq!(threads, 2);
}

#[test]
fn spawn_fifo_from_a_worker_runs_in_spawn_order_on_one_thread() {
    let pool = pool(1);
    let (sender, receiver) = mpsc::channel();
    pool.install(|| {
        for index in 0..100 {
            let sender = sender.clone();
            par::spawn_fifo(move || sender.send(index).unwrap());
        }
    });
    let expected: Vec<i32> = (0..100).collect();
    assert_eq!(receive(&receiver, 100), expected);
}

#[test]
fn broadcast_returns_one_result_per_thread_in_index_order() {
    for num_threads in [1, 2, 5] {
        let pool = pool(num_threads);
        let results = pool.broadcast(|ctx| {
            (
                ctx.index(),
                ctx.num_threads(),
                par::current_thread_index(),
                fib_join(12),
            )
        });
        let expected: Vec<_> = (0..num_threads)
            .map(|i| (i, num_threads, Some(i), fib_iterative(12)))
            .collect();
        assert_eq!(results, expected);
    }
}

#[test]
fn broadcast_from_outside_any_pool_uses_the_global_pool() {
    let results = par::broadcast(|ctx| (ctx.index(), par::current_thread_index()));
    let expected: Vec<_> = (0..par::current_num_threads())
        .map(|i| (i, Some(i)))
        .collect();
    assert_eq!(results, expected);
}

#[test]
fn spawn_broadcast_runs_once_on_every_thread() {
    let pool = pool(4);
    let (sender, receiver) = mpsc::channel();
    pool.spawn_broadcast(move |ctx| {
        sender
            .send((ctx.index(), par::current_thread_index()))
            .unwrap();
    });
    let mut reports = receive(&receiver, 4);
    reports.sort_unstable();
    let expected: Vec<_> = (0..4).map(|i| (i, Some(i))).collect();
    assert_eq!(reports, expected);
}

#[test]
fn dropping_a_pool_still_completes_the_work_already_spawned() {
    const TASKS: usize = 200;
    let done = Arc::new(AtomicUsize::new(0));
    let pool = pool(2);
    for index in 0..TASKS {
        let done = Arc::clone(&done);
        pool.spawn(move || {
            assert_eq!(
                fib_join((index % 18) as u32),
                fib_iterative((index % 18) as u32)
            );
            done.fetch_add(1, Ordering::SeqCst);
        });
    }
    drop(pool);
    assert!(
        wait_until(|| done.load(Ordering::SeqCst) == TASKS),
        "only {} of {TASKS} spawned tasks ran after the pool was dropped",
        done.load(Ordering::SeqCst)
    );
}

#[test]
fn free_functions_called_outside_any_pool_use_the_global_pool() {
    let global_threads = par::current_num_threads();
    let in_global = move || {
        let index = par::current_thread_index();
        index.is_some_and(|i| i < global_threads) && par::current_num_threads() == global_threads
    };
    let (sender, receiver) = mpsc::channel();
    let spawn_sender = sender.clone();
    par::spawn(move || spawn_sender.send(("spawn", in_global())).unwrap());
    let fifo_sender = sender.clone();
    par::spawn_fifo(move || fifo_sender.send(("spawn_fifo", in_global())).unwrap());
    par::spawn_broadcast(move |_| sender.send(("spawn_broadcast", in_global())).unwrap());
    let mut reports = receive(&receiver, 2 + global_threads);
    reports.sort_unstable();
    let mut expected = vec![("spawn", true), ("spawn_fifo", true)];
    expected.extend((0..global_threads).map(|_| ("spawn_broadcast", true)));
    expected.sort_unstable();
    assert_eq!(reports, expected);

    assert!(
        par::scope(|_| in_global()),
        "scope runs its body in the global pool"
    );
    assert!(par::scope_fifo(|_| in_global()), "so does scope_fifo");
    let spawned_in_global = std::sync::atomic::AtomicBool::new(false);
    par::in_place_scope(|s| {
        assert!(
            !in_global(),
            "in_place_scope keeps the body on the calling thread"
        );
        s.spawn(|_| spawned_in_global.store(in_global(), Ordering::SeqCst));
    });
    assert!(spawned_in_global.load(Ordering::SeqCst));
}
