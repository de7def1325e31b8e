//! The owner loop: how the worker that holds a loop's range claims, folds and shares it.
//! Compiled once for every loop: it sees the loop's producer and consumer only through
//! [`Body`], whose few methods (claim a chunk, fold part of it, share the rest) are the only
//! code each loop type compiles besides its leaf fold (`indexed.rs`).
//!
//! A loop runs in two phases.
//!
//! 1. **Private** ([`own_private`]): the owner claims from its cursor alone, with no atomic
//!    and nothing shared. A loop folded alone (a pool of one, or nothing to share) stays
//!    here to the end; a loop whose first claim is timed ([`Start::Timed`]) stays here if
//!    its rest is short at that rate; a nested loop folded in private claims
//!    ([`Start::Claims`]) stays here until an idle worker would take its rest. Otherwise
//!    the phase ends in [`End::Share`]: the typed side moves the unclaimed items into a
//!    hand-off and offers them (`indexed.rs`).
//! 2. **Shared** ([`own_shared`]): the owner takes chunks from the hand-off and folds each
//!    in blocks of about `policy::BLOCK_TIME`; after each block it looks at the pool (an idle
//!    worker gets the steal-me fork published) and at the range (a thief took the upper
//!    half). A steal ends the phase in [`End::StealSeen`], and the typed side offers what
//!    is left with a fresh steal-me, carrying the unfolded part of the chunk along.
//!
//! Both phases end in [`End::Done`] once every claimed item is folded, or [`End::Full`]
//! once the consumer wants no more (the range is then closed to thieves). In a
//! `cancellable` region, the owner looks at the region where it looks at the pool (after
//! each block, and after each private claim of a nested loop); a loop folded alone is then
//! folded in blocks too. A cancelled region unwinds from there (`pool::stop_if_cancelled`).

use super::clock::{self, Stamp};
use super::context::InlineLimit;
use super::policy::{Pace, Start};
use super::steal_range::{Chunk, ChunkLimits, OwnerCursor, StealRange};
use super::trace::{trace_claim, trace_fold};
use crate::pool::{
    idle_worker_needs_work, in_cancellable, offer_forks, publish_fork, record_event,
    stop_if_cancelled, Event,
};

/// The typed side of a loop, as the owner loop sees it: the producer and consumer pieces
/// the owner holds.
pub(super) trait Body {
    /// Claims the next `len` items privately (before the range is shared): they become the
    /// current chunk, and their consumer piece joins the owner's run.
    fn claim_private(&mut self, len: u32);

    /// Takes the next chunk from the hand-off (the range is shared): it becomes the current
    /// chunk. `None` once the range is exhausted.
    fn claim_shared(&mut self, cursor: &mut OwnerCursor) -> Option<Chunk>;

    /// Folds the next `len` items of the current chunk into the run: true if the consumer
    /// wants no more items.
    fn fold(&mut self, len: u32) -> bool;
}

/// How a phase of the owner loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum End {
    /// Every claimed item is folded and nothing is left to claim.
    Done,
    /// The consumer wants no more items.
    Full,
    /// The private phase is over: share the rest.
    Share,
    /// A thief took part of the range: offer the rest again.
    StealSeen,
}

/// The owner's state between phases, compiled once: its cursor, what it measured, the
/// shared range once there is one, and the unfolded rest of its current chunk.
#[derive(Debug)]
pub(super) struct Owner<'h> {
    cursor: OwnerCursor,
    limits: ChunkLimits,
    pace: Pace,
    range: Option<&'h StealRange>,
    /// Items of the current chunk not folded yet.
    left: u32,
    /// The clock read that ended the previous block (a block's time runs from there).
    last_read: Option<Stamp>,
}

impl<'h> Owner<'h> {
    /// The owner of a loop of `len` items (`len` fits a `u32`: see `MAX_RANGE_LEN`).
    pub(super) fn new(len: u32, limits: ChunkLimits) -> Owner<'h> {
        Owner {
            cursor: OwnerCursor::new(0..len, limits),
            limits,
            pace: Pace::new(),
            range: None,
            left: 0,
            last_read: None,
        }
    }

    pub(super) fn cursor(&self) -> &OwnerCursor {
        &self.cursor
    }

    /// The range is shared from now on.
    pub(super) fn shared(&mut self, range: &'h StealRange) {
        self.range = Some(range);
    }
}

/// The private phase of a loop that starts as `start` says.
pub(super) fn own_private<'h>(body: &mut dyn Body, owner: &mut Owner<'h>, start: Start) -> End {
    match start {
        // In a `cancellable` region a loop folded alone still looks at the region between
        // blocks; elsewhere it is one claim folded in one call.
        Start::Alone if in_cancellable() => fold_rest_in_blocks(body, owner),
        Start::Alone => fold_rest_privately(body, owner),
        Start::Shared => {
            // The first chunk is claimed before anyone can see the range (no atomic), and
            // folded once the rest is offered. If what is left then is too little to steal
            // from, nobody ever could: no hand-off at all.
            claim_private(body, owner, None);
            if owner.cursor.worth_stealing() {
                End::Share
            } else if fold_private_chunk(body, owner) {
                End::Full
            } else {
                fold_rest_privately(body, owner)
            }
        }
        Start::Timed { first } => own_timed(body, owner, first),
        Start::Claims { len } => own_in_claims(body, owner, len),
    }
}

/// Folds everything left without sharing: claims of up to `max_len` items (one claim of
/// everything without a cap), each folded whole.
fn fold_rest_privately<'h>(body: &mut dyn Body, owner: &mut Owner<'h>) -> End {
    while !owner.cursor.is_exhausted() {
        claim_private(body, owner, Some(u32::MAX));
        if fold_private_chunk(body, owner) {
            return End::Full;
        }
    }
    End::Done
}

/// [`fold_rest_privately`] for a loop in a `cancellable` region: each claim is folded in
/// blocks of about `policy::BLOCK_TIME`, growing from one item, with a look at the region
/// after each (a stop unwinds from there).
fn fold_rest_in_blocks<'h>(body: &mut dyn Body, owner: &mut Owner<'h>) -> End {
    owner.pace = Pace::from_one_item();
    while !owner.cursor.is_exhausted() {
        claim_private(body, owner, Some(u32::MAX));
        while owner.left > 0 {
            let block = owner.pace.block_len(owner.left);
            let start = *owner.last_read.get_or_insert_with(clock::now);
            let full = trace_fold(block, || body.fold(block));
            let now = clock::now();
            owner
                .pace
                .block_took(block, start.until(now), owner.limits.min_len());
            owner.last_read = Some(now);
            owner.left -= block;
            if full {
                return End::Full;
            }
            stop_if_cancelled();
        }
    }
    End::Done
}

/// The first claim is folded and timed; if the rest takes at most `SHORT_REST_TIME` at
/// that rate, a thief could save less than sharing costs: the rest is folded here too.
fn own_timed<'h>(body: &mut dyn Body, owner: &mut Owner<'h>, first: u32) -> End {
    claim_private(body, owner, Some(first));
    let start = clock::now();
    if fold_private_chunk(body, owner) {
        return End::Full;
    }
    let end = clock::now();
    owner
        .pace
        .block_took(first, start.until(end), owner.limits.min_len());
    owner.cursor.set_claim_floor(owner.pace.claim_floor());
    if owner.cursor.remaining() > owner.pace.short_rest_items() {
        return End::Share;
    }
    let _inline = InlineLimit::set(owner.pace.nested_inline_limit());
    fold_rest_privately(body, owner)
}

/// Private claims of `len` items, each folded whole; shared once an idle worker would take
/// the rest (so a worker falling idle waits for at most one claim).
fn own_in_claims<'h>(body: &mut dyn Body, owner: &mut Owner<'h>, len: u32) -> End {
    loop {
        claim_private(body, owner, Some(len));
        if fold_private_chunk(body, owner) {
            return End::Full;
        }
        if owner.cursor.is_exhausted() {
            return End::Done;
        }
        stop_if_cancelled();
        if owner.cursor.worth_stealing() && idle_worker_needs_work() {
            return End::Share;
        }
    }
}

/// Claims the next chunk from the cursor alone: `len` items (fitted to the limits), or the
/// cursor's own doubling length if `None`.
fn claim_private<'h>(body: &mut dyn Body, owner: &mut Owner<'h>, len: Option<u32>) {
    let claim = match len {
        Some(len) => owner.cursor.claim_unshared_up_to(len),
        None => owner.cursor.claim_unshared(),
    }
    .expect("a private claim is made only while items are left");
    record_event(Event::ChunkTaken, 1);
    trace_claim(claim.clone());
    let len = claim.end - claim.start;
    body.claim_private(len);
    owner.left = len;
}

/// Folds the current chunk whole (one piece for a trace): true if the consumer is full.
fn fold_private_chunk<'h>(body: &mut dyn Body, owner: &mut Owner<'h>) -> bool {
    let len = std::mem::take(&mut owner.left);
    trace_fold(len, || body.fold(len))
}

/// The shared phase: chunks from the hand-off, folded in blocks, with a look at the pool
/// and at the range after each block. `again`: a thief took the previous offer.
pub(super) fn own_shared<'h>(body: &mut dyn Body, owner: &mut Owner<'h>, again: bool) -> End {
    // The steal-me was just forked: with slow items, or right after a steal (the thief is
    // likely idle again before the next block ends), it is published at once.
    if again || owner.pace.items_are_slow() {
        publish_fork();
    } else {
        offer_forks();
    }
    owner.last_read = None;
    loop {
        if owner.left == 0 {
            let Some(chunk) = body.claim_shared(&mut owner.cursor) else {
                return End::Done;
            };
            record_event(Event::ChunkTaken, 1);
            trace_claim(chunk.indices.clone());
            owner.left = chunk.indices.end - chunk.indices.start;
            if chunk.steal_observed && owner.cursor.worth_stealing() {
                return End::StealSeen;
            }
        }
        if let Some(end) = fold_in_blocks(body, owner) {
            return end;
        }
    }
}

/// Folds the current chunk block by block; `Some` if the phase ends before the chunk does.
fn fold_in_blocks<'h>(body: &mut dyn Body, owner: &mut Owner<'h>) -> Option<End> {
    let range = owner.range.expect("the shared phase has a range");
    // Loops nested in these items may be folded whole if the items are cheap.
    let inline = InlineLimit::set(owner.pace.nested_inline_limit());
    while owner.left > 0 {
        // The range's last chunk, if short at the measured rate, is folded whole and
        // untimed: no claim or block follows that its time could size.
        let timed = !(owner.cursor.is_exhausted() && owner.left <= owner.pace.claim_floor());
        let block = if timed {
            owner.pace.block_len(owner.left)
        } else {
            owner.left
        };
        let start = timed.then(|| *owner.last_read.get_or_insert_with(clock::now));
        let full = trace_fold(block, || body.fold(block));
        if let Some(start) = start {
            let now = clock::now();
            owner
                .pace
                .block_took(block, start.until(now), owner.limits.min_len());
            owner.cursor.set_claim_floor(owner.pace.claim_floor());
            owner.last_read = Some(now);
            inline.update(owner.pace.nested_inline_limit());
        }
        owner.left -= block;
        if full {
            // Nobody wants more items: keep thieves off the unclaimed part and stop.
            range.close();
            return Some(End::Full);
        }
        look_at_pool(&owner.pace);
        if range.peek_steal(&mut owner.cursor) && owner.cursor.worth_stealing() {
            return Some(End::StealSeen);
        }
    }
    None
}

/// Between two blocks: make the steal-me fork stealable cheaply if a worker is idle, or at
/// once if items are slow (a worker falling idle during the next block need not wait); stop
/// if the loop's `cancellable` region is cancelled.
#[inline]
fn look_at_pool(pace: &Pace) {
    if pace.items_are_slow() {
        publish_fork();
    } else {
        offer_forks();
    }
    stop_if_cancelled();
}
