//! The little of criterion's command line that the custom parts of this benchmark need:
//! whether it runs as a benchmark at all, and which benchmarks the filter selects.

use std::env;

/// Criterion's flags that take no value (anything else starting with `-` takes one).
const FLAGS_WITHOUT_VALUE: [&str; 11] = [
    "--bench",
    "--test",
    "--list",
    "--exact",
    "--ignored",
    "--noplot",
    "--quick",
    "--verbose",
    "--quiet",
    "--discard-baseline",
    "--nocapture",
];

/// True under `cargo bench` (which passes `--bench`), false under `cargo test --benches`.
pub(crate) fn is_bench_mode() -> bool {
    env::args().any(|arg| arg == "--bench")
}

/// The positional filter argument, if one was given.
fn filter() -> Option<String> {
    let args: Vec<String> = env::args().skip(1).collect();
    let takes_value = |arg: &str| {
        arg.starts_with('-') && !arg.contains('=') && !FLAGS_WITHOUT_VALUE.contains(&arg)
    };
    (0..args.len())
        .find(|&i| !args[i].starts_with('-') && (i == 0 || !takes_value(&args[i - 1])))
        .map(|i| args[i].clone())
}

/// Whether the filter (a substring, as criterion also accepts) selects a benchmark whose
/// name contains `name`. No filter selects everything.
pub(crate) fn filter_admits(name: &str) -> bool {
    filter().map_or(true, |filter| {
        name.contains(&filter) || filter.contains(name)
    })
}
