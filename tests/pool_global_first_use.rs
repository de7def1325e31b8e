//! The first use of the global pool from many threads at once: every thread must get the
//! one pool (the threads that lost the race to create it used to panic). Its own test
//! binary, so that nothing else has created the global pool yet.

use std::sync::Barrier;

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = weft::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[test]
fn racing_first_uses_all_get_the_global_pool() {
    let threads = 8;
    let barrier = Barrier::new(threads);
    let results: Vec<(u64, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    (fib(15), weft::current_num_threads())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let sizes: Vec<usize> = results.iter().map(|&(_, n)| n).collect();
    assert!(results.iter().all(|&(f, _)| f == 610), "{results:?}");
    assert!(sizes.iter().all(|&n| n == sizes[0] && n >= 1), "{sizes:?}");
}
