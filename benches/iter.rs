//! Iterator benchmarks for issues #3 and #4: sequential, weft (1 and 2 threads) and Rayon
//! (1 and 2 threads) side by side in one run, so ratios come from the same machine state.
//!
//! Groups: (a) `sum_cheap_map` over `0..10^8`, (b) `map_collect_into` / `map_collect_fresh` /
//! `filter_collect_fresh` (unindexed, 7/8 kept) of 10^7 elements, (c) `sum_slice` of a
//! 5·10^7 `Vec<u64>`, (d) `filter_count` over 10^7 elements, (e) `mandelbrot` 1024×1024 by
//! rows, (f) `triangular` (item i costs O(i), n = 10^4), (g) `fine_grained` (10^7 items of a
//! few ns each), (h) `zip_map_sum` (a mapped range of 10^7 zipped with a slice, summed),
//! (i) `nested_chunks_16` / `nested_chunks_256` (the slice of (c) in chunks of 16 or 256, each
//! summed by a parallel loop of its own; baseline: the flat sequential sum, the best
//! sequential code, with the same loop written in chunks as `sequential-chunked`).
//!
//! Allocation pattern of (b): `map_collect_into` writes into one buffer allocated and
//! faulted in before the group starts and reused by every contender (`collect_into_vec` for
//! the parallel ones, `clear` + `extend` for the sequential one), so page faults and the
//! allocator are out of the measurement. `map_collect_fresh` allocates a new 80 MB `Vec` per
//! iteration for every contender (`collect()`), so mmap/munmap and first-touch page faults are
//! in it; it shows what a plain `collect` costs in practice. weft's collect can ask the kernel
//! for huge pages for a buffer this large (`src/huge_pages.rs`; off by default, so not in
//! these pools), std's and Rayon's do not, so the group also times `sequential-huge`: std's
//! loop into a buffer given the advice (its ratio is printed against plain `sequential` like
//! the others). `benches/targets.rs` times weft with and without the advice.
//!
//! `WEFT_BENCH_INTERLEAVED=1` replaces criterion by a round-robin run of all contenders of
//! each benchmark (see `interleave`), whose ratios are steadier on a noisy shared machine.
//!
//! `WEFT_BENCH_SMALL=1` divides every size by about 100 for a quick smoke run. Suggested
//! settings on the shared 2-core machine:
//! `cargo bench --features bench-internals --bench iter -- --warm-up-time 1 --measurement-time 3 --sample-size 10`
//! (the feature gives the bench the huge-page advice and the driver switch it compares).
#![allow(missing_docs)] // `criterion_group!` generates an undocumented function

use criterion::{criterion_group, BenchmarkGroup, Criterion, Throughput};

#[path = "interleave/mod.rs"]
mod interleave;
use std::hint::black_box;

// The crate's own huge-page advice, so that the sequential collect into a fresh buffer can
// be the best sequential code (`sequential_collect_huge`), and the driver switch for the
// `weft-halving-*` rows; both need `--features bench-internals`.
use weft::bench_internals::{reserve_with_huge_page_advice, use_halving_for_indexed};

// Both sides include the same kernels, so weft and Rayon run identical source.
use weft as weft_impl;

mod weft_side {
    use crate::weft_impl as par;
    include!("iter/kernels.rs");
}

mod rayon_side {
    use rayon as par;
    include!("iter/kernels.rs");
}

/// (b) the best sequential collect into a fresh `Vec`: std's `collect`, but into a buffer
/// with the huge-page advice weft's own collect gives a buffer of this size (`huge_pages`).
/// Without it the sequential baseline pays a page fault per 4 KiB that weft does not.
fn sequential_collect_huge(n: usize) -> Vec<u64> {
    let mut out = Vec::new();
    reserve_with_huge_page_advice(&mut out, n);
    out.extend((0..n).map(work::scramble));
    out
}

/// Per-item work shared by the sequential baselines and both parallel sides.
mod work {
    /// (a) a cheap map the compiler can vectorize.
    #[inline]
    pub(crate) fn cheap(x: u64) -> u64 {
        x ^ (x >> 3)
    }

    /// (b) a cheap, non-trivial map for collect.
    #[inline]
    pub(crate) fn scramble(i: usize) -> u64 {
        (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i as u64 >> 7)
    }

    /// (d) keeps about a third of random values.
    #[inline]
    pub(crate) fn keep(x: u64) -> bool {
        x % 3 == 0
    }

    /// (b'') keeps 7 of 8 scrambled values.
    #[inline]
    pub(crate) fn keep_most(x: u64) -> bool {
        x % 8 != 0
    }

    /// Iteration cap of the Mandelbrot escape-time loop: points inside the set cost this much,
    /// points far outside cost one or two iterations, hence the imbalance between rows.
    const MAX_ITERATIONS: u8 = 100;

    /// Escape-time iterations (at most [`MAX_ITERATIONS`]) of the pixels of row `y` of the image.
    pub(crate) fn mandelbrot_row(y: usize, height: usize, row: &mut [u8]) {
        let width = row.len();
        let ci = -1.25 + 2.5 * y as f64 / height as f64;
        for (x, pixel) in row.iter_mut().enumerate() {
            let cr = -2.0 + 2.5 * x as f64 / width as f64;
            let (mut zr, mut zi, mut n) = (0.0f64, 0.0f64, 0u8);
            while n < MAX_ITERATIONS && zr * zr + zi * zi <= 4.0 {
                let next = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = next;
                n += 1;
            }
            *pixel = n;
        }
    }

    /// (f) item `i` runs a dependent chain of `i` steps.
    #[inline]
    pub(crate) fn triangle_item(i: usize) -> u64 {
        let mut acc = std::hint::black_box(i as u64);
        for j in 0..i as u64 {
            acc = acc.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ j;
        }
        acc
    }

    /// (g) a few nanoseconds of integer work (two rounds of a 64-bit mixer).
    #[inline]
    pub(crate) fn fine(i: u64) -> u64 {
        let mut x = i;
        for _ in 0..2 {
            x ^= x >> 30;
            x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x ^= x >> 27;
            x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
            x ^= x >> 31;
        }
        x
    }
}

/// Problem sizes; `WEFT_BENCH_SMALL=1` shrinks them for a smoke run.
struct Sizes {
    sum_range: u64,
    collect: usize,
    slice: usize,
    filter: usize,
    mandelbrot_side: usize,
    triangle: usize,
    fine: u64,
}

impl Sizes {
    fn from_env() -> Self {
        let small = std::env::var_os("WEFT_BENCH_SMALL").is_some_and(|v| v != "0");
        let shrink = if small { 100 } else { 1 };
        Sizes {
            sum_range: 100_000_000 / shrink as u64,
            collect: 10_000_000 / shrink,
            slice: 50_000_000 / shrink,
            filter: 10_000_000 / shrink,
            mandelbrot_side: if small { 128 } else { 1024 },
            triangle: if small { 1_000 } else { 10_000 },
            fine: 10_000_000 / shrink as u64,
        }
    }
}

/// The four parallel pools, built once: weft and Rayon with 1 and 2 threads.
struct Pools {
    weft: Vec<(usize, weft_impl::ThreadPool)>,
    rayon: Vec<(usize, rayon::ThreadPool)>,
}

impl Pools {
    fn new() -> Self {
        Pools {
            weft: [1, 2].map(|t| (t, weft_side::pool(t))).into(),
            rayon: [1, 2].map(|t| (t, rayon_side::pool(t))).into(),
        }
    }
}

/// Adds the `weft-1`, `weft-2`, `weft-halving-1`, `weft-halving-2`, `rayon-1` and `rayon-2`
/// contenders to `$group`. `$body` is evaluated inside the pool with `$side` naming
/// `weft_side` or `rayon_side`, so all run the same kernel. `weft-halving-*` is weft with
/// indexed work sent to the split-in-half driver instead of the on-steal one (the driver
/// comparison in `src/drive/README.md`).
macro_rules! parallel_contenders {
    ($group:expr, $pools:expr, |$side:ident| $body:expr) => {{
        for (threads, pool) in &$pools.weft {
            $group.bench_function(format!("weft-{threads}"), |b| {
                b.iter(|| {
                    pool.install(|| {
                        use crate::weft_side as $side;
                        $body
                    })
                })
            });
        }
        for (threads, pool) in &$pools.weft {
            $group.bench_function(format!("weft-halving-{threads}"), |b| {
                use_halving_for_indexed(true);
                b.iter(|| {
                    pool.install(|| {
                        use crate::weft_side as $side;
                        $body
                    })
                });
                use_halving_for_indexed(false);
            });
        }
        for (threads, pool) in &$pools.rayon {
            $group.bench_function(format!("rayon-{threads}"), |b| {
                b.iter(|| {
                    pool.install(|| {
                        use crate::rayon_side as $side;
                        $body
                    })
                })
            });
        }
    }};
}

type Group<'a> = BenchmarkGroup<'a, criterion::measurement::WallTime>;

fn group<'a>(c: &'a mut Criterion, name: &str, elements: u64) -> Group<'a> {
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(elements));
    group
}

fn bench_sum_cheap_map(c: &mut Criterion, pools: &Pools, sizes: &Sizes) {
    let n = sizes.sum_range;
    let mut g = group(c, "sum_cheap_map", n);
    g.bench_function("sequential", |b| {
        b.iter(|| (0..black_box(n)).map(work::cheap).sum::<u64>())
    });
    parallel_contenders!(g, pools, |side| side::sum_cheap_map(black_box(n)));
    g.finish();
}

fn bench_map_collect(c: &mut Criterion, pools: &Pools, sizes: &Sizes) {
    let n = sizes.collect;
    // One buffer for everyone, faulted in now (see the module doc).
    let mut out: Vec<u64> = vec![1; n];
    let mut g = group(c, "map_collect_into", n as u64);
    g.bench_function("sequential", |b| {
        b.iter(|| {
            out.clear();
            out.extend((0..black_box(n)).map(work::scramble));
        })
    });
    parallel_contenders!(g, pools, |side| side::map_collect_into(
        black_box(n),
        &mut out
    ));
    g.finish();
    assert_eq!(out.len(), n);

    let mut g = group(c, "map_collect_fresh", n as u64);
    g.bench_function("sequential", |b| {
        b.iter(|| (0..black_box(n)).map(work::scramble).collect::<Vec<u64>>())
    });
    g.bench_function("sequential-huge", |b| {
        b.iter(|| sequential_collect_huge(black_box(n)))
    });
    parallel_contenders!(g, pools, |side| side::map_collect_fresh(black_box(n)));
    g.finish();

    let mut g = group(c, "filter_collect_fresh", n as u64);
    g.bench_function("sequential", |b| {
        b.iter(|| {
            (0..black_box(n))
                .map(work::scramble)
                .filter(|&x| work::keep_most(x))
                .collect::<Vec<u64>>()
        })
    });
    parallel_contenders!(g, pools, |side| side::filter_collect_fresh(black_box(n)));
    g.finish();
}

fn bench_slices(c: &mut Criterion, pools: &Pools, sizes: &Sizes) {
    let mut seed = 0x1234_5678_9ABC_DEF0u64;
    let data: Vec<u64> = (0..sizes.slice)
        .map(|_| {
            seed = work::fine(seed);
            seed
        })
        .collect();

    let mut g = group(c, "sum_slice", data.len() as u64);
    g.bench_function("sequential", |b| {
        b.iter(|| black_box(&data[..]).iter().sum::<u64>())
    });
    parallel_contenders!(g, pools, |side| side::sum_slice(black_box(&data)));
    g.finish();

    let part = &data[..sizes.filter];
    let mut g = group(c, "filter_count", part.len() as u64);
    g.bench_function("sequential", |b| {
        b.iter(|| black_box(part).iter().filter(|&&x| work::keep(x)).count())
    });
    parallel_contenders!(g, pools, |side| side::filter_count(black_box(part)));
    g.finish();

    let mut g = group(c, "zip_map_sum", part.len() as u64);
    g.bench_function("sequential", |b| {
        b.iter(|| zip_map_sum_sequential(black_box(part)))
    });
    parallel_contenders!(g, pools, |side| side::zip_map_sum(black_box(part)));
    g.finish();

    for k in NESTED_CHUNKS {
        let mut g = group(c, &format!("nested_chunks_{k}"), data.len() as u64);
        g.bench_function("sequential", |b| {
            b.iter(|| nested_sequential(black_box(&data)))
        });
        g.bench_function("sequential-chunked", |b| {
            b.iter(|| nested_sequential_chunked(black_box(&data), k))
        });
        parallel_contenders!(g, pools, |side| side::nested_chunks_sum(
            black_box(&data),
            k
        ));
        g.finish();
    }
}

/// (i) the chunk lengths of the nested rows.
const NESTED_CHUNKS: [usize; 2] = [16, 256];

/// (i) sequentially, the best code: one flat loop (the chunks change nothing).
fn nested_sequential(data: &[u64]) -> u64 {
    data.iter().map(|&x| work::cheap(x)).sum()
}

/// (i) sequentially, written in chunks as the parallel version is.
fn nested_sequential_chunked(data: &[u64], k: usize) -> u64 {
    data.chunks(k)
        .map(|c| c.iter().map(|&x| work::cheap(x)).sum::<u64>())
        .sum()
}

/// (h) sequentially: the best std version is the same chain on std's iterators.
fn zip_map_sum_sequential(data: &[u64]) -> u64 {
    (0..data.len())
        .map(|i| work::cheap(i as u64))
        .zip(data)
        .map(|(a, &b)| a ^ b)
        .sum()
}

fn bench_unbalanced(c: &mut Criterion, pools: &Pools, sizes: &Sizes) {
    let side_len = sizes.mandelbrot_side;
    let mut image = vec![0u8; side_len * side_len];
    let mut g = group(c, "mandelbrot", image.len() as u64);
    g.bench_function("sequential", |b| {
        b.iter(|| {
            for (y, row) in image.chunks_mut(side_len).enumerate() {
                work::mandelbrot_row(y, side_len, row);
            }
        })
    });
    parallel_contenders!(g, pools, |side| side::mandelbrot(&mut image, side_len));
    g.finish();

    let n = sizes.triangle;
    let mut g = group(c, "triangular", n as u64);
    g.bench_function("sequential", |b| {
        b.iter(|| (0..black_box(n)).map(work::triangle_item).sum::<u64>())
    });
    parallel_contenders!(g, pools, |side| side::triangular(black_box(n)));
    g.finish();
}

fn bench_fine_grained(c: &mut Criterion, pools: &Pools, sizes: &Sizes) {
    let n = sizes.fine;
    let mut g = group(c, "fine_grained", n);
    g.bench_function("sequential", |b| {
        b.iter(|| {
            (0..black_box(n))
                .map(|i| work::fine(black_box(i)))
                .sum::<u64>()
        })
    });
    parallel_contenders!(g, pools, |side| side::fine_grained(black_box(n)));
    g.finish();
}

fn iter_benches(c: &mut Criterion) {
    let sizes = Sizes::from_env();
    let pools = Pools::new();
    bench_sum_cheap_map(c, &pools, &sizes);
    bench_map_collect(c, &pools, &sizes);
    bench_slices(c, &pools, &sizes);
    bench_unbalanced(c, &pools, &sizes);
    bench_fine_grained(c, &pools, &sizes);
}

criterion_group!(benches, iter_benches);

/// One contender of an interleaved run: its name and one timed call.
type Contender<'a> = (String, Box<dyn FnMut() + 'a>);

/// The sequential baseline followed by the same six parallel contenders as
/// `parallel_contenders!`, as boxed calls for [`interleave`].
macro_rules! interleaved_contenders {
    ($pools:expr, $sequential:expr, |$side:ident| $body:expr) => {{
        let mut list: Vec<Contender<'_>> = vec![("sequential".to_string(), Box::new($sequential))];
        for (threads, pool) in &$pools.weft {
            list.push((
                format!("weft-{threads}"),
                Box::new(move || {
                    use_halving_for_indexed(false);
                    pool.install(|| {
                        use crate::weft_side as $side;
                        black_box($body);
                    })
                }),
            ));
            list.push((
                format!("weft-halving-{threads}"),
                Box::new(move || {
                    use_halving_for_indexed(true);
                    pool.install(|| {
                        use crate::weft_side as $side;
                        black_box($body);
                    });
                    use_halving_for_indexed(false);
                }),
            ));
        }
        for (threads, pool) in &$pools.rayon {
            list.push((
                format!("rayon-{threads}"),
                Box::new(move || {
                    pool.install(|| {
                        use crate::rayon_side as $side;
                        black_box($body);
                    })
                }),
            ));
        }
        list
    }};
}

/// Times `contenders` round-robin, `rounds` calls each (the starting contender rotates every
/// round), and prints each one's median time relative to the sequential median, with the
/// ratio of the fastest calls in brackets. Interleaving spreads the shared machine's bursts
/// of noise over every contender alike, where criterion measures one contender after another;
/// a short pause before each call (`interleave/mod.rs`) lets the previous pool's workers go to
/// sleep first.
fn interleave(name: &str, mut contenders: Vec<Contender<'_>>, rounds: usize) {
    use interleave::{fastest, median};
    use std::time::Instant;
    if !interleave::selected(name) {
        return;
    }
    for (_, call) in contenders.iter_mut() {
        call(); // warm-up: caches, page faults, pool threads awake once
    }
    let times = interleave::round_robin(contenders.len(), rounds, |i| {
        let start = Instant::now();
        (contenders[i].1)();
        start.elapsed()
    });
    let mut line = format!("{name:<18} sequential {:8.2} ms", median(&times[0]) * 1e3);
    for ((label, _), t) in contenders.iter().zip(&times).skip(1) {
        let ratio = median(t) / median(&times[0]);
        let best = fastest(t) / fastest(&times[0]);
        line += &format!(" | {label} {ratio:.3} ({best:.3})");
    }
    println!("{line}");
    if std::env::var_os("WEFT_BENCH_DUMP").is_some() {
        for ((label, _), t) in contenders.iter().zip(&times) {
            let mut ms: Vec<f64> = t.iter().map(|d| d.as_secs_f64() * 1e3).collect();
            ms.sort_by(f64::total_cmp);
            println!(
                "  {label:16} {:?}",
                ms.iter()
                    .map(|x| (x * 10.0).round() / 10.0)
                    .collect::<Vec<_>>()
            );
        }
    }
}

/// `WEFT_BENCH_INTERLEAVED=1 cargo bench --features bench-internals --bench iter`: every benchmark of this file, with all
/// contenders interleaved (see [`interleave`]); `WEFT_BENCH_ROUNDS` calls each (default 30);
/// `WEFT_BENCH_ONLY=triangular,mandelbrot` runs only the named benchmarks; `WEFT_BENCH_DUMP=1`
/// also prints every call's time, sorted, per contender.
fn interleaved_benches() {
    use std::sync::Mutex;
    let sizes = Sizes::from_env();
    let pools = Pools::new();
    let rounds = interleave::rounds(30);
    println!("time / sequential time: median (fastest call), {rounds} interleaved rounds");

    let n = sizes.sum_range;
    let seq = move || {
        black_box((0..black_box(n)).map(work::cheap).sum::<u64>());
    };
    let list = interleaved_contenders!(pools, seq, |side| side::sum_cheap_map(black_box(n)));
    interleave("sum_cheap_map", list, rounds);

    let n = sizes.collect;
    let out = Mutex::new(vec![1u64; n]);
    let out = &out;
    let seq = move || {
        let mut out = out.lock().unwrap();
        out.clear();
        out.extend((0..black_box(n)).map(work::scramble));
    };
    let list = interleaved_contenders!(pools, seq, |side| side::map_collect_into(
        black_box(n),
        &mut out.lock().unwrap()
    ));
    interleave("map_collect_into", list, rounds);
    let seq = move || {
        black_box((0..black_box(n)).map(work::scramble).collect::<Vec<u64>>());
    };
    let mut list =
        interleaved_contenders!(pools, seq, |side| side::map_collect_fresh(black_box(n)));
    list.insert(
        1,
        (
            "sequential-huge".to_string(),
            Box::new(move || {
                black_box(sequential_collect_huge(black_box(n)));
            }),
        ),
    );
    interleave("map_collect_fresh", list, rounds);
    let seq = move || {
        black_box(
            (0..black_box(n))
                .map(work::scramble)
                .filter(|&x| work::keep_most(x))
                .collect::<Vec<u64>>(),
        );
    };
    let list = interleaved_contenders!(pools, seq, |side| side::filter_collect_fresh(black_box(n)));
    interleave("filter_collect_fresh", list, rounds);

    let mut seed = 0x1234_5678_9ABC_DEF0u64;
    let data: Vec<u64> = (0..sizes.slice)
        .map(|_| {
            seed = work::fine(seed);
            seed
        })
        .collect();
    let data = &data[..];
    let seq = move || {
        black_box(black_box(data).iter().sum::<u64>());
    };
    let list = interleaved_contenders!(pools, seq, |side| side::sum_slice(black_box(data)));
    interleave("sum_slice", list, rounds);
    let part = &data[..sizes.filter];
    let seq = move || {
        black_box(black_box(part).iter().filter(|&&x| work::keep(x)).count());
    };
    let list = interleaved_contenders!(pools, seq, |side| side::filter_count(black_box(part)));
    interleave("filter_count", list, rounds);
    let seq = move || {
        black_box(zip_map_sum_sequential(black_box(part)));
    };
    let list = interleaved_contenders!(pools, seq, |side| side::zip_map_sum(black_box(part)));
    interleave("zip_map_sum", list, rounds);
    for k in NESTED_CHUNKS {
        let seq = move || {
            black_box(nested_sequential(black_box(data)));
        };
        let mut list = interleaved_contenders!(pools, seq, |side| side::nested_chunks_sum(
            black_box(data),
            k
        ));
        list.insert(
            1,
            (
                "sequential-chunked".to_string(),
                Box::new(move || {
                    black_box(nested_sequential_chunked(black_box(data), k));
                }),
            ),
        );
        interleave(&format!("nested_chunks_{k}"), list, rounds);
    }

    let side_len = sizes.mandelbrot_side;
    let image = Mutex::new(vec![0u8; side_len * side_len]);
    let image = &image;
    let seq = move || {
        for (y, row) in image.lock().unwrap().chunks_mut(side_len).enumerate() {
            work::mandelbrot_row(y, side_len, row);
        }
    };
    let list = interleaved_contenders!(pools, seq, |side| side::mandelbrot(
        &mut image.lock().unwrap(),
        side_len
    ));
    interleave("mandelbrot", list, rounds);

    let n = sizes.triangle;
    let seq = move || {
        black_box((0..black_box(n)).map(work::triangle_item).sum::<u64>());
    };
    let list = interleaved_contenders!(pools, seq, |side| side::triangular(black_box(n)));
    interleave("triangular", list, rounds);

    let n = sizes.fine;
    let seq = move || {
        black_box(
            (0..black_box(n))
                .map(|i| work::fine(black_box(i)))
                .sum::<u64>(),
        );
    };
    let list = interleaved_contenders!(pools, seq, |side| side::fine_grained(black_box(n)));
    interleave("fine_grained", list, rounds);
}

fn main() {
    if interleave::requested() {
        interleaved_benches();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
