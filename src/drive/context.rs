//! What the driver knows about the work the current thread runs: how long a loop nested in
//! it may be and still be folded inline, here and now, offering nothing to other workers.
//!
//! An owner folding cheap items allows loops nested in them up to a length its measurements
//! set ([`InlineLimit`]); a worker of a pool of one allows every loop (nobody could take any
//! part of it). The allowance lives in the pool's job word (`pool::job_word`), which the
//! pool clears for every job a worker takes from a queue: a job is not part of the code that
//! set the allowance, and starts with none.
//!
//! # The job word
//!
//! | bits | meaning |
//! |---|---|
//! | 0..32 | one more than the longest loop the short path may fold ([`fast_inline`]): the allowance capped at `INLINE_CLAIM`, or [`ALONE_FAST`] in a pool of one; 0: none, or not known yet |
//! | 32..64 | the whole allowance (`u32::MAX` in a pool of one), for longer loops |
//!
//! Zero is both "no allowance" and "not known yet": a loop that finds zero takes the long
//! path, which looks at the pool once and records a pool of one in the word.

use super::policy::INLINE_CLAIM;
use crate::pool::{any_pool_records, current_num_threads, job_word, offer_forks, set_job_word};

/// The fast half in a pool of one: one more than any allowance, so the value itself says
/// "alone" (a loop one item longer than `INLINE_CLAIM` takes the short path there too).
const ALONE_FAST: u64 = INLINE_CLAIM as u64 + 2;

/// The word of a pool of one.
const ALONE: u64 = ALONE_FAST | (u32::MAX as u64) << 32;

/// Whether, and why, a loop is folded inline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Inline {
    /// Offer the loop to other workers as usual.
    No,
    /// Fold it whole: nobody could take any of it (a pool of one).
    Alone,
    /// Fold it here: it is nested in items that allow loops this long. An idle worker has
    /// been offered this worker's oldest fork instead, a larger and older piece.
    Nested,
}

/// The short path's question for a loop of `len` items: one thread-local load and a compare
/// answer "no" for a loop too long, on a thread with no allowance, and on a worker of a
/// pool that records (whose loops take the long path, which records them).
#[inline(always)]
pub(super) fn fast_inline(len: usize) -> Inline {
    let fast = job_word() & u64::from(u32::MAX);
    if len as u64 >= fast {
        return Inline::No;
    }
    if fast == ALONE_FAST {
        return Inline::Alone;
    }
    offer_forks();
    Inline::Nested
}

/// The long path's question: the whole allowance. Finds out whether this is a pool of one
/// if nobody said yet (and records it for the rest of the job).
pub(super) fn inline(len: usize) -> Inline {
    let mut word = job_word();
    // In a `cancellable` region a pool of one is not recorded: its short loops then take
    // the long path, whose start looks at the region (a loop nested in a `join` alone
    // would otherwise never look).
    if word == 0
        && current_num_threads() == 1
        && crate::pool::on_worker()
        && !crate::pool::in_cancellable()
    {
        word = if any_pool_records() {
            ALONE & !u64::from(u32::MAX)
        } else {
            ALONE
        };
        set_job_word(word);
    }
    if len as u64 > word >> 32 {
        return Inline::No;
    }
    if word >> 32 == u64::from(u32::MAX) {
        return Inline::Alone;
    }
    offer_forks();
    Inline::Nested
}

/// While this guard lives, loops nested in the work the current thread runs may be folded
/// inline if at most `limit` items long; dropping it restores what was there. Jobs the
/// worker takes from a queue meanwhile start with no allowance (the pool clears the word).
/// In a pool of one, the allowance stays "everything".
#[derive(Debug)]
pub(super) struct InlineLimit {
    previous: u64,
}

impl InlineLimit {
    /// Allows inline loops of at most `limit` items (0: none) until the guard is dropped.
    #[inline]
    pub(super) fn set(limit: u32) -> InlineLimit {
        let previous = job_word();
        if previous != ALONE {
            set_job_word(encode(limit));
        }
        InlineLimit { previous }
    }

    /// Changes the limit this guard set.
    #[inline]
    pub(super) fn update(&self, limit: u32) {
        if self.previous != ALONE {
            set_job_word(encode(limit));
        }
    }
}

impl Drop for InlineLimit {
    #[inline]
    fn drop(&mut self) {
        set_job_word(self.previous);
    }
}

/// The word for an allowance of `limit` items. A pool that records gets no fast half: its
/// loops take the long path, which records them.
#[inline]
fn encode(limit: u32) -> u64 {
    if limit == 0 {
        return 0;
    }
    let fast = if any_pool_records() {
        0
    } else {
        u64::from(limit).min(INLINE_CLAIM as u64) + 1
    };
    fast | u64::from(limit) << 32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{scope, ThreadPoolBuilder};

    #[test]
    fn the_word_keeps_the_allowance_and_its_capped_fast_half() {
        assert_eq!(encode(0), 0);
        if !any_pool_records() {
            assert_eq!(encode(10), 11 | 10 << 32);
            assert_eq!(encode(100_000), (INLINE_CLAIM as u64 + 1) | 100_000 << 32);
        }
        assert_eq!(ALONE >> 32, u64::from(u32::MAX));
    }

    fn pool(threads: usize) -> crate::ThreadPool {
        ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
    }

    #[test]
    fn an_inline_limit_holds_for_the_work_that_set_it_and_not_for_jobs_run_meanwhile() {
        // Outside any pool nothing is folded inline.
        assert_eq!(inline(1), Inline::No);
        // A pool of one folds everything inline, whatever the work.
        let alone = pool(1).install(|| (inline(1 << 20), inline(0), fast_inline(INLINE_CLAIM)));
        assert_eq!(alone, (Inline::Alone, Inline::Alone, Inline::Alone));
        let pool = pool(2);
        let (before, inside, fast_inside, longer, in_job, after_job, after) = pool.install(|| {
            let before = inline(10);
            let limit = InlineLimit::set(100);
            let inside = inline(100);
            let fast_inside = fast_inline(99);
            let longer = inline(101);
            // A job spawned here runs from a queue (on this worker while the scope waits, or
            // on the other one): it starts without the limit.
            let mut in_job = None;
            scope(|s| s.spawn(|_| in_job = Some(inline(10))));
            let after_job = inline(100);
            drop(limit);
            (
                before,
                inside,
                fast_inside,
                longer,
                in_job,
                after_job,
                inline(10),
            )
        });
        assert_eq!(before, Inline::No);
        assert_eq!(inside, Inline::Nested);
        assert_eq!(fast_inside, Inline::Nested);
        assert_eq!(longer, Inline::No);
        assert_eq!(in_job, Some(Inline::No));
        assert_eq!(after_job, Inline::Nested, "the limit is back after the job");
        assert_eq!(
            after,
            Inline::No,
            "dropping the guard restores the limit before it"
        );
    }
}
