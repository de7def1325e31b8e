//! Sorts N random `u64` with std's sorts and weft's parallel sorts, checks every result,
//! and prints the times side by side: the median of several runs of each sort, after one
//! warm-up run of each (the first parallel sort of a process also starts the pool's
//! threads, and the first touch of fresh memory is slow on some machines). The runs of the
//! four sorts alternate, so that a burst of load elsewhere on the machine spreads over all
//! of them instead of landing on one.
//!
//! ```sh
//! cargo run --release --example quicksort -- --n 10000000 --threads 2 --runs 5 --seed 1
//! ```

use std::process::exit;
use std::time::{Duration, Instant};
use weft::slice::ParallelSliceMut;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

struct Options {
    n: usize,
    threads: usize,
    runs: usize,
    seed: u64,
}

const USAGE: &str = "usage: quicksort [--n COUNT] [--threads THREADS] [--runs RUNS] [--seed SEED]";

fn parse_options() -> Options {
    let mut options = Options {
        n: 10_000_000,
        threads: 0,
        runs: 5,
        seed: 1,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .unwrap_or_else(|| fail(&format!("{flag} needs a value")));
        let number: u64 = value
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| fail(&format!("{flag}: not a number: {value}")));
        match flag.as_str() {
            "--n" => options.n = number as usize,
            "--threads" => options.threads = number as usize,
            "--runs" if number > 0 => options.runs = number as usize,
            "--runs" => fail("--runs must be at least 1"),
            "--seed" => options.seed = number,
            _ => fail(&format!("unknown flag {flag}")),
        }
    }
    options
}

fn fail(message: &str) -> ! {
    eprintln!("{message}\n{USAGE}");
    exit(2)
}

/// Sorts a fresh copy of `input` with `sort`, checks the result against `expected`, and
/// returns the time the sort took.
fn timed(input: &[u64], expected: &[u64], sort: &Sort<'_>) -> Duration {
    let mut v = input.to_vec(); // copied (and paged in) before the clock starts
    let start = Instant::now();
    (sort.run)(&mut v);
    let time = start.elapsed();
    if v != expected {
        eprintln!("{}: WRONG RESULT", sort.name);
        exit(1);
    }
    time
}

/// How a contender sorts a vector.
type SortFn<'p> = dyn Fn(&mut Vec<u64>) + 'p;

/// One contender: its name, the threads it uses, and how it sorts.
struct Sort<'p> {
    name: &'static str,
    threads: usize,
    /// Index into the list of sorts of the std sort it is compared with.
    baseline: usize,
    run: Box<SortFn<'p>>,
}

fn main() {
    let options = parse_options();
    let pool = weft::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .unwrap_or_else(|e| fail(&e.to_string()));
    let threads = pool.current_num_threads();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());

    let mut rng = SmallRng::seed_from_u64(options.seed);
    let input: Vec<u64> = (0..options.n).map(|_| rng.random()).collect();
    println!(
        "sorting {} random u64 (seed {}): median of {} runs per sort, after a warm-up run",
        options.n, options.seed, options.runs
    );
    println!(
        "weft's pool: {threads} threads; this machine: {cores} cores \
         (std::thread::available_parallelism)"
    );
    if threads > cores {
        println!("(more threads than cores: the parallel sorts cannot speed up fully)");
    }

    let mut expected = input.clone();
    expected.sort_unstable();
    if !expected.windows(2).all(|w| w[0] <= w[1]) {
        eprintln!("std sort_unstable: not sorted");
        exit(1);
    }

    let sorts = [
        Sort {
            name: "std sort_unstable",
            threads: 1,
            baseline: 0,
            run: Box::new(|v| v.sort_unstable()),
        },
        Sort {
            name: "weft par_sort_unstable",
            threads,
            baseline: 0,
            run: Box::new(|v| pool.install(|| v.par_sort_unstable())),
        },
        Sort {
            name: "std sort",
            threads: 1,
            baseline: 2,
            run: Box::new(|v| v.sort()),
        },
        Sort {
            name: "weft par_sort",
            threads,
            baseline: 2,
            run: Box::new(|v| pool.install(|| v.par_sort())),
        },
    ];
    for sort in &sorts {
        timed(&input, &expected, sort); // warm-up, not counted
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); sorts.len()];
    for _ in 0..options.runs {
        for (sort, times) in sorts.iter().zip(&mut times) {
            times.push(timed(&input, &expected, sort));
        }
    }
    let medians: Vec<Duration> = times.iter_mut().map(|t| median(t)).collect();

    println!();
    println!(
        "{:<24} {:>10} {:>10} {:>9} {:>8}",
        "sort", "median", "fastest", "speedup", "threads"
    );
    for ((sort, times), median) in sorts.iter().zip(&times).zip(&medians) {
        let fastest = times.iter().min().expect("at least one run");
        let speedup = medians[sort.baseline].as_secs_f64() / median.as_secs_f64();
        println!(
            "{:<24} {:>8.1}ms {:>8.1}ms {:>8.2}x {:>8}",
            sort.name,
            median.as_secs_f64() * 1e3,
            fastest.as_secs_f64() * 1e3,
            speedup,
            sort.threads
        );
    }
    println!("\nspeedup: std's median time of the same kind over this sort's median");
    println!("all results verified (sorted, same multiset as the input)");
}

/// The median of `times` (the upper one of the two middle values for an even count).
fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}
