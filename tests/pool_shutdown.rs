//! weft extension: `ThreadPool::shutdown_and_wait` drops a pool and returns only once every
//! one of its worker threads has exited (what Rayon users ask for in rayon issue 688).
//!
//! Rayon has no equivalent (dropping a Rayon pool does not wait), so this file uses `weft`
//! directly instead of the `par` alias. It counts the threads of this process in
//! `/proc/self/task` (Linux only) and must stay the only test in its binary so that no other
//! test starts or stops threads meanwhile.
#![cfg(target_os = "linux")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn live_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task is readable on Linux")
        .count()
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = weft::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[test]
fn shutdown_and_wait_leaves_no_thread_behind_and_finishes_spawned_work() {
    const THREADS: usize = 4;
    const TASKS: usize = 100;
    let before = live_threads();
    for round in 0..3 {
        let exited = Arc::new(AtomicUsize::new(0));
        let exited_in_handler = Arc::clone(&exited);
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(THREADS)
            .exit_handler(move |_| {
                exited_in_handler.fetch_add(1, Ordering::SeqCst);
            })
            .build()
            .unwrap();
        pool.broadcast(|_| ()); // every worker has started
        assert_eq!(live_threads(), before + THREADS, "round {round}");

        let done = Arc::new(AtomicUsize::new(0));
        for _ in 0..TASKS {
            let done = Arc::clone(&done);
            pool.spawn(move || {
                assert_eq!(fib(15), 610);
                done.fetch_add(1, Ordering::SeqCst);
            });
        }
        pool.shutdown_and_wait();

        // Everything up to the thread count must already hold when the call returns.
        assert_eq!(
            done.load(Ordering::SeqCst),
            TASKS,
            "spawned work finishes first"
        );
        assert_eq!(
            exited.load(Ordering::SeqCst),
            THREADS,
            "every exit handler ran"
        );
        // Every worker has been joined (the exit handlers ran, and `join` returned), but the
        // kernel clears a thread's join futex before it removes the task from
        // /proc/self/task, so allow that bookkeeping a bounded moment under load.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while live_threads() != before && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(
            live_threads(),
            before,
            "round {round}: no worker thread left"
        );
    }
}
