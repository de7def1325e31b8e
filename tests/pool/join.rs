//! `join` and `join_context`: deep and wide recursion, a million joins on an oversubscribed
//! pool, joins from outside any pool, and the meaning of `FnContext::migrated`.

use crate::common_pool;

use common_pool::{fib_iterative, fib_join, par, pool};
use std::thread;

#[test]
fn fib_with_a_join_at_every_level_matches_iterative_fib() {
    for num_threads in [1, 2, 4] {
        let pool = pool(num_threads);
        for n in [0, 1, 2, 3, 10, 24] {
            assert_eq!(pool.install(|| fib_join(n)), fib_iterative(n), "fib({n})");
        }
    }
}

#[test]
fn join_from_outside_any_pool_runs_on_the_global_pool_and_blocks_the_caller() {
    assert_eq!(par::current_thread_index(), None);
    let ((index, threads), fib) = par::join(
        || (par::current_thread_index(), par::current_num_threads()),
        || fib_join(22),
    );
    let index = index.expect("the first closure runs on a worker of the global pool");
    assert!(index < threads, "index {index} of {threads}");
    assert_eq!(fib, fib_iterative(22));
}

/// Sum of squares 1..=depth, recursing on the first closure; the second is a leaf.
fn chain_on_first(depth: u64) -> u64 {
    if depth == 0 {
        return 0;
    }
    let (rest, here) = par::join(|| chain_on_first(depth - 1), || depth * depth);
    rest + here
}

/// Sum of squares 1..=depth, recursing on the second closure, the one a thief takes.
fn chain_on_second(depth: u64) -> u64 {
    if depth == 0 {
        return 0;
    }
    let (here, rest) = par::join(|| depth * depth, || chain_on_second(depth - 1));
    here + rest
}

#[test]
fn a_join_chain_thousands_deep_completes_on_either_side() {
    const DEPTH: u64 = 3_000;
    let expected = DEPTH * (DEPTH + 1) * (2 * DEPTH + 1) / 6;
    let pool = par::ThreadPoolBuilder::new()
        .num_threads(3)
        .stack_size(64 << 20)
        .build()
        .unwrap();
    assert_eq!(pool.install(|| chain_on_first(DEPTH)), expected);
    assert_eq!(pool.install(|| chain_on_second(DEPTH)), expected);
}

/// The value each leaf of the wide tree writes; distinct per index.
fn leaf_value(index: u64) -> u64 {
    index.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (index >> 7)
}

/// Splits `slots` in halves down to single slots, with a join at every split.
fn fill_by_halving(slots: &mut [u64], first_index: u64) {
    if let [slot] = slots {
        *slot = leaf_value(first_index);
        return;
    }
    let mid = slots.len() / 2;
    let (left, right) = slots.split_at_mut(mid);
    par::join(
        || fill_by_halving(left, first_index),
        || fill_by_halving(right, first_index + mid as u64),
    );
}

#[test]
fn a_wide_join_tree_writes_every_leaf_exactly_where_it_belongs() {
    const LEAVES: usize = (1 << 18) + 12_345;
    let mut slots = vec![0u64; LEAVES];
    pool(4).install(|| fill_by_halving(&mut slots, 0));
    for (index, slot) in slots.iter().enumerate() {
        assert_eq!(*slot, leaf_value(index as u64), "slot {index}");
    }
}

/// Returns (leaves, joins) of a halving recursion over `leaves` leaves: always (n, n - 1).
fn count_leaves_and_joins(leaves: usize) -> (usize, usize) {
    if leaves == 1 {
        return (1, 0);
    }
    let half = leaves / 2;
    let ((left_leaves, left_joins), (right_leaves, right_joins)) = par::join(
        || count_leaves_and_joins(half),
        || count_leaves_and_joins(leaves - half),
    );
    (left_leaves + right_leaves, left_joins + right_joins + 1)
}

#[test]
fn a_million_joins_on_an_eight_thread_pool() {
    let pool = pool(8);
    let (leaves, joins) = pool.install(|| {
        assert_eq!(par::current_num_threads(), 8);
        count_leaves_and_joins(1_000_001)
    });
    assert_eq!((leaves, joins), (1_000_001, 1_000_000));
}

#[test]
fn many_outside_threads_join_into_one_pool_at_once() {
    let pool = pool(3);
    thread::scope(|s| {
        let callers: Vec<_> = (0..4)
            .map(|caller| {
                let pool = &pool;
                s.spawn(move || pool.install(|| count_leaves_and_joins(50_000 + caller)))
            })
            .collect();
        for (caller, handle) in callers.into_iter().enumerate() {
            let leaves = 50_000 + caller;
            assert_eq!(handle.join().unwrap(), (leaves, leaves - 1));
        }
    });
}

/// A join_context recursion that checks, at every node, that `migrated()` is true exactly
/// when the closure runs on a different thread than the one that called `join_context`.
/// Returns (nodes, nodes whose second closure migrated).
fn checked_migrations(depth: u32) -> (u64, u64) {
    if depth == 0 {
        return (1, 0);
    }
    let caller = thread::current().id();
    let check = move |ctx: par::FnContext| {
        assert_eq!(ctx.migrated(), thread::current().id() != caller);
        ctx.migrated()
    };
    let ((left, left_moved), ((right, right_moved), b_moved)) = par::join_context(
        |ctx| {
            check(ctx);
            checked_migrations(depth - 1)
        },
        |ctx| (checked_migrations(depth - 1), check(ctx)),
    );
    (
        left + right + 1,
        left_moved + right_moved + u64::from(b_moved),
    )
}

#[test]
fn migrated_is_true_exactly_when_a_closure_changed_threads() {
    let expected_nodes = (1 << 13) - 1;
    let (nodes, moved) = pool(1).install(|| checked_migrations(12));
    assert_eq!(
        (nodes, moved),
        (expected_nodes, 0),
        "one thread: nothing moves"
    );
    let (nodes, _) = pool(4).install(|| checked_migrations(12));
    assert_eq!(nodes, expected_nodes);
    // From outside any pool the closures run on a global worker: the check still holds.
    let (nodes, _) = checked_migrations(6);
    assert_eq!(nodes, (1 << 7) - 1);
}

#[test]
fn thread_pool_join_runs_both_closures_inside_that_pool() {
    let pool = pool(3);
    let ((left_threads, left_fib), (right_threads, right_index)) = pool.join(
        || (par::current_num_threads(), fib_join(21)),
        || (par::current_num_threads(), par::current_thread_index()),
    );
    assert_eq!((left_threads, right_threads), (3, 3));
    assert_eq!(left_fib, fib_iterative(21));
    assert!(right_index.is_some_and(|i| i < 3), "{right_index:?}");
}
