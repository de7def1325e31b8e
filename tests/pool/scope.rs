//! Scopes: many spawns, borrowing, nesting, transitive waiting, FIFO order, in-place scopes.

use crate::common_pool;

use common_pool::{fib_iterative, fib_join, par, pool};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;

fn slot_value(index: usize) -> u64 {
    (index as u64).wrapping_mul(2_654_435_761) ^ 0x5555
}

#[test]
fn a_hundred_thousand_scoped_spawns_all_run_once() {
    const TASKS: usize = 100_000;
    let mut slots = vec![0u64; TASKS];
    let ran = AtomicUsize::new(0);
    pool(4).scope(|s| {
        for (index, slot) in slots.iter_mut().enumerate() {
            let ran = &ran;
            s.spawn(move |_| {
                *slot = slot_value(index);
                ran.fetch_add(1, Ordering::SeqCst);
            });
        }
    });
    // The scope returned, so every task has finished.
    assert_eq!(ran.load(Ordering::SeqCst), TASKS);
    for (index, slot) in slots.iter().enumerate() {
        assert_eq!(*slot, slot_value(index), "slot {index}");
    }
}

#[test]
fn spawned_tasks_borrow_stack_data_and_the_scope_returns_the_body_value() {
    let data: Vec<u64> = (1..=10_000).collect();
    let mut chunk_sums = vec![0u64; 100];
    let body_value = par::scope(|s| {
        for (chunk, sum) in data.chunks(100).zip(chunk_sums.iter_mut()) {
            s.spawn(move |_| *sum = chunk.iter().sum());
        }
        "body done"
    });
    assert_eq!(body_value, "body done");
    let expected: Vec<u64> = data.chunks(100).map(|c| c.iter().sum()).collect();
    assert_eq!(chunk_sums, expected);
}

/// Spawns a binary tree of tasks `depth` levels deep into the same scope, each counting itself.
fn spawn_tree<'scope>(s: &par::Scope<'scope>, depth: u32, count: &'scope AtomicUsize) {
    count.fetch_add(1, Ordering::SeqCst);
    if depth > 0 {
        s.spawn(move |s| spawn_tree(s, depth - 1, count));
        s.spawn(move |s| spawn_tree(s, depth - 1, count));
    }
}

#[test]
fn a_scope_waits_for_transitively_spawned_tasks() {
    let count = AtomicUsize::new(0);
    pool(3).scope(|s| s.spawn(|s| spawn_tree(s, 12, &count)));
    assert_eq!(count.load(Ordering::SeqCst), (1 << 13) - 1);
}

#[test]
fn nested_scopes_write_into_borrowed_sub_slices() {
    let mut grid = vec![vec![0u64; 64]; 32];
    let pool = pool(4);
    pool.install(|| {
        par::scope(|outer| {
            for (row_index, row) in grid.iter_mut().enumerate() {
                outer.spawn(move |_| {
                    par::scope(|inner| {
                        for (col_index, cell) in row.iter_mut().enumerate() {
                            inner.spawn(move |_| *cell = (row_index * 1000 + col_index) as u64);
                        }
                    });
                });
            }
        });
    });
    for (row_index, row) in grid.iter().enumerate() {
        let expected: Vec<u64> = (0..64).map(|c| (row_index * 1000 + c) as u64).collect();
        assert_eq!(*row, expected, "row {row_index}");
    }
}

#[test]
fn scope_fifo_runs_one_threads_spawns_in_spawn_order() {
    let order = Mutex::new(Vec::new());
    pool(1).scope_fifo(|s| {
        for index in 0..200 {
            let order = &order;
            s.spawn_fifo(move |_| order.lock().unwrap().push(index));
        }
    });
    let expected: Vec<i32> = (0..200).collect();
    assert_eq!(order.into_inner().unwrap(), expected);
}

#[test]
fn scope_fifo_follows_the_documented_nested_example_on_one_thread() {
    // Rayon's `scope_fifo` docs: s.1 runs before s.2, and t.1 before t.2.
    let log = Mutex::new(Vec::new());
    let log = &log;
    pool(1).install(|| {
        par::scope_fifo(|s| {
            s.spawn_fifo(move |s| {
                log.lock().unwrap().push("s.1");
                s.spawn_fifo(move |_| {
                    log.lock().unwrap().push("s.1.1");
                    par::scope_fifo(|t| {
                        t.spawn_fifo(move |_| log.lock().unwrap().push("t.1"));
                        t.spawn_fifo(move |_| log.lock().unwrap().push("t.2"));
                    });
                });
            });
            s.spawn_fifo(move |_| log.lock().unwrap().push("s.2"));
        });
    });
    let log = log.lock().unwrap().clone();
    let position = |name| log.iter().position(|entry| *entry == name).unwrap();
    assert_eq!(log.len(), 5, "{log:?}");
    assert!(position("s.1") < position("s.2"), "{log:?}");
    assert!(position("s.1") < position("s.1.1"), "{log:?}");
    assert!(position("t.1") < position("t.2"), "{log:?}");
}

#[test]
fn in_place_scopes_run_the_body_on_the_calling_thread() {
    let caller = thread::current().id();
    let mut values = vec![0u64; 1000];
    let pool = pool(2);
    let inside_pool = pool.in_place_scope(|s| {
        assert_eq!(thread::current().id(), caller);
        for (index, value) in values.iter_mut().enumerate() {
            s.spawn(move |_| *value = fib_iterative((index % 50) as u32));
        }
        thread::current().id()
    });
    assert_eq!(inside_pool, caller);
    let fifo_order = Mutex::new(Vec::new());
    par::in_place_scope_fifo(|s| {
        assert_eq!(thread::current().id(), caller);
        s.spawn_fifo(|_| fifo_order.lock().unwrap().push(fib_join(15)));
    });
    let expected: Vec<u64> = (0..1000).map(|i| fib_iterative((i % 50) as u32)).collect();
    assert_eq!(values, expected);
    assert_eq!(fifo_order.into_inner().unwrap(), vec![fib_iterative(15)]);
}

#[test]
fn scope_spawn_broadcast_reaches_every_thread_of_the_pool_once() {
    let pool = pool(3);
    let seen = Mutex::new(Vec::new());
    pool.scope(|s| {
        s.spawn_broadcast(|_, ctx| {
            assert_eq!(ctx.num_threads(), 3);
            seen.lock().unwrap().push(ctx.index());
        });
    });
    let mut seen = seen.into_inner().unwrap();
    seen.sort_unstable();
    assert_eq!(seen, vec![0, 1, 2]);
}

#[test]
fn pool_scope_runs_its_body_inside_the_pool() {
    let pool = pool(3);
    let (index, threads) =
        pool.scope(|_| (par::current_thread_index(), par::current_num_threads()));
    assert!(index.is_some_and(|i| i < 3), "{index:?}");
    assert_eq!(threads, 3);
}
