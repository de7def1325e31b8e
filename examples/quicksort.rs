//! Sorts N random `u64` with std's sorts and weft's parallel sorts, checks every result,
//! and prints the times side by side.
//!
//! ```sh
//! cargo run --release --example quicksort -- --n 10000000 --threads 2 --seed 1
//! ```

use std::process::exit;
use std::time::{Duration, Instant};
use weft::slice::ParallelSliceMut;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

struct Options {
    n: usize,
    threads: usize,
    seed: u64,
}

const USAGE: &str = "usage: quicksort [--n COUNT] [--threads THREADS] [--seed SEED]";

fn parse_options() -> Options {
    let mut options = Options {
        n: 10_000_000,
        threads: 0,
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

/// Sorts a fresh copy of `input` with `sort`, returns the time and the sorted vector.
fn timed(input: &[u64], sort: impl FnOnce(&mut Vec<u64>)) -> (Duration, Vec<u64>) {
    let mut v = input.to_vec(); // copied (and paged in) before the clock starts
    let start = Instant::now();
    sort(&mut v);
    (start.elapsed(), v)
}

fn main() {
    let options = parse_options();
    let pool = weft::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .unwrap_or_else(|e| fail(&e.to_string()));
    let threads = pool.current_num_threads();

    let mut rng = SmallRng::seed_from_u64(options.seed);
    let input: Vec<u64> = (0..options.n).map(|_| rng.random()).collect();
    println!("sorting {} random u64 (seed {})", options.n, options.seed);

    let (std_unstable, expected) = timed(&input, |v| v.sort_unstable());
    if !expected.windows(2).all(|w| w[0] <= w[1]) {
        eprintln!("std sort_unstable: not sorted");
        exit(1);
    }
    let (weft_unstable, result) = timed(&input, |v| pool.install(|| v.par_sort_unstable()));
    check(&result, &expected, "weft par_sort_unstable");
    let (std_stable, result) = timed(&input, |v| v.sort());
    check(&result, &expected, "std sort");
    let (weft_stable, result) = timed(&input, |v| pool.install(|| v.par_sort()));
    check(&result, &expected, "weft par_sort");

    println!();
    println!(
        "{:<28} {:>10} {:>9} {:>8}",
        "sort", "time", "speedup", "threads"
    );
    row("std sort_unstable", std_unstable, std_unstable, 1);
    row(
        "weft par_sort_unstable",
        weft_unstable,
        std_unstable,
        threads,
    );
    row("std sort", std_stable, std_stable, 1);
    row("weft par_sort", weft_stable, std_stable, threads);
    println!("\nall results verified (sorted, same multiset as the input)");
}

fn check(result: &[u64], expected: &[u64], what: &str) {
    if result != expected {
        eprintln!("{what}: WRONG RESULT");
        exit(1);
    }
}

fn row(name: &str, time: Duration, baseline: Duration, threads: usize) {
    let speedup = baseline.as_secs_f64() / time.as_secs_f64();
    let millis = time.as_secs_f64() * 1e3;
    println!("{name:<28} {millis:>8.1}ms {speedup:>8.2}x {threads:>8}");
}
