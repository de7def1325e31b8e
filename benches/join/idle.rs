//! Idle-pool CPU: how much CPU time the whole process burns during the 200 ms after a burst of
//! work in a 2-thread pool, for weft, rayon, chili and a process with no pool at all.
//!
//! Criterion measures wall time, so this is a custom measurement printed before the criterion
//! groups. CPU time is the sum over the process's threads of the first field of
//! `/proc/self/task/<tid>/schedstat` (nanoseconds on the CPU). `/proc/self/stat`'s
//! utime + stime count in clock ticks of 10 ms, far too coarse for the ~100 µs at stake.
//! The pools stay alive during the window, so no thread's time is lost by exiting.

use crate::{chili_pool, fib_chili, fib_rayon, fib_sequential, fib_weft, rayon_pool, weft_pool};
use std::fs;
use std::hint::black_box;
use std::thread;
use std::time::Duration;

/// The idle window the target is stated for.
const IDLE_WINDOW: Duration = Duration::from_millis(200);
/// Windows measured per contender; the report shows their median and range.
const ROUNDS: usize = 5;
/// Size of the burst that precedes each window (fib(n) with a join at every level).
const BURST_FIB_N: u64 = 25;
/// Time for a dropped pool's threads to exit before the next contender is measured.
const SETTLE: Duration = Duration::from_millis(100);

/// CPU time consumed so far by every live thread of this process, in nanoseconds.
fn process_cpu_ns() -> u64 {
    let tasks = fs::read_dir("/proc/self/task").expect("/proc/self/task (Linux only)");
    tasks
        .filter_map(|task| fs::read_to_string(task.ok()?.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// Runs `burst`, then measures the CPU time of the following idle window, `ROUNDS` times.
fn idle_cpu_after(mut burst: impl FnMut()) -> Vec<Duration> {
    (0..ROUNDS)
        .map(|_| {
            burst();
            // schedstat lags for a running thread until it is switched out; yielding brings
            // this thread's count up to date, so the burst's tail does not leak into the window.
            thread::yield_now();
            let before = process_cpu_ns();
            thread::sleep(IDLE_WINDOW);
            Duration::from_nanos(process_cpu_ns().saturating_sub(before))
        })
        .collect()
}

fn print_line(name: &str, mut windows: Vec<Duration>) {
    windows.sort_unstable();
    let micros = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "idle/{name:<10} {:>9.1} µs CPU per {} ms idle (median of {ROUNDS}; range {:.1}..{:.1})",
        micros(windows[ROUNDS / 2]),
        IDLE_WINDOW.as_millis(),
        micros(windows[0]),
        micros(windows[ROUNDS - 1]),
    );
}

/// Measures and prints the idle CPU of each contender.
pub(crate) fn report() {
    println!("idle pool CPU after a burst (2-thread pools; whole-process CPU time):");
    print_line(
        "no pool",
        idle_cpu_after(|| {
            black_box(fib_sequential(black_box(BURST_FIB_N)));
        }),
    );
    {
        let pool = weft_pool(2);
        print_line(
            "weft/2",
            idle_cpu_after(|| {
                black_box(pool.install(|| fib_weft(black_box(BURST_FIB_N))));
            }),
        );
    }
    thread::sleep(SETTLE);
    {
        let pool = rayon_pool(2);
        print_line(
            "rayon/2",
            idle_cpu_after(|| {
                black_box(pool.install(|| fib_rayon(black_box(BURST_FIB_N))));
            }),
        );
    }
    thread::sleep(SETTLE);
    {
        let pool = chili_pool(2);
        let mut scope = pool.scope();
        print_line(
            "chili/2",
            idle_cpu_after(|| {
                black_box(fib_chili(black_box(BURST_FIB_N), &mut scope));
            }),
        );
    }
    thread::sleep(SETTLE);
}
