//! The on-steal driver: an indexed producer runs as one work-stealing range on the worker
//! that starts it, and is split only when a thief actually takes part of it.
//!
//! ```text
//! drive(P, C):  (at most 8 items, and no idle worker would take them: claimed and folded
//!               privately until one would, then shared as below; `own_privately`)
//!               handoff = Handoff(0..len, Work { P, C })
//!               join( own(handoff)            -- chunks from the low end, growing
//!                   , steal_me(handoff) )     -- `b`: a private fork until someone is idle
//! steal_me:     (m..h, piece) = handoff.steal_half()   -- the upper half of what is left
//!               drive(piece)                  -- the thief becomes an owner itself
//! own, on seeing a steal:   join(own(rest), steal_me(handoff))   -- offer the rest again
//! ```
//!
//! `steal_me` is the `b` of a `join`: while nobody is idle it is a private fork that costs a
//! few stores, and if nobody took it the owner runs it inline at the end and finds the range
//! empty. Results combine in index order: a thief always takes the upper neighbour of what
//! its victim keeps, and its result is reduced on the right of the victim's
//! (`README.md`, "Why results stay in index order").

use core::ops::Range;

use super::clock::{self, Stamp};
use super::fold_indexed;
use super::steal_range::{ChunkLimits, Handoff, OwnerCursor, SplitAt, MAX_RANGE_LEN};
use crate::plumbing::{Consumer, Folder, Producer, Reducer};
use crate::pool::{
    current_num_threads, idle_worker_needs_work, join_context, join_context_here, offer_forks,
    on_a_worker, publish_fork, record_event, Event, FnContext,
};

/// A range of at most this many items starts private while no idle worker would take new
/// work from this one ([`own_privately`]): no hand-off, no "steal me" job and no clock
/// reads, unless that changes before the last claim. Sharing a range costs about 50 ns (two
/// clock reads, the hand-off and its first shared claim, a fork), a private claim 40–50
/// instructions (a producer and a consumer split, a folder continuation, the idle test):
/// about the same at this length (`README.md`, section 1). A count of items, not of
/// `min_len` claims, because a private claim is folded without a look at the pool: a
/// `with_min_len` claim of many items would leave an idle worker waiting for all of them.
const PRIVATE_ITEMS: usize = 8;

/// A producer and its consumer, cut together, and their length (so that the consumer is cut
/// in proportion, `Consumer::split_at_sized`). An upper piece keeps the reducer that joins
/// its result to the result of its lower neighbour (`None` for the first piece of a range).
struct Work<P, C, R> {
    producer: P,
    consumer: C,
    len: usize,
    below: Option<R>,
}

impl<P, C> SplitAt for Work<P, C, C::Reducer>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    fn split_at(self, index: usize) -> (Self, Self) {
        let (lower_producer, upper_producer) = self.producer.split_at(index);
        let (lower_consumer, upper_consumer, reducer) =
            self.consumer.split_at_sized(index, self.len);
        let lower = Work {
            producer: lower_producer,
            consumer: lower_consumer,
            len: index,
            below: self.below,
        };
        let upper = Work {
            producer: upper_producer,
            consumer: upper_consumer,
            len: self.len - index,
            below: Some(reducer),
        };
        (lower, upper)
    }
}

type Shared<P, C> = Handoff<Work<P, C, <C as Consumer<<P as Producer>::Item>>::Reducer>>;

/// Runs `consumer` over the `len` items of `producer`.
pub(super) fn drive_indexed<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    if len > MAX_RANGE_LEN {
        // A range holds u32 indices: halve longer work first (64-bit lengths only).
        let mid = len / 2;
        let (left_producer, right_producer) = producer.split_at(mid);
        let (left_consumer, right_consumer, reducer) = consumer.split_at_sized(mid, len);
        let (left, right) = join_context(
            |_| drive_indexed(mid, left_producer, left_consumer),
            |_| drive_indexed(len - mid, right_producer, right_consumer),
        );
        return reducer.reduce(left, right);
    }
    let limits = ChunkLimits::new(producer.min_len(), producer.max_len());
    if len == 0 || current_num_threads() == 1 {
        // Nothing to share, or nobody to share it with: no range at all, and one chunk with
        // one folder (so `map_init` and friends call `init` once), unless `with_max_len`
        // caps the items a folder may see. Called from outside the pool, still on a worker
        // (as when there are more threads): closures see the pool's thread names, thread
        // locals and `current_thread_index`.
        return on_a_worker(|| fold_alone(len, limits, producer, consumer));
    }
    drive_among_workers(len, limits, producer, consumer)
}

/// [`drive_indexed`] on a pool of more than one worker, for `0 < len <= MAX_RANGE_LEN`. Out
/// of line, so that `drive_indexed`'s own short path stays small enough to inline where it
/// is called (measured: inlined, this part made `flat_map` over `Vec`s outline
/// `with_producer`, 8% more instructions per inner loop at one thread).
#[inline(never)]
fn drive_among_workers<P, C>(len: usize, limits: ChunkLimits, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    // The owner's first chunk is claimed before the range is shared, so it costs no atomic
    // and no trip through the hand-off slot; a thief sees the range as it would have right
    // after that claim. If what is left then is too short to steal from (`len <= 2` with
    // no `with_min_len`), nobody ever could: no range and no join at all.
    let mut cursor = OwnerCursor::new(0..len as u32, limits);
    let first = cursor
        .claim_unshared()
        .expect("a non-empty range has a first chunk");
    if !cursor.worth_stealing() {
        return on_a_worker(|| fold_alone(len, limits, producer, consumer));
    }
    let work = Work {
        producer,
        consumer,
        len,
        below: None,
    };
    if len <= PRIVATE_ITEMS && !idle_worker_needs_work() {
        // A tiny range, and no idle worker would take it: shared only if one would before
        // the last claim (`own_privately`).
        return on_a_worker(move || own_privately(cursor, first, work));
    }
    let (first_work, rest) = work.split_at(first.end as usize);
    on_a_worker(move || {
        record_event(Event::ChunkTaken, 1);
        // The folder is made here, on the worker (it need not be `Send`).
        let run = Run {
            folder: first_work.consumer.into_folder(),
            below: first_work.below,
        };
        let first_chunk = Some((first_work.producer, first.end));
        share(cursor, None, run, first_chunk, rest)
    })
}

/// The owner of a tiny range (at most [`PRIVATE_ITEMS`] items) that nobody shares yet:
/// claims `min_len` items at a time on the cursor alone (no atomics) into one run, and
/// before each claim after the first asks whether an idle worker would take new work from
/// this one; if so, and what is left is worth stealing, it shares that from then on, as the
/// owner of a range made of it ([`share`]). A worker that falls idle while an item
/// runs thus waits at most that claim, as it would for an owner's first block. `first` was
/// claimed from `cursor` already; `work` stands for `first.start..len`.
fn own_privately<P, C>(
    mut cursor: OwnerCursor,
    first: Range<u32>,
    work: Work<P, C, C::Reducer>,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let may_continue = !cursor.chunks_capped();
    let (mut claim, mut work) = (first, work);
    let mut done = None;
    let mut run = None;
    // Counted here and recorded once per range (each record looks up the worker).
    let mut claims = 0;
    loop {
        let claimed = (claim.end - claim.start) as usize;
        let (piece, rest) = if cursor.remaining() == 0 {
            (work, None)
        } else {
            let (piece, rest) = work.split_at(claimed);
            (piece, Some(rest))
        };
        claims += 1;
        let Run { folder, below } = extend_run(
            &mut done,
            run.take(),
            piece.consumer,
            piece.below,
            may_continue,
        );
        let folder = fold_indexed(piece.producer, claimed, folder);
        let full = folder.full();
        let run_so_far = Run { folder, below };
        match rest {
            Some(rest) if !full => {
                if cursor.worth_stealing() && idle_worker_needs_work() {
                    record_event(Event::ChunkTaken, claims);
                    return share(cursor, done, run_so_far, None, rest);
                }
                claim = cursor
                    .claim_unshared()
                    .expect("a range with items left has a next chunk");
                (work, run) = (rest, Some(run_so_far));
            }
            // The last claim, or the consumer wants no more items.
            _ => {
                record_event(Event::ChunkTaken, claims);
                return reduce_below(done, run_so_far.below, run_so_far.folder.complete());
            }
        }
    }
}

/// Makes what `cursor` has not claimed (`rest` stands for it) a shared range and goes on as
/// its owner, folding into `run` (after `unfolded`, the rest of a claimed chunk, if any),
/// with a "steal me" job beside it: how every range from the start of [`drive_indexed`],
/// and a private one once an idle worker would take its rest ([`own_privately`]), is shared.
fn share<P, C>(
    cursor: OwnerCursor,
    done: Option<C::Result>,
    run: Run<C::Folder, C::Reducer>,
    unfolded: Option<(P, u32)>,
    rest: Work<P, C, C::Reducer>,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let handoff = Handoff::unclaimed_by(&cursor, rest);
    let (mine, stolen) = join_context_here(
        |_| own(&handoff, cursor, done, Some(run), unfolded),
        |ctx| steal_me(ctx, &handoff),
    );
    combine(mine, stolen)
}

/// A folder that has consumed one or more adjacent chunks (a *run*), and the reducer that
/// joins the run's result to whatever the owner folded before it (`None` for a range's
/// first run).
struct Run<F, R> {
    folder: F,
    below: Option<R>,
}

/// The owner's loop: fold chunk after chunk into one folder for as long as the consumer
/// lets the folder continue (`Consumer::continue_folder`), so per-folder state is made once
/// per owner; with `with_max_len`, one folder per chunk (`OwnerCursor::chunks_capped`). A
/// chunk is folded in blocks of about 50 µs (`OwnerCursor::block_took`); after each block
/// the owner publishes its "steal me" job if a worker is idle (at once if items are slow),
/// and after a steal it offers what is left again, carrying the unfolded rest of its chunk
/// along (`rest`: always folded into `run`, so `rest` implies `run`).
fn own<P, C>(
    handoff: &Shared<P, C>,
    mut cursor: OwnerCursor,
    mut done: Option<C::Result>,
    mut run: Option<Run<C::Folder, C::Reducer>>,
    mut rest: Option<(P, u32)>,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    // One clock read per block: a block's time runs from the previous read (so it includes
    // taking a chunk out of the hand-off, a few hundred instructions) to the end of its fold.
    // The first read waits until the first block is in hand, so that the first block's
    // rate, which sets the claim floor, is not inflated by this call's own set-up: a range
    // of a few thousand cheap items then takes two claims instead of three.
    let mut last_read: Option<Stamp> = None;
    // Our "steal me" job was just forked: with slow items, publish it right away.
    look_at_pool(&cursor);
    loop {
        let (mut producer, mut left, mut steal_seen) = match rest.take() {
            Some((producer, left)) => (producer, left, false),
            None => {
                let Some((chunk, work)) = handoff.take_chunk(&mut cursor) else {
                    break;
                };
                record_event(Event::ChunkTaken, 1);
                let may_continue = !cursor.chunks_capped();
                run = Some(extend_run(
                    &mut done,
                    run.take(),
                    work.consumer,
                    work.below,
                    may_continue,
                ));
                let len = chunk.indices.end - chunk.indices.start;
                (work.producer, len, chunk.steal_observed)
            }
        };
        let Run { mut folder, below } = run.take().expect("a chunk is folded into a run");
        loop {
            // The range's last chunk, if short at the measured rate, is folded whole and
            // untimed: no claim or block follows that its time could size.
            let timed = !cursor.is_short_last_chunk(left);
            let block = if timed { cursor.block_len(left) } else { left };
            let start = timed.then(|| *last_read.get_or_insert_with(clock::now));
            let tail = if block < left {
                let (head, tail) = producer.split_at(block as usize);
                folder = fold_indexed(head, block as usize, folder);
                Some(tail)
            } else {
                folder = fold_indexed(producer, left as usize, folder);
                None
            };
            if let Some(start) = start {
                let now = clock::now();
                cursor.block_took(block, start.until(now));
                last_read = Some(now);
            }
            if folder.full() {
                // Nobody wants more items: keep thieves off the rest and stop.
                handoff.close();
                return reduce_below(done, below, folder.complete());
            }
            left -= block;
            look_at_pool(&cursor);
            steal_seen |= handoff.peek_steal(&mut cursor);
            if steal_seen && cursor.worth_stealing() {
                let run = Run { folder, below };
                let rest = tail.map(|tail| (tail, left));
                return offer_rest(handoff, cursor, done, run, rest);
            }
            match tail {
                Some(tail) => producer = tail,
                None => break,
            }
        }
        run = Some(Run { folder, below });
    }
    match run {
        Some(Run { folder, below }) => reduce_below(done, below, folder.complete()),
        None => done.expect("an owner always keeps at least one chunk"),
    }
}

/// Between two blocks: make this owner's "steal me" job (its oldest private fork) stealable
/// if a worker is idle, or at once if items are slow, so that a worker falling idle during
/// the next block need not wait for its end.
#[inline]
fn look_at_pool(cursor: &OwnerCursor) {
    if cursor.items_are_slow() {
        publish_fork();
    } else {
        offer_forks();
    }
}

/// A thief consumed the owner's `steal_me`: offer what is left with a fresh one. The owner
/// goes on (with its run, which may hold `!Send` state, and the rest of its chunk) as the
/// `a` of a join that stays on this thread.
fn offer_rest<P, C>(
    handoff: &Shared<P, C>,
    cursor: OwnerCursor,
    done: Option<C::Result>,
    run: Run<C::Folder, C::Reducer>,
    rest: Option<(P, u32)>,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let (mine, stolen) = join_context_here(
        |_| own(handoff, cursor, done, Some(run), rest),
        |ctx| steal_me(ctx, handoff),
    );
    combine(mine, stolen)
}

/// Adds a chunk's consumer piece to the owner's run: it continues the run's folder if
/// `may_continue` (no `with_max_len` cap) and the consumer allows it; otherwise the run is
/// completed into `done` and a new run starts.
fn extend_run<C, T>(
    done: &mut Option<C::Result>,
    run: Option<Run<C::Folder, C::Reducer>>,
    consumer: C,
    chunk_below: Option<C::Reducer>,
    may_continue: bool,
) -> Run<C::Folder, C::Reducer>
where
    C: Consumer<T>,
{
    let (consumer, finished) = match run {
        Some(Run { folder, below }) if may_continue => match consumer.continue_folder(folder) {
            // The chunk's own reducer (`chunk_below`) joins it to the run: not needed.
            Ok(folder) => return Run { folder, below },
            Err((consumer, folder)) => (consumer, Some(Run { folder, below })),
        },
        run => (consumer, run),
    };
    if let Some(Run { folder, below }) = finished {
        *done = Some(reduce_below(done.take(), below, folder.complete()));
    }
    Run {
        folder: consumer.into_folder(),
        below: chunk_below,
    }
}

/// The driver on a pool of one thread: folds chunk after chunk in index order, each of at
/// most `limits.max_len()` items (and at least `min_len`, [`ChunkLimits::fit_claim`]) and
/// into a folder of its own (just one chunk without a cap), stopping early once the
/// consumer is full.
fn fold_alone<P, C>(len: usize, limits: ChunkLimits, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let (mut producer, mut consumer, mut left) = (producer, consumer, len);
    // What the chunks so far made, and the reducer that joins it to the next chunk's result.
    let mut done: Option<(C::Result, C::Reducer)> = None;
    while left > limits.max_len() && !consumer.full() {
        let chunk = limits.fit_claim(limits.max_len(), left);
        if chunk == left {
            break; // the last chunk, which took a crumb along
        }
        let (chunk_producer, rest_producer) = producer.split_at(chunk);
        let (chunk_consumer, rest_consumer, reducer) = consumer.split_at_sized(chunk, left);
        record_event(Event::ChunkTaken, 1);
        let result = fold_indexed(chunk_producer, chunk, chunk_consumer.into_folder()).complete();
        done = Some(match done {
            None => (result, reducer),
            Some((before, joins)) => (joins.reduce(before, result), reducer),
        });
        (producer, consumer, left) = (rest_producer, rest_consumer, left - chunk);
    }
    let last = if consumer.full() {
        consumer.into_folder().complete()
    } else {
        record_event(Event::ChunkTaken, 1);
        fold_indexed(producer, left, consumer.into_folder()).complete()
    };
    match done {
        None => last,
        Some((before, reducer)) => reducer.reduce(before, last),
    }
}

/// `done` (what the owner folded before a run) joined with the run's `result`.
fn reduce_below<T, R: Reducer<T>>(done: Option<T>, below: Option<R>, result: T) -> T {
    match (done, below) {
        (Some(left), Some(reducer)) => reducer.reduce(left, result),
        (None, _) => result,
        (Some(_), None) => unreachable!("only a range's first piece has no lower neighbour"),
    }
}

/// The `b` of the owner's join: on a thief, take the upper half of what is left and drive
/// it as a new range; on the owner (nobody stole it), find nothing worth taking.
fn steal_me<P, C>(ctx: FnContext, handoff: &Shared<P, C>) -> Option<(C::Reducer, C::Result)>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if !ctx.migrated() {
        // Popped back by the owner: it has exhausted (or closed) the range already.
        return None;
    }
    let (indices, work) = handoff.steal_half()?;
    record_event(Event::RangeSteal, 1);
    let below = work.below.expect("a stolen piece has a lower neighbour");
    let len = (indices.end - indices.start) as usize;
    Some((below, drive_indexed(len, work.producer, work.consumer)))
}

/// Joins the owner's result with what a thief made of the upper part, if anything.
fn combine<R, T: Reducer<R>>(mine: R, stolen: Option<(T, R)>) -> R {
    match stolen {
        Some((reducer, theirs)) => reducer.reduce(mine, theirs),
        None => mine,
    }
}
