//! weft extension (issue #50, Rayon issue 1088): `ThreadPool::set_num_threads` grows and
//! shrinks a live pool. Each test builds its own pool (the global pool keeps its size here:
//! other tests of this binary use it). Thread counts are read from `/proc/self/task` on
//! Linux, restricted to the threads the pool's start handler saw, so that the threads of
//! tests running alongside do not count.

use crate::common;
use crate::common_pool;

use common_pool::{fib_iterative, fib_join, par, wait_until, with_watchdog};
use rand::Rng;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The operating-system thread ids a pool's start handler saw, to count which still live.
#[derive(Default)]
struct Threads {
    ids: Mutex<HashSet<String>>,
}

impl Threads {
    /// Records the current thread (called by the start handler).
    fn record(&self) {
        if let Some(id) = current_thread_id() {
            self.ids.lock().unwrap().insert(id);
        }
    }

    /// How many of the recorded threads still exist (`/proc/self/task/<tid>`); `None` off
    /// Linux.
    fn live(&self) -> Option<usize> {
        if !cfg!(target_os = "linux") {
            return None;
        }
        let ids = self.ids.lock().unwrap();
        Some(
            ids.iter()
                .filter(|id| std::path::Path::new("/proc/self/task").join(id).exists())
                .count(),
        )
    }

    /// Waits (bounded) until exactly `n` recorded threads live; fails the test otherwise.
    fn expect_live(&self, n: usize, what: &str) {
        if self.live().is_none() {
            return;
        }
        let mut seen = None;
        let reached = wait_until(|| {
            seen = self.live();
            seen == Some(n)
        });
        assert!(reached, "{what}: expected {n} live workers, saw {seen:?}");
    }
}

/// This thread's id, from `/proc/thread-self` (a link to `<pid>/task/<tid>`).
fn current_thread_id() -> Option<String> {
    let link = std::fs::read_link("/proc/thread-self").ok()?;
    Some(link.file_name()?.to_str()?.to_owned())
}

/// A pool of `n` workers whose threads `threads` records, and which counts its exits.
fn recorded_pool(n: usize, threads: &Arc<Threads>, exits: &Arc<AtomicUsize>) -> par::ThreadPool {
    let threads = Arc::clone(threads);
    let exits = Arc::clone(exits);
    par::ThreadPoolBuilder::new()
        .num_threads(n)
        .start_handler(move |_| threads.record())
        .exit_handler(move |_| {
            exits.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap()
}

/// Checks the size a pool reports, inside and outside `install`, and that a broadcast
/// reaches workers `0..n` and says `n`.
fn assert_size(pool: &par::ThreadPool, n: usize) {
    assert_eq!(pool.current_num_threads(), n);
    assert_eq!(pool.install(par::current_num_threads), n);
    let seen = pool.broadcast(|ctx| (ctx.index(), ctx.num_threads()));
    let expected: Vec<(usize, usize)> = (0..n).map(|index| (index, n)).collect();
    assert_eq!(seen, expected);
}

/// One round of work checked against std: a parallel sum, a map-collect, and joins.
fn checked_work(pool: &par::ThreadPool, seed: u64) {
    use par::prelude::*;
    let values = common::random_u64s(20_000 + (seed % 7) as usize * 1_000, seed);
    let expected: u64 = values.iter().map(|&v| v % 1_000).sum();
    let sum: u64 = pool.install(|| values.par_iter().map(|&v| v % 1_000).sum());
    assert_eq!(sum, expected, "par_iter sum, seed {seed}");
    let squares: Vec<u64> = pool.install(|| (0..5_000u64).into_par_iter().map(|i| i * i).collect());
    assert!(squares
        .iter()
        .enumerate()
        .all(|(i, &s)| s == (i * i) as u64));
    let (a, b) = pool.join(|| fib_join(18), || fib_join(17));
    assert_eq!((a, b), (fib_iterative(18), fib_iterative(17)));
}

#[test]
fn resize_two_eight_one_four_one_while_loops_and_joins_run() {
    with_watchdog("resizing while loops run", || {
        let threads = Arc::new(Threads::default());
        let exits = Arc::new(AtomicUsize::new(0));
        let pool = Arc::new(recorded_pool(2, &threads, &exits));
        assert_size(&pool, 2);
        threads.expect_live(2, "built with 2");

        let stop = Arc::new(AtomicBool::new(false));
        let rounds = Arc::new(AtomicU32::new(0));
        let worker = {
            let (pool, stop, rounds) = (Arc::clone(&pool), Arc::clone(&stop), Arc::clone(&rounds));
            std::thread::spawn(move || {
                let mut seed = 1;
                while !stop.load(Ordering::SeqCst) {
                    checked_work(&pool, seed);
                    seed += 1;
                    rounds.fetch_add(1, Ordering::SeqCst);
                }
            })
        };
        for n in [8, 1, 4, 1] {
            // Let the other thread's loops run across this resize (a few rounds, no clock).
            let before = rounds.load(Ordering::SeqCst);
            assert!(wait_until(|| rounds.load(Ordering::SeqCst) >= before + 2));
            pool.set_num_threads(n).unwrap();
            assert_eq!(pool.current_num_threads(), n, "the new size at once");
            assert_size(&pool, n);
            threads.expect_live(n, &format!("resized to {n}"));
        }
        let before = rounds.load(Ordering::SeqCst);
        assert!(wait_until(|| rounds.load(Ordering::SeqCst) >= before + 2));
        stop.store(true, Ordering::SeqCst);
        worker
            .join()
            .expect("the loops on the resized pool gave correct results");
        // 2 → 8 started 6 threads; 8 → 1 retired 7; 1 → 4 started 3; 4 → 1 retired 3.
        assert_eq!(exits.load(Ordering::SeqCst), 10);
        let pool = Arc::into_inner(pool).unwrap();
        pool.shutdown_and_wait();
        threads.expect_live(0, "after shutdown");
    });
}

#[test]
fn tasks_queued_on_a_retiring_worker_all_run_once_elsewhere() {
    const TASKS: usize = 2_000;
    with_watchdog("tasks queued on a retiring worker", || {
        let pool = Arc::new(common_pool::pool(4));
        let runs: Arc<Vec<AtomicU32>> = Arc::new((0..TASKS).map(|_| AtomicU32::new(0)).collect());
        let ran_on_retired = Arc::new(AtomicUsize::new(0));
        let (sender, receiver) = std::sync::mpsc::channel();
        let sender = Mutex::new(sender);
        {
            let (pool_in, runs, ran_on_retired) = (
                Arc::clone(&pool),
                Arc::clone(&runs),
                Arc::clone(&ran_on_retired),
            );
            // Detached, so that no worker of the pool waits for it (a waiting worker 3 would
            // run its own tasks while it waits, which is allowed but not what this checks).
            pool.spawn_broadcast(move |ctx| {
                if ctx.index() != 3 {
                    return;
                }
                // Worker 3 retires itself, owns a loop (it must finish it), then queues tasks
                // on its own deque (LIFO and FIFO) and returns: it must hand them off.
                pool_in.set_num_threads(3).unwrap();
                assert_eq!(par::current_num_threads(), 3);
                assert_eq!(par::current_thread_index(), Some(3));
                use par::prelude::*;
                let values = common::random_u64s(50_000, 3);
                let sum: u64 = values.par_iter().map(|&v| v >> 40).sum();
                let expected = values.iter().map(|&v| v >> 40).sum::<u64>();
                for task in 0..TASKS {
                    let (runs, ran_on_retired) = (Arc::clone(&runs), Arc::clone(&ran_on_retired));
                    let body = move || {
                        runs[task].fetch_add(1, Ordering::SeqCst);
                        if par::current_thread_index() == Some(3) {
                            ran_on_retired.fetch_add(1, Ordering::SeqCst);
                        }
                    };
                    if task % 2 == 0 {
                        par::spawn(body);
                    } else {
                        par::spawn_fifo(body);
                    }
                }
                sender.lock().unwrap().send((sum, expected)).unwrap();
            });
        }
        let (sum, expected) = receiver
            .recv_timeout(common_pool::HANG_GUARD)
            .expect("worker 3 reports its loop");
        assert_eq!(sum, expected, "the retiring worker's loop");
        assert!(
            wait_until(|| runs.iter().all(|count| count.load(Ordering::SeqCst) >= 1)),
            "every task queued on the retiring worker runs"
        );
        // Worker 3's closure holds a pool handle until the broadcast job drops it, which is
        // after `send` (it may still be running): wait for the pool to release it.
        assert!(
            wait_until(|| Arc::strong_count(&pool) == 1),
            "the detached broadcast's closure is dropped after it ran on every worker"
        );
        // Every count is exactly one, also after the pool has finished all it had.
        Arc::into_inner(pool).unwrap().shutdown_and_wait();
        let counts: Vec<u32> = runs
            .iter()
            .map(|count| count.load(Ordering::SeqCst))
            .collect();
        assert!(
            counts.iter().all(|&count| count == 1),
            "each task runs once: {counts:?}"
        );
        // Worker 3 ran none of them: it queued them last, then only handed them off.
        assert_eq!(ran_on_retired.load(Ordering::SeqCst), 0);
    });
}

#[test]
fn retire_protocol_stress() {
    const TASKS: usize = 20_000;
    with_watchdog("the retire protocol under stress", || {
        let threads = Arc::new(Threads::default());
        let exits = Arc::new(AtomicUsize::new(0));
        let pool = Arc::new(recorded_pool(3, &threads, &exits));
        let runs: Arc<Vec<AtomicU32>> = Arc::new((0..TASKS).map(|_| AtomicU32::new(0)).collect());
        let progress = Arc::new(AtomicUsize::new(0));
        let spawner = {
            let (pool, runs, progress) =
                (Arc::clone(&pool), Arc::clone(&runs), Arc::clone(&progress));
            std::thread::spawn(move || {
                for task in (0..TASKS).step_by(2) {
                    progress.fetch_add(1, Ordering::SeqCst);
                    let runs = Arc::clone(&runs);
                    // Each task spawns its neighbour from inside the pool (a worker's deque).
                    pool.spawn(move || {
                        runs[task].fetch_add(1, Ordering::SeqCst);
                        let runs = Arc::clone(&runs);
                        par::spawn(move || {
                            assert_eq!(fib_join(10), fib_iterative(10));
                            runs[task + 1].fetch_add(1, Ordering::SeqCst);
                        });
                    });
                    if task % 256 == 0 {
                        // Broadcasts stay coherent: workers 0..m, each told m.
                        let seen = pool.broadcast(|ctx| (ctx.index(), ctx.num_threads()));
                        let m = seen.len();
                        assert!(
                            seen.iter().enumerate().all(|(i, &s)| s == (i, m)),
                            "{seen:?}"
                        );
                        checked_work(&pool, task as u64);
                    }
                }
            })
        };
        let mut rng = common::rng(50);
        let mut resizes = 0;
        while !spawner.is_finished() || resizes < 300 {
            let n = rng.random_range(1..=6);
            pool.set_num_threads(n).unwrap();
            assert_eq!(pool.current_num_threads(), n);
            resizes += 1;
            // Pace the resizes by the spawner's progress (a resize every few spawns).
            let seen = progress.load(Ordering::SeqCst);
            wait_until(|| spawner.is_finished() || progress.load(Ordering::SeqCst) >= seen + 4);
        }
        spawner.join().expect("broadcasts and loops stayed correct");
        pool.set_num_threads(2).unwrap();
        assert!(
            wait_until(|| runs.iter().all(|count| count.load(Ordering::SeqCst) >= 1)),
            "every task runs"
        );
        threads.expect_live(2, "settled at 2");
        assert_size(&pool, 2);
        Arc::into_inner(pool).unwrap().shutdown_and_wait();
        let counts: Vec<u32> = runs
            .iter()
            .map(|count| count.load(Ordering::SeqCst))
            .collect();
        assert!(
            counts.iter().all(|&count| count == 1),
            "each task runs once"
        );
        threads.expect_live(0, "after shutdown");
    });
}

#[test]
fn a_sleeping_pool_shrinks_and_grows() {
    with_watchdog("resizing an idle pool", || {
        let threads = Arc::new(Threads::default());
        let exits = Arc::new(AtomicUsize::new(0));
        let pool = recorded_pool(6, &threads, &exits);
        assert_size(&pool, 6);
        threads.expect_live(6, "built with 6");
        // Give the workers time to fall asleep with nothing to do (the test holds either
        // way; asleep, the retiring ones must be woken).
        std::thread::sleep(std::time::Duration::from_millis(50));
        pool.set_num_threads(2).unwrap();
        threads.expect_live(2, "shrunk while asleep");
        assert!(wait_until(|| exits.load(Ordering::SeqCst) == 4));
        pool.set_num_threads(5).unwrap();
        threads.expect_live(5, "grown back");
        assert_size(&pool, 5);
        checked_work(&pool, 77);
    });
}

#[test]
fn growing_back_before_workers_exit_keeps_the_pool_whole() {
    with_watchdog("shrink then grow at once", || {
        let pool = common_pool::pool(4);
        for round in 0..200 {
            pool.set_num_threads(1 + round % 3).unwrap();
            pool.set_num_threads(4).unwrap();
        }
        assert_size(&pool, 4);
        checked_work(&pool, 5);
        pool.shutdown_and_wait();
    });
}

#[test]
fn a_pool_from_a_spawn_handler_shrinks_but_cannot_start_threads() {
    with_watchdog("resizing a pool with a spawn handler", || {
        let (sender, receiver) = std::sync::mpsc::channel();
        let pool = par::ThreadPoolBuilder::new()
            .num_threads(3)
            .spawn_handler(move |thread| {
                let sender = sender.clone();
                std::thread::spawn(move || {
                    thread.run();
                    sender.send(()).unwrap();
                });
                Ok(())
            })
            .build()
            .unwrap();
        pool.set_num_threads(1).unwrap();
        assert_size(&pool, 1);
        // `run` returns once a retired worker has given its slot back.
        for _ in 0..2 {
            receiver
                .recv_timeout(common_pool::HANG_GUARD)
                .expect("the retired workers return from run");
        }
        let err = pool.set_num_threads(4).unwrap_err();
        assert!(err.to_string().contains("spawn_handler"), "{err}");
        // It keeps the workers it could reach: only worker 0.
        assert_size(&pool, 1);
        checked_work(&pool, 9);
    });
}

#[test]
#[should_panic(expected = "at least one thread")]
fn zero_threads_is_refused() {
    common_pool::pool(2).set_num_threads(0).unwrap();
}

#[test]
fn a_task_spawned_by_a_retiring_workers_exit_handler_runs() {
    with_watchdog("a spawn in the exit handler of a retiring worker", || {
        let armed = Arc::new(AtomicBool::new(true));
        let ran = Arc::new(AtomicUsize::new(0));
        let pool = {
            let (armed, ran) = (Arc::clone(&armed), Arc::clone(&ran));
            par::ThreadPoolBuilder::new()
                .num_threads(4)
                .exit_handler(move |_| {
                    if armed.load(Ordering::SeqCst) {
                        let ran = Arc::clone(&ran);
                        // Queued on the retiring worker's own deque, after its hand-off.
                        par::spawn(move || {
                            ran.fetch_add(1, Ordering::SeqCst);
                        });
                    }
                })
                .build()
                .unwrap()
        };
        for _ in 0..20 {
            let before = ran.load(Ordering::SeqCst);
            pool.set_num_threads(1).unwrap();
            assert!(
                wait_until(|| ran.load(Ordering::SeqCst) == before + 3),
                "the three retiring workers' tasks run: {} of 3",
                ran.load(Ordering::SeqCst) - before
            );
            pool.set_num_threads(4).unwrap();
        }
        armed.store(false, Ordering::SeqCst);
        pool.shutdown_and_wait();
    });
}
