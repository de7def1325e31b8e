//! `ThreadPoolBuilder::spawn_handler`, `ThreadBuilder`, `build_scoped` and
//! `use_current_thread`: custom-started workers compute what std computes, a failing (or
//! panicking) handler fails the build and lets the workers it started exit, scoped pools may
//! borrow locals, and the calling thread can become worker 0.

use crate::common;
use crate::common_pool;

use common::random_u64s;
use common_pool::{fib_iterative, fib_join, par, HANG_GUARD};
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

use par::prelude::*;

/// Joins `handles` on a helper thread and fails the test if that takes longer than the hang
/// guard (a worker that never left `run` would otherwise hang the test binary).
fn join_all_or_fail(handles: Vec<JoinHandle<()>>) {
    let (done_tx, done_rx) = mpsc::channel();
    thread::spawn(move || {
        for handle in handles {
            handle.join().expect("a worker thread panicked");
        }
        done_tx.send(()).unwrap();
    });
    done_rx
        .recv_timeout(HANG_GUARD)
        .expect("the started worker threads did not exit");
}

/// Runs `body` on a new thread: `use_current_thread` adopts the calling thread for good, so
/// those tests must not adopt a thread the test harness reuses.
fn on_a_fresh_thread(body: impl FnOnce() + Send + 'static) {
    thread::spawn(body).join().expect("the test body panicked");
}

/// A counter of worker exits and an exit handler that increments it.
fn exit_counter() -> (Arc<AtomicUsize>, impl Fn(usize) + Send + Sync + 'static) {
    let exited = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&exited);
    let handler = move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    };
    (exited, handler)
}

/// Decrements the counter it points to when dropped: counts threads still running.
struct LiveGuard(Arc<AtomicUsize>);

impl LiveGuard {
    fn enter(live: &Arc<AtomicUsize>) -> Self {
        live.fetch_add(1, Ordering::SeqCst);
        LiveGuard(Arc::clone(live))
    }
}

impl Drop for LiveGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[test]
fn spawn_handler_starts_each_worker_once_and_the_pool_computes() {
    const THREADS: usize = 3;
    let calls = AtomicUsize::new(0);
    let handles = Mutex::new(Vec::new());
    let pool = par::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .spawn_handler(|thread: par::ThreadBuilder| {
            calls.fetch_add(1, Ordering::SeqCst);
            assert_eq!(thread.name(), None, "no thread_name was configured");
            assert_eq!(thread.stack_size(), None);
            let handle = thread::Builder::new()
                .name(format!("handler-{}", thread.index()))
                .spawn(move || thread.run())?;
            handles.lock().unwrap().push(handle);
            Ok(())
        })
        .build()
        .expect("every spawn succeeded");
    assert_eq!(calls.load(Ordering::SeqCst), THREADS);
    assert_eq!(pool.current_num_threads(), THREADS);

    // Each worker runs on the thread the handler started for its index.
    let seen = pool.broadcast(|ctx| {
        (
            ctx.index(),
            par::current_thread_index(),
            thread::current().name().map(str::to_owned),
        )
    });
    let expected: Vec<_> = (0..THREADS)
        .map(|i| (i, Some(i), Some(format!("handler-{i}"))))
        .collect();
    assert_eq!(seen, expected);

    // join, install and a parallel iterator, against std on seeded random data.
    assert_eq!(pool.join(|| fib_join(18), || 7), (fib_iterative(18), 7));
    let data = random_u64s(100_003, 21);
    let expected_sum = data.iter().fold(0u64, |acc, &x| acc.wrapping_add(x >> 8));
    let sum = pool.install(|| {
        data.par_iter()
            .map(|&x| x >> 8)
            .reduce(|| 0, u64::wrapping_add)
    });
    assert_eq!(sum, expected_sum);
    let max = pool.install(|| data.par_iter().copied().max());
    assert_eq!(max, data.iter().copied().max());

    pool.shutdown_and_wait();
    join_all_or_fail(handles.into_inner().unwrap());
}

#[test]
fn spawn_handler_sees_the_configured_name_and_stack_size() {
    const STACK: usize = 3 << 20;
    let pool = par::ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(|i| format!("configured-{i}"))
        .stack_size(STACK)
        .spawn_handler(|thread| {
            assert_eq!(thread.stack_size(), Some(STACK));
            let expected = format!("configured-{}", thread.index());
            assert_eq!(thread.name(), Some(expected.as_str()));
            let debug = format!("{thread:?}");
            assert!(
                debug.contains("ThreadBuilder") && debug.contains(&expected),
                "{debug}"
            );
            thread::Builder::new()
                .name(thread.name().unwrap().to_owned())
                .stack_size(STACK)
                .spawn(move || thread.run())?;
            Ok(())
        })
        .build()
        .unwrap();
    let names = pool.broadcast(|_| thread::current().name().map(str::to_owned));
    assert_eq!(
        names,
        vec![Some("configured-0".into()), Some("configured-1".into())]
    );
}

#[test]
fn shutdown_and_wait_waits_for_custom_started_workers() {
    const THREADS: usize = 4;
    let (exited, count_exit) = exit_counter();
    let pool = par::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .exit_handler(count_exit)
        .spawn_handler(|thread| {
            thread::spawn(move || thread.run());
            Ok(())
        })
        .build()
        .unwrap();
    assert_eq!(pool.install(|| fib_join(15)), fib_iterative(15));
    pool.shutdown_and_wait();
    // No handle to join: shutdown_and_wait itself must have waited for every worker.
    assert_eq!(exited.load(Ordering::SeqCst), THREADS);
}

/// A handler that starts `ok_spawns` threads, then fails with an I/O error (or panics): the
/// build fails, and every started thread leaves `run` and exits.
fn failing_handler_case(num_threads: usize, ok_spawns: usize, panic_instead: bool) {
    let live = Arc::new(AtomicUsize::new(0));
    let (exited, count_exit) = exit_counter();
    let calls = AtomicUsize::new(0);
    let handles = Mutex::new(Vec::new());
    let builder = par::ThreadPoolBuilder::new()
        .num_threads(num_threads)
        .exit_handler(count_exit)
        .spawn_handler(|thread| {
            if calls.fetch_add(1, Ordering::SeqCst) == ok_spawns {
                if panic_instead {
                    common_pool::boom("spawn handler");
                }
                return Err(io::Error::other("no more threads for you"));
            }
            let guard = LiveGuard::enter(&live);
            let handle = thread::spawn(move || {
                let _guard = guard;
                thread.run();
            });
            handles.lock().unwrap().push(handle);
            Ok(())
        });
    let outcome = catch_unwind(AssertUnwindSafe(|| builder.build()));
    match outcome {
        Ok(Ok(_)) => panic!("the build must fail"),
        Ok(Err(error)) => {
            assert!(!panic_instead);
            assert!(
                error.to_string().contains("no more threads for you"),
                "{error}"
            );
            let source = std::error::Error::source(&error).expect("the io::Error is the source");
            assert!(source.to_string().contains("no more threads for you"));
        }
        Err(payload) => {
            assert!(panic_instead, "unexpected panic");
            assert_eq!(common_pool::boom_tag(payload), "spawn handler");
        }
    }
    assert_eq!(calls.load(Ordering::SeqCst), ok_spawns + 1);
    join_all_or_fail(handles.into_inner().unwrap());
    assert_eq!(live.load(Ordering::SeqCst), 0);
    assert_eq!(exited.load(Ordering::SeqCst), ok_spawns);
}

#[test]
fn a_failing_spawn_handler_fails_the_build_and_started_threads_exit() {
    // (threads, spawns that succeed before the failure): in the middle, first, last.
    for (num_threads, ok_spawns) in [(4, 2), (3, 0), (3, 2)] {
        failing_handler_case(num_threads, ok_spawns, false);
    }
}

#[test]
fn a_panicking_spawn_handler_propagates_and_started_threads_exit() {
    failing_handler_case(4, 3, true);
}

#[test]
fn build_scoped_workers_borrow_locals_and_exit_before_it_returns() {
    const THREADS: usize = 3;
    // Locals borrowed by the wrapper (on every worker) and by `with_pool`: not 'static.
    let data = random_u64s(50_001, 5);
    let started = AtomicUsize::new(0);
    let running = AtomicUsize::new(0);
    let names = Mutex::new(Vec::new());
    let (sum, indices) = par::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .thread_name(|i| format!("scoped-{i}"))
        .build_scoped(
            |thread| {
                started.fetch_add(1, Ordering::SeqCst);
                running.fetch_add(1, Ordering::SeqCst);
                names
                    .lock()
                    .unwrap()
                    .push(thread::current().name().map(str::to_owned));
                thread.run();
                running.fetch_sub(1, Ordering::SeqCst);
            },
            |pool| {
                let sum = pool.install(|| data.par_iter().map(|&x| x % 1000).sum::<u64>());
                (sum, pool.broadcast(|ctx| ctx.index()))
            },
        )
        .expect("the scoped pool builds");
    assert_eq!(sum, data.iter().map(|&x| x % 1000).sum::<u64>());
    assert_eq!(indices, vec![0, 1, 2]);
    assert_eq!(started.load(Ordering::SeqCst), THREADS);
    // The scope joined every worker: none is still inside the wrapper.
    assert_eq!(running.load(Ordering::SeqCst), 0);
    let mut names = names.into_inner().unwrap();
    names.sort();
    let expected: Vec<_> = (0..THREADS).map(|i| Some(format!("scoped-{i}"))).collect();
    assert_eq!(names, expected);
    drop(data); // no longer borrowed
}

#[test]
fn build_scoped_propagates_a_thread_name_panic_after_joining_the_started_worker() {
    // As in Rayon, the panic unwinds out of `build_scoped`. On a helper thread: if the
    // started worker never left `run`, the scope would never end.
    let (done_tx, done_rx) = mpsc::channel();
    thread::spawn(move || {
        let calls = AtomicUsize::new(0);
        let result = catch_unwind(AssertUnwindSafe(|| {
            par::ThreadPoolBuilder::new()
                .num_threads(2)
                .thread_name(|i| {
                    if i == 1 {
                        common_pool::boom("thread_name")
                    } else {
                        "x".into()
                    }
                })
                .build_scoped(
                    |thread| {
                        calls.fetch_add(1, Ordering::SeqCst);
                        thread.run()
                    },
                    |_| unreachable!("with_pool runs only on success"),
                )
        }));
        let tag = match result {
            Ok(_) => "no panic",
            Err(payload) => common_pool::boom_tag(payload),
        };
        done_tx.send((tag, calls.load(Ordering::SeqCst))).unwrap();
    });
    let (tag, calls) = done_rx
        .recv_timeout(HANG_GUARD)
        .expect("build_scoped returned: the started worker exited");
    assert_eq!(tag, "thread_name");
    // Worker 0 was started before naming worker 1 failed; the scope joined it.
    assert_eq!(calls, 1);
}

/// An adopted thread may end while its pool lives on. Each worker that goes idle closes
/// every other worker's join gate, which lives in that worker's thread: the ended thread's
/// gate must have left the pool with it. The other workers then go idle and busy many times
/// over and still compute what std computes.
#[test]
fn a_pool_outlives_the_thread_it_adopted() {
    let pool = thread::spawn(|| {
        par::ThreadPoolBuilder::new()
            .num_threads(3)
            .use_current_thread()
            .build()
            .unwrap()
    })
    .join()
    .expect("the adopted thread panicked");
    for round in 0..20 {
        let data = random_u64s(10_007, round);
        let sum = pool.install(|| data.par_iter().map(|&x| x >> 20).sum::<u64>());
        assert_eq!(sum, data.iter().map(|&x| x >> 20).sum::<u64>());
        assert_eq!(pool.install(|| fib_join(18)), fib_iterative(18));
    }
}

#[test]
fn use_current_thread_makes_the_caller_worker_zero() {
    on_a_fresh_thread(|| {
        let spawned = AtomicUsize::new(0);
        let pool = par::ThreadPoolBuilder::new()
            .num_threads(3)
            .use_current_thread()
            .spawn_handler(|thread| {
                assert_ne!(thread.index(), 0, "worker 0 is the calling thread");
                spawned.fetch_add(1, Ordering::SeqCst);
                thread::spawn(move || thread.run());
                Ok(())
            })
            .build()
            .unwrap();
        assert_eq!(spawned.load(Ordering::SeqCst), 2);
        assert_eq!(par::current_thread_index(), Some(0));
        assert_eq!(pool.current_thread_index(), Some(0));
        assert_eq!(par::current_num_threads(), 3);

        // Work started here is shared with the two started workers.
        let data = random_u64s(20_011, 9);
        let sum = data.par_iter().map(|&x| x >> 20).sum::<u64>();
        assert_eq!(sum, data.iter().map(|&x| x >> 20).sum::<u64>());
        assert_eq!(fib_join(20), fib_iterative(20));
        let mut indices = pool.broadcast(|ctx| ctx.index());
        indices.sort_unstable();
        assert_eq!(indices, vec![0, 1, 2]);

        // A thread can be a worker of one pool only.
        let second = par::ThreadPoolBuilder::new()
            .num_threads(2)
            .use_current_thread()
            .build();
        assert!(second.is_err());
        // A detached task reaches another worker even though worker 0 never loops.
        let (tx, rx) = mpsc::channel();
        pool.spawn(move || tx.send(par::current_thread_index()).unwrap());
        let ran_on = rx.recv_timeout(HANG_GUARD).expect("the spawned task ran");
        assert!(matches!(ran_on, Some(1 | 2)), "{ran_on:?}");
    });
}

#[test]
fn use_current_thread_with_one_thread_starts_no_thread() {
    on_a_fresh_thread(|| {
        let pool = par::ThreadPoolBuilder::new()
            .num_threads(1)
            .use_current_thread()
            .spawn_handler(|_| common_pool::boom("no thread to start"))
            .build()
            .unwrap();
        assert_eq!(pool.install(par::current_thread_index), Some(0));
        assert_eq!(pool.join(|| fib_join(12), || 1), (fib_iterative(12), 1));
        let data = random_u64s(1000, 3);
        let total: u64 = pool.install(|| data.par_iter().map(|&x| x & 0xff).sum());
        assert_eq!(total, data.iter().map(|&x| x & 0xff).sum::<u64>());
    });
}

#[test]
fn use_current_thread_is_undone_by_a_failed_build() {
    on_a_fresh_thread(|| {
        let result = par::ThreadPoolBuilder::new()
            .num_threads(2)
            .use_current_thread()
            .spawn_handler(|_| Err(io::Error::other("refused")))
            .build();
        assert!(result.is_err());
        // The failed build did not make this thread a worker.
        assert_eq!(par::current_thread_index(), None);
    });
}

/// The shapes Rayon's documentation shows for `spawn_handler`, written against `rayon::`
/// names: they must compile and run unchanged with `use weft as rayon;`.
mod rayon_shapes {
    use super::*;
    use weft as rayon;

    fn plain_threads() -> Result<u64, rayon::ThreadPoolBuildError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .spawn_handler(|thread| {
                std::thread::spawn(|| thread.run());
                Ok(())
            })
            .build()?;
        Ok(pool.install(|| fib_join(16)))
    }

    fn scoped_threads(offset: &u64) -> Result<u64, rayon::ThreadPoolBuildError> {
        std::thread::scope(|scope| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .spawn_handler(|thread| {
                    let mut builder = std::thread::Builder::new();
                    if let Some(name) = thread.name() {
                        builder = builder.name(name.to_string());
                    }
                    builder.spawn_scoped(scope, || thread.run())?;
                    Ok(())
                })
                .build()?;
            Ok(pool.install(|| fib_join(16) + *offset))
        })
    }

    #[test]
    fn rayon_documented_spawn_handler_shapes_run() {
        assert_eq!(plain_threads().unwrap(), fib_iterative(16));
        let offset = 5; // borrowed by the pool's scope
        assert_eq!(scoped_threads(&offset).unwrap(), fib_iterative(16) + 5);
        let default_builder: rayon::ThreadPoolBuilder = rayon::ThreadPoolBuilder::default();
        assert_eq!(
            default_builder
                .num_threads(1)
                .build()
                .unwrap()
                .current_num_threads(),
            1
        );
    }
}
