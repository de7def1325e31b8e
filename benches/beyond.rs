//! Benchmarks for weft's additions beyond Rayon (issue #23): `deterministic()` reductions
//! and the scans, beside the sequential code and (where it has the operation) Rayon, at 1 and
//! 2 threads, interleaved round-robin (`benches/interleave`), since the ratios must come from
//! one machine state.
//!
//! - `det_sum_f64`: `sum::<f64>()` of 10^7 mapped items (a range through a cheap float map):
//!   sequential, weft, weft after `deterministic()`, Rayon.
//! - `scan_into`: `inclusive_scan(|| 0, +).collect_into_vec` of a 5·10^7 `Vec<u64>` into one
//!   buffer faulted in before the group and reused by every contender (the sequential
//!   contenders `clear` + `extend` it), so page faults are out of the measurement: 400 MB of
//!   fresh pages cost about 0.3 s of first-touch faults on this VM, more than the scan.
//!   `sequential` is the best sequential loop (`extend` over a `map` with a running sum: a
//!   `TrustedLen` source, no capacity test per item); `sequential-scan` is std's
//!   `iter().scan(..)` extended into the same buffer. Rayon has no scan.
//! - `scan_fresh`: the same scan collected into a fresh `Vec` per call (`collect()`), as a user
//!   collects: page faults included, the output's release not (each contender's output is
//!   dropped after its clock stops: freeing 400 MB took as long as a third of the scan here,
//!   and timed, it pulled every ratio toward 1). `sequential-scan` is std's
//!   `iter().scan(..).collect()` (which reallocates as it grows, `Scan` giving no lower bound),
//!   `sequential-push` the best loop into a buffer reserved as weft's collect reserves it
//!   (with the huge-page advice only if `WEFT_HUGE_PAGES` asks for it, as weft's collect then
//!   has it too). Ratios are to the faster of the two.
//! - `scan_in_place`: `par_inclusive_scan_mut` on a 5·10^7 `Vec<u64>` against a sequential
//!   in-place loop.
//! - `futures`: 10^5 tiny tasks spawned by one task running on the pool, each awaited in turn
//!   (issue #50): tokio's `spawn` + `.await` on its multi-thread runtime (the base) and its
//!   current-thread runtime (`tokio-1`), weft's `spawn_future` + `.await`, weft's
//!   `spawn_handle` + `.await` (the driver is a future on the pool too), and a scope's
//!   `spawn` of 10^5 closures as the plain task's reference; at 2 and 1 threads.
//! - `cancel_sum`, `cancel_fib` (issue #51): what a region that is never cancelled costs:
//!   the `det_sum_f64` loop and a `join` tree (fib(27)) on weft outside any region
//!   (`weft-T`) and inside `cancellable` (`weft-region-T`), beside the sequential code and
//!   Rayon.
//! - `cancel_latency` (issue #51): not a ratio. Endless work is cancelled 5 ms after it
//!   started, from another thread; printed are the median and worst, over repetitions, of
//!   how long after `cancel()` the last item (or task, or leaf) started, and when
//!   `cancellable` returned: an endless loop of 1 µs items on pools of 1, 2 and 8 threads,
//!   a scope spawning 10^6 tasks of 1 µs. (No endless `join` tree: a `join` runs both
//!   closures whatever happens, so a recursion of joins runs to its end.)
//!
//! `cargo bench --features bench-internals --bench beyond` prints, per group, each contender's median time relative to
//! the best sequential contender's (the first one's, or the fastest median of
//! `scan_fresh`'s two), fastest-call ratio in brackets; `WEFT_BENCH_ROUNDS`
//! (default 20), `WEFT_BENCH_ONLY=scan_into,det_sum_f64` and `WEFT_BENCH_SMALL=1` (sizes / 100)
//! as in `benches/iter.rs`. `WEFT_BENCH_ONE=scan_into/weft-1` runs that one contender once
//! and exits (for `valgrind --tool=callgrind`).
#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[allow(dead_code)] // `requested`: this bench is always interleaved
#[path = "interleave/mod.rs"]
mod interleave;
// The crate's own huge-page advice, for the best sequential fresh collect (as in iter.rs).
use weft::bench_internals::reserve_as_collect;

/// One contender: its name and one call; the call returns the time of its measured part.
type Contender<'a> = (String, Box<dyn FnMut() -> Duration + 'a>);

/// Times a whole call.
fn timed(mut call: impl FnMut()) -> impl FnMut() -> Duration {
    move || {
        let start = Instant::now();
        call();
        start.elapsed()
    }
}

/// Times a call that makes a fresh output; the output is dropped after the clock stops (as
/// a user's result outlives the call that made it).
fn timed_fresh<T>(mut call: impl FnMut() -> Vec<T>) -> impl FnMut() -> Duration {
    move || {
        let start = Instant::now();
        let out = black_box(call());
        let took = start.elapsed();
        drop(out);
        took
    }
}

/// `det_sum_f64`'s and `cancel_sum`'s sequential contender: the float sum of `n` items.
fn float_sum_sequential<'a>(n: usize) -> Contender<'a> {
    (
        "sequential".into(),
        Box::new(timed(move || {
            black_box((0..black_box(n)).map(float_item).sum::<f64>());
        })),
    )
}

/// The float sum of `n` items on Rayon's `pool` of `threads`.
fn float_sum_rayon(threads: usize, pool: &rayon::ThreadPool, n: usize) -> Contender<'_> {
    (
        format!("rayon-{threads}"),
        Box::new(timed(move || {
            black_box(pool.install(|| {
                use rayon::prelude::*;
                (0..black_box(n))
                    .into_par_iter()
                    .map(float_item)
                    .sum::<f64>()
            }));
        })),
    )
}

/// The cheap float map of `det_sum_f64`.
#[inline]
fn float_item(i: usize) -> f64 {
    ((i ^ (i >> 3)) as f64) * 0.5
}

fn weft_pool(threads: usize) -> weft::ThreadPool {
    weft::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("weft pool")
}

fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("rayon pool")
}

/// Runs `contenders` as `WEFT_BENCH_ONE` or the interleaved rounds ask; the first `baselines`
/// are sequential code, and every ratio is to the one of them with the fastest median.
fn run(group: &str, mut contenders: Vec<Contender<'_>>, baselines: usize, rounds: usize) {
    if let Ok(one) = std::env::var("WEFT_BENCH_ONE") {
        for (name, call) in &mut contenders {
            if one == format!("{group}/{name}") {
                let took = call();
                println!("{group}/{name}: {:.2} ms", took.as_secs_f64() * 1e3);
            }
        }
        return;
    }
    if !interleave::selected(group) {
        return;
    }
    for (_, call) in contenders.iter_mut() {
        call(); // warm-up: caches, pool threads awake once
    }
    let times = interleave::round_robin(contenders.len(), rounds, |i| (contenders[i].1)());
    let best = (0..baselines)
        .min_by(|&a, &b| interleave::median(&times[a]).total_cmp(&interleave::median(&times[b])))
        .expect("at least one sequential contender");
    let base = (
        interleave::median(&times[best]),
        interleave::fastest(&times[best]),
    );
    let mut line = format!("{group:<14} {} {:8.2} ms", contenders[best].0, base.0 * 1e3);
    for (i, ((name, _), t)) in contenders.iter().zip(&times).enumerate() {
        if i == best {
            continue;
        }
        let ratio = interleave::median(t) / base.0;
        let best = interleave::fastest(t) / base.1;
        line += &format!(" | {name} {ratio:.3} ({best:.3})");
    }
    println!("{line}");
}

fn main() {
    let small = std::env::var_os("WEFT_BENCH_SMALL").is_some_and(|v| v != "0");
    let shrink = if small { 100 } else { 1 };
    let rounds = interleave::rounds(20);
    let weft_pools = [1, 2].map(|t| (t, weft_pool(t)));
    let rayon_pools = [1, 2].map(|t| (t, rayon_pool(t)));
    if std::env::var_os("WEFT_BENCH_ONE").is_none() {
        println!(
            "time / the best sequential time: median (fastest call), {rounds} interleaved rounds"
        );
    }

    // det_sum_f64
    let n = 10_000_000 / shrink;
    let mut list = vec![float_sum_sequential(n)];
    for (threads, pool) in &weft_pools {
        list.push((
            format!("weft-{threads}"),
            Box::new(timed(move || {
                black_box(pool.install(|| {
                    use weft::prelude::*;
                    (0..black_box(n))
                        .into_par_iter()
                        .map(float_item)
                        .sum::<f64>()
                }));
            })),
        ));
        list.push((
            format!("weft-det-{threads}"),
            Box::new(timed(move || {
                black_box(pool.install(|| {
                    use weft::prelude::*;
                    (0..black_box(n))
                        .into_par_iter()
                        .deterministic()
                        .map(float_item)
                        .sum::<f64>()
                }));
            })),
        ));
    }
    list.extend(
        rayon_pools
            .iter()
            .map(|(threads, pool)| float_sum_rayon(*threads, pool, n)),
    );
    run("det_sum_f64", list, 1, rounds);

    futures_group(&weft_pools, 100_000 / shrink as u64, rounds);
    cancel_cost_groups(&weft_pools, &rayon_pools, shrink, rounds);
    if interleave::selected("cancel_latency") && std::env::var_os("WEFT_BENCH_ONE").is_none() {
        cancel_latency_group(if small { 3 } else { 15 });
    }

    // The scans' input: 5·10^7 u64 below 2^32 (their sums do not overflow).
    let scan_n = 50_000_000 / shrink;
    let wants_scans = std::env::var("WEFT_BENCH_ONE").map_or_else(
        |_| {
            ["scan_into", "scan_fresh", "scan_in_place"]
                .iter()
                .any(|g| interleave::selected(g))
        },
        |one| one.starts_with("scan"),
    );
    if !wants_scans {
        return;
    }
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let input: Vec<u64> = (0..scan_n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed >> 32
        })
        .collect();
    let input = &input[..];
    let expected_last: u64 = input.iter().sum();

    // scan_into: one faulted-in output buffer for everyone.
    let out = Mutex::new(vec![1u64; scan_n]);
    let out = &out;
    let mut list: Vec<Contender<'_>> = vec![
        (
            "sequential".into(),
            Box::new(timed(move || {
                let mut out = out.lock().unwrap();
                out.clear();
                let mut acc = 0u64;
                out.extend(black_box(input).iter().map(|&x| {
                    acc += x;
                    acc
                }));
            })),
        ),
        (
            "sequential-scan".into(),
            Box::new(timed(move || {
                let mut out = out.lock().unwrap();
                out.clear();
                out.extend(black_box(input).iter().scan(0u64, |acc, &x| {
                    *acc += x;
                    Some(*acc)
                }));
            })),
        ),
    ];
    for (threads, pool) in &weft_pools {
        list.push((
            format!("weft-{threads}"),
            Box::new(timed(move || {
                let mut out = out.lock().unwrap();
                let out: &mut Vec<u64> = &mut out;
                pool.install(|| {
                    use weft::prelude::*;
                    black_box(input)
                        .par_iter()
                        .copied()
                        .inclusive_scan(|| 0, |a, b| a + b)
                        .collect_into_vec(out);
                });
            })),
        ));
    }
    run("scan_into", list, 1, rounds);
    if std::env::var_os("WEFT_BENCH_ONE").is_none() && interleave::selected("scan_into") {
        assert_eq!(out.lock().unwrap().last().copied(), Some(expected_last));
    }

    // scan_fresh: a new Vec per call, page faults included, its release not.
    let mut list: Vec<Contender<'_>> = vec![
        (
            "sequential-scan".into(),
            Box::new(timed_fresh(move || {
                black_box(input)
                    .iter()
                    .scan(0u64, |acc, &x| {
                        *acc += x;
                        Some(*acc)
                    })
                    .collect()
            })),
        ),
        (
            "sequential-push".into(),
            Box::new(timed_fresh(move || {
                let mut v = Vec::new();
                reserve_as_collect(&mut v, input.len());
                let mut acc = 0u64;
                v.extend(black_box(input).iter().map(|&x| {
                    acc += x;
                    acc
                }));
                v
            })),
        ),
    ];
    for (threads, pool) in &weft_pools {
        list.push((
            format!("weft-{threads}"),
            Box::new(timed_fresh(move || {
                pool.install(|| {
                    use weft::prelude::*;
                    black_box(input)
                        .par_iter()
                        .copied()
                        .inclusive_scan(|| 0, |a, b| a + b)
                        .collect()
                })
            })),
        ));
    }
    run("scan_fresh", list, 2, rounds);

    // scan_in_place: the copy back from `input` is not timed.
    let buffer = Mutex::new(input.to_vec());
    let buffer = &buffer;
    let refill = move || {
        let mut buffer = buffer.lock().unwrap();
        buffer.copy_from_slice(input);
        buffer
    };
    let mut list: Vec<Contender<'_>> = vec![(
        "sequential".into(),
        Box::new(move || {
            let mut v = refill();
            let start = Instant::now();
            let mut acc = 0u64;
            for x in black_box(&mut v[..]) {
                acc += *x;
                *x = acc;
            }
            start.elapsed()
        }),
    )];
    for (threads, pool) in &weft_pools {
        list.push((
            format!("weft-{threads}"),
            Box::new(move || {
                let mut v = refill();
                let v: &mut [u64] = &mut v;
                let start = Instant::now();
                pool.install(|| {
                    use weft::prelude::*;
                    black_box(v).par_inclusive_scan_mut(|a, b| a + b);
                });
                start.elapsed()
            }),
        ));
    }
    run("scan_in_place", list, 1, rounds);
}

/// What each tiny task of the `futures` group computes.
#[inline]
fn tiny(i: u64) -> u64 {
    black_box(i).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7
}

/// The `futures` group: `n` tiny tasks spawned by one driver task on the pool and awaited in
/// turn, on tokio and on weft (see the module doc).
fn futures_group(weft_pools: &[(usize, weft::ThreadPool)], n: u64, rounds: usize) {
    let expected = (0..n).map(tiny).fold(0u64, u64::wrapping_add);
    let tokio_multi = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("tokio runtime");
    let tokio_single = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("tokio runtime");
    let tokio_driver = move || async move {
        let handles: Vec<_> = (0..n)
            .map(|i| tokio::spawn(async move { tiny(i) }))
            .collect();
        let mut total = 0u64;
        for handle in handles {
            total = total.wrapping_add(handle.await.expect("a tiny task"));
        }
        assert_eq!(total, expected);
    };
    let mut list: Vec<Contender<'_>> = vec![
        (
            "tokio-2".into(),
            Box::new(timed(move || {
                let driver = tokio_multi.spawn(tokio_driver());
                tokio_multi.block_on(driver).expect("the driver");
            })),
        ),
        (
            "tokio-1".into(),
            Box::new(timed(move || {
                let driver = tokio_single.spawn(tokio_driver());
                tokio_single.block_on(driver).expect("the driver");
            })),
        ),
    ];
    for (threads, pool) in weft_pools.iter().rev() {
        list.push((
            format!("weft-future-{threads}"),
            Box::new(timed(move || {
                pool.spawn_future(async move {
                    let handles: Vec<_> = (0..n)
                        .map(|i| weft::spawn_future(async move { tiny(i) }))
                        .collect();
                    let mut total = 0u64;
                    for handle in handles {
                        total = total.wrapping_add(handle.await);
                    }
                    assert_eq!(total, expected);
                })
                .join();
            })),
        ));
        list.push((
            format!("weft-handle-{threads}"),
            Box::new(timed(move || {
                pool.spawn_future(async move {
                    let handles: Vec<_> = (0..n)
                        .map(|i| weft::spawn_handle(move || tiny(i)))
                        .collect();
                    let mut total = 0u64;
                    for handle in handles {
                        total = total.wrapping_add(handle.await);
                    }
                    assert_eq!(total, expected);
                })
                .join();
            })),
        ));
        list.push((
            format!("weft-scope-{threads}"),
            Box::new(timed(move || {
                pool.install(|| {
                    weft::scope(|s| {
                        for i in 0..n {
                            s.spawn(move |_| {
                                black_box(tiny(i));
                            });
                        }
                    })
                });
            })),
        ));
    }
    run("futures", list, 1, rounds);
}

/// Busy work of about `d` (the clock is read every 32 rounds).
fn spin_for(d: Duration) {
    let start = Instant::now();
    let mut x = 0u64;
    loop {
        for _ in 0..32 {
            x = black_box(x.wrapping_add(1));
        }
        if start.elapsed() >= d {
            return;
        }
    }
}

/// The fib of the `cancel_fib` group, sequential.
fn fib_seq(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

fn fib_weft(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    let (a, b) = weft::join(|| fib_weft(n - 1), || fib_weft(n - 2));
    a + b
}

fn fib_rayon(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

/// `cancel_sum` and `cancel_fib`: loops and joins inside a region nobody cancels, against
/// the same outside any region (see the module doc).
fn cancel_cost_groups(
    weft_pools: &[(usize, weft::ThreadPool)],
    rayon_pools: &[(usize, rayon::ThreadPool)],
    shrink: usize,
    rounds: usize,
) {
    let token = &weft::CancelToken::new();
    let n = 10_000_000 / shrink;
    let sum = move || {
        use weft::prelude::*;
        (0..black_box(n))
            .into_par_iter()
            .map(float_item)
            .sum::<f64>()
    };
    let mut list = vec![float_sum_sequential(n)];
    for (threads, pool) in weft_pools {
        list.push((
            format!("weft-{threads}"),
            Box::new(timed(move || {
                black_box(pool.install(sum));
            })),
        ));
        list.push((
            format!("weft-region-{threads}"),
            Box::new(timed(move || {
                black_box(pool.cancellable(token, sum).expect("never cancelled"));
            })),
        ));
    }
    list.extend(
        rayon_pools
            .iter()
            .map(|(threads, pool)| float_sum_rayon(*threads, pool, n)),
    );
    run("cancel_sum", list, 1, rounds);

    let depth = if shrink == 1 { 27 } else { 17 };
    let mut list: Vec<Contender<'_>> = vec![(
        "sequential".into(),
        Box::new(timed(move || {
            black_box(fib_seq(black_box(depth)));
        })),
    )];
    for (threads, pool) in weft_pools {
        list.push((
            format!("weft-{threads}"),
            Box::new(timed(move || {
                black_box(pool.install(|| fib_weft(black_box(depth))));
            })),
        ));
        list.push((
            format!("weft-region-{threads}"),
            Box::new(timed(move || {
                let fib = pool.cancellable(token, || fib_weft(black_box(depth)));
                black_box(fib.expect("never cancelled"));
            })),
        ));
    }
    for (threads, pool) in rayon_pools {
        list.push((
            format!("rayon-{threads}"),
            Box::new(timed(move || {
                black_box(pool.install(|| fib_rayon(black_box(depth))));
            })),
        ));
    }
    run("cancel_fib", list, 1, rounds);
}

/// Runs `work` (endless: it ends only by a stop) in a region on `pool`, cancels the region
/// 5 ms later from this thread, and returns how long after `cancel()` the last piece of work
/// started (0 if none did) and how long after it `cancellable` returned. `work` gets a
/// function to call as each piece starts.
fn cancel_once(pool: &weft::ThreadPool, work: EndlessWork) -> (Duration, Duration) {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    let base = Instant::now();
    let last_start = AtomicU64::new(0);
    let started = || {
        let now = base.elapsed().as_nanos() as u64;
        last_start.fetch_max(now, Relaxed);
    };
    let token = weft::CancelToken::new();
    let (returned, cancelled_at) = std::thread::scope(|s| {
        let region = s.spawn(|| {
            let result = pool.cancellable(&token, || work(&started));
            assert_eq!(result, Err(weft::Cancelled));
            Instant::now()
        });
        std::thread::sleep(Duration::from_millis(5));
        let cancelled_at = Instant::now();
        token.cancel();
        (region.join().expect("the region"), cancelled_at)
    });
    let cancelled_ns = cancelled_at.duration_since(base).as_nanos() as u64;
    let late = last_start.into_inner().saturating_sub(cancelled_ns);
    (
        Duration::from_nanos(late),
        returned.duration_since(cancelled_at),
    )
}

/// Endless work for `cancel_latency`, given a function to call as each piece starts.
type EndlessWork = fn(&(dyn Fn() + Sync));

/// `cancel_latency` (see the module doc): `reps` cancels per row.
fn cancel_latency_group(reps: usize) {
    use weft::prelude::*;
    fn endless_loop(started: &(dyn Fn() + Sync)) {
        (0..u64::MAX).into_par_iter().for_each(|_| {
            started();
            spin_for(Duration::from_micros(1));
        });
    }
    fn million_tasks(started: &(dyn Fn() + Sync)) {
        weft::scope(|s| {
            for _ in 0..1_000_000 {
                s.spawn(|_| {
                    started();
                    spin_for(Duration::from_micros(1));
                });
            }
        });
    }
    let rows: [(&str, EndlessWork); 2] = [
        ("loop of 1 µs items", endless_loop),
        ("scope of 10^6 tasks", million_tasks),
    ];
    println!("cancel_latency: after cancel(), last start / return, median (worst) of {reps}");
    for (what, work) in rows {
        for threads in [1, 2, 8] {
            let pool = weft_pool(threads);
            let mut late = Vec::new();
            let mut back = Vec::new();
            for _ in 0..reps {
                let (l, b) = cancel_once(&pool, work);
                late.push(l);
                back.push(b);
            }
            late.sort();
            back.sort();
            let us = |d: Duration| d.as_secs_f64() * 1e6;
            println!(
                "  {what:<24} {threads} threads: last start {:7.1} µs ({:7.1}) | return {:7.1} µs ({:7.1})",
                us(late[reps / 2]),
                us(late[reps - 1]),
                us(back[reps / 2]),
                us(back[reps - 1]),
            );
        }
    }
}
