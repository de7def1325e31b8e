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
use std::time::Duration;

use crossbeam_utils::CachePadded;

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

/// The owner's chunk never exceeds `rest >> REST_SHARE_SHIFT` (an eighth of what it has not
/// claimed yet) unless `min_len` asks for more, so that a thief arriving late still finds
/// most of the work stealable.
const REST_SHARE_SHIFT: u32 = 3;

/// How long an owner folds between two looks at the pool (see [`OwnerCursor::block_took`]).
/// Each look costs a clock read, a `split_at` of the chunk's producer and two plain loads,
/// about 0.1 µs with cache misses. Measured on the triangular loop (2 threads, per-item
/// traces, with early publication): with 20 µs blocks the owners lost 60-110 µs more per
/// 33 ms run than Rayon's workers, with 50 or 80 µs about the same as Rayon's; a thief's
/// wait does not grow with the block, because long blocks get their "steal me" job
/// published at once.
const BLOCK_TIME_TARGET: Duration = Duration::from_micros(50);

/// Once the owner has timed a block, each claim covers at least this long a run of items
/// (see [`OwnerCursor::block_took`]). A claim costs a few hundred instructions (the RMW,
/// the hand-off lock, a producer and a consumer split): without this floor a range of a few
/// hundred cheap items took about 40 claims, which made a small parallel loop several times
/// slower than Rayon's. A thief waits at most this long for work the owner has claimed.
/// 2 µs, not more: the floor overrides the eighth-of-the-rest cap, so it is also the most
/// the owner takes out of a thief's reach in one claim. At 10 µs a loop of 10-30 µs
/// (32 items of 400 ns, 64 of 400 ns, 32 of 800 ns, at 2 threads) kept most of its items on
/// the owner and took 1.3-1.5 times Rayon's time; at 2 µs it ties.
const CLAIM_TIME_FLOOR: Duration = Duration::from_micros(2);

/// A loop whose rest takes at most this long at the rate of its timed first claim is folded
/// by its owner alone ([`OwnerCursor::rest_is_short`]): sharing it costs a thief's round
/// trip (the owner waits for the stolen part, a few hundred nanoseconds on two cores) and
/// would save at most half of it. Measured at 2 threads, sequential loops of loops
/// (`benches/RESULTS.md`, seventeenth pass): 2.9 µs loops took 2.95 µs folded alone and
/// 3.1 shared, 8.3 µs loops 8.5 alone and 5.9 shared. The rate of a claim of one to four
/// cheap items is mostly the two clock reads around it, so this also has to cover a loop of
/// a few hundred cheap items whose first item seems to take 10-15 ns.
const SHORT_REST_TIME: Duration = Duration::from_micros(4);

/// A loop nested in an owner's items is folded inline only if these take less than this
/// each ([`OwnerCursor::nested_inline_limit`]).
const INLINE_ITEM_TIME_LIMIT: Duration = Duration::from_micros(10);

/// A loop nested in an owner's cheap items is folded whole if it is at most this many items
/// per nanosecond of an item's time ([`OwnerCursor::nested_inline_limit`]): a nested loop
/// whose items cost at least 1/16 ns each takes at most 16 times an average item.
const INLINE_ITEMS_PER_NS: u64 = 16;

/// The measured rate is items per nanosecond in fixed point with this many fraction bits
/// (`OwnerCursor::rate`): one division per timed block, and every length derived from it
/// is a multiplication.
const RATE_SHIFT: u32 = 32;

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

    /// The longest chunk an owner claims (but see [`fit_claim`](Self::fit_claim)).
    pub(crate) fn max_len(&self) -> usize {
        self.max_len as usize
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
/// it has seen (thieves only lower it), the length of its next chunk, and how many items it
/// folds between two looks at the pool (its *block*). Exactly one per `StealRange`, made
/// together with it; not `Clone`.
#[derive(Debug)]
pub(crate) struct OwnerCursor {
    low: u32,
    high_seen: u32,
    next_len: u32,
    block_len: u32,
    /// The last timed block's rate: items per nanosecond, times `2^RATE_SHIFT`, rounded up
    /// (so that a span of whole items comes out whole); 0 before any block is timed.
    /// Sets the claim floor ([`CLAIM_TIME_FLOOR`] of items), the short rest of a timed
    /// start ([`SHORT_REST_TIME`]) and the nested inline limit.
    rate: u64,
    /// The last block took at least half the target: items are slow.
    slow: bool,
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
            // No measurement yet: a chunk is one block until one is seen to be slow.
            block_len: u32::MAX,
            rate: 0,
            slow: false,
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

    /// Claims `len` items (raised to `min_len`, capped by `max_len` and by what is left)
    /// while the range is not shared yet: a private owner's claims of a fixed size. The
    /// doubling length is left alone, so that once shared, claims go on as a new owner's
    /// would. `None` if nothing is left.
    #[inline]
    pub(crate) fn claim_unshared_up_to(&mut self, len: u32) -> Option<Range<u32>> {
        let rest = self.remaining();
        if rest == 0 {
            return None;
        }
        let len = len
            .clamp(self.limits.min_len, self.limits.max_len)
            .min(rest);
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
    #[inline]
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
    /// end closer together than 3 and 4 (sequential loops of 8 and 12 items of 1.1-1.4 µs
    /// at 2 threads: 3-4% less time per loop; no change at 16 or more items).
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

    /// How many of the `left` items still to fold in the current chunk the owner folds
    /// before its next look at the pool: the block length, cut to `left`.
    #[inline]
    pub(crate) fn block_len(&self, left: u32) -> u32 {
        self.block_len.min(left)
    }

    /// Feedback from the driver: a block of `len` items took `elapsed` to fold. An idle
    /// worker can steal from this owner only once its "steal me" job is published, which
    /// happens between two blocks (at once when items are slow, see
    /// [`items_are_slow`](Self::items_are_slow)), and the owner notices a steal only between
    /// two blocks. So a block slower than [`BLOCK_TIME_TARGET`] scales the next one down to
    /// about the target (never below `min_len`); a full block faster than half the target
    /// lets the next one double; in between the length stays. Cheap items thus get long
    /// blocks (often the whole chunk), expensive ones about 50 µs each.
    ///
    /// The same measurement sets the claim floor (the only way time enters the claims): the
    /// next claims cover at least about [`CLAIM_TIME_FLOOR`] of items at this block's rate.
    /// The block's time includes the claim and the clock read before it, so the rate errs on
    /// the slow side and the floor on the short side. Slow items (a floor below `min_len`)
    /// leave the claims as they are.
    pub(crate) fn block_took(&mut self, len: u32, elapsed: Duration) {
        // 64-bit arithmetic (a 128-bit division is a libcall): `len < 2^32` shifted by 32
        // fits, and so does `len` times a target of 50 000 ns.
        let elapsed_ns = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        self.rate = (u64::from(len) << RATE_SHIFT)
            .checked_div(elapsed_ns)
            // Rounded up: 1 item in 200 ns is 10 items in 2 µs, not 9.
            .map_or(u64::MAX, |rate| rate.saturating_add(1));
        self.slow = elapsed >= BLOCK_TIME_TARGET / 2;
        if elapsed > BLOCK_TIME_TARGET {
            // `elapsed` exceeds the target here, so `scaled` is below `len`.
            let target_ns = BLOCK_TIME_TARGET.as_nanos() as u64;
            let scaled = (u64::from(len) * target_ns / elapsed_ns) as u32;
            self.block_len = scaled.max(self.limits.min_len);
        } else if !self.slow && len >= self.block_len {
            // A full block (not one cut short by the end of its chunk) was fast.
            self.block_len = self.block_len.saturating_mul(2);
        }
    }

    /// Whether the last block took at least half the target (slow items, or cheap ones in a
    /// long chunk): then the driver publishes its "steal me" job as soon as it exists
    /// instead of waiting for an idle worker to show up between two blocks (a deque push is
    /// nothing next to such a block).
    #[inline]
    pub(crate) fn items_are_slow(&self) -> bool {
        self.slow
    }

    /// The items `span` covers at the last timed block's rate, rounded down (0 before any
    /// block is timed, `u32::MAX` after a block timed at zero).
    #[inline]
    fn items_in(&self, span: Duration) -> u32 {
        let items = self.rate.saturating_mul(span.as_nanos() as u64) >> RATE_SHIFT;
        u32::try_from(items).unwrap_or(u32::MAX)
    }

    /// The shortest claim: about [`CLAIM_TIME_FLOOR`] of items at the last block's rate; 0
    /// before any block is timed.
    #[inline]
    fn claim_floor(&self) -> u32 {
        self.items_in(CLAIM_TIME_FLOOR)
    }

    /// How long a loop nested in one of the owner's items may be and still be folded whole,
    /// inline (`pool::fold_inline`): none until a block is timed, none if items take
    /// [`INLINE_ITEM_TIME_LIMIT`] or more; otherwise [`INLINE_ITEMS_PER_NS`] items per
    /// nanosecond an item takes at the last block's rate. Such a loop runs start to end
    /// without a look at the pool, and an idle worker gets this owner's steal-me (or an
    /// older fork) at the next loop or block instead; the length cap keeps a loop far longer
    /// than the average item (one item of many with a loop of millions) from running whole.
    #[inline]
    pub(crate) fn nested_inline_limit(&self) -> u32 {
        if self.items_in(INLINE_ITEM_TIME_LIMIT) == 0 {
            return 0; // nothing timed yet, or slow items
        }
        // `INLINE_ITEMS_PER_NS` times the nanoseconds an item takes, rounded to nearest: no
        // overflow, as `rate / 2 < 2^63` and the other term is 2^36.
        let limit = ((INLINE_ITEMS_PER_NS << RATE_SHIFT) + self.rate / 2) / self.rate;
        u32::try_from(limit).unwrap_or(u32::MAX)
    }

    /// Whether `left`, the unfolded rest of the owner's current chunk, is all the range has
    /// left and takes at most about [`CLAIM_TIME_FLOOR`] at the last block's rate: then the
    /// driver folds it in one untimed block, as no later claim or block needs the time.
    #[inline]
    pub(crate) fn is_short_last_chunk(&self, left: u32) -> bool {
        self.remaining() == 0 && left <= self.claim_floor()
    }

    /// Whether everything left takes at most [`SHORT_REST_TIME`] at the last timed block's
    /// rate: too little for a thief to gain more than sharing costs. False before any block
    /// is timed.
    #[inline]
    pub(crate) fn rest_is_short(&self) -> bool {
        self.remaining() <= self.short_rest_items()
    }

    /// The items [`SHORT_REST_TIME`] covers at the last timed block's rate (0 before any
    /// block is timed): a rest of at most this many is short ([`rest_is_short`]).
    ///
    /// [`rest_is_short`]: Self::rest_is_short
    #[inline]
    pub(crate) fn short_rest_items(&self) -> u32 {
        self.items_in(SHORT_REST_TIME)
    }

    /// Whether the producer caps chunks (`with_max_len`). The driver then gives each chunk a
    /// folder of its own, so that no folder sees more than `max_len` items, as no job does in
    /// Rayon: `fold`'s accumulators and `map_init`'s `init` calls come one per chunk.
    pub(crate) fn chunks_capped(&self) -> bool {
        self.limits.is_capped()
    }

    /// Whether a thief could take something from what is left (at least `min_len` items
    /// unclaimed, see [`StealRange::steal_half`]): worth a "steal me" job.
    pub(crate) fn worth_stealing(&self) -> bool {
        self.high_seen.saturating_sub(self.low) >= self.limits.min_len
    }

    /// The length of the next claim: the doubling `next_len`, capped by an eighth of the rest,
    /// raised to the claim floor, capped by `max_len`, raised to `min_len`, cut to the rest,
    /// and fitted so as to leave no crumb under `min_len` ([`ChunkLimits::fit_claim`]).
    /// `None` when nothing is left.
    #[inline]
    fn next_claim_len(&self) -> Option<u32> {
        let rest = self.remaining();
        if rest == 0 {
            return None;
        }
        let len = self
            .next_len
            .min(rest >> REST_SHARE_SHIFT)
            .max(self.claim_floor());
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
