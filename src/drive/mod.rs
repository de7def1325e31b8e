//! How a producer is split across workers. May use `plumbing` and `pool`; never `iter`.
//!
//! The functions here are the only way parallel-iterator work reaches the pool:
//! [`drive_indexed`] for producers with a known length (all indexed work goes through it),
//! [`drive_unindexed`] for the rest, and [`fork`] for adapters that run two whole
//! iterators side by side (`chain`, `unzip`).
//! Indexed work goes to the on-steal driver ([`on_steal`]): one work-stealing index range
//! per owner, split only when a thief takes half of what is left (`README.md` here has the
//! protocol and the measurements). A producer that asks for a split tree fixed by its length
//! alone (`deterministic()`, scans) goes to [`fixed_tree`] instead. Unindexed work uses the
//! recursive split-in-half driver in [`halving`], which also remains selectable for indexed
//! work, for comparison.

mod clock; // the cheap timestamps that size the on-steal driver's blocks
mod fixed_tree; // a split tree fixed by the length alone: deterministic() and scans
mod halving; // recursive split-in-half with a budget that resets when a job is stolen
mod on_steal; // lazy splitting of indexed work over a work-stealing index range
mod steal_range; // lock-free work-stealing index range and its producer hand-off

use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) use fixed_tree::leaf_len;

use crate::plumbing::{Consumer, Folder, Producer, UnindexedConsumer, UnindexedProducer};

/// The most items one `consume_iter` call gets from a driver's leaf ([`fold_indexed`]).
/// Adapters that may drop items (`filter`, `flat_map_iter`) hide a short-circuiting
/// folder's stop flag for as long as they reject; this bound is how late a `find_any` or
/// `any` can notice that it may stop. Inputs that do not come through `fold_indexed`
/// (unindexed leaves) are cut to it by the adapters themselves.
pub(crate) const LONG_INPUT: usize = 1 << 20;

/// Set by [`use_halving_for_indexed`]: indexed work takes the split-in-half driver.
static HALVING_FOR_INDEXED: AtomicBool = AtomicBool::new(false);

/// Chooses the driver for indexed work process-wide: the on-steal driver (the default,
/// `false`) or the split-in-half one (`true`). For benchmarks that compare the two.
pub fn use_halving_for_indexed(halving: bool) {
    // ORDERING: a configuration flag with no data attached; a stale read only means the
    // other (equally correct) driver runs once more.
    HALVING_FOR_INDEXED.store(halving, Ordering::Relaxed);
}

/// Runs `consumer` over the `len` items of `producer`, splitting across workers.
pub(crate) fn drive_indexed<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if let Some(leaf) = fixed_tree::requested(len, &producer) {
        return fixed_tree::drive(len, leaf, producer, consumer);
    }
    // ORDERING: see `use_halving_for_indexed`.
    if HALVING_FOR_INDEXED.load(Ordering::Relaxed) {
        halving::drive_indexed(len, producer, consumer)
    } else {
        on_steal::drive_indexed(len, producer, consumer)
    }
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

/// Folds all of `producer` into `folder`: the sequential leaf loop. Kept out of line so that
/// it is a small function of its own, into which LLVM inlines the user's closures; inlined
/// into the (large) driver, the per-item closure call was left out of line (measured: 35
/// instead of 28 instructions per item on the fine-grained benchmark at one thread).
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

/// Runs two independent pieces of iterator work, potentially in parallel.
pub(crate) fn fork<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    crate::pool::join(a, b)
}

/// The number of workers that may run pieces of iterator work (for sources that size
/// their own splitting, such as `par_bridge`).
pub(crate) fn worker_count() -> usize {
    crate::pool::current_num_threads()
}

/// Waits a little before retrying a contended `try_lock` (attempt `attempt`, from 0): a
/// few spins, then running one pending job of the pool if there is one (else yielding the
/// thread). Never blocks.
pub(crate) fn pause(attempt: u32) {
    if attempt < 16 {
        std::hint::spin_loop();
    } else if crate::pool::yield_now() != Some(crate::pool::Yield::Executed) {
        std::thread::yield_now();
    }
}
