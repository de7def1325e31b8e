//! `par_bridge` over sources that depend on their own items or on the pool (#54): a worker
//! never calls `next()` while it holds items it has not handed to the consumer, a slow
//! `next()` still feeds every worker, and sources or items that run parallel work of their
//! own do not deadlock the bridge's lock. Every test runs under a watchdog: a deadlock fails
//! it instead of hanging the suite.

use crate::common;

use common::par;
use common::par::prelude::*;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// How long a test body may take before it counts as deadlocked (generous: a debug build on
/// a loaded 2-core machine).
const HANG_GUARD: Duration = Duration::from_secs(120);

/// Runs `body` on a helper thread; if it does not finish within [`HANG_GUARD`], reports a
/// deadlock and exits the test process (a deadlocked pool leaves threads that would keep
/// spinning in the sources below). A panic in `body` fails the test as usual.
fn with_watchdog<R: Send + 'static>(what: &str, body: impl FnOnce() -> R + Send + 'static) -> R {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let _ = sender.send(panic::catch_unwind(AssertUnwindSafe(body)));
    });
    match receiver.recv_timeout(HANG_GUARD) {
        Ok(Ok(value)) => value,
        Ok(Err(payload)) => panic::resume_unwind(payload),
        Err(_) => {
            // Written past the test harness's capture: the process exits right after.
            let message = format!("DEADLOCK: {what} did not finish within {HANG_GUARD:?}\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), message.as_bytes());
            std::process::exit(101);
        }
    }
}

fn pool(threads: usize) -> par::ThreadPool {
    par::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// Item `k` exists only once `k` items have been processed (`done >= k`): a work queue
/// whose next item is made by processing an earlier one. A bridge that calls `next()` while
/// it still holds item `k - 1` unprocessed waits forever.
struct Feedback {
    next: u64,
    end: u64,
    done: Arc<AtomicU64>,
}

impl Feedback {
    fn new(end: u64) -> (Self, Arc<AtomicU64>) {
        let done = Arc::new(AtomicU64::new(0));
        let source = Feedback {
            next: 0,
            end,
            done: Arc::clone(&done),
        };
        (source, done)
    }
}

impl Iterator for Feedback {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.next == self.end {
            return None;
        }
        while self.done.load(Ordering::Acquire) < self.next {
            thread::yield_now();
        }
        self.next += 1;
        Some(self.next - 1)
    }
}

#[test]
fn a_source_fed_by_its_own_items_runs_to_the_end() {
    const N: u64 = 10_000;
    with_watchdog("feedback source", || {
        for threads in [1, 2, 8] {
            let pool = pool(threads);
            let (source, done) = Feedback::new(N);
            let sum: u64 = pool.install(|| {
                source
                    .par_bridge()
                    .map(|k| {
                        done.fetch_add(1, Ordering::Release);
                        k * 3
                    })
                    .sum()
            });
            assert_eq!(sum, 3 * (N * (N - 1) / 2), "sum, {threads} threads");
            assert_eq!(done.load(Ordering::Acquire), N, "{threads} threads");

            let (source, done) = Feedback::new(N);
            let mut items: Vec<u64> = pool.install(|| {
                source
                    .par_bridge()
                    .inspect(|_| {
                        done.fetch_add(1, Ordering::Release);
                    })
                    .collect()
            });
            items.sort_unstable();
            assert!(items.iter().copied().eq(0..N), "collect, {threads} threads");

            let (source, done) = Feedback::new(N);
            let seen = AtomicU64::new(0);
            pool.install(|| {
                source.par_bridge().for_each(|k| {
                    seen.fetch_add(k, Ordering::Relaxed);
                    done.fetch_add(1, Ordering::Release);
                })
            });
            assert_eq!(
                seen.into_inner(),
                N * (N - 1) / 2,
                "for_each, {threads} threads"
            );
        }
    });
}

/// A crawler: node `i` of a tree of `nodes` "directories" has children `FANOUT * i + 1 ..=
/// FANOUT * i + FANOUT` (those below `nodes`). Processing a node sends its children into the
/// channel the bridge reads; the source ends when no node is pending (sent and not yet
/// processed), as jwalk's work queue does.
struct Crawl {
    receiver: Receiver<u64>,
    pending: Arc<AtomicUsize>,
}

const FANOUT: u64 = 3;

impl Iterator for Crawl {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        loop {
            match self.receiver.try_recv() {
                Ok(node) => return Some(node),
                Err(TryRecvError::Disconnected) => return None,
                Err(TryRecvError::Empty) if self.pending.load(Ordering::SeqCst) == 0 => {
                    return None
                }
                Err(TryRecvError::Empty) => thread::yield_now(),
            }
        }
    }
}

/// Visits every node of the tree of `nodes` from the root, in parallel through `par_bridge`;
/// returns the nodes visited.
fn crawl(nodes: u64) -> Vec<u64> {
    let (sender, receiver) = mpsc::channel();
    let pending = Arc::new(AtomicUsize::new(1));
    sender.send(0).unwrap();
    let source = Crawl {
        receiver,
        pending: Arc::clone(&pending),
    };
    let visited = source
        .par_bridge()
        .map_with(sender, |sender, node| {
            let children = (FANOUT * node + 1..=FANOUT * node + FANOUT).filter(|&c| c < nodes);
            for child in children {
                pending.fetch_add(1, Ordering::SeqCst);
                sender.send(child).unwrap();
            }
            // The children are counted before this node stops counting.
            pending.fetch_sub(1, Ordering::SeqCst);
            node
        })
        .collect();
    assert_eq!(pending.load(Ordering::SeqCst), 0);
    visited
}

#[test]
fn a_crawler_that_feeds_its_own_channel_visits_every_node() {
    with_watchdog("self-feeding crawler", || {
        for threads in [1, 2, 8] {
            let pool = pool(threads);
            for nodes in [1, 2, 40, 3000] {
                let mut visited = pool.install(|| crawl(nodes));
                visited.sort_unstable();
                assert!(
                    visited.iter().copied().eq(0..nodes),
                    "{threads} threads, {nodes} nodes: {} visited",
                    visited.len()
                );
            }
        }
    });
}

/// Processes the items of `source` in pairs: the first of each pair waits until the second
/// has been pulled and started, so the loop ends only if another worker pulls an item while
/// one is busy with its own. Returns the sum of the items.
fn sum_in_pairs(source: impl Iterator<Item = u64> + Send) -> u64 {
    let arrived = AtomicU64::new(0);
    source
        .par_bridge()
        .map(|k| {
            let arrival = arrived.fetch_add(1, Ordering::SeqCst);
            if arrival % 2 == 0 {
                // Until the second of the pair has arrived too.
                while arrived.load(Ordering::SeqCst) < arrival + 2 {
                    thread::sleep(Duration::from_micros(100));
                }
            }
            k
        })
        .sum()
}

/// A source whose first `next()` keeps the lock until other threads have run `foreign` small
/// tasks it spawns on the pool (a waiting piece may run them: it helps the pool).
fn busy_first_next(items: u64, foreign: usize) -> impl Iterator<Item = u64> + Send {
    (0..items).inspect(move |&k| {
        if k > 0 {
            return;
        }
        let holder = thread::current().id();
        let ran_elsewhere = AtomicUsize::new(0);
        par::scope(|scope| {
            while ran_elsewhere.load(Ordering::Relaxed) < foreign {
                for _ in 0..1000 {
                    scope.spawn(|_| {
                        if thread::current().id() != holder {
                            ran_elsewhere.fetch_add(1, Ordering::Relaxed);
                        }
                    });
                }
                thread::yield_now();
            }
        });
    })
}

/// A slow `next()` must not leave a single worker pulling. Two slow sources, items processed
/// in pairs (`sum_in_pairs`): one whose `next()` sleeps (a record from a socket), one whose
/// first `next()` waits until other threads have run 20 000 tasks of its own. Before #54 a
/// piece ended after finding the lock held for a bounded number of tries, and a task run
/// while waiting counted as one: the first of a pair then waited for a partner that no
/// worker would pull. (The sleeping source outlasts the tries only where a yield of the
/// thread is quick: on a lightly loaded machine.) Rayon passes the sleeping source and
/// deadlocks on the busy one: its waiting workers block on a mutex and run no task.
#[test]
fn a_slow_source_feeds_every_worker() {
    const ITEMS: u64 = 6;
    with_watchdog("slow source, items in pairs", || {
        for threads in [2, 3, 8] {
            let pool = pool(threads);
            let sum = pool.install(|| sum_in_pairs(busy_first_next(ITEMS, 20_000)));
            assert_eq!(
                sum,
                ITEMS * (ITEMS - 1) / 2,
                "busy next(), {threads} threads"
            );

            let sleepy = (0..ITEMS).inspect(|_| thread::sleep(Duration::from_millis(20)));
            let sum = pool.install(|| sum_in_pairs(sleepy));
            assert_eq!(
                sum,
                ITEMS * (ITEMS - 1) / 2,
                "sleeping next(), {threads} threads"
            );
        }
    });
}

/// A `next()` that spawns a task on the pool and blocks on a channel until the task has run:
/// the workers waiting for the lock must run it (no worker is idle). Rayon deadlocks once
/// every other worker waits on its mutex.
#[test]
fn a_source_that_blocks_on_a_task_it_spawned_finishes() {
    with_watchdog("next() blocked on a spawned task", || {
        for threads in [2, 3, 8] {
            let pool = pool(threads);
            let sum: u64 = pool.install(|| {
                (0..200u64)
                    .map(|k| {
                        let (sender, receiver) = mpsc::channel();
                        par::spawn(move || sender.send(k * 2).unwrap());
                        receiver.recv().unwrap()
                    })
                    .par_bridge()
                    .map(|x| x + common::spin(200) % 2)
                    .sum()
            });
            let expected: u64 = (0..200u64).map(|k| k * 2 + common::spin(200) % 2).sum();
            assert_eq!(sum, expected, "{threads} threads");
        }
    });
}

/// A parallel sum of `0..n` with a little work per item, to invite steals.
fn inner_sum(n: u64) -> u64 {
    (0..n)
        .into_par_iter()
        .map(|x| common::spin(20) % 2 + x)
        .sum()
}

fn inner_sum_expected(n: u64) -> u64 {
    (0..n).map(|x| common::spin(20) % 2 + x).sum()
}

/// A source whose `next()` forks: a join tree of depth `depth`, a short sleep at each leaf
/// so that other workers steal the other halves.
fn forking_next(i: u64, depth: u32) -> u64 {
    if depth == 0 {
        thread::sleep(Duration::from_micros(20));
        return i;
    }
    let (a, b) = par::join(|| forking_next(i, depth - 1), || forking_next(i, depth - 1));
    a + b
}

/// Sources and items that run parallel work on the same pool: `next()` forks a join tree
/// or a parallel loop, and each item runs a parallel loop. A worker waiting inside such work
/// may pick up a piece of the bridge; that must never deadlock on the bridge's lock. (Rayon
/// deadlocks here: a worker that stole part of the holder's `next()` and waits inside it
/// picks up a piece, which blocks on the lock the holder keeps until that part is done.)
#[test]
fn sources_and_items_that_use_the_pool_do_not_deadlock() {
    with_watchdog("sources and items using the pool", || {
        let expected_inner = inner_sum_expected(64);
        for threads in [1, 2, 3, 8] {
            let pool = pool(threads);
            for round in 0..4 {
                let total: u64 = pool.install(|| {
                    (0..100u64)
                        .map(|i| forking_next(i, 3))
                        .par_bridge()
                        .map(|x| x + inner_sum(64))
                        .sum()
                });
                let expected: u64 = (0..100u64).map(|i| 8 * i + expected_inner).sum();
                assert_eq!(
                    total, expected,
                    "join in next(), {threads} threads, round {round}"
                );

                let total: u64 = pool.install(|| {
                    (0..100u64)
                        .map(|i| i + inner_sum(200))
                        .par_bridge()
                        .map(|x| x + inner_sum(64))
                        .sum()
                });
                let expected: u64 = (0..100u64)
                    .map(|i| i + inner_sum_expected(200) + expected_inner)
                    .sum();
                assert_eq!(total, expected, "par_iter in next(), {threads} threads");
            }
        }
    });
}

/// Items whose processing runs parallel work while the next item waits for them: a worker
/// waiting inside an item's parallel loop may pick up another piece of the same bridge,
/// which must not wait for the lock while the holder's `next()` waits for that item.
#[test]
fn a_feedback_source_whose_items_run_parallel_loops_runs_to_the_end() {
    const N: u64 = 2_000;
    with_watchdog("feedback source, parallel items", || {
        let expected_inner = inner_sum_expected(64);
        for threads in [1, 2, 3, 8] {
            let pool = pool(threads);
            let (source, done) = Feedback::new(N);
            let sum: u64 = pool.install(|| {
                source
                    .par_bridge()
                    .map(|k| {
                        let inner = inner_sum(64);
                        done.fetch_add(1, Ordering::Release);
                        k + inner
                    })
                    .sum()
            });
            assert_eq!(
                sum,
                N * (N - 1) / 2 + N * expected_inner,
                "{threads} threads"
            );
        }
    });
}

/// Bridges started inside a parallel loop (so their pieces may run on workers that wait
/// inside that loop), each over a feedback source.
#[test]
fn feedback_bridges_inside_a_parallel_loop_run_to_the_end() {
    const N: u64 = 500;
    with_watchdog("feedback bridges in a parallel loop", || {
        for threads in [1, 2, 3, 8] {
            let pool = pool(threads);
            let sums: Vec<u64> = pool.install(|| {
                (0..8u64)
                    .into_par_iter()
                    .map(|outer| {
                        let (source, done) = Feedback::new(N);
                        source
                            .par_bridge()
                            .map(|k| {
                                done.fetch_add(1, Ordering::Release);
                                k * outer
                            })
                            .sum()
                    })
                    .collect()
            });
            let expected: Vec<u64> = (0..8u64).map(|outer| outer * (N * (N - 1) / 2)).collect();
            assert_eq!(sums, expected, "{threads} threads");
        }
    });
}

/// A panic in `next()` reaches the caller, the other pieces stop, and the pool stays usable.
#[test]
fn a_panic_in_next_reaches_the_caller_and_stops_the_other_pieces() {
    with_watchdog("panic in next()", || {
        for threads in [1, 2, 8] {
            let pool = pool(threads);
            let pulled = AtomicU64::new(0);
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| {
                    (0..1_000_000u64)
                        .inspect(|&x| {
                            pulled.fetch_add(1, Ordering::Relaxed);
                            assert!(x != 500, "boom in next()");
                        })
                        .par_bridge()
                        .map(|x| common::spin(50) % 2 + x)
                        .count()
                })
            }));
            let payload = result.expect_err("the panic reaches the caller");
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied());
            assert_eq!(message, Some("boom in next()"), "{threads} threads");
            assert_eq!(
                pulled.load(Ordering::Relaxed),
                501,
                "no item is pulled after the panic ({threads} threads)"
            );
            let after: u64 = pool.install(|| (0..100u64).par_bridge().sum());
            assert_eq!(after, 4950, "{threads} threads");
        }
    });
}
