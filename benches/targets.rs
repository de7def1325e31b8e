//! The rows of issue #21's targets, as users build them: weft and Rayon (1 and 2 threads)
//! against the best sequential code, all contenders of a row interleaved round-robin in one
//! process (see `interleave/mod.rs`), `malloc_trim` before every call.
//!
//! Each row has one or more sequential contenders (`seq-*`: std's iterator form and a
//! hand-written loop, which is faster for some reductions: `iter().max()` over `u64` is an
//! SSE2 vectorized loop about 3x slower than a plain `if x > max` loop); every ratio is a
//! median time over the median of the fastest `seq-*` contender of the same row. Contenders
//! named `huge-*` run with the huge-page advice (`huge-seq`: std's loop into an advised
//! buffer; `huge-weft-N`: a pool built with `huge_pages(true)`); they do not count as
//! sequential baselines, so they show what the advice gains against plain pages. The fresh
//! collects, the nested loops and the tree sum also time `floor-2`: two bare scoped threads
//! doing the same work (into one fresh buffer for the collects, the filtered one moving the
//! second half down after it; half of the chunks each; one subtree each), no library: the
//! machine's practical limit for the 2-thread ratio. The nested loops also time `floor-1`:
//! the sequential loop plus one thread-local read and compare per inner loop, the least a
//! library deciding at each inner loop how to run it can add; the histogram's `floor-1` is
//! the sequential fold with an accumulator whose length the loop cannot see (a parallel
//! fold's leaf saw it so while the identity ran in another function, before the leaf made its
//! accumulator itself; `Acc` in `src/iter/adapter/fold.rs`); the tree sum's is the sequential
//! recursion plus one thread-local read and test per node. The tree sum also times chili
//! (`chili-1`, `chili-2`), a heartbeat scheduler whose `join` is built to cost next to
//! nothing when nobody steals.
//!
//! `cargo bench --bench targets` runs every row; `WEFT_BENCH_ONLY=max_u64,histogram` picks
//! rows, `WEFT_BENCH_ROUNDS` sets the calls per contender (default 15), `WEFT_BENCH_SCALE=10`
//! divides every size by 10 (the quick mode of `benches/results.sh`), and
//! `WEFT_BENCH_TSV=file` appends one tab-separated line per contender:
//! `targets, row, contender, median ms, fastest ms, ratio, fastest ratio`.
//! `WEFT_BENCH_CPU=1` times the 1-thread contenders only, in thread CPU time (measured
//! inside `install`, on the worker), which other processes' load barely moves: run it
//! pinned to one CPU (`taskset -c 0`) to compare codegen and overhead on a busy machine.
//! Before timing, every contender's result is checked against the first one's.
#![allow(missing_docs)]

#[path = "interleave/mod.rs"]
#[allow(dead_code)] // `requested`: this bench is always interleaved
mod interleave;

use std::hint::black_box;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use weft as weft_impl;

mod weft_side {
    use crate::weft_impl as par;
    include!("targets/kernels.rs");
}

mod rayon_side {
    use rayon as par;
    include!("targets/kernels.rs");
}

/// (collects) a cheap, non-trivial map.
#[inline]
fn scramble(i: usize) -> u64 {
    (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i as u64 >> 7)
}

/// (filter collect) keeps 7 of 8 scrambled values.
#[inline]
fn keep_most(x: u64) -> bool {
    x % 8 != 0
}

/// (nested loops) a cheap map the compiler can vectorize.
#[inline]
fn cheap(x: u64) -> u64 {
    x ^ (x >> 3)
}

/// (par_bridge) a few nanoseconds of integer work.
#[inline]
fn fine(mut x: u64) -> u64 {
    for _ in 0..2 {
        x ^= x >> 30;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x ^= x >> 27;
        x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^= x >> 31;
    }
    x
}

/// (par_lines) what a line contributes to the sum.
#[inline]
fn line_value(line: &str) -> u64 {
    line.len() as u64 ^ u64::from(line.as_bytes().first().copied().unwrap_or(0))
}

/// (par_lines, `seq-loop`) the sum of `line_value` over the lines of `text`, searching for
/// each `\n` a word (eight bytes) at a time as weft's leaves do: std's `lines` calls
/// `memchr` per line, about twice the instructions on this row's short lines.
fn lines_sum_loop(text: &str) -> u64 {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const NEWLINES: u64 = ONES * b'\n' as u64;
    let bytes = text.as_bytes();
    let (mut sum, mut start, mut at) = (0, 0, 0);
    let mut end_line = |start: usize, end: usize| {
        let line = &text[start..end];
        sum += line_value(line.strip_suffix('\r').unwrap_or(line));
    };
    while at < bytes.len() {
        let newline = match bytes.get(at..at + 8) {
            Some(word) => {
                let w = u64::from_le_bytes(word.try_into().unwrap()) ^ NEWLINES;
                let hits = w.wrapping_sub(ONES) & !w & (ONES << 7);
                if hits == 0 {
                    at += 8;
                    continue;
                }
                at + (hits.trailing_zeros() / 8) as usize
            }
            None if bytes[at] == b'\n' => at,
            None => {
                at += 1;
                continue;
            }
        };
        end_line(start, newline);
        start = newline + 1;
        at = start;
    }
    if start < bytes.len() {
        end_line(start, bytes.len());
    }
    sum
}

/// (tree sum) a node of a full binary tree.
struct Node {
    val: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

impl Node {
    fn tree(levels: u32) -> Box<Node> {
        let mut node = Box::new(Node {
            val: 1,
            left: None,
            right: None,
        });
        if levels > 1 {
            node.left = Some(Node::tree(levels - 1));
            node.right = Some(Node::tree(levels - 1));
        }
        node
    }
}

/// The tree sum with chili's `join`, which runs its second closure first: that one takes
/// the left subtree, so every contender visits the nodes in the same order.
fn tree_sum_chili(node: &Node, scope: &mut chili::Scope<'_>) -> u64 {
    let (right, left) = scope.join(
        |s| node.right.as_deref().map_or(0, |n| tree_sum_chili(n, s)),
        |s| node.left.as_deref().map_or(0, |n| tree_sum_chili(n, s)),
    );
    node.val + left + right
}

fn tree_sum_sequential(node: &Node) -> u64 {
    let mut sum = node.val;
    if let Some(left) = &node.left {
        sum += tree_sum_sequential(left);
    }
    if let Some(right) = &node.right {
        sum += tree_sum_sequential(right);
    }
    sum
}

thread_local! {
    /// (tree sum `floor-1`) stands for what a `join` must read at the least: whether it runs
    /// on a pool's thread. An atomic so that LLVM reads it at every node, as a library must,
    /// and set by `tree_sum_floor` from a `black_box`: a flag that nothing wrote was folded
    /// into a constant, and the floor read nothing (its recursion had no `%fs` load).
    static ON_POOL: AtomicBool = const { AtomicBool::new(false) };
}

/// The tree sum's `floor-1`: the sequential recursion plus one thread-local load and test per
/// node, the least a `join` that decides at run time whether to fork can add.
fn tree_sum_floor(node: &Node) -> u64 {
    // ORDERING: a value only this thread reads.
    ON_POOL.with(|on| on.store(black_box(true), Ordering::Relaxed));
    tree_sum_floor_node(node)
}

fn tree_sum_floor_node(node: &Node) -> u64 {
    // ORDERING: a value only this thread writes (in `tree_sum_floor`); Relaxed reads it.
    if !ON_POOL.with(|on| on.load(Ordering::Relaxed)) {
        unreachable!("the flag is always set");
    }
    let side = |child: &Option<Box<Node>>| child.as_deref().map_or(0, tree_sum_floor_node);
    node.val + side(&node.left) + side(&node.right)
}

/// Hands freed memory back to the OS before each call, so that every contender's fresh
/// buffers fault their pages in alike (glibc only).
fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            /// `int malloc_trim(size_t pad)` of glibc.
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: glibc's `malloc_trim` takes any pad and only returns free memory of the
        // heap to the OS; it touches no live allocation.
        unsafe {
            malloc_trim(0);
        }
    }
}

/// One contender: its name and a call that returns its result's digest and how long its
/// measured part took.
struct Contender<'a> {
    name: String,
    call: Box<dyn FnMut() -> (u64, Duration) + 'a>,
}

/// Whether `WEFT_BENCH_CPU=1` asks for thread CPU time instead of wall time (1-thread
/// contenders only; see the module doc).
fn cpu_mode() -> bool {
    static CPU: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CPU.get_or_init(|| std::env::var_os("WEFT_BENCH_CPU").is_some_and(|v| v != "0"))
}

/// The clock of this run: this thread's CPU time in CPU mode (Linux), else wall time since
/// the first call.
fn stamp() -> Duration {
    #[cfg(target_os = "linux")]
    if cpu_mode() {
        extern "C" {
            /// `int clock_gettime(clockid_t clk, struct timespec *tp)` of the C library.
            fn clock_gettime(clk: std::ffi::c_int, tp: *mut [i64; 2]) -> std::ffi::c_int;
        }
        const CLOCK_THREAD_CPUTIME_ID: std::ffi::c_int = 3;
        let mut time = [0i64; 2];
        // SAFETY: `time` is a writable `struct timespec` (two 64-bit fields on 64-bit
        // Linux); the call only writes it.
        unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut time) };
        return Duration::new(time[0] as u64, time[1] as u32);
    }
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed()
}

/// Runs `f`, timed with [`stamp`].
fn measure<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let start = stamp();
    let result = black_box(f());
    (result, stamp().saturating_sub(start))
}

/// A contender whose whole call is timed.
fn timed<'a>(name: impl Into<String>, mut f: impl FnMut() -> u64 + 'a) -> Contender<'a> {
    Contender {
        name: name.into(),
        call: Box::new(move || measure(&mut f)),
    }
}

/// `install` of either library's pool.
trait Install: Sync {
    fn run<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R;
}

impl Install for weft::ThreadPool {
    fn run<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        self.install(op)
    }
}

impl Install for rayon::ThreadPool {
    fn run<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        self.install(op)
    }
}

/// A contender running `f` in `pool`: timed around `install` (wall time), or inside it (CPU
/// mode: the worker's own CPU time, since a 1-thread pool runs everything on its worker).
fn in_pool<'a>(
    name: String,
    pool: &'a impl Install,
    f: impl Fn() -> u64 + Send + Sync + Copy + 'a,
) -> Contender<'a> {
    Contender {
        name,
        call: Box::new(move || {
            if cpu_mode() {
                pool.run(move || measure(f))
            } else {
                measure(|| pool.run(f))
            }
        }),
    }
}

/// The pools every row uses: weft (default, and with the huge-page advice) and Rayon, at 1
/// and 2 threads.
struct Pools {
    weft: Vec<(usize, weft::ThreadPool)>,
    weft_huge: Vec<(usize, weft::ThreadPool)>,
    rayon: Vec<(usize, rayon::ThreadPool)>,
}

impl Pools {
    fn new() -> Self {
        let weft = |threads, huge: bool| {
            let builder = weft::ThreadPoolBuilder::new().num_threads(threads);
            let builder = if huge {
                builder.huge_pages(true)
            } else {
                builder
            };
            (threads, builder.build().unwrap())
        };
        let rayon = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            (threads, pool)
        };
        Pools {
            weft: vec![weft(1, false), weft(2, false)],
            weft_huge: vec![weft(1, true), weft(2, true)],
            rayon: vec![rayon(1), rayon(2)],
        }
    }

    /// `weft-1`, `weft-2`, `rayon-1`, `rayon-2` running `weft` and `rayon` in their pools
    /// (and `huge-weft-1`, `huge-weft-2` if `huge`).
    fn contenders<'a>(
        &'a self,
        huge: bool,
        weft: impl Fn() -> u64 + Send + Sync + Copy + 'a,
        rayon: impl Fn() -> u64 + Send + Sync + Copy + 'a,
    ) -> Vec<Contender<'a>> {
        let mut list = Vec::new();
        for (threads, pool) in &self.weft {
            list.push(in_pool(format!("weft-{threads}"), pool, weft));
        }
        for (threads, pool) in &self.rayon {
            list.push(in_pool(format!("rayon-{threads}"), pool, rayon));
        }
        if huge {
            for (threads, pool) in &self.weft_huge {
                list.push(in_pool(format!("huge-weft-{threads}"), pool, weft));
            }
        }
        list
    }
}

/// Runs one row: checks that every contender's digest matches the first one's, then times
/// them round-robin and prints (and appends to `WEFT_BENCH_TSV`) each one's median over the
/// fastest sequential median.
fn row(name: &str, mut contenders: Vec<Contender<'_>>, rounds: usize) {
    if !interleave::selected(name) {
        return;
    }
    if cpu_mode() {
        // One thread's CPU time says nothing of a 2-thread contender.
        contenders.retain(|c| !c.name.ends_with("-2"));
    }
    let digests: Vec<u64> = contenders
        .iter_mut()
        .map(|c| {
            trim_heap();
            (c.call)().0
        })
        .collect();
    for (c, d) in contenders.iter().zip(&digests) {
        assert_eq!(*d, digests[0], "{name}: {} disagrees", c.name);
    }
    let times = interleave::round_robin(contenders.len(), rounds, |i| {
        trim_heap();
        (contenders[i].call)().1
    });
    let medians: Vec<f64> = times.iter().map(|t| interleave::median(t)).collect();
    let fastest: Vec<f64> = times.iter().map(|t| interleave::fastest(t)).collect();
    let best_seq = contenders
        .iter()
        .enumerate()
        .filter(|(_, c)| c.name.starts_with("seq"))
        .min_by(|a, b| medians[a.0].total_cmp(&medians[b.0]))
        .map(|(i, _)| i)
        .expect("every row has a sequential contender");
    let mut line = format!(
        "{name:<22} best sequential ({}) {:8.2} ms",
        contenders[best_seq].name,
        medians[best_seq] * 1e3
    );
    let mut tsv = String::new();
    for (i, c) in contenders.iter().enumerate() {
        let ratio = medians[i] / medians[best_seq];
        let fastest_ratio = fastest[i] / fastest[best_seq];
        line += &format!(" | {} {ratio:.3} ({fastest_ratio:.3})", c.name);
        tsv += &format!(
            "targets\t{name}\t{}\t{:.3}\t{:.3}\t{ratio:.4}\t{fastest_ratio:.4}\n",
            c.name,
            medians[i] * 1e3,
            fastest[i] * 1e3
        );
    }
    println!("{line}");
    if let Ok(path) = std::env::var("WEFT_BENCH_TSV") {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("cannot open {path}: {e}"));
        file.write_all(tsv.as_bytes()).unwrap();
    }
}

/// `n` pseudo-random `u64` (xorshift).
fn random_u64s(n: usize, seed: u64) -> Vec<u64> {
    let mut state = seed | 1;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        })
        .collect()
}

/// A digest of a vector, order-sensitive.
fn digest(v: &[u64]) -> u64 {
    v.iter().fold(v.len() as u64, |a, &x| a.rotate_left(5) ^ x)
}

/// The sequential contenders of a reduction row: std's form and a hand-written loop.
macro_rules! seq_pair {
    ($std:expr, $loop:expr) => {
        vec![timed("seq-std", $std), timed("seq-loop", $loop)]
    };
}

fn reductions(pools: &Pools, rounds: usize, n: usize) {
    let v = random_u64s(n, 0x1234_5678_9abc_def0);
    let f: Vec<f64> = v
        .iter()
        .map(|&x| (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
        .collect();
    let (v, f) = (&v[..], &f[..]);
    macro_rules! par {
        ($kernel:ident, $input:expr) => {
            pools.contenders(
                false,
                move || weft_side::$kernel(black_box($input)),
                move || rayon_side::$kernel(black_box($input)),
            )
        };
        (f64 $kernel:ident, $input:expr) => {
            pools.contenders(
                false,
                move || weft_side::$kernel(black_box($input)).to_bits(),
                move || rayon_side::$kernel(black_box($input)).to_bits(),
            )
        };
    }
    let max_loop = move || {
        let v = black_box(v);
        let mut max = v[0];
        for &x in &v[1..] {
            if x > max {
                max = x;
            }
        }
        max
    };
    let min_loop = move || {
        let v = black_box(v);
        let mut min = v[0];
        for &x in &v[1..] {
            if x < min {
                min = x;
            }
        }
        min
    };

    let mut list = seq_pair!(
        move || black_box(v).iter().copied().max().unwrap(),
        max_loop
    );
    list.extend(par!(max_u64, v));
    row("max_u64", list, rounds);

    let mut list = seq_pair!(
        move || black_box(v).iter().copied().min().unwrap(),
        min_loop
    );
    list.extend(par!(min_u64, v));
    row("min_u64", list, rounds);

    let key = weft_side::key;
    let mut list = seq_pair!(
        move || *black_box(v).iter().max_by_key(|&&x| key(x)).unwrap(),
        move || {
            let v = black_box(v);
            let (mut best, mut best_key) = (v[0], key(v[0]));
            for &x in &v[1..] {
                let k = key(x);
                if k >= best_key {
                    (best, best_key) = (x, k);
                }
            }
            best
        }
    );
    list.extend(par!(max_by_key_u64, v));
    row("max_by_key_u64", list, rounds);

    let mut list = seq_pair!(
        move || black_box(v)
            .iter()
            .copied()
            .min_by(|a, b| a.cmp(b))
            .unwrap(),
        min_loop
    );
    list.extend(par!(min_by_u64, v));
    row("min_by_u64", list, rounds);

    let mut list = seq_pair!(
        move || black_box(v).iter().copied().fold(0, u64::max),
        max_loop
    );
    list.extend(par!(reduce_max_u64, v));
    row("reduce_max_u64", list, rounds);

    let mut list = seq_pair!(
        move || black_box(v).iter().copied().fold(0, u64::max),
        max_loop
    );
    list.extend(par!(fold_max_u64, v));
    row("fold_max_u64", list, rounds);

    let mut list = seq_pair!(
        move || {
            let max = black_box(f).iter().copied().max_by(|a, b| a.total_cmp(b));
            max.unwrap().to_bits()
        },
        move || {
            let f = black_box(f);
            let mut max = f[0];
            for &x in &f[1..] {
                if x.total_cmp(&max).is_ge() {
                    max = x;
                }
            }
            max.to_bits()
        }
    );
    list.extend(par!(f64 max_by_f64, f));
    row("max_by_f64", list, rounds);

    let mut list = seq_pair!(
        move || {
            let min = black_box(f)
                .iter()
                .copied()
                .min_by(|a, b| a.partial_cmp(b).unwrap());
            min.unwrap().to_bits()
        },
        move || {
            let f = black_box(f);
            let mut min = f[0];
            for &x in &f[1..] {
                if x < min {
                    min = x;
                }
            }
            min.to_bits()
        }
    );
    list.extend(par!(f64 min_by_partial_f64, f));
    row("min_by_partial_f64", list, rounds);

    let mut list = seq_pair!(
        move || black_box(f)
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max)
            .to_bits(),
        move || {
            let mut max = f64::NEG_INFINITY;
            for &x in black_box(f) {
                if x > max {
                    max = x;
                }
            }
            max.to_bits()
        }
    );
    list.extend(par!(f64 reduce_max_f64, f));
    row("reduce_max_f64", list, rounds);

    let mut list = seq_pair!(
        move || black_box(f)
            .iter()
            .copied()
            .reduce(f64::min)
            .unwrap()
            .to_bits(),
        move || {
            let f = black_box(f);
            let mut min = f[0];
            for &x in &f[1..] {
                if x < min {
                    min = x;
                }
            }
            min.to_bits()
        }
    );
    list.extend(par!(f64 reduce_with_min_f64, f));
    row("reduce_with_min_f64", list, rounds);

    let mut list = seq_pair!(
        move || {
            let h = black_box(v).iter().fold(vec![0u64; 256], |mut h, &x| {
                h[(x % 256) as usize] += 1;
                h
            });
            digest(&h)
        },
        move || {
            let mut h = vec![0u64; 256];
            for &x in black_box(v) {
                h[(x % 256) as usize] += 1;
            }
            digest(&h)
        }
    );
    list.extend(pools.contenders(
        false,
        move || digest(&weft_side::histogram(black_box(v))),
        move || digest(&rayon_side::histogram(black_box(v))),
    ));
    // The sequential fold with an accumulator from elsewhere (as a parallel fold's leaf saw
    // it before the leaf made its own): the loop cannot know it has 256 buckets and keeps
    // the bounds check the sequential code drops.
    list.push(timed("floor-1", move || {
        let h = black_box(v)
            .iter()
            .fold(black_box(vec![0u64; 256]), |mut h, &x| {
                h[(x % 256) as usize] += 1;
                h
            });
        digest(&h)
    }));
    row("histogram_fold_vec", list, rounds);

    for chunk in [16, 256] {
        let mut list = seq_pair!(
            move || black_box(v).iter().map(|&x| cheap(x)).sum(),
            move || {
                let chunks = black_box(v).chunks(chunk);
                chunks
                    .map(|c| c.iter().map(|&x| cheap(x)).sum::<u64>())
                    .sum()
            }
        );
        list.extend(pools.contenders(
            false,
            move || weft_side::nested(black_box(v), chunk),
            move || rayon_side::nested(black_box(v), chunk),
        ));
        list.push(timed("floor-1", move || {
            floor_one_check(black_box(v), chunk)
        }));
        list.push(timed("floor-2", move || floor_nested(black_box(v), chunk)));
        row(&format!("nested_chunks_{chunk}"), list, rounds);
    }
}

fn collects(pools: &Pools, rounds: usize, n: usize) {
    let mut list = vec![
        timed("seq-std", move || {
            digest(&(0..black_box(n)).map(scramble).collect::<Vec<u64>>())
        }),
        timed("huge-seq", move || {
            let mut out: Vec<u64> = Vec::new();
            huge_reserve(&mut out, n);
            out.extend((0..black_box(n)).map(scramble));
            digest(&out)
        }),
    ];
    list.extend(pools.contenders(
        true,
        move || digest(&weft_side::map_collect(black_box(n))),
        move || digest(&rayon_side::map_collect(black_box(n))),
    ));
    list.push(timed("floor-2", move || {
        digest(&floor_map_collect(black_box(n)))
    }));
    row("map_collect_fresh", list, rounds);

    let list = {
        let mut list = vec![timed("seq-std", move || {
            let kept = (0..black_box(n)).map(scramble).filter(|&x| keep_most(x));
            digest(&kept.collect::<Vec<u64>>())
        })];
        list.extend(pools.contenders(
            true,
            move || digest(&weft_side::filter_collect(black_box(n))),
            move || digest(&rayon_side::filter_collect(black_box(n))),
        ));
        list.push(timed("floor-2", move || {
            digest(&floor_filter_collect(black_box(n)))
        }));
        list
    };
    row("filter_collect_fresh", list, rounds);
}

/// What two threads can do for a fresh collect with no library at all (contender
/// `floor-2`, the machine's limit for the row): they map `0..n` into one fresh buffer in
/// 512 blocks ([`two_threads_in_blocks`]).
fn floor_map_collect(n: usize) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::with_capacity(n);
    let block = n.div_ceil(512).max(1);
    let blocks = out.spare_capacity_mut().chunks_mut(block).enumerate();
    two_threads_in_blocks(blocks, (), |(), (index, slots)| {
        for (slot, i) in slots.iter_mut().zip(index * block..) {
            slot.write(scramble(i));
        }
    });
    // SAFETY: the blocks cover all `n` slots, and each was taken by one thread, which wrote
    // every slot of it before `two_threads_in_blocks` returned.
    unsafe { out.set_len(n) };
    out
}

/// Two bare scoped threads (the caller and one more) folding `blocks`, each taking the next
/// block from the shared iterator when it is done with its last, each from `init`; their
/// two results. Blocks, not halves: on this shared VM one vCPU is often slower than the
/// other for a while, and a static half waits for the slower one (weft's own loop, which
/// balances, beat two static halves in #21's seventeenth pass).
fn two_threads_in_blocks<B: Send, R: Copy + Send + Sync>(
    blocks: impl Iterator<Item = B> + Send,
    init: R,
    fold: impl Fn(R, B) -> R + Sync,
) -> (R, R) {
    let blocks = std::sync::Mutex::new(blocks);
    let worker = || {
        let mut acc = init;
        loop {
            let Some(block) = blocks.lock().unwrap().next() else {
                return acc;
            };
            acc = fold(acc, block);
        }
    };
    std::thread::scope(|scope| {
        let other = scope.spawn(worker);
        (worker(), other.join().unwrap())
    })
}

thread_local! {
    /// `floor_one_check`'s per-thread limit, standing for the state a library reads to
    /// decide how to run an inner loop. An atomic so that LLVM reads it at every inner
    /// loop, as a library must (it may change between two), instead of once for all; set by
    /// `floor_one_check` from a `black_box`, so that LLVM cannot fold it into a constant
    /// (as it did the tree sum's flag while nothing wrote it).
    static INNER_LIMIT: AtomicUsize = const { AtomicUsize::new(0) };
}

/// The nested rows' `floor-1`: the sequential nested loop plus the least a library must do
/// at each inner loop to decide whether to run it in place: read one thread-local value
/// and compare the loop's length with it. What no per-loop decision can go below.
fn floor_one_check(v: &[u64], chunk: usize) -> u64 {
    // ORDERING: a value only this thread reads.
    INNER_LIMIT.with(|limit| limit.store(black_box(usize::MAX), Ordering::Relaxed));
    v.chunks(chunk)
        .map(|c| {
            // ORDERING: a value only this thread writes (above); Relaxed reads it.
            if INNER_LIMIT.with(|limit| c.len() <= limit.load(Ordering::Relaxed)) {
                c.iter().map(|&x| cheap(x)).sum::<u64>()
            } else {
                unreachable!("the limit admits every inner loop")
            }
        })
        .sum()
}

/// The nested rows' `floor-2`: two bare scoped threads running the sequential nested loop
/// over 512 blocks of chunks ([`two_threads_in_blocks`]; the machine's limit for the row:
/// the sum streams 400 MB, which a second vCPU speeds up only as far as memory bandwidth
/// allows).
fn floor_nested(v: &[u64], chunk: usize) -> u64 {
    let block = (v.len() / 512).div_ceil(chunk).max(1) * chunk;
    let (low, high) = two_threads_in_blocks(v.chunks(block), 0u64, |sum, part| {
        sum + part
            .chunks(chunk)
            .map(|c| c.iter().map(|&x| cheap(x)).sum::<u64>())
            .sum::<u64>()
    });
    low + high
}

/// The filtered collect's `floor-2`: each thread filters its half of `0..n` into the front
/// of its half of one fresh buffer, then the second half's items move down to follow the
/// first's (what weft's in-place collect does, without a library).
fn floor_filter_collect(n: usize) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::with_capacity(n);
    let (low, high) = out.spare_capacity_mut().split_at_mut(n / 2);
    let fill = |slots: &mut [std::mem::MaybeUninit<u64>], range: std::ops::Range<usize>| {
        let mut kept = 0;
        for x in range.map(scramble).filter(|&x| keep_most(x)) {
            slots[kept].write(x);
            kept += 1;
        }
        kept
    };
    let (kept_low, kept_high) = std::thread::scope(|scope| {
        let high_half = scope.spawn(|| fill(high, n / 2..n));
        let kept_low = fill(low, 0..n / 2);
        (kept_low, high_half.join().unwrap())
    });
    let start = out.as_mut_ptr();
    // SAFETY: the first `kept_low` slots and the `kept_high` slots from `n / 2` were
    // written above (`fill` returns how many it wrote at the front of its slots); the copy
    // moves the latter down inside the buffer (`ptr::copy` allows the overlap), after which
    // the first `kept_low + kept_high` slots hold the items in order.
    unsafe {
        std::ptr::copy(start.add(n / 2), start.add(kept_low), kept_high);
        out.set_len(kept_low + kept_high);
    }
    out
}

/// `Vec::reserve` plus the huge-page advice weft's own collect gives a buffer this large
/// when asked (the best sequential code for a fresh collect with the advice).
fn huge_reserve(out: &mut Vec<u64>, n: usize) {
    out.reserve(n);
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    {
        extern "C" {
            /// `int madvise(void *addr, size_t length, int advice)` of the C library.
            fn madvise(
                addr: *mut std::ffi::c_void,
                length: usize,
                advice: std::ffi::c_int,
            ) -> std::ffi::c_int;
        }
        const MADV_HUGEPAGE: std::ffi::c_int = 14;
        let first = out.as_mut_ptr() as usize / 4096 * 4096;
        let end = (out.as_mut_ptr() as usize + out.capacity() * 8).next_multiple_of(4096);
        // SAFETY: the range covers the pages of `out`'s own buffer (rounded out to whole
        // pages); `MADV_HUGEPAGE` changes only which page size backs them, never their
        // contents, and a refused call just returns an error.
        unsafe {
            madvise(first as *mut std::ffi::c_void, end - first, MADV_HUGEPAGE);
        }
    }
}

fn sort(pools: &Pools, rounds: usize, n: usize) {
    let input = random_u64s(n, 0x5eed);
    let input = &input[..];
    // A contender sorting a fresh copy of `input`; the copy is not timed.
    // A contender sorting a fresh copy of `input` in `pool` (`None`: on this thread); the
    // copy is not timed.
    fn sorting<'a, P: Install>(
        name: impl Into<String>,
        input: &'a [u64],
        pool: Option<&'a P>,
        sort: fn(&mut [u64]),
    ) -> Contender<'a> {
        Contender {
            name: name.into(),
            call: Box::new(move || {
                let mut v = input.to_vec();
                let elapsed = match pool {
                    None => measure(|| sort(&mut v)).1,
                    Some(pool) if cpu_mode() => pool.run(|| measure(|| sort(&mut v)).1),
                    Some(pool) => measure(|| pool.run(|| sort(&mut v))).1,
                };
                (digest(&v), elapsed)
            }),
        }
    }
    let no_pool: Option<&weft::ThreadPool> = None;
    let mut list = vec![sorting("seq-std", input, no_pool, |v| v.sort())];
    for (threads, pool) in &pools.weft {
        let name = format!("weft-{threads}");
        list.push(sorting(name, input, Some(pool), weft_side::stable_sort));
    }
    for (threads, pool) in &pools.rayon {
        let name = format!("rayon-{threads}");
        list.push(sorting(name, input, Some(pool), rayon_side::stable_sort));
    }
    for (threads, pool) in &pools.weft_huge {
        let name = format!("huge-weft-{threads}");
        list.push(sorting(name, input, Some(pool), weft_side::stable_sort));
    }
    row("par_sort_stable_u64", list, rounds);
}

fn others(pools: &Pools, rounds: usize, scale: usize) {
    let levels = if scale >= 10 { 20 } else { 23 };
    if interleave::selected("tree_sum") {
        let tree = Node::tree(levels);
        let tree = &*tree;
        let mut list = vec![timed("seq-std", move || {
            tree_sum_sequential(black_box(tree))
        })];
        list.extend(pools.contenders(
            false,
            move || weft_side::tree_sum(black_box(tree)),
            move || rayon_side::tree_sum(black_box(tree)),
        ));
        // chili (a heartbeat scheduler built for joins this fine) as the state of the art
        // beside Rayon: what a `join` that costs next to nothing when nobody steals reaches.
        for threads in [1, 2] {
            let pool = chili::ThreadPool::with_config(chili::Config {
                thread_count: std::num::NonZeroUsize::new(threads),
                ..chili::Config::default()
            });
            list.push(timed(format!("chili-{threads}"), move || {
                tree_sum_chili(black_box(tree), &mut pool.scope())
            }));
        }
        list.push(timed("floor-1", move || tree_sum_floor(black_box(tree))));
        list.push(timed("floor-2", move || {
            let tree = black_box(tree);
            let side = |child: &Option<Box<Node>>| child.as_deref().map_or(0, tree_sum_sequential);
            let (left, right) = std::thread::scope(|scope| {
                let right = scope.spawn(|| side(&tree.right));
                (side(&tree.left), right.join().unwrap())
            });
            tree.val + left + right
        }));
        row("tree_sum", list, rounds);
    }

    let mut text = String::new();
    let words = random_u64s(50_000_000 / scale / 6, 99);
    for w in &words {
        text.push_str(["alpha", "be", "gamma\n", "d", "epsilon\n", "\n"][(w % 6) as usize]);
    }
    let text = &text[..];
    let mut list = vec![
        timed("seq-std", move || {
            black_box(text).lines().map(line_value).sum()
        }),
        timed("seq-loop", move || lines_sum_loop(black_box(text))),
    ];
    list.extend(pools.contenders(
        false,
        move || weft_side::lines_sum(black_box(text)),
        move || rayon_side::lines_sum(black_box(text)),
    ));
    row("par_lines_sum", list, rounds);

    let v = random_u64s(2_000_000 / scale, 7);
    let v = &v[..];
    let mut list = vec![timed("seq-std", move || {
        black_box(v).iter().map(|&x| fine(x)).sum()
    })];
    list.extend(pools.contenders(
        false,
        move || weft_side::bridge_sum(black_box(v)),
        move || rayon_side::bridge_sum(black_box(v)),
    ));
    row("par_bridge_sum", list, rounds);

    // A slow source (#54): `next()` sleeps 0.5 ms, each item 5 ms, 40 items: issue #54's
    // 2 ms, 20 ms and 100 items scaled down to keep the row short. The sequential time is the
    // sum of the sleeps; 2 and 4 threads can bring it to about a half and a quarter (the
    // source is busy a tenth of the time). In wall time only, at 2 and 4 threads, at most 7
    // rounds.
    if interleave::selected("par_bridge_slow_next") && !cpu_mode() {
        let (items, pull, work) = (40, Duration::from_micros(500), Duration::from_millis(5));
        let weft_4 = weft::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let rayon_4 = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let list = vec![
            timed("seq-std", move || {
                (0..items)
                    .inspect(|_| std::thread::sleep(pull))
                    .inspect(|_| std::thread::sleep(work))
                    .sum()
            }),
            in_pool("weft-2".into(), &pools.weft[1].1, move || {
                weft_side::bridge_slow(items, pull, work)
            }),
            in_pool("weft-4".into(), &weft_4, move || {
                weft_side::bridge_slow(items, pull, work)
            }),
            in_pool("rayon-2".into(), &pools.rayon[1].1, move || {
                rayon_side::bridge_slow(items, pull, work)
            }),
            in_pool("rayon-4".into(), &rayon_4, move || {
                rayon_side::bridge_slow(items, pull, work)
            }),
        ];
        row("par_bridge_slow_next", list, rounds.min(7));
    }
}

fn main() {
    let rounds = interleave::rounds(15);
    let scale: usize = std::env::var("WEFT_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&s| s > 0)
        .unwrap_or(1);
    let pools = Pools::new();
    println!(
        "time / best sequential time: median (fastest call), {rounds} interleaved rounds, sizes / {scale}"
    );
    reductions(&pools, rounds, 50_000_000 / scale);
    collects(&pools, rounds, 10_000_000 / scale);
    sort(&pools, rounds, 10_000_000 / scale);
    others(&pools, rounds, scale);
}
