//! The owner's amortized cost: one thread drains a 10^8-index range chunk by chunk, through
//! `StealRange` alone and through `Handoff` (chunk claim plus producer split), against the
//! plain sequential loop doing the same per-item work. Nobody steals, so the gap is the
//! owner's bookkeeping: one `fetch_add` (plus one uncontended lock for `Handoff`) per chunk.
//! `owner_bookkeeping_1e8` times that bookkeeping alone (all claims, no items), which is
//! easier to read on a noisy machine than the small difference between two long loops.
//!
//! `StealRange` is crate-private, so this file compiles its source directly (its test modules
//! come along, unused: cargo builds benches with `cfg(test)`).
#![allow(missing_docs)] // `criterion_group!` makes an undocumented `pub fn`

use core::ops::Range;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

/// What `steal_range.rs` takes from `crate::sync` outside loom.
mod sync {
    pub(crate) use std::sync::{atomic, Mutex};
}

#[allow(dead_code, unused_imports)]
#[path = "../src/drive/steal_range.rs"]
mod steal_range;

use steal_range::{ChunkLimits, Handoff, SplitAt, StealRange};

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

/// A range producer, as the driver would hand to `Handoff`.
struct Span(Range<u32>);

impl SplitAt for Span {
    fn split_at(self, index: usize) -> (Self, Self) {
        let mid = self.0.start + index as u32;
        (Span(self.0.start..mid), Span(mid..self.0.end))
    }
}

fn drain_steal_range(n: u32) -> u64 {
    let (range, mut cursor) = StealRange::new(0..n, ChunkLimits::DEFAULT);
    let mut total = 0u64;
    while let Some(chunk) = range.take_chunk(&mut cursor) {
        total = total.wrapping_add(work(chunk.indices));
    }
    total
}

fn drain_handoff(n: u32) -> u64 {
    let (handoff, mut cursor) = Handoff::new(0..n, Span(0..n), ChunkLimits::DEFAULT);
    let mut total = 0u64;
    while let Some((_, span)) = handoff.take_chunk(&mut cursor) {
        total = total.wrapping_add(work(span.0));
    }
    total
}

/// The bookkeeping alone: claims (and hand-off splits) for the whole range, no items.
fn claims_only(n: u32, with_handoff: bool) -> u32 {
    let mut claimed = 0;
    if with_handoff {
        let (handoff, mut cursor) = Handoff::new(0..n, Span(0..n), ChunkLimits::DEFAULT);
        while let Some((_, span)) = handoff.take_chunk(&mut cursor) {
            claimed += span.0.len() as u32;
        }
    } else {
        let (range, mut cursor) = StealRange::new(0..n, ChunkLimits::DEFAULT);
        while let Some(chunk) = range.take_chunk(&mut cursor) {
            claimed += chunk.indices.len() as u32;
        }
    }
    claimed
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
