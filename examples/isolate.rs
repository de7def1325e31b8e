//! Demo: the lock-around-an-inner-loop deadlock (rayon issue 592) and `weft::isolate`.
//!
//! An outer parallel loop takes a `Mutex` and runs an inner parallel loop while holding it.
//! Without isolation, the worker holding the lock may, while it waits for a stolen inner
//! piece, start another outer item, which blocks on the lock that same worker holds: the
//! pool deadlocks. `weft::isolate` around the inner loop makes that worker wait only on
//! inner work.
//!
//! `cargo run --release --example isolate -- [plain|isolated] [threads] [runs]`
//!
//! Each run uses a fresh pool and a watchdog; a run that does not finish in 10 s counts as
//! a deadlock (its threads are left blocked, and the process exits at the end).

use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use weft::prelude::*;

/// The example: 256 outer items, each summing 20 000 inner items in pieces of at
/// most 256 while holding the lock.
fn locked_inner_loops(isolated: bool) -> u64 {
    let total = Mutex::new(0u64);
    (0..256u64).into_par_iter().for_each(|_| {
        let mut total = total.lock().unwrap();
        let inner = || {
            (0..20_000u32)
                .into_par_iter()
                .with_max_len(256)
                .map(|x| u64::from(x) % 7)
                .sum::<u64>()
        };
        *total += if isolated {
            weft::isolate(inner)
        } else {
            inner()
        };
    });
    total.into_inner().unwrap()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let isolated = match args.next().as_deref() {
        None | Some("isolated") => true,
        Some("plain") => false,
        Some(other) => panic!("the first argument is `plain` or `isolated`, not {other:?}"),
    };
    let threads: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(8);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(30);
    let expected = 256 * (0..20_000u64).map(|x| x % 7).sum::<u64>();

    let started = Instant::now();
    let mut deadlocks = 0;
    for _ in 0..runs {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let sum = pool.install(|| locked_inner_loops(isolated));
            let _ = sender.send(sum);
        });
        match receiver.recv_timeout(Duration::from_secs(10)) {
            Ok(sum) => assert_eq!(sum, expected),
            Err(_) => deadlocks += 1,
        }
    }
    let mode = if isolated {
        "with isolate"
    } else {
        "without isolate"
    };
    println!(
        "{mode}, {threads} threads: {deadlocks} of {runs} runs deadlocked ({:.1?})",
        started.elapsed()
    );
    // Deadlocked runs leave threads blocked forever; leave without waiting for them.
    std::process::exit(0);
}
