// Round-robin timing for the benches' interleaved mode, shared by `benches/iter.rs`,
// `benches/sort.rs`, `benches/targets.rs`, `benches/breadth.rs` and `benches/beyond.rs`
// through `#[path]`.
//
// Criterion measures one contender after another, so on a shared machine a burst of host
// noise lands on one contender only. Here every contender runs once per round, in an order
// shuffled anew each round (from a fixed seed, so runs repeat), and a 1 ms pause before each
// call lets the previous pool's workers stop spinning and fall asleep (both libraries' idle
// workers sleep after 32 rounds of yielding, well under 1 ms), so they do not compete with
// the next contender. Not longer: on this VM a vCPU left idle for 5 ms or more runs the next
// few milliseconds of a 2-thread pool's work slowly, so with the 10 ms pause used until
// #21's nineteenth pass the 2-thread figures of millisecond kernels measured the host more
// than the library (sequential loops of 8-item parallel loops, per loop: weft 6.8 µs and
// Rayon 7.1 after a 1 ms pause, 11.8 and 11.5 after 10 ms, where the sequential code takes
// 11.0). `WEFT_BENCH_PAUSE_US` sets another pause. The shuffle matters: what one call leaves
// behind reaches the next one. In a fixed cyclic order, one contender always ran right after
// `huge-seq` (which frees 80 MB of huge-page-advised memory), and whichever ran there
// measured 2-8% slower than in any other place (a 10^7-item fresh collect, in a probe
// crate).

use rand::{rngs::SmallRng, seq::SliceRandom, SeedableRng};

use std::time::Duration;

/// Whether `WEFT_BENCH_INTERLEAVED` asks for the interleaved mode instead of criterion.
pub(crate) fn requested() -> bool {
    std::env::var_os("WEFT_BENCH_INTERLEAVED").is_some_and(|v| v != "0")
}

/// Calls per contender: `WEFT_BENCH_ROUNDS`, or `default`.
pub(crate) fn rounds(default: usize) -> usize {
    env_number("WEFT_BENCH_ROUNDS", default)
}

/// The number in the environment variable `name`, or `default` if it is unset or no number.
fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// False when `WEFT_BENCH_ONLY` (a comma-separated list) names other benchmarks only.
pub(crate) fn selected(name: &str) -> bool {
    std::env::var("WEFT_BENCH_ONLY")
        .map(|only| only.split(',').any(|wanted| wanted == name))
        .unwrap_or(true)
}

/// Runs `timed(i)` for every contender `i < contenders`, `rounds` rounds, each round in a new
/// shuffled order (the same orders every run), after a pause each (1 ms unless
/// `WEFT_BENCH_PAUSE_US` says otherwise); `timed` returns how long its measured part took.
/// Returns each contender's times, sorted.
pub(crate) fn round_robin(
    contenders: usize,
    rounds: usize,
    mut timed: impl FnMut(usize) -> Duration,
) -> Vec<Vec<Duration>> {
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(rounds); contenders];
    let mut order: Vec<usize> = (0..contenders).collect();
    let mut rng = SmallRng::seed_from_u64(0x7765_6674);
    let pause = Duration::from_micros(env_number("WEFT_BENCH_PAUSE_US", 1_000));
    for _ in 0..rounds {
        order.shuffle(&mut rng);
        for &i in &order {
            std::thread::sleep(pause);
            times[i].push(timed(i));
        }
    }
    for t in &mut times {
        t.sort();
    }
    times
}

/// The median of sorted `times`, in seconds.
pub(crate) fn median(times: &[Duration]) -> f64 {
    times[times.len() / 2].as_secs_f64()
}

/// The fastest of sorted `times`, in seconds.
pub(crate) fn fastest(times: &[Duration]) -> f64 {
    times[0].as_secs_f64()
}
