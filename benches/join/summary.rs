//! After the criterion groups: the derived numbers, from the medians criterion saved
//! in `<target>/criterion/<group>/<bench>/new/estimates.json` during this run.
//!
//! - fib: added cost per join = (contender - sequential) / number of joins;
//! - tree: time relative to sequential;
//! - wakeup: time relative to the std channel round trip.

use crate::Sizes;
use std::env;
use std::fs;
use std::path::PathBuf;
use std::time::SystemTime;

/// Where criterion keeps its results (the same lookup criterion does, minus `cargo metadata`).
fn criterion_dir() -> PathBuf {
    if let Some(home) = env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    let target =
        env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    target.join("criterion")
}

/// The median time in ns of `group/bench`, if criterion measured it during this run.
fn median_ns(group: &str, bench: &str, run_started: SystemTime) -> Option<f64> {
    let path = criterion_dir()
        .join(group)
        .join(bench)
        .join("new/estimates.json");
    let fresh = fs::metadata(&path).ok()?.modified().ok()? >= run_started;
    let json = fs::read_to_string(&path).ok().filter(|_| fresh)?;
    let median = &json[json.find("\"median\"")?..];
    let value = &median[median.find("\"point_estimate\":")? + "\"point_estimate\":".len()..];
    let end = value.find([',', '}'])?;
    value[..end].trim().parse().ok()
}

/// The contenders of the fib and tree groups, as criterion names their directories.
const POOL_CONTENDERS: [&str; 6] = [
    "weft/1", "rayon/1", "chili/1", "weft/2", "rayon/2", "chili/2",
];

/// Prints the derived numbers for every benchmark measured during this run.
pub(crate) fn print(sizes: Sizes, run_started: SystemTime) {
    println!("\nsummary (criterion medians from this run):");
    let joins = fib_joins(sizes.fib_n);
    if let Some(sequential) = median_ns("fib", "sequential", run_started) {
        println!(
            "fib({}): {joins} joins; sequential {:.2} ms",
            sizes.fib_n,
            sequential / 1e6
        );
        for contender in POOL_CONTENDERS {
            if let Some(time) = median_ns("fib", contender, run_started) {
                let added = (time - sequential) / joins as f64;
                println!(
                    "  {contender:<8} {:>8.2} ms  {added:>6.2} ns added per join",
                    time / 1e6
                );
            }
        }
    }
    if let Some(sequential) = median_ns("tree", "sequential", run_started) {
        let nodes = (1u64 << sizes.tree_levels) - 1;
        println!(
            "tree ({nodes} nodes): sequential {:.2} ms",
            sequential / 1e6
        );
        for contender in POOL_CONTENDERS {
            if let Some(time) = median_ns("tree", contender, run_started) {
                let ratio = time / sequential;
                println!(
                    "  {contender:<8} {:>8.2} ms  {ratio:>5.2}x sequential",
                    time / 1e6
                );
            }
        }
    }
    if let Some(channel) = median_ns("wakeup", "std_channel", run_started) {
        println!("wakeup: std channel round trip {:.1} µs", channel / 1e3);
        for contender in ["weft/2", "rayon/2"] {
            if let Some(time) = median_ns("wakeup", contender, run_started) {
                let ratio = time / channel;
                println!(
                    "  {contender:<8} {:>6.1} µs  {ratio:>5.2}x the channel",
                    time / 1e3
                );
            }
        }
    }
}

/// Joins executed by the fib(n) recursion: one per call with n >= 2, i.e. fib(n + 1) - 1.
fn fib_joins(n: u64) -> u64 {
    let (mut current, mut next) = (0u64, 1u64);
    for _ in 0..=n {
        (current, next) = (next, current + next);
    }
    current - 1
}
