//! The on-steal driver's observable contract (issue #4): on one thread an indexed loop is
//! never split (no range steals), and in every pool size order-sensitive results match the
//! sequential ones.

use weft::prelude::*;

fn pool(threads: usize) -> weft::ThreadPool {
    weft::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

#[test]
fn one_thread_runs_an_indexed_loop_without_any_range_steal() {
    let pool = pool(1);
    let n = 1_000_000u64;
    let before = pool.stats();
    let sum: u64 = pool.install(|| (0..n).into_par_iter().map(|x| x ^ (x >> 3)).sum());
    let delta = pool.stats() - before;
    assert_eq!(sum, (0..n).map(|x| x ^ (x >> 3)).sum::<u64>());
    assert_eq!(delta.range_steals, 0, "{delta:?}");
    assert_eq!(delta.forks_published, 0, "{delta:?}");
    // With nobody to share with, the whole loop is one chunk.
    assert_eq!(delta.chunks_taken, 1, "{delta:?}");
}

#[test]
fn a_pool_of_one_counts_no_chunk_for_a_loop_on_its_short_path() {
    // `PoolStats::chunks_taken` in a pool of one: a job's first loop is one chunk (it finds
    // out that the pool has one worker); a loop of at most 256 items nested in its items is
    // folded whole on the short path and makes no claim; a longer one is one chunk.
    let pool = pool(1);
    let outer = 10u64;
    for (n, chunks_each) in [(1u64, 0u64), (100, 0), (256, 0), (1000, 1), (100_000, 1)] {
        let before = pool.stats();
        let sums: Vec<u64> = pool.install(|| {
            (0..outer)
                .into_par_iter()
                .map(|i| (0..n).into_par_iter().map(|x| x * x + i).sum())
                .collect()
        });
        let delta = pool.stats() - before;
        let want: Vec<u64> = (0..outer)
            .map(|i| (0..n).map(|x| x * x + i).sum())
            .collect();
        assert_eq!(sums, want, "n = {n}");
        assert_eq!(
            delta.chunks_taken,
            1 + outer * chunks_each,
            "n = {n}: {delta:?}"
        );
        assert_eq!(delta.range_steals, 0, "n = {n}: {delta:?}");
    }
}

#[test]
fn ranges_too_short_to_steal_from_are_folded_whole_in_every_pool() {
    // The owner's first claim takes `min_len` items, or all of them if fewer than `min_len`
    // would be left; a thief takes at least `min_len`. So a loop of 1 item, or of fewer than
    // 2 * `min_len`, is never split. The driver folds it as one chunk, with no range at
    // all; every item still comes out, in order.
    for threads in [2, 3, 8] {
        let pool = pool(threads);
        for (n, min) in [(1usize, 1), (3, 2), (19, 10)] {
            let before = pool.stats();
            let v: Vec<u64> = pool.install(|| {
                (0..n)
                    .into_par_iter()
                    .with_min_len(min)
                    .map(|i| uneven(i as u64))
                    .collect()
            });
            let delta = pool.stats() - before;
            let what = format!("{threads} threads, n = {n}, min_len = {min}: {delta:?}");
            assert_eq!(v, (0..n as u64).map(uneven).collect::<Vec<_>>(), "{what}");
            assert_eq!(delta.range_steals, 0, "{what}");
            assert_eq!(delta.chunks_taken, 1, "{what}");
        }
    }
}

/// Runs a loop of two items in `pool`, each waiting (up to `wait`) for the other to start;
/// true if both saw the other, i.e. a thief took the second item while the owner ran the
/// first (then exactly one range steal).
fn two_items_overlap(pool: &weft::ThreadPool, wait: std::time::Duration) -> bool {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant;
    let started = AtomicUsize::new(0);
    let before = pool.stats();
    let saw_partner: Vec<bool> = pool.install(|| {
        (0..2u64)
            .into_par_iter()
            .map(|_| {
                started.fetch_add(1, Ordering::SeqCst);
                let deadline = Instant::now() + wait;
                while started.load(Ordering::SeqCst) < 2 && Instant::now() < deadline {
                    std::thread::yield_now();
                }
                started.load(Ordering::SeqCst) == 2
            })
            .collect()
    });
    let delta = pool.stats() - before;
    assert_eq!(saw_partner.len(), 2);
    let both = saw_partner.iter().all(|&saw| saw);
    if both {
        assert_eq!(delta.range_steals, 1, "{delta:?}");
    }
    both
}

#[test]
fn a_loop_of_two_slow_items_runs_them_on_two_workers() {
    // A thief takes the whole rest of a range when it is too short to halve, so a two-item
    // loop is split like any other. A few attempts are allowed (the other worker may be busy
    // elsewhere for a moment on a loaded machine); a driver that never splits such a loop
    // fails them all.
    let pool = pool(2);
    let overlapped =
        (0..20).any(|_| two_items_overlap(&pool, std::time::Duration::from_millis(200)));
    assert!(overlapped, "the two items never ran at the same time");
}

#[test]
fn the_first_loop_of_a_fresh_pool_reaches_its_starting_workers() {
    // The first work of a new pool comes while its other threads are still starting: they
    // count as idle from their spawn (`Arrival`), so the owner offers them the second item
    // instead of keeping the loop to itself. Every fresh pool must overlap (the wait is only
    // spent on failure; it bounds how late a thread may start on a loaded machine).
    for attempt in 0..5 {
        let pool = pool(2);
        assert!(
            two_items_overlap(&pool, std::time::Duration::from_secs(5)),
            "fresh pool {attempt}: the first loop ran on one worker"
        );
    }
}

/// Sets its flag when dropped (also when unwinding).
struct SetOnDrop<'a>(&'a std::sync::atomic::AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Release);
    }
}

/// Runs `body` on one worker of a 2-thread pool while the other one spins in user code until
/// `release` is set (by `body`, or at the latest when `body` ends or panics), and returns its
/// result and the pool's statistics over it. Until then no worker is idle.
fn beside_a_busy_worker<R: Send>(
    pool: &weft::ThreadPool,
    release: &std::sync::atomic::AtomicBool,
    body: impl FnOnce() -> R + Send,
) -> (R, weft::PoolStats) {
    let ((), out) = pool.install(|| {
        weft::join(
            || {
                // The other worker steals `body`'s side and runs it meanwhile.
                while !release.load(std::sync::atomic::Ordering::Acquire) {
                    std::hint::spin_loop();
                }
            },
            || {
                let _release = SetOnDrop(release);
                let before = pool.stats();
                let result = body();
                (result, pool.stats() - before)
            },
        )
    });
    out
}

#[test]
fn a_tiny_loop_stays_private_while_no_worker_is_idle() {
    // Up to 8 items, with every other worker busy: the owner folds them all into one
    // folder, in claims of at least `min_len` items, and nobody steals. (The steal-me is
    // offered, and published only if the pool's idle hint says a worker is idle: a hint
    // still stale from the other worker's last search may publish it, as the old driver's
    // private start of tiny loops did not; nobody can take it while the other worker is in
    // user code, so the count of publications is not asserted.)
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
    let pool = pool(2);
    for (n, min) in [(3usize, 1usize), (5, 1), (8, 1), (6, 2), (8, 2)] {
        let inits = AtomicU64::new(0);
        let (v, delta) = beside_a_busy_worker(&pool, &AtomicBool::new(false), || {
            (0..n)
                .into_par_iter()
                .with_min_len(min)
                .map_init(|| inits.fetch_add(1, Relaxed), |_, i| uneven(i as u64))
                .collect::<Vec<u64>>()
        });
        let what = format!("n = {n}, min_len = {min}: {delta:?}");
        assert_eq!(v, (0..n as u64).map(uneven).collect::<Vec<_>>(), "{what}");
        assert_eq!(inits.into_inner(), 1, "{what}");
        assert_eq!(delta.range_steals, 0, "{what}");
        let chunks = delta.chunks_taken as usize;
        assert!((1..=n / min).contains(&chunks), "{what}");
    }
    // A search stops at its match: no item after it is produced, no claim after it made.
    let seen = AtomicU64::new(0);
    let (found, delta) = beside_a_busy_worker(&pool, &AtomicBool::new(false), || {
        (0..8usize)
            .into_par_iter()
            .inspect(|_| {
                seen.fetch_add(1, Relaxed);
            })
            .find_first(|&i| i == 3)
    });
    assert_eq!((found, seen.into_inner()), (Some(3), 4), "{delta:?}");
    assert!((1..=4).contains(&delta.chunks_taken), "{delta:?}");
}

#[test]
fn a_tiny_loop_is_shared_once_a_worker_falls_idle() {
    // The other worker is busy when the loop starts (so it starts private) and falls idle
    // while item 0 runs. Each item the owner runs after item 0 waits (10 s at most) until
    // some item has run elsewhere, which only sharing the range makes possible.
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::{Duration, Instant};
    let pool = pool(2);
    let started = AtomicBool::new(false);
    let elsewhere = AtomicUsize::new(0);
    let (v, delta) = beside_a_busy_worker(&pool, &started, || {
        let owner = weft::current_thread_index();
        (0..8usize)
            .into_par_iter()
            .map(|i| {
                if weft::current_thread_index() != owner {
                    elsewhere.fetch_add(1, Ordering::SeqCst);
                } else if i == 0 {
                    started.store(true, Ordering::Release);
                    // Time for the other worker to finish and start looking.
                    std::thread::sleep(Duration::from_millis(50));
                } else {
                    let deadline = Instant::now() + Duration::from_secs(10);
                    while elsewhere.load(Ordering::SeqCst) == 0 && Instant::now() < deadline {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
                i * 3
            })
            .collect::<Vec<usize>>()
    });
    assert_eq!(v, (0..8).map(|i| i * 3).collect::<Vec<_>>());
    assert!(elsewhere.into_inner() > 0, "{delta:?}");
    assert!(delta.range_steals >= 1, "{delta:?}");
}

/// An item that counts its drops in a shared per-item table (the panic tests: every item
/// dropped exactly once).
struct Tracked<'a>(usize, &'a [std::sync::atomic::AtomicUsize]);

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.1[self.0].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The result of a `catch_unwind` around a loop whose item `poison` panics with "poisoned
/// item {poison}": that panic, and no other, reached the caller.
fn assert_poison_came_through<T>(result: std::thread::Result<T>, poison: usize, what: &str) {
    let Err(payload) = result else {
        panic!("{what}: no panic came through")
    };
    let message = payload.downcast_ref::<String>().expect(what);
    assert_eq!(message, &format!("poisoned item {poison}"), "{what}");
}

#[test]
fn a_panic_in_a_private_tiny_loop_reaches_the_caller_and_drops_every_item_once() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
    let pool = pool(2);
    for n in [3usize, 8] {
        for poison in 0..n {
            let drops: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            let items: Vec<Tracked<'_>> = (0..n).map(|id| Tracked(id, &drops)).collect();
            let (result, delta) = beside_a_busy_worker(&pool, &AtomicBool::new(false), || {
                catch_unwind(AssertUnwindSafe(|| {
                    items
                        .into_par_iter()
                        .map(|item| {
                            assert!(item.0 != poison, "poisoned item {poison}");
                            item
                        })
                        .collect::<Vec<_>>()
                }))
            });
            let what = format!("n = {n}, panic at {poison}: {delta:?}");
            assert_poison_came_through(result, poison, &what);
            assert_eq!(delta.range_steals, 0, "{what}");
            for (id, count) in drops.iter().enumerate() {
                assert_eq!(count.load(Relaxed), 1, "{what}: item {id}");
            }
        }
    }
}

/// Runs `body` in a pool of `threads` workers and returns how often it called `init`
/// (through the counter it is given) and how many range steals the pool made meanwhile.
fn inits_and_steals<R>(
    threads: usize,
    body: impl FnOnce(&std::sync::atomic::AtomicU64) -> R + Send,
) -> (R, u64, u64)
where
    R: Send,
{
    use std::sync::atomic::AtomicU64;
    let pool = pool(threads);
    let inits = AtomicU64::new(0);
    let before = pool.stats();
    let result = pool.install(|| body(&inits));
    let delta = pool.stats() - before;
    (result, inits.into_inner(), delta.range_steals)
}

/// Item `i` costs about `i % 64` rounds of mixing: uneven enough that thieves steal.
fn uneven(i: u64) -> u64 {
    let mut x = i;
    for _ in 0..i % 64 {
        x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17);
    }
    x
}

/// `init` ran at least once and at most once per owner: the first one plus one per steal.
fn assert_once_per_owner(what: &str, threads: usize, inits: u64, steals: u64) {
    assert!(
        (1..=1 + steals).contains(&inits),
        "{what}, {threads} threads: {inits} inits, {steals} steals"
    );
}

#[test]
fn init_runs_once_per_owner_the_first_plus_one_per_range_steal() {
    use std::sync::atomic::Ordering::Relaxed;
    let n = 200_000u64;
    let expected_sum: u64 = (0..n).map(uneven).fold(0, u64::wrapping_add);
    let expected_vec: Vec<u64> = (0..n).map(uneven).collect();
    for threads in [1, 2, 3, 8] {
        // Consumer side: `map_init` wraps the consumer of `reduce`.
        let (sum, inits, steals) = inits_and_steals(threads, |inits| {
            (0..n)
                .into_par_iter()
                .map_init(|| inits.fetch_add(1, Relaxed), |_, i| uneven(i))
                .reduce(|| 0, u64::wrapping_add)
        });
        assert_eq!(sum, expected_sum);
        assert_once_per_owner("reduce", threads, inits, steals);
        if threads == 1 {
            assert_eq!((inits, steals), (1, 0));
        }

        // Producer side: an indexed `collect` takes `map_init`'s producer.
        let (vec, inits, steals) = inits_and_steals(threads, |inits| {
            (0..n)
                .into_par_iter()
                .map_init(|| inits.fetch_add(1, Relaxed), |_, i| uneven(i))
                .collect::<Vec<u64>>()
        });
        assert_eq!(vec, expected_vec);
        assert_once_per_owner("collect", threads, inits, steals);

        // `for_each_init` over a slice, and `fold`'s identity.
        let input: Vec<u64> = (0..n).collect();
        let ((), inits, steals) = inits_and_steals(threads, |inits| {
            input.par_iter().for_each_init(
                || inits.fetch_add(1, Relaxed),
                |_, &i| {
                    std::hint::black_box(uneven(i));
                },
            )
        });
        assert_once_per_owner("for_each_init", threads, inits, steals);
        let (sums, inits, steals) = inits_and_steals(threads, |inits| {
            input
                .par_iter()
                .fold(
                    || {
                        inits.fetch_add(1, Relaxed);
                        0u64
                    },
                    |acc, &i| acc.wrapping_add(uneven(i)),
                )
                .collect::<Vec<u64>>()
        });
        assert_eq!(
            sums.iter().fold(0u64, |a, &b| a.wrapping_add(b)),
            expected_sum
        );
        assert_eq!(
            sums.len() as u64,
            inits,
            "fold yields one accumulator per identity call"
        );
        assert_once_per_owner("fold", threads, inits, steals);
    }
}

/// A value that counts its clones.
struct Counted<'a>(&'a std::sync::atomic::AtomicU64);

impl Clone for Counted<'_> {
    fn clone(&self) -> Self {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Counted(self.0)
    }
}

#[test]
fn map_with_clones_once_per_owner_the_first_plus_one_per_range_steal() {
    let n = 200_000u64;
    let expected_sum: u64 = (0..n).map(uneven).fold(0, u64::wrapping_add);
    let expected_vec: Vec<u64> = (0..n).map(uneven).collect();
    for threads in [1, 2, 3, 8] {
        let (sum, clones, steals) = inits_and_steals(threads, |clones| {
            (0..n)
                .into_par_iter()
                .map_with(Counted(clones), |_, i| uneven(i))
                .reduce(|| 0, u64::wrapping_add)
        });
        assert_eq!(sum, expected_sum);
        assert_once_per_owner("map_with + reduce", threads, clones, steals);
        if threads == 1 {
            // Rayon would make none here: weft never hands out the caller's value itself.
            assert_eq!((clones, steals), (1, 0));
        }

        let (vec, clones, steals) = inits_and_steals(threads, |clones| {
            (0..n)
                .into_par_iter()
                .map_with(Counted(clones), |_, i| uneven(i))
                .collect::<Vec<u64>>()
        });
        assert_eq!(vec, expected_vec);
        assert_once_per_owner("map_with + collect", threads, clones, steals);

        let input: Vec<u64> = (0..n).collect();
        let ((), clones, steals) = inits_and_steals(threads, |clones| {
            input.par_iter().for_each_with(Counted(clones), |_, &i| {
                std::hint::black_box(uneven(i));
            })
        });
        assert_once_per_owner("for_each_with", threads, clones, steals);

        let (sums, clones, steals) = inits_and_steals(threads, |clones| {
            input
                .par_iter()
                .fold_with((0u64, Counted(clones)), |(acc, c), &i| {
                    (acc.wrapping_add(uneven(i)), c)
                })
                .map(|(acc, _)| acc)
                .collect::<Vec<u64>>()
        });
        assert_eq!(
            sums.iter().fold(0u64, |a, &b| a.wrapping_add(b)),
            expected_sum
        );
        assert_eq!(sums.len() as u64, clones, "one accumulator per clone");
        assert_once_per_owner("fold_with", threads, clones, steals);
    }
}

#[test]
fn init_state_may_be_a_non_send_value() {
    // Rayon's own example pairs `map_init` with a thread-local RNG: the state never leaves
    // the worker that made it, even though the owner's loop forks after each steal.
    let n = 100_000u64;
    let total: u64 = pool(3).install(|| {
        (0..n)
            .into_par_iter()
            .map_init(|| std::rc::Rc::new(7u64), |seven, i| uneven(i) % **seven)
            .sum()
    });
    assert_eq!(total, (0..n).map(|i| uneven(i) % 7).sum::<u64>());
}

#[test]
fn unbalanced_order_sensitive_work_matches_sequential_in_every_pool() {
    // Item i costs O(i), so the upper half is the expensive one and thieves must split it.
    let n = 3_000usize;
    let cost = |i: usize| (0..i as u64).fold(i as u64, |acc, j| acc.rotate_left(5) ^ j);
    let expected: Vec<u64> = (0..n).map(cost).collect();
    let expected_concat: String = (0..200).map(|i| i.to_string()).collect();
    for threads in [1, 2, 3, 8] {
        let pool = pool(threads);
        let got: Vec<u64> = pool.install(|| (0..n).into_par_iter().map(cost).collect());
        assert_eq!(got, expected, "collect on {threads} threads");
        let concat = pool.install(|| {
            (0..200)
                .into_par_iter()
                .map(|i| i.to_string())
                .reduce(String::new, |a, b| a + &b)
        });
        assert_eq!(
            concat, expected_concat,
            "non-commutative reduce on {threads} threads"
        );
        let first = pool.install(|| (0..n).into_par_iter().find_first(|&i| cost(i) % 7 == 3));
        assert_eq!(
            first,
            (0..n).find(|&i| cost(i) % 7 == 3),
            "{threads} threads"
        );
    }
}

/// Item `i` costs roughly 0.5 to 3 µs: slow enough that an owner folds its chunks in
/// several blocks and offers the rest of a chunk to thieves between blocks.
fn slow(i: usize) -> u64 {
    let rounds = 500 + (i % 7) as u64 * 400;
    (0..rounds).fold(i as u64, |acc, j| acc.rotate_left(7) ^ j.wrapping_mul(31))
}

#[test]
fn slow_items_folded_in_blocks_keep_index_order_in_every_pool() {
    let n = 4_000usize;
    let expected: Vec<u64> = (0..n).map(slow).collect();
    let expected_runs: Vec<usize> = (0..n).collect();
    let target = expected[n * 3 / 4];
    for threads in [2, 3, 8] {
        let pool = pool(threads);
        for round in 0..3 {
            let what = format!("{threads} threads, round {round}");
            let got: Vec<u64> = pool.install(|| (0..n).into_par_iter().map(slow).collect());
            assert_eq!(got, expected, "collect, {what}");
            // Non-commutative: each fold keeps its items in order, the reduce concatenates.
            let runs = pool.install(|| {
                (0..n)
                    .into_par_iter()
                    .map(|i| (i, slow(i)))
                    .fold(Vec::new, |mut run, (i, _)| {
                        run.push(i);
                        run
                    })
                    .reduce(Vec::new, |mut a, b| {
                        a.extend(b);
                        a
                    })
            });
            assert_eq!(runs, expected_runs, "fold + reduce, {what}");
            let first =
                pool.install(|| (0..n).into_par_iter().position_first(|i| slow(i) == target));
            assert_eq!(first, expected.iter().position(|&x| x == target), "{what}");
            let (evens, odds): (Vec<u64>, Vec<u64>) =
                pool.install(|| (0..n).into_par_iter().map(slow).partition(|x| x % 2 == 0));
            let (want_evens, want_odds): (Vec<u64>, Vec<u64>) =
                expected.iter().partition(|&&x| x % 2 == 0);
            assert_eq!((evens, odds), (want_evens, want_odds), "partition, {what}");
        }
    }
}

/// Randomized lengths and caps for the `with_max_len` tests.
fn lengths_and_caps() -> Vec<(usize, usize)> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x5EED_CA95);
    let mut cases = vec![(0, 1), (1, 1), (1000, 1), (100_003, 1)];
    cases.extend((0..6).map(|_| (rng.random_range(0..200_000), rng.random_range(1..5000))));
    cases
}

#[test]
fn with_max_len_gives_every_chunk_a_folder_of_its_own_as_rayon_does() {
    // No folder sees more than `max` items, in any pool: `fold` yields that many
    // accumulators at least, `with_max_len(1)` exactly one per item (a result that does not
    // depend on steals, which Rayon's own tests rely on).
    for threads in [1, 2, 3, 8] {
        let pool = pool(threads);
        for (n, max) in lengths_and_caps() {
            let pieces: Vec<Vec<u64>> = pool.install(|| {
                (0..n)
                    .into_par_iter()
                    .with_max_len(max)
                    .map(|i| uneven(i as u64))
                    .fold(Vec::new, |mut piece, x| {
                        piece.push(x);
                        piece
                    })
                    .collect()
            });
            let what = format!("{threads} threads, n = {n}, max = {max}");
            assert!(pieces.iter().all(|p| p.len() <= max), "{what}");
            assert!(pieces.len() >= n.div_ceil(max).max(1), "{what}");
            let flat: Vec<u64> = pieces.into_iter().flatten().collect();
            assert_eq!(
                flat,
                (0..n as u64).map(uneven).collect::<Vec<_>>(),
                "{what}"
            );
            if max == 1 {
                let ones: Vec<u64> = pool.install(|| {
                    (0..n)
                        .into_par_iter()
                        .with_max_len(1)
                        .fold(|| 0, |count, _| count + 1)
                        .collect()
                });
                // An empty input still makes one (empty) accumulator, as in Rayon.
                let expected = if n == 0 { vec![0] } else { vec![1; n] };
                assert_eq!(ones, expected, "{what}");
            }
        }
    }
}

#[test]
fn with_max_len_runs_init_once_per_chunk_at_least() {
    use std::sync::atomic::Ordering::Relaxed;
    for threads in [1, 2, 3, 8] {
        for (n, max) in lengths_and_caps() {
            let (sum, inits, _) = inits_and_steals(threads, |inits| {
                (0..n)
                    .into_par_iter()
                    .with_max_len(max)
                    .map_init(|| inits.fetch_add(1, Relaxed), |_, i| uneven(i as u64))
                    .reduce(|| 0, u64::wrapping_add)
            });
            assert_eq!(sum, (0..n as u64).map(uneven).fold(0, u64::wrapping_add));
            assert!(
                inits >= n.div_ceil(max) as u64,
                "{threads} threads, n = {n}, max = {max}: {inits} inits"
            );
        }
    }
}

/// Seeded random values for the nested-loop tests.
fn random_values(n: usize, seed: u64) -> Vec<u64> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(0..1u64 << 40)).collect()
}

#[test]
fn nested_loops_match_sequential_in_every_pool() {
    // Inner loops of every length class: folded inline (cheap outer items), in private
    // claims (longer than a claim), private tiny ranges and shared ranges (the first items
    // of each owner), with and without `with_min_len` / `with_max_len`.
    let v = random_values(40_000, 0x5EED_0021);
    for threads in [1, 2, 3, 8] {
        let pool = pool(threads);
        for k in [1usize, 3, 16, 256, 700, 5000] {
            let what = format!("{threads} threads, chunks of {k}");
            let sums: Vec<u64> = pool.install(|| {
                v.par_chunks(k)
                    .map(|c| c.par_iter().map(|&x| x >> 3).sum::<u64>())
                    .collect()
            });
            let want: Vec<u64> = v
                .chunks(k)
                .map(|c| c.iter().map(|&x| x >> 3).sum())
                .collect();
            assert_eq!(sums, want, "sum, {what}");
            let flat: Vec<u64> = pool.install(|| {
                v.par_chunks(k)
                    .flat_map_iter(|c| c.par_iter().map(|&x| x ^ 7).collect::<Vec<u64>>())
                    .collect()
            });
            assert_eq!(flat, v.iter().map(|&x| x ^ 7).collect::<Vec<_>>(), "{what}");
            let firsts: Vec<Option<usize>> = pool.install(|| {
                v.par_chunks(k)
                    .map(|c| c.par_iter().position_first(|&x| x % 5 == 1))
                    .collect()
            });
            let want: Vec<Option<usize>> = v
                .chunks(k)
                .map(|c| c.iter().position(|&x| x % 5 == 1))
                .collect();
            assert_eq!(firsts, want, "position_first, {what}");
            for (min, max) in [(1, usize::MAX), (4, usize::MAX), (1, 5), (3, 7)] {
                let got: Vec<Vec<u64>> = pool.install(|| {
                    v.par_chunks(k)
                        .map(|c| {
                            c.par_iter()
                                .with_min_len(min)
                                .with_max_len(max)
                                .map(|&x| x >> 1)
                                .collect()
                        })
                        .collect()
                });
                let want: Vec<Vec<u64>> = v
                    .chunks(k)
                    .map(|c| c.iter().map(|&x| x >> 1).collect())
                    .collect();
                assert_eq!(got, want, "collect, min {min}, max {max}, {what}");
            }
        }
    }
}

#[test]
fn loops_nested_in_cheap_items_are_folded_inline_once_their_owner_timed_a_block() {
    // Beside a busy worker the outer loop has one owner; once it has timed a block of its
    // (cheap) items, each inner loop is folded whole as one chunk: no hand-off, no steal-me,
    // one `init`. Before, every inner loop of 16 items was shared (two chunks or more).
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
    let pool = pool(2);
    let v = random_values(1 << 16, 0x5EED_0022);
    let inner_loops = v.len() / 16;
    let inits = AtomicU64::new(0);
    let (sum, delta) = beside_a_busy_worker(&pool, &AtomicBool::new(false), || {
        v.par_chunks(16)
            .map(|c| {
                c.par_iter()
                    .map_init(|| inits.fetch_add(1, Relaxed), |_, &x| x >> 2)
                    .sum::<u64>()
            })
            .sum::<u64>()
    });
    assert_eq!(sum, v.iter().map(|&x| x >> 2).sum::<u64>());
    assert_eq!(
        inits.into_inner(),
        inner_loops as u64,
        "one init per inner loop"
    );
    assert_eq!(delta.range_steals, 0, "{delta:?}");
    // The outer owner's chunks, plus one per inner loop; an inner loop that starts before
    // the owner's items are timed (or after a block slowed by preemption) takes up to
    // three, hence the slack.
    let chunks = delta.chunks_taken as usize;
    assert!(
        chunks <= inner_loops + inner_loops / 8 + 64,
        "{chunks} chunks for {inner_loops} inner loops: {delta:?}"
    );
}

/// An outer item of about a microsecond: 500 rounds the compiler cannot fold away.
fn cheap_item(k: u64) -> u64 {
    (0..500u64).fold(k, |acc, j| std::hint::black_box(acc.rotate_left(3) ^ j))
}

#[test]
fn a_long_loop_nested_in_cheap_items_is_shared_at_a_claim_boundary() {
    // The outer loop's items are cheap, so loops nested in them are folded inline, in
    // private claims if long. The last outer item holds a long loop of slow items; the other
    // worker falls idle when it starts and, once the outer range offers nothing more, must
    // get part of the inner loop at a claim boundary rather than wait for all of it.
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::Duration;
    let pool = pool(2);
    let outer = 2048usize;
    let long = 1024usize;
    let started = AtomicBool::new(false);
    let elsewhere = AtomicUsize::new(0);
    let (sums, delta) = beside_a_busy_worker(&pool, &started, || {
        let owner = weft::current_thread_index();
        (0..outer)
            .into_par_iter()
            .map(|k| {
                if k + 1 < outer {
                    // About a microsecond: the inner loop may be a few thousand items long.
                    return cheap_item(k as u64);
                }
                started.store(true, Ordering::Release);
                (0..long as u64)
                    .into_par_iter()
                    .map(|i| {
                        if weft::current_thread_index() != owner {
                            elsewhere.fetch_add(1, Ordering::SeqCst);
                        } else {
                            std::thread::sleep(Duration::from_micros(200));
                        }
                        i
                    })
                    .sum::<u64>()
            })
            .collect::<Vec<u64>>()
    });
    let want: Vec<u64> = (0..outer)
        .map(|k| {
            if k + 1 < outer {
                cheap_item(k as u64)
            } else {
                (0..long as u64).sum()
            }
        })
        .collect();
    assert_eq!(sums, want);
    assert!(elsewhere.into_inner() > 0, "{delta:?}");
}

#[test]
fn a_search_in_loops_nested_in_cheap_items_stops_at_its_match() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
    let pool = pool(2);
    let seen = AtomicU64::new(0);
    let (found, _) = beside_a_busy_worker(&pool, &AtomicBool::new(false), || {
        (0..512u64)
            .into_par_iter()
            .map(|k| {
                (0..200u64)
                    .into_par_iter()
                    .inspect(|_| {
                        seen.fetch_add(1, Relaxed);
                    })
                    .find_first(|&i| i == 3 + k % 2)
                    .unwrap()
            })
            .sum::<u64>()
    });
    assert_eq!(found, 256 * 3 + 256 * 4);
    // Nobody else runs anything, so each search produced exactly the items up to its match.
    assert_eq!(seen.into_inner(), 256 * 4 + 256 * 5);
}

#[test]
fn a_panic_in_a_loop_nested_in_cheap_items_reaches_the_caller_and_drops_every_item_once() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
    let pool = pool(2);
    let (outer, inner) = (300usize, 24usize);
    for poison in [5, outer * inner / 2 + 7, outer * inner - 1] {
        let drops: Vec<AtomicUsize> = (0..outer * inner).map(|_| AtomicUsize::new(0)).collect();
        let (result, delta) = beside_a_busy_worker(&pool, &AtomicBool::new(false), || {
            catch_unwind(AssertUnwindSafe(|| {
                (0..outer)
                    .into_par_iter()
                    .map(|k| {
                        let items: Vec<Tracked<'_>> = (k * inner..(k + 1) * inner)
                            .map(|id| Tracked(id, &drops))
                            .collect();
                        items
                            .into_par_iter()
                            .map(|item| {
                                assert!(item.0 != poison, "poisoned item {poison}");
                                item.0
                            })
                            .sum::<usize>()
                    })
                    .sum::<usize>()
            }))
        });
        let what = format!("panic at {poison}: {delta:?}");
        assert_poison_came_through(result, poison, &what);
        // One owner folds the outer items in order and stops at the panic: the items of
        // the inner loops up to the poisoned one were made and are dropped once, the later
        // ones were never made.
        let made = (poison / inner + 1) * inner;
        for (id, count) in drops.iter().enumerate() {
            let want = usize::from(id < made);
            assert_eq!(count.load(Relaxed), want, "{what}: item {id}");
        }
    }
    // The pool is still usable.
    assert_eq!(
        pool.install(|| (0..100u64).into_par_iter().sum::<u64>()),
        4950
    );
}

/// A consumer that records how many items each `consume_iter` call of its folders got
/// (as a sum of `u64`s, so the items are checked too), and says whether it may stop early.
/// `STOP` is its folder's `MAY_STOP_EARLY`.
struct CallSizes<const STOP: bool>;

struct CallSizesFolder<const STOP: bool> {
    calls: Vec<usize>,
    sum: u64,
}

impl<const STOP: bool> weft::iter::plumbing::Consumer<u64> for CallSizes<STOP> {
    type Folder = CallSizesFolder<STOP>;
    type Reducer = CallSizesReducer;
    type Result = (Vec<usize>, u64);

    fn split_at(self, _index: usize) -> (Self, Self, CallSizesReducer) {
        (self, CallSizes, CallSizesReducer)
    }

    fn into_folder(self) -> CallSizesFolder<STOP> {
        CallSizesFolder {
            calls: Vec::new(),
            sum: 0,
        }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<const STOP: bool> weft::iter::plumbing::Folder<u64> for CallSizesFolder<STOP> {
    type Result = (Vec<usize>, u64);

    const MAY_STOP_EARLY: bool = STOP;

    fn consume(mut self, item: u64) -> Self {
        self.calls.push(1);
        self.sum += item;
        self
    }

    fn consume_iter<I: IntoIterator<Item = u64>>(mut self, iter: I) -> Self {
        let (mut items, mut sum) = (0, self.sum);
        for item in iter {
            items += 1;
            sum += item;
        }
        self.calls.push(items);
        self.sum = sum;
        self
    }

    fn complete(self) -> (Vec<usize>, u64) {
        (self.calls, self.sum)
    }

    fn full(&self) -> bool {
        false
    }
}

impl<const STOP: bool> weft::iter::plumbing::UnindexedConsumer<u64> for CallSizes<STOP> {
    fn split_off_left(&self) -> Self {
        CallSizes
    }

    fn to_reducer(&self) -> CallSizesReducer {
        CallSizesReducer
    }
}

struct CallSizesReducer;

impl weft::iter::plumbing::Reducer<(Vec<usize>, u64)> for CallSizesReducer {
    fn reduce(self, left: (Vec<usize>, u64), right: (Vec<usize>, u64)) -> (Vec<usize>, u64) {
        let (mut calls, sum) = left;
        calls.extend(right.0);
        (calls, sum + right.1)
    }
}

#[test]
fn a_pool_of_one_folds_a_long_loop_in_one_call_unless_its_consumer_may_stop_early() {
    // A consumer that can never stop early gets the whole loop in one `consume_iter` (as a
    // Rayon leaf does), so that a fold's accumulator is made beside the one loop. One that
    // may stop gets it in blocks of at most 2^20 items, with a chance to stop between them.
    let pool = pool(1);
    let n = 3 * (1 << 20) + 12_345;
    let v: Vec<u64> = (0..n as u64).map(|x| x.wrapping_mul(0x9E37_79B9)).collect();
    let want: u64 = v.iter().sum();
    let whole = pool.install(|| v.par_iter().copied().drive(CallSizes::<false>));
    assert_eq!(whole, (vec![n], want));
    let (calls, sum) = pool.install(|| v.par_iter().copied().drive(CallSizes::<true>));
    assert_eq!(sum, want);
    assert_eq!(calls.iter().sum::<usize>(), n, "{calls:?}");
    assert!(
        calls.len() >= 4 && calls.iter().all(|&c| c <= 1 << 20),
        "{calls:?}"
    );
}

#[test]
fn a_filter_passes_a_long_input_on_whole_unless_its_consumer_may_stop_early() {
    // `filter` cuts a long input into batches, with a stop test between them, only for a
    // consumer that may stop early; for one that cannot, the batches' countdown would be
    // all cost.
    let pool = pool(1);
    let n = 3 * (1 << 20) + 777;
    let v: Vec<u64> = (0..n as u64).map(|x| x.wrapping_mul(0x9E37_79B9)).collect();
    let kept = |x: &u64| x % 3 != 0;
    let want: Vec<u64> = v.iter().copied().filter(kept).collect();
    let sum: u64 = want.iter().sum();
    let filtered = || v.par_iter().copied().filter(kept);
    let whole = pool.install(|| filtered().drive_unindexed(CallSizes::<false>));
    assert_eq!(whole, (vec![want.len()], sum));
    let (calls, got) = pool.install(|| filtered().drive_unindexed(CallSizes::<true>));
    assert_eq!(got, sum);
    assert_eq!(calls.iter().sum::<usize>(), want.len(), "{calls:?}");
    assert!(calls.len() > 3, "{calls:?}");
}

#[test]
fn small_loops_of_cheap_items_give_std_results_and_one_init_per_owner() {
    // A sequential loop of 4-, 8-, 16-, 32-, 64- and 256-item parallel loops in a 2-thread
    // pool whose other worker is idle: each loop offers its rest before its first item runs
    // (an item may wait for a later one, which the idle worker must be able to take), and
    // however the loops split, their results are std's and `map_init` runs once per owner.
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    let pool = pool(2);
    let loops = 400;
    for len in [4, 8, 16, 32, 64, 256] {
        let v = random_values(len * loops, 0x5EED_0023 + len as u64);
        let inits = AtomicU64::new(0);
        let before = pool.stats();
        let (sums, collected): (Vec<u64>, Vec<Vec<u64>>) = pool.install(|| {
            v.chunks(len)
                .map(|c| {
                    let sum = c
                        .par_iter()
                        .map_init(|| inits.fetch_add(1, Relaxed), |_, &x| x >> 3)
                        .sum::<u64>();
                    (sum, c.par_iter().map(|&x| x ^ 5).collect::<Vec<u64>>())
                })
                .unzip()
        });
        let delta = pool.stats() - before;
        let what = format!("{len}-item loops: {delta:?}");
        let want: Vec<u64> = v
            .chunks(len)
            .map(|c| c.iter().map(|&x| x >> 3).sum())
            .collect();
        assert_eq!(sums, want, "{what}");
        let want: Vec<Vec<u64>> = v
            .chunks(len)
            .map(|c| c.iter().map(|&x| x ^ 5).collect())
            .collect();
        assert_eq!(collected, want, "{what}");
        // One folder per owner: one `init` per loop plus one per steal.
        let inits = inits.into_inner();
        assert!(
            (loops as u64..=loops as u64 + delta.range_steals).contains(&inits),
            "{inits} inits, {what}"
        );
    }
}

#[test]
fn a_short_loop_whose_items_turn_slow_still_runs_them_on_both_workers() {
    // 200 loops of 8 cheap items, then a loop of the same type (the same closures) whose
    // items sleep 5 ms: nothing learned from the cheap loops may keep the slow one on one
    // worker, so both workers run its items. A few attempts: the idle worker may be
    // descheduled for a moment on a loaded machine.
    use std::time::Duration;
    let pool = pool(2);
    let want: Vec<u64> = (0..8).map(|i| i * 3).collect();
    let both = (0..3).any(|attempt| {
        let (cheap, slow) = pool.install(|| {
            let run = |slow: bool| {
                (0..8u64)
                    .into_par_iter()
                    .map(move |i| {
                        if slow {
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        (i * 3, weft::current_thread_index().expect("on a worker"))
                    })
                    .collect::<Vec<(u64, usize)>>()
            };
            let cheap: Vec<_> = (0..200).map(|_| run(false)).collect();
            (cheap, run(true))
        });
        for out in cheap.iter().chain([&slow]) {
            assert_eq!(out.iter().map(|&(v, _)| v).collect::<Vec<_>>(), want);
        }
        let distinct = slow.iter().any(|&(_, w)| w != slow[0].1);
        if !distinct {
            eprintln!(
                "attempt {attempt}: all 8 slow items on worker {}",
                slow[0].1
            );
        }
        distinct
    });
    assert!(both, "the slow items never reached the second worker");
}

#[test]
fn an_owner_that_saw_a_steal_offers_the_rest_again_at_once() {
    // A loop of 4 items at 2 threads, its items waiting for each other so that the schedule
    // is fixed: the thief takes item 3 (the upper half of the 3 left after the owner's first
    // claim) while the owner's item 0 waits for it to start; the owner then sees the steal,
    // offers the rest (items 1 and 2) again and claims item 1, which waits for item 2 to
    // start; item 3 ends once item 1 has started, and the thief, idle now, must be able to
    // take item 2. Before, the new steal-me was published only at the owner's next look at
    // the pool, after item 1 (unless item 0 took 25 µs, "slow"): item 1 waited in vain.
    // Twenty loops in a row keep the thief awake, so item 0 is rarely slow.
    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    use std::time::{Duration, Instant};
    fn wait_for(flag: &AtomicBool) -> bool {
        let deadline = Instant::now() + Duration::from_secs(2);
        while !flag.load(SeqCst) {
            if Instant::now() > deadline {
                return false;
            }
            std::thread::yield_now();
        }
        true
    }
    let pool = pool(2);
    pool.install(|| {
        for round in 0..20 {
            let started: [AtomicBool; 4] = Default::default();
            let saw: Vec<bool> = (0..4usize)
                .into_par_iter()
                .map(|i| {
                    started[i].store(true, SeqCst);
                    match i {
                        0 => {
                            let saw = wait_for(&started[3]);
                            // A first block of at least 4 µs: the next claim is one item.
                            let start = Instant::now();
                            while start.elapsed() < Duration::from_micros(4) {
                                std::hint::spin_loop();
                            }
                            saw
                        }
                        1 => wait_for(&started[2]),
                        2 => true,
                        _ => wait_for(&started[1]),
                    }
                })
                .collect();
            assert_eq!(saw, [true; 4], "round {round}: an item waited in vain");
        }
    });
}

#[test]
fn a_panic_in_a_short_loop_after_cheap_ones_reaches_the_caller_and_drops_every_item_once() {
    // 50 loops of cheap items, then a loop of the same type panics at `poison`: in its
    // first item or in the rest, wherever it runs. The panic reaches the caller, every
    // item is dropped exactly once, and the pool stays usable.
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    let pool = pool(2);
    for (n, poison) in [(8usize, 0usize), (8, 1), (8, 7), (16, 0), (16, 9), (16, 15)] {
        let drops: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        let taught: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        let result = pool.install(|| {
            let run = |items: Vec<Tracked<'_>>, poison: usize| {
                catch_unwind(AssertUnwindSafe(|| {
                    items
                        .into_par_iter()
                        .map(|item| {
                            assert!(item.0 != poison, "poisoned item {poison}");
                            item.0
                        })
                        .collect::<Vec<_>>()
                }))
            };
            for _ in 0..50 {
                let items = (0..n).map(|id| Tracked(id, &taught)).collect();
                let out = run(items, usize::MAX).expect("no poison");
                assert_eq!(out, (0..n).collect::<Vec<_>>());
            }
            let items = (0..n).map(|id| Tracked(id, &drops)).collect();
            run(items, poison)
        });
        let what = format!("{n} items, panic at {poison}");
        assert_poison_came_through(result, poison, &what);
        for (id, count) in drops.iter().enumerate() {
            assert_eq!(count.load(Relaxed), 1, "{what}: item {id}");
        }
        for (id, count) in taught.iter().enumerate() {
            assert_eq!(count.load(Relaxed), 50, "{what}: teaching item {id}");
        }
    }
    assert_eq!(
        pool.install(|| (0..1000u64).into_par_iter().sum::<u64>()),
        499_500
    );
}

#[test]
fn a_long_loop_of_slow_items_is_shared_after_its_timed_first_claim() {
    // 256 items of 200 µs (a first claim of 2 items) and 32 of 1 ms (the shortest timed loop
    // at two threads, a first claim of 1 item): the timed first claim shows the rest to be
    // far more than a claim's worth, so the range is shared at once and the idle worker
    // takes part of it.
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;
    let pool = pool(2);
    for (len, micros) in [(256usize, 200), (32, 1000)] {
        let elsewhere = AtomicUsize::new(0);
        let before = pool.stats();
        let v: Vec<usize> = pool.install(|| {
            let owner = weft::current_thread_index();
            (0..len)
                .into_par_iter()
                .map(|i| {
                    if weft::current_thread_index() != owner {
                        elsewhere.fetch_add(1, Ordering::SeqCst);
                    }
                    std::thread::sleep(Duration::from_micros(micros));
                    i * 7
                })
                .collect()
        });
        let delta = pool.stats() - before;
        assert_eq!(v, (0..len).map(|i| i * 7).collect::<Vec<_>>());
        assert!(elsewhere.into_inner() > 0, "{len} items: {delta:?}");
        assert!(delta.range_steals >= 1, "{len} items: {delta:?}");
    }
}

#[test]
fn loops_around_the_timed_start_length_match_sequential_in_every_pool() {
    // Lengths just below, at and above 16 items per thread (the shortest loop whose first
    // claim is timed before anything is shared), 64 per thread (the shortest before) and
    // 128 (where the first claim grows to 2 items), and long ones; consumers that continue one folder, collect
    // in order, stop early, or refuse a timed start (`with_min_len`, `with_max_len`).
    let v = random_values(70_000, 0x5EED_0024);
    for threads in [2, 3, 8] {
        let pool = pool(threads);
        let (shortest, edge) = (16 * threads, 64 * threads);
        for n in [
            shortest - 1,
            shortest,
            shortest + 1,
            edge - 1,
            edge,
            edge + 1,
            2 * edge - 1,
            2 * edge + 3,
            4096,
            4097,
            70_000,
        ] {
            let s = &v[..n];
            let what = format!("{threads} threads, n = {n}");
            let (sum, mapped, first, last_match, chunked) = pool.install(|| {
                (
                    s.par_iter().map(|&x| x % 1000).sum::<u64>(),
                    s.par_iter().map(|&x| x >> 2).collect::<Vec<u64>>(),
                    s.par_iter().position_first(|&x| x == s[n - 1]),
                    s.par_iter().position_last(|&x| x == s[n / 2]),
                    s.par_iter()
                        .with_max_len(100)
                        .with_min_len(3)
                        .map(|&x| x & 0xFF)
                        .collect::<Vec<u64>>(),
                )
            });
            assert_eq!(sum, s.iter().map(|&x| x % 1000).sum::<u64>(), "{what}");
            assert_eq!(
                mapped,
                s.iter().map(|&x| x >> 2).collect::<Vec<_>>(),
                "{what}"
            );
            assert_eq!(first, s.iter().position(|&x| x == s[n - 1]), "{what}");
            // Values are random 40-bit numbers: the middle one occurs once.
            assert_eq!(last_match, s.iter().rposition(|&x| x == s[n / 2]), "{what}");
            assert_eq!(
                chunked,
                s.iter().map(|&x| x & 0xFF).collect::<Vec<_>>(),
                "{what}"
            );
        }
    }
}

#[test]
fn a_panic_in_a_timed_loop_reaches_the_caller_and_drops_every_item_once() {
    // A panic in the timed first claim, in the privately folded rest, or (slow items) in a
    // shared rest: it reaches the caller and every item is dropped exactly once.
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    let pool = pool(2);
    // 512 items: a first claim of 4; 40: the shortest timed loops, a first claim of 1.
    for (n, poison, slow) in [
        (512usize, 0, false),
        (512, 3, false),
        (512, 300, false),
        (512, 511, false),
        (512, 400, true),
        (40, 0, false),
        (40, 1, false),
        (40, 39, false),
        (40, 30, true),
    ] {
        let drops: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        let items: Vec<Tracked<'_>> = (0..n).map(|id| Tracked(id, &drops)).collect();
        let result = pool.install(|| {
            catch_unwind(AssertUnwindSafe(|| {
                items
                    .into_par_iter()
                    .map(|item| {
                        if slow {
                            std::thread::sleep(std::time::Duration::from_micros(20));
                        }
                        assert!(item.0 != poison, "poisoned item {poison}");
                        item
                    })
                    .collect::<Vec<_>>()
            }))
        });
        let what = format!("{n} items, panic at {poison}, slow items: {slow}");
        assert_poison_came_through(result, poison, &what);
        for (id, count) in drops.iter().enumerate() {
            assert_eq!(count.load(Relaxed), 1, "{what}: item {id}");
        }
    }
    // The pool is still usable.
    assert_eq!(
        pool.install(|| (0..1000u64).into_par_iter().sum::<u64>()),
        499_500
    );
}
