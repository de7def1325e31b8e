//! Issue #54: every adapter that `Deterministic` offers, followed by every reduction it
//! offers, gives bitwise the same result on pools of 1 to 16 threads, and the right one.
//!
//! Each *case* is a deterministic chain of `f64` built from `Data`, with a sequential twin
//! built from std's iterators; [`reductions!`] runs every reduction after every case (and
//! the indexed reductions after the cases that stay indexed) and checks:
//! - on wide-range floats (magnitudes 2^-30 to 2^30, both signs: a change in the order of
//!   the additions shows in the bits), that every pool gives the bits of the 1-thread pool;
//! - on exactly summable floats (multiples of 1/8 below 64, so that every sum and prefix the
//!   cases make is exact in any order), that the result is std's on the twin's items (a
//!   product within a relative 10^-9, its rounding depending on the order); results that
//!   depend on the items' order only (`collect`, `find_first`, ...) also on the wide floats,
//!   where the twin computes the very same items.
//!
//! The cases chain many adapters each: every adapter `Deterministic` offers appears in some
//! case (those that keep the items' positions once on an indexed chain, where they are
//! producers, and once after an unindexed adapter, where they wrap the consumer), and every
//! case meets every reduction. A combination costs its build (a loop of its own types,
//! compiled in release: about a second of rustc each, hardly more for a longer chain), so
//! the adapters share five cases instead of having one each, which would build ten times
//! as many combinations for no more coverage of what can differ.

use crate::common::rng;

use std::collections::LinkedList;
use std::fmt::Debug;
use std::sync::{Mutex, OnceLock};

use rand::Rng;
use weft::iter::Either;
use weft::prelude::*;

/// Items of the main input.
const N: usize = 3001;
/// Items of the other side of `zip`, `chain`, `interleave`.
const M: usize = 1999;
/// The pools, of 1 to `MAX_THREADS` threads.
const MAX_THREADS: usize = 16;

struct Data {
    v: Vec<f64>,
    w: Vec<f64>,
}

/// The pools of 1, 2, ..., `MAX_THREADS` threads, built once.
fn pools() -> &'static [weft::ThreadPool] {
    static POOLS: OnceLock<Vec<weft::ThreadPool>> = OnceLock::new();
    POOLS.get_or_init(|| {
        (1..=MAX_THREADS)
            .map(|threads| {
                weft::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
            })
            .collect()
    })
}

/// Magnitudes 2^-30 to 2^30, both signs: sums depend on their order in the last bits.
fn wide() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        let mut rng = rng(54);
        let mut value = move || {
            let mantissa: f64 = rng.random_range(0.5..1.0);
            let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            sign * mantissa * 2f64.powi(rng.random_range(-30..=30))
        };
        Data {
            v: (0..N).map(|_| value()).collect(),
            w: (0..M).map(|_| value()).collect(),
        }
    })
}

/// Multiples of 1/8 in -64..64: every sum of a few thousand of them, scaled by the cases'
/// factors, is exact in any order.
fn exact() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        let mut rng = rng(55);
        let mut value = move || f64::from(rng.random_range(-512..512)) / 8.0;
        Data {
            v: (0..N).map(|_| value()).collect(),
            w: (0..M).map(|_| value()).collect(),
        }
    })
}

/// The default leaf of the fixed tree for `len` items, as documented.
fn default_leaf(len: usize) -> usize {
    len.div_ceil(256).clamp(1, 4096)
}

/// `filter`'s predicate: about two thirds of the items.
fn keep(x: &f64) -> bool {
    x.to_bits() % 3 != 0
}

/// The searches' predicate: about one item in 97.
fn rare(x: &f64) -> bool {
    x.to_bits() % 97 == 5
}

/// A factor in 0.999..1.001 drawn from `x`'s bits, for products that stay finite.
fn near_one(x: f64) -> f64 {
    1.0 + ((x.to_bits() >> 29) % 2001) as f64 * 1e-6 - 1e-3
}

/// `x`'s place in `f64::total_cmp`'s order, as an `Ord` item for `min` and `max`.
fn ordered(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    bits ^ (((bits >> 63) as u64) >> 1) as i64
}

/// A coarse key with many ties, so that `min_by` and friends show which of equal items
/// they keep.
fn coarse(x: &f64) -> i64 {
    (x / 4.0).floor().clamp(-1e15, 1e15) as i64
}

/// The factors of the nested sums: powers of two and 3, apart in magnitude so that the order
/// of the additions shows on the wide data, close enough that on the exact data every sum
/// of nested sums, and of their running sums, is exact (within 2^45 of granularity 2^-9).
const FACTORS: [f64; 6] = [1.0, 1.0 / 64.0, 64.0, -3.0, 1.0 / 8.0, 32.0];

/// A parallel sum nested in an item's closure: six items whose sum depends on how the
/// loop is cut (a fixed tree of six leaves, or folded in order).
fn nested(x: f64) -> f64 {
    (0..FACTORS.len())
        .into_par_iter()
        .map(|k| x * FACTORS[k])
        .sum()
}

/// [`nested`] sequentially (exact on the exact data, whatever the order).
fn nested_seq(x: f64) -> f64 {
    FACTORS.iter().map(|f| x * f).sum()
}

/// `a` and `b` alternately, from `a`, then the rest of the longer one.
fn interleave_seq(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    for i in 0..Ord::max(a.len(), b.len()) {
        out.extend(a.get(i));
        out.extend(b.get(i));
    }
    out
}

/// `items` folded from 0.0 in order, as `fold(|| 0.0, |a, x| a + x)` folds a leaf (std's
/// `sum` starts from -0.0, which shows when there is nothing to add).
fn fold_seq(items: &[f64]) -> f64 {
    items.iter().fold(0.0, |a, x| a + x)
}

/// What `fold(|| 0.0, |a, x| a + x)` hands on for one leaf's `items`: one accumulator, or,
/// if the reduction may stop early (`stops`), one per batch of 1, 2, 4, ... items (the last
/// batch as far as the items go; a leaf without items still hands on one 0.0).
fn leaf_fold(items: &[f64], stops: bool) -> Vec<f64> {
    if !stops || items.is_empty() {
        return vec![fold_seq(items)];
    }
    let (mut rest, mut batch, mut out) = (items, 1, Vec::new());
    while !rest.is_empty() {
        let (head, tail) = rest.split_at(Ord::min(batch, rest.len()));
        out.push(fold_seq(head));
        (rest, batch) = (tail, batch * 2);
    }
    out
}

/// The running sums of `items`, with (`inclusive`) or before each item.
fn scan_seq(items: impl IntoIterator<Item = f64>, inclusive: bool) -> Vec<f64> {
    let mut total = 0.0;
    items
        .into_iter()
        .map(|x| {
            let before = total;
            total += x;
            if inclusive {
                total
            } else {
                before
            }
        })
        .collect()
}

/// What two results must agree in: floats by their bits.
trait Bits {
    type Of: PartialEq + Debug;
    fn bits(&self) -> Self::Of;
}

impl Bits for f64 {
    type Of = u64;
    fn bits(&self) -> u64 {
        self.to_bits()
    }
}

impl Bits for u64 {
    type Of = u64;
    fn bits(&self) -> u64 {
        *self
    }
}

impl Bits for i64 {
    type Of = i64;
    fn bits(&self) -> i64 {
        *self
    }
}

impl Bits for usize {
    type Of = usize;
    fn bits(&self) -> usize {
        *self
    }
}

impl Bits for bool {
    type Of = bool;
    fn bits(&self) -> bool {
        *self
    }
}

impl<T: Bits> Bits for Option<T> {
    type Of = Option<T::Of>;
    fn bits(&self) -> Self::Of {
        self.as_ref().map(T::bits)
    }
}

impl<T: Bits> Bits for Vec<T> {
    type Of = Vec<T::Of>;
    fn bits(&self) -> Self::Of {
        self.iter().map(T::bits).collect()
    }
}

impl<T: Bits> Bits for LinkedList<T> {
    type Of = Vec<T::Of>;
    fn bits(&self) -> Self::Of {
        self.iter().map(T::bits).collect()
    }
}

impl<A: Bits, B: Bits> Bits for (A, B) {
    type Of = (A::Of, B::Of);
    fn bits(&self) -> Self::Of {
        (self.0.bits(), self.1.bits())
    }
}

/// Which data a reduction's oracle is checked on.
#[derive(Clone, Copy, PartialEq)]
enum Oracle {
    /// Results that depend on the order of float operations: the exact data only.
    ExactData,
    /// Results that depend on the items' order only: both data sets, if the case's twin
    /// makes the same items on the wide data ([`Items::SameBits`]).
    BothData,
}

/// What a case's sequential twin gives on the wide data.
#[derive(Clone, Copy, PartialEq)]
enum Items {
    /// The chain's very items: the twin makes each with the same float operations in the
    /// same order.
    SameBits,
    /// Items that the chain makes in the tree's order (nested sums, scans): only the exact
    /// data has a sequential oracle.
    ExactOnly,
}

/// A case's sequential twin: its items on `Data`, given whether the reduction may stop
/// early (`fold` then hands its accumulators on in doubling batches, see [`early_fold`]).
type Twin<'t> = &'t dyn Fn(&Data, bool) -> Vec<f64>;

/// Runs `par` on the wide data in every pool against the 1-thread pool's bits, then checks
/// it against `oracle` applied to the twin's items (`agree`), on the exact data (3 threads)
/// and, for [`Oracle::BothData`] after an [`Items::SameBits`] case, on the wide data too.
/// `stops`: the reduction may stop early. Everything but `par`'s body is compiled once per
/// result type: there are over a hundred combinations, and their build is this test's cost.
#[allow(clippy::too_many_arguments)]
fn check<R, O>(
    (case, items): (&str, Items),
    (reduction, stops): (&str, bool),
    par: &(dyn Fn(&'static Data) -> R + Sync),
    twin: Twin<'_>,
    oracle: &dyn Fn(&[f64]) -> O,
    agree: &dyn Fn(&R, &O) -> bool,
    which: Oracle,
) where
    R: Bits + Send + Debug,
    O: Debug,
{
    let run = |threads: usize, data: &'static Data| {
        let result = Mutex::new(None);
        install(threads, &|| *result.lock().unwrap() = Some(par(data)));
        result.into_inner().unwrap().expect("the reduction ran")
    };
    let first = run(1, wide());
    for threads in 2..=MAX_THREADS {
        let got = run(threads, wide());
        assert_eq!(
            got.bits(),
            first.bits(),
            "{case} + {reduction}: {threads} threads against 1"
        );
    }
    let mut data = vec![("exact", exact(), run(3, exact()))];
    if which == Oracle::BothData && items == Items::SameBits {
        data.push(("wide", wide(), first));
    }
    for (name, data, got) in data {
        let want = oracle(&twin(data, stops));
        assert!(
            agree(&got, &want),
            "{case} + {reduction} on the {name} data: got {got:?}, want {want:?}"
        );
    }
}

/// Runs `op` in the pool of `threads` threads: one `install` for every combination.
fn install(threads: usize, op: &(dyn Fn() + Sync)) {
    pools()[threads - 1].install(op)
}

/// Bitwise equal.
fn same<T: Bits>(got: &T, want: &T) -> bool {
    got.bits() == want.bits()
}

/// Collects what `for_each_with` / `for_each_init` see, one group per clone or `init`: the
/// items of one group in the order it saw them, each group added to `sink` when dropped.
struct Group<'s> {
    sink: &'s Mutex<Vec<Vec<u64>>>,
    items: Vec<u64>,
}

impl<'s> Group<'s> {
    fn new(sink: &'s Mutex<Vec<Vec<u64>>>) -> Self {
        Group {
            sink,
            items: Vec::new(),
        }
    }
}

impl Clone for Group<'_> {
    fn clone(&self) -> Self {
        Group::new(self.sink)
    }
}

impl Drop for Group<'_> {
    fn drop(&mut self) {
        if !self.items.is_empty() {
            let items = std::mem::take(&mut self.items);
            self.sink.lock().unwrap().push(items);
        }
    }
}

/// The groups in `sink`, sorted (which worker's group arrived first varies).
fn sorted_groups(sink: Mutex<Vec<Vec<u64>>>) -> Vec<Vec<u64>> {
    let mut groups = sink.into_inner().unwrap();
    groups.sort();
    groups
}

/// The bits of `items`, sorted.
fn sorted_bits(items: &[f64]) -> Vec<u64> {
    let mut bits: Vec<u64> = items.iter().map(|x| x.to_bits()).collect();
    bits.sort();
    bits
}

/// Every item of `groups`, sorted.
fn flat_sorted(groups: &[Vec<u64>]) -> Vec<u64> {
    let mut bits: Vec<u64> = groups.iter().flatten().copied().collect();
    bits.sort();
    bits
}

/// Every reduction after the case `$make` (a closure from `&'static Data` to a
/// `Deterministic` chain of `f64`) whose twin is `$twin` and items `$items`; `indexed` adds
/// the reductions of indexed chains. One `check` per reduction.
macro_rules! reductions {
    ($case:expr, $items:expr, $make:expr, $twin:expr) => {{
        let make = $make;
        let twin: Twin<'_> = &$twin;
        let case = ($case, $items);
        use Oracle::{BothData, ExactData};
        let (all_of_it, may_stop) = (false, true);
        let add = |a: f64, b: f64| a + b;
        let sum = |s: &[f64]| s.iter().sum::<f64>();
        let by_coarse = |a: &f64, b: &f64| coarse(a).cmp(&coarse(b));
        let rare_double = |x: f64| rare(&x).then_some(x * 2.0);
        let sign = |x: f64| {
            if x > 0.0 {
                Either::Left(x)
            } else {
                Either::Right(x.to_bits())
            }
        };
        let some = |x: f64| x.to_bits() % 1009 == 7;
        let every = |x: f64| x.to_bits() % 1013 != 3;
        check(
            case,
            ("sum", all_of_it),
            &|d| make(d).sum::<f64>(),
            twin,
            &sum,
            &same,
            ExactData,
        );
        check(
            case,
            ("map + product", all_of_it),
            &|d| make(d).map(near_one).product::<f64>(),
            twin,
            &|s| s.iter().copied().map(near_one).product::<f64>(),
            &|got: &f64, want: &f64| ((got - want) / want).abs() < 1e-9,
            ExactData,
        );
        check(
            case,
            ("reduce", all_of_it),
            &|d| make(d).reduce(|| 0.0, add),
            twin,
            &sum,
            &same,
            ExactData,
        );
        check(
            case,
            ("reduce_with", all_of_it),
            &|d| make(d).reduce_with(add),
            twin,
            &|s| s.iter().copied().reduce(add),
            &same,
            ExactData,
        );
        check(
            case,
            ("count", all_of_it),
            &|d| make(d).count(),
            twin,
            &|s| s.len(),
            &same,
            BothData,
        );
        check(
            case,
            ("map + min", all_of_it),
            &|d| make(d).map(ordered).min(),
            twin,
            &|s| s.iter().copied().map(ordered).min(),
            &same,
            BothData,
        );
        check(
            case,
            ("map + max", all_of_it),
            &|d| make(d).map(ordered).max(),
            twin,
            &|s| s.iter().copied().map(ordered).max(),
            &same,
            BothData,
        );
        check(
            case,
            ("min_by", all_of_it),
            &|d| make(d).min_by(by_coarse),
            twin,
            &|s| s.iter().copied().min_by(by_coarse),
            &same,
            BothData,
        );
        check(
            case,
            ("max_by", all_of_it),
            &|d| make(d).max_by(by_coarse),
            twin,
            &|s| s.iter().copied().max_by(by_coarse),
            &same,
            BothData,
        );
        check(
            case,
            ("min_by_key", all_of_it),
            &|d| make(d).min_by_key(coarse),
            twin,
            &|s| s.iter().copied().min_by_key(coarse),
            &same,
            BothData,
        );
        check(
            case,
            ("max_by_key", all_of_it),
            &|d| make(d).max_by_key(coarse),
            twin,
            &|s| s.iter().copied().max_by_key(coarse),
            &same,
            BothData,
        );
        check(
            case,
            ("find_first", may_stop),
            &|d| make(d).find_first(rare),
            twin,
            &|s| s.iter().copied().find(rare),
            &same,
            BothData,
        );
        check(
            case,
            ("find_last", may_stop),
            &|d| make(d).find_last(rare),
            twin,
            &|s| s.iter().copied().rev().find(rare),
            &same,
            BothData,
        );
        check(
            case,
            ("find_map_first", may_stop),
            &|d| make(d).find_map_first(rare_double),
            twin,
            &|s| s.iter().copied().find_map(rare_double),
            &same,
            BothData,
        );
        check(
            case,
            ("find_map_last", may_stop),
            &|d| make(d).find_map_last(rare_double),
            twin,
            &|s| s.iter().copied().rev().find_map(rare_double),
            &same,
            BothData,
        );
        check(
            case,
            ("any", may_stop),
            &|d| make(d).any(some),
            twin,
            &|s| s.iter().copied().any(some),
            &same,
            BothData,
        );
        check(
            case,
            ("all", may_stop),
            &|d| make(d).all(every),
            twin,
            &|s| s.iter().copied().all(every),
            &same,
            BothData,
        );
        check(
            case,
            ("collect", all_of_it),
            &|d| make(d).collect::<Vec<f64>>(),
            twin,
            &|s| s.to_vec(),
            &same,
            BothData,
        );
        check(
            case,
            ("collect_vec_list", all_of_it),
            &|d| make(d).collect_vec_list(),
            twin,
            &|s| s.to_vec(),
            &|got: &LinkedList<Vec<f64>>, want: &Vec<f64>| {
                got.iter().flatten().copied().collect::<Vec<f64>>().bits() == want.bits()
            },
            BothData,
        );
        check(
            case,
            ("map + unzip", all_of_it),
            &|d| make(d).map(|x| (x, -x)).unzip::<_, _, Vec<f64>, Vec<f64>>(),
            twin,
            &|s| {
                s.iter()
                    .map(|&x| (x, -x))
                    .unzip::<_, _, Vec<f64>, Vec<f64>>()
            },
            &same,
            BothData,
        );
        check(
            case,
            ("partition", all_of_it),
            &|d| make(d).partition::<Vec<f64>, Vec<f64>, _>(|x| *x > 0.0),
            twin,
            &|s| s.iter().partition::<Vec<f64>, _>(|x| **x > 0.0),
            &same,
            BothData,
        );
        check(
            case,
            ("partition_map", all_of_it),
            &|d| make(d).partition_map::<Vec<f64>, Vec<u64>, _, _, _>(sign),
            twin,
            &|s| {
                let (left, right): (Vec<f64>, Vec<f64>) = s.iter().partition(|x| **x > 0.0);
                (
                    left,
                    right.iter().map(|x| x.to_bits()).collect::<Vec<u64>>(),
                )
            },
            &same,
            BothData,
        );
        check(
            case,
            ("for_each", all_of_it),
            &|d| {
                let seen = Mutex::new(Vec::new());
                make(d).for_each(|x| seen.lock().unwrap().push(x.to_bits()));
                let mut seen = seen.into_inner().unwrap();
                seen.sort();
                seen
            },
            twin,
            &sorted_bits,
            &same,
            BothData,
        );
        check(
            case,
            ("for_each_with", all_of_it),
            &|d| {
                let sink = Mutex::new(Vec::new());
                make(d).for_each_with(Group::new(&sink), |group, x| group.items.push(x.to_bits()));
                sorted_groups(sink)
            },
            twin,
            &sorted_bits,
            &|got: &Vec<Vec<u64>>, want: &Vec<u64>| flat_sorted(got) == *want,
            BothData,
        );
        check(
            case,
            ("for_each_init", all_of_it),
            &|d| {
                let sink = Mutex::new(Vec::new());
                make(d).for_each_init(
                    || Group::new(&sink),
                    |group, x| group.items.push(x.to_bits()),
                );
                sorted_groups(sink)
            },
            twin,
            &sorted_bits,
            &|got: &Vec<Vec<u64>>, want: &Vec<u64>| flat_sorted(got) == *want,
            BothData,
        );
    }};
    ($case:expr, indexed, $items:expr, $make:expr, $twin:expr) => {{
        let make = $make;
        let twin: Twin<'_> = &$twin;
        reductions!($case, $items, &make, twin);
        let case = ($case, $items);
        let (all_of_it, may_stop) = (false, true);
        use Oracle::BothData;
        check(
            case,
            ("len", all_of_it),
            &|d| make(d).len(),
            twin,
            &|s| s.len(),
            &same,
            BothData,
        );
        check(
            case,
            ("collect_into_vec", all_of_it),
            &|d| {
                let mut v = vec![1.5; 7];
                make(d).collect_into_vec(&mut v);
                v
            },
            twin,
            &|s| s.to_vec(),
            &same,
            BothData,
        );
        check(
            case,
            ("map + unzip_into_vecs", all_of_it),
            &|d| {
                let (mut a, mut b) = (Vec::new(), vec![2.5]);
                make(d)
                    .map(|x| (x, x * 2.0))
                    .unzip_into_vecs(&mut a, &mut b);
                (a, b)
            },
            twin,
            &|s| {
                s.iter()
                    .map(|&x| (x, x * 2.0))
                    .unzip::<_, _, Vec<f64>, Vec<f64>>()
            },
            &same,
            BothData,
        );
        check(
            case,
            ("position_first", may_stop),
            &|d| make(d).position_first(|x| rare(&x)),
            twin,
            &|s| s.iter().position(rare),
            &same,
            BothData,
        );
        check(
            case,
            ("position_last", may_stop),
            &|d| make(d).position_last(|x| rare(&x)),
            twin,
            &|s| s.iter().rposition(rare),
            &same,
            BothData,
        );
    }};
}

/// The deterministic chain over `d.v`'s values.
fn base(d: &Data) -> weft::iter::Deterministic<weft::iter::Copied<weft::slice::Iter<'_, f64>>> {
    d.v.par_iter().copied().deterministic()
}

type Case = &'static Data;

/// `items` with `separator` between each two.
fn intersperse_seq(items: &[f64], separator: f64) -> Vec<f64> {
    let mut out: Vec<f64> = items.iter().flat_map(|&x| [separator, x]).collect();
    if !out.is_empty() {
        out.remove(0);
    }
    out
}

#[test]
fn indexed_chains_with_every_reduction() {
    reductions!(
        "cloned + map + map_with + map_init + inspect + update + panic_fuse + enumerate + zip \
         + rev + skip + take + step_by + with_min_len + with_grain",
        indexed,
        Items::SameBits,
        |d: Case| d
            .v
            .par_iter()
            .deterministic()
            .cloned()
            .map(|x| x * 3.0 + 0.5)
            .map_with(0.5, |k, x| x + *k)
            .map_init(|| 2.0, |k, x| x * *k)
            .inspect(|x| assert!(x.is_finite()))
            .update(|x| *x = -*x)
            .panic_fuse()
            .enumerate()
            .map(|(i, x)| x * (1 + i % 3) as f64)
            .zip(&d.w)
            .map(|(a, b)| a + b)
            .rev()
            .skip(100)
            .take(1700)
            .step_by(2)
            .with_min_len(3)
            .with_grain(5),
        |d, _| d
            .v
            .iter()
            .map(|x| -((x * 3.0 + 0.5 + 0.5) * 2.0))
            .enumerate()
            .map(|(i, x)| x * (1 + i % 3) as f64)
            .zip(&d.w)
            .map(|(a, b)| a + b)
            .rev()
            .skip(100)
            .take(1700)
            .step_by(2)
            .collect()
    );
    // Loops nested in the items (`nested`), driven in the leaves; `skip` after a `map`,
    // which runs the skipped items' closures beside the rest; scans that cannot read their
    // base twice (a `map`), so that they collect it first, while the chain builds its
    // producer, on both sides of a `zip`, with nested loops in those collects.
    reductions!(
        "copied + map with nested sums + chain + interleave + intersperse + zip_eq \
         + interleave_shortest + skip + chunks + fold_chunks + fold_chunks_with \
         + with_max_len + inclusive_scan + zip with an exclusive_scan of nested sums",
        indexed,
        Items::ExactOnly,
        |d: Case| d
            .v
            .par_iter()
            .deterministic()
            .copied()
            .map(nested)
            .chain(d.w.par_iter().copied())
            .interleave(d.w[..1000].par_iter().copied())
            .intersperse(0.25)
            .zip_eq(0..2 * (N + M + 1000) - 1)
            .map(|(x, i)| x + (i % 7) as f64)
            .interleave_shortest(d.w.par_iter().copied())
            .skip(99)
            .chunks(3)
            .map(|c| c.iter().sum::<f64>())
            .fold_chunks(2, || 0.0, |a, x| a + x)
            .fold_chunks_with(3, 0.0, |a, x| a + x)
            .with_max_len(4)
            .inclusive_scan(|| 0.0, |a, b| a + b)
            .zip(
                d.w.par_iter()
                    .map(|&x| nested(x))
                    .exclusive_scan(|| 0.0, |a, b| a + b)
            )
            .map(|(a, b)| a + b),
        |d, _| {
            let mapped: Vec<f64> = d.v.iter().map(|&x| nested_seq(x)).collect();
            let chained: Vec<f64> = mapped.iter().chain(&d.w).copied().collect();
            let spread = intersperse_seq(&interleave_seq(&chained, &d.w[..1000]), 0.25);
            let numbered: Vec<f64> = spread
                .iter()
                .enumerate()
                .map(|(i, x)| x + (i % 7) as f64)
                .collect();
            let shortest = interleave_seq(&numbered[..M + 1], &d.w);
            let chunks: Vec<f64> = shortest[99..]
                .chunks(3)
                .map(|c| c.iter().sum::<f64>())
                .collect();
            let pairs: Vec<f64> = chunks.chunks(2).map(fold_seq).collect();
            let triples: Vec<f64> = pairs.chunks(3).map(fold_seq).collect();
            scan_seq(triples, true)
                .into_iter()
                .zip(scan_seq(d.w.iter().map(|&x| nested_seq(x)), false))
                .map(|(a, b)| a + b)
                .collect()
        }
    );
}

#[test]
fn unindexed_chains_with_every_reduction() {
    let leaf = default_leaf(N);
    reductions!(
        "filter + copied + map + map_with + map_init + inspect + update + panic_fuse + filter \
         + filter_map",
        Items::SameBits,
        |d: Case| d
            .v
            .par_iter()
            .deterministic()
            .filter(|x| keep(x))
            .copied()
            .map(|x| x * 3.0 + 0.5)
            .map_with(0.5, |k, x| x + *k)
            .map_init(|| 2.0, |k, x| x * *k)
            .inspect(|x| assert!(x.is_finite()))
            .update(|x| *x = -*x)
            .panic_fuse()
            .filter(|x| x.to_bits() % 5 != 0)
            .filter_map(|x| (x > -300.0).then_some(x * 2.0)),
        |d, _| d
            .v
            .iter()
            .filter(|x| keep(x))
            .map(|x| -((x * 3.0 + 0.5 + 0.5) * 2.0))
            .filter(|x| x.to_bits() % 5 != 0 && *x > -300.0)
            .map(|x| x * 2.0)
            .collect()
    );
    // `flat_map`'s inner iterators are parallel: loops nested in the leaves.
    reductions!(
        "filter_map + cloned + flat_map + flat_map_iter + flatten + flatten_iter",
        Items::SameBits,
        |d: Case| d
            .v
            .par_iter()
            .deterministic()
            .filter_map(|x| keep(x).then_some(x))
            .cloned()
            .flat_map(|x| (0..2).into_par_iter().map(move |k| x * FACTORS[k + 1]))
            .flat_map_iter(|x| [x, -x * 0.25])
            .map(|x| vec![x, x + 1.0])
            .flatten()
            .map(|x| [x, x * 2.0])
            .flatten_iter(),
        |d, _| d
            .v
            .iter()
            .filter(|x| keep(x))
            .flat_map(|&x| [x * FACTORS[1], x * FACTORS[2]])
            .flat_map(|x| [x, -x * 0.25])
            .flat_map(|x| [x, x + 1.0])
            .flat_map(|x| [x, x * 2.0])
            .collect()
    );
    // `fold_with` and `fold` hand on what each leaf of the indexed chain folded (see
    // `leaf_fold`), also for a leaf that `positions` or `filter` left empty.
    reductions!(
        "positions + map + fold_with + filter + fold",
        Items::SameBits,
        |d: Case| base(d)
            .positions(|x| keep(&x))
            .map(|i| i as f64)
            .fold_with(0.0, |a, x| a + x)
            .filter(|x| x.to_bits() % 3 != 1)
            .fold(|| 0.0, |a, x| a + x),
        move |d, stops| {
            let mut out = Vec::new();
            for (k, chunk) in d.v.chunks(leaf).enumerate() {
                let positions: Vec<f64> = (k * leaf..)
                    .zip(chunk)
                    .filter(|(_, x)| keep(x))
                    .map(|(i, _)| i as f64)
                    .collect();
                let kept: Vec<f64> = leaf_fold(&positions, stops)
                    .into_iter()
                    .filter(|x| x.to_bits() % 3 != 1)
                    .collect();
                out.extend(leaf_fold(&kept, stops));
            }
            out
        }
    );
}
