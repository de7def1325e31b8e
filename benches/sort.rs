//! Sorting benchmarks (issue #5): std vs weft vs rayon, side by side, at 1 and 2 threads.
//!
//! Inputs: 10^7 random `u64`, 10^7 random `(u64, u64)` records and 10^6 random `String`s.
//! `WEFT_SORT_BENCH_SCALE=10` divides every size by 10 (for quick runs). Each iteration
//! sorts a fresh clone of the same input, made outside the timed region.
//!
//! ```sh
//! cargo bench --bench sort -- --warm-up-time 1 --measurement-time 3 --sample-size 10
//! ```

#![allow(missing_docs)] // `criterion_group!` generates an undocumented `pub fn`

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
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
criterion_main!(benches);
