//! The owner's amortized cost: one thread drains a 10^8-index range chunk by chunk, through
//! `StealRange` alone and through `Handoff` (chunk claim plus producer split), against the
//! plain sequential loop doing the same per-item work. Nobody steals, so the gap is the
//! owner's bookkeeping: one `fetch_add` (plus one uncontended lock for `Handoff`) per chunk.
//! `owner_bookkeeping_1e8` times that bookkeeping alone (all claims, no items), which is
//! easier to read on a noisy machine than the small difference between two long loops.
//!
//! `StealRange` is crate-private: this bench reaches it through `weft::bench_internals`
//! (`cargo bench --features bench-internals --bench steal_range`).
#![allow(missing_docs)] // `criterion_group!` makes an undocumented `pub fn`

use core::ops::Range;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use weft::bench_internals::{fold_handoff_chunks, fold_steal_range_chunks};

const N: u32 = 100_000_000;

/// Cheap, vectorizable, and not foldable into a closed form like a plain sum of indices.
/// Never inlined, so that all three variants run the very same loop code.
#[inline(never)]
fn work(indices: Range<u32>) -> u64 {
    indices
        .map(|i| {
            let x = u64::from(i);
            x ^ (x >> 7)
        })
        .fold(0, u64::wrapping_add)
}

fn drain_steal_range(n: u32) -> u64 {
    fold_steal_range_chunks(n, 0u64, |total, chunk| total.wrapping_add(work(chunk)))
}

fn drain_handoff(n: u32) -> u64 {
    fold_handoff_chunks(n, 0u64, |total, span| total.wrapping_add(work(span)))
}

/// The bookkeeping alone: claims (and hand-off splits) for the whole range, no items.
fn claims_only(n: u32, with_handoff: bool) -> u32 {
    let count = |claimed, chunk: Range<u32>| claimed + chunk.len() as u32;
    if with_handoff {
        fold_handoff_chunks(n, 0, count)
    } else {
        fold_steal_range_chunks(n, 0, count)
    }
}

fn owner_bookkeeping(c: &mut Criterion) {
    assert_eq!(claims_only(N, false), N);
    assert_eq!(claims_only(N, true), N);
    let mut group = c.benchmark_group("owner_bookkeeping_1e8");
    group.bench_function("steal_range", |b| {
        b.iter(|| claims_only(black_box(N), false))
    });
    group.bench_function("handoff", |b| b.iter(|| claims_only(black_box(N), true)));
    group.finish();
}

fn owner_drain(c: &mut Criterion) {
    let expected = work(0..N);
    assert_eq!(drain_steal_range(N), expected);
    assert_eq!(drain_handoff(N), expected);
    let mut group = c.benchmark_group("owner_drain_1e8");
    group.bench_function("sequential", |b| b.iter(|| work(0..black_box(N))));
    group.bench_function("steal_range", |b| {
        b.iter(|| drain_steal_range(black_box(N)))
    });
    group.bench_function("handoff", |b| b.iter(|| drain_handoff(black_box(N))));
    group.finish();
}

criterion_group!(benches, owner_drain, owner_bookkeeping);
criterion_main!(benches);
