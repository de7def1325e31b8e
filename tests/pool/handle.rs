//! `spawn_handle` and its `JoinHandle`: joining (from outside a pool, from its workers, from
//! a pool of one thread), awaiting (a hand-written executor and tokio), panics, detaching.

use crate::common_pool;

use common_pool::{boom, boom_tag, fib_iterative, fib_join, par, pool, wait_until, HANG_GUARD};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Barrier};
use std::task::{Context, Poll, Wake, Waker};
use std::thread;

/// A minimal executor: polls `future` on this thread, parking between polls.
fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(value) => return value,
            Poll::Pending => thread::park(),
        }
    }
}

/// A waker that counts its wake-ups.
#[derive(Default)]
struct CountingWaker(AtomicUsize);

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A value that counts how often values of its kind are dropped.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// What the handle tests compute: a cheap value that depends on `i` in a way a mix-up shows.
fn work(i: u64) -> u64 {
    fib_iterative((i % 40) as u32) ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

#[test]
fn ten_thousand_handles_joined_in_random_order() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(24);
    for threads in [1, 4] {
        let pool = pool(threads);
        // From outside the pool (blocking joins).
        let mut handles: Vec<_> = (0..10_000u64)
            .map(|i| (i, pool.spawn_handle(move || work(i))))
            .collect();
        handles.shuffle(&mut rng);
        for (i, handle) in handles {
            assert_eq!(handle.join(), work(i), "task {i} on {threads} threads");
        }
        // From a worker of the pool (claims the tasks nobody started, helps otherwise).
        let mut order: Vec<u64> = (0..10_000).collect();
        order.shuffle(&mut rng);
        let results = pool.install(|| {
            let mut handles: Vec<_> = (0..10_000u64)
                .map(|i| Some(par::spawn_handle(move || work(i))))
                .collect();
            order
                .iter()
                .map(|&i| (i, handles[i as usize].take().unwrap().join()))
                .collect::<Vec<_>>()
        });
        for (i, result) in results {
            assert_eq!(result, work(i), "task {i} joined inside {threads} threads");
        }
    }
}

#[test]
fn a_pool_of_one_thread_joins_its_own_handles() {
    let pool = pool(1);
    // Inside: the only worker joins, so it must run the tasks itself, nested too.
    let sum = pool.install(|| {
        let handles: Vec<_> = (0..100u32)
            .map(|i| {
                par::spawn_handle(move || {
                    let inner = par::spawn_handle(move || fib_join(i % 15));
                    inner.join() + 1
                })
            })
            .collect();
        handles.into_iter().rev().map(|h| h.join()).sum::<u64>()
    });
    let expected: u64 = (0..100u32).map(|i| fib_iterative(i % 15) + 1).sum();
    assert_eq!(sum, expected);
    // Outside: the caller blocks and the worker runs them.
    let handles: Vec<_> = (0..100u32)
        .map(|i| pool.spawn_handle(move || fib_join(i % 15)))
        .collect();
    let sum: u64 = handles.into_iter().map(|h| h.join()).sum();
    assert_eq!(sum, (0..100u32).map(|i| fib_iterative(i % 15)).sum::<u64>());
}

#[test]
fn a_worker_of_another_pool_joins_while_its_pool_works() {
    let (first, second) = (pool(2), pool(1));
    let handle = second.spawn_handle(|| fib_join(22));
    // A worker of `first` waits for `second`'s task, running `first`'s jobs meanwhile.
    let (joined, other) = first.install(|| par::join(|| handle.join(), || fib_join(20)));
    assert_eq!((joined, other), (fib_iterative(22), fib_iterative(20)));
}

#[test]
fn handles_are_awaited_by_a_hand_written_executor_while_the_pool_is_saturated() {
    let pool = pool(2);
    // More long tasks than workers: most handles are still queued when awaited.
    let handles: Vec<_> = (0..64u32)
        .map(|i| pool.spawn_handle(move || fib_join(18 + i % 4)))
        .collect();
    let total = block_on(async {
        let mut total = 0;
        for handle in handles {
            total += handle.await;
        }
        total
    });
    assert_eq!(
        total,
        (0..64u32).map(|i| fib_iterative(18 + i % 4)).sum::<u64>()
    );
}

#[test]
fn handles_are_awaited_from_tokio_while_the_pool_is_saturated() {
    let pool = Arc::new(pool(2));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let results = runtime.block_on(async {
        // Keep the pool busy with work nobody awaits first.
        let busy: Vec<_> = (0..16u32)
            .map(|_| pool.spawn_handle(|| fib_join(24)))
            .collect();
        // Each tokio task awaits CPU work on the pool: no spawn_blocking, no channel.
        let tasks: Vec<_> = (0..32u32)
            .map(|i| {
                let pool = Arc::clone(&pool);
                tokio::spawn(async move { pool.spawn_handle(move || fib_join(i % 20)).await })
            })
            .collect();
        let mut results = Vec::new();
        for task in tasks {
            results.push(task.await.unwrap());
        }
        for handle in busy {
            assert_eq!(handle.await, fib_iterative(24));
        }
        results
    });
    let expected: Vec<u64> = (0..32u32).map(|i| fib_iterative(i % 20)).collect();
    assert_eq!(results, expected);
}

#[test]
fn the_last_registered_waker_is_woken_once_when_the_result_is_ready() {
    let pool = pool(2);
    let gate = Arc::new(Barrier::new(2));
    let task_gate = Arc::clone(&gate);
    let mut handle = pool.spawn_handle(move || {
        task_gate.wait();
        17u32
    });
    let (first, second) = (
        Arc::new(CountingWaker::default()),
        Arc::new(CountingWaker::default()),
    );
    let mut poll_with = |waker: &Arc<CountingWaker>| {
        let waker = Waker::from(Arc::clone(waker));
        pin!(&mut handle).poll(&mut Context::from_waker(&waker))
    };
    // The task cannot finish before the gate opens: both polls are Pending.
    assert_eq!(poll_with(&first), Poll::Pending);
    assert_eq!(poll_with(&second), Poll::Pending);
    assert!(!handle.is_finished());
    gate.wait();
    assert!(
        wait_until(|| second.0.load(Ordering::SeqCst) == 1),
        "the registered waker was never woken"
    );
    assert!(handle.is_finished());
    // Replaced before completion: the first waker is never called; the second exactly once.
    assert_eq!(first.0.load(Ordering::SeqCst), 0);
    assert_eq!(handle.join(), 17);
    assert_eq!(second.0.load(Ordering::SeqCst), 1);
}

#[test]
fn a_panic_in_the_task_resumes_in_join_and_in_await() {
    let pool = pool(2);
    let handle = pool.spawn_handle(|| -> u32 { boom("joined") });
    let payload = panic::catch_unwind(AssertUnwindSafe(|| handle.join())).unwrap_err();
    assert_eq!(boom_tag(payload), "joined");
    // Joined inside the pool (the task may be claimed and run inline).
    let payload = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.install(|| par::spawn_handle(|| -> u32 { boom("inline") }).join())
    }))
    .unwrap_err();
    assert_eq!(boom_tag(payload), "inline");
    let handle = pool.spawn_handle(|| -> u32 { boom("awaited") });
    let payload = panic::catch_unwind(AssertUnwindSafe(|| block_on(handle))).unwrap_err();
    assert_eq!(boom_tag(payload), "awaited");
    assert_eq!(pool.install(|| fib_join(20)), fib_iterative(20));
}

#[test]
fn dropped_handles_detach_their_tasks_and_nothing_leaks() {
    let pool = pool(2);
    let drops = Arc::new(AtomicUsize::new(0));
    let (ran_sender, ran) = mpsc::channel();
    let gate = Arc::new(Barrier::new(2));
    // Dropped before the task finishes (the first task waits for the gate), and dropped
    // after it finished: either way the task runs once and its result is dropped once; the
    // closure's captured value too.
    let first = {
        let (drops, sender, gate) = (Arc::clone(&drops), ran_sender.clone(), Arc::clone(&gate));
        let captured = Counted(Arc::clone(&drops));
        pool.spawn_handle(move || {
            let _captured = captured;
            gate.wait();
            sender.send(0).unwrap();
            Counted(drops)
        })
    };
    drop(first);
    gate.wait();
    let handles: Vec<_> = (1..=200)
        .map(|i| {
            let (drops, sender) = (Arc::clone(&drops), ran_sender.clone());
            let captured = Counted(Arc::clone(&drops));
            pool.spawn_handle(move || {
                let _captured = captured;
                sender.send(i).unwrap();
                Counted(drops)
            })
        })
        .collect();
    let mut seen: Vec<i32> = (0..=200)
        .map(|_| {
            ran.recv_timeout(HANG_GUARD)
                .expect("a detached task never ran")
        })
        .collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..=200).collect::<Vec<_>>());
    assert!(wait_until(|| handles.iter().all(|h| h.is_finished())));
    drop(handles);
    // 201 captured values and 201 results, each dropped exactly once.
    assert!(
        wait_until(|| drops.load(Ordering::SeqCst) >= 402),
        "only {} of 402 values were dropped",
        drops.load(Ordering::SeqCst)
    );
    pool.shutdown_and_wait();
    assert_eq!(drops.load(Ordering::SeqCst), 402);
}

#[test]
fn a_detached_tasks_panic_goes_to_the_panic_handler() {
    let (sender, receiver) = mpsc::channel();
    let pool = par::ThreadPoolBuilder::new()
        .num_threads(2)
        .panic_handler(move |payload| sender.send(boom_tag(payload)).unwrap())
        .build()
        .unwrap();
    let gate = Arc::new(Barrier::new(2));
    let task_gate = Arc::clone(&gate);
    let handle = pool.spawn_handle(move || -> u32 {
        task_gate.wait();
        boom("detached")
    });
    drop(handle);
    gate.wait();
    assert_eq!(receiver.recv_timeout(HANG_GUARD), Ok("detached"));
}

#[test]
fn scope_handles_borrow_locals_and_return_values() {
    let words: Vec<String> = (0..50).map(|i| format!("word{i}")).collect();
    let mut lengths = vec![0; words.len()];
    let pool = pool(3);
    let total = pool.scope(|s| {
        let handles: Vec<_> = words
            .iter()
            .zip(lengths.iter_mut())
            .map(|(word, slot)| {
                s.spawn_handle(move |_| {
                    *slot = word.len();
                    word.as_str()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().len()).sum::<usize>()
    });
    let expected: Vec<usize> = words.iter().map(String::len).collect();
    assert_eq!(lengths, expected);
    assert_eq!(total, expected.iter().sum::<usize>());
    // A handle may leave the scope: the scope waited for its task, so the result is there.
    let data = [3u64, 4, 5];
    let handle = pool.scope(|s| s.spawn_handle(|_| data.iter().product::<u64>()));
    assert!(handle.is_finished());
    assert_eq!(handle.join(), 60);
}

#[test]
fn a_scope_handle_dropped_early_hands_its_panic_to_the_scope() {
    let pool = pool(2);
    let payload = panic::catch_unwind(AssertUnwindSafe(|| {
        let gate = Barrier::new(2);
        pool.scope(|s| {
            let handle = s.spawn_handle(|_| -> u32 {
                gate.wait();
                boom("scope")
            });
            drop(handle);
            gate.wait();
        })
    }))
    .unwrap_err();
    assert_eq!(boom_tag(payload), "scope");
    // Joined instead: the panic comes out of `join`, and the scope ends normally.
    let caught = pool.scope(|s| {
        let handle = s.spawn_handle(|_| -> u32 { boom("joined in scope") });
        boom_tag(panic::catch_unwind(AssertUnwindSafe(|| handle.join())).unwrap_err())
    });
    assert_eq!(caught, "joined in scope");
}
