//! Sorting benchmarks (issue #5): std vs weft vs rayon, side by side, at 1 and 2 threads.
//!
//! Inputs: 10^7 random `u64`, 10^7 random `(u64, u64)` records and 10^6 random `String`s.
//! `WEFT_SORT_BENCH_SCALE=10` divides every size by 10 (for quick runs). Each iteration
//! sorts a fresh clone of the same input, made outside the timed region.
//!
//! ```sh
//! cargo bench --bench sort -- --warm-up-time 1 --measurement-time 3 --sample-size 10
//! WEFT_BENCH_INTERLEAVED=1 cargo bench --bench sort   # round-robin, steadier ratios
//! ```
//!
//! The interleaved run adds `halves-2`: each half of the input sorted by std on its own
//! thread and never merged or partitioned. That is std's own sorting code doing less work
//! than a whole sort needs, so its speed-up over std is a practical ceiling for any
//! two-thread sort in the same run (the host's load moves that ceiling from run to run).

#![allow(missing_docs)] // `criterion_group!` generates an undocumented `pub fn`

use criterion::{criterion_group, BatchSize, BenchmarkId, Criterion};

#[path = "interleave/mod.rs"]
mod interleave;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const THREAD_COUNTS: [usize; 2] = [1, 2];

fn scaled(len: usize) -> usize {
    let scale: usize = std::env::var("WEFT_SORT_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    (len / scale.max(1)).max(1)
}

fn random_u64s(len: usize) -> Vec<u64> {
    let mut rng = SmallRng::seed_from_u64(1);
    (0..len).map(|_| rng.random()).collect()
}

fn random_records(len: usize) -> Vec<(u64, u64)> {
    let mut rng = SmallRng::seed_from_u64(2);
    (0..len).map(|_| (rng.random(), rng.random())).collect()
}

fn random_strings(len: usize) -> Vec<String> {
    let mut rng = SmallRng::seed_from_u64(3);
    (0..len)
        .map(|_| {
            let chars = rng.random_range(4..24);
            (0..chars).map(|_| rng.random_range('a'..='z')).collect()
        })
        .collect()
}

/// Benchmarks one input: std vs weft vs rayon, unstable then stable, per thread count.
fn bench_input<T>(c: &mut Criterion, name: &str, input: &[T])
where
    T: Ord + Send + Clone,
{
    let mut group = c.benchmark_group(format!("sort/{name}"));
    for threads in THREAD_COUNTS {
        let weft_pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let rayon_pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let fresh = || input.to_vec();
        let mut run = |id: &str, sort: &dyn Fn(&mut Vec<T>)| {
            group.bench_function(BenchmarkId::new(id, threads), |b| {
                b.iter_batched(
                    fresh,
                    |mut v| {
                        sort(&mut v);
                        v // dropped after the timed region
                    },
                    BatchSize::PerIteration,
                )
            });
        };
        // The std baselines run outside any pool; they are repeated per thread count so
        // that each pair of rows in the report comes from the same stretch of time.
        run("unstable/std", &|v| v.sort_unstable());
        run("unstable/weft", &|v| {
            use weft::slice::ParallelSliceMut;
            weft_pool.install(|| v.par_sort_unstable())
        });
        run("unstable/rayon", &|v| {
            use rayon::slice::ParallelSliceMut;
            rayon_pool.install(|| v.par_sort_unstable())
        });
        run("stable/std", &|v| v.sort());
        run("stable/weft", &|v| {
            use weft::slice::ParallelSliceMut;
            weft_pool.install(|| v.par_sort())
        });
        run("stable/rayon", &|v| {
            use rayon::slice::ParallelSliceMut;
            rayon_pool.install(|| v.par_sort())
        });
    }
    group.finish();
}

fn sort_benches(c: &mut Criterion) {
    bench_input(c, "u64", &random_u64s(scaled(10_000_000)));
    bench_input(c, "u64_pairs", &random_records(scaled(10_000_000)));
    bench_input(c, "strings", &random_strings(scaled(1_000_000)));
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = sort_benches
}

/// The `halves-2` contender's sort: `sort` on each half of `v`, the upper half on a plain
/// scoped std thread spawned for the call, the lower one here; the halves are never merged.
/// The spawn takes a few hundred microseconds here, under 0.5% of a sort of 10^7 elements.
fn sort_halves<T: Send>(v: &mut [T], sort: fn(&mut [T])) {
    let mid = v.len() / 2;
    let (low, high) = v.split_at_mut(mid);
    std::thread::scope(|scope| {
        let other = scope.spawn(move || sort(high));
        sort(low);
        other.join().expect("the other half panicked");
    });
}

/// One contender of an interleaved run: its name and a sort of the vector it is given.
type Contender<'a, T> = (String, Box<dyn Fn(&mut Vec<T>) + 'a>);

/// Sorts a fresh clone of `input` with each contender in turn, `rounds` times (the starting
/// contender rotates each round; the clone and the drop are not timed; a short pause lets
/// the previous pool's workers fall asleep first), and prints each one's median time
/// relative to the median of the std sort of the same kind, fastest-call ratio in brackets.
fn interleave_input<T>(name: &str, input: &[T], rounds: usize)
where
    T: Ord + Send + Clone,
{
    use interleave::{fastest, median};
    use std::time::Instant;
    if !interleave::selected(name) {
        return;
    }
    let weft_pools: Vec<_> = THREAD_COUNTS
        .iter()
        .map(|&t| {
            let pool = weft::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap();
            (t, pool)
        })
        .collect();
    let rayon_pools: Vec<_> = THREAD_COUNTS
        .iter()
        .map(|&t| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap();
            (t, pool)
        })
        .collect();
    let mut contenders: Vec<Contender<'_, T>> = vec![
        (
            "unstable/std".into(),
            Box::new(|v: &mut Vec<T>| v.sort_unstable()),
        ),
        ("stable/std".into(), Box::new(|v: &mut Vec<T>| v.sort())),
    ];
    for (t, pool) in &weft_pools {
        contenders.push((
            format!("unstable/weft-{t}"),
            Box::new(move |v: &mut Vec<T>| {
                use weft::slice::ParallelSliceMut;
                pool.install(|| v.par_sort_unstable())
            }),
        ));
        contenders.push((
            format!("stable/weft-{t}"),
            Box::new(move |v: &mut Vec<T>| {
                use weft::slice::ParallelSliceMut;
                pool.install(|| v.par_sort())
            }),
        ));
    }
    // The hand-split contender: each half sorted by std on its own thread, never merged or
    // partitioned (the result is not sorted). See the module docs: a practical ceiling.
    contenders.push((
        "unstable/halves-2".into(),
        Box::new(|v: &mut Vec<T>| sort_halves(v, <[T]>::sort_unstable)),
    ));
    contenders.push((
        "stable/halves-2".into(),
        Box::new(|v: &mut Vec<T>| sort_halves(v, <[T]>::sort)),
    ));
    for (t, pool) in &rayon_pools {
        contenders.push((
            format!("unstable/rayon-{t}"),
            Box::new(move |v: &mut Vec<T>| {
                use rayon::slice::ParallelSliceMut;
                pool.install(|| v.par_sort_unstable())
            }),
        ));
        contenders.push((
            format!("stable/rayon-{t}"),
            Box::new(move |v: &mut Vec<T>| {
                use rayon::slice::ParallelSliceMut;
                pool.install(|| v.par_sort())
            }),
        ));
    }
    let times = interleave::round_robin(contenders.len(), rounds, |i| {
        let mut v = input.to_vec();
        let start = Instant::now();
        (contenders[i].1)(&mut v);
        let elapsed = start.elapsed();
        drop(v); // the clone and the drop are not timed
        elapsed
    });
    for (kind, baseline) in [("unstable", 0), ("stable", 1)] {
        let mut line = format!(
            "{name:<10} {kind:<8} std {:8.1} ms",
            median(&times[baseline]) * 1e3
        );
        for ((label, _), t) in contenders.iter().zip(&times) {
            if label.starts_with(kind) && !label.ends_with("/std") {
                let speedup = median(&times[baseline]) / median(t);
                let best = fastest(&times[baseline]) / fastest(t);
                let who = label.split('/').nth(1).unwrap_or(label);
                line += &format!(" | {who} {speedup:.2}x ({best:.2}x)");
            }
        }
        println!("{line}");
    }
}

/// `WEFT_BENCH_INTERLEAVED=1 cargo bench --bench sort`: the same inputs, all contenders
/// interleaved (see [`interleave_input`]), speed-ups over std printed; `WEFT_BENCH_ROUNDS`
/// sorts per contender (default 15); `WEFT_BENCH_ONLY=u64,strings` picks inputs.
fn interleaved_benches() {
    let rounds = interleave::rounds(15);
    println!("speed-up over std (std time / time): median (fastest), {rounds} interleaved rounds");
    interleave_input("u64", &random_u64s(scaled(10_000_000)), rounds);
    interleave_input("u64_pairs", &random_records(scaled(10_000_000)), rounds);
    interleave_input("strings", &random_strings(scaled(1_000_000)), rounds);
}

fn main() {
    if interleave::requested() {
        interleaved_benches();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
