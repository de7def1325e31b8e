//! User code the pool calls outside a task's own body (a waker registered by polling a
//! handle, the drop of a detached task's result, of a waker, of a broadcast closure, the
//! start handler) never unwinds through a worker (#54): its panic goes to the scope of the
//! task (resumed when the scope ends) or to the pool's `panic_handler`, and the pool keeps
//! every one of its workers. Each test runs under a watchdog: a worker killed by such a
//! panic used to leave the scope, or the next broadcast, waiting forever.

use crate::common_pool;

use common_pool::{assert_pool_still_works, boom, boom_tag, par, pool, wait_until};
use common_pool::{with_watchdog, HANG_GUARD};
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Barrier};
use std::task::{Context, Poll, Wake, Waker};

/// A waker that panics with `Boom("wake")` when woken, and with `Boom("waker drop")` when
/// its last reference is dropped if `panic_on_drop` (unless it is dropped while unwinding).
struct PanickingWaker {
    panic_on_wake: bool,
    panic_on_drop: bool,
}

impl Wake for PanickingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        if self.panic_on_wake {
            boom("wake");
        }
    }
}

impl Drop for PanickingWaker {
    fn drop(&mut self) {
        if self.panic_on_drop && !std::thread::panicking() {
            boom("waker drop");
        }
    }
}

fn waker_panicking_on_wake() -> Waker {
    Waker::from(Arc::new(PanickingWaker {
        panic_on_wake: true,
        panic_on_drop: false,
    }))
}

fn waker_panicking_on_drop() -> Waker {
    Waker::from(Arc::new(PanickingWaker {
        panic_on_wake: false,
        panic_on_drop: true,
    }))
}

/// Polls `handle` once with `waker` (which the handle keeps, to wake when the result is
/// ready); the task is held back, so the poll must find it pending.
fn register<T>(handle: &mut par::ScopedJoinHandle<'_, T>, waker: &Waker) {
    let poll = pin!(handle).poll(&mut Context::from_waker(waker));
    assert!(
        poll.is_pending(),
        "the task was held back, it cannot be ready"
    );
}

/// A value whose drop panics with `Boom("result drop")` (not while unwinding).
struct PanicsOnDrop(&'static str);

impl Drop for PanicsOnDrop {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            boom(self.0);
        }
    }
}

/// A pool whose panic handler sends each payload's tag to the returned receiver.
fn pool_reporting_panics(threads: usize) -> (par::ThreadPool, mpsc::Receiver<&'static str>) {
    let (sender, receiver) = mpsc::channel();
    let sender = std::sync::Mutex::new(sender);
    let pool = par::ThreadPoolBuilder::new()
        .num_threads(threads)
        .panic_handler(move |payload| sender.lock().unwrap().send(boom_tag(payload)).unwrap())
        .build()
        .unwrap();
    (pool, receiver)
}

#[test]
fn a_panicking_waker_of_a_scope_task_reaches_the_scope_and_every_worker_survives() {
    with_watchdog("a scope whose task woke a panicking waker", || {
        let pool = pool(2);
        for _ in 0..10 {
            let gate = Barrier::new(2);
            let mut joined = None;
            let payload = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.scope(|s| {
                    let mut handle = s.spawn_handle(|_| {
                        gate.wait();
                        7u32
                    });
                    register(&mut handle, &waker_panicking_on_wake());
                    gate.wait();
                    // Completed with the panicking waker still registered: the worker that
                    // completed the task woke it (or is about to).
                    assert!(wait_until(|| handle.is_finished()));
                    joined = Some(handle.join());
                })
            }))
            .expect_err("the waker's panic must reach the scope");
            assert_eq!(boom_tag(payload), "wake");
            assert_eq!(joined, Some(7), "the task's value is still delivered");
        }
        assert_pool_still_works(&pool);
    });
}

#[test]
fn a_panicking_waker_of_a_pool_task_goes_to_the_panic_handler() {
    with_watchdog("a pool task waking a panicking waker", || {
        let (pool, panics) = pool_reporting_panics(2);
        for i in 0..10u64 {
            let gate = Arc::new(Barrier::new(2));
            let task_gate = Arc::clone(&gate);
            let mut handle = pool.spawn_handle(move || {
                task_gate.wait();
                i * 3
            });
            register(&mut handle, &waker_panicking_on_wake());
            gate.wait();
            assert_eq!(panics.recv_timeout(HANG_GUARD), Ok("wake"));
            assert_eq!(handle.join(), i * 3);
        }
        assert_pool_still_works(&pool);
        assert!(panics.try_recv().is_err(), "one panic per wake");
    });
}

#[test]
fn a_registered_waker_whose_drop_panics_is_dropped_by_the_pool_without_harm() {
    with_watchdog("dropping a panicking waker on a worker", || {
        // Detached after registering: the worker completing the task drops the last
        // reference to the waker, before the scope may end.
        let pool = pool(2);
        let payload = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                let gate = Arc::new(Barrier::new(2));
                let task_gate = Arc::clone(&gate);
                let mut handle = s.spawn_handle(move |_| {
                    task_gate.wait();
                    1u8
                });
                register(&mut handle, &waker_panicking_on_drop());
                drop(handle);
                gate.wait();
            })
        }))
        .expect_err("the waker's drop panicked on a worker: the scope must resume it");
        assert_eq!(boom_tag(payload), "waker drop");
        assert_pool_still_works(&pool);

        // A pool task, joined inline by the pool's only worker: the queued job, which runs
        // later, drops the last reference to the waker.
        let (pool, panics) = pool_reporting_panics(1);
        let value = pool.install(|| {
            let mut handle = par::spawn_handle(|| 41u32 + 1);
            // A pool of one: the task waits in this worker's deque until the join takes it.
            let waker = waker_panicking_on_drop();
            let poll = pin!(&mut handle).poll(&mut Context::from_waker(&waker));
            drop(waker);
            match poll {
                Poll::Pending => handle.join(),
                Poll::Ready(_) => unreachable!("nobody ran the task yet"),
            }
        });
        assert_eq!(value, 42);
        assert_eq!(panics.recv_timeout(HANG_GUARD), Ok("waker drop"));
        assert_pool_still_works(&pool);
    });
}

#[test]
fn a_detached_result_whose_drop_panics_reaches_the_scope_or_the_panic_handler() {
    with_watchdog("dropping a detached result that panics", || {
        let pool = pool(2);
        let payload = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                let gate = Arc::new(Barrier::new(2));
                let task_gate = Arc::clone(&gate);
                let handle = s.spawn_handle(move |_| {
                    task_gate.wait();
                    PanicsOnDrop("scope result drop")
                });
                drop(handle);
                gate.wait();
            })
        }))
        .expect_err("the result's drop panicked on a worker: the scope must resume it");
        assert_eq!(boom_tag(payload), "scope result drop");
        assert_pool_still_works(&pool);

        let (pool, panics) = pool_reporting_panics(2);
        let gate = Arc::new(Barrier::new(2));
        let task_gate = Arc::clone(&gate);
        drop(pool.spawn_handle(move || {
            task_gate.wait();
            PanicsOnDrop("pool result drop")
        }));
        gate.wait();
        assert_eq!(panics.recv_timeout(HANG_GUARD), Ok("pool result drop"));
        assert_pool_still_works(&pool);
    });
}

#[test]
fn a_broadcast_closure_is_dropped_before_its_scope_ends_and_its_drop_panic_is_delivered() {
    with_watchdog("dropping a panicking broadcast closure", || {
        /// Sets its flag when dropped, then panics.
        struct FlagThenPanic<'a>(&'a AtomicBool, &'static str);
        impl Drop for FlagThenPanic<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
                boom(self.1);
            }
        }
        let pool = pool(3);
        for _ in 0..10 {
            let dropped = AtomicBool::new(false);
            let payload = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.scope(|s| {
                    let guard = FlagThenPanic(&dropped, "scope closure drop");
                    s.spawn_broadcast(move |_, _| {
                        let _ = &guard;
                    });
                })
            }))
            .expect_err("the closure's drop panicked: the scope must resume it");
            assert_eq!(boom_tag(payload), "scope closure drop");
            // The closure borrows `dropped`: it must be gone before the scope returned.
            assert!(dropped.load(Ordering::SeqCst));
        }
        assert_pool_still_works(&pool);

        let (pool, panics) = pool_reporting_panics(3);
        static DROPPED: AtomicBool = AtomicBool::new(false);
        let guard = FlagThenPanic(&DROPPED, "pool closure drop");
        pool.spawn_broadcast(move |_| {
            let _ = &guard;
        });
        assert_eq!(panics.recv_timeout(HANG_GUARD), Ok("pool closure drop"));
        assert_pool_still_works(&pool);
        assert!(DROPPED.load(Ordering::SeqCst));
    });
}

#[test]
fn a_panicking_start_or_exit_handler_goes_to_the_panic_handler() {
    with_watchdog("panicking start and exit handlers", || {
        let (sender, panics) = mpsc::channel();
        let sender = std::sync::Mutex::new(sender);
        let pool = par::ThreadPoolBuilder::new()
            .num_threads(2)
            .panic_handler(move |payload| sender.lock().unwrap().send(boom_tag(payload)).unwrap())
            .start_handler(|index| {
                if index == 1 {
                    boom("start");
                }
            })
            .exit_handler(|index| {
                if index == 0 {
                    boom("exit");
                }
            })
            .build()
            .unwrap();
        assert_eq!(panics.recv_timeout(HANG_GUARD), Ok("start"));
        assert_pool_still_works(&pool);
        pool.shutdown_and_wait();
        assert_eq!(panics.recv_timeout(HANG_GUARD), Ok("exit"));
    });
}

#[test]
fn wakers_registered_on_a_future_tasks_handle_never_kill_a_worker() {
    with_watchdog("panicking wakers on a future task's handle", || {
        let pool = pool(2);
        // Woken when the future ends: the panic reaches the scope.
        let gate = Arc::new(Barrier::new(2));
        let payload = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                let task_gate = Arc::clone(&gate);
                let mut handle = s.spawn_future(async move {
                    task_gate.wait();
                    3u8
                });
                register(&mut handle, &waker_panicking_on_wake());
                gate.wait();
                assert!(wait_until(|| handle.is_finished()));
                assert_eq!(handle.join(), 3);
            })
        }))
        .expect_err("the waker's panic must reach the scope");
        assert_eq!(boom_tag(payload), "wake");
        // Dropped with the task, the handle detached: the panic reaches the scope too.
        let payload = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                let task_gate = Arc::clone(&gate);
                let mut handle = s.spawn_future(async move {
                    task_gate.wait();
                });
                register(&mut handle, &waker_panicking_on_drop());
                drop(handle);
                gate.wait();
            })
        }))
        .expect_err("the waker's drop panicked on a worker: the scope must resume it");
        assert_eq!(boom_tag(payload), "waker drop");
        assert_pool_still_works(&pool);
    });
}
