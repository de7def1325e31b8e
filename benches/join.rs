//! Scheduler benchmarks (issue 2): plain sequential recursion, weft, rayon and chili side by
//! side in one run, at 1 and 2 threads.
//!
//! - `fib`: fib(30) with a join at every level; the summary turns the times into ns per join.
//! - `tree`: the sum over a binary tree of 2^23 - 1 boxed nodes (the Spice/chili benchmark).
//! - `wakeup`: one tiny job handed to an idle 2-thread pool, against a std channel round trip
//!   (see `join/wakeup.rs`).
//! - idle CPU: printed before the criterion groups, not measured by criterion
//!   (see `join/idle.rs`).
//!
//! `WEFT_BENCH_SMALL=1` shrinks the sizes for a smoke run; under `cargo test` (no `--bench`
//! flag) the small sizes are used and the idle report is skipped.

// The helper modules live in benches/join/ (a crate root's `mod` would look in benches/).
#[path = "join/args.rs"]
mod args;
#[path = "join/idle.rs"]
mod idle;
#[path = "join/summary.rs"]
mod summary;
#[path = "join/wakeup.rs"]
mod wakeup;

use criterion::{BenchmarkId, Criterion};
use std::cell::OnceCell;
use std::hint::black_box;
use std::num::NonZeroUsize;
use std::time::SystemTime;

/// The thread counts every pool contender runs at.
const THREAD_COUNTS: [usize; 2] = [1, 2];

/// Problem sizes: the targets, or a smoke-run size.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sizes {
    /// n in fib(n).
    pub(crate) fib_n: u64,
    /// Levels of the full binary tree (2^levels - 1 nodes).
    pub(crate) tree_levels: u32,
}

fn main() {
    let run_started = SystemTime::now();
    let bench_mode = args::is_bench_mode();
    let small = !bench_mode || std::env::var("WEFT_BENCH_SMALL").is_ok_and(|v| v == "1");
    let sizes = if small {
        Sizes {
            fib_n: 20,
            tree_levels: 16,
        }
    } else {
        Sizes {
            fib_n: 30,
            tree_levels: 23,
        }
    };
    if bench_mode && args::filter_admits("idle") {
        idle::report();
    }
    let mut criterion = Criterion::default().configure_from_args();
    bench_fib(&mut criterion, sizes.fib_n);
    bench_tree(&mut criterion, sizes.tree_levels);
    wakeup::bench(&mut criterion);
    criterion.final_summary();
    if bench_mode {
        summary::print(sizes, run_started);
    }
}

fn fib_sequential(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_sequential(n - 1) + fib_sequential(n - 2)
}

fn fib_weft(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = weft::join(|| fib_weft(n - 1), || fib_weft(n - 2));
    a + b
}

fn fib_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

fn fib_chili(n: u64, scope: &mut chili::Scope<'_>) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = scope.join(|s| fib_chili(n - 1, s), |s| fib_chili(n - 2, s));
    a + b
}

/// The three pools for `threads` threads. chili counts the calling thread as one of them.
fn weft_pool(threads: usize) -> weft::ThreadPool {
    weft::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn chili_pool(threads: usize) -> chili::ThreadPool {
    chili::ThreadPool::with_config(chili::Config {
        thread_count: NonZeroUsize::new(threads),
        ..chili::Config::default()
    })
}

fn bench_fib(criterion: &mut Criterion, n: u64) {
    let mut group = criterion.benchmark_group("fib");
    group.bench_function("sequential", |b| b.iter(|| fib_sequential(black_box(n))));
    for threads in THREAD_COUNTS {
        // Pools are built on first use: criterion only calls the closures it will measure.
        let weft = OnceCell::new();
        group.bench_function(BenchmarkId::new("weft", threads), |b| {
            let pool = weft.get_or_init(|| weft_pool(threads));
            b.iter(|| pool.install(|| fib_weft(black_box(n))));
        });
        let rayon = OnceCell::new();
        group.bench_function(BenchmarkId::new("rayon", threads), |b| {
            let pool = rayon.get_or_init(|| rayon_pool(threads));
            b.iter(|| pool.install(|| fib_rayon(black_box(n))));
        });
        let chili = OnceCell::new();
        group.bench_function(BenchmarkId::new("chili", threads), |b| {
            let mut scope = chili.get_or_init(|| chili_pool(threads)).scope();
            b.iter(|| fib_chili(black_box(n), &mut scope));
        });
    }
    group.finish();
}

/// A node of the benchmark tree; every node holds 1, so the sum is the node count.
///
/// Memory layout decides this benchmark more than scheduling does, so it is fixed here:
/// nodes are allocated in pre-order (a node, then its left subtree, then its right one), and
/// every contender visits left before right on one thread, i.e. walks memory forwards. With
/// the post-order layout of `Box::new(Node::tree(..))` (chili's own example), a right-first
/// walk is several times faster than a left-first one on this machine, and chili, which runs
/// the second closure of a join first, would win by layout alone.
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

/// The best sequential code found (a little faster here than the closure form of the others).
fn sum_sequential(node: &Node) -> u64 {
    let mut sum = node.val;
    if let Some(left) = &node.left {
        sum += sum_sequential(left);
    }
    if let Some(right) = &node.right {
        sum += sum_sequential(right);
    }
    sum
}

fn sum_weft(node: &Node) -> u64 {
    let side = |child: &Option<Box<Node>>| child.as_deref().map_or(0, sum_weft);
    let (left, right) = weft::join(|| side(&node.left), || side(&node.right));
    node.val + left + right
}

fn sum_rayon(node: &Node) -> u64 {
    let side = |child: &Option<Box<Node>>| child.as_deref().map_or(0, sum_rayon);
    let (left, right) = rayon::join(|| side(&node.left), || side(&node.right));
    node.val + left + right
}

/// chili runs the second closure of a join first, so it gets the left subtree: the same visit
/// order as every other contender.
fn sum_chili(node: &Node, scope: &mut chili::Scope<'_>) -> u64 {
    let (right, left) = scope.join(
        |s| node.right.as_deref().map_or(0, |n| sum_chili(n, s)),
        |s| node.left.as_deref().map_or(0, |n| sum_chili(n, s)),
    );
    node.val + left + right
}

fn bench_tree(criterion: &mut Criterion, levels: u32) {
    // Built once, outside any timing, and only if a tree benchmark is selected.
    let tree_cell = OnceCell::new();
    let tree = || &**tree_cell.get_or_init(|| Node::tree(levels));
    let nodes = (1u64 << levels) - 1;
    let mut group = criterion.benchmark_group("tree");
    group.bench_function("sequential", |b| {
        let tree = tree();
        b.iter(|| assert_eq!(sum_sequential(black_box(tree)), nodes));
    });
    for threads in THREAD_COUNTS {
        let weft = OnceCell::new();
        group.bench_function(BenchmarkId::new("weft", threads), |b| {
            let (tree, pool) = (tree(), weft.get_or_init(|| weft_pool(threads)));
            b.iter(|| assert_eq!(pool.install(|| sum_weft(black_box(tree))), nodes));
        });
        let rayon = OnceCell::new();
        group.bench_function(BenchmarkId::new("rayon", threads), |b| {
            let (tree, pool) = (tree(), rayon.get_or_init(|| rayon_pool(threads)));
            b.iter(|| assert_eq!(pool.install(|| sum_rayon(black_box(tree))), nodes));
        });
        let chili = OnceCell::new();
        group.bench_function(BenchmarkId::new("chili", threads), |b| {
            let tree = tree();
            let mut scope = chili.get_or_init(|| chili_pool(threads)).scope();
            b.iter(|| assert_eq!(sum_chili(black_box(tree), &mut scope), nodes));
        });
    }
    group.finish();
}
