//! Indexed loops: the typed side of the owner loop (`owner.rs`). This file is the only code
//! of the driver that every loop compiles for its own producer and consumer types, so it is
//! kept to what must see them: the inline short path, the start, the pieces an owner holds
//! ([`Typed`], which implements `owner::Body`), the `join` that offers a range's rest, and
//! the steal-me job a thief runs. `README.md` here has the protocol.
//!
//! # The life of a loop
//!
//! 1. **Inline** ([`drive_indexed`]): a loop folded here and now with no range at all, on a
//!    worker of a pool of one, or nested in an owner's cheap items (`context.rs`).
//! 2. **Start** ([`start`]): a range too long for `u32` indices is halved first; a loop
//!    inside a fixed-tree leaf takes a fixed tree (`fixed_tree.rs`); otherwise `policy::start`
//!    picks how it starts, and the owner loop runs it on a worker.
//! 3. **Private phase**, then **share**: the unclaimed items move into a hand-off and the
//!    owner **offers** them ([`offer`]): a `join` whose `a` is the owner's shared phase and
//!    whose `b` is the steal-me, a fork any idle worker can take.
//! 4. **Steal** ([`steal_me`]): a thief takes the upper half of the unclaimed items and
//!    drives them as a loop of its own (from step 1): it is an owner now.
//! 5. **Offer again**: an owner that sees its steal-me taken offers what is left with a fresh
//!    one, inside the `a` of the previous `join`.
//! 6. **Finish**: the owner completes its run; each `join` reduces the owner's result with
//!    its thief's on the right. A thief always takes the upper neighbour of what its owner
//!    keeps, so results combine in index order.

use std::cell::OnceCell;

use super::context::{self, Inline};
use super::owner::{self, Body, End, Owner};
use super::policy::{self, Start, INLINE_CLAIM};
use super::steal_range::{
    Chunk, ChunkLimits, Handoff, OwnerCursor, SplitAt, StealRange, MAX_RANGE_LEN,
};
use super::trace::{trace_loop_here, trace_range_steal};
use super::{fixed_tree, fold_chunk, fold_leaf};
use crate::plumbing::{Consumer, Folder, Producer, Reducer};
use crate::pool::{
    anyone_idle, current_num_threads, join_here_erased, on_a_worker, record_event, Event, FnContext,
};

/// Runs `consumer` over the `len` items of `producer`. The short path, small enough to
/// inline into its caller: a loop the current work allows inline ([`context::fast_inline`])
/// is folded whole, here and now, as a sequential loop written here would be. That is the
/// path of every small loop nested in a parallel loop's cheap items, so it is one look at a
/// thread-local word and the leaf loop; everything else is out of line ([`start`]). The
/// leaf loop is inlined here, not called: it is then a loop of the caller's own, which a
/// nested loop of a few items needs (`nested_chunks_16` in `benches/RESULTS.md`).
#[inline]
pub(super) fn drive_indexed<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    if len <= producer.max_len() && context::fast_inline(len) != Inline::No {
        return producer.fold_with(consumer.into_folder()).complete();
    }
    // One tuple, built on the way out: three arguments made LLVM keep the caller's copy of
    // the consumer in memory on the inline path too.
    start((len, producer, consumer))
}

/// The rest of [`drive_indexed`]: every loop not folded on the short path. What happens is
/// decided by [`plan`], which sees only lengths; this part only carries it out.
#[inline(never)]
pub(super) fn start<P, C>((len, producer, consumer): (usize, P, C)) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    if len == 0 {
        // Nothing to claim or share: an owner's run opens with its first claim. The leaf
        // every loop compiles anyway folds the empty producer.
        return fold_leaf(producer, consumer.into_folder()).complete();
    }
    let (min_len, max_len) = (producer.min_len(), producer.max_len());
    let work = Work {
        producer,
        consumer,
        len,
        below: None,
    };
    let plan = plan(len, min_len, max_len);
    match plan {
        Plan::Here(start) | Plan::OnAWorker(start) => {
            let here = matches!(plan, Plan::Here(_));
            let (mut work, mut result) = (Some(work), None);
            run_owner(here, &mut || {
                let work = work.take().expect("a loop is owned once");
                result = Some(own(len, min_len, max_len, start, work));
            });
            result.expect("the owner ran or its panic was resumed")
        }
        Plan::Fixed(leaf) => fixed_tree::drive(work, leaf, false),
        Plan::Halves => fixed_tree::drive(work, MAX_RANGE_LEN, true),
        #[cfg(feature = "bench-internals")]
        Plan::Halving => super::halving::drive_indexed(len, work.producer, work.consumer),
    }
}

/// Runs an owner (`op`) here and now, or on a worker of the current pool: compiled once
/// for every loop type.
#[inline(never)]
fn run_owner(here: bool, op: &mut (dyn FnMut() + Send)) {
    if here {
        trace_loop_here(op);
    } else {
        on_a_worker(op);
    }
}

/// How [`start`] runs a loop.
#[derive(Clone, Copy, Debug)]
enum Plan {
    /// Here and now, as part of the current work (folded inline, or in a pool of one).
    Here(Start),
    /// On a worker of the current pool (this thread if it is one).
    OnAWorker(Start),
    /// In a fixed tree with leaves of this many items: the loop runs inside a fixed tree's
    /// leaf (`fixed_tree.rs`).
    Fixed(usize),
    /// Longer than a range can hold (`u32` indices, 64-bit targets only): in pieces of at
    /// most `MAX_RANGE_LEN` items, each driven as a loop of its own.
    Halves,
    /// The benchmarks' split-in-half driver (`halving_for_indexed`).
    #[cfg(feature = "bench-internals")]
    Halving,
}

/// The plan for a loop of `len` items with these limits: compiled once, for every loop.
#[inline(never)]
fn plan(len: usize, min_len: usize, max_len: usize) -> Plan {
    // A loop of a cancelled region does not start (its owner looks again between blocks).
    crate::pool::stop_if_cancelled();
    if let Some(leaf) = fixed_tree::inherited_leaf(len, min_len, max_len) {
        return Plan::Fixed(leaf);
    }
    #[cfg(feature = "bench-internals")]
    if super::halving_for_indexed() {
        return Plan::Halving;
    }
    if len > MAX_RANGE_LEN {
        return Plan::Halves;
    }
    if len <= max_len {
        match context::inline(len) {
            Inline::Alone => return Plan::Here(Start::Alone),
            // Loops longer than a claim, or in a pool that records (whose short path
            // is off, so that the owner loop records them).
            Inline::Nested => {
                return Plan::Here(Start::Claims {
                    len: INLINE_CLAIM as u32,
                })
            }
            Inline::No => {}
        }
    }
    let limits = ChunkLimits::new(min_len, max_len);
    Plan::OnAWorker(policy::start(
        len,
        current_num_threads(),
        limits,
        anyone_idle(),
    ))
}

/// Runs the loop `work` on this worker, as its owner.
fn own<P, C>(
    len: usize,
    min_len: usize,
    max_len: usize,
    start: Start,
    work: Work<P, C>,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let limits = ChunkLimits::new(min_len, max_len);
    let handoff = OnceCell::new();
    let mut typed = Typed {
        handoff: &handoff,
        unclaimed: Some(work),
        chunk: None,
        run: None,
        completed: None,
        capped: limits.is_capped(),
    };
    let mut owner = Owner::new(len as u32, limits);
    match owner::own_private(&mut typed, &mut owner, start) {
        End::Done | End::Full => typed.finish(),
        End::Share => {
            let range = typed.share(owner.cursor());
            owner.shared(range);
            offer(&mut typed, &mut owner, false)
        }
        End::StealSeen => unreachable!("a private phase sees no steal"),
    }
}

/// A `join` of the owner's shared phase (`a`, on this thread) and a fresh steal-me (`b`),
/// then the owner's result reduced with what a thief made of the stolen part, if anything.
fn offer<'h, P, C>(typed: &mut Typed<'h, P, C>, owner: &mut Owner<'h>, again: bool) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let handoff = typed
        .handoff
        .get()
        .expect("an offered range has a hand-off");
    let (mut mine, mut stolen) = (None, None);
    join_here_erased(
        &mut |_| {
            mine = Some(match owner::own_shared(typed, owner, again) {
                End::Done | End::Full => typed.finish(),
                End::StealSeen => offer(typed, owner, true),
                End::Share => unreachable!("the shared phase does not share again"),
            });
        },
        &mut |ctx| stolen = steal_me(ctx, handoff),
    );
    let mine = mine.expect("join ran the owner's side or resumed its panic");
    match stolen {
        Some((reducer, theirs)) => reducer.reduce(mine, theirs),
        None => mine,
    }
}

/// The steal-me, `b` of the owner's `join`: on a thief, takes the upper half of what is
/// unclaimed and drives it as a loop of its own; popped back by the owner, finds nothing.
#[inline(never)]
fn steal_me<P, C>(ctx: FnContext, handoff: &Shared<P, C>) -> Option<(C::Reducer, C::Result)>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if !ctx.migrated() {
        // Popped back by the owner: it has exhausted (or closed) the range already.
        return None;
    }
    // A thief does not take part of a loop of a cancelled region.
    crate::pool::stop_if_cancelled();
    let (indices, stolen) = handoff.steal_half()?;
    record_event(Event::RangeSteal, 1);
    let below = stolen.below.expect("a stolen part has a lower neighbour");
    let len = (indices.end - indices.start) as usize;
    // Not the short path: the thief runs this as a job, which allows nothing inline.
    let span = trace_range_steal(indices);
    let theirs = start((len, stolen.producer, stolen.consumer));
    span.end();
    Some((below, theirs))
}

/// A producer and its consumer, cut together, and their length (so that the consumer is cut
/// in proportion, `Consumer::split_at_sized`). An upper piece keeps the reducer that joins
/// its result to its lower neighbour's (`None` for a range's first piece).
pub(super) struct Work<P, C: Consumer<P::Item>>
where
    P: Producer,
{
    pub(super) producer: P,
    pub(super) consumer: C,
    pub(super) len: usize,
    pub(super) below: Option<C::Reducer>,
}

impl<P, C> Work<P, C>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    /// A whole loop: no lower neighbour.
    pub(super) fn new(producer: P, consumer: C, len: usize) -> Self {
        Work {
            producer,
            consumer,
            len,
            below: None,
        }
    }
}

type Shared<P, C> = Handoff<Work<P, C>>;

impl<P, C> SplitAt for Work<P, C>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    // Not inlined: the owner's claims, a thief's steal and the fixed tree's nodes all cut
    // here, and once is enough code per loop type.
    #[inline(never)]
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

/// A folder that has consumed one or more adjacent chunks, and the reducer that joins its
/// result to what the owner folded before it (`None` for a range's first run).
struct Run<F, R> {
    folder: F,
    below: Option<R>,
}

/// What an owner holds of its loop: the unclaimed items before they are shared, the
/// unfolded part of its current chunk, its open run and the results of its earlier runs.
struct Typed<'h, P, C>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    handoff: &'h OnceCell<Shared<P, C>>,
    unclaimed: Option<Work<P, C>>,
    /// The current chunk's unfolded producer and its length.
    chunk: Option<(P, usize)>,
    run: Option<Run<C::Folder, C::Reducer>>,
    completed: Option<C::Result>,
    /// `with_max_len`: each chunk gets a folder of its own.
    capped: bool,
}

impl<'h, P, C> Typed<'h, P, C>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    /// Makes `work` the current chunk: its consumer piece continues the run's folder if the
    /// consumer allows it and chunks are not capped, else the run is completed and a new one
    /// starts. Not inlined: both kinds of claim call it.
    #[inline(never)]
    fn start_chunk(&mut self, work: Work<P, C>) {
        let Work {
            producer,
            consumer,
            len,
            below,
        } = work;
        self.chunk = Some((producer, len));
        let (consumer, finished) = match self.run.take() {
            Some(Run { folder, below }) if !self.capped => match consumer.continue_folder(folder) {
                Ok(folder) => {
                    self.run = Some(Run { folder, below });
                    return;
                }
                Err((consumer, folder)) => (consumer, Some(Run { folder, below })),
            },
            run => (consumer, run),
        };
        if let Some(Run { folder, below }) = finished {
            self.completed = Some(reduce_below(
                self.completed.take(),
                below,
                folder.complete(),
            ));
        }
        self.run = Some(Run {
            folder: consumer.into_folder(),
            below,
        });
    }

    /// Moves the items `cursor` has not claimed into the hand-off; returns its range.
    fn share(&mut self, cursor: &OwnerCursor) -> &'h StealRange {
        let work = self
            .unclaimed
            .take()
            .expect("a shared range has items left");
        let handoff = self.handoff;
        if handoff.set(Handoff::unclaimed_by(cursor, work)).is_err() {
            unreachable!("a range is shared once");
        }
        handoff.get().expect("just set").range()
    }

    /// The owner's result: its open run completed and reduced with its completed ones. Not
    /// inlined: both phases end here.
    #[inline(never)]
    fn finish(&mut self) -> C::Result {
        let run = self.run.take().expect("an owner's run is open at its end");
        reduce_below(self.completed.take(), run.below, run.folder.complete())
    }
}

impl<P, C> Body for Typed<'_, P, C>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    fn claim_private(&mut self, len: u32) {
        let work = self
            .unclaimed
            .take()
            .expect("a private claim has items left");
        let work = if len as usize == work.len {
            work
        } else {
            let (chunk, rest) = work.split_at(len as usize);
            self.unclaimed = Some(rest);
            chunk
        };
        self.start_chunk(work);
    }

    fn claim_shared(&mut self, cursor: &mut OwnerCursor) -> Option<Chunk> {
        let handoff = self.handoff.get().expect("a shared claim has a hand-off");
        let (chunk, work) = handoff.take_chunk(cursor)?;
        self.start_chunk(work);
        Some(chunk)
    }

    fn fold(&mut self, len: u32) -> bool {
        let (producer, left) = self.chunk.take().expect("a fold has a chunk");
        let len = len as usize;
        let head = if len < left {
            let (head, tail) = producer.split_at(len);
            self.chunk = Some((tail, left - len));
            head
        } else {
            producer
        };
        // The folder moves into the leaf and back (folders are values).
        let Run { folder, below } = self.run.take().expect("a fold has a run");
        let folder = fold_chunk(head, len, folder);
        let full = folder.full();
        self.run = Some(Run { folder, below });
        full
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
