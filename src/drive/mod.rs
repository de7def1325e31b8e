//! How a producer is split across workers. May use `plumbing` and `pool`; never `iter`.
//!
//! The functions here are the only way parallel-iterator work reaches the pool:
//! [`drive_indexed`] for producers with a known length (all indexed work goes through it),
//! [`drive_unindexed`] for the rest, [`drive_with_grain`] for deterministic chains (a fixed
//! tree, with [`AskedMark`] set while such a chain builds its producer), and [`fork`] for the
//! one adapter that runs two whole iterators side by side (`chain` of unindexed iterators);
//! [`worker_count`], [`pacing_workers`], [`inside_a_wait`], [`help_busy_pool`] and
//! [`offer_forks`] let sources that pace themselves (`par_bridge`, the block adapters) ask
//! the pool.
//! Indexed work goes to the indexed driver ([`indexed`], over the one owner loop of
//! [`owner`] and the rules of [`policy`]): one work-stealing index range per owner, split
//! only when a thief takes half of what is left (`README.md` here has the protocol). A
//! producer that asks for a split tree fixed by its length alone
//! (`deterministic()`, scans) goes to [`fixed_tree`] instead. Unindexed work uses the
//! recursive split-in-half driver in [`halving`]; with the `bench-internals` feature a
//! benchmark can send indexed work there too, to compare.

mod clock; // the cheap timestamps that size an owner's blocks
mod context; // how long a loop nested in the current work may be and still run inline
mod fixed_tree; // a split tree fixed by the length alone: deterministic() and scans
mod halving; // recursive split-in-half with a budget that resets when a job is stolen
mod indexed; // indexed loops: the typed side (short path, start, offers, steal-me)
mod owner; // the one owner loop, compiled once: claims, blocks, looks at the pool
mod policy; // every tuning rule of the indexed driver, in one table
mod steal_range; // lock-free work-stealing index range and its producer hand-off
mod trace; // the driver's names for the pool's trace recording points

pub(crate) use fixed_tree::{drive_with_grain, leaf_len, AskedMark};

use crate::plumbing::{Consumer, Folder, Producer, Reducer, UnindexedConsumer, UnindexedProducer};

#[cfg(feature = "bench-internals")]
pub(crate) use steal_range::{ChunkLimits, Handoff, SplitAt, StealRange};

/// The most items one `consume_iter` call gets from a driver's leaf ([`fold_indexed`]) if
/// its consumer may stop early ([`fold_chunk`]). Adapters that may drop items (`filter`,
/// `flat_map_iter`) hide a short-circuiting folder's stop flag for as long as they reject;
/// this bound is how late a `find_any` or `any` can notice that it may stop. Inputs that do
/// not come through `fold_indexed` (unindexed leaves) are cut to it by the adapters
/// themselves.
pub(crate) const LONG_INPUT: usize = 1 << 20;

/// Set by [`use_halving_for_indexed`]: indexed work takes the split-in-half driver.
#[cfg(feature = "bench-internals")]
static HALVING_FOR_INDEXED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Chooses the driver for indexed work process-wide: the on-steal driver (the default,
/// `false`) or the split-in-half one (`true`). For benchmarks that compare the two
/// (`bench_internals`); without the `bench-internals` feature the choice does not exist.
#[cfg(feature = "bench-internals")]
pub(crate) fn use_halving_for_indexed(halving: bool) {
    // ORDERING: a configuration flag with no data attached; a stale read only means the
    // other (equally correct) driver runs once more.
    HALVING_FOR_INDEXED.store(halving, std::sync::atomic::Ordering::Relaxed);
}

/// Whether a benchmark asked for the split-in-half driver for indexed work. Exists only
/// with the `bench-internals` feature: without it no indexed loop compiles that driver.
#[cfg(feature = "bench-internals")]
#[inline(always)]
pub(super) fn halving_for_indexed() -> bool {
    // ORDERING: see `use_halving_for_indexed`.
    HALVING_FOR_INDEXED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Runs `consumer` over the `len` items of `producer`, splitting across workers. Inline, as
/// the on-steal driver's short path is: an inner loop folded whole costs no call of its own.
#[inline]
pub(crate) fn drive_indexed<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if let Some(leaf) = fixed_tree::asked_by(len, &producer) {
        return fixed_tree::drive(indexed::Work::new(producer, consumer, len), leaf, false);
    }
    // A loop nested in a fixed tree's leaf, or started while a deterministic chain builds its
    // producer, is never folded inline (both allow no inline loops): the indexed driver asks
    // `fixed_tree::inherited_leaf` off its short path only, so the short path reads no
    // thread-local of its own. The benchmarks' switch to the split-in-half driver
    // (`halving_for_indexed`) is read there too, so that a `bench-internals` build runs the
    // same short path as a user's build.
    indexed::drive_indexed(len, producer, consumer)
}

/// Folds the `len` items of `producer` into `folder`: the leaf of both drivers. An input
/// longer than [`LONG_INPUT`] goes in blocks of that length, cut from the producer with
/// `split_at`, with a `full()` test between blocks. Cutting here, once per million items,
/// leaves the adapters' per-item loops free of any batching counter, which kept LLVM from
/// vectorizing them (measured: a `filter(..).count()` over bytes ran 1.9x Rayon's time at
/// one thread while its adapters cut batches themselves).
#[inline]
fn fold_indexed<P: Producer, F: Folder<P::Item>>(producer: P, len: usize, folder: F) -> F {
    let (mut producer, mut len, mut folder) = (producer, len, folder);
    while len > LONG_INPUT {
        let (head, tail) = producer.split_at(LONG_INPUT);
        folder = fold_leaf(head, folder);
        if folder.full() {
            return folder;
        }
        (producer, len) = (tail, len - LONG_INPUT);
    }
    fold_leaf(producer, folder)
}

/// `folder` after folding the `len` items of `producer`. A folder that can never stop early
/// ([`Folder::MAY_STOP_EARLY`]) gets them in one `consume_iter`, as Rayon's leaves do: the
/// blocks of [`fold_indexed`] are there only for a search's stop flag, and each block after
/// the first starts from an accumulator its loop cannot see (`fold(|| vec![0u64; 256], ..)`
/// kept a bounds check per item in every block but the first). A constant decides, so a
/// loop that cannot stop compiles only the one-call fold.
#[inline]
fn fold_chunk<P: Producer, F: Folder<P::Item>>(producer: P, len: usize, folder: F) -> F {
    if F::MAY_STOP_EARLY {
        fold_indexed(producer, len, folder)
    } else {
        fold_leaf(producer, folder)
    }
}

/// Folds all of `producer` into `folder`: the sequential leaf loop. Kept out of line so that
/// it is a small function of its own, into which LLVM inlines the user's closures; inlined
/// into the (large) driver, the per-item closure call was left out of line.
#[inline(never)]
fn fold_leaf<P: Producer, F: Folder<P::Item>>(producer: P, folder: F) -> F {
    producer.fold_with(folder)
}

/// Runs `consumer` over the items of an unindexed `producer`, splitting across workers.
pub(crate) fn drive_unindexed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    halving::drive_unindexed(producer, consumer)
}

/// Runs `keep` on this thread (it need not be `Send`) and, beside it, possibly on other
/// workers, the `len` items of `skipped` for their side effects alone, each item dropped as
/// soon as it is made: what `skip` does with the items it skips, as Rayon does. A panic on
/// either side reaches the caller once both are done.
pub(crate) fn run_skipped_beside<P, R>(len: usize, skipped: P, keep: impl FnOnce() -> R) -> R
where
    P: Producer,
{
    crate::pool::in_place_scope(|scope| {
        scope.spawn(move |_| drive_indexed(len, skipped, DropItems));
        keep()
    })
}

/// The consumer (and folder, and reducer) that drops every item: [`run_skipped_beside`].
struct DropItems;

impl<T> Consumer<T> for DropItems {
    type Folder = DropItems;
    type Reducer = DropItems;
    type Result = ();

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (DropItems, DropItems, DropItems)
    }

    fn into_folder(self) -> Self {
        self
    }

    fn full(&self) -> bool {
        false
    }

    fn continue_folder(self, folder: Self) -> Result<Self, (Self, Self)> {
        Ok(folder)
    }
}

impl<T> Folder<T> for DropItems {
    type Result = ();

    fn consume(self, item: T) -> Self {
        drop(item);
        self
    }

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        iter.into_iter().for_each(drop);
        self
    }

    fn complete(self) {}

    fn full(&self) -> bool {
        false
    }
}

impl Reducer<()> for DropItems {
    fn reduce(self, _left: (), _right: ()) {}
}

/// Runs two whole iterators' work, potentially in parallel, and returns both results for
/// the caller to reduce, left first (`chain` of two unindexed iterators drives each side
/// as an iterator of its own).
pub(crate) fn fork<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    crate::pool::join(a, move || {
        // The driver's second iterator: not started in a cancelled region.
        crate::pool::stop_if_cancelled();
        b()
    })
}

/// The number of workers that may run pieces of iterator work (for sources that size
/// their own splitting, such as `par_bridge`).
pub(crate) fn worker_count() -> usize {
    crate::pool::current_num_threads()
}

/// The number of workers as an adapter that sizes its pieces by the pool should see it
/// (`by_exponential_blocks`' first block): 1 inside a fixed tree (a loop nested in a leaf of
/// a deterministic chain), where nothing may depend on the pool, else [`worker_count`].
pub(crate) fn pacing_workers() -> usize {
    if fixed_tree::in_fixed_tree() {
        1
    } else {
        worker_count()
    }
}

/// Whether the code running now runs inside a wait of its worker (see
/// `pool::inside_a_wait`): a source that waits for another piece must not wait unboundedly
/// there, since the frame suspended below it may be what that piece waits for.
pub(crate) fn inside_a_wait() -> bool {
    crate::pool::inside_a_wait()
}

/// For a piece waiting for another: runs one pending job of the pool if no worker is idle
/// to take it (an idle worker would; the waiting piece would only take its place). Whether
/// it ran one.
pub(crate) fn help_busy_pool() -> bool {
    !crate::pool::anyone_idle() && crate::pool::yield_now() == Some(crate::pool::Yield::Executed)
}

/// For a piece that may run long without a `join`: if a worker is idle, publish this
/// worker's oldest private fork (see `pool::offer_forks`).
#[inline]
pub(crate) fn offer_forks() {
    crate::pool::offer_forks()
}
