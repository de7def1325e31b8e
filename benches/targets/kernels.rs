// The parallel side of every row of `benches/targets.rs`, written once against `par`.
//
// This file is `include!`d twice: into `mod weft_side` (where `par` is weft) and into
// `mod rayon_side` (where `par` is Rayon), so both libraries run exactly the same source.

use par::prelude::*;

/// The key of the `max_by_key` rows: cheap, and not monotonic in the item.
pub(crate) fn key(x: u64) -> u64 {
    x ^ 0x5555_5555
}

pub(crate) fn max_u64(v: &[u64]) -> u64 {
    v.par_iter().copied().max().unwrap()
}

pub(crate) fn min_u64(v: &[u64]) -> u64 {
    v.par_iter().copied().min().unwrap()
}

pub(crate) fn max_by_key_u64(v: &[u64]) -> u64 {
    *v.par_iter().max_by_key(|&&x| key(x)).unwrap()
}

pub(crate) fn min_by_u64(v: &[u64]) -> u64 {
    v.par_iter().copied().min_by(|a, b| a.cmp(b)).unwrap()
}

pub(crate) fn reduce_max_u64(v: &[u64]) -> u64 {
    v.par_iter().copied().reduce(|| 0, u64::max)
}

pub(crate) fn fold_max_u64(v: &[u64]) -> u64 {
    v.par_iter()
        .fold(|| 0, |acc: u64, &x| acc.max(x))
        .reduce(|| 0, u64::max)
}

pub(crate) fn max_by_f64(f: &[f64]) -> f64 {
    f.par_iter().copied().max_by(|a, b| a.total_cmp(b)).unwrap()
}

pub(crate) fn min_by_partial_f64(f: &[f64]) -> f64 {
    f.par_iter()
        .copied()
        .min_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap()
}

pub(crate) fn reduce_max_f64(f: &[f64]) -> f64 {
    f.par_iter().copied().reduce(|| f64::NEG_INFINITY, f64::max)
}

pub(crate) fn reduce_with_min_f64(f: &[f64]) -> f64 {
    f.par_iter().copied().reduce_with(f64::min).unwrap()
}

/// The histogram of the heap-accumulator row: 256 buckets in a `Vec` per fold.
pub(crate) fn histogram(v: &[u64]) -> Vec<u64> {
    v.par_iter()
        .fold(
            || vec![0u64; 256],
            |mut h, &x| {
                h[(x % 256) as usize] += 1;
                h
            },
        )
        .reduce(
            || vec![0u64; 256],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    *x += y;
                }
                a
            },
        )
}

pub(crate) fn map_collect(n: usize) -> Vec<u64> {
    (0..n).into_par_iter().map(crate::scramble).collect()
}

pub(crate) fn filter_collect(n: usize) -> Vec<u64> {
    (0..n)
        .into_par_iter()
        .map(crate::scramble)
        .filter(|&x| crate::keep_most(x))
        .collect()
}

pub(crate) fn stable_sort(v: &mut [u64]) {
    v.par_sort();
}

/// The nested loops: a parallel loop over chunks of `chunk` items, each summed by an inner
/// parallel loop.
pub(crate) fn nested(v: &[u64], chunk: usize) -> u64 {
    v.par_chunks(chunk)
        .map(|c| c.par_iter().map(|&x| crate::cheap(x)).sum::<u64>())
        .sum()
}

pub(crate) fn lines_sum(text: &str) -> u64 {
    text.par_lines().map(crate::line_value).sum()
}

pub(crate) fn bridge_sum(v: &[u64]) -> u64 {
    v.iter().par_bridge().map(|&x| crate::fine(x)).sum()
}

/// `par_bridge` over a slow source: `next()` sleeps `pull` (a record from a socket), and each
/// item sleeps `work`.
pub(crate) fn bridge_slow(items: u64, pull: std::time::Duration, work: std::time::Duration) -> u64 {
    (0..items)
        .inspect(move |_| std::thread::sleep(pull))
        .par_bridge()
        .inspect(move |_| std::thread::sleep(work))
        .sum()
}

pub(crate) fn tree_sum(node: &crate::Node) -> u64 {
    let side = |child: &Option<Box<crate::Node>>| child.as_deref().map_or(0, tree_sum);
    let (left, right) = par::join(|| side(&node.left), || side(&node.right));
    node.val + left + right
}
