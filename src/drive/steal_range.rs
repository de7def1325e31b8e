//! `StealRange`: a range of indices `[low, high)` shared by one owner, who takes chunks from
//! the low end, and any number of thieves, who each take the upper half of what is left.
//! Lock-free, no `unsafe`; the protocol, the word layout and the linearization points are
//! in `drive/README.md` ("design, not usage"). `Handoff` (in `steal_range/handoff.rs`) adds
//! the producer piece that goes with each claimed range.
//!
//! # Orderings
//!
//! | atomic | written by | read by | Release → Acquire pairs |
//! |---|---|---|---|
//! | `StealRange::word` = `pack(low, high)` | owner: `fetch_add` on `low` in `take_chunk`; thieves: `compare_exchange_weak` lowering `high` in `steal_half` | thieves: the `load` before the CAS loop in `steal_half`; owner: `peek_steal`; anyone: `is_exhausted` | none: every access is `Relaxed` |
//!
//! Why `Relaxed` is enough: the word carries only its own value, two indices. Exactly-once
//! follows from RMW atomicity alone (every RMW reads the latest value in the word's
//! modification order), which holds at any ordering. No other memory is published through
//! the word: the producer piece of a claimed range travels under the `Handoff` mutex, the
//! range itself reaches a thief inside a job (the deque push/steal synchronizes), and the
//! results come back through `join`'s latch. A stale `load` is harmless: `low` only grows
//! and `high` only shrinks, so a stale "too little to steal" is also true now, and any other
//! stale value just makes the CAS fail and retry with the fresh one.

use core::ops::Range;

use crossbeam_utils::CachePadded;

use super::policy;

use crate::sync::atomic::{AtomicU64, Ordering};

mod handoff;
pub(crate) use handoff::{Handoff, SplitAt};

#[cfg(all(test, loom))]
mod loom_tests;
#[cfg(all(test, not(loom)))]
mod protocol_tests;
#[cfg(all(test, not(loom)))]
mod stress_tests;
#[cfg(all(test, not(loom)))]
mod tests;

/// The longest range a `StealRange` holds: both ends are `u32`. The driver splits a longer
/// producer in halves (with `join`) until each half fits; see `drive/README.md`.
pub(crate) const MAX_RANGE_LEN: usize = u32::MAX as usize;

/// The shared word: `low` in bits 0..32, `high` in bits 32..64. The owner's `fetch_add` adds
/// to `low` directly; it never carries into `high` because the owner keeps
/// `low + len <= high_seen <= u32::MAX` (invariant I4 in `drive/README.md`).
#[inline]
fn pack(low: u32, high: u32) -> u64 {
    u64::from(low) | (u64::from(high) << 32)
}

/// The inverse of [`pack`]: `(low, high)`.
#[inline]
fn unpack(word: u64) -> (u32, u32) {
    (word as u32, (word >> 32) as u32)
}

/// `with_min_len` / `with_max_len`: the owner's chunks are between the two, and a thief takes
/// nothing shorter than `min_len`. No chunk is shorter than `min_len` unless the whole range
/// is: a claim that would leave fewer than `min_len` items takes them too, as Rayon's halving
/// leaves no piece shorter than `min_len`. So when `max_len < 2 * min_len - 1`, a chunk may
/// hold up to `2 * min_len - 1` items: the minimum wins, as in Rayon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ChunkLimits {
    min_len: u32,
    max_len: u32,
}

impl ChunkLimits {
    /// No limits: chunks of 1 up to the whole range (tests and benches; the driver always
    /// has a producer's limits).
    #[cfg(any(test, feature = "bench-internals"))]
    pub(crate) const DEFAULT: ChunkLimits = ChunkLimits {
        min_len: 1,
        max_len: u32::MAX,
    };

    /// `min_len` 0 means 1; a `max_len` below `min_len` is raised to it (the minimum wins).
    #[inline]
    pub(crate) fn new(min_len: usize, max_len: usize) -> Self {
        let min_len = min_len.clamp(1, MAX_RANGE_LEN);
        let max_len = max_len.clamp(min_len, MAX_RANGE_LEN);
        ChunkLimits {
            min_len: min_len as u32,
            max_len: max_len as u32,
        }
    }

    /// Whether `max_len` is below the longest possible range (so a `with_max_len` applies).
    pub(crate) fn is_capped(&self) -> bool {
        self.max_len < MAX_RANGE_LEN as u32
    }

    /// Neither `with_min_len` nor `with_max_len` applies: claims may be single items, and
    /// one folder may see any number of them.
    pub(crate) fn is_unlimited(&self) -> bool {
        self.min_len == 1 && !self.is_capped()
    }

    /// The shortest piece anyone takes (`with_min_len`, at least 1).
    pub(crate) fn min_len(&self) -> u32 {
        self.min_len
    }

    /// The claim to make when `len` items (at least `min_len`, at most `rest`) are wanted and
    /// `rest` are left: `len`, unless that would leave a crumb of fewer than `min_len`; then
    /// either exactly `min_len` are left (if the claim stays at least `min_len`), or the
    /// claim takes everything (then it is under `2 * min_len`).
    #[inline]
    pub(crate) fn fit_claim(&self, len: usize, rest: usize) -> usize {
        let min = self.min_len as usize;
        if rest - len >= min || len == rest {
            len
        } else if rest - min >= min {
            rest - min
        } else {
            rest
        }
    }

    /// The longest piece a chunk may be (Rayon's bound for a `with_max_len` below
    /// `2 * min_len - 1`): `max_len`, or `2 * min_len - 1` if that is longer.
    #[inline]
    fn longest_piece(&self) -> u32 {
        self.max_len.max(self.min_len.saturating_mul(2) - 1)
    }

    /// Whether `left` items, what is left after a claim, are a crumb that no thief can take
    /// (`0 < left < min_len`) and the claim must take along.
    #[inline]
    fn is_crumb(&self, left: u32) -> bool {
        0 < left && left < self.min_len
    }
}

/// The shared side: owner and thieves both hold `&StealRange`.
#[derive(Debug)]
pub(crate) struct StealRange {
    /// `pack(low, high)`: the unclaimed indices are `low..high`, none once `low >= high`.
    /// Padded so that the owner's and the thieves' RMWs do not false-share with the
    /// neighbouring hand-off slot or the join frame on the owner's stack.
    word: CachePadded<AtomicU64>,
    /// A thief takes at least `limits.min_len` indices, or nothing.
    limits: ChunkLimits,
}

/// The owner's private side: its next `low` (only the owner moves `low`), the highest `high`
/// it has seen (thieves only lower it), and what sizes its next claim: the length that
/// doubles while nobody steals and the floor the driver's measurements set
/// (`policy::claim_len`). Exactly one per `StealRange`, made together with it; not `Clone`.
#[derive(Debug)]
pub(crate) struct OwnerCursor {
    low: u32,
    high_seen: u32,
    next_len: u32,
    /// The shortest claim the driver wants (`policy::Pace::claim_floor`); 0 until it says.
    floor: u32,
    /// The length of a chunk the owner has claimed from the word but not handed out yet:
    /// the indices `low - pending..low`, returned by the next `take_chunk`. Non-zero only
    /// after a claim took along a crumb that would have made its chunk longer than any
    /// piece may be (see `StealRange::take_chunk`).
    pending: u32,
    limits: ChunkLimits,
}

/// What `take_chunk` hands the owner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The indices now owned, never empty.
    pub(crate) indices: Range<u32>,
    /// A thief took the top of the range since the owner's previous chunk: the driver posts
    /// a new "steal me" job for what is left.
    pub(crate) steal_observed: bool,
}

impl OwnerCursor {
    /// The cursor of a range over `indices` that nobody shares yet.
    pub(crate) fn new(indices: Range<u32>, limits: ChunkLimits) -> OwnerCursor {
        assert!(indices.start <= indices.end, "StealRange: start > end");
        OwnerCursor {
            low: indices.start,
            high_seen: indices.end,
            next_len: limits.min_len,
            floor: 0,
            pending: 0,
            limits,
        }
    }

    /// Claims the next chunk while the range is not shared yet (before
    /// [`StealRange::unclaimed_by`]): the chunk `take_chunk` would claim, without its
    /// `fetch_add`, as no thief can be there. `None` if the range is empty.
    #[inline]
    pub(crate) fn claim_unshared(&mut self) -> Option<Range<u32>> {
        let len = self.next_claim_len()?;
        let low = self.low;
        self.low += len;
        self.next_len = self.next_len.saturating_mul(2).min(self.limits.max_len);
        Some(low..self.low)
    }

    /// Claims `len` items (raised to `min_len`, capped by `max_len` and by what is left, and
    /// fitted so that no crumb under `min_len` is left: `ChunkLimits::fit_claim`) while the
    /// range is not shared yet: a private owner's claims of a fixed size. The doubling
    /// length is left alone, so that once shared, claims go on as a new owner's would.
    /// `None` if nothing is left.
    #[inline]
    pub(crate) fn claim_unshared_up_to(&mut self, len: u32) -> Option<Range<u32>> {
        let rest = self.remaining();
        if rest == 0 {
            return None;
        }
        let len = len
            .clamp(self.limits.min_len, self.limits.max_len)
            .min(rest);
        let len = self.limits.fit_claim(len as usize, rest as usize) as u32;
        let low = self.low;
        self.low += len;
        Some(low..self.low)
    }
}

impl StealRange {
    /// A range over `indices`, and the cursor of its one owner (tests and benches; the
    /// driver claims a first chunk before sharing, with [`StealRange::unclaimed_by`]).
    #[cfg(any(test, feature = "bench-internals"))]
    pub(crate) fn new(indices: Range<u32>, limits: ChunkLimits) -> (StealRange, OwnerCursor) {
        let cursor = OwnerCursor::new(indices, limits);
        (StealRange::unclaimed_by(&cursor), cursor)
    }

    /// The shared range over what `cursor` has not claimed yet (all of its indices, or what
    /// [`OwnerCursor::claim_unshared`] left).
    pub(crate) fn unclaimed_by(cursor: &OwnerCursor) -> StealRange {
        StealRange {
            word: CachePadded::new(AtomicU64::new(pack(cursor.low, cursor.high_seen))),
            limits: cursor.limits,
        }
    }

    /// Owner: claims the next chunk from the low end, or `None` once the range is exhausted.
    /// One `fetch_add` per chunk; none at all once exhausted. Linearizes at the `fetch_add`.
    /// Not inlined: it runs once per chunk, and every loop type would compile a copy.
    #[inline(never)]
    pub(crate) fn take_chunk(&self, cursor: &mut OwnerCursor) -> Option<Chunk> {
        if cursor.pending > 0 {
            // Claimed with the previous chunk already (below): no atomic.
            let indices = cursor.low - cursor.pending..cursor.low;
            cursor.pending = 0;
            return Some(Chunk {
                indices,
                steal_observed: false,
            });
        }
        let len = cursor.next_claim_len()?;
        // ORDERING: Relaxed: only the word's value matters, and an RMW reads the latest value
        // whatever the ordering (see the table). Races with the CAS in `steal_half`.
        let old = self.word.fetch_add(u64::from(len), Ordering::Relaxed);
        // `None`: a thief took all that was left (under `2 * min_len` items).
        let mut chunk = cursor.record_claim(old, len)?;
        // Thieves struck since the owner last looked, and what they left behind this claim
        // is a crumb under `min_len`: take it along (no chunk may be that short). It is
        // exact and stays put: `high_seen` is the `high` this claim read, and no thief takes
        // anything from fewer than `min_len` items.
        let crumb = cursor.remaining();
        if self.limits.is_crumb(crumb) {
            // ORDERING: Relaxed, as above; no thief's CAS can succeed on what is left.
            self.word.fetch_add(u64::from(crumb), Ordering::Relaxed);
            cursor.low += crumb;
            let total = chunk.indices.len() as u32 + crumb;
            if total > self.limits.longest_piece() {
                // The chunk and its crumb are longer than any piece may be (a claim of
                // `max_len` that thieves left a crumb above): they make two chunks, the
                // last exactly `min_len` long, the first `total - min_len`, which is at
                // least `min_len` (`total > 2 * min_len - 1`) and below `max_len` (the
                // crumb is under `min_len`).
                cursor.pending = self.limits.min_len;
                chunk.indices.end = cursor.low - cursor.pending;
            } else {
                chunk.indices.end += crumb;
            }
        }
        Some(chunk)
    }

    /// Thief: claims the upper half of what is left, rounded up, if the owner keeps at least
    /// `min_len`, else all of it if that is at least `min_len` (under `2 * min_len` items:
    /// the last item of a loop of heavy items, which its owner would fold only after its
    /// current chunk), else nothing. Linearizes at the successful CAS.
    ///
    /// Rounded up because the owner is also folding a chunk it claimed before: of 7 items
    /// left beside an owner part-way through its eighth, 4 for the thief and 3 for the owner
    /// end closer together than 3 and 4.
    pub(crate) fn steal_half(&self) -> Option<Range<u32>> {
        // ORDERING: Relaxed: a stale value only makes the CAS below fail (see the table).
        let mut current = self.word.load(Ordering::Relaxed);
        loop {
            let (low, high) = unpack(current);
            let left = high.saturating_sub(low);
            let take = if left / 2 >= self.limits.min_len {
                left - left / 2
            } else if left >= self.limits.min_len {
                left
            } else {
                return None;
            };
            let mid = high - take;
            // ORDERING: Relaxed both ways: races with the owner's `fetch_add` in `take_chunk`
            // and other thieves' CAS; atomicity alone decides who gets which indices.
            match self.word.compare_exchange_weak(
                current,
                pack(low, mid),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Some(mid..high),
                Err(now) => current = now,
            }
        }
    }

    /// Owner: gives up what is left (its consumer wants no more items), so that no thief
    /// starts on it. The owner must not take chunks afterwards. Linearizes at the CAS.
    pub(crate) fn close(&self) {
        // ORDERING: Relaxed, as in `steal_half`: only the indices matter.
        let mut current = self.word.load(Ordering::Relaxed);
        loop {
            let (low, high) = unpack(current);
            if low >= high {
                return;
            }
            // ORDERING: Relaxed; races with thieves' CAS exactly like another thief would.
            match self.word.compare_exchange_weak(
                current,
                pack(low, low),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return,
                Err(now) => current = now,
            }
        }
    }

    /// Owner, between two claims: has a thief taken the top of the range since the owner
    /// last looked (at a claim or here)? If so the cursor records it exactly as a claim
    /// that observes a steal would (`high_seen` lowered, the chunk length back to
    /// `min_len`), so that each steal is reported once and the driver keeps at most one
    /// "steal me" job live. One load, no RMW. Linearizes at the load.
    #[inline]
    pub(crate) fn peek_steal(&self, cursor: &mut OwnerCursor) -> bool {
        // ORDERING: Relaxed: only the value matters (see the table). A stale value shows an
        // older, higher `high`: the steal is then reported at a later look or claim instead.
        let (_, high) = unpack(self.word.load(Ordering::Relaxed));
        cursor.observe_high(high)
    }

    /// True once every index has been claimed. A snapshot: it can only turn from false to true.
    #[cfg(test)]
    pub(crate) fn is_exhausted(&self) -> bool {
        // ORDERING: Relaxed: a snapshot of the indices alone (see the table).
        let (low, high) = unpack(self.word.load(Ordering::Relaxed));
        low >= high
    }
}

impl OwnerCursor {
    /// An upper bound on what the owner has not claimed yet (thieves may have taken some),
    /// with a chunk it claimed but has not taken yet (`pending`).
    pub(crate) fn remaining(&self) -> u32 {
        self.high_seen.saturating_sub(self.low) + self.pending
    }

    /// The driver's shortest claim from now on (`policy::Pace::claim_floor`).
    #[inline]
    pub(crate) fn set_claim_floor(&mut self, floor: u32) {
        self.floor = floor;
    }

    /// Whether the range is exhausted as far as the owner knows.
    #[inline]
    pub(crate) fn is_exhausted(&self) -> bool {
        self.remaining() == 0
    }

    /// Whether a thief could take something from what is left (at least `min_len` items
    /// unclaimed, see [`StealRange::steal_half`]): worth a "steal me" job.
    pub(crate) fn worth_stealing(&self) -> bool {
        self.high_seen.saturating_sub(self.low) >= self.limits.min_len
    }

    /// The length of the next claim: the policy's length (`policy::claim_len`), capped by
    /// `max_len`, raised to `min_len`, cut to the rest, and fitted so as to leave no crumb
    /// under `min_len` ([`ChunkLimits::fit_claim`]). `None` when nothing is left.
    #[inline]
    fn next_claim_len(&self) -> Option<u32> {
        let rest = self.remaining();
        if rest == 0 {
            return None;
        }
        let len = policy::claim_len(self.next_len, rest, self.floor);
        let len = len
            .clamp(self.limits.min_len, self.limits.max_len)
            .min(rest);
        Some(self.limits.fit_claim(len as usize, rest as usize) as u32)
    }

    /// Turns the word before the `fetch_add` of `len` into the owner's chunk, and sets up
    /// the next one: double while nobody steals, back to `min_len` after a steal. `None` if
    /// the word was empty: a thief took the whole rest, too short to halve, since the
    /// owner last looked (the word then reads `low > high`, exhausted, as after an
    /// overshoot).
    #[inline]
    fn record_claim(&mut self, old: u64, len: u32) -> Option<Chunk> {
        let (low, high) = unpack(old);
        debug_assert_eq!(low, self.low, "only the owner moves `low`");
        self.low = low + len;
        let steal_observed = self.observe_high(high);
        if low >= high {
            return None;
        }
        if !steal_observed {
            self.next_len = self.next_len.saturating_mul(2).min(self.limits.max_len);
        }
        Some(Chunk {
            indices: low..(low + len).min(high),
            steal_observed,
        })
    }

    /// Records `high` read from the word: true if it is below what the owner saw last (a
    /// steal since), in which case the next chunk starts again from `min_len`.
    #[inline]
    fn observe_high(&mut self, high: u32) -> bool {
        if high < self.high_seen {
            self.high_seen = high;
            self.next_len = self.limits.min_len;
            true
        } else {
            false
        }
    }
}
