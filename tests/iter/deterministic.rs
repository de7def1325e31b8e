//! `deterministic()` (issues #23, #54): every reduction gives bitwise the same result on pools
//! of 1, 2, 3, 4, 8 and 16 threads, 20 runs each, and that result is the one of the documented
//! tree (leaves of `grain` items from the first, a node's leaves split in halves rounded up
//! on the left, each leaf folded in order, results combined left before right), computed here
//! sequentially. As a control, the plain `sum` is shown to depend on where the work is cut:
//! a steal forced by making the first item wait for a later one changes its bits, and
//! leaves `deterministic()`'s unchanged.

use crate::common;

use std::cmp::Ordering;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::rng;
use rand::Rng;
use weft::prelude::*;

const N: usize = 1_000_000;
const RUNS: usize = 20;
const THREADS: [usize; 6] = [1, 2, 3, 4, 8, 16];

/// The pools of [`THREADS`] threads, built once.
fn pools() -> &'static [(usize, weft::ThreadPool)] {
    static POOLS: OnceLock<Vec<(usize, weft::ThreadPool)>> = OnceLock::new();
    POOLS.get_or_init(|| {
        THREADS
            .iter()
            .map(|&threads| {
                let pool = weft::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                (threads, pool)
            })
            .collect()
    })
}

/// `N` floats over 2^-40 .. 2^40 in magnitude, both signs: every change in the order of the
/// additions shows in the bits of a sum.
fn wide_floats() -> &'static [f32] {
    static VALUES: OnceLock<Vec<f32>> = OnceLock::new();
    VALUES.get_or_init(|| {
        let mut rng = rng(23);
        (0..N)
            .map(|_| {
                let mantissa: f32 = rng.random_range(0.5..1.0);
                let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
                sign * mantissa * 2f32.powi(rng.random_range(-40..=40))
            })
            .collect()
    })
}

/// The default leaf length of the fixed tree, as documented: `len / 256` rounded up, in
/// `1..=4096`.
fn default_leaf(len: usize) -> usize {
    len.div_ceil(256).clamp(1, 4096)
}

/// The documented tree over `items`, sequentially: `leaf_op` on every leaf, `combine` on
/// every node, left result first.
fn tree<T, R>(
    items: &[T],
    leaf: usize,
    leaf_op: &impl Fn(&[T]) -> R,
    combine: &impl Fn(R, R) -> R,
) -> R {
    if items.len() <= leaf {
        return leaf_op(items);
    }
    let leaves = items.len().div_ceil(leaf);
    let mid = (leaves - leaves / 2) * leaf;
    let left = tree(&items[..mid], leaf, leaf_op, combine);
    let right = tree(&items[mid..], leaf, leaf_op, combine);
    combine(left, right)
}

/// The tree sum of `items` with the default leaf, as `deterministic().sum()` adds.
fn tree_sum(items: &[f32]) -> f32 {
    tree(
        items,
        default_leaf(items.len()),
        &|leaf| leaf.iter().sum::<f32>(),
        &|a, b| a + b,
    )
}

/// Runs `reduction` `RUNS` times in every pool and checks that every result has the bits of
/// `expected` (`bits` maps a result to what must be equal).
fn same_everywhere<R, B>(
    name: &str,
    expected: R,
    reduction: impl Fn() -> R + Sync,
    bits: impl Fn(&R) -> B,
) where
    R: Send,
    B: PartialEq + std::fmt::Debug,
{
    let want = bits(&expected);
    for (threads, pool) in pools() {
        for run in 0..RUNS {
            let got = pool.install(&reduction);
            assert_eq!(bits(&got), want, "{name}: {threads} threads, run {run}");
        }
    }
}

#[test]
fn float_sum_is_bitwise_the_same_on_every_pool() {
    let v = wide_floats();
    let mapped: Vec<f32> = v.iter().map(|a| a * 1.0001).collect();
    let expected = tree_sum(&mapped);
    // The tree is not the sequential order: the check below would pass trivially otherwise.
    assert_ne!(expected.to_bits(), mapped.iter().sum::<f32>().to_bits());
    same_everywhere(
        "map + sum",
        expected,
        || {
            v.par_iter()
                .deterministic()
                .map(|a| a * 1.0001)
                .sum::<f32>()
        },
        |x| x.to_bits(),
    );
    same_everywhere(
        "sum of refs",
        tree_sum(v),
        || v.par_iter().deterministic().sum::<f32>(),
        |x| x.to_bits(),
    );
}

#[test]
fn float_product_is_bitwise_the_same_on_every_pool() {
    // Factors near 1, so that the product of a million of them stays finite.
    let mut rng = rng(5);
    let v: Vec<f32> = (0..N).map(|_| rng.random_range(0.999..1.001f32)).collect();
    let expected = tree(
        &v,
        default_leaf(v.len()),
        &|leaf| leaf.iter().product::<f32>(),
        &|a, b| a * b,
    );
    assert!(expected.is_finite() && expected != 0.0);
    same_everywhere(
        "product",
        expected,
        || v.par_iter().deterministic().product::<f32>(),
        |x| x.to_bits(),
    );
}

#[test]
fn reduce_and_fold_are_bitwise_the_same_on_every_pool() {
    let v = wide_floats();
    let leaf = default_leaf(v.len());
    let add = |a: f32, b: f32| a + b;
    let folded = |leaf: &[f32]| leaf.iter().fold(0.0f32, |a, &b| a + b);
    let expected = tree(v, leaf, &folded, &add);
    same_everywhere(
        "reduce",
        expected,
        || v.par_iter().copied().deterministic().reduce(|| 0.0, add),
        |x| x.to_bits(),
    );
    let expected_with = tree(
        v,
        leaf,
        &|leaf: &[f32]| leaf.iter().copied().reduce(add),
        &|a, b| match (a, b) {
            (Some(a), Some(b)) => Some(a + b),
            (a, None) => a,
            (None, b) => b,
        },
    );
    same_everywhere(
        "reduce_with",
        expected_with,
        || v.par_iter().copied().deterministic().reduce_with(add),
        |x| x.map(f32::to_bits),
    );
    // One accumulator per leaf, whatever the pool: fold + reduce, fold + sum, fold + collect.
    same_everywhere(
        "fold + reduce",
        expected,
        || {
            v.par_iter()
                .deterministic()
                .fold(|| 0.0f32, |a, &b| a + b)
                .reduce(|| 0.0, add)
        },
        |x| x.to_bits(),
    );
    same_everywhere(
        "fold + sum",
        expected,
        || {
            v.par_iter()
                .deterministic()
                .fold(|| 0.0f32, |a, &b| a + b)
                .sum::<f32>()
        },
        |x| x.to_bits(),
    );
    let per_leaf: Vec<u32> = v.chunks(leaf).map(|c| folded(c).to_bits()).collect();
    same_everywhere(
        "fold + collect",
        per_leaf,
        || {
            v.par_iter()
                .deterministic()
                .fold(|| 0.0f32, |a, &b| a + b)
                .map(f32::to_bits)
                .collect::<Vec<u32>>()
        },
        Vec::clone,
    );
}

#[test]
fn sums_after_adapters_are_bitwise_the_same_on_every_pool() {
    let v = wide_floats();
    let leaf = default_leaf(v.len());
    let weights: Vec<f32> = (0..N).map(|i| 1.0 + (i % 13) as f32 * 0.125).collect();

    // filter: the leaves are cut over the items before the filter.
    let kept = |x: f32| x.to_bits() % 3 != 0;
    let expected = tree(
        v,
        leaf,
        &|leaf| leaf.iter().copied().filter(|&x| kept(x)).sum::<f32>(),
        &|a, b| a + b,
    );
    same_everywhere(
        "filter + sum",
        expected,
        || {
            v.par_iter()
                .copied()
                .deterministic()
                .filter(|&x| kept(x))
                .sum::<f32>()
        },
        |x| x.to_bits(),
    );

    // zip with an iterator that is not deterministic itself: the pair is.
    let products: Vec<f32> = v.iter().zip(&weights).map(|(a, w)| a * w).collect();
    same_everywhere(
        "zip + map + sum",
        tree_sum(&products),
        || {
            v.par_iter()
                .deterministic()
                .zip(&weights)
                .map(|(a, w)| a * w)
                .sum::<f32>()
        },
        |x| x.to_bits(),
    );
    same_everywhere(
        "zip (the plain iterator on the left) + sum",
        tree_sum(&products),
        || {
            weights
                .par_iter()
                .deterministic()
                .zip(v)
                .map(|(w, a)| a * w)
                .sum::<f32>()
        },
        |x| x.to_bits(),
    );

    // enumerate: an index-dependent map.
    let scaled: Vec<f32> = v
        .iter()
        .enumerate()
        .map(|(i, a)| a * (1 + i % 5) as f32)
        .collect();
    same_everywhere(
        "enumerate + map + sum",
        tree_sum(&scaled),
        || {
            v.par_iter()
                .deterministic()
                .enumerate()
                .map(|(i, a)| a * (1 + i % 5) as f32)
                .sum::<f32>()
        },
        |x| x.to_bits(),
    );

    // An explicit grain.
    let expected = tree(v, 1000, &|leaf| leaf.iter().sum::<f32>(), &|a, b| a + b);
    same_everywhere(
        "with_grain(1000) + sum",
        expected,
        || v.par_iter().deterministic().with_grain(1000).sum::<f32>(),
        |x| x.to_bits(),
    );
}

#[test]
fn short_nested_loops_inherit_the_fixed_tree() {
    // Rows of 200: short enough that an inner loop would be folded inline (whole, in order)
    // anywhere but in a fixed tree's leaf, where it must be cut as the tree says.
    let v = &wide_floats()[..200 * 500];
    let rows: Vec<&[f32]> = v.chunks(200).collect();
    let row_sums: Vec<f32> = rows.iter().map(|row| tree_sum(row)).collect();
    assert_ne!(
        row_sums.iter().map(|s| s.to_bits()).collect::<Vec<_>>(),
        rows.iter()
            .map(|row| row.iter().sum::<f32>().to_bits())
            .collect::<Vec<_>>(),
        "the inputs must tell a fixed tree from an in-order fold"
    );
    same_everywhere(
        "sum of short inner sums",
        tree_sum(&row_sums),
        || {
            rows.par_iter()
                .deterministic()
                .map(|row| row.par_iter().sum::<f32>())
                .sum::<f32>()
        },
        |x| x.to_bits(),
    );
}

#[test]
fn nested_loops_inherit_the_fixed_tree() {
    // 1000 rows of 1000: the outer loop is deterministic, the inner sums and `flat_map`'s
    // inner iterators are plain `par_iter()`s driven inside its leaves.
    let v = wide_floats();
    let rows: Vec<&[f32]> = v.chunks(1000).collect();
    let row_sums: Vec<f32> = rows.iter().map(|row| tree_sum(row)).collect();
    same_everywhere(
        "sum of inner sums",
        tree_sum(&row_sums),
        || {
            rows.par_iter()
                .deterministic()
                .map(|row| row.par_iter().sum::<f32>())
                .sum::<f32>()
        },
        |x| x.to_bits(),
    );
    let expected = tree(
        &rows,
        default_leaf(rows.len()),
        &|leaf| leaf.iter().map(|row| tree_sum(row)).sum::<f32>(),
        &|a, b| a + b,
    );
    same_everywhere(
        "flat_map + sum",
        expected,
        || {
            rows.par_iter()
                .deterministic()
                .flat_map(|row| row.par_iter())
                .sum::<f32>()
        },
        |x| x.to_bits(),
    );
}

/// The smaller by `compare`, the earlier if equal; the larger, the later if equal: what
/// `min_by` and `max_by` keep.
fn first_min<T>(a: T, b: T, compare: impl Fn(&T, &T) -> Ordering) -> T {
    if compare(&a, &b) == Ordering::Greater {
        b
    } else {
        a
    }
}

fn last_max<T>(a: T, b: T, compare: impl Fn(&T, &T) -> Ordering) -> T {
    if compare(&a, &b) == Ordering::Greater {
        a
    } else {
        b
    }
}

#[test]
fn min_and_max_with_ties_pick_the_same_element_on_every_pool() {
    // Keys with many ties; the index tells which of equal elements came back.
    let mut rng = rng(7);
    let keyed: Vec<(u8, usize)> = (0..N).map(|i| (rng.random_range(0..50u8), i)).collect();
    let by_key = |a: &(u8, usize), b: &(u8, usize)| a.0.cmp(&b.0);
    let first = *keyed.iter().min_by(|a, b| by_key(a, b)).unwrap();
    let last = *keyed.iter().max_by(|a, b| by_key(a, b)).unwrap();
    same_everywhere(
        "min_by",
        Some(first),
        || keyed.par_iter().copied().deterministic().min_by(by_key),
        |x| *x,
    );
    same_everywhere(
        "max_by",
        Some(last),
        || keyed.par_iter().copied().deterministic().max_by(by_key),
        |x| *x,
    );
    same_everywhere(
        "min_by_key",
        Some(first),
        || {
            keyed
                .par_iter()
                .copied()
                .deterministic()
                .min_by_key(|p| p.0)
        },
        |x| *x,
    );
    same_everywhere(
        "max_by_key",
        Some(last),
        || {
            keyed
                .par_iter()
                .copied()
                .deterministic()
                .max_by_key(|p| p.0)
        },
        |x| *x,
    );

    // A comparison that is not a total order (NaN compares equal to everything): the answer
    // depends on the grouping, which the fixed tree fixes.
    // A NaN starts every leaf but the first: a leaf that starts with one keeps it.
    let leaf = default_leaf(N);
    let v: Vec<f32> = wide_floats()
        .iter()
        .enumerate()
        .map(|(i, &x)| if i % leaf == 0 && i > 0 { f32::NAN } else { x })
        .collect();
    fn loose(a: &f32, b: &f32) -> Ordering {
        a.partial_cmp(b).unwrap_or(Ordering::Equal)
    }
    let option_op = |op: fn(f32, f32) -> f32| {
        move |a: Option<f32>, b: Option<f32>| match (a, b) {
            (Some(a), Some(b)) => Some(op(a, b)),
            (a, None) => a,
            (None, b) => b,
        }
    };
    let min_op: fn(f32, f32) -> f32 = |a, b| first_min(a, b, loose);
    let max_op: fn(f32, f32) -> f32 = |a, b| last_max(a, b, loose);
    let expected_min = tree(
        &v,
        leaf,
        &|leaf| leaf.iter().copied().reduce(min_op),
        &option_op(min_op),
    );
    let expected_max = tree(
        &v,
        leaf,
        &|leaf| leaf.iter().copied().reduce(max_op),
        &option_op(max_op),
    );
    // Sensitive to the grouping: the sequential fold gives another answer.
    let sequential_min = v.iter().copied().reduce(min_op);
    assert_ne!(
        expected_min.map(f32::to_bits),
        sequential_min.map(f32::to_bits)
    );
    same_everywhere(
        "min_by, NaN as equal",
        expected_min,
        || v.par_iter().copied().deterministic().min_by(loose),
        |x| x.map(f32::to_bits),
    );
    same_everywhere(
        "max_by, NaN as equal",
        expected_max,
        || v.par_iter().copied().deterministic().max_by(loose),
        |x| x.map(f32::to_bits),
    );
}

/// The control. `2^25` then ones, in `f32`: added in order, every one is lost (a one is
/// below half an ulp of `2^25`); added in any other grouping, some survive. On a 2-thread
/// pool an item near the start waits until an item of the upper half has been mapped, which
/// only another worker can do, so the work is always cut there.
#[test]
fn plain_sum_depends_on_where_work_is_cut_and_deterministic_does_not() {
    const LEN: usize = 100_000;
    let big = 2f32.powi(25);
    let v: Vec<f32> = (0..LEN).map(|i| if i == 0 { big } else { 1.0 }).collect();
    let sequential: f32 = v.iter().sum();
    assert_eq!(sequential, big);

    let one = weft::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let two = weft::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    // On one thread, nothing cuts the plain sum: it is the sequential one.
    assert_eq!(
        one.install(|| v.par_iter().sum::<f32>()).to_bits(),
        sequential.to_bits()
    );
    let expected = tree_sum(&v);
    assert_ne!(expected, sequential);
    assert_eq!(
        one.install(|| v.par_iter().deterministic().sum::<f32>())
            .to_bits(),
        expected.to_bits()
    );

    // Item 64 waits (up to a second) until some worker has folded an item of the upper half:
    // then a thief took that half while the owner was still near the start, which cuts the
    // plain sum. Item 0 takes a millisecond, so that a driver which times its first claim
    // (a few items) before sharing sees slow items and shares the rest at once; item
    // 64 is the first item after any such claim. The owner offers its steal-me to a worker
    // that is idle; on a loaded machine the other worker may not be idle yet, and the
    // owner, waiting inside item 64, would not look at the pool again: such a run is not
    // counted, and the loop is run again until three runs of each kind had a thief.
    // ORDERING: the flags carry no data; Release/Acquire only so that the wait is not
    // reordered around the store, Relaxed for the resets between runs (no thread is running).
    let upper_seen = AtomicBool::new(false);
    let thief_came = AtomicBool::new(false);
    let wait_for_a_thief = |i: usize, x: f32| {
        if i >= LEN / 2 {
            upper_seen.store(true, AtomicOrdering::Release);
        } else if i == 0 {
            std::thread::sleep(Duration::from_millis(1));
        } else if i == 64 {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(1) {
                if upper_seen.load(AtomicOrdering::Acquire) {
                    thief_came.store(true, AtomicOrdering::Relaxed);
                    break;
                }
                std::thread::yield_now();
            }
        }
        x
    };
    let run = |deterministic: bool| -> Option<f32> {
        upper_seen.store(false, AtomicOrdering::Relaxed);
        thief_came.store(false, AtomicOrdering::Relaxed);
        let before = two.stats();
        let sum = two.install(|| {
            if deterministic {
                v.par_iter()
                    .deterministic()
                    .enumerate()
                    .map(|(i, &x)| wait_for_a_thief(i, x))
                    .sum::<f32>()
            } else {
                v.par_iter()
                    .enumerate()
                    .map(|(i, &x)| wait_for_a_thief(i, x))
                    .sum::<f32>()
            }
        });
        if !thief_came.load(AtomicOrdering::Relaxed) {
            return None;
        }
        assert!((two.stats() - before).jobs_stolen >= 1, "stealing balances");
        Some(sum)
    };
    let (mut plain_runs, mut fixed_runs) = (0, 0);
    for _ in 0..60 {
        if plain_runs < 3 {
            if let Some(plain) = run(false) {
                assert_ne!(
                    plain.to_bits(),
                    sequential.to_bits(),
                    "the plain sum, cut by a steal"
                );
                plain_runs += 1;
            }
        }
        if fixed_runs < 3 {
            if let Some(fixed) = run(true) {
                assert_eq!(fixed.to_bits(), expected.to_bits());
                fixed_runs += 1;
            }
        }
    }
    assert_eq!(
        (plain_runs, fixed_runs),
        (3, 3),
        "runs in which a thief took the upper half"
    );
}

#[test]
#[should_panic(expected = "the grain (items per leaf) must be at least 1")]
fn zero_grain_panics_clearly() {
    let _ = (0..10).into_par_iter().deterministic().with_grain(0);
}

#[test]
fn deterministic_keeps_items_and_order() {
    // Not a reduction: the same items in the same order, through producer-side adapters.
    let v: Vec<u32> = (0..10_007).collect();
    for (threads, pool) in pools() {
        pool.install(|| {
            let got: Vec<u32> = v
                .par_iter()
                .copied()
                .deterministic()
                .rev()
                .skip(3)
                .step_by(2)
                .collect();
            let want: Vec<u32> = v.iter().copied().rev().skip(3).step_by(2).collect();
            assert_eq!(got, want, "{threads} threads");
            let chunks: Vec<u32> = v
                .par_iter()
                .deterministic()
                .chunks(7)
                .map(|c| c.into_iter().sum())
                .collect();
            let want: Vec<u32> = v.chunks(7).map(|c| c.iter().sum()).collect();
            assert_eq!(chunks, want, "{threads} threads");
        });
    }
}

/// Issue #54: `chain` after `deterministic()` with an iterator that is not deterministic
/// itself. The chain is one indexed sequence, so its sum is the documented tree over the
/// concatenation, on every pool. (`Chain::drive_unindexed` used to fork its two sides and
/// drive the plain one wherever thieves cut it.)
#[test]
fn chain_with_a_plain_iterator_is_one_fixed_tree() {
    let (v, w) = wide_floats().split_at(300_000);
    let w = &w[..200_000];
    let both: Vec<f32> = v.iter().chain(w).copied().collect();
    same_everywhere(
        "chain + sum",
        tree_sum(&both),
        || {
            v.par_iter()
                .deterministic()
                .chain(w.par_iter())
                .sum::<f32>()
        },
        |x| x.to_bits(),
    );
}

/// The sum of `items` as `by_exponential_blocks().sum()` computes it inside a fixed tree's
/// leaf: blocks of 4, 8, 16, ... items from the first (as on a pool of one thread), the rest
/// in the last block, each block the documented tree for its length, the block sums added
/// left to right.
fn exponential_blocks_sum(items: &[f32]) -> f32 {
    let (mut rest, mut block) = (items, 4);
    let mut done: Option<f32> = None;
    while rest.len() > block {
        let (head, tail) = rest.split_at(block);
        let sum = tree_sum(head);
        done = Some(done.map_or(sum, |before| before + sum));
        (rest, block) = (tail, block * 2);
    }
    let last = tree_sum(rest);
    done.map_or(last, |before| before + last)
}

/// Issue #54: a loop nested in a fixed tree's leaf takes a fixed tree; an exponential-blocks
/// loop nested there took its blocks from the pool's size.
#[test]
fn nested_exponential_blocks_do_not_depend_on_the_pool() {
    let v = &wide_floats()[..1000 * 300];
    let rows: Vec<&[f32]> = v.chunks(1000).collect();
    let row_sums: Vec<f32> = rows.iter().map(|row| exponential_blocks_sum(row)).collect();
    same_everywhere(
        "sum of inner exponential-blocks sums",
        tree_sum(&row_sums),
        || {
            rows.par_iter()
                .deterministic()
                .map(|row| row.par_iter().by_exponential_blocks().sum::<f32>())
                .sum::<f32>()
        },
        |x| x.to_bits(),
    );
}

// Issue #54 also had `deterministic().by_exponential_blocks()` (its first block was
// `4 * worker_count()`) and `deterministic().filter(..).intersperse(..)` (the gathered items
// were driven again outside the tree) give other bits on other pools: both failed here before
// the fix (commit f8b0075). They no longer compile (`Deterministic` offers neither), which the
// `compile_fail` examples on `Deterministic` check.
