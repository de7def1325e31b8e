//! `weft::isolate` and `spawn_handle` (issue 24), at 1 and 2 threads.
//!
//! - `isolated_inner_loop`: the inner loop (20 000 items in pieces of at most 256,
//!   `x % 7` summed) run 64 times from an outer parallel loop, plain and inside `isolate`
//!   (no lock: both finish, so the rows compare the cost of isolation itself). Rayon's plain
//!   loop for reference.
//! - `handle_join`: 1000 tasks started with `spawn_handle` and joined, against the same with
//!   `spawn` and a channel.
//!
//! `WEFT_BENCH_SMALL=1` (or `cargo test --benches`) shrinks the sizes for a smoke run.
#![allow(missing_docs)] // `criterion_group!` generates an undocumented function

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::sync::mpsc;

const THREAD_COUNTS: [usize; 2] = [1, 2];

fn small() -> bool {
    !std::env::args().any(|arg| arg == "--bench")
        || std::env::var("WEFT_BENCH_SMALL").is_ok_and(|v| v == "1")
}

/// The inner loop, and the outer loop that runs it `outer` times (each run through
/// `isolate` or as a plain call).
mod weft_side {
    use weft::prelude::*;

    fn inner(n: u32) -> u64 {
        (0..n)
            .into_par_iter()
            .with_max_len(256)
            .map(|x| u64::from(x) % 7)
            .sum()
    }

    pub(crate) fn outer(outer: u32, n: u32, isolated: bool) -> u64 {
        (0..outer)
            .into_par_iter()
            .map(|_| {
                if isolated {
                    weft::isolate(|| inner(n))
                } else {
                    inner(n)
                }
            })
            .sum()
    }
}

mod rayon_side {
    use rayon::prelude::*;

    fn inner(n: u32) -> u64 {
        (0..n)
            .into_par_iter()
            .with_max_len(256)
            .map(|x| u64::from(x) % 7)
            .sum()
    }

    pub(crate) fn outer(outer: u32, n: u32) -> u64 {
        (0..outer).into_par_iter().map(|_| inner(n)).sum()
    }
}

fn bench_isolated_inner_loop(c: &mut Criterion) {
    let (outer, n) = if small() {
        (4u32, 2_000u32)
    } else {
        (64, 20_000)
    };
    let expected = u64::from(outer) * (0..n).map(|x| u64::from(x) % 7).sum::<u64>();
    let mut group = c.benchmark_group("isolated_inner_loop");
    for threads in THREAD_COUNTS {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        group.bench_function(BenchmarkId::new("weft-plain", threads), |b| {
            b.iter(|| {
                let sum = pool.install(|| weft_side::outer(outer, black_box(n), false));
                assert_eq!(sum, expected);
            })
        });
        group.bench_function(BenchmarkId::new("weft-isolated", threads), |b| {
            b.iter(|| {
                let sum = pool.install(|| weft_side::outer(outer, black_box(n), true));
                assert_eq!(sum, expected);
            })
        });
        let rayon = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        group.bench_function(BenchmarkId::new("rayon-plain", threads), |b| {
            b.iter(|| {
                let sum = rayon.install(|| rayon_side::outer(outer, black_box(n)));
                assert_eq!(sum, expected);
            })
        });
    }
    group.finish();
}

fn bench_handle_join(c: &mut Criterion) {
    let tasks: u64 = if small() { 100 } else { 1000 };
    let expected: u64 = (0..tasks).map(|i| i * i).sum();
    let mut group = c.benchmark_group("handle_join");
    for threads in THREAD_COUNTS {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        group.bench_function(BenchmarkId::new("spawn_handle", threads), |b| {
            b.iter(|| {
                let handles: Vec<_> = (0..tasks)
                    .map(|i| pool.spawn_handle(move || black_box(i) * i))
                    .collect();
                assert_eq!(handles.into_iter().map(|h| h.join()).sum::<u64>(), expected);
            })
        });
        group.bench_function(BenchmarkId::new("spawn_channel", threads), |b| {
            b.iter(|| {
                let (sender, receiver) = mpsc::channel();
                for i in 0..tasks {
                    let sender = sender.clone();
                    pool.spawn(move || sender.send(black_box(i) * i).unwrap());
                }
                assert_eq!(receiver.iter().take(tasks as usize).sum::<u64>(), expected);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_isolated_inner_loop, bench_handle_join);
criterion_main!(benches);
