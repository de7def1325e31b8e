//! A [`Chain`] built as a weft parallel iterator (through the erased wrappers of `erase.rs`),
//! run to its terminal, and the result checked against std's.

use std::cmp::Ordering;
use std::collections::{BTreeSet, BinaryHeap, LinkedList, VecDeque};
use std::num::Wrapping;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering as AtomicOrdering};

use weft::iter::plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use weft::iter::Either;
use weft::prelude::*;

use crate::erase::{Indexed, Par};
use crate::spec::*;

/// A chain under construction: indexed or not.
pub(crate) enum Built<'a> {
    Indexed(Indexed<'a>),
    Par(Par<'a>),
}

fn ix<'a>(iter: impl IndexedParallelIterator<Item = u64> + 'a) -> Built<'a> {
    Built::Indexed(Indexed::new(iter))
}

fn par<'a>(iter: impl ParallelIterator<Item = u64> + 'a) -> Built<'a> {
    Built::Par(Par::new(iter))
}

/// The busy work of a slow item (`Op::Slow`): a few microseconds.
const SLOW_ITEM_SPINS: u64 = 3000;

/// Items `inspect` saw, hashed (kept so that the closure has an effect).
static INSPECTED: AtomicU64 = AtomicU64::new(0);

/// The source as a weft iterator.
pub(crate) fn source(source: &Source) -> Built<'_> {
    let data = &source.data[..];
    let len = source.len;
    let start = source.data[0..].first().copied().unwrap_or(0);
    match source.kind {
        SourceKind::Slice => ix(data.par_iter().copied()),
        SourceKind::SliceCloned => ix(data.par_iter().cloned()),
        SourceKind::Vec => ix(data.to_vec().into_par_iter()),
        SourceKind::VecDeque => ix(VecDeque::from(data.to_vec()).into_par_iter()),
        SourceKind::VecDrain => ix(DrainSource {
            items: data.to_vec(),
            range: drained(len),
        }),
        SourceKind::Range => {
            let start = start as usize;
            ix((start..start + len).into_par_iter().map(|i| i as u64))
        }
        SourceKind::RangeU64 => par((start..start + len as u64).into_par_iter()),
        SourceKind::RangeInclusive => {
            let range = if len == 0 {
                start + 1..=start
            } else {
                start..=start + (len - 1) as u64
            };
            par(range.into_par_iter())
        }
        SourceKind::RepeatN => ix(weft::iter::repeat_n(start, len)),
        SourceKind::ParChunks(size) => ix(data.par_chunks(size).map(fold_slice)),
        SourceKind::ParWindows(size) => ix(data.par_windows(size).map(fold_slice)),
        SourceKind::Split => {
            let halves = |r: std::ops::Range<usize>| {
                if r.len() <= 7 {
                    return (r, None);
                }
                let mid = r.start + r.len() / 2;
                (r.start..mid, Some(mid..r.end))
            };
            par(weft::iter::split(0..len, halves).flat_map_iter(|r| data[r].iter().copied()))
        }
        SourceKind::BridgeSlice => par(data.iter().copied().par_bridge()),
        SourceKind::Feedback(window) => {
            let (feedback, processed) = crate::pending::feedback::Feedback::new(data, window);
            par(feedback.par_bridge().map(move |x| {
                processed.add();
                x
            }))
        }
        SourceKind::BridgeRange => par((start..start + len as u64).par_bridge()),
    }
}

/// `items.par_drain(range)` as a source that owns `items`: each way of driving it drains
/// the vector in its own frame, then checks that the vector holds the items outside
/// `range`, in order (a panic, reported as a wrong result, if not).
struct DrainSource {
    items: Vec<u64>,
    range: std::ops::Range<usize>,
}

impl DrainSource {
    fn drain<R>(self, drive: impl FnOnce(weft::vec::Drain<'_, u64>) -> R) -> R {
        let DrainSource { mut items, range } = self;
        let mut rest = items[..range.start].to_vec();
        rest.extend_from_slice(&items[range.end..]);
        let result = drive(items.par_drain(range));
        assert_eq!(
            items, rest,
            "par_drain left other items than those outside its range"
        );
        result
    }
}

impl ParallelIterator for DrainSource {
    type Item = u64;

    fn drive_unindexed<C: UnindexedConsumer<u64>>(self, consumer: C) -> C::Result {
        self.drain(|drain| drain.drive_unindexed(consumer))
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.range.len())
    }
}

impl IndexedParallelIterator for DrainSource {
    fn drive<C: Consumer<u64>>(self, consumer: C) -> C::Result {
        self.drain(|drain| drain.drive(consumer))
    }

    fn len(&self) -> usize {
        self.range.len()
    }

    fn with_producer<CB: ProducerCallback<u64>>(self, callback: CB) -> CB::Output {
        self.drain(|drain| drain.with_producer(callback))
    }
}

/// An indexed source (the other side of `zip`, `chain`, `interleave`).
fn indexed_source(source: &Source) -> Indexed<'_> {
    match self::source(source) {
        Built::Indexed(iter) => iter,
        Built::Par(_) => unreachable!("the other side of a zip is an indexed source"),
    }
}

/// Adapters that exist on every parallel iterator, written once for both kinds; `$wrap`
/// erases the result (`ix` where the adapter keeps the base's index, else `par`).
macro_rules! common_step {
    ($op:expr, $it:expr, $wrap:ident, $else:expr) => {{
        let it = $it;
        match *$op {
            Op::Map { key } => $wrap(it.map(move |x| mix(x, key))),
            Op::MapWith { key } => $wrap(it.map_with((key, 0u64), |state, x| {
                state.1 += 1;
                mix(x, state.0)
            })),
            Op::MapInit { key } => $wrap(it.map_init(move || key, |key, x| mix(x, *key))),
            Op::MapNested { key } => $wrap(it.map(move |x| {
                let inner = (0..nested_len(x, key)).into_par_iter();
                inner.map(|j| fanned(x, j, key)).sum::<u64>() & MASK
            })),
            Op::PanicAt { value } => $wrap(it.map(move |x| {
                if x == value {
                    std::panic::panic_any(Planted);
                }
                x
            })),
            Op::Inspect => $wrap(it.inspect(|&x| {
                // ORDERING: a statistic nothing reads; no other memory depends on it.
                INSPECTED.fetch_add(mix(x, 1), AtomicOrdering::Relaxed);
            })),
            Op::Slow { key, every } => $wrap(it.inspect(move |&x| {
                if mix(x, key) % every == 0 {
                    std::hint::black_box(crate::common::spin(SLOW_ITEM_SPINS));
                }
            })),
            Op::Update { key } => $wrap(it.update(move |x| *x = mix(*x, key))),
            Op::PanicFuse => $wrap(it.panic_fuse()),
            Op::Intersperse { value } => $wrap(it.intersperse(value)),
            Op::Filter { key, keep } => par(it.filter(move |&x| pick(x, key, keep))),
            Op::FilterMap { key, keep } => {
                par(it.filter_map(move |x| pick(x, key, keep).then(|| mix(x, key))))
            }
            Op::FlatMapIter { key, max } => par(it
                .flat_map_iter(move |x| (0..fan_out(x, key, max)).map(move |j| fanned(x, j, key)))),
            Op::FlatMap { key, max } => par(it.flat_map(move |x| {
                (0..fan_out(x, key, max))
                    .into_par_iter()
                    .map(move |j| fanned(x, j, key))
            })),
            Op::Flatten { key, max } => par(it.map(move |x| fan_vec(x, key, max)).flatten()),
            Op::FlattenIter { key, max } => {
                par(it.map(move |x| fan_vec(x, key, max)).flatten_iter())
            }
            Op::WhileSome { key, keep } => par(it
                .map(move |x| (!pick(x, key, keep)).then_some(x))
                .while_some()),
            Op::TakeAny { n } => par(it.take_any(n)),
            Op::SkipAny { n } => par(it.skip_any(n)),
            Op::TakeAnyWhile { key, keep } => par(it.take_any_while(move |&x| pick(x, key, keep))),
            Op::SkipAnyWhile { key, keep } => par(it.skip_any_while(move |&x| pick(x, key, keep))),
            _ => $else(it),
        }
    }};
}

fn fan_vec(x: u64, key: u64, max: u8) -> Vec<u64> {
    (0..fan_out(x, key, max))
        .map(|j| fanned(x, j, key))
        .collect()
}

/// One step on a built chain.
pub(crate) fn step<'a>(op: &'a Op, built: Built<'a>, calls: &'a AtomicUsize) -> Built<'a> {
    match built {
        Built::Indexed(it) => common_step!(op, it, ix, |it| indexed_step(op, it, calls)),
        Built::Par(it) => common_step!(op, it, par, |it: Par<'a>| match op {
            Op::Chain { other } => par(it.chain(indexed_source(other))),
            _ => unreachable!("{op} drawn for an unindexed chain"),
        }),
    }
}

/// The steps that need an indexed iterator.
fn indexed_step<'a>(op: &'a Op, it: Indexed<'a>, calls: &'a AtomicUsize) -> Built<'a> {
    match *op {
        Op::Chain { ref other } => ix(it.chain(indexed_source(other))),
        Op::Enumerate { key } => ix(it.enumerate().map(move |(i, x)| combine(x, i as u64, key))),
        Op::Zip { ref other, key } => ix(it
            .zip(indexed_source(other))
            .map(move |(x, y)| combine(x, y, key))),
        Op::ZipEq { ref other, key } => ix(it
            .zip_eq(indexed_source(other))
            .map(move |(x, y)| combine(x, y, key))),
        Op::MultiZip { ref a, ref b, key } => ix((it, indexed_source(a), indexed_source(b))
            .into_par_iter()
            .map(move |(x, y, z)| combine(combine(x, y, key), z, key))),
        Op::Interleave { ref other } => ix(it.interleave(indexed_source(other))),
        Op::InterleaveShortest { ref other } => ix(it.interleave_shortest(indexed_source(other))),
        Op::Skip { n } => ix(it.skip(n)),
        Op::Take { n } => ix(it.take(n)),
        Op::StepBy { step } => ix(it.step_by(step)),
        Op::Rev => ix(it.rev()),
        Op::Chunks { size } => ix(it.chunks(size).map(|chunk| fold_slice(&chunk))),
        Op::FoldChunks { size, seed } => ix(it.fold_chunks(size, move || seed, fold_step)),
        Op::FoldChunksWith { size, seed } => ix(it.fold_chunks_with(size, seed, fold_step)),
        Op::Positions { key, keep } => {
            par(it.positions(move |x| pick(x, key, keep)).map(|i| i as u64))
        }
        Op::MinLen { n } => ix(it.with_min_len(n)),
        Op::MaxLen { n } => ix(it.with_max_len(n)),
        Op::ExponentialBlocks => par(it.by_exponential_blocks()),
        Op::UniformBlocks { size } => par(it.by_uniform_blocks(size)),
        Op::InclusiveScan { affine } => {
            let (identity, op) = counted_scan_op(affine, calls);
            ix(it.inclusive_scan(move || identity, op))
        }
        Op::ExclusiveScan { affine } => {
            let (identity, op) = counted_scan_op(affine, calls);
            ix(it.exclusive_scan(move || identity, op))
        }
        _ => unreachable!("{op} is not an indexed-only step"),
    }
}

/// A scan's identity and `op` ([`scan_op`]), counting the calls of `op` in `calls`.
fn counted_scan_op(
    affine: bool,
    calls: &AtomicUsize,
) -> (u64, impl Fn(u64, u64) -> u64 + Sync + Send + '_) {
    let (identity, op) = scan_op(affine);
    let counted = move |a, b| {
        // ORDERING: a count read after the loop has joined its workers.
        calls.fetch_add(1, AtomicOrdering::Relaxed);
        op(a, b)
    };
    (identity, counted)
}

/// The chain's adapters on its source, as weft builds them.
pub(crate) fn build(chain: &Chain) -> Built<'_> {
    let calls = &*chain.scan_calls;
    let (mut built, rest) = if chain.fused > 0 {
        (fused(&chain.source, &chain.ops[0], calls), &chain.ops[1..])
    } else {
        (source(&chain.source), &chain.ops[..])
    };
    for op in rest {
        built = step(op, built, calls);
    }
    built
}

// ---------------------------------------------------------------------------------------
// Static prefixes

/// The source and its first step as one static type, erased only after it: what weft's
/// adapters learn from the producer below them (`Producer::INERT`, `EXACT_LEN`,
/// `split_tree`) then reaches them, as in a chain written by hand.
fn fused<'a>(source: &'a Source, op: &'a Op, calls: &'a AtomicUsize) -> Built<'a> {
    let data = &source.data[..];
    match (source.kind, op) {
        (SourceKind::Vec, &Op::Skip { n }) => ix(data.to_vec().into_par_iter().skip(n)),
        (SourceKind::Slice, op) => {
            let it = data.par_iter().copied();
            match *op {
                Op::Skip { n } => ix(it.skip(n)),
                Op::Take { n } => ix(it.take(n)),
                Op::Rev => ix(it.rev()),
                Op::Zip { ref other, key } => ix(it
                    .zip(other_slice(other))
                    .map(move |(x, y)| combine(x, y, key))),
                Op::Chain { ref other } => ix(it.chain(other_slice(other))),
                Op::InclusiveScan { affine } => {
                    let (identity, op) = counted_scan_op(affine, calls);
                    ix(it.inclusive_scan(move || identity, op))
                }
                _ => unreachable!("{op} in a static prefix"),
            }
        }
        _ => unreachable!("{op} in a static prefix over {source}"),
    }
}

/// The other side of a step in a static prefix: a slice, built statically.
fn other_slice(other: &Source) -> weft::iter::Copied<weft::slice::Iter<'_, u64>> {
    assert_eq!(
        other.kind,
        SourceKind::Slice,
        "a static prefix zips with slices"
    );
    other.data.par_iter().copied()
}

// ---------------------------------------------------------------------------------------
// Terminals

/// What a terminal gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Items(Vec<u64>),
    Pair(Vec<u64>, Vec<u64>),
    Value(Option<u64>),
    Index(Option<usize>),
    Flag(bool),
    Order(Option<Ordering>),
    Fallible(Result<(), u64>),
    Nested(Option<Option<u64>>),
}

/// What one run gave: the length the iterator reported before running, and the outcome.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) reported_len: Option<usize>,
    pub(crate) outcome: Outcome,
}

/// Builds the chain and runs its terminal (in the current pool).
pub(crate) fn run(chain: &Chain) -> Run {
    match build(chain) {
        Built::Indexed(it) => {
            let reported_len = Some(it.len());
            let outcome = match indexed_terminal(&chain.terminal, it) {
                Ok(outcome) => outcome,
                Err(it) => terminal(&chain.terminal, it),
            };
            Run {
                reported_len,
                outcome,
            }
        }
        Built::Par(it) => Run {
            reported_len: it.opt_len(),
            outcome: terminal(&chain.terminal, it),
        },
    }
}

/// The terminals only an indexed iterator has (and the collect that uses the length);
/// `Err` gives the iterator back for the others.
fn indexed_terminal<'a>(terminal: &Terminal, it: Indexed<'a>) -> Result<Outcome, Indexed<'a>> {
    Ok(match *terminal {
        Terminal::CollectIntoVec => {
            let mut v = vec![7; 3];
            it.collect_into_vec(&mut v);
            Outcome::Items(v)
        }
        Terminal::PositionFirst { key, keep } => {
            Outcome::Index(it.position_first(|x| pick(x, key, keep)))
        }
        Terminal::PositionLast { key, keep } => {
            Outcome::Index(it.position_last(|x| pick(x, key, keep)))
        }
        Terminal::PositionAny { key, keep } => {
            Outcome::Index(it.position_any(|x| pick(x, key, keep)))
        }
        Terminal::Compare { how, ref other } => {
            let other = other.par_iter().copied();
            match how {
                Comparison::Cmp => Outcome::Order(Some(it.cmp(other))),
                Comparison::PartialCmp => Outcome::Order(it.partial_cmp(other)),
                Comparison::Eq => Outcome::Flag(it.eq(other)),
                Comparison::Ne => Outcome::Flag(it.ne(other)),
                Comparison::Lt => Outcome::Flag(it.lt(other)),
                Comparison::Le => Outcome::Flag(it.le(other)),
                Comparison::Gt => Outcome::Flag(it.gt(other)),
                Comparison::Ge => Outcome::Flag(it.ge(other)),
            }
        }
        _ => return Err(it),
    })
}

/// The terminals of every parallel iterator.
fn terminal<I: ParallelIterator<Item = u64>>(terminal: &Terminal, it: I) -> Outcome {
    let option = |key, keep| move |x: u64| (!pick(x, key, keep)).then_some(x);
    let add_below = |limit: u64| move |a: u64, b: u64| (a + b <= limit).then_some(a + b);
    let total = AtomicU64::new(0);
    let add = |x: u64| {
        // ORDERING: read only after the loop has joined every worker.
        total.fetch_add(x, AtomicOrdering::Relaxed);
    };
    match *terminal {
        Terminal::Collect | Terminal::LooseCollect => Outcome::Items(it.collect()),
        Terminal::CollectVecDeque => Outcome::Items(it.collect::<VecDeque<_>>().into()),
        Terminal::CollectLinkedList => {
            Outcome::Items(it.collect::<LinkedList<_>>().into_iter().collect())
        }
        Terminal::CollectBTreeSet => {
            Outcome::Items(it.collect::<BTreeSet<_>>().into_iter().collect())
        }
        Terminal::CollectBinaryHeap => {
            Outcome::Items(it.collect::<BinaryHeap<_>>().into_sorted_vec())
        }
        Terminal::CollectVecList => {
            Outcome::Items(it.collect_vec_list().into_iter().flatten().collect())
        }
        Terminal::CollectOption { key, keep } => {
            match it.map(option(key, keep)).collect::<Option<Vec<_>>>() {
                Some(items) => Outcome::Items(items),
                None => Outcome::Value(None),
            }
        }
        Terminal::ParExtend { prefix } => {
            let mut v: Vec<u64> = (0..prefix as u64).collect();
            v.par_extend(it);
            Outcome::Items(v)
        }
        Terminal::Sum => Outcome::Value(Some(it.sum())),
        Terminal::Product => Outcome::Value(Some(it.map(Wrapping).product::<Wrapping<u64>>().0)),
        Terminal::Count => Outcome::Value(Some(it.count() as u64)),
        Terminal::Min => Outcome::Value(it.min()),
        Terminal::Max => Outcome::Value(it.max()),
        Terminal::MinByKey { m } => Outcome::Value(it.min_by_key(|x| x % m)),
        Terminal::MaxByKey { m } => Outcome::Value(it.max_by_key(|x| x % m)),
        Terminal::MinBy { m } => Outcome::Value(it.min_by(|a, b| (a % m).cmp(&(b % m)).reverse())),
        Terminal::MaxBy { m } => Outcome::Value(it.max_by(|a, b| (a % m).cmp(&(b % m)).reverse())),
        Terminal::FindFirst { key, keep } => Outcome::Value(it.find_first(|&x| pick(x, key, keep))),
        Terminal::FindLast { key, keep } => Outcome::Value(it.find_last(|&x| pick(x, key, keep))),
        Terminal::FindAny { key, keep } => Outcome::Value(it.find_any(|&x| pick(x, key, keep))),
        Terminal::FindMapFirst { key, keep } => {
            Outcome::Value(it.find_map_first(|x| pick(x, key, keep).then(|| mix(x, key))))
        }
        Terminal::FindMapLast { key, keep } => {
            Outcome::Value(it.find_map_last(|x| pick(x, key, keep).then(|| mix(x, key))))
        }
        Terminal::FindMapAny { key, keep } => {
            Outcome::Value(it.find_map_any(|x| pick(x, key, keep).then(|| mix(x, key))))
        }
        Terminal::Any { key, keep } => Outcome::Flag(it.any(|x| pick(x, key, keep))),
        Terminal::All { key, keep } => Outcome::Flag(it.all(|x| pick(x, key, keep))),
        Terminal::ReduceAffine => Outcome::Value(Some(it.map(lift).reduce(|| AFFINE_ID, affine))),
        Terminal::ReduceWithAffine => Outcome::Value(it.map(lift).reduce_with(affine)),
        Terminal::FoldReduceAffine => Outcome::Value(Some(
            it.fold(|| AFFINE_ID, |acc, x| affine(acc, lift(x)))
                .reduce(|| AFFINE_ID, affine),
        )),
        Terminal::ReduceSum => Outcome::Value(Some(it.reduce(|| 0, u64::wrapping_add))),
        Terminal::FoldSum => Outcome::Value(Some(it.fold(|| 0, |a, x| a + x).sum())),
        Terminal::FoldWithSum => Outcome::Value(Some(it.fold_with(0, |a, x| a + x).sum())),
        Terminal::TryFold { key, keep, limit } => Outcome::Value(
            it.try_fold(
                || 0,
                move |acc, x| {
                    if pick(x, key, keep) {
                        None
                    } else {
                        add_below(limit)(acc, x)
                    }
                },
            )
            .try_reduce(|| 0, add_below(limit)),
        ),
        Terminal::TryReduce { key, keep, limit } => {
            Outcome::Value(it.map(option(key, keep)).try_reduce(|| 0, add_below(limit)))
        }
        Terminal::TryReduceWith { key, keep, limit } => {
            Outcome::Nested(it.map(option(key, keep)).try_reduce_with(add_below(limit)))
        }
        Terminal::TryForEach { limit } => {
            Outcome::Fallible(it.try_for_each(|x| if x > limit { Err(x) } else { Ok(()) }))
        }
        Terminal::ForEach => {
            it.for_each(add);
            Outcome::Value(Some(total.load(AtomicOrdering::Relaxed)))
        }
        Terminal::ForEachWith => {
            it.for_each_with(&total, |total, x| {
                // ORDERING: as in `add`.
                total.fetch_add(x, AtomicOrdering::Relaxed);
            });
            Outcome::Value(Some(total.load(AtomicOrdering::Relaxed)))
        }
        Terminal::ForEachInit => {
            it.for_each_init(|| 1u64, |one, x| add(x * *one));
            Outcome::Value(Some(total.load(AtomicOrdering::Relaxed)))
        }
        Terminal::Unzip { key } => {
            let (a, b): (Vec<u64>, Vec<u64>) = it.map(|x| (x, mix(x, key))).unzip();
            Outcome::Pair(a, b)
        }
        Terminal::Partition { key, keep } => {
            let (a, b): (Vec<u64>, Vec<u64>) = it.partition(|&x| pick(x, key, keep));
            Outcome::Pair(a, b)
        }
        Terminal::PartitionMap { key, keep } => {
            let (a, b): (Vec<u64>, Vec<u64>) = it.partition_map(|x| {
                if pick(x, key, keep) {
                    Either::Left(x)
                } else {
                    Either::Right(mix(x, key))
                }
            });
            Outcome::Pair(a, b)
        }
        Terminal::CollectIntoVec
        | Terminal::PositionFirst { .. }
        | Terminal::PositionLast { .. }
        | Terminal::PositionAny { .. }
        | Terminal::Compare { .. } => unreachable!("{terminal} drawn for an unindexed chain"),
    }
}

// ---------------------------------------------------------------------------------------
// Checks

/// What std's chain gives for an exact terminal (one whose result the documentation fixes),
/// or `None` for the searches that may return any match.
fn expected(terminal: &Terminal, items: &[u64]) -> Option<Outcome> {
    let iter = || items.iter().copied();
    let option = |key, keep| move |x: u64| (!pick(x, key, keep)).then_some(x);
    let try_sum = |key, keep, limit: u64| -> Option<u64> {
        let mut sum = 0u64;
        for x in iter() {
            sum += option(key, keep)(x)?;
        }
        (sum <= limit).then_some(sum)
    };
    Some(match *terminal {
        Terminal::Collect
        | Terminal::CollectVecDeque
        | Terminal::CollectLinkedList
        | Terminal::CollectVecList
        | Terminal::CollectIntoVec => Outcome::Items(items.to_vec()),
        Terminal::CollectBTreeSet => {
            Outcome::Items(iter().collect::<BTreeSet<_>>().into_iter().collect())
        }
        Terminal::CollectBinaryHeap => {
            Outcome::Items(iter().collect::<BinaryHeap<_>>().into_sorted_vec())
        }
        Terminal::CollectOption { key, keep } => {
            match iter().map(option(key, keep)).collect::<Option<Vec<_>>>() {
                Some(items) => Outcome::Items(items),
                None => Outcome::Value(None),
            }
        }
        Terminal::ParExtend { prefix } => {
            Outcome::Items((0..prefix as u64).chain(iter()).collect())
        }
        Terminal::Sum
        | Terminal::ReduceSum
        | Terminal::FoldSum
        | Terminal::FoldWithSum
        | Terminal::ForEach
        | Terminal::ForEachWith
        | Terminal::ForEachInit => Outcome::Value(Some(iter().sum())),
        Terminal::Product => {
            Outcome::Value(Some(iter().map(Wrapping).product::<Wrapping<u64>>().0))
        }
        Terminal::Count => Outcome::Value(Some(items.len() as u64)),
        Terminal::Min => Outcome::Value(iter().min()),
        Terminal::Max => Outcome::Value(iter().max()),
        Terminal::MinByKey { m } => Outcome::Value(iter().min_by_key(|x| x % m)),
        Terminal::MaxByKey { m } => Outcome::Value(iter().max_by_key(|x| x % m)),
        Terminal::MinBy { m } => {
            Outcome::Value(iter().min_by(|a, b| (a % m).cmp(&(b % m)).reverse()))
        }
        Terminal::MaxBy { m } => {
            Outcome::Value(iter().max_by(|a, b| (a % m).cmp(&(b % m)).reverse()))
        }
        Terminal::FindFirst { key, keep } => Outcome::Value(iter().find(|&x| pick(x, key, keep))),
        Terminal::FindLast { key, keep } => {
            Outcome::Value(iter().rev().find(|&x| pick(x, key, keep)))
        }
        Terminal::FindMapFirst { key, keep } => {
            Outcome::Value(iter().find_map(|x| pick(x, key, keep).then(|| mix(x, key))))
        }
        Terminal::FindMapLast { key, keep } => Outcome::Value(
            iter()
                .rev()
                .find_map(|x| pick(x, key, keep).then(|| mix(x, key))),
        ),
        Terminal::PositionFirst { key, keep } => {
            Outcome::Index(iter().position(|x| pick(x, key, keep)))
        }
        Terminal::PositionLast { key, keep } => {
            Outcome::Index(iter().rposition(|x| pick(x, key, keep)))
        }
        Terminal::Any { key, keep } => Outcome::Flag(iter().any(|x| pick(x, key, keep))),
        Terminal::All { key, keep } => Outcome::Flag(iter().all(|x| pick(x, key, keep))),
        Terminal::ReduceAffine | Terminal::FoldReduceAffine => {
            Outcome::Value(Some(iter().map(lift).fold(AFFINE_ID, affine)))
        }
        Terminal::ReduceWithAffine => Outcome::Value(iter().map(lift).reduce(affine)),
        Terminal::TryFold { key, keep, limit } | Terminal::TryReduce { key, keep, limit } => {
            Outcome::Value(try_sum(key, keep, limit))
        }
        // `op` never runs on a single item, so its limit does not apply then.
        Terminal::TryReduceWith { key, keep, limit } => Outcome::Nested(match items {
            [] => None,
            &[x] => Some(option(key, keep)(x)),
            _ => Some(try_sum(key, keep, limit)),
        }),
        Terminal::Unzip { key } => {
            Outcome::Pair(items.to_vec(), iter().map(|x| mix(x, key)).collect())
        }
        Terminal::Partition { key, keep } => {
            let (a, b) = iter().partition(|&x| pick(x, key, keep));
            Outcome::Pair(a, b)
        }
        Terminal::PartitionMap { key, keep } => Outcome::Pair(
            iter().filter(|&x| pick(x, key, keep)).collect(),
            iter()
                .filter(|&x| !pick(x, key, keep))
                .map(|x| mix(x, key))
                .collect(),
        ),
        Terminal::Compare { how, ref other } => {
            let other = other.iter().copied();
            match how {
                Comparison::Cmp => Outcome::Order(Some(iter().cmp(other))),
                Comparison::PartialCmp => Outcome::Order(iter().partial_cmp(other)),
                Comparison::Eq => Outcome::Flag(iter().eq(other)),
                Comparison::Ne => Outcome::Flag(iter().ne(other)),
                Comparison::Lt => Outcome::Flag(iter().lt(other)),
                Comparison::Le => Outcome::Flag(iter().le(other)),
                Comparison::Gt => Outcome::Flag(iter().gt(other)),
                Comparison::Ge => Outcome::Flag(iter().ge(other)),
            }
        }
        Terminal::FindAny { .. }
        | Terminal::FindMapAny { .. }
        | Terminal::PositionAny { .. }
        | Terminal::TryForEach { .. }
        | Terminal::LooseCollect => return None,
    })
}

/// The multiset of `items`, as a sorted vector.
fn sorted(items: &[u64]) -> Vec<u64> {
    let mut items = items.to_vec();
    items.sort_unstable();
    items
}

/// Whether `part` is a sub-multiset of `whole`.
fn sub_multiset(part: &[u64], whole: &[u64]) -> bool {
    let (part, whole) = (sorted(part), sorted(whole));
    let mut rest = whole.iter();
    part.iter().all(|x| rest.any(|y| y == x))
}

/// Whether `part` is a subsequence of `whole` (same relative order).
fn subsequence(part: &[u64], whole: &[u64]) -> bool {
    let mut rest = whole.iter();
    part.iter().all(|x| rest.any(|y| y == x))
}

/// `Ok` if `run` is a result the chain may give, else what is wrong.
pub(crate) fn check(chain: &Chain, run: &Run) -> Result<(), String> {
    let items = &chain.expected[..];
    let state = chain.state;
    if let Some(len) = run.reported_len {
        if !state.loose && len != items.len() {
            return Err(format!(
                "the iterator reported {len} items (len / opt_len), std's chain has {}",
                items.len()
            ));
        }
    }
    let got = &run.outcome;
    let mismatch = |want: &dyn std::fmt::Debug| {
        Err(format!(
            "weft gave {}\n  std gives {}",
            show(got),
            show(want)
        ))
    };
    // The item searches that may return any match: the result matches, and is `None` only
    // if nothing matches.
    let any_match = |found: Option<u64>, candidates: Vec<u64>| -> Result<(), String> {
        match found {
            None if candidates.is_empty() => Ok(()),
            Some(x) if candidates.contains(&x) => Ok(()),
            _ => Err(format!(
                "weft gave {found:?}, not one of the {} matches std finds (first few: {:?})",
                candidates.len(),
                &candidates[..candidates.len().min(8)]
            )),
        }
    };
    let matches = |key, keep| -> Vec<u64> {
        items
            .iter()
            .copied()
            .filter(|&x| pick(x, key, keep))
            .collect()
    };
    match (&chain.terminal, got) {
        (Terminal::LooseCollect, Outcome::Items(got)) => {
            return check_loose(chain, got);
        }
        (Terminal::FindAny { key, keep }, &Outcome::Value(found)) => {
            return any_match(found, matches(*key, *keep));
        }
        (Terminal::FindMapAny { key, keep }, &Outcome::Value(found)) => {
            let mapped = matches(*key, *keep).iter().map(|&x| mix(x, *key)).collect();
            return any_match(found, mapped);
        }
        (Terminal::PositionAny { key, keep }, &Outcome::Index(found)) => {
            let positions: Vec<u64> = (0..items.len() as u64)
                .filter(|&i| pick(items[i as usize], *key, *keep))
                .collect();
            return any_match(found.map(|i| i as u64), positions);
        }
        (Terminal::TryForEach { limit }, Outcome::Fallible(result)) => {
            let over: Vec<u64> = items.iter().copied().filter(|x| x > limit).collect();
            return match result {
                Ok(()) if over.is_empty() => Ok(()),
                &Err(x) if over.contains(&x) => Ok(()),
                _ => Err(format!(
                    "weft gave {result:?}, std finds {} items over the limit",
                    over.len()
                )),
            };
        }
        _ => {}
    }
    let want = expected(&chain.terminal, items).expect("an exact terminal");
    if state.ordered {
        return if *got == want {
            Ok(())
        } else {
            mismatch(&want)
        };
    }
    // Unordered (after `par_bridge`): the same multisets, and for the searches in order,
    // any match.
    match (&chain.terminal, got, &want) {
        (
            Terminal::FindFirst { key, keep } | Terminal::FindLast { key, keep },
            &Outcome::Value(found),
            _,
        ) => any_match(found, matches(*key, *keep)),
        (
            Terminal::FindMapFirst { key, keep } | Terminal::FindMapLast { key, keep },
            &Outcome::Value(found),
            _,
        ) => {
            let mapped = matches(*key, *keep).iter().map(|&x| mix(x, *key)).collect();
            any_match(found, mapped)
        }
        (
            Terminal::MinByKey { m }
            | Terminal::MaxByKey { m }
            | Terminal::MinBy { m }
            | Terminal::MaxBy { m },
            &Outcome::Value(got_value),
            &Outcome::Value(want_value),
        ) => {
            let key = |v: Option<u64>| v.map(|x| x % m);
            if key(got_value) == key(want_value) && got_value.map_or(true, |x| items.contains(&x)) {
                Ok(())
            } else {
                mismatch(&want)
            }
        }
        (Terminal::Unzip { .. }, Outcome::Pair(a, b), Outcome::Pair(c, d)) => {
            let pairs = |a: &[u64], b: &[u64]| {
                let mut pairs: Vec<(u64, u64)> = a.iter().copied().zip(b.iter().copied()).collect();
                pairs.sort_unstable();
                (a.len(), b.len(), pairs)
            };
            if pairs(a, b) == pairs(c, d) {
                Ok(())
            } else {
                mismatch(&want)
            }
        }
        (_, Outcome::Pair(a, b), Outcome::Pair(c, d)) => {
            if sorted(a) == sorted(c) && sorted(b) == sorted(d) {
                Ok(())
            } else {
                mismatch(&want)
            }
        }
        (_, Outcome::Items(got_items), Outcome::Items(want_items)) => {
            if sorted(got_items) == sorted(want_items) {
                Ok(())
            } else {
                mismatch(&want)
            }
        }
        _ => {
            if *got == want {
                Ok(())
            } else {
                mismatch(&want)
            }
        }
    }
}

/// The promise of a loose last step, for the items `got` that weft collected.
fn check_loose(chain: &Chain, got: &[u64]) -> Result<(), String> {
    let before = &chain.before_loose[..];
    let allowed = &chain.expected[..];
    let op = chain.ops.last().expect("a loose step ends the chain");
    let fail = |what: &str| {
        Err(format!(
            "{what}: weft gave {} (of {} items before `{op}`, {} of which it may give)",
            show(&got),
            before.len(),
            allowed.len()
        ))
    };
    if !sub_multiset(got, allowed) {
        return fail("items it may not give");
    }
    if chain.state.ordered && !subsequence(got, allowed) {
        return fail("items out of their relative order");
    }
    match *op {
        Op::TakeAny { n } if got.len() != n.min(before.len()) => fail("not min(n, len) items"),
        Op::SkipAny { n } if got.len() != before.len() - n.min(before.len()) => {
            fail("not len - min(n, len) items")
        }
        // Without a `None`, `while_some` gives every item.
        Op::WhileSome { .. } if allowed.len() == before.len() && got.len() != allowed.len() => {
            fail("items missing with no None to stop at")
        }
        Op::TakeAnyWhile { .. } if allowed.len() == before.len() && got.len() != allowed.len() => {
            fail("items missing though the predicate holds for all")
        }
        Op::SkipAnyWhile { key, keep } => {
            let kept: Vec<u64> = before
                .iter()
                .copied()
                .filter(|&x| !pick(x, key, keep))
                .collect();
            if !sub_multiset(&kept, got) {
                fail("an item the predicate rejects was skipped")
            } else if kept.is_empty() && !got.is_empty() {
                fail("items given though the predicate holds for all")
            } else {
                Ok(())
            }
        }
        _ => Ok(()),
    }
}

/// A short form of a result: long item lists are cut.
pub(crate) fn show(value: &dyn std::fmt::Debug) -> String {
    let text = format!("{value:?}");
    if text.len() > 400 {
        format!("{}... ({} chars)", &text[..400], text.len())
    } else {
        text
    }
}
