//! `build_global`: the first call configures the global pool, the second one is an error.
//!
//! Its own test binary, holding a single test, so that no other test touches the global pool
//! first (which would make the first `build_global` fail too).

mod common_pool;

use common_pool::{fib_iterative, fib_join, par};
use std::thread;

#[test]
fn build_global_configures_the_global_pool_once_and_then_errs() {
    par::ThreadPoolBuilder::new()
        .num_threads(3)
        .thread_name(|index| format!("global-test-{index}"))
        .build_global()
        .expect("the first build_global succeeds");

    assert_eq!(par::current_num_threads(), 3);
    let (name, fib) = par::join(
        || thread::current().name().map(str::to_owned),
        || fib_join(20),
    );
    let name = name.expect("global workers carry the configured name");
    assert!(name.starts_with("global-test-"), "{name}");
    assert_eq!(fib, fib_iterative(20));

    let second = par::ThreadPoolBuilder::new().num_threads(2).build_global();
    let error = second.expect_err("the global pool already exists");
    // Rayon's text, letter for letter (rayon-core's own test compares it), and no source.
    assert_eq!(
        error.to_string(),
        "The global thread pool has already been initialized."
    );
    assert!(std::error::Error::source(&error).is_none());
    assert_eq!(
        par::current_num_threads(),
        3,
        "the failed call changed nothing"
    );
}
