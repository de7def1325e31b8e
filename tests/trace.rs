//! The schedule recording (`ThreadPoolBuilder::trace`, `ThreadPool::take_trace`): spans nest
//! on each worker, jobs carry their kinds, a loop's pieces cover each of its indices
//! exactly once, marks agree with the pool's counters, and the JSON and SVG outputs are
//! well formed with the right events per worker; `WEFT_TRACE` behaves as documented
//! (`trace/env.rs`, whose cases run in child processes).

mod common_trace;
#[path = "trace/env.rs"]
mod env;

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::mpsc;
use std::time::Duration;

use common_trace::{parse_json, parse_xml, Json};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use weft::prelude::*;
use weft::trace::{JobKind, Mark, MarkKind, Span, SpanKind, Trace};
use weft::{ThreadPool, ThreadPoolBuilder};

fn recording_pool(threads: usize) -> ThreadPool {
    recording_pool_named(threads, |i| format!("worker {i}"))
}

fn recording_pool_named(threads: usize, name: fn(usize) -> String) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(name)
        .trace(true)
        .build()
        .unwrap()
}

/// After `work`, every worker runs one broadcast job, and a worker records a job as soon as
/// it ends, before it looks for the next: so everything `work` made is recorded by then.
fn run_and_take(pool: &ThreadPool, work: impl FnOnce() + Send) -> Trace {
    pool.install(work);
    pool.broadcast(|_| ());
    pool.take_trace().expect("the pool records")
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = weft::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn fib_sequential(n: u64) -> u64 {
    (0..n).fold((0u64, 1u64), |(a, b), _| (b, a + b)).0
}

fn jobs_of(trace: &Trace, kind: JobKind) -> usize {
    let wanted = SpanKind::Job(kind);
    trace
        .spans()
        .iter()
        .filter(|span| span.kind == wanted)
        .count()
}

/// On each worker, any two spans are disjoint or one contains the other, and nothing runs
/// inside a sleep.
fn assert_spans_nest(trace: &Trace) {
    for worker in 0..trace.num_workers() {
        let mut spans: Vec<&Span> = (trace.spans().iter())
            .filter(|span| span.worker == worker)
            .collect();
        spans.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        let mut open: Vec<&Span> = Vec::new();
        for span in spans {
            assert!(span.start <= span.end, "{span:?}");
            while open.last().is_some_and(|outer| outer.end <= span.start) {
                open.pop();
            }
            if let Some(outer) = open.last() {
                assert!(
                    span.end <= outer.end,
                    "worker {worker}: {span:?} overlaps {outer:?} without nesting in it"
                );
                assert_ne!(outer.kind, SpanKind::Sleep, "{span:?} inside a sleep");
            }
            open.push(span);
        }
    }
}

fn count_marks(trace: &Trace, wanted: fn(&Mark) -> bool) -> u64 {
    trace.marks().iter().filter(|mark| wanted(mark)).count() as u64
}

#[test]
fn a_pool_that_does_not_record_has_no_trace() {
    // `WEFT_TRACE` is not set for the test binaries.
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| fib(15));
    assert!(pool.take_trace().is_none());
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .trace(false)
        .build()
        .unwrap();
    assert!(pool.take_trace().is_none());
}

#[test]
fn spans_nest_on_every_worker_and_jobs_carry_their_kinds() {
    for threads in [1, 2, 4] {
        let pool = recording_pool(threads);
        let (sender, receiver) = mpsc::channel();
        for i in 0..5u64 {
            let sender = sender.clone();
            pool.spawn(move || sender.send(fib(10 + i)).unwrap());
        }
        let mut spawned: Vec<u64> = receiver.iter().take(5).collect();
        spawned.sort_unstable();
        assert_eq!(spawned, (10..15).map(fib_sequential).collect::<Vec<_>>());
        let mut sums = [0u64; 20];
        let trace = run_and_take(&pool, || {
            weft::scope(|s| {
                for (i, slot) in sums.iter_mut().enumerate() {
                    s.spawn(move |_| {
                        let n = 1000 * i as u64 + 1;
                        *slot = (0..n).into_par_iter().map(|x| x % 7).sum::<u64>() + fib(12);
                    });
                }
            });
        });
        for (i, sum) in sums.iter().enumerate() {
            let n = 1000 * i as u64 + 1;
            assert_eq!(
                *sum,
                (0..n).map(|x| x % 7).sum::<u64>() + fib_sequential(12)
            );
        }
        assert_eq!(trace.num_workers(), threads);
        assert_spans_nest(&trace);
        // Every scope task and every spawn went through a queue; nothing was lost.
        assert_eq!(jobs_of(&trace, JobKind::Scope), 20, "{threads} threads");
        assert_eq!(jobs_of(&trace, JobKind::Spawn), 5, "{threads} threads");
        // Two installs (the work, then the broadcast); the broadcast's own jobs, and its
        // install, may still be unrecorded.
        assert!((1..=2).contains(&jobs_of(&trace, JobKind::Install)));
        assert!(jobs_of(&trace, JobKind::Broadcast) <= threads);
        // The marks agree with the counters over the same interval (the pool is quiet).
        let stats = trace.stats();
        let steals = count_marks(&trace, |mark| matches!(mark.kind, MarkKind::Steal { .. }));
        let injected = count_marks(&trace, |mark| mark.kind == MarkKind::Injected);
        let range_steals = count_marks(&trace, |mark| {
            matches!(mark.kind, MarkKind::RangeSteal { .. })
        });
        assert_eq!(steals, stats.jobs_stolen);
        assert_eq!(injected, stats.jobs_injected);
        assert_eq!(range_steals, stats.range_steals);
        let jobs = trace
            .spans()
            .iter()
            .filter(|span| matches!(span.kind, SpanKind::Job(_)));
        let jobs = jobs.count() as u64;
        let unrecorded = threads as u64 + 1; // the broadcast's jobs and its install
        assert!(jobs <= stats.jobs_executed && jobs + unrecorded >= stats.jobs_executed);
        for mark in trace.marks() {
            if let MarkKind::Steal { victim } | MarkKind::RangeSteal { victim, .. } = mark.kind {
                assert!(victim < threads && victim != mark.worker, "{mark:?}");
            }
        }
        if threads == 1 {
            assert_eq!(steals + range_steals, 0);
        }
        // What was taken is gone: the next trace starts where this one ended.
        let next = pool.take_trace().unwrap();
        assert_eq!(next.interval().start, trace.interval().end);
        assert_eq!(jobs_of(&next, JobKind::Scope), 0);
    }
}

/// The pieces of each loop in `trace`, by loop id, sorted by start.
fn pieces_by_loop(trace: &Trace) -> BTreeMap<u64, Vec<Range<usize>>> {
    let mut loops: BTreeMap<u64, Vec<Range<usize>>> = BTreeMap::new();
    for span in trace.spans() {
        if let SpanKind::Piece { loop_id, indices } = &span.kind {
            loops.entry(*loop_id).or_default().push(indices.clone());
        }
    }
    for pieces in loops.values_mut() {
        pieces.sort_by_key(|piece| piece.start);
    }
    loops
}

/// Checks that each loop's pieces tile `0..len` and returns the lengths (sorted); checks
/// that every range steal lies in its loop and that no piece crosses its boundaries.
fn loop_lengths(trace: &Trace) -> Vec<usize> {
    let loops = pieces_by_loop(trace);
    let mut lengths = Vec::new();
    for (loop_id, pieces) in &loops {
        let mut next = 0;
        for piece in pieces {
            assert_eq!(piece.start, next, "loop {loop_id:#x}: a gap or an overlap");
            assert!(piece.start < piece.end || pieces.len() == 1, "{piece:?}");
            next = piece.end;
        }
        lengths.push(next);
    }
    for mark in trace.marks() {
        if let MarkKind::RangeSteal {
            loop_id, indices, ..
        } = &mark.kind
        {
            let pieces = &loops[loop_id];
            assert!(indices.start < indices.end);
            assert!(indices.end <= pieces.last().unwrap().end, "{mark:?}");
            for piece in pieces {
                let inside = piece.start >= indices.start && piece.end <= indices.end;
                let outside = piece.end <= indices.start || piece.start >= indices.end;
                assert!(
                    inside || outside,
                    "{piece:?} crosses the stolen {indices:?}"
                );
            }
        }
    }
    lengths.sort_unstable();
    lengths
}

#[test]
fn the_pieces_of_each_loop_cover_its_indices_exactly_once() {
    let mut rng = SmallRng::seed_from_u64(24);
    for threads in [1, 2, 3, 8] {
        let pool = recording_pool(threads);
        for round in 0..6 {
            let n: usize = match round {
                0 => 1,
                1 => 2,
                2 => 7,
                3 => 100_003,
                _ => rng.random_range(3..300_000),
            };
            let min_len = if round == 4 {
                rng.random_range(1..50)
            } else {
                1
            };
            let max_len = if round == 5 {
                rng.random_range(1..5000)
            } else {
                usize::MAX
            };
            let data: Vec<u32> = (0..n).map(|_| rng.random()).collect();
            let data = &data;
            let (sum, collected) = {
                let mut result = (0, Vec::new());
                let trace = run_and_take(&pool, || {
                    let sum = (0..n)
                        .into_par_iter()
                        .with_min_len(min_len)
                        .with_max_len(max_len)
                        .map(|i| u64::from(data[i] % 1000))
                        .sum::<u64>();
                    let collected: Vec<u32> = data.par_iter().map(|x| x / 3).collect();
                    result = (sum, collected);
                });
                assert_spans_nest(&trace);
                assert_eq!(
                    loop_lengths(&trace),
                    vec![n, n],
                    "{threads} threads, n = {n}"
                );
                result
            };
            assert_eq!(sum, data.iter().map(|&x| u64::from(x % 1000)).sum::<u64>());
            assert_eq!(collected, data.iter().map(|x| x / 3).collect::<Vec<_>>());
        }
        // Nested loops: each inner loop is a loop of its own, with its own length.
        let inner: Vec<usize> = (0..40).map(|_| rng.random_range(1..20_000)).collect();
        let inner_ref = &inner;
        let mut total = 0;
        let trace = run_and_take(&pool, || {
            total = (0..inner_ref.len())
                .into_par_iter()
                .map(|i| (0..inner_ref[i] as u64).into_par_iter().sum::<u64>())
                .sum::<u64>();
        });
        let expected: u64 = inner.iter().map(|&len| (0..len as u64).sum::<u64>()).sum();
        assert_eq!(total, expected);
        assert_spans_nest(&trace);
        let mut lengths = inner.clone();
        lengths.push(inner.len());
        lengths.sort_unstable();
        assert_eq!(loop_lengths(&trace), lengths, "{threads} threads");
    }
}

/// Whether `pieces` (sorted) cover `0..len` exactly once.
fn tiles(pieces: &[Range<usize>], len: usize) -> bool {
    let mut next = 0;
    for piece in pieces {
        if piece.start != next {
            return false;
        }
        next = piece.end;
    }
    next == len
}

#[test]
fn an_inner_loop_that_panics_leaves_the_recording_of_the_others_whole() {
    // The recording hooks hold a span across the closure they trace and end it after; an
    // inner loop that unwinds drops its spans instead (on the worker, mid-unwind). The
    // panics are caught in the outer loop's items: the outer loop and every inner loop that
    // did not panic still record all their indices, and the counts agree.
    const OUTER: usize = 2_000;
    const INNER: u64 = 64;
    let panics = |i: usize| i % 250 == 3;
    for threads in [1, 2] {
        let pool = recording_pool(threads);
        let mut total = 0;
        let trace = run_and_take(&pool, || {
            total = (0..OUTER)
                .into_par_iter()
                .map(|i| {
                    let inner = std::panic::catch_unwind(|| {
                        (0..INNER)
                            .into_par_iter()
                            .map(|j| {
                                assert!(!(panics(i) && j == 40), "inner loop {i} panics");
                                j * i as u64
                            })
                            .sum::<u64>()
                    });
                    inner.unwrap_or(0)
                })
                .sum::<u64>();
        });
        let expected: u64 = (0..OUTER)
            .filter(|&i| !panics(i))
            .map(|i| (0..INNER).map(|j| j * i as u64).sum::<u64>())
            .sum();
        assert_eq!(total, expected, "{threads} threads");
        assert_spans_nest(&trace);
        let loops = pieces_by_loop(&trace);
        let whole = |len| loops.values().filter(|p| tiles(p, len)).count();
        assert_eq!(whole(OUTER), 1, "{threads} threads: the outer loop");
        let survivors = (0..OUTER).filter(|&i| !panics(i)).count();
        assert_eq!(whole(INNER as usize), survivors, "{threads} threads");
    }
}

#[test]
fn range_steals_are_recorded_where_a_thief_takes_part_of_a_loop() {
    // Slow items on 4 workers: idle workers steal ranges (counted by the pool as well).
    let pool = recording_pool(4);
    let trace = run_and_take(&pool, || {
        (0..400u64).into_par_iter().for_each(|_| {
            std::thread::sleep(Duration::from_micros(200));
        })
    });
    let range_steals = count_marks(&trace, |mark| {
        matches!(mark.kind, MarkKind::RangeSteal { .. })
    });
    assert_eq!(range_steals, trace.stats().range_steals);
    assert!(
        range_steals > 0,
        "400 items of 200 µs on 4 workers, no range stolen"
    );
    assert_eq!(loop_lengths(&trace), vec![400]);
}

/// The events the JSON gives thread `tid`: (phase, name) pairs.
fn json_events(json: &Json) -> Vec<&Json> {
    json.get("traceEvents")
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .collect()
}

#[test]
fn the_json_parses_and_has_each_workers_events() {
    for threads in [1, 3] {
        let pool = recording_pool_named(threads, |i| format!("json \"worker\" {i}"));
        let trace = run_and_take(&pool, || {
            let v: Vec<u64> = (0..50_000u64).into_par_iter().map(|x| x * 3).collect();
            assert_eq!(v[49_999], 149_997);
            assert_eq!(fib(16), fib_sequential(16));
        });
        let mut text = Vec::new();
        trace.write_chrome_json(&mut text).unwrap();
        let json = parse_json(std::str::from_utf8(&text).unwrap()).unwrap();
        let events = json_events(&json);
        for worker in 0..threads {
            let tid = worker as f64;
            let of_worker = |phase: &str| {
                (events.iter())
                    .filter(|event| event.get("ph").unwrap().as_str() == Some(phase))
                    .filter(|event| event.get("tid").unwrap().as_f64() == Some(tid))
                    .collect::<Vec<_>>()
            };
            let names: Vec<_> = (of_worker("M").into_iter())
                .filter(|event| event.get("name").unwrap().as_str() == Some("thread_name"))
                .map(|event| {
                    event
                        .get("args")
                        .unwrap()
                        .get("name")
                        .unwrap()
                        .as_str()
                        .unwrap()
                })
                .collect();
            assert_eq!(names, vec![trace.worker_name(worker)]);
            let complete = of_worker("X");
            let spans: Vec<&Span> = (trace.spans().iter())
                .filter(|span| span.worker == worker)
                .collect();
            assert_eq!(complete.len(), spans.len());
            for (event, span) in complete.iter().zip(&spans) {
                let ts = event.get("ts").unwrap().as_f64().unwrap();
                let dur = event.get("dur").unwrap().as_f64().unwrap();
                assert!((ts - span.start.as_nanos() as f64 / 1e3).abs() < 1e-3);
                assert!(dur >= 0.0);
                assert_eq!(event.get("pid").unwrap().as_f64(), Some(1.0));
                if let SpanKind::Piece { indices, .. } = &span.kind {
                    let args = event.get("args").unwrap();
                    assert_eq!(
                        args.get("start").unwrap().as_f64(),
                        Some(indices.start as f64)
                    );
                    assert_eq!(args.get("end").unwrap().as_f64(), Some(indices.end as f64));
                }
            }
            let instants = of_worker("i");
            let marks = trace.marks().iter().filter(|mark| mark.worker == worker);
            assert_eq!(instants.len(), marks.count());
            assert!(instants
                .iter()
                .all(|event| event.get("s").unwrap().as_str() == Some("t")));
        }
        let other = json.get("otherData").unwrap();
        let stats = trace.stats();
        assert_eq!(
            other.get("jobs_executed").unwrap().as_f64(),
            Some(stats.jobs_executed as f64)
        );
        assert_eq!(
            other.get("chunks_taken").unwrap().as_f64(),
            Some(stats.chunks_taken as f64)
        );
    }
}

#[test]
fn the_svg_is_well_formed_with_one_lane_per_worker() {
    for threads in [1, 3, 8] {
        let pool = recording_pool_named(threads, |i| format!("svg<{i}>"));
        let trace = run_and_take(&pool, || {
            let sum: u64 = (0..200_000u64).into_par_iter().map(|x| x % 11).sum();
            assert_eq!(sum, (0..200_000u64).map(|x| x % 11).sum::<u64>());
        });
        let mut svg = Vec::new();
        trace.write_svg(&mut svg).unwrap();
        let svg = String::from_utf8(svg).unwrap();
        let elements = parse_xml(&svg).unwrap_or_else(|err| panic!("{err}\n{svg}"));
        assert_eq!(elements[0].name, "svg");
        let lanes = (elements.iter())
            .filter(|element| element.attributes.get("class").map(String::as_str) == Some("lane"));
        assert_eq!(lanes.count(), threads);
        for worker in 0..threads {
            // The names are escaped: `svg<0>` reads `svg&lt;0&gt;` in the file.
            assert!(svg.contains(&format!(">svg&lt;{worker}&gt;</text>")));
        }
        let bars = elements
            .iter()
            .filter(|element| element.name == "rect")
            .count();
        assert!(bars > threads, "no bars drawn");
    }
    // An empty trace draws too.
    let pool = recording_pool(2);
    let mut svg = Vec::new();
    pool.take_trace().unwrap().write_svg(&mut svg).unwrap();
    parse_xml(std::str::from_utf8(&svg).unwrap()).unwrap();
}
