//! Recording off records nothing: a pool that does not record gives its workers no writer,
//! so no hook has anywhere to write, even while another pool of the process records (and
//! the process-wide flag is set).

use super::super::worker::WorkerThread;
use super::super::{join, ThreadPoolBuilder};
use super::JobKind;
use crate::trace::SpanKind;

fn workers_have_writers(pool: &crate::ThreadPool) -> Vec<bool> {
    pool.broadcast(|_| {
        // A broadcast job runs on a worker.
        WorkerThread::with_current(|worker| worker.expect("on a worker").trace().is_some())
    })
}

#[test]
fn a_pool_that_does_not_record_has_no_writers_even_beside_one_that_does() {
    let recording = ThreadPoolBuilder::new()
        .num_threads(2)
        .trace(true)
        .build()
        .unwrap();
    let quiet = ThreadPoolBuilder::new()
        .num_threads(3)
        .trace(false)
        .build()
        .unwrap();
    assert_eq!(workers_have_writers(&recording), [true, true]);
    assert_eq!(workers_have_writers(&quiet), [false, false, false]);
    // The quiet pool runs joins and loops while the flag is set: nothing is recorded for
    // it, and the recording pool's trace holds only its own work.
    recording.take_trace().unwrap();
    let (a, b) = quiet.install(|| join(|| 1 + 1, || 2 + 2));
    assert_eq!((a, b), (2, 4));
    assert!(quiet.take_trace().is_none());
    // (The recording pool's own broadcast jobs may show up: they end after the take.)
    let trace = recording.take_trace().unwrap();
    let joins_or_pieces = trace.spans().iter().filter(|span| {
        matches!(
            span.kind,
            SpanKind::Job(JobKind::Join) | SpanKind::Piece { .. }
        )
    });
    assert_eq!(joins_or_pieces.count(), 0);
}

#[test]
fn a_record_takes_48_bytes_as_the_docs_say() {
    assert_eq!(std::mem::size_of::<super::writer::Record>(), 48);
}

#[test]
fn concurrent_takes_split_the_counters_between_them() {
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .trace(true)
        .build()
        .unwrap();
    let takers: Vec<_> = (0..4)
        .map(|_| {
            std::thread::scope(|s| {
                let takes: Vec<_> = (0..4)
                    .map(|_| s.spawn(|| pool.take_trace().unwrap().stats()))
                    .collect();
                pool.install(|| join(|| (), || ()));
                takes
                    .into_iter()
                    .map(|t| t.join().unwrap())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let injected: u64 = takers
        .iter()
        .flatten()
        .map(|stats| stats.jobs_injected)
        .sum();
    let rest = pool.take_trace().unwrap().stats().jobs_injected;
    // Every install was injected once, and each injection is counted by exactly one take.
    assert_eq!(injected + rest, 4);
}
