//! `build_global` with a `spawn_handler`: the global pool's workers run on the threads the
//! handler started.
//!
//! Its own test binary, holding a single test, because the global pool can be built only
//! once per process.

mod common_pool;

use common_pool::{fib_iterative, fib_join, par};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

#[test]
fn build_global_starts_the_global_workers_with_the_spawn_handler() {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    par::ThreadPoolBuilder::new()
        .num_threads(3)
        .spawn_handler(|thread| {
            CALLS.fetch_add(1, Ordering::SeqCst);
            thread::Builder::new()
                .name(format!("global-handler-{}", thread.index()))
                .spawn(move || thread.run())?;
            Ok(())
        })
        .build_global()
        .expect("the first build_global succeeds");
    assert_eq!(CALLS.load(Ordering::SeqCst), 3);
    assert_eq!(par::current_num_threads(), 3);

    let names = par::broadcast(|ctx| (ctx.index(), thread::current().name().map(str::to_owned)));
    let expected: Vec<_> = (0..3)
        .map(|i| (i, Some(format!("global-handler-{i}"))))
        .collect();
    assert_eq!(names, expected);
    assert_eq!(fib_join(20), fib_iterative(20));

    let second = par::ThreadPoolBuilder::new()
        .spawn_handler(|_| panic!("never called: the global pool exists"))
        .build_global();
    assert!(second.is_err());
    assert_eq!(CALLS.load(Ordering::SeqCst), 3);
}
