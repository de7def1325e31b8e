//! Shared helpers for the scheduler integration tests (`tests/pool_*.rs`).
//!
//! Every test reaches the crate under test through the alias [`par`]. The tests were written
//! before weft's scheduler existed and were validated against Rayon, whose public API weft's
//! pool copies; once the scheduler is merged, flip the alias to `weft` and the same tests
//! check weft.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::Once;
use std::thread;
use std::time::{Duration, Instant};

/// The crate under test (these tests were first validated against Rayon through this alias).
pub(crate) use weft as par;

/// How long a bounded wait may last before the test gives up. A hang guard only: the tests
/// never assert on time.
pub(crate) const HANG_GUARD: Duration = Duration::from_secs(30);

/// Runs `body` on a helper thread; fails the test (instead of hanging) if it does not finish
/// within the hang guard. A deadlocked run leaves its threads blocked, so the process exits.
pub(crate) fn with_watchdog<R: Send + 'static>(
    what: &str,
    body: impl FnOnce() -> R + Send + 'static,
) -> R {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let _ = sender.send(panic::catch_unwind(AssertUnwindSafe(body)));
    });
    match receiver.recv_timeout(HANG_GUARD) {
        Ok(Ok(value)) => value,
        Ok(Err(payload)) => panic::resume_unwind(payload),
        Err(_) => {
            // Written past the test harness's capture: the process exits right after.
            let message = format!("DEADLOCK: {what} did not finish within {HANG_GUARD:?}\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), message.as_bytes());
            std::process::exit(101);
        }
    }
}

/// Builds a pool with `num_threads` workers, or fails the test.
pub(crate) fn pool(num_threads: usize) -> par::ThreadPool {
    par::ThreadPoolBuilder::new()
        .num_threads(num_threads)
        .build()
        .expect("building a small pool must succeed")
}

/// The n-th Fibonacci number, computed iteratively: the oracle for [`fib_join`].
pub(crate) fn fib_iterative(n: u32) -> u64 {
    let (mut current, mut next) = (0u64, 1u64);
    for _ in 0..n {
        (current, next) = (next, current + next);
    }
    current
}

/// The n-th Fibonacci number with a `join` at every level of the recursion.
pub(crate) fn fib_join(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    let (smaller, larger) = par::join(|| fib_join(n - 2), || fib_join(n - 1));
    smaller + larger
}

/// Checks that `pool` still computes correctly and that every one of its workers is alive
/// (a broadcast reaches each of them).
pub(crate) fn assert_pool_still_works(pool: &par::ThreadPool) {
    assert_eq!(pool.install(|| fib_join(20)), fib_iterative(20));
    let indices = pool.broadcast(|ctx| ctx.index());
    let expected: Vec<usize> = (0..pool.current_num_threads()).collect();
    assert_eq!(indices, expected);
}

/// The payload of every deliberate panic in these tests; the tag says where it was raised.
#[derive(Debug)]
pub(crate) struct Boom(pub(crate) &'static str);

/// Panics with a [`Boom`] payload, keeping the test output quiet about it.
pub(crate) fn boom(tag: &'static str) -> ! {
    silence_boom_panics();
    panic::panic_any(Boom(tag))
}

/// The tag of a [`Boom`] payload caught by `catch_unwind`, or a test failure if the payload
/// is something else.
pub(crate) fn boom_tag(payload: Box<dyn Any + Send>) -> &'static str {
    match payload.downcast::<Boom>() {
        Ok(boom) => boom.0,
        Err(other) => panic!("unexpected panic payload: {:?}", describe(&*other)),
    }
}

fn describe(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "<non-string payload>".to_string()
    }
}

/// Installs (once per test binary) a panic hook that stays silent for [`Boom`] payloads and
/// defers to the default hook for everything else, so real failures still print.
fn silence_boom_panics() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let default_hook = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<Boom>().is_none() {
                default_hook(info);
            }
        }));
    });
}

/// Polls `condition` until it holds or [`HANG_GUARD`] has passed; returns whether it held.
pub(crate) fn wait_until(mut condition: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + HANG_GUARD;
    while !condition() {
        if Instant::now() > deadline {
            return false;
        }
        thread::yield_now();
        thread::sleep(Duration::from_millis(1));
    }
    true
}
