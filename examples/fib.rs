//! Demo: recursive Fibonacci with a `join` at every level, sequential vs weft.
//!
//! `cargo run --release --example fib -- [n] [threads]`

use std::time::Instant;

fn fib_seq(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

fn fib_par(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = weft::join(|| fib_par(n - 1), || fib_par(n - 2));
    a + b
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(32);
    let max_threads: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));

    let start = Instant::now();
    let expected = fib_seq(n);
    let seq = start.elapsed();
    println!(
        "fib({n}) = {expected}: one join per call, {} joins",
        expected * 2
    );
    println!("{:<22}{:>12}{:>10}", "", "time", "speedup");
    println!("{:<22}{:>10.1?}{:>10}", "sequential", seq, "1.00x");
    for threads in 1..=max_threads {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| fib_par(10)); // wake the workers
        let start = Instant::now();
        let got = pool.install(|| fib_par(n));
        let time = start.elapsed();
        assert_eq!(
            got, expected,
            "weft's result differs from the sequential one"
        );
        let speedup = seq.as_secs_f64() / time.as_secs_f64();
        let label = format!("weft, {threads} thread(s)");
        println!("{label:<22}{time:>10.1?}{speedup:>9.2}x");
    }
}
