//! Several pools at once: install from a worker of another pool, cycles of installs, many
//! workers blocking on one small pool, and pools built and dropped inside a worker.

use crate::common_pool;

use common_pool::{fib_iterative, fib_join, par, pool};

#[test]
fn install_on_pool_b_from_a_worker_of_pool_a_joins_in_pool_b() {
    let pool_a = pool(2);
    let pool_b = pool(3);
    let (b_view, fib) = pool_a.install(|| {
        pool_b.install(|| {
            let view = (
                par::current_num_threads(),
                pool_b.current_thread_index().is_some(),
                pool_a.current_thread_index(),
            );
            (view, fib_join(20))
        })
    });
    assert_eq!(b_view, (3, true, None));
    assert_eq!(fib, fib_iterative(20));
}

#[test]
fn a_cycle_of_installs_between_two_pools_does_not_deadlock() {
    let pool_a = pool(2);
    let pool_b = pool(2);
    let total = pool_a.install(|| {
        let (in_a, in_b) = par::join(
            || fib_join(15),
            || {
                pool_b.install(|| {
                    let (in_b, back_in_a) =
                        par::join(|| fib_join(16), || pool_a.install(|| fib_join(17)));
                    in_b + back_in_a
                })
            },
        );
        in_a + in_b
    });
    assert_eq!(
        total,
        fib_iterative(15) + fib_iterative(16) + fib_iterative(17)
    );
}

// Rayon's `install` docs: a worker of another pool keeps busy (as with `yield_now` in a loop)
// while it waits, so pool A's only worker can run the job that comes back to A.
#[test]
fn a_one_thread_pool_installs_back_into_itself_through_another_pool() {
    let pool_a = pool(1);
    let pool_b = pool(1);
    let result = pool_a.install(|| pool_b.install(|| pool_a.install(|| fib_join(18))));
    assert_eq!(result, fib_iterative(18));
}

#[test]
fn every_worker_of_a_big_pool_installs_into_a_one_thread_pool_at_once() {
    let big = pool(6);
    let small = pool(1);
    let results = big.broadcast(|ctx| {
        let n = 10 + ctx.index() as u32;
        small.install(|| par::join(|| fib_join(n), par::current_num_threads))
    });
    let expected: Vec<_> = (0..6).map(|i| (fib_iterative(10 + i), 1)).collect();
    assert_eq!(results, expected);
}

#[test]
fn pools_built_used_and_dropped_inside_a_worker() {
    let outer = pool(2);
    let sums = outer.install(|| {
        par::join(
            || {
                let inner = pool(2);
                inner.install(|| fib_join(19))
            },
            || {
                let inner = pool(3);
                let result = inner.install(|| fib_join(18));
                drop(inner);
                result + fib_join(10)
            },
        )
    });
    assert_eq!(
        sums,
        (fib_iterative(19), fib_iterative(18) + fib_iterative(10))
    );
}

#[test]
fn join_inside_a_pool_stays_in_that_pool() {
    let pool = pool(3);
    let (left, right) = pool.install(|| {
        par::join(
            || (par::current_num_threads(), par::current_thread_index()),
            || (par::current_num_threads(), par::current_thread_index()),
        )
    });
    for (threads, index) in [left, right] {
        assert_eq!(threads, 3);
        assert!(index.is_some_and(|i| i < 3), "{index:?}");
    }
}
