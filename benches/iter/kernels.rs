// The parallel side of every benchmark in `benches/iter.rs`, written once against `par`.
//
// This file is `include!`d twice: into `mod weft_side` (where `par` is weft) and into
// `mod rayon_side` (where `par` is Rayon), so both contenders run exactly the same source.
// The per-item work lives in `crate::work`, shared with the sequential baselines.

use crate::work;
use par::prelude::*;
use std::hint::black_box;

/// A pool of `threads` workers of this side's implementation.
pub(crate) fn pool(threads: usize) -> par::ThreadPool {
    par::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("cannot build the benchmark pool")
}

/// (a) `sum` over `0..n` with a cheap map.
pub(crate) fn sum_cheap_map(n: u64) -> u64 {
    (0..n).into_par_iter().map(work::cheap).sum()
}

/// (b) map + collect into a reused, already faulted-in buffer.
pub(crate) fn map_collect_into(n: usize, out: &mut Vec<u64>) {
    (0..n)
        .into_par_iter()
        .map(work::scramble)
        .collect_into_vec(out);
}

/// (b') map + collect into a fresh `Vec` (allocation and page faults included).
pub(crate) fn map_collect_fresh(n: usize) -> Vec<u64> {
    (0..n).into_par_iter().map(work::scramble).collect()
}

/// (b'') map + filter + collect into a fresh `Vec`: the unindexed collect (per-worker pieces,
/// then one buffer), 7/8 of the items kept.
pub(crate) fn filter_collect_fresh(n: usize) -> Vec<u64> {
    (0..n)
        .into_par_iter()
        .map(work::scramble)
        .filter(|&x| work::keep_most(x))
        .collect()
}

/// (c) sum of a slice (memory-bound).
pub(crate) fn sum_slice(data: &[u64]) -> u64 {
    data.par_iter().sum()
}

/// (d) filter + count.
pub(crate) fn filter_count(data: &[u64]) -> usize {
    data.par_iter().filter(|&&x| work::keep(x)).count()
}

/// (h) a mapped range zipped with a slice, then summed (`zip` and `map` leaves).
pub(crate) fn zip_map_sum(data: &[u64]) -> u64 {
    (0..data.len())
        .into_par_iter()
        .map(|i| work::cheap(i as u64))
        .zip(data.par_iter())
        .map(|(a, &b)| a ^ b)
        .sum()
}

/// (e) Mandelbrot by rows: row cost varies a lot (unbalanced).
pub(crate) fn mandelbrot(image: &mut [u8], width: usize) {
    let height = image.len() / width;
    image
        .par_chunks_mut(width)
        .enumerate()
        .for_each(|(y, row)| work::mandelbrot_row(y, height, row));
}

/// (f) triangular loop: item `i` costs O(i).
pub(crate) fn triangular(n: usize) -> u64 {
    (0..n).into_par_iter().map(work::triangle_item).sum()
}

/// (g) fine-grained loop: a few nanoseconds per item.
pub(crate) fn fine_grained(n: u64) -> u64 {
    (0..n)
        .into_par_iter()
        .map(|i| work::fine(black_box(i)))
        .sum()
}

/// (i) nested loops: the slice in chunks of `k`, each summed by a parallel loop of its own
/// (issue #21's nested rows: `k` = 16 and 256 over 5·10^7 items).
pub(crate) fn nested_chunks_sum(data: &[u64], k: usize) -> u64 {
    data.par_chunks(k)
        .map(|c| c.par_iter().map(|&x| work::cheap(x)).sum::<u64>())
        .sum()
}
