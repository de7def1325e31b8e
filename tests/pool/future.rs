//! Futures on the pool (#50): `spawn_future`, `ThreadPool::spawn_future`,
//! `Scope::spawn_future` and `block_on`. Futures polled only after wakes, a chain of ten
//! thousand of them, a pool of one thread blocking on its own work, borrowed data in scopes,
//! awaiting from tokio and being woken from tokio's threads, panics, detaching, parallel work
//! inside a poll, and polls seen as jobs by `isolate` and by traces.

use crate::common_pool;

use common_pool::{boom, boom_tag, fib_iterative, fib_join, par, pool, with_watchdog};
use common_pool::{wait_until, HANG_GUARD};
use par::prelude::*;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::Duration;

/// A one-shot channel: the receiver is a future of the value (`None` if the sender was
/// dropped without sending). Sending wakes the receiver's last waker once.
struct Shared<T> {
    value: Option<T>,
    waker: Option<Waker>,
    closed: bool,
}

struct Sender<T>(Option<Arc<Mutex<Shared<T>>>>);
struct Receiver<T>(Arc<Mutex<Shared<T>>>);

fn oneshot<T>() -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Mutex::new(Shared {
        value: None,
        waker: None,
        closed: false,
    }));
    (Sender(Some(Arc::clone(&shared))), Receiver(shared))
}

impl<T> Sender<T> {
    fn send(mut self, value: T) {
        let shared = self.0.take().expect("a sender sends once");
        let waker = {
            let mut shared = shared.lock().unwrap();
            shared.value = Some(value);
            shared.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Drops the receiver's waker without waking it, as a buggy channel would: the receiving
    /// future can never be woken again.
    fn forget_receiver(mut self) {
        let shared = self.0.take().expect("a sender is used once");
        let waker = shared.lock().unwrap().waker.take();
        drop(waker);
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        if let Some(shared) = self.0.take() {
            let waker = {
                let mut shared = shared.lock().unwrap();
                shared.closed = true;
                shared.waker.take()
            };
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }
}

impl<T> Future for Receiver<T> {
    type Output = Option<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut shared = self.0.lock().unwrap();
        if let Some(value) = shared.value.take() {
            return Poll::Ready(Some(value));
        }
        if shared.closed {
            return Poll::Ready(None);
        }
        shared.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

/// Counts the polls of the future it wraps, and fails if two polls ever overlap.
struct Counted<F> {
    future: Pin<Box<F>>,
    polls: Arc<AtomicUsize>,
    in_poll: Arc<AtomicBool>,
}

fn counted<F: Future>(future: F, polls: &Arc<AtomicUsize>) -> Counted<F> {
    Counted {
        future: Box::pin(future),
        polls: Arc::clone(polls),
        in_poll: Arc::new(AtomicBool::new(false)),
    }
}

impl<F: Future> Future for Counted<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        assert!(
            !self.in_poll.swap(true, Ordering::SeqCst),
            "a future was polled by two threads at once"
        );
        self.polls.fetch_add(1, Ordering::SeqCst);
        let poll = self.future.as_mut().poll(cx);
        self.in_poll.store(false, Ordering::SeqCst);
        poll
    }
}

/// A future that is pending until `ready` is set; each poll stores its waker in `waker`.
struct WaitFor {
    ready: Arc<AtomicBool>,
    waker: Arc<Mutex<Option<Waker>>>,
}

impl Future for WaitFor {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        *self.waker.lock().unwrap() = Some(cx.waker().clone());
        if self.ready.load(Ordering::SeqCst) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// Pending for `polls - 1` polls, waking itself `wakes_per_poll` times in each.
struct WakesItself {
    left: usize,
    wakes_per_poll: usize,
}

impl Future for WakesItself {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.left -= 1;
        if self.left == 0 {
            return Poll::Ready(());
        }
        for _ in 0..self.wakes_per_poll {
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    }
}

/// The value each link of a chain passes on.
fn link(value: u64, index: u64) -> u64 {
    value.rotate_left(7) ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

#[test]
fn a_chain_of_ten_thousand_futures_each_polled_at_most_twice() {
    const LINKS: u64 = 10_000;
    let expected = (1..LINKS).fold(LINKS, link);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(50);
    for threads in [1, 2, 4] {
        let pool = pool(threads);
        let polls: Vec<Arc<AtomicUsize>> = (0..LINKS).map(|_| Arc::default()).collect();
        // Link `i` awaits the value of link `i - 1` and sends its own to link `i + 1`.
        let (mut senders, mut receivers): (Vec<_>, Vec<_>) = (0..LINKS).map(|_| oneshot()).unzip();
        let first = senders.remove(0);
        let last_receiver = receivers.pop().expect("a receiver per link");
        let mut links: Vec<_> = senders
            .into_iter()
            .zip(receivers)
            .zip(1..)
            .map(|((sender, receiver), index)| (index, sender, receiver))
            .collect();
        // Spawned in random order, most links wait for a value that comes later.
        links.shuffle(&mut rng);
        let handles: Vec<_> = links
            .into_iter()
            .map(|(index, sender, receiver)| {
                let future = async move {
                    let value = receiver.await.expect("the link before sends");
                    sender.send(link(value, index));
                };
                pool.spawn_future(counted(future, &polls[index as usize]))
            })
            .collect();
        first.send(LINKS);
        let last = par::block_on(last_receiver).expect("the last link sends");
        assert_eq!(last, expected, "{threads} threads");
        for handle in handles {
            handle.join();
        }
        for (index, polls) in polls.iter().enumerate().skip(1) {
            let polls = polls.load(Ordering::SeqCst);
            assert!(
                (1..=2).contains(&polls),
                "link {index} was polled {polls} times on {threads} threads"
            );
        }
    }
}

#[test]
fn a_pool_of_one_thread_blocks_on_work_spawned_on_itself() {
    with_watchdog("a pool of one thread blocking on its own work", || {
        let pool = pool(1);
        let total = pool.install(|| {
            par::block_on(async {
                // The only worker is inside `block_on`: it must run all of these meanwhile.
                let handle = par::spawn_handle(|| fib_join(20));
                let future = par::spawn_future(async { fib_join(18) + 1 });
                let (sender, receiver) = oneshot();
                par::spawn(move || sender.send(fib_join(15)));
                // A future that itself blocks on another future spawned on the pool.
                let nested = par::spawn_future(async {
                    let inner = par::spawn_future(async { fib_join(12) });
                    par::block_on(inner) * 2
                });
                handle.await + future.await + receiver.await.unwrap() + nested.await
            })
        });
        let expected =
            fib_iterative(20) + fib_iterative(18) + 1 + fib_iterative(15) + 2 * fib_iterative(12);
        assert_eq!(total, expected);
        // Joined (not awaited) on the pool's only worker: a future cannot run inline, so the
        // worker runs its polls while it waits.
        let joined = pool.install(|| {
            let (sender, receiver) = oneshot();
            let waiting = par::spawn_future(async move { receiver.await.unwrap() + 1 });
            par::spawn(move || sender.send(41u32));
            waiting.join()
        });
        assert_eq!(joined, 42);
    });
}

#[test]
fn block_on_outside_any_pool_parks_until_woken() {
    let (sender, receiver) = oneshot();
    let sending = thread::spawn(move || {
        thread::sleep(Duration::from_millis(20));
        sender.send(String::from("woken"));
    });
    assert_eq!(par::block_on(receiver).as_deref(), Some("woken"));
    sending.join().unwrap();
    // A future awaiting pool work, from a thread outside the pool.
    let pool = pool(2);
    let squares = par::block_on(async {
        let mut total = 0;
        for i in 0..100u64 {
            total += pool.spawn_future(async move { i * i }).await;
        }
        total
    });
    assert_eq!(squares, (0..100u64).map(|i| i * i).sum::<u64>());
}

#[test]
fn scope_futures_borrow_local_data_and_the_scope_waits_for_them() {
    let data: Vec<u64> = (0..10_000).map(|i| i * 3 % 1000).collect();
    let expected_sums: Vec<u64> = data.chunks(1000).map(|c| c.iter().sum()).collect();
    for threads in [1, 3] {
        let pool = pool(threads);
        let mut sums = vec![0u64; 10];
        let mut prefix = vec![0u64; 10];
        pool.scope(|s| {
            // Each future sums its chunk into a borrowed slot, then hands its sum on: the
            // prefix sums are a chain of futures that borrow from outside the scope.
            // Future `k` receives on `receivers[k]` and sends on `senders[k]`, which the
            // next one receives on.
            let (mut senders, receivers): (Vec<_>, Vec<Receiver<u64>>) =
                (0..10).map(|_| oneshot()).unzip();
            senders.remove(0).send(0);
            senders.push(oneshot().0);
            let chunks = data.chunks(1000);
            for (((sum, prefix), chunk), (sender, receiver)) in sums
                .iter_mut()
                .zip(prefix.iter_mut())
                .zip(chunks)
                .zip(senders.into_iter().zip(receivers))
                .rev()
            {
                // Dropped handles: detached, and still awaited by the scope.
                drop(s.spawn_future(async move {
                    *sum = chunk.iter().sum();
                    *prefix = receiver.await.unwrap();
                    sender.send(*prefix + *sum);
                }));
            }
        });
        assert_eq!(sums, expected_sums, "{threads} threads");
        let expected_prefix: Vec<u64> = expected_sums
            .iter()
            .scan(0, |total, sum| {
                let before = *total;
                *total += sum;
                Some(before)
            })
            .collect();
        assert_eq!(prefix, expected_prefix, "{threads} threads");
    }
    // From a thread outside any pool, with joined handles.
    let words = ["alpha", "beta", "gamma"];
    let lengths = par::in_place_scope(|s| {
        let handles: Vec<_> = words
            .iter()
            .map(|word| s.spawn_future(async move { word.len() }))
            .collect();
        handles.into_iter().map(|h| h.join()).collect::<Vec<_>>()
    });
    assert_eq!(lengths, [5, 4, 5]);
}

#[test]
fn futures_on_the_pool_are_awaited_from_tokio_and_woken_from_its_threads() {
    let pool = Arc::new(pool(2));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let results = runtime.block_on(async {
        let tasks: Vec<_> = (0..64u64)
            .map(|i| {
                let pool = Arc::clone(&pool);
                tokio::spawn(async move {
                    // The pool's future waits for a value a tokio task sends: its waker runs
                    // on a tokio thread and queues it on the pool's injector.
                    let (sender, receiver) = oneshot();
                    let on_pool = pool.spawn_future(async move {
                        let sent = receiver.await.unwrap();
                        sent + fib_join((i % 16) as u32)
                    });
                    tokio::spawn(async move { sender.send(i * 1000) });
                    on_pool.await
                })
            })
            .collect();
        let mut results = Vec::new();
        for task in tasks {
            results.push(task.await.unwrap());
        }
        results
    });
    let expected: Vec<u64> = (0..64u64)
        .map(|i| i * 1000 + fib_iterative((i % 16) as u32))
        .collect();
    assert_eq!(results, expected);
}

#[test]
fn a_future_is_polled_only_after_a_wake() {
    let pool = pool(2);
    let polls = Arc::new(AtomicUsize::new(0));
    let ready = Arc::new(AtomicBool::new(false));
    let waker = Arc::new(Mutex::new(None::<Waker>));
    let handle = pool.spawn_future(counted(
        WaitFor {
            ready: Arc::clone(&ready),
            waker: Arc::clone(&waker),
        },
        &polls,
    ));
    assert!(wait_until(|| waker.lock().unwrap().is_some()));
    // Nobody woke it: however long we look, it was polled once.
    thread::sleep(Duration::from_millis(50));
    assert_eq!(polls.load(Ordering::SeqCst), 1);
    // Woken while not ready: polled once more, and pending again.
    waker.lock().unwrap().take().unwrap().wake();
    assert!(wait_until(|| waker.lock().unwrap().is_some()));
    thread::sleep(Duration::from_millis(20));
    assert_eq!(polls.load(Ordering::SeqCst), 2);
    ready.store(true, Ordering::SeqCst);
    waker.lock().unwrap().take().unwrap().wake_by_ref();
    handle.join();
    assert_eq!(polls.load(Ordering::SeqCst), 3);
}

#[test]
fn wakes_during_a_poll_bring_exactly_one_more_poll() {
    let pool = pool(3);
    for wakes_per_poll in [1, 2, 5] {
        let polls = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..20)
            .map(|_| {
                pool.spawn_future(counted(
                    WakesItself {
                        left: 100,
                        wakes_per_poll,
                    },
                    &polls,
                ))
            })
            .collect();
        for handle in handles {
            handle.join();
        }
        assert_eq!(
            polls.load(Ordering::SeqCst),
            20 * 100,
            "{wakes_per_poll} wakes a poll"
        );
    }
}

#[test]
fn concurrent_wakes_never_poll_a_future_twice_at_once() {
    const WAKERS: usize = 4;
    const WAKES: usize = 2_000;
    let pool = pool(3);
    let woken = Arc::new(AtomicUsize::new(0));
    let polls = Arc::new(AtomicUsize::new(0));
    let waker_slot = Arc::new(Mutex::new(None::<Waker>));
    let future = {
        let (woken, waker_slot) = (Arc::clone(&woken), Arc::clone(&waker_slot));
        std::future::poll_fn(move |cx| {
            *waker_slot.lock().unwrap() = Some(cx.waker().clone());
            if woken.load(Ordering::SeqCst) == WAKERS * WAKES {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
    };
    let handle = pool.spawn_future(counted(future, &polls));
    assert!(wait_until(|| waker_slot.lock().unwrap().is_some()));
    let waker = waker_slot.lock().unwrap().clone().unwrap();
    let threads: Vec<_> = (0..WAKERS)
        .map(|_| {
            let (waker, woken) = (waker.clone(), Arc::clone(&woken));
            thread::spawn(move || {
                for _ in 0..WAKES {
                    woken.fetch_add(1, Ordering::SeqCst);
                    waker.wake_by_ref();
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    par::block_on(handle);
    let polls = polls.load(Ordering::SeqCst);
    assert!(
        (2..=WAKERS * WAKES + 1).contains(&polls),
        "{polls} polls for {} wakes",
        WAKERS * WAKES
    );
    // Wakes after the end do nothing (and do not crash).
    waker.wake_by_ref();
    waker.wake();
}

#[test]
fn a_panic_in_a_future_resumes_at_join_await_and_block_on() {
    let pool = pool(2);
    let handle = pool.spawn_future(async { boom("joined") });
    let payload = panic::catch_unwind(AssertUnwindSafe(|| handle.join())).unwrap_err();
    assert_eq!(boom_tag(payload), "joined");
    // On a worker, after a pending poll.
    let payload = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.install(|| {
            let (sender, receiver) = oneshot::<u32>();
            let handle = par::spawn_future(async move {
                receiver.await;
                boom("after a wake")
            });
            par::spawn(move || sender.send(1));
            handle.join()
        })
    }))
    .unwrap_err();
    assert_eq!(boom_tag(payload), "after a wake");
    let payload = panic::catch_unwind(AssertUnwindSafe(|| {
        par::block_on(async { pool.spawn_future(async { boom("awaited") }).await })
    }))
    .unwrap_err();
    assert_eq!(boom_tag(payload), "awaited");
    let payload = panic::catch_unwind(AssertUnwindSafe(|| {
        par::block_on(async { boom("in block_on") })
    }))
    .unwrap_err();
    assert_eq!(boom_tag(payload), "in block_on");
    // A future whose drop panics after it returned: the joiner gets the drop's panic.
    struct ReadyThenPanicsOnDrop;
    impl Future for ReadyThenPanicsOnDrop {
        type Output = u32;
        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u32> {
            Poll::Ready(7)
        }
    }
    impl Drop for ReadyThenPanicsOnDrop {
        fn drop(&mut self) {
            boom("future drop");
        }
    }
    let handle = pool.spawn_future(ReadyThenPanicsOnDrop);
    let payload = panic::catch_unwind(AssertUnwindSafe(|| handle.join())).unwrap_err();
    assert_eq!(boom_tag(payload), "future drop");
    common_pool::assert_pool_still_works(&pool);
}

#[test]
fn a_detached_futures_panic_goes_to_the_panic_handler_or_the_scope() {
    let (sender, panics) = mpsc::channel();
    let sender = Mutex::new(sender);
    let pool = par::ThreadPoolBuilder::new()
        .num_threads(2)
        .panic_handler(move |payload| sender.lock().unwrap().send(boom_tag(payload)).unwrap())
        .build()
        .unwrap();
    let (go, wait) = oneshot::<()>();
    drop(pool.spawn_future(async move {
        wait.await;
        boom("detached")
    }));
    go.send(());
    assert_eq!(panics.recv_timeout(HANG_GUARD), Ok("detached"));
    let payload = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.scope(|s| {
            let (go, wait) = oneshot::<()>();
            drop(s.spawn_future(async move {
                wait.await;
                boom("detached in a scope")
            }));
            go.send(());
        })
    }))
    .unwrap_err();
    assert_eq!(boom_tag(payload), "detached in a scope");
    assert!(
        panics.try_recv().is_err(),
        "the scope's panic is the scope's alone"
    );
}

#[test]
fn dropped_handles_detach_and_a_future_nothing_can_wake_is_dropped() {
    with_watchdog("detached and abandoned futures", || {
        let pool = pool(2);
        // Detached: it still runs to its end.
        let (go, wait) = oneshot::<u32>();
        let (done, finished) = mpsc::channel();
        drop(pool.spawn_future(async move {
            done.send(wait.await.unwrap() * 2).unwrap();
        }));
        go.send(21);
        assert_eq!(finished.recv_timeout(HANG_GUARD), Ok(42));

        /// Sets its flag when dropped.
        struct SetOnDrop(Arc<AtomicBool>);
        impl Drop for SetOnDrop {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        // Abandoned: its only waker is dropped unwoken and its handle is gone, so it is
        // dropped, and the scope waiting for it ends.
        let dropped = Arc::new(AtomicBool::new(false));
        let guard = SetOnDrop(Arc::clone(&dropped));
        let ran_past = AtomicBool::new(false);
        pool.scope(|s| {
            let (sender, receiver) = oneshot::<()>();
            let ran_past = &ran_past;
            let mut handle = Some(s.spawn_future(async move {
                let _guard = guard;
                receiver.await;
                ran_past.store(true, Ordering::SeqCst);
            }));
            // Polled once: its waker is in the channel.
            assert!(wait_until(|| sender
                .0
                .as_ref()
                .unwrap()
                .lock()
                .unwrap()
                .waker
                .is_some()));
            drop(handle.take());
            sender.forget_receiver();
        });
        assert!(
            dropped.load(Ordering::SeqCst),
            "the abandoned future was not dropped"
        );
        assert!(!ran_past.load(Ordering::SeqCst));
        // The pool's workers do not wait for it either.
        pool.shutdown_and_wait();
    });
}

#[test]
fn futures_run_parallel_loops_joins_and_scopes_inside() {
    let pool = pool(4);
    let handles: Vec<_> = (0..16u64)
        .map(|i| {
            pool.spawn_future(async move {
                let sum: u64 = (0..10_000 + i).into_par_iter().map(|x| x * x % 97).sum();
                let (a, b) = par::join(|| fib_join(15), || fib_join(16));
                let mut parts = [0u64; 4];
                par::scope(|s| {
                    for (k, part) in parts.iter_mut().enumerate() {
                        s.spawn(move |_| *part = (k as u64 + 1) * i);
                    }
                });
                // Awaiting across the parallel work.
                let more = par::spawn_handle(move || i + 1).await;
                sum + a + b + parts.iter().sum::<u64>() + more
            })
        })
        .collect();
    for (i, handle) in (0..16u64).zip(handles) {
        let sum: u64 = (0..10_000 + i).map(|x| x * x % 97).sum();
        let expected = sum + fib_iterative(15) + fib_iterative(16) + 10 * i + i + 1;
        assert_eq!(handle.join(), expected, "future {i}");
    }
}

#[test]
fn future_polls_are_jobs_for_traces_and_isolation() {
    let traced = par::ThreadPoolBuilder::new()
        .num_threads(2)
        .trace(true)
        .build()
        .unwrap();
    let _ = traced.take_trace();
    let handles: Vec<_> = (0..10u64)
        .map(|i| {
            traced.spawn_future(WakesItself {
                left: (i + 1) as usize,
                wakes_per_poll: 1,
            })
        })
        .collect();
    for handle in handles {
        handle.join();
    }
    // A job's span is recorded when the job returns, after the result it published: once
    // every worker has run a broadcast job, every poll's span is in.
    traced.broadcast(|_| ());
    let trace = traced.take_trace().unwrap();
    let future_polls = trace
        .spans()
        .iter()
        .filter(|span| span.kind == par::trace::SpanKind::Job(par::trace::JobKind::Future))
        .count();
    assert_eq!(future_polls, (1..=10).sum::<usize>());

    // Inside an isolated region on a pool of one, the waiting worker may run the future
    // spawned in the region (it belongs to the region).
    with_watchdog("block_on inside isolate", || {
        let pool = pool(1);
        let value = pool
            .install(|| par::isolate(|| par::block_on(par::spawn_future(async { fib_join(10) }))));
        assert_eq!(value, fib_iterative(10));
    });
}
