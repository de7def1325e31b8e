//! Crate internals for this repository's benchmarks, built only with the `bench-internals`
//! feature (`cargo bench --features bench-internals`). Not an API: hidden from the docs,
//! free to change in any release. Each function is a thin entry to code the crate runs
//! anyway, so a benchmark measures that code, not a copy of it.

use std::ops::Range;

use crate::drive::{ChunkLimits, Handoff, SplitAt, StealRange};

/// One owner drains `0..len` from a `StealRange` with default limits and nobody stealing,
/// chunk by chunk in index order: `fold(acc, chunk)` for each claimed chunk. The owner's
/// bookkeeping is one `fetch_add` per chunk (`benches/steal_range.rs`).
#[inline]
pub fn fold_steal_range_chunks<A>(
    len: u32,
    init: A,
    mut fold: impl FnMut(A, Range<u32>) -> A,
) -> A {
    let (range, mut cursor) = StealRange::new(0..len, ChunkLimits::DEFAULT);
    let mut acc = init;
    while let Some(chunk) = range.take_chunk(&mut cursor) {
        acc = fold(acc, chunk.indices);
    }
    acc
}

/// As [`fold_steal_range_chunks`], through a `Handoff` whose value is the index range
/// itself: each claim also locks the hand-off slot and splits its piece off the value, as
/// the on-steal driver does with a (producer, consumer) pair. `fold` gets that piece.
#[inline]
pub fn fold_handoff_chunks<A>(len: u32, init: A, mut fold: impl FnMut(A, Range<u32>) -> A) -> A {
    let (handoff, mut cursor) = Handoff::new(0..len, Span(0..len), ChunkLimits::DEFAULT);
    let mut acc = init;
    while let Some((_, span)) = handoff.take_chunk(&mut cursor) {
        acc = fold(acc, span.0);
    }
    acc
}

/// The value a benchmark's hand-off carries: a range of indices, split like a producer.
struct Span(Range<u32>);

impl SplitAt for Span {
    fn split_at(self, index: usize) -> (Self, Self) {
        let mid = self.0.start + index as u32;
        (Span(self.0.start..mid), Span(mid..self.0.end))
    }
}

/// `Vec::reserve`, plus the huge-page advice weft's own collect gives a fresh buffer of
/// this size in a pool built with `huge_pages(true)` (`src/huge_pages.rs`), whatever this
/// thread's pool says: for a sequential baseline that faults pages in the way such a
/// collect does.
pub fn reserve_with_huge_page_advice<T>(vec: &mut Vec<T>, additional: usize) {
    crate::huge_pages::with_advice_on(|| crate::huge_pages::reserve(vec, additional));
}

/// `Vec::reserve`, plus the huge-page advice weft's own collect would give a fresh buffer of
/// this size on this thread (`src/huge_pages.rs`: the pool's setting, or `WEFT_HUGE_PAGES`
/// outside any pool): for a sequential baseline reserved as weft's collect reserves.
pub fn reserve_as_collect<T>(vec: &mut Vec<T>, additional: usize) {
    crate::huge_pages::reserve(vec, additional);
}

/// Process-wide: `true` sends indexed work to the split-in-half driver instead of the
/// on-steal one, to compare the two (`benches/iter.rs`'s `weft-halving-*` rows).
pub fn use_halving_for_indexed(halving: bool) {
    crate::drive::use_halving_for_indexed(halving);
}
