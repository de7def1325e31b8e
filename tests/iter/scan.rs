//! Scans (issue #23): `inclusive_scan`, `exclusive_scan` and `par_inclusive_scan_mut` against
//! sequential scans on seeded random inputs of many lengths (0, 1, odd, around block
//! boundaries) in pools of 1, 2, 3 and 8 threads, with non-commutative operations (composing
//! affine maps modulo a prime, concatenating strings); the same bits on every pool for a
//! float scan, as the documented block formula gives them; closures before a scan run once
//! per item; panics in `op` propagate with every value dropped exactly once.

use crate::common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{in_pools, rng};
use rand::Rng;
use weft::prelude::*;

const PRIME: u64 = 1_000_000_007;

/// An affine map `x -> m x + c` modulo [`PRIME`].
type Affine = (u64, u64);

/// `a` then `b`: not commutative.
fn compose(a: Affine, b: Affine) -> Affine {
    ((b.0 * a.0) % PRIME, (b.0 * a.1 + b.1) % PRIME)
}

const IDENTITY: Affine = (1, 0);

fn random_maps(n: usize, seed: u64) -> Vec<Affine> {
    let mut rng = rng(seed ^ n as u64);
    (0..n)
        .map(|_| (rng.random_range(1..PRIME), rng.random_range(0..PRIME)))
        .collect()
}

fn sequential_inclusive<T: Clone>(items: &[T], identity: T, op: impl Fn(T, T) -> T) -> Vec<T> {
    let mut acc = identity;
    items
        .iter()
        .map(|x| {
            acc = op(acc.clone(), x.clone());
            acc.clone()
        })
        .collect()
}

fn sequential_exclusive<T: Clone>(items: &[T], identity: T, op: impl Fn(T, T) -> T) -> Vec<T> {
    let mut acc = identity;
    items
        .iter()
        .map(|x| {
            let before = acc.clone();
            acc = op(acc.clone(), x.clone());
            before
        })
        .collect()
}

/// Lengths: tiny, odd, and on either side of block boundaries (the default block is
/// `len / 256` rounded up, at most 4096; `64` for `with_grain(64)`).
const LENGTHS: [usize; 16] = [
    0, 1, 2, 3, 7, 63, 64, 65, 255, 256, 257, 1000, 4097, 65_537, 100_003, 1_048_577,
];

#[test]
fn inclusive_and_exclusive_scans_match_sequential_scans() {
    for &n in &LENGTHS {
        let maps = random_maps(n, 1);
        let inclusive = sequential_inclusive(&maps, IDENTITY, compose);
        let exclusive = sequential_exclusive(&maps, IDENTITY, compose);
        in_pools(|threads| {
            let got: Vec<Affine> = maps
                .par_iter()
                .copied()
                .inclusive_scan(|| IDENTITY, compose)
                .collect();
            assert!(got == inclusive, "inclusive, n {n}, {threads} threads");
            let got: Vec<Affine> = maps
                .par_iter()
                .copied()
                .exclusive_scan(|| IDENTITY, compose)
                .collect();
            assert!(got == exclusive, "exclusive, n {n}, {threads} threads");
            // Blocks of 64 from the base's grain.
            let got: Vec<Affine> = maps
                .par_iter()
                .copied()
                .deterministic()
                .with_grain(64)
                .inclusive_scan(|| IDENTITY, compose)
                .collect();
            assert!(got == inclusive, "grain 64, n {n}, {threads} threads");
        });
    }
}

#[test]
fn string_concatenation_scans_in_order() {
    for n in [0, 1, 5, 64, 300, 1001] {
        let words = common::random_words(n, 3);
        let inclusive = sequential_inclusive(&words, String::new(), |a, b| a + &b);
        let exclusive = sequential_exclusive(&words, String::new(), |a, b| a + &b);
        in_pools(|threads| {
            let got: Vec<String> = words
                .par_iter()
                .cloned()
                .inclusive_scan(String::new, |a, b| a + &b)
                .collect();
            assert_eq!(got, inclusive, "n {n}, {threads} threads");
            let got: Vec<String> = words
                .par_iter()
                .cloned()
                .exclusive_scan(String::new, |a, b| a + &b)
                .collect();
            assert_eq!(got, exclusive, "n {n}, {threads} threads");
        });
    }
}

#[test]
fn scans_read_once_when_the_base_cannot_be_read_twice() {
    // A `Vec` by value, and a `map` (whose closure must run once per item): both are
    // collected into a buffer first.
    for &n in &LENGTHS[..15] {
        let maps = random_maps(n, 2);
        let inclusive = sequential_inclusive(&maps, IDENTITY, compose);
        let exclusive = sequential_exclusive(&maps, IDENTITY, compose);
        in_pools(|threads| {
            let got: Vec<Affine> = maps
                .clone()
                .into_par_iter()
                .inclusive_scan(|| IDENTITY, compose)
                .collect();
            assert!(got == inclusive, "by value, n {n}, {threads} threads");
            // ORDERING: a counter read after the scan, which `join` orders after every add.
            let calls = AtomicUsize::new(0);
            let got: Vec<Affine> = maps
                .par_iter()
                .map(|&m| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    m
                })
                .exclusive_scan(|| IDENTITY, compose)
                .collect();
            assert!(got == exclusive, "after map, n {n}, {threads} threads");
            assert_eq!(calls.into_inner(), n, "map's closure runs once per item");
        });
    }
}

#[test]
fn scans_compose_with_other_adapters() {
    for &n in &LENGTHS[..15] {
        let values: Vec<u64> = common::random_u64s(n, 4).iter().map(|x| x % 1000).collect();
        let prefix = sequential_inclusive(&values, 0, |a, b| a + b);
        let before = sequential_exclusive(&values, 0, |a, b| a + b);
        in_pools(|threads| {
            let scan = || {
                values
                    .par_iter()
                    .copied()
                    .inclusive_scan(|| 0, |a, b| a + b)
            };
            // Reversed (pieces folded from the top down: their starts are read, not handed
            // on), skipped (pieces start inside blocks), zipped, enumerated, summed.
            let got: Vec<u64> = scan().rev().collect();
            assert!(got.iter().eq(prefix.iter().rev()), "rev, n {n}, {threads}");
            let got: Vec<u64> = scan().skip(n / 3).take(n / 2).collect();
            assert!(
                got[..] == prefix[n / 3..][..n / 2],
                "skip/take, n {n}, {threads}"
            );
            let got: Vec<(u64, u64)> = values
                .par_iter()
                .copied()
                .exclusive_scan(|| 0, |a, b| a + b)
                .zip(scan())
                .collect();
            let want: Vec<(u64, u64)> =
                before.iter().copied().zip(prefix.iter().copied()).collect();
            assert!(got == want, "zip, n {n}, {threads}");
            let got: Vec<(usize, u64)> = scan().enumerate().with_max_len(100).collect();
            assert!(
                got.iter().map(|p| p.1).eq(prefix.iter().copied()),
                "with_max_len, n {n}"
            );
            assert_eq!(
                scan().sum::<u64>(),
                prefix.iter().sum::<u64>(),
                "sum, n {n}"
            );
            // A scan of a scan: the second one reads the first one twice.
            let twice: Vec<u64> = scan().inclusive_scan(|| 0, |a, b| a + b).collect();
            let want = sequential_inclusive(&prefix, 0, |a, b| a + b);
            assert!(twice == want, "scan of a scan, n {n}, {threads}");
        });
    }
}

/// The documented formula, sequentially, for floats: block totals from `identity`, starts
/// combined in order, each block's results from its start.
fn block_formula(items: &[f32], block: usize, inclusive: bool) -> Vec<f32> {
    let mut out = Vec::with_capacity(items.len());
    let mut start = 0.0f32;
    for chunk in items.chunks(block) {
        let mut running = start;
        for &x in chunk {
            let next = running + x;
            out.push(if inclusive { next } else { running });
            running = next;
        }
        start += chunk.iter().fold(0.0f32, |total, &x| total + x);
    }
    out
}

#[test]
fn float_scans_are_bitwise_the_same_on_every_pool() {
    let n: usize = 300_001;
    let mut rng = rng(11);
    let values: Vec<f32> = (0..n)
        .map(|_| rng.random_range(0.5..1.0f32) * 2f32.powi(rng.random_range(-30..=30)))
        .collect();
    let block = n.div_ceil(256).clamp(1, 4096);
    let to_bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<u32>>();
    let inclusive = to_bits(block_formula(&values, block, true));
    let exclusive = to_bits(block_formula(&values, block, false));
    assert_ne!(
        inclusive,
        to_bits(sequential_inclusive(&values, 0.0, |a, b| a + b))
    );
    for threads in [1, 2, 3, 4, 8, 16] {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for run in 0..5 {
            let got: Vec<f32> = pool.install(|| {
                values
                    .par_iter()
                    .copied()
                    .inclusive_scan(|| 0.0, |a, b| a + b)
                    .collect()
            });
            assert!(
                to_bits(got) == inclusive,
                "inclusive, {threads} threads, run {run}"
            );
            let got: Vec<f32> = pool.install(|| {
                values
                    .par_iter()
                    .copied()
                    .exclusive_scan(|| 0.0, |a, b| a + b)
                    .collect()
            });
            assert!(
                to_bits(got) == exclusive,
                "exclusive, {threads} threads, run {run}"
            );
        }
    }
}

#[test]
fn in_place_scan_matches_a_sequential_scan() {
    for &n in &LENGTHS {
        let maps = random_maps(n, 5);
        let mut expected = maps.clone();
        for i in 1..n {
            expected[i] = compose(expected[i - 1], expected[i]);
        }
        in_pools(|threads| {
            let mut got = maps.clone();
            got.par_inclusive_scan_mut(compose);
            assert!(got == expected, "n {n}, {threads} threads");
        });
    }
    for n in [0, 1, 2, 300, 1001] {
        let words = common::random_words(n, 6);
        let expected = sequential_inclusive(&words, String::new(), |a, b| a + &b);
        in_pools(|threads| {
            let mut got = words.clone();
            got.par_inclusive_scan_mut(|a, b| a + &b);
            assert_eq!(got, expected, "n {n}, {threads} threads");
        });
    }
}

#[test]
fn in_place_float_scan_is_bitwise_the_same_on_every_pool() {
    let n = 200_003;
    let mut rng = rng(12);
    let values: Vec<f64> = (0..n)
        .map(|_| rng.random_range(-1.0..1.0f64) * 2f64.powi(rng.random_range(-40..=40)))
        .collect();
    let reference = {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let mut v = values.clone();
        pool.install(|| v.par_inclusive_scan_mut(|a, b| a + b));
        v.into_iter().map(f64::to_bits).collect::<Vec<u64>>()
    };
    for threads in [2, 3, 8] {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for _ in 0..5 {
            let mut v = values.clone();
            pool.install(|| v.par_inclusive_scan_mut(|a, b| a + b));
            assert!(
                v.into_iter()
                    .map(f64::to_bits)
                    .eq(reference.iter().copied()),
                "{threads} threads"
            );
        }
    }
}

/// Counts live values: made (new or cloned) minus dropped. (ORDERING: plain counters, read
/// after the scan's `join`s, whose latches order every update before the reads.)
static LIVE: AtomicUsize = AtomicUsize::new(0);
static MADE: AtomicUsize = AtomicUsize::new(0);

/// A value whose clones and drops are counted.
#[derive(Debug)]
struct Counted(u64);

impl Counted {
    fn new(value: u64) -> Self {
        LIVE.fetch_add(1, Ordering::Relaxed);
        MADE.fetch_add(1, Ordering::Relaxed);
        Counted(value)
    }
}

impl Clone for Counted {
    fn clone(&self) -> Self {
        Counted::new(self.0)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        let before = LIVE.fetch_sub(1, Ordering::Relaxed);
        assert!(before > 0, "a value was dropped twice");
    }
}

/// Adds, and panics once the running sum passes `limit`.
fn add_until(limit: u64) -> impl Fn(Counted, Counted) -> Counted + Sync + Send {
    move |a, b| {
        let sum = a.0 + b.0;
        if sum > limit {
            panic!("sum passed {limit}");
        }
        Counted::new(sum)
    }
}

#[test]
fn a_panic_in_op_propagates_and_every_value_is_dropped_once() {
    for n in [10, 1000, 100_003] {
        in_pools(|threads| {
            let items: Vec<Counted> = (0..n as u64).map(|_| Counted::new(1)).collect();
            let live_before = LIVE.load(Ordering::Relaxed);
            for limit in [n as u64 / 2, n as u64 - 1] {
                let by_ref = catch_unwind(AssertUnwindSafe(|| {
                    items
                        .par_iter()
                        .cloned()
                        .inclusive_scan(|| Counted::new(0), add_until(limit))
                        .collect::<Vec<Counted>>()
                }));
                assert!(by_ref.is_err(), "n {n}, {threads} threads");
                assert_eq!(
                    LIVE.load(Ordering::Relaxed),
                    live_before,
                    "leak, n {n}, {threads}"
                );
                let by_value = catch_unwind(AssertUnwindSafe(|| {
                    items
                        .clone()
                        .into_par_iter()
                        .exclusive_scan(|| Counted::new(0), add_until(limit))
                        .collect::<Vec<Counted>>()
                }));
                assert!(by_value.is_err());
                assert_eq!(
                    LIVE.load(Ordering::Relaxed),
                    live_before,
                    "leak by value, n {n}"
                );
                let mut in_place = items.clone();
                let caught = catch_unwind(AssertUnwindSafe(|| {
                    in_place.par_inclusive_scan_mut(add_until(limit));
                }));
                assert!(caught.is_err());
                drop(in_place);
                assert_eq!(
                    LIVE.load(Ordering::Relaxed),
                    live_before,
                    "leak in place, n {n}"
                );
            }
            // And a scan that does not panic leaves nothing behind either.
            let sums: Vec<Counted> = items
                .par_iter()
                .cloned()
                .inclusive_scan(|| Counted::new(0), add_until(u64::MAX))
                .collect();
            assert!(sums.iter().map(|c| c.0).eq(1..=n as u64));
            drop(sums);
            assert_eq!(LIVE.load(Ordering::Relaxed), live_before);
        });
    }
    assert!(MADE.load(Ordering::Relaxed) > 0);
}

/// What `op` may cost for `n` items whatever follows the scan (issue #54): about one call per
/// item for the results and one for the block totals, with room for the blocks a worker reads
/// again where its piece starts and for a few blocks read by two workers at once.
fn op_budget(n: usize) -> usize {
    5 * n / 2 + 64
}

/// Runs `chain` with `calls` at 0; fails if `op` ran more than [`op_budget`] times.
fn within_budget<R>(calls: &AtomicUsize, n: usize, what: &str, chain: impl FnOnce() -> R) -> R {
    // ORDERING: a counter, read after the chain's joins have ordered every add before it.
    calls.store(0, Ordering::Relaxed);
    let out = chain();
    let made = calls.load(Ordering::Relaxed);
    assert!(
        made <= op_budget(n),
        "{what}: op ran {made} times for {n} items (budget {})",
        op_budget(n)
    );
    out
}

/// Every chain after a scan: the values of std's sequential scan, and `op` called at most
/// [`op_budget`] times (a piece that starts inside a block must not fold the block again
/// from its start: `with_max_len(1)` over 10^5 items called `op` 19.7 million times).
fn scan_chains_do_linear_work<T>(items: &[T], identity: T, op: fn(T, T) -> T, threads: usize)
where
    T: Clone + Ord + Send + Sync + std::fmt::Debug,
{
    let n = items.len();
    let prefix = sequential_inclusive(items, identity.clone(), op);
    let before = sequential_exclusive(items, identity.clone(), op);
    let calls = AtomicUsize::new(0);
    let counted = |a: T, b: T| {
        // ORDERING: see `within_budget`.
        calls.fetch_add(1, Ordering::Relaxed);
        op(a, b)
    };
    let id = || identity.clone();
    let scan = || items.par_iter().cloned().inclusive_scan(id, counted);
    let exclusive = || items.par_iter().cloned().exclusive_scan(id, counted);
    let what = |chain: &str| format!("{chain}, n {n}, {threads} threads");
    let budget = |chain: &str| what(chain);

    let check = |chain: &str, got: Vec<T>, want: &[T]| {
        assert!(got == want, "{}: wrong values", what(chain));
    };
    let got = within_budget(&calls, n, &budget("collect"), || scan().collect());
    check("collect", got, &prefix);
    for max in [1, 7] {
        let chain = format!("with_max_len({max})");
        let got = within_budget(&calls, n, &budget(&chain), || {
            scan().with_max_len(max).collect()
        });
        check(&chain, got, &prefix);
        // Rayon's contract: no folder sees more than `max` items.
        let pieces: Vec<Vec<T>> = within_budget(&calls, n, &budget(&chain), || {
            scan()
                .with_max_len(max)
                .fold(Vec::new, |mut piece, x| {
                    piece.push(x);
                    piece
                })
                .collect()
        });
        assert!(
            pieces.iter().all(|piece| piece.len() <= max),
            "{}: a folder of more than {max} items",
            what(&chain)
        );
        check(&chain, pieces.concat(), &prefix);
    }
    let got = within_budget(&calls, n, &budget("with_min_len(1000)"), || {
        scan().with_min_len(1000).collect()
    });
    check("with_min_len(1000)", got, &prefix);
    let got: Vec<(T, usize)> =
        within_budget(&calls, n, &budget("zip"), || scan().zip(0..n).collect());
    assert!(
        got.iter().map(|p| &p.0).eq(&prefix) && got.iter().map(|p| p.1).eq(0..n),
        "{}",
        what("zip")
    );
    let got = within_budget(&calls, n, &budget("step_by(3)"), || {
        scan().step_by(3).collect()
    });
    let want: Vec<T> = prefix.iter().step_by(3).cloned().collect();
    check("step_by(3)", got, &want);
    let reversed: Vec<T> = prefix.iter().rev().cloned().collect();
    let got = within_budget(&calls, n, &budget("rev"), || scan().rev().collect());
    check("rev", got, &reversed);
    let got = within_budget(&calls, n, &budget("rev, with_max_len(1)"), || {
        scan().rev().with_max_len(1).collect()
    });
    check("rev, with_max_len(1)", got, &reversed);
    let got = within_budget(&calls, n, &budget("skip(n / 3)"), || {
        scan().skip(n / 3).collect()
    });
    check("skip(n / 3)", got, &prefix[n / 3..]);
    let got = within_budget(&calls, n, &budget("skip, with_max_len(1)"), || {
        scan().skip(n / 3).with_max_len(1).collect()
    });
    check("skip, with_max_len(1)", got, &prefix[n / 3..]);
    let got = within_budget(&calls, n, &budget("take(n / 2)"), || {
        scan().take(n / 2).collect()
    });
    check("take(n / 2)", got, &prefix[..n / 2]);
    let got: Vec<(usize, T)> = within_budget(&calls, n, &budget("enumerate"), || {
        scan().enumerate().collect()
    });
    assert!(
        got.iter().map(|p| p.0).eq(0..n) && got.iter().map(|p| &p.1).eq(&prefix),
        "{}",
        what("enumerate")
    );
    // Consumers other than collect: a reduction (with the uncounted `op`), a search through
    // every item, a `for_each`.
    let got = within_budget(&calls, n, &budget("reduce"), || scan().reduce(id, op));
    let want = prefix.iter().cloned().fold(identity.clone(), op);
    assert!(got == want, "{}", what("reduce"));
    if let Some(last) = prefix.last() {
        let got = within_budget(&calls, n, &budget("find_first"), || {
            scan().find_first(|x| x == last)
        });
        assert!(
            got.as_ref() == prefix.iter().find(|&x| x == last),
            "{}",
            what("find_first")
        );
    }
    let seen = std::sync::Mutex::new(Vec::with_capacity(n));
    within_budget(&calls, n, &budget("for_each"), || {
        scan().for_each(|x| seen.lock().unwrap().push(x))
    });
    let mut seen = seen.into_inner().unwrap();
    let mut want = prefix.clone();
    seen.sort();
    want.sort();
    assert!(seen == want, "{}", what("for_each"));
    // Exclusive scans, and the in-place scan.
    let got = within_budget(&calls, n, &budget("exclusive"), || exclusive().collect());
    check("exclusive", got, &before);
    let got = within_budget(&calls, n, &budget("exclusive, with_max_len(1)"), || {
        exclusive().with_max_len(1).collect()
    });
    check("exclusive, with_max_len(1)", got, &before);
    let got = within_budget(&calls, n, &budget("exclusive, rev"), || {
        exclusive().rev().collect()
    });
    let want: Vec<T> = before.iter().rev().cloned().collect();
    check("exclusive, rev", got, &want);
    let mut in_place = items.to_vec();
    within_budget(&calls, n, &budget("par_inclusive_scan_mut"), || {
        in_place.par_inclusive_scan_mut(counted)
    });
    check("par_inclusive_scan_mut", in_place, &prefix);
}

/// Pieces that start above blocks nobody has read yet (a `rev` over blocks of 4 items) read
/// the blocks below them for their totals side by side: they must share those blocks, not
/// each read them all. Before readers claimed the blocks they read, a `rev` of 1000 items
/// went over the budget in about one run in three of the test below; here 20 rounds each.
#[test]
fn readers_going_down_together_share_the_blocks() {
    let n = 1_000;
    let values = common::random_u64s(n, 9);
    let reversed: Vec<u64> = sequential_inclusive(&values, 0, u64::wrapping_add)
        .into_iter()
        .rev()
        .collect();
    let calls = AtomicUsize::new(0);
    let counted = |a: u64, b: u64| {
        // ORDERING: see `within_budget`.
        calls.fetch_add(1, Ordering::Relaxed);
        a.wrapping_add(b)
    };
    in_pools(|threads| {
        for round in 0..20 {
            let what = format!("rev, round {round}, {threads} threads");
            let got: Vec<u64> = within_budget(&calls, n, &what, || {
                values
                    .par_iter()
                    .copied()
                    .inclusive_scan(|| 0, counted)
                    .rev()
                    .collect()
            });
            assert!(got == reversed, "{what}: wrong values");
        }
    });
}

#[test]
fn scan_chains_call_op_a_bounded_number_of_times_per_item() {
    for n in [1_000, 65_537, 100_000] {
        let values = common::random_u64s(n, 7);
        let maps = random_maps(n, 8);
        in_pools(|threads| {
            scan_chains_do_linear_work(&values, 0, u64::wrapping_add, threads);
            scan_chains_do_linear_work(&maps, IDENTITY, compose, threads);
        });
    }
}
