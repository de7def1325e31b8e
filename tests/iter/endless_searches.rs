//! Searches over iterators far too long to finish (`u128` ranges of 10^27 items, longer
//! than `usize`, so unindexed): they end only if every piece that can no longer win learns
//! it soon, and if the pieces that can win reach a thread. Each test counts the items its
//! closures see and fails cleanly past a budget instead of running forever. Fresh pools
//! every time: the first work of a new pool once ran on one thread only.

use crate::common;

use common::par;
use common::par::prelude::*;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

const OCTILLION: u128 = 1_000_000_000_000_000_000_000_000_000;

/// Far more items than any of these searches needs, far fewer than a piece running to its
/// end would see. `find_last` needs the most (one chain of steals towards the upper end,
/// each piece running a while before the piece right of it matches): a few 10^6 items on an
/// idle machine, and the nested search at 2 threads up to 5·10^8 with two other copies of
/// it running on the same 2 cores. (With 64-bit positions the nested search ran out of
/// them at the innermost level and needed 1.0–1.5·10^9: a whole inner loop.)
const BUDGET: u64 = 2_000_000_000;

/// Runs `search` in a fresh pool of each size, handing it a closure that counts one item
/// and panics once the budget is spent.
fn in_fresh_pools(search: impl Fn(&(dyn Fn() + Sync)) + Sync) {
    for threads in [2, 3] {
        let pool = par::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let seen = AtomicU64::new(0);
        let count = || {
            // Counted per thread and added up every `BATCH` items: one shared counter for
            // every item would make the slowest of these searches several times slower.
            const BATCH: u64 = 4096;
            thread_local!(static UNCOUNTED: Cell<u64> = const { Cell::new(0) });
            let unadded = UNCOUNTED.get() + 1;
            if unadded < BATCH {
                UNCOUNTED.set(unadded);
                return;
            }
            UNCOUNTED.set(0);
            let n = seen.fetch_add(unadded, Ordering::Relaxed);
            assert!(n < BUDGET, "a search over 10^27 items kept going");
        };
        pool.install(|| search(&count));
    }
}

fn octillion() -> par::range::Iter<u128> {
    (0..OCTILLION).into_par_iter()
}

#[test]
fn find_any_in_the_upper_half() {
    in_fresh_pools(|count| {
        let found = octillion().find_any(|&x| {
            count();
            x > OCTILLION / 2
        });
        assert!(found.is_some_and(|x| x > OCTILLION / 2), "{found:?}");
    });
}

#[test]
fn filter_then_find_any() {
    // The filter rejects the whole lower half: a piece there never hands an item on.
    in_fresh_pools(|count| {
        let found = octillion()
            .filter(|&x| {
                count();
                x > OCTILLION / 2
            })
            .find_any(|_| true);
        assert!(found.is_some_and(|x| x > OCTILLION / 2), "{found:?}");
    });
}

#[test]
fn flat_map_iter_of_empty_inners_then_find_any() {
    in_fresh_pools(|count| {
        let found = octillion()
            .flat_map_iter(|x| {
                count();
                (x > OCTILLION / 2).then_some(x)
            })
            .find_any(|_| true);
        assert!(found.is_some_and(|x| x > OCTILLION / 2), "{found:?}");
    });
}

#[test]
fn find_last_reaches_the_upper_end() {
    // Every item matches: the last one wins, and only a chain of steals towards the upper
    // end reaches it (each piece stops once a piece to its right has matched).
    in_fresh_pools(|count| {
        let found = octillion().find_last(|_| {
            count();
            true
        });
        assert_eq!(found, Some(OCTILLION - 1));
        let inclusive = (0..=OCTILLION).into_par_iter().find_last(|_| {
            count();
            true
        });
        assert_eq!(inclusive, Some(OCTILLION));
        let mapped = octillion().find_map_last(|x| {
            count();
            (x % 3 == 0).then_some(x / 3)
        });
        assert_eq!(mapped, Some((OCTILLION - 1) / 3));
    });
}

#[test]
fn find_first_stays_at_the_start() {
    in_fresh_pools(|count| {
        let found = octillion().find_first(|&x| {
            count();
            x % 1000 == 999
        });
        assert_eq!(found, Some(999));
    });
}

/// 10^27 items as three nested levels of 10^9, each cut into chunks of at most 1000 (Rayon's
/// `octillion_flat`): the driver cuts the consumer at every chunk an owner claims, a million
/// times per level.
fn nested_octillion(count: &(dyn Fn() + Sync)) -> impl ParallelIterator<Item = u128> + '_ {
    let level = || (0..1_000_000_000u32).into_par_iter().with_max_len(1000);
    level()
        .map(|i| u64::from(i) * 1_000_000_000)
        .flat_map(move |i| level().map(move |j| i + u64::from(j)))
        .map(|i| u128::from(i) * 1_000_000_000)
        .flat_map(move |i| {
            level().map(move |j| {
                count();
                i + u128::from(j)
            })
        })
}

#[test]
fn find_last_and_first_over_nested_chunked_ranges() {
    // `find_first`/`find_last` order their pieces by dividing positions between them. Cut
    // in half at every chunk, the positions ran out after 64 chunks of one owner; pieces
    // with none left could not tell each other to stop, and `find_last` ran forever.
    in_fresh_pools(|count| {
        let last = nested_octillion(count).find_last(|_| true);
        assert_eq!(last, Some(OCTILLION - 1));
        let first = nested_octillion(count).find_first(|x| x % 1000 == 999);
        assert_eq!(first, Some(999));
    });
}
