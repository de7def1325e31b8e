//! A chain as data: a source, one to four adapters and a terminal, each with its parameters;
//! how random chains are drawn; and what each step does sequentially (the oracle), written
//! with std's `Iterator` over a `Vec` (and by hand where std has no such adapter).
//!
//! Every item is a `u64` below 2^32 (every function that makes values masks them), so that
//! a `sum` of a few million items cannot overflow. Adapters whose items are of another type
//! (`enumerate`, `zip`, `chunks`, `positions`, ...) are followed by a fixed map back to `u64`
//! that keeps all the information the order carries.

use std::fmt;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::Rng;

/// Every value an item can hold is below this.
pub(crate) const MASK: u64 = (1 << 32) - 1;

/// The lengths of the source data.
pub(crate) const LENGTHS: [usize; 5] = [0, 1, 7, 1000, 100_003];

/// How often each of [`LENGTHS`] is drawn (the long one is the costly one).
const LENGTH_WEIGHTS: [u32; 5] = [2, 2, 3, 4, 2];

/// A chain longer than this stops growing (no more `flat_map`, `chain`, `interleave`...).
const GROWTH_LIMIT: usize = 300_000;

/// Scans with a small `with_max_len` anywhere in the chain call `op` quadratically often
/// today (#54, part 3): the generator gives `with_max_len` at least this much in a chain
/// with a scan. Set to 1 once the scan fix is merged.
pub(crate) const SCAN_MAX_LEN_FLOOR: usize = 1024;

/// A seeded hash to 32 bits: the one "random function" every closure is made of.
pub(crate) fn mix(x: u64, key: u64) -> u64 {
    let mut h = (x ^ key.rotate_left(21)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^= h >> 29;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (h ^ (h >> 32)) & MASK
}

/// A seeded predicate that holds for about `keep` sixteenths of the values.
pub(crate) fn pick(x: u64, key: u64, keep: u8) -> bool {
    mix(x, key ^ 0x5EED) % 16 < u64::from(keep)
}

/// Two items into one, injectively before the hash (both are below 2^32).
pub(crate) fn combine(x: u64, y: u64, key: u64) -> u64 {
    mix(x | (y << 32), key)
}

/// Affine maps `v -> m v + c` modulo 2^16, packed as `m << 16 | c`: `affine(f, g)` is `f`
/// then `g`. Associative, not commutative, with [`AFFINE_ID`] as identity: the operation
/// for reductions and scans whose result shows the order of the operands.
pub(crate) fn affine(f: u64, g: u64) -> u64 {
    let (m1, c1) = ((f >> 16) & 0xFFFF, f & 0xFFFF);
    let (m2, c2) = ((g >> 16) & 0xFFFF, g & 0xFFFF);
    let m = (m2 * m1) & 0xFFFF;
    let c = (m2 * c1 + c2) & 0xFFFF;
    m << 16 | c
}

/// The identity of [`affine`].
pub(crate) const AFFINE_ID: u64 = 1 << 16;

/// An item as an invertible affine map (odd factor), for reductions with [`affine`].
pub(crate) fn lift(x: u64) -> u64 {
    (((x >> 16) | 1) & 0xFFFF) << 16 | (x & 0xFFFF)
}

/// A fold step whose result shows the order of the items folded.
pub(crate) fn fold_step(acc: u64, x: u64) -> u64 {
    (acc.wrapping_mul(31).wrapping_add(x)) & MASK
}

/// How many items `flat_map` and friends make of `x`: `0..=max`.
pub(crate) fn fan_out(x: u64, key: u64, max: u8) -> u64 {
    mix(x, key) % (u64::from(max) + 1)
}

/// The `j`-th item `flat_map` and friends make of `x`.
pub(crate) fn fanned(x: u64, j: u64, key: u64) -> u64 {
    combine(x, j, key)
}

/// A value no item has (items are at most [`MASK`]): a `PanicAt` that never panics.
pub(crate) const NEVER: u64 = u64::MAX;

/// A drawn `PanicAt` holds this plus the index of the item it should panic at; the chain
/// resolves it to that item's value (or to [`NEVER`]) once the whole chain is drawn.
const PLANT_AT_ITEM: u64 = 1 << 40;

/// The payload of the panics `PanicAt` plants.
#[derive(Debug)]
pub(crate) struct Planted;

/// The length of the parallel loop `MapNested` runs for `x`.
pub(crate) fn nested_len(x: u64, key: u64) -> u64 {
    mix(x, key) % 24
}

/// What `MapNested` makes of `x`, sequentially.
pub(crate) fn nested(x: u64, key: u64) -> u64 {
    (0..nested_len(x, key))
        .map(|j| fanned(x, j, key))
        .sum::<u64>()
        & MASK
}

/// The operation of a scan: affine maps, or a sum modulo 2^32.
pub(crate) fn scan_op(affine_maps: bool) -> (u64, fn(u64, u64) -> u64) {
    if affine_maps {
        (AFFINE_ID, affine)
    } else {
        (0, |a, b| (a + b) & MASK)
    }
}

// ---------------------------------------------------------------------------------------
// Sources

/// Where a chain's items come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SourceKind {
    /// `data.par_iter().copied()`
    Slice,
    /// `data.par_iter().cloned()`
    SliceCloned,
    /// `data.to_vec().into_par_iter()`
    Vec,
    /// `VecDeque::from(data).into_par_iter()`
    VecDeque,
    /// `vec.par_drain(len / 4..len - len / 4)` over a copy of the data, which must hold
    /// the rest afterwards
    VecDrain,
    /// `(start..start + len).into_par_iter()` over `usize`, mapped to `u64`
    Range,
    /// `(start..start + len).into_par_iter()` over `u64`: unindexed, in order
    RangeU64,
    /// `(start..=start + len - 1).into_par_iter()` over `u64`: unindexed, in order
    RangeInclusive,
    /// `repeat_n(value, len)`
    RepeatN,
    /// `data.par_chunks(size).map(fold)`
    ParChunks(usize),
    /// `data.par_windows(size).map(fold)`
    ParWindows(usize),
    /// `split(0..len, halves down to 7).flat_map_iter(|r| data[r])`: unindexed, in order
    Split,
    /// `data.iter().copied().par_bridge()`: unindexed, items in any order
    BridgeSlice,
    /// A bridge over an iterator that hands out item `k` once `k + 1 - window` items have
    /// been processed (`pending::feedback`); never drawn by [`Chain::draw`]
    Feedback(usize),
    /// `(start..start + len).par_bridge()`: unindexed, items in any order
    BridgeRange,
}

/// A source: its kind, its data length, and the seed its values come from.
#[derive(Clone, Debug)]
pub(crate) struct Source {
    pub(crate) kind: SourceKind,
    pub(crate) len: usize,
    pub(crate) seed: u64,
    /// The values (for ranges: the start in `[0]`; for `repeat_n`: the value in `[0]`).
    pub(crate) data: Vec<u64>,
}

impl Source {
    fn new(kind: SourceKind, len: usize, rng: &mut SmallRng) -> Self {
        let seed = rng.random();
        let mut values = crate::common::rng(seed);
        // Half the sources have few distinct values, so that `min_by_key`, `max_by_key` and
        // the searches meet ties.
        let bound = if values.random_bool(0.5) {
            16
        } else {
            MASK + 1
        };
        let data = match kind {
            SourceKind::Range
            | SourceKind::RangeU64
            | SourceKind::RangeInclusive
            | SourceKind::BridgeRange => vec![values.random_range(0..1 << 20)],
            SourceKind::RepeatN => vec![values.random_range(0..bound)],
            _ => (0..len).map(|_| values.random_range(0..bound)).collect(),
        };
        Source {
            kind,
            len,
            seed,
            data,
        }
    }

    /// Whether this source is indexed.
    pub(crate) fn indexed(&self) -> bool {
        self.ordered()
            && !matches!(
                self.kind,
                SourceKind::RangeU64 | SourceKind::RangeInclusive | SourceKind::Split
            )
    }

    /// Whether its items come in order (all but the bridges).
    pub(crate) fn ordered(&self) -> bool {
        !matches!(
            self.kind,
            SourceKind::BridgeSlice | SourceKind::BridgeRange | SourceKind::Feedback(_)
        )
    }

    /// The items, in order.
    pub(crate) fn items(&self) -> Vec<u64> {
        let range = || (self.data[0]..self.data[0] + self.len as u64).collect();
        match self.kind {
            SourceKind::Slice
            | SourceKind::SliceCloned
            | SourceKind::Vec
            | SourceKind::VecDeque
            | SourceKind::Split
            | SourceKind::BridgeSlice
            | SourceKind::Feedback(_) => self.data.clone(),
            SourceKind::Range
            | SourceKind::RangeU64
            | SourceKind::RangeInclusive
            | SourceKind::BridgeRange => range(),
            SourceKind::RepeatN => vec![self.data[0]; self.len],
            SourceKind::VecDrain => self.data[drained(self.len)].to_vec(),
            SourceKind::ParChunks(size) => self.data.chunks(size).map(fold_slice).collect(),
            SourceKind::ParWindows(size) => self.data.windows(size).map(fold_slice).collect(),
        }
    }
}

/// The range a `VecDrain` source drains from a vector of `len` items.
pub(crate) fn drained(len: usize) -> std::ops::Range<usize> {
    len / 4..len - len / 4
}

/// How `par_chunks` / `par_windows` / `chunks` sources turn a piece into one item.
pub(crate) fn fold_slice(piece: &[u64]) -> u64 {
    piece.iter().fold(0, |acc, &x| fold_step(acc, x))
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.len;
        match self.kind {
            SourceKind::Slice => write!(f, "data[{n}].par_iter().copied()"),
            SourceKind::SliceCloned => write!(f, "data[{n}].par_iter().cloned()"),
            SourceKind::Vec => write!(f, "Vec[{n}].into_par_iter()"),
            SourceKind::VecDeque => write!(f, "VecDeque[{n}].into_par_iter()"),
            SourceKind::VecDrain => write!(f, "Vec[{n}].par_drain({:?})", drained(n)),
            SourceKind::Range => {
                write!(
                    f,
                    "({0}usize..{0}+{n}).into_par_iter().map(as u64)",
                    self.data[0]
                )
            }
            SourceKind::RangeU64 => write!(f, "({0}u64..{0}+{n}).into_par_iter()", self.data[0]),
            SourceKind::RangeInclusive => {
                write!(f, "({0}u64..={0}+{n}-1).into_par_iter()", self.data[0])
            }
            SourceKind::RepeatN => write!(f, "repeat_n({}, {n})", self.data[0]),
            SourceKind::ParChunks(size) => write!(f, "data[{n}].par_chunks({size}).map(fold)"),
            SourceKind::ParWindows(size) => write!(f, "data[{n}].par_windows({size}).map(fold)"),
            SourceKind::Split => {
                write!(
                    f,
                    "split(0..{n}, halves down to 7).flat_map_iter(|r| data[r])"
                )
            }
            SourceKind::BridgeSlice => write!(f, "data[{n}].iter().copied().par_bridge()"),
            SourceKind::Feedback(window) => write!(
                f,
                "feedback(data[{n}], window {window}).par_bridge().map(count processed)"
            ),
            SourceKind::BridgeRange => write!(f, "({0}..{0}+{n}).par_bridge()", self.data[0]),
        }?;
        write!(f, " [values seed {:#x}]", self.seed)
    }
}

// ---------------------------------------------------------------------------------------
// Adapters

/// One adapter step, with its parameters. The comment on each variant is the weft chain it
/// stands for; `key`s seed the closures ([`mix`], [`pick`]).
#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// `map(|x| mix(x, key))`
    Map { key: u64 },
    /// `map_with((key, 0), |s, x| { s.1 += 1; mix(x, s.0) })`
    MapWith { key: u64 },
    /// `map_init(|| key, |k, x| mix(x, *k))`
    MapInit { key: u64 },
    /// `map(|x| (0..nested_len(x)).into_par_iter().map(|j| fanned(x, j)).sum() & MASK)`: a
    /// parallel loop inside each item
    MapNested { key: u64 },
    /// `map(|x| if x == value { panic_any(Planted) } else { x })`: the value is one of the
    /// items only where every item reaches the closure (the steps after it and the
    /// terminal consume every item); the chain must then panic with that payload
    PanicAt { value: u64 },
    /// `inspect(..)` (items unchanged)
    Inspect,
    /// `inspect(|x| busy work of a few microseconds for one item in `every`)`: uneven items,
    /// so that idle workers steal
    Slow { key: u64, every: u64 },
    /// `update(|x| *x = mix(*x, key))`
    Update { key: u64 },
    /// `panic_fuse()`
    PanicFuse,
    /// `filter(|x| pick(x, key, keep))`
    Filter { key: u64, keep: u8 },
    /// `filter_map(|x| pick(x, key, keep).then(|| mix(x, key)))`
    FilterMap { key: u64, keep: u8 },
    /// `flat_map_iter(|x| (0..fan_out(x)).map(|j| fanned(x, j)))`
    FlatMapIter { key: u64, max: u8 },
    /// `flat_map(|x| (0..fan_out(x)).into_par_iter().map(|j| fanned(x, j)))`
    FlatMap { key: u64, max: u8 },
    /// `map(|x| vec of fanned(x, j)).flatten()`
    Flatten { key: u64, max: u8 },
    /// `map(|x| vec of fanned(x, j)).flatten_iter()`
    FlattenIter { key: u64, max: u8 },
    /// `intersperse(value)`
    Intersperse { value: u64 },
    /// `chain(other)`
    Chain { other: Source },
    /// `enumerate().map(|(i, x)| combine(x, i))`
    Enumerate { key: u64 },
    /// `zip(other).map(|(x, y)| combine(x, y))`
    Zip { other: Source, key: u64 },
    /// `zip_eq(other).map(|(x, y)| combine(x, y))` (other of the same length)
    ZipEq { other: Source, key: u64 },
    /// `(self, a, b).into_par_iter().map(|(x, y, z)| combine(combine(x, y), z))`
    MultiZip { a: Source, b: Source, key: u64 },
    /// `interleave(other)`
    Interleave { other: Source },
    /// `interleave_shortest(other)`
    InterleaveShortest { other: Source },
    /// `skip(n)`
    Skip { n: usize },
    /// `take(n)`
    Take { n: usize },
    /// `step_by(step)`
    StepBy { step: usize },
    /// `rev()`
    Rev,
    /// `chunks(size).map(fold)`
    Chunks { size: usize },
    /// `fold_chunks(size, || seed, fold_step)`
    FoldChunks { size: usize, seed: u64 },
    /// `fold_chunks_with(size, seed, fold_step)`
    FoldChunksWith { size: usize, seed: u64 },
    /// `positions(|x| pick(x, key, keep)).map(|i| i as u64)`
    Positions { key: u64, keep: u8 },
    /// `with_min_len(n)`
    MinLen { n: usize },
    /// `with_max_len(n)`
    MaxLen { n: usize },
    /// `by_exponential_blocks()`
    ExponentialBlocks,
    /// `by_uniform_blocks(size)`
    UniformBlocks { size: usize },
    /// `inclusive_scan(identity, op)` with [`scan_op`]
    InclusiveScan { affine: bool },
    /// `exclusive_scan(identity, op)` with [`scan_op`]
    ExclusiveScan { affine: bool },
    // The loose adapters below give one of many possible results, each checked against what
    // its documentation promises; only last in a chain, before a `collect`.
    /// `map(|x| (!pick(x, key, keep)).then_some(x)).while_some()`
    WhileSome { key: u64, keep: u8 },
    /// `take_any(n)`
    TakeAny { n: usize },
    /// `skip_any(n)`
    SkipAny { n: usize },
    /// `take_any_while(|x| pick(x, key, keep))`
    TakeAnyWhile { key: u64, keep: u8 },
    /// `skip_any_while(|x| pick(x, key, keep))`
    SkipAnyWhile { key: u64, keep: u8 },
}

/// The kinds of [`Op`], for drawing one and for counting coverage.
pub(crate) const OP_KINDS: [&str; 42] = [
    "map",
    "map_with",
    "map_init",
    "inspect",
    "update",
    "panic_fuse",
    "filter",
    "filter_map",
    "flat_map_iter",
    "flat_map",
    "flatten",
    "flatten_iter",
    "intersperse",
    "chain",
    "enumerate",
    "zip",
    "zip_eq",
    "multizip",
    "interleave",
    "interleave_shortest",
    "skip",
    "take",
    "step_by",
    "rev",
    "chunks",
    "fold_chunks",
    "fold_chunks_with",
    "positions",
    "with_min_len",
    "with_max_len",
    "by_exponential_blocks",
    "by_uniform_blocks",
    "inclusive_scan",
    "exclusive_scan",
    "while_some",
    "take_any",
    "skip_any",
    "take_any_while",
    "skip_any_while",
    "map (nested loop)",
    "panic at an item",
    "inspect (slow items)",
];

/// What a chain is at some point: what the next step may be, and how results compare.
#[derive(Clone, Copy, Debug)]
pub(crate) struct State {
    /// An `IndexedParallelIterator` (else only a `ParallelIterator`).
    pub(crate) indexed: bool,
    /// Items come in the sequential order (not after `par_bridge`).
    pub(crate) ordered: bool,
    /// A loose adapter ended the chain.
    pub(crate) loose: bool,
}

impl Op {
    /// This step's index in [`OP_KINDS`].
    pub(crate) fn kind(&self) -> usize {
        match self {
            Op::Map { .. } => 0,
            Op::MapWith { .. } => 1,
            Op::MapInit { .. } => 2,
            Op::Inspect => 3,
            Op::Update { .. } => 4,
            Op::PanicFuse => 5,
            Op::Filter { .. } => 6,
            Op::FilterMap { .. } => 7,
            Op::FlatMapIter { .. } => 8,
            Op::FlatMap { .. } => 9,
            Op::Flatten { .. } => 10,
            Op::FlattenIter { .. } => 11,
            Op::Intersperse { .. } => 12,
            Op::Chain { .. } => 13,
            Op::Enumerate { .. } => 14,
            Op::Zip { .. } => 15,
            Op::ZipEq { .. } => 16,
            Op::MultiZip { .. } => 17,
            Op::Interleave { .. } => 18,
            Op::InterleaveShortest { .. } => 19,
            Op::Skip { .. } => 20,
            Op::Take { .. } => 21,
            Op::StepBy { .. } => 22,
            Op::Rev => 23,
            Op::Chunks { .. } => 24,
            Op::FoldChunks { .. } => 25,
            Op::FoldChunksWith { .. } => 26,
            Op::Positions { .. } => 27,
            Op::MinLen { .. } => 28,
            Op::MaxLen { .. } => 29,
            Op::ExponentialBlocks => 30,
            Op::UniformBlocks { .. } => 31,
            Op::InclusiveScan { .. } => 32,
            Op::ExclusiveScan { .. } => 33,
            Op::WhileSome { .. } => 34,
            Op::TakeAny { .. } => 35,
            Op::SkipAny { .. } => 36,
            Op::TakeAnyWhile { .. } => 37,
            Op::SkipAnyWhile { .. } => 38,
            Op::MapNested { .. } => 39,
            Op::PanicAt { .. } => 40,
            Op::Slow { .. } => 41,
        }
    }

    /// Whether the step needs an indexed iterator.
    fn needs_index(&self) -> bool {
        matches!(
            self,
            Op::Enumerate { .. }
                | Op::Zip { .. }
                | Op::ZipEq { .. }
                | Op::MultiZip { .. }
                | Op::Interleave { .. }
                | Op::InterleaveShortest { .. }
                | Op::Skip { .. }
                | Op::Take { .. }
                | Op::StepBy { .. }
                | Op::Rev
                | Op::Chunks { .. }
                | Op::FoldChunks { .. }
                | Op::FoldChunksWith { .. }
                | Op::Positions { .. }
                | Op::MinLen { .. }
                | Op::MaxLen { .. }
                | Op::ExponentialBlocks
                | Op::UniformBlocks { .. }
                | Op::InclusiveScan { .. }
                | Op::ExclusiveScan { .. }
        )
    }

    /// Whether the step is loose (only last).
    fn is_loose(&self) -> bool {
        matches!(
            self,
            Op::WhileSome { .. }
                | Op::TakeAny { .. }
                | Op::SkipAny { .. }
                | Op::TakeAnyWhile { .. }
                | Op::SkipAnyWhile { .. }
        )
    }

    /// Whether the step may make the chain longer.
    fn grows(&self) -> bool {
        matches!(
            self,
            Op::FlatMapIter { .. }
                | Op::FlatMap { .. }
                | Op::Flatten { .. }
                | Op::FlattenIter { .. }
                | Op::Intersperse { .. }
                | Op::Chain { .. }
                | Op::Interleave { .. }
                | Op::InterleaveShortest { .. }
        )
    }

    /// Whether every item of the base reaches this step's output or closure whenever every
    /// item of its output is consumed (`take`, `zip` with a shorter side... may leave base
    /// items unproduced).
    fn consumes_everything(&self) -> bool {
        !self.is_loose()
            && !matches!(
                self,
                Op::Skip { .. }
                    | Op::Take { .. }
                    | Op::StepBy { .. }
                    | Op::Zip { .. }
                    | Op::MultiZip { .. }
                    | Op::InterleaveShortest { .. }
            )
    }

    /// Whether the result is unindexed (from any base).
    fn unindexes(&self) -> bool {
        self.is_loose()
            || matches!(
                self,
                Op::Filter { .. }
                    | Op::FilterMap { .. }
                    | Op::FlatMapIter { .. }
                    | Op::FlatMap { .. }
                    | Op::Flatten { .. }
                    | Op::FlattenIter { .. }
                    | Op::Positions { .. }
                    | Op::ExponentialBlocks
                    | Op::UniformBlocks { .. }
            )
    }

    /// The state after this step.
    pub(crate) fn after(&self, state: State) -> State {
        State {
            indexed: state.indexed && !self.unindexes(),
            ordered: state.ordered,
            loose: self.is_loose(),
        }
    }

    /// Whether the step may follow `state` at this place in the chain.
    fn fits(&self, state: State, last: bool) -> bool {
        (state.indexed || !self.needs_index()) && (last || !self.is_loose())
    }

    /// Draws a step that can follow `state`, for a chain of `len` items so far, among the
    /// kinds `kinds` (indices in [`OP_KINDS`]).
    fn draw(rng: &mut SmallRng, state: State, len: usize, last: bool, plan: Plan) -> Op {
        loop {
            let kind = match plan.kinds {
                Some(kinds) => {
                    let name = pick_one(rng, kinds);
                    OP_KINDS
                        .iter()
                        .position(|kind| kind == name)
                        .expect("a kind of OP_KINDS")
                }
                None => rng.random_range(0..OP_KINDS.len()),
            };
            let op = Self::make(kind, rng, len, plan);
            // Loose steps would end a fifth of the chains: a third of that.
            if !op.fits(state, last)
                || (op.grows() && len > GROWTH_LIMIT)
                || (op.is_loose() && rng.random_range(0..3) > 0)
            {
                continue;
            }
            return op;
        }
    }

    /// A step of kind `kind` with random parameters for `len` items.
    fn make(kind: usize, rng: &mut SmallRng, len: usize, plan: Plan) -> Op {
        let key = rng.random::<u64>();
        let keep = *pick_one(rng, &[0, 1, 4, 8, 12, 15, 16]);
        let max = rng.random_range(0..=3u8);
        let count = |rng: &mut SmallRng| -> usize {
            let choices = [0, 1, len / 2, len.saturating_sub(1), len, len + 3];
            if rng.random_bool(0.25) {
                rng.random_range(0..=len)
            } else {
                *pick_one(rng, &choices)
            }
        };
        // Sizes of 1 or 2 over 10^5 items are slow (one block or chunk per item): at least a
        // thousandth of the length, mostly.
        let size = |rng: &mut SmallRng| -> usize {
            let choices = [1, 2, 3, 7, 64, 1000, len.max(1), len + 1];
            (*pick_one(rng, &choices)).max(len / 1000).max(1)
        };
        let other = |rng: &mut SmallRng| -> Source {
            let other_len = match rng.random_range(0..4) {
                0 => len,
                1 => len.saturating_sub(rng.random_range(0..3)),
                2 => len + rng.random_range(0..3),
                _ => rng.random_range(0..=len.min(GROWTH_LIMIT)),
            };
            let kind = if plan.kinds.is_some() {
                SourceKind::Slice
            } else {
                other_kind(rng)
            };
            Source::new(kind, other_len, rng)
        };
        match kind {
            0 => Op::Map { key },
            1 => Op::MapWith { key },
            2 => Op::MapInit { key },
            3 => Op::Inspect,
            4 => Op::Update { key },
            5 => Op::PanicFuse,
            6 => Op::Filter { key, keep },
            7 => Op::FilterMap { key, keep },
            8 => Op::FlatMapIter { key, max },
            9 => Op::FlatMap { key, max },
            10 => Op::Flatten { key, max },
            11 => Op::FlattenIter { key, max },
            12 => Op::Intersperse { value: key & MASK },
            13 => Op::Chain { other: other(rng) },
            14 => Op::Enumerate { key },
            15 => Op::Zip {
                other: other(rng),
                key,
            },
            16 => {
                let kind = if plan.kinds.is_some() {
                    SourceKind::Slice
                } else {
                    other_kind(rng)
                };
                let other = Source::new(kind, len, rng);
                Op::ZipEq { other, key }
            }
            17 => Op::MultiZip {
                a: other(rng),
                b: other(rng),
                key,
            },
            18 => Op::Interleave { other: other(rng) },
            19 => Op::InterleaveShortest { other: other(rng) },
            20 => Op::Skip { n: count(rng) },
            21 => Op::Take { n: count(rng) },
            22 => Op::StepBy {
                step: *pick_one(rng, &[1, 2, 3, 7, 100, len.max(1), len + 1]),
            },
            23 => Op::Rev,
            24 => Op::Chunks { size: size(rng) },
            25 => Op::FoldChunks {
                size: size(rng),
                seed: key & 0xFF,
            },
            26 => Op::FoldChunksWith {
                size: size(rng),
                seed: key & 0xFF,
            },
            27 => Op::Positions { key, keep },
            28 => Op::MinLen {
                n: *pick_one(rng, &[1, 2, 7, 100, 1000, len.max(1), usize::MAX]),
            },
            29 => {
                let n = *pick_one(rng, &[1, 2, 7, 100, 1000, len.max(1), usize::MAX]);
                // Tiny pieces over 10^5 items: one split and one erased producer per item.
                Op::MaxLen {
                    n: n.max(len / 20_000).max(plan.max_len_floor),
                }
            }
            30 => Op::ExponentialBlocks,
            31 => Op::UniformBlocks { size: size(rng) },
            32 => Op::InclusiveScan {
                affine: rng.random(),
            },
            33 => Op::ExclusiveScan {
                affine: rng.random(),
            },
            34 => Op::WhileSome { key, keep },
            35 => Op::TakeAny { n: count(rng) },
            36 => Op::SkipAny { n: count(rng) },
            37 => Op::TakeAnyWhile { key, keep },
            38 => Op::SkipAnyWhile { key, keep },
            39 => Op::MapNested { key },
            40 => Op::PanicAt {
                value: if rng.random_bool(0.7) && len > 0 {
                    PLANT_AT_ITEM + rng.random_range(0..len) as u64
                } else {
                    NEVER
                },
            },
            // One slow item in two over 10^5 items would take a second per run.
            41 => Op::Slow {
                key,
                every: (*pick_one(rng, &[2u64, 64, 1024])).max(len as u64 / 2000),
            },
            _ => unreachable!("{kind} is not an adapter kind"),
        }
    }

    /// The step, sequentially: std's adapters over `items`. (Loose steps give every item
    /// they may give; [`crate::run`] checks what weft gives against the step's promise.)
    pub(crate) fn apply(&self, items: Vec<u64>) -> Vec<u64> {
        let fan = |x: u64, key: u64, max: u8| -> Vec<u64> {
            (0..fan_out(x, key, max))
                .map(|j| fanned(x, j, key))
                .collect()
        };
        match *self {
            Op::Map { key } | Op::MapWith { key } | Op::MapInit { key } | Op::Update { key } => {
                items.into_iter().map(|x| mix(x, key)).collect()
            }
            Op::MapNested { key } => items.into_iter().map(|x| nested(x, key)).collect(),
            Op::Inspect | Op::PanicFuse | Op::PanicAt { .. } | Op::Slow { .. } => items,
            Op::Filter { key, keep } => items.into_iter().filter(|&x| pick(x, key, keep)).collect(),
            Op::FilterMap { key, keep } => items
                .into_iter()
                .filter(|&x| pick(x, key, keep))
                .map(|x| mix(x, key))
                .collect(),
            Op::FlatMapIter { key, max }
            | Op::FlatMap { key, max }
            | Op::Flatten { key, max }
            | Op::FlattenIter { key, max } => {
                items.into_iter().flat_map(|x| fan(x, key, max)).collect()
            }
            Op::Intersperse { value } => {
                let mut out = Vec::with_capacity(items.len() * 2);
                for (i, x) in items.into_iter().enumerate() {
                    if i > 0 {
                        out.push(value);
                    }
                    out.push(x);
                }
                out
            }
            Op::Chain { ref other } => items.into_iter().chain(other.items()).collect(),
            Op::Enumerate { key } => items
                .into_iter()
                .enumerate()
                .map(|(i, x)| combine(x, i as u64, key))
                .collect(),
            Op::Zip { ref other, key } | Op::ZipEq { ref other, key } => items
                .into_iter()
                .zip(other.items())
                .map(|(x, y)| combine(x, y, key))
                .collect(),
            Op::MultiZip { ref a, ref b, key } => items
                .into_iter()
                .zip(a.items())
                .zip(b.items())
                .map(|((x, y), z)| combine(combine(x, y, key), z, key))
                .collect(),
            Op::Interleave { ref other } => interleave(items, other.items()),
            Op::InterleaveShortest { ref other } => {
                let other = other.items();
                let (mut a, mut b) = (items, other);
                if a.len() <= b.len() {
                    b.truncate(a.len());
                } else {
                    a.truncate(b.len() + 1);
                }
                interleave(a, b)
            }
            Op::Skip { n } => items.into_iter().skip(n).collect(),
            Op::Take { n } => items.into_iter().take(n).collect(),
            Op::StepBy { step } => items.into_iter().step_by(step).collect(),
            Op::Rev => items.into_iter().rev().collect(),
            Op::Chunks { size } => items.chunks(size).map(fold_slice).collect(),
            Op::FoldChunks { size, seed } | Op::FoldChunksWith { size, seed } => items
                .chunks(size)
                .map(|c| c.iter().fold(seed, |acc, &x| fold_step(acc, x)))
                .collect(),
            Op::Positions { key, keep } => items
                .iter()
                .enumerate()
                .filter(|&(_, &x)| pick(x, key, keep))
                .map(|(i, _)| i as u64)
                .collect(),
            Op::MinLen { .. } | Op::MaxLen { .. } | Op::ExponentialBlocks => items,
            Op::UniformBlocks { .. } => items,
            Op::InclusiveScan { affine } => {
                let (identity, op) = scan_op(affine);
                let mut running = identity;
                items
                    .into_iter()
                    .map(|x| {
                        running = op(running, x);
                        running
                    })
                    .collect()
            }
            Op::ExclusiveScan { affine } => {
                let (identity, op) = scan_op(affine);
                let mut running = identity;
                items
                    .into_iter()
                    .map(|x| {
                        let before = running;
                        running = op(running, x);
                        before
                    })
                    .collect()
            }
            // Every item a loose step may give, in order (the check knows the rest).
            Op::WhileSome { key, keep } => {
                items.into_iter().filter(|&x| !pick(x, key, keep)).collect()
            }
            Op::TakeAny { .. } | Op::SkipAny { .. } | Op::SkipAnyWhile { .. } => items,
            Op::TakeAnyWhile { key, keep } => {
                items.into_iter().filter(|&x| pick(x, key, keep)).collect()
            }
        }
    }
}

/// `a0 b0 a1 b1 ...`, then the rest of the longer one (Rayon's `interleave`).
fn interleave(a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter(), b.into_iter());
    loop {
        match (a.next(), b.next()) {
            (None, None) => return out,
            (x, y) => out.extend(x.into_iter().chain(y)),
        }
    }
}

/// A source for the other side of `zip`, `chain`, `interleave`: an indexed one.
fn other_kind(rng: &mut SmallRng) -> SourceKind {
    *pick_one(
        rng,
        &[
            SourceKind::Slice,
            SourceKind::Vec,
            SourceKind::Range,
            SourceKind::RepeatN,
        ],
    )
}

fn pick_one<'t, T>(rng: &mut SmallRng, choices: &'t [T]) -> &'t T {
    &choices[rng.random_range(0..choices.len())]
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Map { key } => write!(f, "map(mix[{key:#x}])"),
            Op::MapWith { key } => write!(f, "map_with(({key:#x}, 0), mix)"),
            Op::MapInit { key } => write!(f, "map_init(|| {key:#x}, mix)"),
            Op::MapNested { key } => write!(f, "map(nested par_iter sum [{key:#x}])"),
            Op::PanicAt { value } if *value == NEVER => write!(f, "map(panic at no item)"),
            Op::PanicAt { value } => write!(f, "map(panic at {value})"),
            Op::Inspect => write!(f, "inspect(..)"),
            Op::Slow { key, every } => write!(f, "inspect(slow 1 in {every} [{key:#x}])"),
            Op::Update { key } => write!(f, "update(mix[{key:#x}])"),
            Op::PanicFuse => write!(f, "panic_fuse()"),
            Op::Filter { key, keep } => write!(f, "filter(pick[{key:#x}, {keep}/16])"),
            Op::FilterMap { key, keep } => {
                write!(f, "filter_map(pick[{key:#x}, {keep}/16] then mix)")
            }
            Op::FlatMapIter { key, max } => write!(f, "flat_map_iter(0..={max} [{key:#x}])"),
            Op::FlatMap { key, max } => write!(f, "flat_map(0..={max} [{key:#x}])"),
            Op::Flatten { key, max } => write!(f, "map(vec 0..={max} [{key:#x}]).flatten()"),
            Op::FlattenIter { key, max } => {
                write!(f, "map(vec 0..={max} [{key:#x}]).flatten_iter()")
            }
            Op::Intersperse { value } => write!(f, "intersperse({value})"),
            Op::Chain { other } => write!(f, "chain({other})"),
            Op::Enumerate { key } => write!(f, "enumerate().map(combine[{key:#x}])"),
            Op::Zip { other, key } => write!(f, "zip({other}).map(combine[{key:#x}])"),
            Op::ZipEq { other, key } => write!(f, "zip_eq({other}).map(combine[{key:#x}])"),
            Op::MultiZip { a, b, key } => {
                write!(f, "(_, {a}, {b}).into_par_iter().map(combine[{key:#x}])")
            }
            Op::Interleave { other } => write!(f, "interleave({other})"),
            Op::InterleaveShortest { other } => write!(f, "interleave_shortest({other})"),
            Op::Skip { n } => write!(f, "skip({n})"),
            Op::Take { n } => write!(f, "take({n})"),
            Op::StepBy { step } => write!(f, "step_by({step})"),
            Op::Rev => write!(f, "rev()"),
            Op::Chunks { size } => write!(f, "chunks({size}).map(fold)"),
            Op::FoldChunks { size, seed } => write!(f, "fold_chunks({size}, || {seed}, fold)"),
            Op::FoldChunksWith { size, seed } => {
                write!(f, "fold_chunks_with({size}, {seed}, fold)")
            }
            Op::Positions { key, keep } => write!(f, "positions(pick[{key:#x}, {keep}/16])"),
            Op::MinLen { n } => write!(f, "with_min_len({n})"),
            Op::MaxLen { n } => write!(f, "with_max_len({n})"),
            Op::ExponentialBlocks => write!(f, "by_exponential_blocks()"),
            Op::UniformBlocks { size } => write!(f, "by_uniform_blocks({size})"),
            Op::InclusiveScan { affine } => write!(f, "inclusive_scan({})", scan_name(*affine)),
            Op::ExclusiveScan { affine } => write!(f, "exclusive_scan({})", scan_name(*affine)),
            Op::WhileSome { key, keep } => {
                write!(f, "map(None if pick[{key:#x}, {keep}/16]).while_some()")
            }
            Op::TakeAny { n } => write!(f, "take_any({n})"),
            Op::SkipAny { n } => write!(f, "skip_any({n})"),
            Op::TakeAnyWhile { key, keep } => {
                write!(f, "take_any_while(pick[{key:#x}, {keep}/16])")
            }
            Op::SkipAnyWhile { key, keep } => {
                write!(f, "skip_any_while(pick[{key:#x}, {keep}/16])")
            }
        }
    }
}

fn scan_name(affine: bool) -> &'static str {
    if affine {
        "affine maps"
    } else {
        "sum mod 2^32"
    }
}

// ---------------------------------------------------------------------------------------
// Terminals

/// How an indexed chain is compared with another sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Comparison {
    Cmp,
    PartialCmp,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// The consuming end of a chain. `key`/`keep` make a predicate with [`pick`]; `m` makes a
/// sort key `x % m` (few distinct keys, so ties are common).
#[derive(Clone, Debug)]
pub(crate) enum Terminal {
    Collect,
    CollectVecDeque,
    CollectLinkedList,
    CollectBTreeSet,
    CollectBinaryHeap,
    CollectVecList,
    CollectIntoVec,
    /// `collect::<Option<Vec<_>>>()` of `map(|x| (!pick(x)).then_some(x))`
    CollectOption {
        key: u64,
        keep: u8,
    },
    /// `prefix.par_extend(chain)`
    ParExtend {
        prefix: usize,
    },
    Sum,
    /// `map(Wrapping).product()`
    Product,
    Count,
    Min,
    Max,
    MinByKey {
        m: u64,
    },
    MaxByKey {
        m: u64,
    },
    /// `min_by(|a, b| (a % m).cmp(&(b % m)).reverse())`
    MinBy {
        m: u64,
    },
    /// `max_by(|a, b| (a % m).cmp(&(b % m)).reverse())`
    MaxBy {
        m: u64,
    },
    FindFirst {
        key: u64,
        keep: u8,
    },
    FindLast {
        key: u64,
        keep: u8,
    },
    FindAny {
        key: u64,
        keep: u8,
    },
    /// `find_map_first(|x| pick(x).then(|| mix(x)))`
    FindMapFirst {
        key: u64,
        keep: u8,
    },
    FindMapLast {
        key: u64,
        keep: u8,
    },
    FindMapAny {
        key: u64,
        keep: u8,
    },
    PositionFirst {
        key: u64,
        keep: u8,
    },
    PositionLast {
        key: u64,
        keep: u8,
    },
    PositionAny {
        key: u64,
        keep: u8,
    },
    Any {
        key: u64,
        keep: u8,
    },
    All {
        key: u64,
        keep: u8,
    },
    /// `map(lift).reduce(|| AFFINE_ID, affine)`: the order of every operand shows
    ReduceAffine,
    /// `map(lift).reduce_with(affine)`
    ReduceWithAffine,
    /// `fold(|| AFFINE_ID, |acc, x| affine(acc, lift(x))).reduce(|| AFFINE_ID, affine)`
    FoldReduceAffine,
    /// `reduce(|| 0, wrapping_add)`
    ReduceSum,
    /// `fold(|| 0, +).sum()`
    FoldSum,
    /// `fold_with(0, +).sum()`
    FoldWithSum,
    /// `try_fold(|| 0, add unless pick or over limit).try_reduce(|| 0, add unless over limit)`
    TryFold {
        key: u64,
        keep: u8,
        limit: u64,
    },
    /// `map(|x| (!pick(x)).then_some(x)).try_reduce(|| 0, add unless over limit)`
    TryReduce {
        key: u64,
        keep: u8,
        limit: u64,
    },
    /// as `TryReduce`, with `try_reduce_with`
    TryReduceWith {
        key: u64,
        keep: u8,
        limit: u64,
    },
    /// `try_for_each(|x| if x > limit { Err(x) } else { Ok(()) })`
    TryForEach {
        limit: u64,
    },
    /// `for_each` adding into an atomic
    ForEach,
    ForEachWith,
    ForEachInit,
    /// `map(|x| (x, mix(x))).unzip()`
    Unzip {
        key: u64,
    },
    Partition {
        key: u64,
        keep: u8,
    },
    /// `partition_map(|x| if pick(x) { Left(x) } else { Right(mix(x)) })`
    PartitionMap {
        key: u64,
        keep: u8,
    },
    /// `chain.cmp(other)` and friends, against a copy of the expected items, perhaps changed
    Compare {
        how: Comparison,
        other: Vec<u64>,
    },
    /// `collect` after a loose adapter, checked against its promise
    LooseCollect,
}

/// The names of the terminals, for coverage.
pub(crate) const TERMINAL_KINDS: [&str; 48] = [
    "collect",
    "collect VecDeque",
    "collect LinkedList",
    "collect BTreeSet",
    "collect BinaryHeap",
    "collect_vec_list",
    "collect_into_vec",
    "collect Option<Vec>",
    "par_extend",
    "sum",
    "product",
    "count",
    "min",
    "max",
    "min_by_key",
    "max_by_key",
    "min_by",
    "max_by",
    "find_first",
    "find_last",
    "find_any",
    "find_map_first",
    "find_map_last",
    "find_map_any",
    "position_first",
    "position_last",
    "position_any",
    "any",
    "all",
    "reduce (affine)",
    "reduce_with (affine)",
    "fold + reduce (affine)",
    "reduce (sum)",
    "fold + sum",
    "fold_with + sum",
    "try_fold + try_reduce",
    "try_reduce",
    "try_reduce_with",
    "try_for_each",
    "for_each",
    "for_each_with",
    "for_each_init",
    "unzip",
    "partition",
    "partition_map",
    "cmp / eq / lt ...",
    "collect (loose)",
    // Not a terminal: counts chains after `par_bridge`.
    "(any terminal, unordered)",
];

impl Terminal {
    /// This terminal's index in [`TERMINAL_KINDS`].
    pub(crate) fn kind(&self) -> usize {
        match self {
            Terminal::Collect => 0,
            Terminal::CollectVecDeque => 1,
            Terminal::CollectLinkedList => 2,
            Terminal::CollectBTreeSet => 3,
            Terminal::CollectBinaryHeap => 4,
            Terminal::CollectVecList => 5,
            Terminal::CollectIntoVec => 6,
            Terminal::CollectOption { .. } => 7,
            Terminal::ParExtend { .. } => 8,
            Terminal::Sum => 9,
            Terminal::Product => 10,
            Terminal::Count => 11,
            Terminal::Min => 12,
            Terminal::Max => 13,
            Terminal::MinByKey { .. } => 14,
            Terminal::MaxByKey { .. } => 15,
            Terminal::MinBy { .. } => 16,
            Terminal::MaxBy { .. } => 17,
            Terminal::FindFirst { .. } => 18,
            Terminal::FindLast { .. } => 19,
            Terminal::FindAny { .. } => 20,
            Terminal::FindMapFirst { .. } => 21,
            Terminal::FindMapLast { .. } => 22,
            Terminal::FindMapAny { .. } => 23,
            Terminal::PositionFirst { .. } => 24,
            Terminal::PositionLast { .. } => 25,
            Terminal::PositionAny { .. } => 26,
            Terminal::Any { .. } => 27,
            Terminal::All { .. } => 28,
            Terminal::ReduceAffine => 29,
            Terminal::ReduceWithAffine => 30,
            Terminal::FoldReduceAffine => 31,
            Terminal::ReduceSum => 32,
            Terminal::FoldSum => 33,
            Terminal::FoldWithSum => 34,
            Terminal::TryFold { .. } => 35,
            Terminal::TryReduce { .. } => 36,
            Terminal::TryReduceWith { .. } => 37,
            Terminal::TryForEach { .. } => 38,
            Terminal::ForEach => 39,
            Terminal::ForEachWith => 40,
            Terminal::ForEachInit => 41,
            Terminal::Unzip { .. } => 42,
            Terminal::Partition { .. } => 43,
            Terminal::PartitionMap { .. } => 44,
            Terminal::Compare { .. } => 45,
            Terminal::LooseCollect => 46,
        }
    }

    /// Draws a terminal for a chain in `state` whose items are `items`.
    fn draw(rng: &mut SmallRng, state: State, items: &[u64]) -> Terminal {
        if state.loose {
            return Terminal::LooseCollect;
        }
        loop {
            let kind = rng.random_range(0..46);
            let key = rng.random::<u64>();
            let keep = *pick_one(rng, &[0, 1, 2, 8, 15, 16]);
            let m = *pick_one(rng, &[1, 2, 3, 16, 1 << 20]);
            let total: u64 = items.iter().sum();
            let limit = *pick_one(rng, &[total, total.saturating_sub(1), total / 2, u64::MAX]);
            let terminal = match kind {
                0 => Terminal::Collect,
                1 => Terminal::CollectVecDeque,
                2 => Terminal::CollectLinkedList,
                3 => Terminal::CollectBTreeSet,
                4 => Terminal::CollectBinaryHeap,
                5 => Terminal::CollectVecList,
                6 => Terminal::CollectIntoVec,
                7 => Terminal::CollectOption { key, keep },
                8 => Terminal::ParExtend {
                    prefix: rng.random_range(0..3),
                },
                9 => Terminal::Sum,
                10 => Terminal::Product,
                11 => Terminal::Count,
                12 => Terminal::Min,
                13 => Terminal::Max,
                14 => Terminal::MinByKey { m },
                15 => Terminal::MaxByKey { m },
                16 => Terminal::MinBy { m },
                17 => Terminal::MaxBy { m },
                18 => Terminal::FindFirst { key, keep },
                19 => Terminal::FindLast { key, keep },
                20 => Terminal::FindAny { key, keep },
                21 => Terminal::FindMapFirst { key, keep },
                22 => Terminal::FindMapLast { key, keep },
                23 => Terminal::FindMapAny { key, keep },
                24 => Terminal::PositionFirst { key, keep },
                25 => Terminal::PositionLast { key, keep },
                26 => Terminal::PositionAny { key, keep },
                27 => Terminal::Any { key, keep },
                28 => Terminal::All { key, keep },
                29 => Terminal::ReduceAffine,
                30 => Terminal::ReduceWithAffine,
                31 => Terminal::FoldReduceAffine,
                32 => Terminal::ReduceSum,
                33 => Terminal::FoldSum,
                34 => Terminal::FoldWithSum,
                35 => Terminal::TryFold { key, keep, limit },
                36 => Terminal::TryReduce { key, keep, limit },
                37 => Terminal::TryReduceWith { key, keep, limit },
                38 => Terminal::TryForEach {
                    limit: *pick_one(rng, &[0, 8, 1 << 31, MASK]),
                },
                39 => Terminal::ForEach,
                40 => Terminal::ForEachWith,
                41 => Terminal::ForEachInit,
                42 => Terminal::Unzip { key },
                43 => Terminal::Partition { key, keep },
                44 => Terminal::PartitionMap { key, keep },
                _ => Terminal::Compare {
                    how: *pick_one(
                        rng,
                        &[
                            Comparison::Cmp,
                            Comparison::PartialCmp,
                            Comparison::Eq,
                            Comparison::Ne,
                            Comparison::Lt,
                            Comparison::Le,
                            Comparison::Gt,
                            Comparison::Ge,
                        ],
                    ),
                    other: perturbed(rng, items),
                },
            };
            if (terminal.indexed_only() && !state.indexed)
                || (terminal.ordered_only() && !state.ordered)
            {
                continue;
            }
            return terminal;
        }
    }

    /// Whether this terminal consumes every item (a search may stop early; `count` may
    /// take an indexed length without producing the items).
    pub(crate) fn consumes_everything(&self) -> bool {
        !matches!(
            self,
            Terminal::CollectOption { .. }
                | Terminal::Count
                | Terminal::FindFirst { .. }
                | Terminal::FindLast { .. }
                | Terminal::FindAny { .. }
                | Terminal::FindMapFirst { .. }
                | Terminal::FindMapLast { .. }
                | Terminal::FindMapAny { .. }
                | Terminal::PositionFirst { .. }
                | Terminal::PositionLast { .. }
                | Terminal::PositionAny { .. }
                | Terminal::Any { .. }
                | Terminal::All { .. }
                | Terminal::TryFold { .. }
                | Terminal::TryReduce { .. }
                | Terminal::TryReduceWith { .. }
                | Terminal::TryForEach { .. }
                | Terminal::Compare { .. }
                | Terminal::LooseCollect
        )
    }

    /// Whether only an `IndexedParallelIterator` has this terminal.
    fn indexed_only(&self) -> bool {
        matches!(
            self,
            Terminal::CollectIntoVec
                | Terminal::PositionFirst { .. }
                | Terminal::PositionLast { .. }
                | Terminal::PositionAny { .. }
                | Terminal::Compare { .. }
        )
    }

    /// Whether this terminal's result depends on the order of the items (not drawn after
    /// `par_bridge`).
    fn ordered_only(&self) -> bool {
        matches!(
            self,
            Terminal::ReduceAffine | Terminal::ReduceWithAffine | Terminal::FoldReduceAffine
        )
    }
}

/// `items`, or a copy changed in one place: one item different, one fewer, one more.
fn perturbed(rng: &mut SmallRng, items: &[u64]) -> Vec<u64> {
    let mut other = items.to_vec();
    match rng.random_range(0..5) {
        0 | 1 => {}
        2 if !other.is_empty() => {
            let at = rng.random_range(0..other.len());
            other[at] = if rng.random() {
                other[at] + 1
            } else {
                other[at].wrapping_sub(1)
            };
        }
        3 => {
            other.pop();
        }
        _ => other.push(rng.random_range(0..16)),
    }
    other
}

impl fmt::Display for Terminal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = TERMINAL_KINDS[self.kind()];
        match self {
            Terminal::CollectOption { key, keep }
            | Terminal::FindFirst { key, keep }
            | Terminal::FindLast { key, keep }
            | Terminal::FindAny { key, keep }
            | Terminal::FindMapFirst { key, keep }
            | Terminal::FindMapLast { key, keep }
            | Terminal::FindMapAny { key, keep }
            | Terminal::PositionFirst { key, keep }
            | Terminal::PositionLast { key, keep }
            | Terminal::PositionAny { key, keep }
            | Terminal::Any { key, keep }
            | Terminal::All { key, keep }
            | Terminal::Partition { key, keep }
            | Terminal::PartitionMap { key, keep } => {
                write!(f, "{name}(pick[{key:#x}, {keep}/16])")
            }
            Terminal::TryFold { key, keep, limit }
            | Terminal::TryReduce { key, keep, limit }
            | Terminal::TryReduceWith { key, keep, limit } => {
                write!(
                    f,
                    "{name}(fail on pick[{key:#x}, {keep}/16] or sum > {limit})"
                )
            }
            Terminal::TryForEach { limit } => write!(f, "{name}(fail on x > {limit})"),
            Terminal::MinByKey { m }
            | Terminal::MaxByKey { m }
            | Terminal::MinBy { m }
            | Terminal::MaxBy { m } => write!(f, "{name}(x % {m})"),
            Terminal::ParExtend { prefix } => write!(f, "{name} onto {prefix} items"),
            Terminal::Unzip { key } => write!(f, "map(|x| (x, mix[{key:#x}](x))).unzip()"),
            Terminal::Compare { how, other } => {
                write!(f, "{how:?} with {} items", other.len())
            }
            _ => write!(f, "{name}"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Chains

/// A whole chain, and what std gives for it.
#[derive(Clone, Debug)]
pub(crate) struct Chain {
    pub(crate) source: Source,
    pub(crate) ops: Vec<Op>,
    pub(crate) terminal: Terminal,
    /// How many of the first steps are built on the source without erasure (a static
    /// prefix): 0 or 1, over a slice or a `Vec`.
    pub(crate) fused: usize,
    /// The state after the last step.
    pub(crate) state: State,
    /// The items std's chain yields (for a loose last step: every item it may yield).
    pub(crate) expected: Vec<u64>,
    /// For a loose last step: the items before it.
    pub(crate) before_loose: Vec<u64>,
    /// A `PanicAt` step meets its value: the chain must panic with [`Planted`].
    pub(crate) panics: bool,
    /// How many items enter the scans of the chain (their sum).
    pub(crate) scan_inputs: usize,
    /// The calls of the scans' `op`, counted by weft's chain (reset before each run).
    pub(crate) scan_calls: Arc<AtomicUsize>,
    /// Whether a run must keep [`Chain::scan_calls`] within a bound (`pending.rs`).
    pub(crate) count_scans: bool,
}

/// The steps a static prefix may have over a slice (see [`Chain::fused`]): those whose weft
/// internals an erased base would hide (`skip`, `take` over items that need not be
/// produced, also through `rev`, `step_by`, `zip`, `chain`...; `zip` of two exact-length
/// producers; a scan over a base it can read twice). Each costs a static chain type to
/// compile (a few seconds of release build each): few, and one step only.
const FUSED_SLICE: &[&str] = &["skip", "take", "rev", "zip", "chain", "inclusive_scan"];

/// The steps a static prefix may have over a `Vec` (which owns its items).
const FUSED_VEC: &[&str] = &["skip"];

/// What the next step is drawn from.
#[derive(Clone, Copy)]
pub(crate) struct Plan {
    /// The smallest `with_max_len` (see [`SCAN_MAX_LEN_FLOOR`]).
    max_len_floor: usize,
    /// Only these kinds (a static prefix), whose other sides are slices; else any kind.
    kinds: Option<&'static [&'static str]>,
}

impl Chain {
    /// Draws a chain.
    pub(crate) fn draw(rng: &mut SmallRng) -> Chain {
        Self::draw_from(rng, None, SCAN_MAX_LEN_FLOOR)
    }

    /// Draws a chain, over a source of kind `kind` if given, with `with_max_len` at least
    /// `scan_floor` in a chain with a scan.
    pub(crate) fn draw_from(
        rng: &mut SmallRng,
        kind: Option<SourceKind>,
        scan_floor: usize,
    ) -> Chain {
        let len = LENGTHS[weighted(rng, &LENGTH_WEIGHTS)];
        let chunk = *pick_one(rng, &[1, 3, 64]);
        let window = *pick_one(rng, &[1, 2, 5]);
        let drawn = *pick_one(
            rng,
            &[
                SourceKind::Slice,
                SourceKind::Slice,
                SourceKind::SliceCloned,
                SourceKind::Vec,
                SourceKind::VecDeque,
                SourceKind::VecDrain,
                SourceKind::Range,
                SourceKind::RangeU64,
                SourceKind::RangeInclusive,
                SourceKind::RepeatN,
                SourceKind::ParChunks(chunk),
                SourceKind::ParWindows(window),
                SourceKind::Split,
                SourceKind::BridgeSlice,
                SourceKind::BridgeRange,
            ],
        );
        let kind = kind.unwrap_or(drawn);
        let source = Source::new(kind, len, rng);
        let mut state = State {
            indexed: source.indexed(),
            ordered: source.ordered(),
            loose: false,
        };
        let fused_kinds = match kind {
            SourceKind::Slice => Some(FUSED_SLICE),
            SourceKind::Vec => Some(FUSED_VEC),
            _ => None,
        }
        .filter(|_| rng.random_bool(0.4));
        let fused = usize::from(fused_kinds.is_some());
        let mut items = source.items();
        let depth = rng.random_range(1..=4).max(fused);
        let mut ops = Vec::with_capacity(depth);
        let mut has_scan = false;
        for position in 0..depth {
            let last = position + 1 == depth;
            let kinds = fused_kinds.filter(|_| position == 0);
            let max_len_floor = if has_scan { scan_floor } else { 1 };
            let plan = Plan {
                max_len_floor,
                kinds,
            };
            let mut op = Op::draw(rng, state, items.len(), last, plan);
            has_scan |= matches!(op, Op::InclusiveScan { .. } | Op::ExclusiveScan { .. });
            if let Op::PanicAt { value } = &mut op {
                if *value != NEVER {
                    *value = items[(*value - PLANT_AT_ITEM) as usize];
                }
            }
            state = op.after(state);
            items = op.apply(items);
            ops.push(op);
        }
        // A `with_max_len` drawn before a scan was not floored.
        if has_scan {
            for op in &mut ops {
                if let Op::MaxLen { n } = op {
                    *n = (*n).max(scan_floor);
                }
            }
        }
        let terminal = Terminal::draw(rng, state, &items);
        // A planted panic that some item may never reach would leave the outcome open.
        for position in 0..ops.len() {
            if !Self::reaches_every_item(&ops[position + 1..], &terminal) {
                if let Op::PanicAt { value } = &mut ops[position] {
                    *value = NEVER;
                }
            }
        }
        Self::assemble(source, fused, ops, terminal).expect("a drawn chain fits together")
    }

    /// Whether every item a step gives reaches the steps `after` it and `terminal`.
    fn reaches_every_item(after: &[Op], terminal: &Terminal) -> bool {
        after.iter().all(Op::consumes_everything) && terminal.consumes_everything()
    }
}

impl Chain {
    /// The chain of these parts, with std's result; `None` if a step or the terminal cannot
    /// follow what comes before it (for shrinking a failing chain).
    pub(crate) fn assemble(
        source: Source,
        fused: usize,
        ops: Vec<Op>,
        terminal: Terminal,
    ) -> Option<Chain> {
        let mut state = State {
            indexed: source.indexed(),
            ordered: source.ordered(),
            loose: false,
        };
        let mut items = source.items();
        let mut before_loose = Vec::new();
        let mut panics = false;
        let mut scan_inputs = 0;
        for (position, op) in ops.iter().enumerate() {
            if matches!(op, Op::InclusiveScan { .. } | Op::ExclusiveScan { .. }) {
                scan_inputs += items.len();
            }
            if !op.fits(state, position + 1 == ops.len()) {
                return None;
            }
            // `zip_eq` needs sides of one length (a shrunk source may have changed this one).
            if matches!(op, Op::ZipEq { other, .. } if other.len != items.len()) {
                return None;
            }
            if let Op::PanicAt { value } = *op {
                if items.contains(&value) {
                    if !Self::reaches_every_item(&ops[position + 1..], &terminal) {
                        return None;
                    }
                    panics = true;
                }
            }
            state = op.after(state);
            if state.loose {
                before_loose = items.clone();
            }
            items = op.apply(items);
        }
        if state.loose != matches!(terminal, Terminal::LooseCollect)
            || (terminal.indexed_only() && !state.indexed)
            || (terminal.ordered_only() && !state.ordered)
        {
            return None;
        }
        // Whether `run::fused` can still build the first step statically.
        let fusable = match source.kind {
            SourceKind::Slice => FUSED_SLICE,
            SourceKind::Vec => FUSED_VEC,
            _ => &[],
        };
        let fused = usize::from(
            fused > 0
                && ops
                    .first()
                    .is_some_and(|op| fusable.contains(&OP_KINDS[op.kind()])),
        );
        Some(Chain {
            source,
            fused,
            ops,
            terminal,
            state,
            expected: items,
            before_loose,
            panics,
            scan_inputs,
            scan_calls: Arc::default(),
            count_scans: false,
        })
    }
}

impl Source {
    /// The same source cut to its first `len` items (for shrinking a failing chain).
    pub(crate) fn shortened(&self, len: usize) -> Source {
        let mut data = self.data.clone();
        if !matches!(
            self.kind,
            SourceKind::Range
                | SourceKind::RangeU64
                | SourceKind::RangeInclusive
                | SourceKind::BridgeRange
                | SourceKind::RepeatN
        ) {
            data.truncate(len);
        }
        Source {
            len,
            data,
            ..self.clone()
        }
    }
}

impl fmt::Display for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.source)?;
        for (position, op) in self.ops.iter().enumerate() {
            write!(f, "\n    .{op}")?;
            if position < self.fused {
                write!(f, "    (static: no erasure before it)")?;
            }
        }
        write!(f, "\n    => {}", self.terminal)?;
        write!(f, "\n    (std's chain gives {} items)", self.expected.len())
    }
}

fn weighted(rng: &mut SmallRng, weights: &[u32]) -> usize {
    let total: u32 = weights.iter().sum();
    let mut roll = rng.random_range(0..total);
    for (i, &w) in weights.iter().enumerate() {
        if roll < w {
            return i;
        }
        roll -= w;
    }
    unreachable!("the roll is below the total")
}
