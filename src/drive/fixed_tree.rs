//! The fixed-tree driver: a split tree that depends on the length alone, for deterministic
//! chains (`IndexedParallelIterator::deterministic`, through [`drive_with_grain`]) and for
//! producers that ask for it ([`SplitTree::Fixed`]: the scans).
//!
//! The `len` items are cut into leaves of `leaf` items (the last may be shorter), counted from
//! the first item; a node of `b >= 2` leaves gives its first `b - b / 2` leaves to the left
//! child and the rest to the right one, down to single leaves. Each leaf is folded, in index
//! order, into a folder of its own; results are reduced in that same tree, left before
//! right. None of this depends on the pool: which worker folds which leaf is left to `join`
//! (the right child is the `b` of a `join`, stolen by an idle worker), so stealing still
//! balances the work, but a reduction sees the same operands in the same order on any pool,
//! and a float sum comes out bitwise the same.
//!
//! Nested loops inherit the request: while a leaf is folded, every indexed loop that starts
//! on this thread (a `par_iter().sum()` inside a closure, `flat_map`'s inner iterators) also
//! takes a fixed tree, with the default leaf for its own length ([`inherited_leaf`]). So does
//! every loop started while a deterministic chain builds its producer ([`AskedMark`]).

use std::cell::Cell;
use std::num::NonZeroUsize;

use super::context::InlineLimit;
use super::fold_chunk;
use super::indexed::{start, Work};
use super::steal_range::SplitAt;
use crate::plumbing::{Consumer, Folder, Producer, Reducer, SplitTree};
use crate::pool::{current_num_threads, join_context_erased, on_a_worker};

/// Leaves of the default tree hold at most this many items. At about 1 ns per item (a float
/// sum is a dependent chain of adds), a leaf's own cost (a `join`, a producer and a consumer
/// split, a folder, a reduce: a few hundred instructions) stays near 1% of its fold.
pub(crate) const MAX_DEFAULT_LEAF: usize = 4096;

/// Inputs of up to `MIN_DEFAULT_LEAVES * MAX_DEFAULT_LEAF` items are cut into about this many
/// leaves, so that the fixed tree still balances over many workers (four leaves each for 64)
/// when items are slow, and a short input of costly items is not one leaf.
pub(crate) const MIN_DEFAULT_LEAVES: usize = 256;

/// The default leaf length for `len` items: `len / MIN_DEFAULT_LEAVES` rounded up, at least
/// 1 and at most [`MAX_DEFAULT_LEAF`].
pub(crate) fn default_leaf(len: usize) -> usize {
    len.div_ceil(MIN_DEFAULT_LEAVES).clamp(1, MAX_DEFAULT_LEAF)
}

/// The leaf length of the fixed tree for `len` items: `grain` (the default for `len` if
/// `None`), raised to `min_len` and then capped at `max_len` (`with_min_len` /
/// `with_max_len` in the chain shape the tree too; they are part of the chain, not of the
/// pool).
pub(crate) fn leaf_len(
    len: usize,
    grain: Option<NonZeroUsize>,
    min_len: usize,
    max_len: usize,
) -> usize {
    let grain = grain.map_or_else(|| default_leaf(len), NonZeroUsize::get);
    Ord::max(Ord::min(Ord::max(grain, min_len), max_len), 1)
}

/// The leaf length if `producer` asks to be driven in a fixed tree itself (its chain holds a
/// scan); `None` otherwise. A constant for most producer types.
#[inline]
pub(super) fn asked_by<P: Producer>(len: usize, producer: &P) -> Option<usize> {
    match producer.split_tree() {
        SplitTree::Fixed(grain) => {
            Some(leaf_len(len, grain, producer.min_len(), producer.max_len()))
        }
        SplitTree::Adaptive => None,
    }
}

/// The leaf length if a loop started now on this thread must take a fixed tree ([`Mark`]):
/// the default for its length inside a leaf, the asked grain while a deterministic chain
/// builds its producer; `None` otherwise. Asked only by loops that are not folded inline:
/// both marks set the worker's inline limit to 0, so that no such loop is folded whole where
/// the tree would cut it.
#[inline]
pub(super) fn inherited_leaf(len: usize, min_len: usize, max_len: usize) -> Option<usize> {
    let grain = match MARK.with(Cell::get) {
        Mark::None => return None,
        Mark::Leaf => None,
        Mark::Asked(grain) => grain,
    };
    Some(leaf_len(len, grain, min_len, max_len))
}

/// What a loop started on this thread now is part of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    /// Nothing fixed: the loop splits where thieves take work.
    None,
    /// The fold of a fixed tree's leaf ([`LeafMark`]): a loop nested in it takes a fixed
    /// tree with the default leaf for its own length.
    Leaf,
    /// A deterministic chain building its producer ([`AskedMark`]): a loop that one of its
    /// adapters drives meanwhile (a scan collecting a base it cannot read twice) takes a
    /// fixed tree with the chain's grain (`None`: the default for its length).
    Asked(Option<NonZeroUsize>),
}

thread_local! {
    /// This thread's [`Mark`], set by [`LeafMark`] and [`AskedMark`], and back to `None`
    /// while a fixed tree is walked between its leaves ([`drive`]).
    static MARK: Cell<Mark> = const { Cell::new(Mark::None) };
}

/// True if this thread is folding a leaf of a fixed tree or building a deterministic chain:
/// whatever starts now belongs to a fixed tree and must not depend on the pool.
///
/// A worker waiting inside such a leaf (for a stolen half of a nested loop) may run an
/// unrelated job meanwhile; that job's nested loops then take fixed trees as well. That is
/// harmless: a fixed tree is a correct way to drive any loop, only balanced differently.
#[inline]
pub(crate) fn in_fixed_tree() -> bool {
    MARK.with(Cell::get) != Mark::None
}

/// Sets this thread's [`Mark`] until dropped (also on unwinding), then restores what was
/// there (marks nest: leaves whose items run loops of their own, chains inside leaves).
struct MarkGuard {
    outer: Mark,
}

impl MarkGuard {
    fn set(mark: Mark) -> Self {
        MarkGuard {
            outer: MARK.with(|cell| cell.replace(mark)),
        }
    }
}

impl Drop for MarkGuard {
    fn drop(&mut self) {
        MARK.with(|cell| cell.set(self.outer));
    }
}

/// Marks this thread as folding a fixed-tree leaf until dropped. On a worker it also allows
/// no inline loops meanwhile (`pool::InlineLimit` of 0), so that every loop nested in the
/// leaf reaches [`inherited_leaf`] and is cut as the tree says.
struct LeafMark {
    _mark: MarkGuard,
    _no_inline: InlineLimit,
}

impl LeafMark {
    fn enter() -> Self {
        LeafMark {
            _mark: MarkGuard::set(Mark::Leaf),
            _no_inline: InlineLimit::set(0),
        }
    }
}

/// Marks this thread, until dropped, as building the producer of a deterministic chain with
/// leaves of `grain` items (`None`: the default for the length): every indexed loop started
/// meanwhile on this thread takes a fixed tree with that grain (`drive_indexed` reads the
/// mark on its shared path), and none is folded inline (`pool::InlineLimit` of 0). Every
/// producer-side adapter builds its producer, and calls the callback that drives it, inside
/// its base's `with_producer`, on this thread: so the mark reaches them all, and any loop
/// one of them drives itself meanwhile (a scan collecting a base it cannot read twice),
/// without any adapter passing it on.
pub(crate) struct AskedMark {
    _mark: MarkGuard,
    _no_inline: InlineLimit,
}

impl AskedMark {
    pub(crate) fn enter(grain: Option<NonZeroUsize>) -> Self {
        AskedMark {
            _mark: MarkGuard::set(Mark::Asked(grain)),
            _no_inline: InlineLimit::set(0),
        }
    }
}

/// Runs `consumer` over the `len` items of `producer` in the fixed tree with leaves of
/// `grain` items (`None`: the default for `len`), bounded by the producer's `min_len` and
/// `max_len`: how a deterministic chain is driven.
pub(crate) fn drive_with_grain<P, C>(
    len: usize,
    grain: Option<NonZeroUsize>,
    producer: P,
    consumer: C,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let leaf = leaf_len(len, grain, producer.min_len(), producer.max_len());
    drive(Work::new(producer, consumer, len), leaf, false)
}

/// Runs `work` in the fixed tree with leaves of `leaf` items (`leaf >= 1`). With `drive_leaves`, each leaf is driven as a loop of its own
/// instead of folded in order (a loop too long for one range, cut in pieces that fit).
pub(super) fn drive<P, C>(work: Work<P, C>, leaf: usize, drive_leaves: bool) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let len = work.len;
    let mut root = Node::<P, C> {
        work: Some(work),
        result: None,
    };
    walk_root(&mut root, len, leaf, drive_leaves);
    root.result.expect("the walk completed the root")
}

/// The walk from the root, compiled once for every loop type.
#[inline(never)]
fn walk_root(root: &mut dyn Walk, len: usize, leaf: usize, drive_leaves: bool) {
    // Between leaves nothing belongs to a leaf: a job this worker runs while it waits for a
    // stolen right child is not part of this tree, and an asked grain was for this tree.
    let _between_leaves = MarkGuard::set(Mark::None);
    if len <= leaf || current_num_threads() == 1 {
        // One leaf, or nobody to share the leaves with: the same tree, walked in order here
        // (on a worker, as every driver runs closures: thread names, `current_thread_index`).
        on_a_worker(|| walk(root, len, leaf, drive_leaves));
    } else {
        walk(root, len, leaf, drive_leaves);
    }
}

/// A node of the tree, seen through one type: the walk (and its `join`s) is compiled once,
/// and each loop type compiles only its [`Node`]'s three methods (and `take_work`).
///
/// Each method first completes the node with no items if its consumer wants no more, and
/// then does nothing else.
trait Walk: Send {
    /// Folds this node's items, in order, into a folder of its own (a leaf).
    fn fold_leaf(&mut self);
    /// Drives this node's items as a loop of its own (a leaf of `drive_leaves`).
    fn drive_leaf(&mut self);
    /// Cuts this node's items after the first `mid` into two children, hands both to
    /// `walk_both`, then reduces their results, left before right, into this node's.
    fn split(&mut self, mid: usize, walk_both: &mut dyn FnMut(&mut dyn Walk, &mut dyn Walk));
}

/// A node's producer and consumer (cut as the indexed driver cuts them) until it is
/// walked, then its result.
struct Node<P, C>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    work: Option<Work<P, C>>,
    result: Option<C::Result>,
}

impl<P, C> Node<P, C>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    /// The node's work, unless its consumer wants no more items: the node is then complete.
    /// Out of line: the three node methods share one copy.
    #[inline(never)]
    fn take_work(&mut self) -> Option<Work<P, C>> {
        let work = self.work.take().expect("a node is walked once");
        if work.consumer.full() {
            self.result = Some(work.consumer.into_folder().complete());
            return None;
        }
        Some(work)
    }
}

impl<P, C> Walk for Node<P, C>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    fn fold_leaf(&mut self) {
        if let Some(work) = self.take_work() {
            let _mark = LeafMark::enter();
            let folder = fold_chunk(work.producer, work.len, work.consumer.into_folder());
            self.result = Some(folder.complete());
        }
    }

    fn drive_leaf(&mut self) {
        if let Some(work) = self.take_work() {
            self.result = Some(start((work.len, work.producer, work.consumer)));
        }
    }

    fn split(&mut self, mid: usize, walk_both: &mut dyn FnMut(&mut dyn Walk, &mut dyn Walk)) {
        let Some(work) = self.take_work() else {
            return;
        };
        let (lower, mut upper) = work.split_at(mid);
        let reducer = upper.below.take().expect("an upper piece has a reducer");
        let mut left = Node::<P, C> {
            work: Some(lower),
            result: None,
        };
        let mut right = Node::<P, C> {
            work: Some(upper),
            result: None,
        };
        walk_both(&mut left, &mut right);
        let done = "the walk completed both children";
        self.result = Some(reducer.reduce(left.result.expect(done), right.result.expect(done)));
    }
}

/// Where a node of `len > leaf` items is cut: after the first `b - b / 2` of its `b` leaves.
#[inline]
fn split_point(len: usize, leaf: usize) -> usize {
    let leaves = len.div_ceil(leaf);
    (leaves - leaves / 2) * leaf
}

/// The tree below a node: each right child is the `b` of a `join`, which idle workers may
/// steal.
fn walk(node: &mut dyn Walk, len: usize, leaf: usize, drive_leaves: bool) {
    if len <= leaf {
        if drive_leaves {
            node.drive_leaf();
        } else {
            node.fold_leaf();
        }
        return;
    }
    let mid = split_point(len, leaf);
    node.split(mid, &mut |left, right| {
        join_context_erased(
            |_| walk(left, mid, leaf, drive_leaves),
            |_| {
                // A driver's piece: skipped in a cancelled region (`pool::join` runs both
                // closures only for user code's joins).
                crate::pool::stop_if_cancelled();
                walk(right, len - mid, leaf, drive_leaves)
            },
        );
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The leaves of the tree for `len` items, in order, as (start, len), by the same cuts
    /// as the driver.
    fn leaves(len: usize, leaf: usize) -> Vec<(usize, usize)> {
        fn walk(start: usize, len: usize, leaf: usize, out: &mut Vec<(usize, usize)>) {
            if len <= leaf {
                out.push((start, len));
                return;
            }
            let mid = split_point(len, leaf);
            walk(start, mid, leaf, out);
            walk(start + mid, len - mid, leaf, out);
        }
        let mut out = Vec::new();
        walk(0, len, leaf, &mut out);
        out
    }

    #[test]
    fn leaves_are_whole_and_aligned() {
        for leaf in [1, 2, 3, 7, 64] {
            for len in 1..300 {
                let got = leaves(len, leaf);
                let expected: Vec<(usize, usize)> = (0..len)
                    .step_by(leaf)
                    .map(|start| (start, Ord::min(leaf, len - start)))
                    .collect();
                assert_eq!(got, expected, "len {len}, leaf {leaf}");
            }
        }
    }

    #[test]
    fn left_child_takes_the_larger_half_of_the_leaves() {
        assert_eq!(split_point(10, 1), 5);
        assert_eq!(split_point(11, 1), 6);
        assert_eq!(split_point(3 * 64 + 1, 64), 2 * 64);
        assert_eq!(split_point(129, 64), 128);
    }

    #[test]
    fn default_leaf_follows_the_length_only() {
        assert_eq!(default_leaf(0), 1);
        assert_eq!(default_leaf(100), 1);
        assert_eq!(default_leaf(1000), 4);
        assert_eq!(default_leaf(1_000_000), 3907);
        assert_eq!(default_leaf(10_000_000), MAX_DEFAULT_LEAF);
    }

    #[test]
    fn chain_lengths_bound_the_leaf() {
        let grain = NonZeroUsize::new(100);
        assert_eq!(leaf_len(10_000, grain, 1, usize::MAX), 100);
        assert_eq!(leaf_len(10_000, grain, 250, usize::MAX), 250);
        assert_eq!(leaf_len(10_000, grain, 1, 30), 30);
        assert_eq!(leaf_len(10_000, None, 1, usize::MAX), 40);
    }

    #[test]
    fn leaf_mark_nests_and_survives_a_panic() {
        assert!(!in_fixed_tree());
        {
            let _outer = LeafMark::enter();
            assert!(in_fixed_tree());
            {
                let _inner = LeafMark::enter();
                assert!(in_fixed_tree());
            }
            assert!(in_fixed_tree());
        }
        assert!(!in_fixed_tree());
        let caught = std::panic::catch_unwind(|| {
            let _mark = LeafMark::enter();
            panic!("in a leaf");
        });
        assert!(caught.is_err());
        assert!(!in_fixed_tree());
    }

    /// A producer of `len` items, for the leaf computations.
    struct Units(usize);

    impl Producer for Units {
        type Item = usize;
        type IntoIter = std::ops::Range<usize>;

        fn into_iter(self) -> Self::IntoIter {
            0..self.0
        }

        fn split_at(self, index: usize) -> (Self, Self) {
            (Units(index), Units(self.0 - index))
        }
    }

    #[test]
    fn marks_give_the_leaf_of_a_loop_started_under_them() {
        let units = Units(10_000);
        assert_eq!(
            inherited_leaf(10_000, units.min_len(), units.max_len()),
            None
        );
        {
            let _asked = AskedMark::enter(NonZeroUsize::new(7));
            assert_eq!(
                inherited_leaf(10_000, units.min_len(), units.max_len()),
                Some(7)
            );
            {
                // A leaf inside: nested loops take the default for their own length.
                let _leaf = LeafMark::enter();
                assert_eq!(
                    inherited_leaf(10_000, units.min_len(), units.max_len()),
                    Some(40)
                );
            }
            assert_eq!(
                inherited_leaf(10_000, units.min_len(), units.max_len()),
                Some(7)
            );
        }
        assert_eq!(
            inherited_leaf(10_000, units.min_len(), units.max_len()),
            None
        );
        {
            let _asked = AskedMark::enter(None);
            assert_eq!(
                inherited_leaf(1000, units.min_len(), units.max_len()),
                Some(4)
            );
            // Between the leaves of a tree walked under it, nothing is marked.
            let _between = MarkGuard::set(Mark::None);
            assert!(!in_fixed_tree());
        }
    }
}
