//! `ThreadPoolBuilder` options and errors, thread names and indices, start and exit handlers,
//! and the free introspection functions (`current_thread_index`, `yield_now`, ...).

use crate::common_pool;

use common_pool::{assert_pool_still_works, fib_iterative, fib_join, par, pool, wait_until};
use std::hint::black_box;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

#[test]
fn thread_names_are_visible_inside_a_broadcast() {
    let pool = par::ThreadPoolBuilder::new()
        .num_threads(3)
        .thread_name(|index| format!("pool-test-{index}"))
        .build()
        .unwrap();
    let names = pool.broadcast(|_| thread::current().name().map(str::to_owned));
    let expected: Vec<_> = (0..3).map(|i| Some(format!("pool-test-{i}"))).collect();
    assert_eq!(names, expected);
}

#[test]
fn current_thread_index_inside_a_broadcast_covers_every_index_once() {
    let pool = pool(5);
    let mut indices = pool.broadcast(|_| par::current_thread_index().unwrap());
    indices.sort_unstable();
    assert_eq!(indices, vec![0, 1, 2, 3, 4]);
    assert_eq!(pool.current_num_threads(), 5);
    assert!(pool.current_num_threads() <= par::max_num_threads());
}

#[test]
fn current_thread_index_is_none_outside_every_pool() {
    let pool = pool(2);
    assert_eq!(par::current_thread_index(), None);
    assert_eq!(pool.current_thread_index(), None);
    let from_a_plain_thread = thread::spawn(par::current_thread_index).join().unwrap();
    assert_eq!(from_a_plain_thread, None);
    let inside = pool.install(|| (par::current_thread_index(), pool.current_thread_index()));
    assert!(
        inside.0.is_some_and(|i| i < 2) && inside.0 == inside.1,
        "{inside:?}"
    );
}

#[test]
fn start_and_exit_handlers_run_once_per_thread() {
    const THREADS: usize = 4;
    let started = Arc::new(Mutex::new(Vec::new()));
    let exited = Arc::new(Mutex::new(Vec::new()));
    let (started_log, exited_log) = (Arc::clone(&started), Arc::clone(&exited));
    let pool = par::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .start_handler(move |index| started_log.lock().unwrap().push(index))
        .exit_handler(move |index| exited_log.lock().unwrap().push(index))
        .build()
        .unwrap();
    // A thread runs its broadcast job only after its start handler returned.
    pool.broadcast(|_| ());
    let mut started = started.lock().unwrap().clone();
    started.sort_unstable();
    assert_eq!(started, (0..THREADS).collect::<Vec<_>>());
    assert!(exited.lock().unwrap().is_empty(), "no thread exits early");
    drop(pool);
    assert!(wait_until(|| exited.lock().unwrap().len() == THREADS));
    let mut exited = exited.lock().unwrap().clone();
    exited.sort_unstable();
    assert_eq!(exited, (0..THREADS).collect::<Vec<_>>());
}

#[test]
fn yield_now_is_none_outside_a_pool_and_some_inside() {
    assert_eq!(par::yield_now(), None);
    assert_eq!(par::yield_local(), None);
    let pool = pool(2);
    assert_eq!(pool.yield_now(), None, "the test thread is not in the pool");
    assert!(pool.install(par::yield_now).is_some());
    assert!(pool.install(|| pool.yield_local()).is_some());
}

// Rayon's `spawn` docs: spawns are prioritized LIFO on the spawning thread, i.e. a spawn from
// a worker is queued locally, where `yield_local` looks.
#[test]
fn yield_local_runs_a_job_spawned_on_the_same_one_thread_pool() {
    let pool = pool(1);
    let ran = Arc::new(AtomicBool::new(false));
    let ran_in_job = Arc::clone(&ran);
    let (first, flag, second) = pool.install(|| {
        par::spawn(move || ran_in_job.store(true, Ordering::SeqCst));
        let first = par::yield_local();
        (first, ran.load(Ordering::SeqCst), par::yield_local())
    });
    assert_eq!(first, Some(par::Yield::Executed));
    assert!(flag, "the spawned job ran during yield_local");
    assert_eq!(second, Some(par::Yield::Idle));
}

#[test]
fn num_threads_zero_means_automatic() {
    let pool = pool(0);
    if std::env::var_os("RAYON_NUM_THREADS").is_none()
        && std::env::var_os("WEFT_NUM_THREADS").is_none()
    {
        let available = thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(pool.current_num_threads(), available);
    }
    assert!(pool.current_num_threads() >= 1);
    assert_pool_still_works(&pool);
}

/// Recurses with a 4 KiB frame per level; `levels` levels need `levels * 4 KiB` of stack.
fn stack_hungry(levels: u32) -> u64 {
    let frame = black_box([u8::try_from(levels % 251).unwrap(); 4096]);
    if levels == 0 {
        return 0;
    }
    u64::from(frame[levels as usize % 4096]) + stack_hungry(black_box(levels - 1))
}

#[test]
fn a_larger_stack_size_is_given_to_the_workers() {
    // 6000 levels need about 24 MiB: more than the 2 MiB default, well within 64 MiB.
    let pool = par::ThreadPoolBuilder::new()
        .num_threads(2)
        .stack_size(64 << 20)
        .build()
        .unwrap();
    let expected: u64 = (1..=6000u32).map(|l| u64::from(l % 251)).sum();
    let results = pool.broadcast(|_| stack_hungry(6000));
    assert_eq!(results, vec![expected, expected]);
}

#[test]
fn a_stack_size_the_os_refuses_gives_an_error() {
    // Overcommit makes "too big for RAM" succeed lazily on some systems, so ask for more than
    // the address space: 2^48 bytes on 64-bit targets, and usize::MAX everywhere.
    let mut sizes = vec![usize::MAX];
    if cfg!(target_pointer_width = "64") {
        sizes.push(1 << 48);
    }
    for size in sizes {
        let built = par::ThreadPoolBuilder::new()
            .num_threads(2)
            .stack_size(size)
            .build();
        let error = built.expect_err("a stack the size of the address space cannot exist");
        assert!(!error.to_string().is_empty());
    }
}

#[test]
fn a_panicking_thread_name_closure_propagates_out_of_build() {
    // As in Rayon (its `panic_thread_name` test): the closure's panic escapes from `build`
    // with its own payload, and the workers named before it start and then exit.
    let threads = 6;
    let panics_at = 4;
    let starts = Arc::new(AtomicUsize::new(0));
    let exits = Arc::new(AtomicUsize::new(0));
    let (starts_in_handler, exits_in_handler) = (Arc::clone(&starts), Arc::clone(&exits));
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        par::ThreadPoolBuilder::new()
            .num_threads(threads)
            .start_handler(move |_| {
                starts_in_handler.fetch_add(1, Ordering::SeqCst);
            })
            .exit_handler(move |_| {
                exits_in_handler.fetch_add(1, Ordering::SeqCst);
            })
            .thread_name(move |index| {
                if index == panics_at {
                    common_pool::boom("thread_name");
                }
                format!("named-{index}")
            })
            .build()
    }));
    match outcome {
        Ok(Ok(_)) => panic!("build succeeded although a thread could not be named"),
        Ok(Err(error)) => panic!("build returned an error instead of the panic: {error}"),
        Err(payload) => assert_eq!(common_pool::boom_tag(payload), "thread_name"),
    }
    // Workers 0 to panics_at - 1 were started (threads are named in index order).
    assert!(
        wait_until(|| exits.load(Ordering::SeqCst) == panics_at),
        "{} of the {panics_at} started workers exited",
        exits.load(Ordering::SeqCst)
    );
    assert_eq!(starts.load(Ordering::SeqCst), panics_at);
    // Building still works afterwards.
    assert_eq!(pool(2).install(|| fib_join(16)), fib_iterative(16));
}

#[test]
fn handlers_and_names_combine_with_real_work() {
    let starts = Arc::new(AtomicUsize::new(0));
    let starts_in_handler = Arc::clone(&starts);
    let pool = par::ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(|index| format!("combo-{index}"))
        .start_handler(move |_| {
            starts_in_handler.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();
    assert_pool_still_works(&pool);
    assert_eq!(starts.load(Ordering::SeqCst), 2);
}
