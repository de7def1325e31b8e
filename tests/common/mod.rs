//! Shared helpers for the iterator integration tests: the implementation under test, seeded
//! random inputs, the standard input sizes and thread pools of several sizes.
//!
//! Every test file reaches the parallel-iterator API only through [`par`], so the suite can be
//! pointed at weft or at Rayon by changing the single `pub use` below.
#![allow(dead_code)] // each test file uses a different subset of these helpers

// The implementation under test. The tests were first validated against Rayon through this
// alias (`pub(crate) use rayon as par;`), so they encode Rayon's documented behaviour.
pub(crate) use weft as par;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

/// The input sizes every oracle test runs: empty, tiny, odd, a power of two, and one large odd
/// size (so splits never come out even). Under Miri (far slower) the largest is 1001.
pub(crate) const SIZES: [usize; 8] = if cfg!(miri) {
    [0, 1, 2, 3, 7, 64, 300, 1001]
} else {
    [0, 1, 2, 3, 7, 64, 1000, 100_003]
};

/// Thread counts for the pools the tests run in: 1 (sequential inside the pool), 2 (this
/// machine), 3 (uneven splits) and 8 (more threads than cores, so stealing is frequent).
pub(crate) const POOL_SIZES: [usize; 4] = [1, 2, 3, 8];

/// A deterministic generator; the seed mixes in the size so each size gets different data.
pub(crate) fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed ^ 0x5745_4654_5445_5354)
}

/// `n` random `u32` values below `bound`.
pub(crate) fn random_u32s(n: usize, bound: u32, seed: u64) -> Vec<u32> {
    let mut rng = rng(seed ^ n as u64);
    (0..n).map(|_| rng.random_range(0..bound)).collect()
}

/// `n` random `i64` values in `-bound..bound`.
pub(crate) fn random_i64s(n: usize, bound: i64, seed: u64) -> Vec<i64> {
    let mut rng = rng(seed ^ n as u64);
    (0..n).map(|_| rng.random_range(-bound..bound)).collect()
}

/// `n` random `u64` values, full range.
pub(crate) fn random_u64s(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = rng(seed ^ n as u64);
    (0..n).map(|_| rng.random()).collect()
}

/// A random permutation of `0..n` (distinct values, so membership checks are exact).
pub(crate) fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut values: Vec<usize> = (0..n).collect();
    let mut rng = rng(seed ^ n as u64);
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i);
        values.swap(i, j);
    }
    values
}

/// `n` random short strings (0 to 5 ASCII letters), so some are empty and many repeat.
pub(crate) fn random_words(n: usize, seed: u64) -> Vec<String> {
    let mut rng = rng(seed ^ n as u64);
    (0..n)
        .map(|_| {
            let len = rng.random_range(0..6);
            (0..len)
                .map(|_| rng.random_range(b'a'..=b'e') as char)
                .collect()
        })
        .collect()
}

/// A random text of about `n` chars mixing ASCII, multi-byte chars, spaces, tabs, `\n` and
/// `\r\n`, so that char boundaries and line endings are exercised.
pub(crate) fn random_text(n: usize, seed: u64) -> String {
    const PIECES: [&str; 12] = [
        "a", "b", "z", " ", "  ", "\t", "\n", "\r\n", "é", "ß", "日本", "🦀",
    ];
    let mut rng = rng(seed ^ n as u64);
    let mut text = String::new();
    let mut chars = 0;
    while chars < n {
        let piece = PIECES[rng.random_range(0..PIECES.len())];
        text.push_str(piece);
        chars += piece.chars().count();
    }
    text
}

/// Pools with [`POOL_SIZES`] threads, built once per test binary.
pub(crate) fn pools() -> &'static [(usize, par::ThreadPool)] {
    static POOLS: OnceLock<Vec<(usize, par::ThreadPool)>> = OnceLock::new();
    POOLS.get_or_init(|| {
        POOL_SIZES
            .iter()
            .map(|&threads| {
                let pool = par::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                (threads, pool)
            })
            .collect()
    })
}

/// Runs `body(threads)` inside each pool of [`POOL_SIZES`] threads.
///
/// A panic in `body` is printed by the worker that ran it, into the captured output of the
/// test that first started the shared pools' threads (threads inherit their spawner's
/// capture), not into this test's: a failure in CI showed no message at all. So the message
/// is printed again here, on the test's thread, before the panic is passed on unchanged.
pub(crate) fn in_pools<F: Fn(usize) + Sync>(body: F) {
    for (threads, pool) in pools() {
        let ran = catch_unwind(AssertUnwindSafe(|| pool.install(|| body(*threads))));
        if let Err(payload) = ran {
            let message = payload
                .downcast_ref::<&str>()
                .map(|message| message.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(a payload that is not a string)".to_string());
            eprintln!("panicked in the pool of {threads} threads: {message}");
            resume_unwind(payload);
        }
    }
}

/// Busy work of about `units` * a few nanoseconds, used to skew the cost of items so that
/// idle threads steal.
pub(crate) fn spin(units: u64) -> u64 {
    let mut acc = 0u64;
    for i in 0..units {
        acc = std::hint::black_box(acc.wrapping_mul(31).wrapping_add(i));
    }
    acc
}
