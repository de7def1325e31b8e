//! Demo: recursive Fibonacci with a `join` at every level, sequential vs weft, and the
//! number of joins the recursion makes.
//!
//! `cargo run --release --example fib -- [n] [threads]`
//!
//! `fib(n)` for `n >= 2` makes one `join` of `fib(n - 1)` and `fib(n - 2)`, so the joins
//! satisfy `joins(n) = joins(n - 1) + joins(n - 2) + 1` with `joins(0) = joins(1) = 0`.
//! Then `joins(n) + 1` follows Fibonacci's own recurrence, starting from
//! `joins(0) + 1 = fib(1)` and `joins(1) + 1 = fib(2)`, so `joins(n) = fib(n + 1) - 1`
//! (3,524,577 for `fib(32)`). The demo counts the joins of a real run and checks them
//! against that formula; `cargo test --release --example fib` checks both for small `n` in
//! pools of 1 to 4 threads.

use std::ops::Add;
use std::time::Instant;

fn fib_seq(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

/// How a run counts its joins: [`Counted`] adds them up, [`Uncounted`] is a zero-sized
/// stand-in that compiles to nothing, so the timed run and the counted run are one function.
trait JoinCount: Copy + Send + Add<Output = Self> {
    const ZERO: Self;
    const ONE: Self;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counted(u64);

impl Add for Counted {
    type Output = Counted;
    fn add(self, other: Counted) -> Counted {
        Counted(self.0 + other.0)
    }
}

impl JoinCount for Counted {
    const ZERO: Counted = Counted(0);
    const ONE: Counted = Counted(1);
}

#[derive(Clone, Copy, Debug)]
struct Uncounted;

impl Add for Uncounted {
    type Output = Uncounted;
    fn add(self, _: Uncounted) -> Uncounted {
        Uncounted
    }
}

impl JoinCount for Uncounted {
    const ZERO: Uncounted = Uncounted;
    const ONE: Uncounted = Uncounted;
}

/// `fib(n)` with a `weft::join` at every level, and the joins this call and its callees
/// made.
fn fib_par<J: JoinCount>(n: u32) -> (u64, J) {
    if n < 2 {
        return (n as u64, J::ZERO);
    }
    let ((a, joins_a), (b, joins_b)) = weft::join(|| fib_par::<J>(n - 1), || fib_par::<J>(n - 2));
    (a + b, joins_a + joins_b + J::ONE)
}

/// The joins `fib_par(n)` makes, by the closed form derived in the module docs.
fn expected_joins(n: u32) -> u64 {
    fib_seq(n + 1) - 1
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

    let (value, Counted(joins)) = weft::ThreadPoolBuilder::new()
        .num_threads(max_threads)
        .build()
        .unwrap()
        .install(|| fib_par::<Counted>(n));
    assert_eq!(
        value, expected,
        "weft's result differs from the sequential one"
    );
    assert_eq!(
        joins,
        expected_joins(n),
        "joins(n) = fib(n + 1) - 1 does not hold"
    );
    println!(
        "fib({n}) = {expected}: {joins} joins (fib({}) - 1, one per call with n >= 2)",
        n + 1
    );

    println!("{:<22}{:>12}{:>10}", "", "time", "speedup");
    println!("{:<22}{:>10.1?}{:>10}", "sequential", seq, "1.00x");
    for threads in 1..=max_threads {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| fib_par::<Uncounted>(10)); // wake the workers
        let start = Instant::now();
        let (got, Uncounted) = pool.install(|| fib_par::<Uncounted>(n));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The joins by the recurrence itself, independent of the closed form.
    fn joins_by_recurrence(n: u32) -> u64 {
        if n < 2 {
            return 0;
        }
        joins_by_recurrence(n - 1) + joins_by_recurrence(n - 2) + 1
    }

    #[test]
    fn the_closed_form_matches_the_recurrence() {
        for n in 0..=30 {
            assert_eq!(expected_joins(n), joins_by_recurrence(n), "n = {n}");
        }
        // The count the demo printed before: 2 * fib(n), twice too many at n = 2.
        assert_ne!(expected_joins(2), 2 * fib_seq(2));
    }

    #[test]
    fn a_run_makes_the_joins_the_formula_says_in_every_pool() {
        for threads in 1..=4 {
            let pool = weft::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for n in 0..=22 {
                let (value, Counted(joins)) = pool.install(|| fib_par::<Counted>(n));
                assert_eq!(value, fib_seq(n), "n = {n}, {threads} threads");
                assert_eq!(joins, expected_joins(n), "n = {n}, {threads} threads");
            }
        }
    }
}
