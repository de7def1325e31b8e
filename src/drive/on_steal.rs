//! The on-steal driver: an indexed loop runs as one *range* of indices on the worker that
//! starts it, and is split only when a thief (an idle worker) actually takes part of it.
//! `README.md` has the protocol, its invariants and the measurements; this comment follows
//! the life of a loop in the order the code below runs it.
//!
//! # Words
//!
//! - **owner**: the worker that folds a range from its low end. **thief**: a worker that
//!   takes the upper half of what the owner has not claimed.
//! - **chunk**: indices the owner claims in one step (`OwnerCursor::claim_unshared` before
//!   the range is shared, `Handoff::take_chunk` after), with their piece of the producer
//!   and consumer (a [`Work`]).
//! - **unclaimed**: the indices no chunk covers yet, and their [`Work`]; once the range is
//!   shared they sit in the hand-off, where owner and thieves cut their pieces from them.
//! - **block**: what the owner folds of a chunk between two looks at the pool.
//! - **unfolded**: the part of the owner's current chunk it has not folded yet
//!   ([`Unfolded`]).
//! - **run**: one folder fed with adjacent chunks, and the reducer that joins its result to
//!   what the owner folded before it ([`Run`]). **completed**: the results of the owner's
//!   earlier runs, reduced into one.
//! - **steal-me**: the `b` of the owner's `join`. On a thief it takes the **stolen part**,
//!   the upper half of the unclaimed indices, and drives it as a loop of its own.
//!
//! # The life of a loop
//!
//! 1. **Start** ([`drive_indexed`]). A loop is folded *inline*, here and now with no range
//!    at all, on a worker of a pool of one, and when it is nested in the items of an owner
//!    (step 5) that has measured them to be cheap and the loop is not much longer than an
//!    item (`pool::fold_inline`, `OwnerCursor::nested_inline_limit`): whole up to
//!    [`INLINE_CLAIM`] items, in private claims of that many if longer
//!    ([`fold_inline_in_claims`]). An idle worker gets the owner's steal-me (or an older
//!    fork) instead, a larger piece than a part of this loop. A loop not folded inline that
//!    has nothing to share (empty, or on a pool of one worker: called from outside it, or
//!    capped by `with_max_len`) is folded at once ([`fold_alone`]); one longer than a range
//!    can hold is halved with `join` first.
//! 2. **First chunk** ([`start_range`]). The owner claims it before anybody can see
//!    the range. If what is left is too little to steal from, the loop is folded at once.
//! 3. **Private start** ([`own_privately`]). A tiny loop that no idle worker would take is
//!    claimed and folded chunk by chunk on the cursor alone, and shared only once an idle
//!    worker would take its unclaimed part. Inline loops longer than a claim go on here
//!    too. A loop of at least 16 items per thread folds its first claim privately and
//!    times it ([`own_timed_start`]): if the rest takes at most 4 µs at that rate, it is
//!    folded here too, and nothing is ever shared. So does a shorter loop whose type's last
//!    loop on this worker was that short ([`loop_key`]).
//! 4. **Share** ([`share`]): the unclaimed indices go into a hand-off, and the owner
//!    **offers** them ([`Owner::offer`]): a `join` whose `a` is the owner's loop and whose
//!    `b` is steal-me, a private fork of the worker until some worker is idle.
//! 5. **Own** ([`Owner::own`]): take a chunk, fold it block by block, and after each block
//!    look at the pool: publish steal-me if a worker is idle (at once if items are slow),
//!    and see whether a thief took it. While it folds, loops nested in its items may be
//!    folded inline (step 1), as far as its last block's rate allows (`pool::InlineLimit`).
//! 6. **Steal** ([`steal_me`]): a thief takes the stolen part and drives it from step 1;
//!    it is an owner now, and may be robbed in turn.
//! 7. **Offer again**: an owner that sees its steal-me taken offers what is left with a
//!    fresh one (step 4 without a new hand-off), carrying its run and the unfolded part of
//!    its chunk into the new `join`'s `a`, and publishes it at once, idle worker or not.
//! 8. **Finish**: once the range is exhausted (or the consumer is full) the owner completes
//!    its run ([`Owner::finish`]). A steal-me nobody took is popped back and finds nothing.
//!    Each `join` reduces the owner's result with its thief's on the right: a thief always
//!    takes the upper neighbour of what its owner keeps, so results combine in index order
//!    (`README.md`, "Why results stay in index order").

use core::ops::Range;

use super::clock::{self, Stamp};
use super::steal_range::{ChunkLimits, Handoff, OwnerCursor, SplitAt, MAX_RANGE_LEN};
use super::{fold_consumer, fold_indexed};
use crate::plumbing::{Consumer, Folder, Producer, Reducer};
use crate::pool::{
    any_pool_records, anyone_idle, current_num_threads, fold_inline, fold_inline_fast,
    idle_worker_needs_work, join_context_erased, join_context_here, loop_hint, offer_forks,
    on_a_worker, publish_fork, record_event, set_loop_hint, trace_claim, trace_fold,
    trace_loop_here, trace_piece, trace_range_steal, trace_whole_loop_cold, trace_whole_loop_here,
    Event, FnContext, Inline, InlineLimit, SHORT_PATH_MAX,
};

/// A range of at most this many items starts private while no idle worker would take new
/// work from this one ([`own_privately`]): no hand-off, no steal-me and no clock reads,
/// unless that changes before the last chunk. Sharing a range costs about 50 ns (two clock
/// reads, the hand-off and its first shared claim, a fork), a private chunk 40–50
/// instructions (a producer and a consumer split, a folder continuation, the idle test):
/// about the same at this length (`README.md`, section 1). A count of items, not of
/// `min_len` chunks, because a private chunk is folded without a look at the pool: a
/// `with_min_len` chunk of many items would leave an idle worker waiting for all of them.
const PRIVATE_ITEMS: usize = 8;

/// A loop of at least this many items per thread, on a pool of more than one, starts with
/// a timed private claim ([`own_timed_start`]), so a thief that cannot take part of the
/// loop until that claim is folded waits at most 1/16 of what it would fold anyway: a loop
/// of `16 * threads` equal items takes up to `(1 - 1 / threads) / 16` longer than if it had
/// been offered at once (3% at two threads; 32 items of 200 µs measured 3.5 ms against
/// 3.4), a longer one less. Shorter loops are offered before their first item runs, so
/// that a loop of two slow items runs them on two workers, unless the last loop of their
/// type on this worker measured its items short ([`loop_key`]). 16, not more: at 2
/// threads a sequential loop of 32- or 64-item loops of cheap items took 320-350 ns per
/// loop with the offer (Rayon's 140-290) and 80-105 ns without.
const TIMED_START_MIN_PER_THREAD: usize = 16;

/// The timed first claim takes one item per this many of a thread's share
/// (`len / threads / 64`, at least one, at most [`TIMED_START_ITEMS`]): from 64 items per
/// thread on, the wait is at most 1/64 of a thief's share (about 1.6% of a loop of equal
/// items), and the claim is long enough to time cheap items well.
const TIMED_START_ITEMS_PER_THREAD: usize = 64;

/// The longest timed first claim. Few items, because loops nested in them cannot be folded
/// inline yet (no rate is known, so each takes the shared path, as in the first item of any
/// owner); enough that the clock's own cost (two reads, about 25 ns) does not make a loop
/// of a thousand cheap items look longer than a claim's worth.
const TIMED_START_ITEMS: usize = 4;

/// A loop nested in an owner's cheap items and allowed inline (`pool::fold_inline`) is
/// folded whole up to this many items, and in private claims of this many items if longer,
/// with a look at the pool between two claims ([`fold_inline_in_claims`]): a worker that
/// falls idle with nothing older to take waits for at most one claim, even if the loop's
/// items turn out much slower than its owner's average item. An extra claim costs about
/// 100 instructions (a producer and a consumer split, a folder continuation, a call of the
/// leaf loop, the idle test): a sixth more for 256 of the cheapest items (a sum of `u64`),
/// a few percent for items that do some work.
const INLINE_CLAIM: usize = SHORT_PATH_MAX as usize;

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

/// Step 1: runs `consumer` over the `len` items of `producer`. The short path, kept small
/// enough to inline into its caller: a loop of at most [`INLINE_CLAIM`] items folded whole,
/// here and now, as in a pool of one worker or inside an owner's items when they are cheap
/// (`pool::fold_inline`). That is the path of every small loop nested in a parallel loop's
/// items, so it holds one look at the current worker, one at the trace flag and the call of
/// the leaf loop; everything else is out of line ([`drive_indexed_elsewhere`]).
///
/// Inlined into the caller only if every hop between a consumer method and here is too
/// (`sum` → `Map::drive_unindexed` → `Iter::drive_unindexed` → `bridge` →
/// `with_producer` → the callback → here): the common sources (slices, ranges, `Vec`s,
/// chunks), adapters (`map`, `copied`/`cloned`, `enumerate`, `zip`) and reducing
/// consumers mark their hops `#[inline]`. Without the hint LLVM stopped at the first hop
/// and called a function holding the whole short path (callgrind, a crate depending on
/// weft, inner loops of 16 `u64`: 49 instructions per inner loop over the sequential code
/// with the call, 24 inlined; 256 items: 7% over, 2.4%).
#[inline]
pub(super) fn drive_indexed<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    // `fold_inline_fast` admits at most `INLINE_CLAIM` items (one more in a pool of one).
    if len <= producer.max_len() && fold_inline_fast(len) != Inline::No {
        // At most `INLINE_CLAIM` items: the leaf loop inline too, as a sequential loop
        // written here would be (no call, no producer or folder passed through memory).
        // A worker of a pool that records never gets here (`fold_inline_fast`).
        return producer.fold_with(consumer.into_folder()).complete();
    }
    // One tuple built here, on the way out: passed by reference to a copy made in this
    // branch. Passed as three arguments, the consumer went by reference to the caller's own
    // copy, whose stores LLVM then made on every call, inline path included (callgrind,
    // a crate depending on weft, inner loops of 16 `u64`: 3 instructions per inner loop).
    drive_indexed_elsewhere((len, producer, consumer))
}

/// A loop nested in an owner's cheap items, longer than [`INLINE_CLAIM`]: folded privately
/// in claims of that many items, with a look at the pool between two ([`own_privately`]).
#[inline(never)]
fn fold_inline_in_claims<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let limits = ChunkLimits::new(producer.min_len(), producer.max_len());
    let mut cursor = OwnerCursor::new(0..len as u32, limits);
    let first = cursor
        .claim_unshared_up_to(INLINE_CLAIM as u32)
        .expect("a loop longer than a claim has a first one");
    let work = Work {
        producer,
        consumer,
        len,
        below: None,
    };
    // `fold_inline` counted the first chunk.
    own_privately(cursor, first, work, Some(INLINE_CLAIM as u32), 1)
}

/// An inline loop folded whole, into one folder (a trace sees one loop of one piece).
#[inline(always)]
fn fold_whole_here<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    trace_whole_loop_here(len, || fold_consumer(producer, len, consumer)).complete()
}

/// The rest of step 1: a loop longer than [`INLINE_CLAIM`] or not folded inline. Its
/// arguments come as one tuple: see the call in [`drive_indexed`].
#[inline(never)]
fn drive_indexed_elsewhere<P, C>((len, producer, consumer): (usize, P, C)) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    // Loops of at most `INLINE_CLAIM` items asked `fold_inline_fast` in `drive_indexed`
    // already, which says no on a worker of a pool that records: such a worker asks again
    // here, and records the loop.
    if len <= INLINE_CLAIM
        && len <= producer.max_len()
        && any_pool_records()
        && fold_inline(len) != Inline::No
    {
        return trace_whole_loop_cold(len, || producer.fold_with(consumer.into_folder()))
            .complete();
    }
    if let Some(leaf) = super::fixed_tree::inherited_leaf(len, &producer) {
        return super::fixed_tree::drive(len, leaf, producer, consumer);
    }
    // Only a `bench-internals` build can ask for it: a user's build compiles no
    // split-in-half driver, and no `join` of its own, into every indexed loop.
    #[cfg(feature = "bench-internals")]
    if super::halving_for_indexed() {
        return super::halving::drive_indexed(len, producer, consumer);
    }
    if len > INLINE_CLAIM && len <= producer.max_len() {
        match fold_inline(len) {
            Inline::Alone => return fold_whole_here(len, producer, consumer),
            Inline::Nested => {
                return trace_loop_here(|| fold_inline_in_claims(len, producer, consumer))
            }
            Inline::No => {}
        }
    }
    if len > MAX_RANGE_LEN {
        // A range holds u32 indices: halve longer work first (64-bit lengths only).
        let mid = len / 2;
        let (left_producer, right_producer) = producer.split_at(mid);
        let (left_consumer, right_consumer, reducer) = consumer.split_at_sized(mid, len);
        // Erased: this join runs for loops of over 2^32 items only, yet every indexed loop
        // compiles it.
        let (left, right) = join_context_erased(
            |_| drive_indexed(mid, left_producer, left_consumer),
            |_| drive_indexed(len - mid, right_producer, right_consumer),
        );
        return reducer.reduce(left, right);
    }
    start_range(len, producer, consumer)
}

/// How [`start_range`] runs a loop; the last three with the owner's first chunk, claimed.
/// `learn`: the loop is shorter than [`TIMED_START_MIN_PER_THREAD`] items per thread, and
/// its first timed block records what it shows of the items for the next loop of its type
/// on this worker ([`loop_key`]).
enum Start {
    /// Nothing to share or nobody to share it with: [`fold_alone`].
    Alone,
    /// A tiny range that no idle worker would take now: [`own_privately`].
    Private(Range<u32>),
    /// A loop long enough that its first claim can be timed before anything is shared, or
    /// a short one whose type's last loop here was short in time: [`own_timed_start`].
    Timed { first: Range<u32>, learn: bool },
    /// Shared from the start: [`share`].
    Shared { first: Range<u32>, learn: bool },
}

/// The signature of [`own_timed_start`], whose address is a loop type's key.
type TimedStart<P, C> = fn(
    OwnerCursor,
    Range<u32>,
    Work<P, C, <C as Consumer<<P as Producer>::Item>>::Reducer>,
    bool,
) -> <C as Consumer<<P as Producer>::Item>>::Result;

/// Identifies the type of a loop over `P` and `C` to `pool::loop_hint`: the address of its
/// [`own_timed_start`], one function per producer and consumer type (two types compiled to
/// the same code may share one: the same code runs the same items). Short loops read and
/// write their type's hint: the items that `SHORT_REST_TIME` (4 µs) covers at the rate the
/// last one of them measured (`OwnerCursor::short_rest_items`).
#[inline(always)]
fn loop_key<P, C>() -> usize
where
    P: Producer,
    C: Consumer<P::Item>,
{
    own_timed_start::<P, C> as TimedStart<P, C> as usize
}

/// Records for the next short loop of this type on this worker what `cursor`'s last timed
/// block showed of its items ([`loop_key`]).
fn remember_items<P, C>(cursor: &OwnerCursor)
where
    P: Producer,
    C: Consumer<P::Item>,
{
    set_loop_hint(loop_key::<P, C>(), cursor.short_rest_items());
}

/// The end of step 1 and steps 2 to 4 of [`drive_indexed`], for `len <= MAX_RANGE_LEN`:
/// decides how the loop runs, then moves onto a worker once for all three ways (one `on_a_worker` closure per
/// loop type instead of one per way: each is an injection path compiled into every loop).
fn start_range<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let limits = ChunkLimits::new(producer.min_len(), producer.max_len());
    // The owner's first chunk is claimed before the range is shared, so it costs no atomic
    // and no trip through the hand-off slot; a thief sees the range as it would have right
    // after that claim. If what is left then is too short to steal from (under `min_len`
    // items: none, without `with_min_len`), nobody ever could: no range and no join at
    // all. A single item left is stealable: a loop of two slow items runs on two workers.
    let mut cursor = OwnerCursor::new(0..len as u32, limits);
    let threads = current_num_threads();
    let start = if len == 0 || threads == 1 {
        // Nothing to share, or nobody to share it with: no range at all, and one chunk
        // with one folder (so `map_init` and friends call `init` once), unless
        // `with_max_len` caps the items a folder may see. Called from outside the pool,
        // still on a worker (as when there are more threads): closures see the pool's
        // thread names, thread locals and `current_thread_index`.
        Start::Alone
    } else {
        // A timed start needs claims of single items (no `with_min_len`) and one folder for
        // all of them (no `with_max_len`).
        let per_thread = len / threads;
        let unlimited = limits.is_unlimited();
        // With a worker idle, the rest is offered before the first item runs: an item may
        // wait for a later one, which that worker must be able to take.
        let private_start_allowed = !anyone_idle();
        let timed = per_thread >= TIMED_START_MIN_PER_THREAD && unlimited && private_start_allowed;
        let first = if timed {
            let first_len = (per_thread / TIMED_START_ITEMS_PER_THREAD).clamp(1, TIMED_START_ITEMS);
            cursor.claim_unshared_up_to(first_len as u32)
        } else {
            cursor.claim_unshared()
        }
        .expect("a non-empty range has a first chunk");
        if !cursor.worth_stealing() {
            Start::Alone
        } else if len <= PRIVATE_ITEMS && !idle_worker_needs_work() {
            // A tiny range, and no idle worker would take it: shared only if one would
            // before the last chunk.
            Start::Private(first)
        } else if timed {
            Start::Timed {
                first,
                learn: false,
            }
        } else if unlimited
            && private_start_allowed
            && len <= loop_hint(loop_key::<P, C>()) as usize
        {
            // A short loop whose type's last loop on this worker measured it short in time
            // (at most `SHORT_REST_TIME`): timed first, as a long loop is, and shared only if
            // its first item says otherwise. Unknown or slow: offered before any item runs.
            Start::Timed { first, learn: true }
        } else {
            Start::Shared {
                first,
                learn: unlimited,
            }
        }
    };
    let work = Work {
        producer,
        consumer,
        len,
        below: None,
    };
    on_a_worker(move || match start {
        Start::Alone => fold_alone(len, limits, work.producer, work.consumer),
        Start::Private(first) => own_privately(cursor, first, work, None, 0),
        Start::Timed { first, learn } => own_timed_start(cursor, first, work, learn),
        Start::Shared { first, learn } => share_from_start(cursor, first, work, learn),
    })
}

/// [`start_range`] sharing the range from the start, on the owner's worker: the first chunk,
/// claimed already, is folded first, then the rest is shared. `learn`: the owner's first
/// timed block records its rate for the loop's type ([`loop_key`]).
#[inline(always)]
fn share_from_start<P, C>(
    cursor: OwnerCursor,
    first: Range<u32>,
    work: Work<P, C, C::Reducer>,
    learn: bool,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let (first_work, unclaimed) = work.split_at(first.end as usize);
    record_event(Event::ChunkTaken, 1);
    trace_claim(first.clone());
    // The folder is made here, on the worker (it need not be `Send`).
    let run = Run {
        folder: first_work.consumer.into_folder(),
        below: first_work.below,
    };
    let first_chunk = Unfolded {
        producer: first_work.producer,
        len: first.end,
        steal_seen: false,
    };
    share(cursor, None, run, Some(first_chunk), unclaimed, learn)
}

/// Step 3: the owner of a range that nobody shares yet: a tiny one (at most
/// [`PRIVATE_ITEMS`] items, claims as the cursor sizes them, `claim_len` `None`) or an
/// inline loop longer than a claim (claims of `claim_len` items). Claims on the cursor
/// alone (no atomics) into one run, and before each chunk after the first asks whether an
/// idle worker would take new work from this one; if so, and the unclaimed part is worth
/// stealing, it shares that part from then on ([`share`]). A worker that falls idle while
/// an item runs thus waits at most one chunk, as it would for an owner's first block.
/// `first` was claimed from `cursor` already; `work` stands for `first.start..len`;
/// `counted` chunks were recorded already.
fn own_privately<P, C>(
    mut cursor: OwnerCursor,
    first: Range<u32>,
    work: Work<P, C, C::Reducer>,
    claim_len: Option<u32>,
    counted: u64,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let may_continue = !cursor.chunks_capped();
    let (mut chunk, mut work) = (first, work);
    let mut completed = None;
    let mut run = None;
    // Counted here and recorded once per range (each record looks up the worker).
    let mut chunks = 0;
    loop {
        let chunk_len = (chunk.end - chunk.start) as usize;
        let (piece, unclaimed) = if cursor.remaining() == 0 {
            (work, None)
        } else {
            let (piece, unclaimed) = work.split_at(chunk_len);
            (piece, Some(unclaimed))
        };
        chunks += 1;
        let Run { folder, below } = extend_run(
            &mut completed,
            run.take(),
            piece.consumer,
            piece.below,
            may_continue,
        );
        let folder = trace_piece(chunk.clone(), || {
            fold_indexed(piece.producer, chunk_len, folder)
        });
        let full = folder.full();
        let run_so_far = Run { folder, below };
        match unclaimed {
            Some(unclaimed) if !full => {
                if cursor.worth_stealing() && idle_worker_needs_work() {
                    record_event(Event::ChunkTaken, chunks - counted);
                    return share(cursor, completed, run_so_far, None, unclaimed, false);
                }
                chunk = match claim_len {
                    None => cursor.claim_unshared(),
                    Some(len) => cursor.claim_unshared_up_to(len),
                }
                .expect("a range with items left has a next chunk");
                (work, run) = (unclaimed, Some(run_so_far));
            }
            // The last chunk, or the consumer wants no more items.
            _ => {
                record_event(Event::ChunkTaken, chunks - counted);
                return reduce_below(completed, run_so_far.below, run_so_far.folder.complete());
            }
        }
    }
}

/// Step 3, for a loop of many items per thread, or a short one whose type was short in
/// time last time (`learn`: it records its measured rate for the next one, [`loop_key`]):
/// its first claim (`first`, claimed from `cursor` already, at most [`TIMED_START_ITEMS`]
/// items) is folded privately and timed. If the rest takes at most 4 µs at that rate
/// (`OwnerCursor::rest_is_short`), a thief could save less than sharing costs: the rest is
/// folded here, unshared, with no hand-off, no steal-me and no further clock read.
/// Otherwise the rest is shared ([`share`]), its first claim sized by the time already
/// measured. So a small loop of cheap items costs on a pool of many threads about what it
/// costs on a pool of one, idle workers or not, and an idle worker waits for at most the
/// first claim of a long one.
///
/// The rest is one piece folded by the run's folder, as a shared owner's one claim of it
/// would be; loops nested in its items are folded inline as far as the measured rate
/// allows (`pool::InlineLimit`), as in [`Owner::fold_chunk`].
fn own_timed_start<P, C>(
    mut cursor: OwnerCursor,
    first: Range<u32>,
    work: Work<P, C, C::Reducer>,
    learn: bool,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let first_len = (first.end - first.start) as usize;
    let (piece, unclaimed) = work.split_at(first_len);
    record_event(Event::ChunkTaken, 1);
    let start = clock::now();
    let folder = piece.consumer.into_folder();
    let folder = trace_piece(first.clone(), || {
        fold_indexed(piece.producer, first_len, folder)
    });
    cursor.block_took(first.end - first.start, start.until(clock::now()));
    if learn {
        remember_items::<P, C>(&cursor);
    }
    if folder.full() {
        return reduce_below(None, piece.below, folder.complete());
    }
    let run = Run {
        folder,
        below: piece.below,
    };
    if !cursor.rest_is_short() {
        return share(cursor, None, run, None, unclaimed, false);
    }
    record_event(Event::ChunkTaken, 1);
    let mut completed = None;
    let Run { folder, below } = extend_run(
        &mut completed,
        Some(run),
        unclaimed.consumer,
        unclaimed.below,
        true,
    );
    let _inline = InlineLimit::set(cursor.nested_inline_limit());
    let rest = first.end..unclaimed.len as u32 + first.end;
    let folder = trace_piece(rest, || {
        fold_indexed(unclaimed.producer, unclaimed.len, folder)
    });
    reduce_below(completed, below, folder.complete())
}

/// Step 4: makes `unclaimed` (the indices `cursor` has not claimed) a shared range and
/// offers it, going on as its owner with `completed`, `run` and the unfolded part of its
/// chunk, if any: how every range from [`start_range`], and a private one once an
/// idle worker would take its unclaimed part ([`own_privately`]), is shared.
fn share<P, C>(
    cursor: OwnerCursor,
    completed: Option<C::Result>,
    run: Run<C::Folder, C::Reducer>,
    unfolded: Option<Unfolded<P>>,
    unclaimed: Work<P, C, C::Reducer>,
    learn: bool,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let handoff = Handoff::unclaimed_by(&cursor, unclaimed);
    let owner = Owner {
        handoff: &handoff,
        cursor,
        completed,
        run: Some(run),
        last_read: None,
        learn,
    };
    owner.offer(unfolded, false)
}

/// A folder that has consumed one or more adjacent chunks (a *run*), and the reducer that
/// joins the run's result to whatever the owner folded before it (`None` for a range's
/// first run).
struct Run<F, R> {
    folder: F,
    below: Option<R>,
}

/// The unfolded part of the owner's current chunk: its producer piece (the consumer piece
/// is in the run already), its length, and whether the claim that took the chunk saw a
/// steal.
struct Unfolded<P> {
    producer: P,
    len: u32,
    steal_seen: bool,
}

/// How the owner's fold of a chunk ended.
enum ChunkEnd<P, T> {
    /// All of it is folded.
    Folded,
    /// The consumer wants no more items: the owner's final result.
    Full(T),
    /// A thief took steal-me: offer again, with what is still unfolded.
    StealSeen(Option<Unfolded<P>>),
}

/// The owner of a shared range (steps 4 to 8). It holds the range's hand-off, its cursor,
/// the results of its completed runs and its open run. While the range is offered, the
/// owner lives in the `a` of a `join` that stays on this thread, so the run's folder may
/// hold a `!Send` state.
struct Owner<'h, P, C>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    handoff: &'h Shared<P, C>,
    cursor: OwnerCursor,
    completed: Option<C::Result>,
    /// `None` only while a chunk is folded (its folder is a local of `fold_chunk` then).
    run: Option<Run<C::Folder, C::Reducer>>,
    /// One clock read per block: a block's time runs from the previous read (so it includes
    /// taking a chunk out of the hand-off, a few hundred instructions) to the end of its
    /// fold. The first read of an offer waits until the first block is in hand, so that
    /// the first block's rate, which sets the claim floor, is not inflated by the offer's
    /// own set-up: a range of a few thousand cheap items then takes two claims, not three.
    last_read: Option<Stamp>,
    /// The next timed block records its rate for the loop's type ([`loop_key`]): set for
    /// a short loop shared from its start, cleared once recorded.
    learn: bool,
}

impl<P, C> Owner<'_, P, C>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    /// Steps 4 and 7: a `join` of the owner's loop (`a`, on this thread) and a fresh
    /// steal-me (`b`), then the owner's result reduced with what a thief made of the
    /// stolen part, if any. `again`: a thief took the previous steal-me (step 7).
    fn offer(mut self, unfolded: Option<Unfolded<P>>, again: bool) -> C::Result {
        let handoff = self.handoff;
        self.last_read = None;
        let (mine, stolen) =
            join_context_here(|_| self.own(unfolded, again), |ctx| steal_me(ctx, handoff));
        combine(mine, stolen)
    }

    /// Step 5: fold chunk after chunk (the unfolded one first) into the run, for as long as
    /// the consumer lets the run's folder continue (`Consumer::continue_folder`), so
    /// per-folder state is made once per owner; with `with_max_len`, one folder per chunk
    /// (`OwnerCursor::chunks_capped`). Ends when the range is exhausted or the consumer is
    /// full, or in a new offer once a thief took steal-me.
    fn own(mut self, mut unfolded: Option<Unfolded<P>>, again: bool) -> C::Result {
        // Steal-me was just forked: with slow items, publish it right away. After a steal
        // too: the thief, or another worker that stole, is likely to be idle again before
        // this owner's next look at the pool, a block away (a loop of 4 items of 4 µs at
        // 2 threads: the thief of the last item waited for the owner's second item to end,
        // and the loop took 1.4 times Rayon's time). A deque push per steal seen.
        if again {
            publish_fork();
        } else {
            self.look_at_pool();
        }
        loop {
            let Some(chunk) = unfolded.take().or_else(|| self.take_chunk()) else {
                return self.finish();
            };
            match self.fold_chunk(chunk) {
                ChunkEnd::Folded => {}
                ChunkEnd::Full(result) => return result,
                ChunkEnd::StealSeen(unfolded) => return self.offer(unfolded, true),
            }
        }
    }

    /// Claims the next chunk from the hand-off and adds its consumer piece to the run;
    /// `None` once the range is exhausted.
    fn take_chunk(&mut self) -> Option<Unfolded<P>> {
        let (chunk, work) = self.handoff.take_chunk(&mut self.cursor)?;
        record_event(Event::ChunkTaken, 1);
        trace_claim(chunk.indices.clone());
        let may_continue = !self.cursor.chunks_capped();
        self.run = Some(extend_run(
            &mut self.completed,
            self.run.take(),
            work.consumer,
            work.below,
            may_continue,
        ));
        Some(Unfolded {
            producer: work.producer,
            len: chunk.indices.end - chunk.indices.start,
            steal_seen: chunk.steal_observed,
        })
    }

    /// Folds `chunk` into the run block by block (blocks of about 50 µs,
    /// `OwnerCursor::block_took`), looking at the pool after each block.
    fn fold_chunk(&mut self, chunk: Unfolded<P>) -> ChunkEnd<P, C::Result> {
        let Unfolded {
            mut producer,
            mut len,
            mut steal_seen,
        } = chunk;
        let Run { mut folder, below } = self.run.take().expect("a chunk is folded into a run");
        // Loops nested in these items may be folded whole if the items are cheap.
        let inline = InlineLimit::set(self.cursor.nested_inline_limit());
        loop {
            // The range's last chunk, if short at the measured rate, is folded whole and
            // untimed: no claim or block follows that its time could size.
            let timed = !self.cursor.is_short_last_chunk(len);
            let block = if timed {
                self.cursor.block_len(len)
            } else {
                len
            };
            let start = timed.then(|| *self.last_read.get_or_insert_with(clock::now));
            let tail = if block < len {
                let (head, tail) = producer.split_at(block as usize);
                folder = trace_fold(block, || fold_indexed(head, block as usize, folder));
                Some(tail)
            } else {
                folder = trace_fold(len, || fold_indexed(producer, len as usize, folder));
                None
            };
            if let Some(start) = start {
                let now = clock::now();
                self.cursor.block_took(block, start.until(now));
                self.last_read = Some(now);
                if self.learn {
                    self.learn = false;
                    remember_items::<P, C>(&self.cursor);
                }
                inline.update(self.cursor.nested_inline_limit());
            }
            if folder.full() {
                // Nobody wants more items: keep thieves off the unclaimed part and stop.
                self.handoff.close();
                let completed = self.completed.take();
                return ChunkEnd::Full(reduce_below(completed, below, folder.complete()));
            }
            len -= block;
            self.look_at_pool();
            steal_seen |= self.handoff.peek_steal(&mut self.cursor);
            if steal_seen && self.cursor.worth_stealing() {
                self.run = Some(Run { folder, below });
                let unfolded = tail.map(|producer| Unfolded {
                    producer,
                    len,
                    steal_seen: false,
                });
                return ChunkEnd::StealSeen(unfolded);
            }
            match tail {
                Some(tail) => producer = tail,
                None => break,
            }
        }
        self.run = Some(Run { folder, below });
        ChunkEnd::Folded
    }

    /// Between two blocks: make steal-me (this worker's oldest private fork) stealable if a
    /// worker is idle, or at once if items are slow, so that a worker falling idle during
    /// the next block need not wait for its end.
    #[inline]
    fn look_at_pool(&self) {
        if self.cursor.items_are_slow() {
            publish_fork();
        } else {
            offer_forks();
        }
    }

    /// Step 8: the owner's result, its open run completed and reduced with its completed
    /// ones.
    fn finish(self) -> C::Result {
        let Run { folder, below } = self.run.expect("an owner's run is open between chunks");
        reduce_below(self.completed, below, folder.complete())
    }
}

/// Adds a chunk's consumer piece to the owner's run: it continues the run's folder if
/// `may_continue` (no `with_max_len` cap) and the consumer allows it; otherwise the run is
/// completed into `completed` and a new run starts.
fn extend_run<C, T>(
    completed: &mut Option<C::Result>,
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
        *completed = Some(reduce_below(completed.take(), below, folder.complete()));
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
    let mut completed: Option<(C::Result, C::Reducer)> = None;
    while left > limits.max_len() && !consumer.full() {
        let chunk = limits.fit_claim(limits.max_len(), left);
        if chunk == left {
            break; // the last chunk, which took a crumb along
        }
        let (chunk_producer, rest_producer) = producer.split_at(chunk);
        let (chunk_consumer, rest_consumer, reducer) = consumer.split_at_sized(chunk, left);
        record_event(Event::ChunkTaken, 1);
        let piece = len - left..len - left + chunk;
        let folder = trace_piece(piece, || {
            fold_consumer(chunk_producer, chunk, chunk_consumer)
        });
        let result = folder.complete();
        completed = Some(match completed {
            None => (result, reducer),
            Some((before, joins)) => (joins.reduce(before, result), reducer),
        });
        (producer, consumer, left) = (rest_producer, rest_consumer, left - chunk);
    }
    let last = if consumer.full() {
        consumer.into_folder().complete()
    } else {
        record_event(Event::ChunkTaken, 1);
        trace_piece(len - left..len, || fold_consumer(producer, left, consumer)).complete()
    };
    match completed {
        None => last,
        Some((before, reducer)) => reducer.reduce(before, last),
    }
}

/// `completed` (what the owner folded before a run) joined with the run's `result`.
fn reduce_below<T, R: Reducer<T>>(completed: Option<T>, below: Option<R>, result: T) -> T {
    match (completed, below) {
        (Some(left), Some(reducer)) => reducer.reduce(left, result),
        (None, _) => result,
        (Some(_), None) => unreachable!("only a range's first piece has no lower neighbour"),
    }
}

/// Step 6, the `b` of the owner's join: on a thief, take the stolen part (the upper half of
/// what is unclaimed) and drive it as a loop of its own; on the owner (nobody took
/// steal-me), find nothing.
fn steal_me<P, C>(ctx: FnContext, handoff: &Shared<P, C>) -> Option<(C::Reducer, C::Result)>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if !ctx.migrated() {
        // Popped back by the owner: it has exhausted (or closed) the range already.
        return None;
    }
    let (indices, stolen) = handoff.steal_half()?;
    record_event(Event::RangeSteal, 1);
    let below = stolen.below.expect("a stolen part has a lower neighbour");
    let len = (indices.end - indices.start) as usize;
    let theirs = trace_range_steal(indices, || {
        drive_indexed(len, stolen.producer, stolen.consumer)
    });
    Some((below, theirs))
}

/// Joins the owner's result with what a thief made of the stolen part, if anything.
fn combine<R, T: Reducer<R>>(mine: R, stolen: Option<(T, R)>) -> R {
    match stolen {
        Some((reducer, theirs)) => reducer.reduce(mine, theirs),
        None => mine,
    }
}
