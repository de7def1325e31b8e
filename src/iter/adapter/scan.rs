//! `inclusive_scan` and `exclusive_scan`: the running results of an associative `op`, as an
//! indexed parallel iterator.
//!
//! The items are cut into *blocks*: the leaves of the fixed tree of `deterministic()` for
//! this length, and the scan's producer asks the driver for that same tree
//! (`SplitTree::Fixed`), so that the pieces it folds are runs of whole blocks unless an
//! adapter after the scan cuts them otherwise. The results are defined block by block, by one
//! formula whoever computes them:
//!
//! ```text
//! total[k]   = fold(identity(), items of block k)             -- left to right
//! start[0]   = identity(),  start[k + 1] = op(start[k], total[k])
//! out[i]     = fold(start[k], items of block k up to i)       -- i in block k (inclusive;
//!                                                                exclusive stops before i)
//! ```
//!
//! A piece that folds block `k` needs `start[k]`, so every `total[j]` for `j < k`. Each is
//! computed once, by whoever needs it first, and kept in [`Prefixes`]:
//! - the piece that folds block `j` computes `total[j]` beside the outputs (a second chain of
//!   `op`, one more call per item) and publishes it when the block is done;
//! - a piece that starts before the blocks below it are done (its half was stolen) reads the
//!   missing ones itself through a duplicate of the base producer (`Producer::duplicate`),
//!   from the highest down, until it meets a block whose start is known: the owner of the
//!   blocks below publishes them as it goes up, so the two meet and no block is read by
//!   both, but for the one where they meet. Readers going down claim each block they read
//!   (`Block::claimed`): one that comes to a block another reader is reading skips it and
//!   takes its total on the way back up, so readers that go down side by side (many pieces
//!   of a `rev`, or of small blocks on many threads) share the blocks instead of reading
//!   each of them once per reader.
//!
//! **Blocks in parts.** Adapters after the scan may cut pieces inside blocks: `with_max_len`
//! below the block length, `with_min_len` above it, `rev` (its cuts count from the end),
//! `skip`, `take`. A piece that covers only part of a block takes that part of the block's
//! results from the table: the first piece to need the block in parts computes all of its
//! results from `start[k]` (reading the block through the duplicate, with its total beside
//! it if still unknown) and leaves them there ([`Kept`]); the pieces over the block's other
//! parts clone theirs out, and the table lets go of the results once every item has been
//! taken. So a block's results are computed once however the pieces cut it (twice only if
//! two workers need the same block in parts at the same time), where a piece folding its
//! block again from the block's start made `with_max_len(1)` call `op` about half a block's
//! length of times per item.
//!
//! On one thread the tree is walked in order and every start is known when its block is
//! reached: one pass over the input, with one more `op` per item than a sequential scan
//! (the totals). On two, the thief of the upper half reads part of the lower half once more
//! (it reads at about twice the rate the owner reads and writes, so they meet about a third
//! of the way down), where the classic reduce-then-scan reads every item twice. A base that
//! cannot be read twice (it owns its items, or is a `map` whose closure would run twice) is
//! collected into a buffer first and scanned from there.
//!
//! The formula fixes the order of every `op`, so the results are the same on every pool, for
//! floats too (the same bits), as after `deterministic()`.

use std::collections::VecDeque;
use std::fmt;
use std::num::NonZeroUsize;
use std::ops::Range;
// std's types, not `crate::sync`'s: the table is no lock-free structure to model with loom
// (a `OnceLock` per total and start, a `Mutex` per block held for a few instructions).
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::drive::leaf_len;
use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, IntoParallelRefIterator, ParallelIterator};
use crate::plumbing::SplitTree;

/// The iterator returned by [`IndexedParallelIterator::inclusive_scan`] (`INCLUSIVE = true`)
/// and [`IndexedParallelIterator::exclusive_scan`] (`false`).
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<u32> = (1..6).into_par_iter().inclusive_scan(|| 0, |a, b| a + b).collect();
/// assert_eq!(v, [1, 3, 6, 10, 15]);
/// let v: Vec<u32> = (1..6).into_par_iter().exclusive_scan(|| 0, |a, b| a + b).collect();
/// assert_eq!(v, [0, 1, 3, 6, 10]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Scan<I, ID, OP, const INCLUSIVE: bool> {
    base: I,
    identity: ID,
    op: OP,
}

/// The iterator returned by [`IndexedParallelIterator::inclusive_scan`].
pub type InclusiveScan<I, ID, OP> = Scan<I, ID, OP, true>;
/// The iterator returned by [`IndexedParallelIterator::exclusive_scan`].
pub type ExclusiveScan<I, ID, OP> = Scan<I, ID, OP, false>;

impl<I: fmt::Debug, ID, OP, const INCLUSIVE: bool> fmt::Debug for Scan<I, ID, OP, INCLUSIVE> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scan")
            .field("base", &self.base)
            .field("inclusive", &INCLUSIVE)
            .finish()
    }
}

impl<I, ID, OP, const INCLUSIVE: bool> Scan<I, ID, OP, INCLUSIVE> {
    pub(crate) fn new(base: I, identity: ID, op: OP) -> Self {
        Scan { base, identity, op }
    }
}

impl<I, ID, OP, const INCLUSIVE: bool> ParallelIterator for Scan<I, ID, OP, INCLUSIVE>
where
    I: IndexedParallelIterator,
    I::Item: Clone + Send + Sync,
    ID: Fn() -> I::Item + Sync + Send,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I, ID, OP, const INCLUSIVE: bool> IndexedParallelIterator for Scan<I, ID, OP, INCLUSIVE>
where
    I: IndexedParallelIterator,
    I::Item: Clone + Send + Sync,
    ID: Fn() -> I::Item + Sync + Send,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync + Send,
{
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let Scan { base, identity, op } = self;
        let len = base.len();
        let (identity, op) = (&identity, &op);
        base.with_producer(ScanCallback::<CB, ID, OP, INCLUSIVE> {
            callback,
            len,
            identity,
            op,
        })
    }
}

/// Receives the base's producer: scans it directly if it can be read twice, else collects
/// it into a buffer first.
struct ScanCallback<'f, CB, ID, OP, const INCLUSIVE: bool> {
    callback: CB,
    len: usize,
    identity: &'f ID,
    op: &'f OP,
}

impl<'f, T, CB, ID, OP, const INCLUSIVE: bool> ScanCallback<'f, CB, ID, OP, INCLUSIVE>
where
    T: Clone + Send + Sync,
    CB: ProducerCallback<T>,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
{
    /// Hands the callback the scan of `base`, with `whole` a duplicate of it, in blocks of
    /// `block` items.
    fn scan<P: Producer<Item = T>>(self, block: usize, base: P, whole: P) -> CB::Output {
        let table = Prefixes::new(self.len, block, self.identity, self.op);
        self.callback
            .callback(ScanProducer::<P, T, ID, OP, INCLUSIVE> {
                base,
                whole,
                start: 0,
                len: self.len,
                table: &table,
            })
    }
}

impl<T, CB, ID, OP, const INCLUSIVE: bool> ProducerCallback<T>
    for ScanCallback<'_, CB, ID, OP, INCLUSIVE>
where
    T: Clone + Send + Sync,
    CB: ProducerCallback<T>,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
{
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let grain = match base.split_tree() {
            SplitTree::Fixed(grain) => grain,
            SplitTree::Adaptive => None,
        };
        let block = leaf_len(self.len, grain, base.min_len(), base.max_len());
        if let Some(whole) = base.duplicate() {
            return self.scan(block, base, whole);
        }
        // Read once, into a buffer that can be read twice (its items are cloned out).
        let mut items = Vec::with_capacity(self.len);
        Buffered {
            producer: base,
            len: self.len,
        }
        .collect_into_vec(&mut items);
        items
            .par_iter()
            .cloned()
            .with_producer(FromBuffer { scan: self, block })
    }
}

/// The callback for the scan of a buffer's cloned items.
struct FromBuffer<'f, CB, ID, OP, const INCLUSIVE: bool> {
    scan: ScanCallback<'f, CB, ID, OP, INCLUSIVE>,
    block: usize,
}

impl<T, CB, ID, OP, const INCLUSIVE: bool> ProducerCallback<T>
    for FromBuffer<'_, CB, ID, OP, INCLUSIVE>
where
    T: Clone + Send + Sync,
    CB: ProducerCallback<T>,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
{
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let whole = base
            .duplicate()
            .expect("the cloned items of a slice can be read twice");
        self.scan.scan(self.block, base, whole)
    }
}

/// A producer as an indexed parallel iterator, to collect a scan's base that cannot be read
/// twice.
struct Buffered<P> {
    producer: P,
    len: usize,
}

impl<P: Producer> ParallelIterator for Buffered<P>
where
    P::Item: Send,
{
    type Item = P::Item;

    fn drive_unindexed<C: UnindexedConsumer<P::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len)
    }
}

impl<P: Producer> IndexedParallelIterator for Buffered<P>
where
    P::Item: Send,
{
    fn drive<C: Consumer<P::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.len
    }

    fn with_producer<CB: ProducerCallback<P::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(self.producer)
    }
}

/// The blocks of one scan: their totals and starts, each computed once by whoever needs it
/// first and then shared by every piece (see the module doc for the formula), and the
/// results of the blocks that pieces cover in parts.
struct Prefixes<'f, T, ID, OP> {
    len: usize,
    /// Items per block (the last block may be shorter).
    block: usize,
    identity: &'f ID,
    op: &'f OP,
    blocks: Box<[Block<T>]>,
}

/// What the table knows of one block.
struct Block<T> {
    /// `identity()` and then every item of the block, folded with `op`.
    total: OnceLock<T>,
    /// What the block's outputs start from; `identity()` for the first block.
    start: OnceLock<T>,
    /// Set by the first reader that reads the block for its total in `start_of`: another
    /// reader passing it on its way down skips it (instead of reading it at the same time)
    /// and finds the total set on its way back up, or reads it then.
    claimed: AtomicBool,
    /// The block's results, while pieces that cover it in parts still have some to take.
    /// Locked only to look, count and clone or swap the `Arc`: no user code runs under it
    /// (a clone of the `Arc` calls no `T::clone`, and the table's `Arc` is never the last
    /// one while the lock is held).
    kept: Mutex<Option<Kept<T>>>,
}

/// One block's results ([`Block::kept`]), computed by the first piece that covered the block
/// in parts.
struct Kept<T> {
    /// The outputs of every item of the block, in order.
    results: Arc<[T]>,
    /// How many of them pieces have taken so far; the table lets go of them at the block's
    /// length (pieces that read the scan twice, as a scan of a scan does, may take some
    /// twice: the table then lets go early, and a later piece computes them again).
    taken: usize,
}

impl<T> Block<T> {
    fn new() -> Self {
        Block {
            total: OnceLock::new(),
            start: OnceLock::new(),
            claimed: AtomicBool::new(false),
            kept: Mutex::new(None),
        }
    }

    /// The kept results, counting `taking` of them as taken (and letting go of them once
    /// all `len` are); `None` if nobody left them.
    fn take_kept(&self, taking: usize, len: usize) -> Option<Arc<[T]>> {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = kept.as_mut()?;
        entry.taken += taking;
        let results = Arc::clone(&entry.results);
        if entry.taken >= len {
            *kept = None;
        }
        Some(results)
    }

    /// Leaves `results` (all `len` of the block's) for the pieces over the block's other
    /// parts, `taking` of them taken by the caller. If another worker left the same results
    /// meanwhile, counts the caller's against those.
    fn keep(&self, results: &Arc<[T]>, taking: usize, len: usize) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let taken = match kept.as_mut() {
            Some(entry) => {
                entry.taken += taking;
                entry.taken
            }
            None => {
                *kept = Some(Kept {
                    results: Arc::clone(results),
                    taken: taking,
                });
                taking
            }
        };
        if taken >= len {
            *kept = None;
        }
    }
}

impl<'f, T, ID, OP> Prefixes<'f, T, ID, OP>
where
    T: Clone,
    ID: Fn() -> T,
    OP: Fn(T, T) -> T,
{
    fn new(len: usize, block: usize, identity: &'f ID, op: &'f OP) -> Self {
        let blocks: Box<[Block<T>]> = (0..len.div_ceil(block)).map(|_| Block::new()).collect();
        if let Some(first) = blocks.first() {
            let _ = first.start.set(identity());
        }
        Prefixes {
            len,
            block,
            identity,
            op,
            blocks,
        }
    }

    /// The block that holds item `index`.
    fn block_of(&self, index: usize) -> usize {
        index / self.block
    }

    /// The items of block `k`.
    fn block_range(&self, k: usize) -> Range<usize> {
        k * self.block..Ord::min((k + 1) * self.block, self.len)
    }

    /// The items `range` of the base, through a duplicate of `whole` (the whole base).
    fn read<P: Producer>(&self, whole: &P, range: Range<usize>) -> P::IntoIter {
        let whole = whole
            .duplicate()
            .expect("a scan only reads again a base that can be read twice");
        let (_, from_start) = whole.split_at(range.start);
        let (items, _) = from_start.split_at(range.end - range.start);
        items.into_iter()
    }

    /// `start[k]`, computing what is missing: the totals of the blocks from the highest
    /// one below `k` down to the first one whose start is known (read through `whole`,
    /// unless their own piece published them meanwhile), then the starts back up.
    fn start_of<P: Producer<Item = T>>(&self, k: usize, whole: &P) -> T {
        if let Some(start) = self.blocks[k].start.get() {
            return start.clone();
        }
        let mut known = k;
        while self.blocks[known].start.get().is_none() {
            known -= 1; // `start[0]` is set, so this stops at 0
            let block = &self.blocks[known];
            // ORDERING: Relaxed: the flag only says who reads the block; its total is
            // published (and read) through the `OnceLock`.
            if block.total.get().is_none() && !block.claimed.swap(true, Ordering::Relaxed) {
                let _ = block.total.set(self.total_of(known, whole));
            }
        }
        let mut start = self.blocks[known].start.get().cloned();
        for j in known..k {
            let below = start.take().expect("the start below is known");
            // A block skipped on the way down because another reader had claimed it: its
            // total is set by now, unless that reader is still at it (then read it again;
            // not `get_or_init`, which would wait for the other reader's user code).
            let total = match self.blocks[j].total.get() {
                Some(total) => total,
                None => {
                    let _ = self.blocks[j].total.set(self.total_of(j, whole));
                    self.blocks[j].total.get().expect("just set")
                }
            };
            if self.blocks[j + 1].start.get().is_none() {
                let _ = self.blocks[j + 1]
                    .start
                    .set((self.op)(below, total.clone()));
            }
            start = self.blocks[j + 1].start.get().cloned();
        }
        start.expect("the start of block k is known")
    }

    /// `identity()` and every item of block `k` folded with `op`, read through `whole`.
    fn total_of<P: Producer<Item = T>>(&self, k: usize, whole: &P) -> T {
        self.read(whole, self.block_range(k))
            .fold((self.identity)(), self.op)
    }

    /// The scan of block `k`, whose items are `items`: from the block's start, with the
    /// block's total computed alongside if it is still unknown (not for the last block:
    /// nothing needs its total).
    fn scan_block<'t, P, I, const INCLUSIVE: bool>(
        &'t self,
        k: usize,
        whole: &P,
        items: I,
    ) -> Segment<'t, 'f, I, T, ID, OP, INCLUSIVE>
    where
        P: Producer<Item = T>,
    {
        let running = Some(self.start_of(k, whole));
        if k + 1 < self.blocks.len() && self.blocks[k].total.get().is_none() {
            Segment::WholeWithTotal(BlockScan {
                items,
                running,
                total: Some((self.identity)()),
                table: self,
                block: k,
            })
        } else {
            Segment::Whole(BlockScan {
                items,
                running,
                total: None,
                table: self,
                block: k,
            })
        }
    }

    /// The results of all of block `k`, for a piece that covers `taking` of its items and
    /// not all of them: those kept in the table, else computed (reading the block through
    /// `whole`) and kept there for the pieces over the block's other items.
    fn block_results<P, const INCLUSIVE: bool>(
        &self,
        k: usize,
        whole: &P,
        taking: usize,
    ) -> Arc<[T]>
    where
        P: Producer<Item = T>,
    {
        let range = self.block_range(k);
        let len = range.len();
        if let Some(results) = self.blocks[k].take_kept(taking, len) {
            return results;
        }
        let items = self.read(whole, range);
        let mut results = Vec::with_capacity(len);
        self.scan_block::<P, _, INCLUSIVE>(k, whole, items)
            .fold((), |(), out| results.push(out));
        let results: Arc<[T]> = results.into();
        self.blocks[k].keep(&results, taking, len);
        results
    }
}

/// The scan's results over `items`, all of one block: each from `running` and the items up
/// to it. If `TOTAL` (the block's total is wanted), `total` is the fold of the block's items
/// so far from `identity()`, published in the table once `items` run out; else `None`.
/// `running` and a wanted `total` are `None` only in the middle of a step. `TOTAL` is a parameter, not a test of
/// `total`, so that a loop that pulls items by `next` has no test of it per item (LLVM
/// turned that test into a select inside the loop).
struct BlockScan<'t, 'f, I, T, ID, OP, const INCLUSIVE: bool, const TOTAL: bool> {
    items: I,
    running: Option<T>,
    total: Option<T>,
    table: &'t Prefixes<'f, T, ID, OP>,
    block: usize,
}

impl<I, T, ID, OP, const INCLUSIVE: bool, const TOTAL: bool>
    BlockScan<'_, '_, I, T, ID, OP, INCLUSIVE, TOTAL>
where
    T: Clone,
    OP: Fn(T, T) -> T,
{
    /// Publishes the block's total, if it is computed: once the items run out. A clone: the
    /// total stays `Some` while `TOTAL`, so that `next` can count on it.
    #[cold]
    fn publish(&self) {
        if let Some(total) = &self.total {
            let _ = self.table.blocks[self.block].total.set(total.clone());
        }
    }

    /// One step over `item` from `running`: the new running value, and the result given out
    /// for `item` (the new value if inclusive, the old one if exclusive). One clone.
    #[inline(always)]
    fn step(op: &OP, running: T, item: T) -> (T, T) {
        if INCLUSIVE {
            let next = op(running, item);
            (next.clone(), next)
        } else {
            (op(running.clone(), item), running)
        }
    }
}

impl<I, T, ID, OP, const INCLUSIVE: bool, const TOTAL: bool> Iterator
    for BlockScan<'_, '_, I, T, ID, OP, INCLUSIVE, TOTAL>
where
    I: Iterator<Item = T>,
    T: Clone,
    OP: Fn(T, T) -> T,
{
    type Item = T;

    /// The loop of a folder that pulls items (a collect's store loop, bounded by the free
    /// slots, goes through std's `try_fold`, which an iterator outside std cannot override
    /// on stable Rust, and so through `next`). Inlined into that loop, with the end of the
    /// block out of line, the two `Option`s live in registers and their tests fold away.
    #[inline]
    fn next(&mut self) -> Option<T> {
        let Some(item) = self.items.next() else {
            self.publish();
            return None;
        };
        let op = self.table.op;
        if TOTAL {
            let total = self.total.take().expect("a wanted total stays Some");
            self.total = Some(op(total, item.clone()));
        }
        let running = self.running.take().expect("a scan step completed");
        let (running, out) = Self::step(op, running, item);
        self.running = Some(running);
        Some(out)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }

    /// The loop of a folder that folds (a sum's, a `for_each`'s): the running value and the
    /// total live in locals, so a step is one or two calls of `op` and one clone, with no
    /// `Option` to test.
    #[inline]
    fn fold<B, G: FnMut(B, T) -> B>(self, init: B, mut fold_op: G) -> B {
        let BlockScan {
            items,
            running,
            total,
            table,
            block,
        } = self;
        let op = table.op;
        let mut running = running.expect("a scan step completed");
        let mut acc = init;
        match total {
            Some(mut total) => {
                for item in items {
                    total = op(total, item.clone());
                    let out;
                    (running, out) = Self::step(op, running, item);
                    acc = fold_op(acc, out);
                }
                let _ = table.blocks[block].total.set(total);
            }
            None => {
                for item in items {
                    let out;
                    (running, out) = Self::step(op, running, item);
                    acc = fold_op(acc, out);
                }
            }
        }
        acc
    }
}

impl<I, T, ID, OP, const INCLUSIVE: bool, const TOTAL: bool> ExactSizeIterator
    for BlockScan<'_, '_, I, T, ID, OP, INCLUSIVE, TOTAL>
where
    I: ExactSizeIterator<Item = T>,
    T: Clone,
    OP: Fn(T, T) -> T,
{
}

/// Clones of `results[range]`: a piece's part of a block whose results the table keeps.
struct KeptResults<T> {
    results: Arc<[T]>,
    range: Range<usize>,
}

impl<T: Clone> Iterator for KeptResults<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let i = self.range.next()?;
        Some(self.results[i].clone())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }

    fn fold<B, G: FnMut(B, T) -> B>(self, init: B, fold_op: G) -> B {
        self.results[self.range].iter().cloned().fold(init, fold_op)
    }
}

impl<T: Clone> ExactSizeIterator for KeptResults<T> {}

/// A piece's part of one block: all of the block, scanned from its items (its total
/// alongside, or not), or part of it, cloned from the results the table keeps.
enum Segment<'t, 'f, I, T, ID, OP, const INCLUSIVE: bool> {
    Whole(BlockScan<'t, 'f, I, T, ID, OP, INCLUSIVE, false>),
    WholeWithTotal(BlockScan<'t, 'f, I, T, ID, OP, INCLUSIVE, true>),
    Part(KeptResults<T>),
}

impl<I, T, ID, OP, const INCLUSIVE: bool> Segment<'_, '_, I, T, ID, OP, INCLUSIVE>
where
    I: ExactSizeIterator<Item = T>,
    T: Clone,
    OP: Fn(T, T) -> T,
{
    /// The results not given out yet.
    fn len(&self) -> usize {
        match self {
            Segment::Whole(scan) => scan.items.len(),
            Segment::WholeWithTotal(scan) => scan.items.len(),
            Segment::Part(kept) => kept.range.len(),
        }
    }

    fn next(&mut self) -> Option<T> {
        match self {
            Segment::Whole(scan) => scan.next(),
            Segment::WholeWithTotal(scan) => scan.next(),
            Segment::Part(kept) => kept.next(),
        }
    }

    fn fold<B, G: FnMut(B, T) -> B>(self, init: B, fold_op: G) -> B {
        match self {
            Segment::Whole(scan) => scan.fold(init, fold_op),
            Segment::WholeWithTotal(scan) => scan.fold(init, fold_op),
            Segment::Part(kept) => kept.fold(init, fold_op),
        }
    }
}

/// The scan's results over `base`, the items `start..start + len` of the whole base;
/// `whole` is a duplicate of the whole base, for the blocks this piece reads again.
struct ScanProducer<'t, P, T, ID, OP, const INCLUSIVE: bool> {
    base: P,
    whole: P,
    start: usize,
    len: usize,
    table: &'t Prefixes<'t, T, ID, OP>,
}

impl<'t, P, T, ID, OP, const INCLUSIVE: bool> Producer for ScanProducer<'t, P, T, ID, OP, INCLUSIVE>
where
    P: Producer<Item = T>,
    T: Clone + Send + Sync,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
{
    type Item = T;
    type IntoIter = ScanIter<'t, P, T, ID, OP, INCLUSIVE>;

    fn into_iter(self) -> Self::IntoIter {
        ScanIter {
            rest: Some(self.base),
            segment: None,
            pos: self.start,
            end: self.start + self.len,
            whole: self.whole,
            table: self.table,
            buffered: None,
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    /// The fixed tree with the scan's blocks as leaves, so that pieces are whole blocks.
    fn split_tree(&self) -> SplitTree {
        SplitTree::Fixed(NonZeroUsize::new(self.table.block))
    }

    fn duplicate(&self) -> Option<Self> {
        Some(ScanProducer {
            base: self.base.duplicate()?,
            whole: self.whole.duplicate()?,
            start: self.start,
            len: self.len,
            table: self.table,
        })
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let right_whole = self
            .whole
            .duplicate()
            .expect("a scan's base can be read twice");
        let table = self.table;
        (
            ScanProducer {
                base: left,
                whole: self.whole,
                start: self.start,
                len: index,
                table,
            },
            ScanProducer {
                base: right,
                whole: right_whole,
                start: self.start + index,
                len: self.len - index,
                table,
            },
        )
    }

    /// Block by block, each block's part handed to the folder in one `consume_iter`.
    fn fold_with<F: Folder<T>>(self, folder: F) -> F {
        let mut iter = self.into_iter();
        let mut folder = folder;
        while let Some(segment) = iter.open_segment() {
            folder = match segment {
                Segment::Whole(scan) => folder.consume_iter(scan),
                Segment::WholeWithTotal(scan) => folder.consume_iter(scan),
                Segment::Part(kept) => folder.consume_iter(kept),
            };
            if folder.full() {
                break;
            }
        }
        folder
    }
}

/// The sequential iterator of a scan's piece: block by block, each block's part a
/// [`Segment`]. `next_back` first computes every result left (a scan has no way back) and
/// keeps them.
struct ScanIter<'t, P: Producer, T, ID, OP, const INCLUSIVE: bool> {
    /// The items from `pos` on, not yet in a segment.
    rest: Option<P>,
    /// The part of the current block being read.
    segment: Option<Segment<'t, 't, P::IntoIter, T, ID, OP, INCLUSIVE>>,
    pos: usize,
    end: usize,
    whole: P,
    table: &'t Prefixes<'t, T, ID, OP>,
    /// Every result left, once `next_back` was called.
    buffered: Option<VecDeque<T>>,
}

impl<'t, P, T, ID, OP, const INCLUSIVE: bool> ScanIter<'t, P, T, ID, OP, INCLUSIVE>
where
    P: Producer<Item = T>,
    T: Clone,
    ID: Fn() -> T,
    OP: Fn(T, T) -> T,
{
    /// The next block's part of the items, or `None` at the end.
    fn open_segment(&mut self) -> Option<Segment<'t, 't, P::IntoIter, T, ID, OP, INCLUSIVE>> {
        if self.pos == self.end {
            return None;
        }
        let table = self.table;
        let block = table.block_of(self.pos);
        let range = table.block_range(block);
        let segment_end = Ord::min(range.end, self.end);
        let rest = self.rest.take().expect("items remain before the end");
        let (items, tail) = rest.split_at(segment_end - self.pos);
        let segment = if self.pos == range.start && segment_end == range.end {
            table.scan_block(block, &self.whole, items.into_iter())
        } else {
            let taking = segment_end - self.pos;
            let results = table.block_results::<P, INCLUSIVE>(block, &self.whole, taking);
            Segment::Part(KeptResults {
                results,
                range: self.pos - range.start..segment_end - range.start,
            })
        };
        (self.rest, self.pos) = (Some(tail), segment_end);
        Some(segment)
    }
}

impl<P, T, ID, OP, const INCLUSIVE: bool> Iterator for ScanIter<'_, P, T, ID, OP, INCLUSIVE>
where
    P: Producer<Item = T>,
    T: Clone,
    ID: Fn() -> T,
    OP: Fn(T, T) -> T,
{
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if let Some(buffered) = &mut self.buffered {
            return buffered.pop_front();
        }
        loop {
            if let Some(segment) = &mut self.segment {
                if let Some(item) = segment.next() {
                    return Some(item);
                }
            }
            self.segment = Some(self.open_segment()?);
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = match &self.buffered {
            Some(buffered) => buffered.len(),
            None => {
                let in_segment = self.segment.as_ref().map_or(0, Segment::len);
                in_segment + (self.end - self.pos)
            }
        };
        (len, Some(len))
    }

    fn fold<B, G: FnMut(B, T) -> B>(mut self, init: B, mut fold_op: G) -> B {
        if let Some(buffered) = self.buffered.take() {
            return buffered.into_iter().fold(init, fold_op);
        }
        let mut acc = init;
        if let Some(segment) = self.segment.take() {
            acc = segment.fold(acc, &mut fold_op);
        }
        while let Some(segment) = self.open_segment() {
            acc = segment.fold(acc, &mut fold_op);
        }
        acc
    }
}

impl<P, T, ID, OP, const INCLUSIVE: bool> DoubleEndedIterator
    for ScanIter<'_, P, T, ID, OP, INCLUSIVE>
where
    P: Producer<Item = T>,
    T: Clone,
    ID: Fn() -> T,
    OP: Fn(T, T) -> T,
{
    fn next_back(&mut self) -> Option<T> {
        if self.buffered.is_none() {
            let mut all = VecDeque::with_capacity(self.len());
            all.extend(self.by_ref());
            self.buffered = Some(all);
        }
        self.buffered.as_mut()?.pop_back()
    }
}

impl<P, T, ID, OP, const INCLUSIVE: bool> ExactSizeIterator
    for ScanIter<'_, P, T, ID, OP, INCLUSIVE>
where
    P: Producer<Item = T>,
    T: Clone,
    ID: Fn() -> T,
    OP: Fn(T, T) -> T,
{
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use crate::iter::plumbing::*;
    use crate::iter::{IndexedParallelIterator, ParallelIterator};

    /// A slice whose producer counts the items it hands out, and can be read twice.
    struct Counted<'a> {
        items: &'a [u64],
        reads: &'a AtomicUsize,
    }

    struct CountedProducer<'a> {
        items: &'a [u64],
        reads: &'a AtomicUsize,
    }

    impl ParallelIterator for Counted<'_> {
        type Item = u64;

        fn drive_unindexed<C: UnindexedConsumer<u64>>(self, consumer: C) -> C::Result {
            bridge(self, consumer)
        }
    }

    impl IndexedParallelIterator for Counted<'_> {
        fn drive<C: Consumer<u64>>(self, consumer: C) -> C::Result {
            bridge(self, consumer)
        }

        fn len(&self) -> usize {
            self.items.len()
        }

        fn with_producer<CB: ProducerCallback<u64>>(self, callback: CB) -> CB::Output {
            callback.callback(CountedProducer {
                items: self.items,
                reads: self.reads,
            })
        }
    }

    impl<'a> Producer for CountedProducer<'a> {
        type Item = u64;
        type IntoIter = std::iter::Inspect<
            std::iter::Copied<std::slice::Iter<'a, u64>>,
            Box<dyn FnMut(&u64) + 'a>,
        >;

        fn into_iter(self) -> Self::IntoIter {
            let reads = self.reads;
            let count: Box<dyn FnMut(&u64) + 'a> = Box::new(move |_| {
                // ORDERING: a counter, read after the scan's joins have ordered every add.
                reads.fetch_add(1, Ordering::Relaxed);
            });
            self.items.iter().copied().inspect(count)
        }

        fn split_at(self, index: usize) -> (Self, Self) {
            let (left, right) = self.items.split_at(index);
            let reads = self.reads;
            (
                CountedProducer { items: left, reads },
                CountedProducer {
                    items: right,
                    reads,
                },
            )
        }

        fn duplicate(&self) -> Option<Self> {
            Some(CountedProducer {
                items: self.items,
                reads: self.reads,
            })
        }
    }

    fn in_pool<R: Send>(threads: usize, op: impl FnOnce() -> R + Send) -> R {
        crate::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(op)
    }

    #[test]
    fn one_thread_reads_every_item_once() {
        let items: Vec<u64> = (0..100_003).collect();
        let reads = AtomicUsize::new(0);
        let prefix: Vec<u64> = in_pool(1, || {
            Counted {
                items: &items,
                reads: &reads,
            }
            .inclusive_scan(|| 0, |a, b| a + b)
            .collect()
        });
        assert_eq!(reads.load(Ordering::Relaxed), items.len());
        assert!(prefix
            .iter()
            .copied()
            .eq((0..100_003u64).map(|i| i * (i + 1) / 2)));
    }

    #[test]
    fn pieces_folded_out_of_order_read_the_blocks_below_them_again() {
        // `rev` folds the top block first, whose start is unknown: the blocks below are read
        // again to compute it, each once (their totals are kept, not read again for every
        // later piece, which would make this quadratic). The reversed leaves are not aligned
        // with the blocks (100_003 is not a multiple of the block, 391): every block but the
        // last (298 items, read once) is cut in two pieces, the first of which reads the whole
        // block once more for its results, kept for the second. The first piece folded, the
        // top one, is cut inside block 254: the totals of blocks 0 to 253 are read for its
        // start, and block 254's is computed beside its results. So 2 reads per item of the
        // first 254 blocks, 1 for the last two blocks.
        let items: Vec<u64> = (0..100_003).collect();
        let reads = AtomicUsize::new(0);
        let reversed: Vec<u64> = in_pool(1, || {
            Counted {
                items: &items,
                reads: &reads,
            }
            .inclusive_scan(|| 0, |a, b| a + b)
            .rev()
            .collect()
        });
        assert_eq!(reads.load(Ordering::Relaxed), 2 * 254 * 391 + 391 + 298);
        assert!(reversed
            .iter()
            .copied()
            .eq((0..100_003u64).rev().map(|i| i * (i + 1) / 2)));
    }

    #[test]
    fn pieces_inside_blocks_take_their_results_from_the_kept_block() {
        // One item per piece: the first piece of each block computes the block's results
        // (reading the block through the duplicate, instead of its own item), the others take
        // theirs from the table. One read per item, as without `with_max_len`.
        let items: Vec<u64> = (0..100_003).collect();
        for inclusive in [true, false] {
            let reads = AtomicUsize::new(0);
            let counted = Counted {
                items: &items,
                reads: &reads,
            };
            let got: Vec<u64> = in_pool(1, || {
                if inclusive {
                    counted
                        .inclusive_scan(|| 0, |a, b| a + b)
                        .with_max_len(1)
                        .collect()
                } else {
                    counted
                        .exclusive_scan(|| 0, |a, b| a + b)
                        .with_max_len(1)
                        .collect()
                }
            });
            assert_eq!(reads.load(Ordering::Relaxed), items.len());
            let upto = |i: u64| {
                if inclusive {
                    i * (i + 1) / 2
                } else {
                    i * i.saturating_sub(1) / 2
                }
            };
            assert!(got.iter().copied().eq((0..100_003u64).map(upto)));
        }
    }
}
