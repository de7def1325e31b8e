//! `inclusive_scan` and `exclusive_scan`: the running results of an associative `op`, as an
//! indexed parallel iterator.
//!
//! The items are cut into *blocks*: the leaves of the fixed tree of `deterministic()` for
//! this length, and the scan's producer asks the driver for that same tree
//! (`SplitTree::Fixed`), so that every piece it folds is a run of whole blocks. The results
//! are defined block by block, by one formula whoever computes them:
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
//!   both, but for the one where they meet.
//!
//! On one thread the tree is walked in order and every start is known when its block is
//! reached: one pass over the input, with one more `op` per item than a sequential scan
//! (the totals). On two, the thief of the upper half reads part of the lower half once more
//! (it reads at about twice the rate the owner reads and writes, so they meet about a third
//! of the way down; measured over a whole scan of 5·10^7 items: 1.4 reads per item), where
//! the classic reduce-then-scan reads every item twice. A base that
//! cannot be read twice (it owns its items, or is a `map` whose closure would run twice) is
//! collected into a buffer first and scanned from there.
//!
//! The formula fixes the order of every `op`, so the results are the same on every pool, for
//! floats too (the same bits), as after `deterministic()`.

use std::collections::VecDeque;
use std::fmt;
use std::num::NonZeroUsize;
use std::ops::Range;
use std::sync::OnceLock;

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

/// The block totals and block starts of one scan, each computed once by whoever needs it
/// first and then shared by every piece (see the module doc for the formula).
struct Prefixes<'f, T, ID, OP> {
    len: usize,
    /// Items per block (the last block may be shorter).
    block: usize,
    identity: &'f ID,
    op: &'f OP,
    /// `totals[k]`: `identity()` and then every item of block `k`, folded with `op`.
    totals: Box<[OnceLock<T>]>,
    /// `starts[k]`: what block `k`'s outputs start from; `starts[0]` is `identity()`.
    starts: Box<[OnceLock<T>]>,
}

impl<'f, T, ID, OP> Prefixes<'f, T, ID, OP>
where
    T: Clone,
    ID: Fn() -> T,
    OP: Fn(T, T) -> T,
{
    fn new(len: usize, block: usize, identity: &'f ID, op: &'f OP) -> Self {
        let blocks = len.div_ceil(block);
        let starts: Box<[OnceLock<T>]> = (0..blocks).map(|_| OnceLock::new()).collect();
        if let Some(first) = starts.first() {
            let _ = first.set(identity());
        }
        Prefixes {
            len,
            block,
            identity,
            op,
            totals: (0..blocks).map(|_| OnceLock::new()).collect(),
            starts,
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

    /// `starts[k]`, computing what is missing: the totals of the blocks from the highest
    /// one below `k` down to the first one whose start is known (read through `whole`,
    /// unless their own piece published them meanwhile), then the starts back up.
    fn start_of<P: Producer<Item = T>>(&self, k: usize, whole: &P) -> T {
        if let Some(start) = self.starts[k].get() {
            return start.clone();
        }
        let mut known = k;
        while self.starts[known].get().is_none() {
            known -= 1; // `starts[0]` is set, so this stops at 0
            if self.totals[known].get().is_none() {
                let total = self
                    .read(whole, self.block_range(known))
                    .fold((self.identity)(), self.op);
                let _ = self.totals[known].set(total);
            }
        }
        let mut start = self.starts[known].get().cloned();
        for j in known..k {
            let below = start.take().expect("the start below is known");
            let total = self.totals[j].get().expect("every total below k is known");
            if self.starts[j + 1].get().is_none() {
                let _ = self.starts[j + 1].set((self.op)(below, total.clone()));
            }
            start = self.starts[j + 1].get().cloned();
        }
        start.expect("the start of block k is known")
    }

    /// The scan of `items`, the items from `pos` of the block that holds `pos` (up to that
    /// block's end if `to_block_end`): it starts from the block's start folded with the
    /// block's items before `pos` (read again through `whole` if `pos` is inside the block),
    /// and computes the block's total alongside if it reaches the block's end and the total
    /// is still unknown (not for the last block: nothing needs its total).
    fn block_scan<P, I, const INCLUSIVE: bool>(
        &self,
        pos: usize,
        to_block_end: bool,
        whole: &P,
        items: I,
    ) -> BlockScan<'_, 'f, I, T, ID, OP, INCLUSIVE>
    where
        P: Producer<Item = T>,
    {
        let op = self.op;
        let block = self.block_of(pos);
        let first = self.block_range(block).start;
        let needs_total =
            to_block_end && block + 1 < self.totals.len() && self.totals[block].get().is_none();
        let mut running = self.start_of(block, whole);
        let mut total = needs_total.then(|| (self.identity)());
        if pos > first {
            for item in self.read(whole, first..pos) {
                if let Some(sum) = total.take() {
                    total = Some(op(sum, item.clone()));
                }
                running = op(running, item);
            }
        }
        BlockScan {
            items,
            running: Some(running),
            total,
            table: self,
            block,
        }
    }
}

/// The scan's results over `items`, part of one block: each from `running` and the items
/// up to it; `total`, while the block's total is wanted, the fold of the block's items from
/// `identity()`, published in the table once `items` run out. `running` is `None` only in
/// the middle of a step.
struct BlockScan<'t, 'f, I, T, ID, OP, const INCLUSIVE: bool> {
    items: I,
    running: Option<T>,
    total: Option<T>,
    table: &'t Prefixes<'f, T, ID, OP>,
    block: usize,
}

impl<I, T, ID, OP, const INCLUSIVE: bool> BlockScan<'_, '_, I, T, ID, OP, INCLUSIVE>
where
    I: Iterator<Item = T>,
    T: Clone,
    OP: Fn(T, T) -> T,
{
    /// Publishes the block's total, computed over all of the block.
    fn publish(&self, total: T) {
        let _ = self.table.totals[self.block].set(total);
    }
}

impl<I, T, ID, OP, const INCLUSIVE: bool> Iterator for BlockScan<'_, '_, I, T, ID, OP, INCLUSIVE>
where
    I: Iterator<Item = T>,
    T: Clone,
    OP: Fn(T, T) -> T,
{
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let op = self.table.op;
        let Some(item) = self.items.next() else {
            if let Some(total) = self.total.take() {
                self.publish(total);
            }
            return None;
        };
        if let Some(total) = self.total.take() {
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

    /// The hot loop (a collect's, a sum's): the running value and the total live in locals,
    /// so a step is one or two calls of `op` and one clone, with no `Option` to test.
    /// Inlined into the folder's loop, whose own state (a collect's next slot) then stays
    /// in registers: measured, out of line it was stored back at every item.
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
                let _ = table.totals[block].set(total);
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

impl<I, T, ID, OP, const INCLUSIVE: bool> BlockScan<'_, '_, I, T, ID, OP, INCLUSIVE>
where
    T: Clone,
    OP: Fn(T, T) -> T,
{
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

impl<I, T, ID, OP, const INCLUSIVE: bool> ExactSizeIterator
    for BlockScan<'_, '_, I, T, ID, OP, INCLUSIVE>
where
    I: ExactSizeIterator<Item = T>,
    T: Clone,
    OP: Fn(T, T) -> T,
{
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
            folder = folder.consume_iter(segment);
            if folder.full() {
                break;
            }
        }
        folder
    }
}

/// The sequential iterator of a scan's piece: block by block, each block's part a
/// [`BlockScan`]. `next_back` first computes every result left (a scan has no way back) and
/// keeps them.
struct ScanIter<'t, P: Producer, T, ID, OP, const INCLUSIVE: bool> {
    /// The items from `pos` on, not yet in a segment.
    rest: Option<P>,
    /// The part of the current block being read.
    segment: Option<BlockScan<'t, 't, P::IntoIter, T, ID, OP, INCLUSIVE>>,
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
    fn open_segment(&mut self) -> Option<BlockScan<'t, 't, P::IntoIter, T, ID, OP, INCLUSIVE>> {
        if self.pos == self.end {
            return None;
        }
        let table = self.table;
        let block_end = table.block_range(table.block_of(self.pos)).end;
        let segment_end = Ord::min(block_end, self.end);
        let rest = self.rest.take().expect("items remain before the end");
        let (items, tail) = rest.split_at(segment_end - self.pos);
        let segment = table.block_scan(
            self.pos,
            segment_end == block_end,
            &self.whole,
            items.into_iter(),
        );
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
                let in_segment = self.segment.as_ref().map_or(0, |s| s.items.len());
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
        // with the blocks (100_003 is not a multiple of the block, 391), so every piece also
        // reads again the part of its first block below it: about 3 reads per item in all.
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
        let reads = reads.load(Ordering::Relaxed);
        assert!(
            reads > items.len() && reads <= 3 * items.len(),
            "{reads} reads"
        );
        assert!(reversed
            .iter()
            .copied()
            .eq((0..100_003u64).rev().map(|i| i * (i + 1) / 2)));
    }
}
