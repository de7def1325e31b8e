//! A global pool of one thread still runs parallel loops called from outside it on its
//! worker, as with more threads (Rayon's `named_threads` test, with `RAYON_NUM_THREADS=1`):
//! closures see the worker's name, thread locals and `current_thread_index`.
//!
//! Its own test binary, holding a single test, so that no other test makes the global pool
//! first.

use std::collections::HashSet;
use std::thread;
use weft::prelude::*;

#[test]
fn a_one_thread_global_pool_runs_loops_from_outside_on_its_worker() {
    weft::ThreadPoolBuilder::new()
        .num_threads(1)
        .thread_name(|index| format!("only-worker-{index}"))
        .build_global()
        .expect("the first build_global succeeds");
    let name = || thread::current().name().map(str::to_owned);
    assert_ne!(name().as_deref(), Some("only-worker-0"));
    for len in [1usize, 2, 1000, 100_003] {
        let names: HashSet<Option<String>> = (0..len).into_par_iter().map(|_| name()).collect();
        let expected = HashSet::from([Some("only-worker-0".to_owned())]);
        assert_eq!(names, expected, "len {len}");
        let capped: HashSet<Option<usize>> = (0..len)
            .into_par_iter()
            .with_max_len(7)
            .map(|_| weft::current_thread_index())
            .collect();
        assert_eq!(capped, HashSet::from([Some(0)]), "len {len}");
    }
}
