//! How the scheduler's work scales with the number of workers, counted rather than timed:
//! for pools of 2 to 64 workers (more threads than cores here is fine: counts, not times),
//! an indexed loop of 10^7 items and a balanced tree of 2^20 `join`s, run several times
//! each; prints per run the pool's counters (`ThreadPool::stats`) against `P log2 n`, the
//! bound the design promises for steals (see `src/pool/README.md`, "Scale").
//!
//! ```sh
//! cargo run --release --example scale -- [--runs 5] [--threads 2,4,8,16,32,64]
//! ```

use std::hint::black_box;
use std::process::exit;

use weft::prelude::*;
use weft::PoolStats;

const USAGE: &str = "usage: scale [--runs RUNS] [--threads P1,P2,...]";

/// The indexed loop's length.
const LOOP_ITEMS: u64 = 10_000_000;
/// The join tree's leaves (a `join` at each inner node: `TREE_LEAVES - 1` joins).
const TREE_LEAVES: u64 = 1 << 20;

struct Options {
    runs: usize,
    threads: Vec<usize>,
}

fn parse_options() -> Options {
    let mut options = Options {
        runs: 5,
        threads: vec![2, 4, 8, 16, 32, 64],
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .unwrap_or_else(|| fail(&format!("{flag} needs a value")));
        let numbers: Vec<usize> = value
            .split(',')
            .map(|n| n.trim().parse().ok().filter(|&n| n > 0))
            .collect::<Option<_>>()
            .unwrap_or_else(|| fail(&format!("{flag}: not positive numbers: {value}")));
        match flag.as_str() {
            "--runs" if numbers.len() == 1 => options.runs = numbers[0],
            "--threads" => options.threads = numbers,
            _ => fail(&format!("bad flag {flag}")),
        }
    }
    options
}

fn fail(message: &str) -> ! {
    eprintln!("{message}\n{USAGE}");
    exit(2)
}

/// Rounds of a hash per item or leaf: about 1 ns each, so that a loop takes long enough
/// for the operating system to give every worker of an oversubscribed pool some turns.
const ROUNDS: u32 = 32;

/// The work of one item: `ROUNDS` rounds of a multiplicative hash.
fn item(x: u64) -> u64 {
    let mut h = x;
    for _ in 0..ROUNDS {
        h = (h ^ (h >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    h >> 40
}

/// The loop: `item` of each index, summed.
fn indexed_loop() -> u64 {
    (0..LOOP_ITEMS).into_par_iter().map(item).sum()
}

/// The join tree over the leaves `low..high`: one `join` per inner node.
fn join_tree(low: u64, high: u64) -> u64 {
    if high - low == 1 {
        return item(black_box(low));
    }
    let mid = low + (high - low) / 2;
    let (a, b) = weft::join(|| join_tree(low, mid), || join_tree(mid, high));
    a + b
}

/// The counters of one run of `work` in `pool` (checked against `expected`).
fn counted(pool: &weft::ThreadPool, work: fn() -> u64, expected: u64) -> PoolStats {
    let before = pool.stats();
    let result = pool.install(work);
    assert_eq!(result, expected);
    pool.stats() - before
}

/// The median and the maximum of `values`.
fn median_max(mut values: Vec<u64>) -> (u64, u64) {
    values.sort_unstable();
    (values[values.len() / 2], values[values.len() - 1])
}

fn main() {
    let options = parse_options();
    let loop_expected: u64 = (0..LOOP_ITEMS).map(item).sum();
    let tree_expected: u64 = (0..TREE_LEAVES).map(item).sum();
    let log_loop = (LOOP_ITEMS as f64).log2();
    let log_tree = (TREE_LEAVES as f64).log2();
    println!(
        "per run: median (max) over {} runs after one warm-up. Bound: P log2 n, with \
         log2 n = {log_loop:.1} for the loop (n = 10^7 items) and {log_tree:.0} for the tree \
         (n = 2^20 leaves). Steals: range steals for the loop, stolen jobs for the tree.",
        options.runs
    );
    println!();
    println!(
        "| workload | P | P log2 n | steals | steals / (P log2 n) | pieces (chunks) | \
         pieces per range | forks published | jobs stolen | wake-ups |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for &threads in &options.threads {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap_or_else(|err| fail(&format!("cannot build a pool of {threads}: {err}")));
        for (is_loop, work, expected, log_n) in [
            (true, indexed_loop as fn() -> u64, loop_expected, log_loop),
            (false, || join_tree(0, TREE_LEAVES), tree_expected, log_tree),
        ] {
            counted(&pool, work, expected);
            let runs: Vec<PoolStats> = (0..options.runs)
                .map(|_| counted(&pool, work, expected))
                .collect();
            let column =
                |field: &dyn Fn(&PoolStats) -> u64| median_max(runs.iter().map(field).collect());
            let cell = |(median, max): (u64, u64)| format!("{median} ({max})");
            let bound = threads as f64 * log_n;
            let steals = if is_loop {
                column(&|s| s.range_steals)
            } else {
                column(&|s| s.jobs_stolen)
            };
            let (pieces, per_range) = if is_loop {
                let per_range = |s: &PoolStats| s.chunks_taken / (1 + s.range_steals);
                (cell(column(&|s| s.chunks_taken)), cell(column(&per_range)))
            } else {
                ("-".to_owned(), "-".to_owned())
            };
            println!(
                "| {} | {threads} | {bound:.0} | {} | {:.2} ({:.2}) | {pieces} | {per_range} | \
                 {} | {} | {} |",
                if is_loop {
                    "loop 10^7"
                } else {
                    "join tree 2^20"
                },
                cell(steals),
                steals.0 as f64 / bound,
                steals.1 as f64 / bound,
                cell(column(&|s| s.forks_published)),
                cell(column(&|s| s.jobs_stolen)),
                cell(column(&|s| s.wakeups)),
            );
        }
    }
}
