//! The recursive split-in-half driver.
//!
//! A piece of work is cut in two and the halves go to `join_context`, until a split budget
//! runs out; then the piece is folded sequentially. The budget starts at the number of
//! threads (enough pieces to keep everyone busy) and halves with every split. When a half
//! turns out to have been stolen (`migrated()`), some thread was idle, so the budget is
//! reset to at least the thread count: work is split further exactly where thieves are.

#[cfg(feature = "bench-internals")]
use super::fold_chunk;
#[cfg(feature = "bench-internals")]
use crate::plumbing::{Consumer, Producer};
use crate::plumbing::{Folder, Reducer, UnindexedConsumer, UnindexedProducer};
use crate::pool::{current_num_threads, join_context};

/// The split budget: how many more times a piece may be halved.
#[derive(Clone, Copy, Debug)]
struct Splitter {
    splits: usize,
}

impl Splitter {
    fn new() -> Self {
        Splitter {
            splits: current_num_threads(),
        }
    }

    /// Decides whether to split again; `stolen` says whether this piece was migrated.
    fn try_split(&mut self, stolen: bool) -> bool {
        if stolen {
            self.splits = Ord::max(current_num_threads(), self.splits / 2);
            true
        } else if self.splits > 0 {
            self.splits /= 2;
            true
        } else {
            false
        }
    }
}

/// The split budget for indexed work, bounded by the producer's `min_len` and `max_len`.
/// Indexed work comes here only in a `bench-internals` build (`halving_for_indexed`).
#[cfg(any(test, feature = "bench-internals"))]
#[derive(Clone, Copy, Debug)]
struct LengthSplitter {
    inner: Splitter,
    /// Pieces shorter than twice this are never split (`with_min_len`).
    min_len: usize,
}

#[cfg(any(test, feature = "bench-internals"))]
impl LengthSplitter {
    fn new(len: usize, min_len: usize, max_len: usize) -> Self {
        let mut inner = Splitter::new();
        // `with_max_len`: enough splits that no piece is longer than `max_len`.
        let pieces_for_max = len / Ord::max(max_len, 1);
        inner.splits = Ord::max(inner.splits, pieces_for_max);
        LengthSplitter {
            inner,
            min_len: Ord::max(min_len, 1),
        }
    }

    fn try_split(&mut self, len: usize, stolen: bool) -> bool {
        len / 2 >= self.min_len && self.inner.try_split(stolen)
    }
}

#[cfg(feature = "bench-internals")]
pub(super) fn drive_indexed<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let splitter = LengthSplitter::new(len, producer.min_len(), producer.max_len());
    split_indexed(len, false, splitter, producer, consumer)
}

#[cfg(feature = "bench-internals")]
fn split_indexed<P, C>(
    len: usize,
    stolen: bool,
    mut splitter: LengthSplitter,
    producer: P,
    consumer: C,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    if !splitter.try_split(len, stolen) {
        return fold_chunk(producer, len, consumer.into_folder()).complete();
    }
    let mid = len / 2;
    let (left_producer, right_producer) = producer.split_at(mid);
    let (left_consumer, right_consumer, reducer) = consumer.split_at_sized(mid, len);
    let (left, right) = join_context(
        |ctx| split_indexed(mid, ctx.migrated(), splitter, left_producer, left_consumer),
        |ctx| {
            // Weft's own join: its `b` is skipped in a cancelled region (`pool::join` runs
            // both closures for user code; a driver's pieces may stop before they start).
            crate::pool::stop_if_cancelled();
            let right_len = len - mid;
            split_indexed(
                right_len,
                ctx.migrated(),
                splitter,
                right_producer,
                right_consumer,
            )
        },
    );
    reducer.reduce(left, right)
}

pub(super) fn drive_unindexed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    split_unindexed(false, Splitter::new(), producer, consumer)
}

fn split_unindexed<P, C>(
    stolen: bool,
    mut splitter: Splitter,
    producer: P,
    consumer: C,
) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    if !splitter.try_split(stolen) {
        return producer.fold_with(consumer.into_folder()).complete();
    }
    match producer.split() {
        (whole, None) => whole.fold_with(consumer.into_folder()).complete(),
        (left_producer, Some(right_producer)) => {
            let left_consumer = consumer.split_off_left();
            let reducer = consumer.to_reducer();
            let (left, right) = join_context(
                |ctx| split_unindexed(ctx.migrated(), splitter, left_producer, left_consumer),
                |ctx| {
                    // A driver's piece: skipped in a cancelled region (see above).
                    crate::pool::stop_if_cancelled();
                    split_unindexed(ctx.migrated(), splitter, right_producer, consumer)
                },
            );
            reducer.reduce(left, right)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_halves_then_stops() {
        let mut splitter = Splitter { splits: 4 };
        assert!(splitter.try_split(false)); // 2
        assert!(splitter.try_split(false)); // 1
        assert!(splitter.try_split(false)); // 0
        assert!(!splitter.try_split(false));
    }

    /// Runs `test` inside an explicit 3-thread pool (the budget reads the pool size).
    fn in_pool(test: impl FnOnce() + Send) {
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        pool.install(test)
    }

    #[test]
    fn steal_resets_budget() {
        in_pool(|| {
            let mut splitter = Splitter { splits: 0 };
            assert!(splitter.try_split(true));
            assert_eq!(splitter.splits, 3);
        });
    }

    #[test]
    fn min_len_stops_splitting() {
        in_pool(|| {
            let mut splitter = LengthSplitter::new(10, 6, usize::MAX);
            assert!(!splitter.try_split(10, true));
            let mut splitter = LengthSplitter::new(12, 6, usize::MAX);
            assert!(splitter.try_split(12, true));
        });
    }

    #[test]
    fn max_len_forces_splits() {
        in_pool(|| {
            let splitter = LengthSplitter::new(1000, 1, 10);
            assert_eq!(splitter.inner.splits, 100);
        });
    }
}
