//! `par_inclusive_scan_mut`: a slice replaced by the running results of `op`, in place.
//!
//! The blocks are those of the iterator scans (the leaves of `deterministic()`'s fixed tree
//! for this length), and each result is defined by one order of `op` calls, so the result is
//! the same on every pool:
//!
//! ```text
//! total[k]   = fold of block k's items, from its first        -- left to right
//! start[1]   = total[0],  start[k + 1] = op(start[k], total[k])
//! out[i]     = x[0] ⊕ ... ⊕ x[i]                   -- i in block 0
//! out[i]     = start[k] ⊕ x[first of k] ⊕ ... ⊕ x[i]   -- i in block k > 0
//! ```
//!
//! In place, a block's items are gone once it is scanned, so a worker cannot read another's
//! block again the way the iterator scans do. On one thread: one pass, block after block,
//! each block's total computed beside its results. On more: the classic two passes, the
//! totals of every block but the last (in parallel, reading), their starts (in order, one
//! `op` per block), then every block scanned from its start (in parallel, reading and
//! writing).

use crate::drive::leaf_len;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use crate::slice::{ParallelSlice, ParallelSliceMut};

pub(super) fn inclusive_scan_mut<T, OP>(slice: &mut [T], op: &OP)
where
    T: Clone + Send + Sync,
    OP: Fn(T, T) -> T + Sync,
{
    let len = slice.len();
    let block = leaf_len(len, None, 1, usize::MAX);
    let blocks = len.div_ceil(block);
    if blocks <= 1 || crate::current_num_threads() == 1 {
        crate::pool::on_a_worker(|| scan_in_one_pass(slice, block, op));
        return;
    }
    let totals: Vec<T> = slice[..(blocks - 1) * block]
        .par_chunks(block)
        .map(|items| fold_block(items, op))
        .collect();
    let mut starts: Vec<Option<T>> = Vec::with_capacity(blocks);
    starts.push(None);
    for total in totals {
        let next = match starts.last().cloned().flatten() {
            None => total,
            Some(start) => op(start, total),
        };
        starts.push(Some(next));
    }
    slice
        .par_chunks_mut(block)
        .zip(starts.into_par_iter())
        .for_each(|(items, start)| scan_block(items, start, op));
}

/// One thread: every block scanned from its start, its total computed alongside (but for
/// the last block's, which nothing needs).
fn scan_in_one_pass<T: Clone, OP: Fn(T, T) -> T>(slice: &mut [T], block: usize, op: &OP) {
    let mut start: Option<T> = None;
    let mut blocks = slice.chunks_mut(block).peekable();
    while let Some(items) = blocks.next() {
        if blocks.peek().is_none() {
            scan_block(items, start, op);
            return;
        }
        let total = scan_block_with_total(items, start.clone(), op);
        start = Some(match start {
            None => total,
            Some(start) => op(start, total),
        });
    }
}

/// The fold of `items` (not empty) from the first one, left to right.
fn fold_block<T: Clone, OP: Fn(T, T) -> T>(items: &[T], op: &OP) -> T {
    let (first, rest) = items.split_first().expect("blocks are not empty");
    rest.iter()
        .fold(first.clone(), |total, item| op(total, item.clone()))
}

/// Replaces `items` by their running results from `start` (from the first item if `None`).
fn scan_block<T: Clone, OP: Fn(T, T) -> T>(items: &mut [T], start: Option<T>, op: &OP) {
    let Some((first, rest)) = items.split_first_mut() else {
        return;
    };
    let mut running = match start {
        None => first.clone(),
        Some(start) => {
            *first = op(start, first.clone());
            first.clone()
        }
    };
    for slot in rest {
        running = op(running, slot.clone());
        *slot = running.clone();
    }
}

/// [`scan_block`], also returning [`fold_block`] of the items as they were.
fn scan_block_with_total<T: Clone, OP: Fn(T, T) -> T>(
    items: &mut [T],
    start: Option<T>,
    op: &OP,
) -> T {
    let (first, rest) = items.split_first_mut().expect("blocks are not empty");
    let mut total = first.clone();
    let mut running = match start {
        None => first.clone(),
        Some(start) => {
            *first = op(start, first.clone());
            first.clone()
        }
    };
    for slot in rest {
        let item = slot.clone();
        total = op(total, item.clone());
        running = op(running, item);
        *slot = running.clone();
    }
    total
}
