//! Every tuning rule of the indexed-loop driver, in one place. The mechanism (`steal_range`,
//! its hand-off, the owner loop in `owner.rs`) asks this module and decides nothing by
//! itself: how long a claim is, how long a block is, when a loop starts shared, when a loop
//! nested in an item is folded inline. Each rule is a constant with one line of reason here;
//! the measurements that chose the values are in `benches/RESULTS.md` and
//! `docs/decisions.md`.
//!
//! | rule | value | reason |
//! |---|---|---|
//! | [`BLOCK_TIME`] | 50 µs | an owner notices steals and offers its rest between blocks: a thief waits at most about this long, and a look at the pool costs about 0.1 µs |
//! | [`CLAIM_FLOOR_TIME`] | 2 µs | a claim (an RMW, a lock, two splits) costs a few hundred instructions; it must cover at least this much work, and no more is kept out of a thief's reach |
//! | [`REST_SHARE_SHIFT`] | 1/8 | a claim doubles while nobody steals, but never takes more than an eighth of the rest, so a late thief still finds most of it |
//! | [`SHORT_REST_TIME`] | 4 µs | a loop whose rest takes less than this at its first claim's rate is folded by its owner alone: a thief would save less than the round trip costs |
//! | [`TIMED_START_MIN_PER_THREAD`] | 16 items | loops this long per thread, started while nobody is idle, time a first claim of 1 to [`TIMED_START_ITEMS`] items before sharing |
//! | [`INLINE_CLAIM`] | 256 items | a loop nested in cheap items is folded inline up to this long, in claims of this many beyond |
//! | [`INLINE_ITEM_TIME`] | 10 µs | loops nested in items slower than this are never folded inline |
//! | [`INLINE_ITEMS_PER_NS`] | 16 | a nested loop may be folded inline if it is at most 16 items per nanosecond of its owner's item: at most 16 times an average item |

use std::time::Duration;

use super::steal_range::ChunkLimits;

/// How long an owner folds between two looks at the pool.
pub(super) const BLOCK_TIME: Duration = Duration::from_micros(50);

/// Once a block is timed, each claim covers at least about this long a run of items.
pub(super) const CLAIM_FLOOR_TIME: Duration = Duration::from_micros(2);

/// A claim takes at most `rest >> REST_SHARE_SHIFT` items (unless `min_len` asks for more).
pub(super) const REST_SHARE_SHIFT: u32 = 3;

/// A rest that takes at most this long at the measured rate is not worth sharing.
pub(super) const SHORT_REST_TIME: Duration = Duration::from_micros(4);

/// Loops of at least this many items per thread time a private first claim.
pub(super) const TIMED_START_MIN_PER_THREAD: usize = 16;

/// The longest timed first claim: few items, since loops nested in them cannot be folded
/// inline before a rate is known; a claim of one item per 64 of a thread's share below that.
pub(super) const TIMED_START_ITEMS: usize = 4;

/// The longest loop the inline short path folds whole, and the claim of a longer one.
pub(crate) const INLINE_CLAIM: usize = 256;

/// Loops nested in items at least this slow are not folded inline.
pub(super) const INLINE_ITEM_TIME: Duration = Duration::from_micros(10);

/// A nested loop is folded inline up to this many items per nanosecond of an owner's item.
pub(super) const INLINE_ITEMS_PER_NS: u64 = 16;

/// The measured rate is items per nanosecond in fixed point with this many fraction bits:
/// one division per timed block, and every length derived from it is a multiplication.
const RATE_SHIFT: u32 = 32;

/// How a loop starts ([`start`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Start {
    /// Nothing to share, or nobody to share it with: claims of at most `max_len` items,
    /// folded whole, never shared.
    Alone,
    /// Nobody is idle: a first claim of `first` items is folded and timed before anything
    /// is shared; if the rest is short at that rate it is folded here too.
    Timed { first: u32 },
    /// Shared before its first item runs: a worker is idle (it must be able to take the
    /// rest before any item runs: an item may wait for a later one), or the loop is too
    /// short to time.
    Shared,
    /// A loop nested in cheap items, longer than [`INLINE_CLAIM`]: private claims of `len`
    /// items, shared once an idle worker would take the rest.
    Claims { len: u32 },
}

/// How a loop of `len` items, `limits`, on a pool of `threads` workers starts. `anyone_idle`
/// is the pool's hint (see `pool::anyone_idle`).
pub(super) fn start(len: usize, threads: usize, limits: ChunkLimits, anyone_idle: bool) -> Start {
    if len == 0 || threads == 1 {
        return Start::Alone;
    }
    let per_thread = len / threads;
    if per_thread >= TIMED_START_MIN_PER_THREAD && limits.is_unlimited() && !anyone_idle {
        let first = (per_thread / 64).clamp(1, TIMED_START_ITEMS);
        return Start::Timed {
            first: first as u32,
        };
    }
    Start::Shared
}

/// What an owner has measured of its items: the length of its blocks and its rate, from
/// which the claim floor, the short rest and the nested inline limit follow.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pace {
    block_len: u32,
    /// Items per nanosecond times `2^RATE_SHIFT`, rounded up; 0 before a block is timed.
    rate: u64,
    /// The last block took at least half of [`BLOCK_TIME`].
    slow: bool,
}

impl Pace {
    /// Nothing measured yet: a chunk is one block until a block is seen to be slow.
    pub(super) fn new() -> Pace {
        Pace {
            block_len: u32::MAX,
            rate: 0,
            slow: false,
        }
    }

    /// Nothing measured yet, for blocks that must stay short from the start (a loop folded
    /// alone in a `cancellable` region): the first block is one item, and blocks double
    /// while they take less than half of [`BLOCK_TIME`].
    pub(super) fn from_one_item() -> Pace {
        Pace {
            block_len: 1,
            ..Pace::new()
        }
    }

    /// How many of the `left` items of a chunk to fold before the next look at the pool.
    #[inline]
    pub(super) fn block_len(&self, left: u32) -> u32 {
        self.block_len.min(left)
    }

    /// A block of `len` items took `elapsed`: a block slower than [`BLOCK_TIME`] scales the
    /// next one down to about it (never below `min_len`), a full block faster than half of
    /// it doubles the next one. Sets the rate the other rules read.
    pub(super) fn block_took(&mut self, len: u32, elapsed: Duration, min_len: u32) {
        let elapsed_ns = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        self.rate = (u64::from(len) << RATE_SHIFT)
            .checked_div(elapsed_ns)
            .map_or(u64::MAX, |rate| rate.saturating_add(1));
        self.slow = elapsed >= BLOCK_TIME / 2;
        if elapsed > BLOCK_TIME {
            let target_ns = BLOCK_TIME.as_nanos() as u64;
            let scaled = (u64::from(len) * target_ns / elapsed_ns) as u32;
            self.block_len = scaled.max(min_len);
        } else if !self.slow && len >= self.block_len {
            self.block_len = self.block_len.saturating_mul(2);
        }
    }

    /// Items slow enough that an owner offers its rest at once rather than when a worker is
    /// idle (the offer is nothing next to such a block).
    #[inline]
    pub(super) fn items_are_slow(&self) -> bool {
        self.slow
    }

    /// The items `span` covers at the measured rate (0 before a block is timed).
    #[inline]
    fn items_in(&self, span: Duration) -> u32 {
        let items = self.rate.saturating_mul(span.as_nanos() as u64) >> RATE_SHIFT;
        u32::try_from(items).unwrap_or(u32::MAX)
    }

    /// The shortest claim: [`CLAIM_FLOOR_TIME`] of items.
    #[inline]
    pub(super) fn claim_floor(&self) -> u32 {
        self.items_in(CLAIM_FLOOR_TIME)
    }

    /// A rest of at most this many items is not worth sharing ([`SHORT_REST_TIME`]).
    #[inline]
    pub(super) fn short_rest_items(&self) -> u32 {
        self.items_in(SHORT_REST_TIME)
    }

    /// How long a loop nested in one of these items may be and still be folded inline: none
    /// before a block is timed or for items of [`INLINE_ITEM_TIME`] or more, else
    /// [`INLINE_ITEMS_PER_NS`] items per nanosecond of an item.
    #[inline]
    pub(super) fn nested_inline_limit(&self) -> u32 {
        if self.items_in(INLINE_ITEM_TIME) == 0 {
            return 0;
        }
        let limit = ((INLINE_ITEMS_PER_NS << RATE_SHIFT) + self.rate / 2) / self.rate;
        u32::try_from(limit).unwrap_or(u32::MAX)
    }
}

/// The next claim's length: `doubling` (the length that doubles while nobody steals),
/// capped at an eighth of `rest`, raised to `floor`; the caller fits it to the limits.
#[inline]
pub(super) fn claim_len(doubling: u32, rest: u32, floor: u32) -> u32 {
    doubling.min(rest >> REST_SHARE_SHIFT).max(floor)
}

#[cfg(test)]
mod tests;
