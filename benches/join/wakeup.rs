//! Wake-up latency: the round trip of one tiny job handed from outside to an idle 2-thread
//! pool (`pool.install(|| 1)`), against the same round trip through std channels to a
//! parked thread.
//!
//! Before each timed hand-off the caller sleeps [`IDLE_GAP`] (not timed), long enough for
//! every contender's threads to stop spinning and park, so each iteration measures a wake-up
//! from sleep rather than a hand-off to a spinning thread. Criterion sizes the run from the
//! timed part only, so the group's time budget is kept small: the gaps dominate wall time.

use crate::{rayon_pool, weft_pool};
use criterion::{BenchmarkId, Criterion};
use std::hint::black_box;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Untimed pause before each hand-off; rayon parks its workers after some tens of µs.
const IDLE_GAP: Duration = Duration::from_micros(500);

/// Times `iters` hand-offs, each after an idle gap.
fn time_after_gaps(iters: u64, mut hand_off: impl FnMut()) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        thread::sleep(IDLE_GAP);
        let start = Instant::now();
        hand_off();
        total += start.elapsed();
    }
    total
}

/// A thread that answers each request on a second channel; it parks while waiting.
struct Echo {
    requests: mpsc::Sender<u64>,
    replies: mpsc::Receiver<u64>,
    thread: thread::JoinHandle<()>,
}

impl Echo {
    fn start() -> Echo {
        let (requests, incoming) = mpsc::channel::<u64>();
        let (outgoing, replies) = mpsc::channel();
        let thread = thread::spawn(move || {
            for request in incoming {
                outgoing.send(request + 1).unwrap();
            }
        });
        Echo {
            requests,
            replies,
            thread,
        }
    }

    fn round_trip(&self, request: u64) -> u64 {
        self.requests.send(request).unwrap();
        self.replies.recv().unwrap()
    }

    fn stop(self) {
        drop(self.requests);
        self.thread.join().unwrap();
    }
}

/// The `wakeup` criterion group.
pub(crate) fn bench(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("wakeup");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(50))
        .measurement_time(Duration::from_millis(200));

    let echo = Echo::start();
    group.bench_function("std_channel", |b| {
        b.iter_custom(|iters| {
            time_after_gaps(iters, || assert_eq!(echo.round_trip(black_box(1)), 2))
        });
    });
    echo.stop();

    // Each pool lives only for its own benchmark.
    {
        let pool = weft_pool(2);
        group.bench_function(BenchmarkId::new("weft", 2), |b| {
            b.iter_custom(|iters| {
                time_after_gaps(iters, || assert_eq!(pool.install(|| black_box(1)), 1))
            });
        });
    }
    {
        let pool = rayon_pool(2);
        group.bench_function(BenchmarkId::new("rayon", 2), |b| {
            b.iter_custom(|iters| {
                time_after_gaps(iters, || assert_eq!(pool.install(|| black_box(1)), 1))
            });
        });
    }
    group.finish();
}
