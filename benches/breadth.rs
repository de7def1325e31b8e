//! Breadth benchmark: weft against Rayon on about 120 common iterator patterns (collects,
//! filters, flat maps, searches, reductions, string splits, nested and small loops), at 1
//! and 2 threads, to catch a pattern where weft falls behind. `benches/iter.rs` and
//! `benches/sort.rs` hold the issue targets with their sequential baselines; this one
//! compares the two libraries only (both run the same source, `breadth/kernels.rs`).
//!
//! `cargo bench --bench breadth` times every kernel, all four contenders interleaved
//! round-robin (see `interleave/mod.rs`), and prints weft's median time over Rayon's at 1
//! and 2 threads (below 1: weft faster), the ratio of the fastest samples in brackets. A
//! sample is one untimed call, then as many timed calls as fill about 4 ms (the same count
//! for all four), averaged: a lone call after the round's pause measured a cold cache and
//! predictor and swung 20-50% between runs on kernels of a millisecond.
//! Before timing, each contender runs the kernel once on fresh inputs and the digests must
//! agree. Environment: `WEFT_BENCH_ROUNDS` (default 15), `WEFT_BENCH_ONLY=max,unzip`,
//! `WEFT_BREADTH_N` (items, default 2·10^6), and `WEFT_BREADTH_ONE=kernel:contender`
//! (contender `weft-1`, `rayon-1`, `weft-2`, `rayon-2` or kernel `none`), which runs one
//! call and exits: under `valgrind --tool=callgrind`, its instruction count minus that of
//! `none` is the kernel's (`breadth/callgrind.sh` does this for a list of kernels, counting
//! only the kernel function's own instructions). `WEFT_BREADTH_CHECK=1` only checks that the contenders agree on
//! every selected kernel and prints the digests, without timing anything. `WEFT_BENCH_TSV=file`
//! appends one tab-separated line per kernel (`breadth`, kernel, median and fastest ratio at
//! 1 thread, the same at 2 threads, weft-2's median in ms) for `benches/results.sh`.
#![allow(missing_docs)]

#[path = "interleave/mod.rs"]
#[allow(dead_code)] // `requested`: this bench is always interleaved
mod interleave;

use std::hint::black_box;
use std::time::Instant;

/// The inputs every kernel reads: two random `u64` vectors and a text of words.
#[derive(Debug)]
pub struct Input {
    v: Vec<u64>,
    w: Vec<u64>,
    /// `v` as `f64` in `[-0.5, 0.5)` (the `f64` reductions).
    f: Vec<f64>,
    text: String,
    /// An element three quarters into `v`, for the searches.
    target: u64,
    /// `v` truncated to `u32`.
    u: Vec<u32>,
    /// `v` cut into vectors of 0 to 15 items.
    nested: Vec<Vec<u64>>,
    /// The first sixteenth of `v` formatted in decimal (an owned input, cloned by its kernel).
    strings: Vec<String>,
    /// The first quarter of `v` and `w` as map entries, and `v` as a deque (the collection
    /// sources).
    map: std::collections::HashMap<u64, u64>,
    tree: std::collections::BTreeMap<u64, u64>,
    deque: std::collections::VecDeque<u64>,
}

use weft as weft_impl;

mod weft_side {
    use crate::weft_impl as par;
    include!("breadth/kernels.rs");
}

mod rayon_side {
    use rayon as par;
    include!("breadth/kernels.rs");
}

fn input(n: usize) -> Input {
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let v: Vec<u64> = (0..n).map(|_| next()).collect();
    let w: Vec<u64> = (0..n).map(|_| next()).collect();
    let words = [
        "alpha",
        "be",
        "gamma",
        "delta",
        "epsilon",
        "z",
        "theta",
        "iota\n",
        "kappa  ",
        "lambda\n\n",
    ];
    let mut text = String::new();
    while text.len() < 4 * n {
        text.push_str(words[(next() % 10) as usize]);
        text.push(' ');
    }
    let target = v[n * 3 / 4];
    let u = v.iter().map(|&x| x as u32).collect();
    let mut nested = Vec::new();
    let mut rest = &v[..];
    while !rest.is_empty() {
        let (head, tail) = rest.split_at(((next() % 16) as usize).min(rest.len()));
        nested.push(head.to_vec());
        rest = tail;
    }
    let strings = v[..n / 16].iter().map(|x| x.to_string()).collect();
    let map = v[..n / 4].iter().copied().zip(w.iter().copied()).collect();
    let tree = v[..n / 4].iter().copied().zip(w.iter().copied()).collect();
    let deque = v.iter().copied().collect();
    let f = v
        .iter()
        .map(|&x| (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
        .collect();
    Input {
        v,
        w,
        f,
        text,
        target,
        u,
        nested,
        strings,
        map,
        tree,
        deque,
    }
}

const CONTENDERS: [&str; 4] = ["weft-1", "rayon-1", "weft-2", "rayon-2"];

/// The least time one sample of a kernel runs: its calls are repeated until they fill it.
const SAMPLE: std::time::Duration = std::time::Duration::from_millis(4);

fn main() {
    let env = |name: &str| std::env::var(name).ok();
    let n: usize = env("WEFT_BREADTH_N")
        .and_then(|n| n.parse().ok())
        .unwrap_or(2_000_000);
    let input = input(n);
    let weft_pools: Vec<weft::ThreadPool> = [1, 2]
        .map(|threads| {
            weft::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
        })
        .into();
    let rayon_pools: Vec<rayon::ThreadPool> = [1, 2]
        .map(|threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
        })
        .into();
    let call = |contender: usize, kernel: usize, scratch: &mut [u64]| -> u64 {
        let pool = contender / 2;
        if contender % 2 == 0 {
            weft_pools[pool].install(|| (weft_side::ALL[kernel].1)(&input, scratch))
        } else {
            rayon_pools[pool].install(|| (rayon_side::ALL[kernel].1)(&input, scratch))
        }
    };

    if let Some(one) = env("WEFT_BREADTH_ONE") {
        let (kernel, contender) = one.split_once(':').expect("kernel:contender");
        let mut scratch = input.v.clone();
        if kernel != "none" {
            let k = weft_side::ALL
                .iter()
                .position(|e| e.0 == kernel)
                .expect("a kernel name");
            let c = CONTENDERS
                .iter()
                .position(|&e| e == contender)
                .expect("a contender");
            black_box(call(c, k, &mut scratch));
        }
        black_box(&scratch);
        return;
    }

    let check_only = env("WEFT_BREADTH_CHECK").is_some();
    let rounds = interleave::rounds(15);
    if !check_only {
        println!(
            "n = {n}, {rounds} interleaved rounds: weft time / Rayon time, median (fastest calls)"
        );
    }
    for (k, (name, _)) in weft_side::ALL.iter().enumerate() {
        if !interleave::selected(name) {
            continue;
        }
        let digests: Vec<u64> = (0..CONTENDERS.len())
            .map(|c| {
                let mut scratch = input.v.clone();
                let result = call(c, k, &mut scratch);
                result ^ scratch.iter().fold(0u64, |acc, &x| acc.rotate_left(1) ^ x)
            })
            .collect();
        assert!(
            digests.iter().all(|&d| d == digests[0]),
            "{name}: the contenders disagree: {digests:?}"
        );
        if check_only {
            println!("{name:26} digest {:#018x}", digests[0]);
            continue;
        }
        let mut scratch: Vec<Vec<u64>> = CONTENDERS.iter().map(|_| input.v.clone()).collect();
        // Calls per sample: enough for about 4 ms, from the slower library's call at one thread
        // (so both get the same count), at most 64.
        let once = |c: usize, scratch: &mut [u64]| {
            let start = Instant::now();
            black_box(call(c, k, scratch));
            start.elapsed()
        };
        let probe = (0..2)
            .map(|c| once(c, &mut scratch[c]).min(once(c, &mut scratch[c])))
            .max()
            .unwrap();
        let calls = (SAMPLE.as_nanos() / probe.as_nanos().max(1)).clamp(1, 64) as u32;
        let times = interleave::round_robin(CONTENDERS.len(), rounds, |c| {
            // One untimed call first: after the pause, the sample measures the kernel in a
            // warm cache and predictor, as a program calling it in a loop sees it.
            black_box(call(c, k, &mut scratch[c]));
            let start = Instant::now();
            for _ in 0..calls {
                black_box(call(c, k, &mut scratch[c]));
            }
            start.elapsed() / calls
        });
        let ratio = |weft: usize| {
            let median = interleave::median(&times[weft]) / interleave::median(&times[weft + 1]);
            let best = interleave::fastest(&times[weft]) / interleave::fastest(&times[weft + 1]);
            format!("{median:6.3} ({best:5.3})")
        };
        println!(
            "{name:26} 1 thread {} | 2 threads {} | weft-2 {:8.3} ms",
            ratio(0),
            ratio(2),
            interleave::median(&times[2]) * 1e3
        );
        if let Some(path) = env("WEFT_BENCH_TSV") {
            // `breadth, kernel, then per thread count: median ratio, fastest ratio; weft-2 ms`
            let ratios = |weft: usize| {
                let m = interleave::median(&times[weft]) / interleave::median(&times[weft + 1]);
                let f = interleave::fastest(&times[weft]) / interleave::fastest(&times[weft + 1]);
                format!("{m:.4}\t{f:.4}")
            };
            let line = format!(
                "breadth\t{name}\t{}\t{}\t{:.3}\n",
                ratios(0),
                ratios(2),
                interleave::median(&times[2]) * 1e3
            );
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .and_then(|mut file| std::io::Write::write_all(&mut file, line.as_bytes()))
                .unwrap_or_else(|e| panic!("cannot append to {path}: {e}"));
        }
    }
}
