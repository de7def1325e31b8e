//! Tree walks: `walk_tree_prefix`, `walk_tree_postfix` and `walk_tree`.
//!
//! The tree is implicit: a root and a `children_of` closure. A producer holds an ordered
//! list of whole subtrees plus the nodes `split` has already opened up (their children are in
//! that list). Splitting hands the later half of the subtrees to the new producer; a
//! producer with a single subtree opens it first, so the split goes as deep as it must to
//! find siblings. Folding is depth-first with an explicit stack of child iterators, so a
//! deep tree (a long chain) needs heap, not call stack.

use std::fmt;

use crate::iter::plumbing::*;
use crate::iter::ParallelIterator;

/// How many nodes one `split` may open while it finds only a single child each time (a
/// chain). Past this it hands off the opened nodes and the chain's rest separately, so every
/// split is bounded work, even on an endless chain.
const MAX_OPENED_PER_SPLIT: usize = 1024;

#[cfg(all(test, not(loom)))]
#[path = "walk_tree/tests.rs"]
mod tests;

/// The nodes of the tree under `root`, in prefix order: each node before its children,
/// children in the order `children_of` yields them.
///
/// ```text
///       a
///      / \
///     b   e        prefix order: a, b, c, d, e, f
///    / \   \
///   c   d   f
/// ```
///
/// ```
/// use weft::iter::walk_tree_prefix;
/// use weft::prelude::*;
///
/// // Node `n` has children `2n + 1` and `2n + 2` below 7: a perfect binary tree of 7 nodes.
/// let order: Vec<u32> = walk_tree_prefix(0u32, |&n| (2 * n + 1..=2 * n + 2).filter(|&c| c < 7))
///     .collect();
/// assert_eq!(order, [0, 1, 3, 4, 2, 5, 6]);
/// ```
pub fn walk_tree_prefix<S, B, I>(root: S, children_of: B) -> WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
    I::IntoIter: DoubleEndedIterator,
{
    WalkTreePrefix { root, children_of }
}

/// The iterator returned by [`walk_tree_prefix`]; `Clone` when the root and the closure are.
///
/// ```
/// use weft::iter::walk_tree_prefix;
/// use weft::prelude::*;
///
/// // A directory-like tree given as (name, children) pairs.
/// let tree = [("/", vec![1, 2]), ("usr", vec![3]), ("etc", vec![]), ("lib", vec![])];
/// let walk = walk_tree_prefix(0, |&i: &usize| tree[i].1.clone());
/// let names: Vec<&str> = walk.clone().map(|i| tree[i].0).collect();
/// assert_eq!(names, ["/", "usr", "lib", "etc"]);
/// assert_eq!(walk.count(), 4);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct WalkTreePrefix<S, B> {
    root: S,
    children_of: B,
}

impl<S: fmt::Debug, B> fmt::Debug for WalkTreePrefix<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalkTreePrefix")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl<S, B, I> ParallelIterator for WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
        let producer = PrefixProducer {
            opened: Vec::new(),
            subtrees: vec![self.root],
            children_of: &self.children_of,
        };
        bridge_unindexed(producer, consumer)
    }
}

/// The nodes of the tree under `root`, in postfix order: each node after its children,
/// children in the order `children_of` yields them.
///
/// ```text
///       a
///      / \
///     b   e        postfix order: c, d, b, f, e, a
///    / \   \
///   c   d   f
/// ```
///
/// ```
/// use weft::iter::walk_tree_postfix;
/// use weft::prelude::*;
///
/// // Node `n` has children `2n + 1` and `2n + 2` below 7: a perfect binary tree of 7 nodes.
/// let order: Vec<u32> = walk_tree_postfix(0u32, |&n| (2 * n + 1..=2 * n + 2).filter(|&c| c < 7))
///     .collect();
/// assert_eq!(order, [3, 4, 1, 5, 6, 2, 0]);
/// ```
pub fn walk_tree_postfix<S, B, I>(root: S, children_of: B) -> WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
    I::IntoIter: DoubleEndedIterator,
{
    WalkTreePostfix { root, children_of }
}

/// The iterator returned by [`walk_tree_postfix`]; `Clone` when the root and the closure are.
///
/// ```
/// use weft::iter::walk_tree_postfix;
/// use weft::prelude::*;
///
/// // Children before parents: the order in which a directory tree can be deleted.
/// let tree = [("/", vec![1, 2]), ("usr", vec![3]), ("etc", vec![]), ("lib", vec![])];
/// let walk = walk_tree_postfix(0, |&i: &usize| tree[i].1.clone());
/// let names: Vec<&str> = walk.map(|i| tree[i].0).collect();
/// assert_eq!(names, ["lib", "usr", "etc", "/"]);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct WalkTreePostfix<S, B> {
    root: S,
    children_of: B,
}

impl<S: fmt::Debug, B> fmt::Debug for WalkTreePostfix<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalkTreePostfix")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl<S, B, I> ParallelIterator for WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
        let producer = PostfixProducer {
            subtrees: vec![self.root],
            opened_rev: Vec::new(),
            children_of: &self.children_of,
        };
        bridge_unindexed(producer, consumer)
    }
}

/// The nodes of the tree under `root`, in an order left to the implementation (Rayon
/// promises none); weft visits them in prefix order, as [`walk_tree_prefix`] does.
///
/// ```
/// use weft::iter::walk_tree;
/// use weft::prelude::*;
///
/// // The sizes of the pieces a 100-byte buffer is halved into, down to 10 bytes or less.
/// let pieces = walk_tree(100u32, |&len| if len > 10 { vec![len / 2, len - len / 2] } else { vec![] });
/// let leaves: u32 = pieces.filter(|&len| len <= 10).sum();
/// assert_eq!(leaves, 100);
/// ```
pub fn walk_tree<S, B, I>(root: S, children_of: B) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
    I::IntoIter: DoubleEndedIterator,
{
    WalkTree {
        prefix: walk_tree_prefix(root, children_of),
    }
}

/// The iterator returned by [`walk_tree`]; `Clone` when the root and the closure are.
///
/// ```
/// use weft::iter::walk_tree;
/// use weft::prelude::*;
///
/// // The number of nodes of a perfect binary tree of depth 10.
/// let walk = walk_tree(0u32, |&depth| if depth < 10 { vec![depth + 1; 2] } else { vec![] });
/// assert_eq!(walk.count(), (1 << 11) - 1);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct WalkTree<S, B> {
    prefix: WalkTreePrefix<S, B>,
}

impl<S: fmt::Debug, B> fmt::Debug for WalkTree<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalkTree")
            .field("root", &self.prefix.root)
            .finish_non_exhaustive()
    }
}

impl<S, B, I> ParallelIterator for WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
        self.prefix.drive_unindexed(consumer)
    }
}

/// While `subtrees` is a single subtree (nothing to split between), replaces it by its root's
/// children and pushes the root onto `opened`, at most [`MAX_OPENED_PER_SPLIT`] times.
fn open_chain<S, B, I>(subtrees: &mut Vec<S>, opened: &mut Vec<S>, children_of: &B)
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
{
    for _ in 0..MAX_OPENED_PER_SPLIT {
        if subtrees.len() != 1 {
            break;
        }
        let node = subtrees.pop().expect("one subtree");
        subtrees.extend(children_of(&node));
        opened.push(node);
    }
}

/// A contiguous run of the prefix order: the `opened` nodes, then every node of each of
/// `subtrees`, in order. The children of each opened node are at the front of `subtrees`
/// (or were handed to a producer to the right by an earlier split).
struct PrefixProducer<'b, S, B> {
    opened: Vec<S>,
    subtrees: Vec<S>,
    children_of: &'b B,
}

impl<S, B, I> UnindexedProducer for PrefixProducer<'_, S, B>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn split(mut self) -> (Self, Option<Self>) {
        let children_of = self.children_of;
        // A prefix node comes before its children: opened nodes join the end of `opened`.
        open_chain(&mut self.subtrees, &mut self.opened, children_of);
        let later = match self.subtrees.len() {
            0 => return (self, None),
            // Still a chain: the opened nodes go left, the rest of the chain right.
            1 => std::mem::take(&mut self.subtrees),
            len => self.subtrees.split_off(len / 2),
        };
        let right = PrefixProducer {
            opened: Vec::new(),
            subtrees: later,
            children_of,
        };
        (self, Some(right))
    }

    fn fold_with<F: Folder<S>>(self, mut folder: F) -> F {
        folder = folder.consume_iter(self.opened);
        for root in self.subtrees {
            if folder.full() {
                break;
            }
            folder = fold_prefix(root, self.children_of, folder);
        }
        folder
    }
}

/// Feeds the subtree under `root` to `folder` in prefix order, depth-first with a stack of
/// the unvisited children of the nodes on the current path.
fn fold_prefix<S, B, I, F>(root: S, children_of: &B, mut folder: F) -> F
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
    F: Folder<S>,
{
    let mut path: Vec<I::IntoIter> = Vec::new();
    let mut next = Some(root);
    while let Some(node) = next {
        path.push(children_of(&node).into_iter());
        folder = folder.consume(node);
        if folder.full() {
            break;
        }
        // The next node is the first unvisited child of the deepest node that has one.
        next = None;
        while let Some(children) = path.last_mut() {
            next = children.next();
            if next.is_some() {
                break;
            }
            path.pop();
        }
    }
    folder
}

/// A contiguous run of the postfix order: every node of each of `subtrees`, in order, then
/// the nodes `split` has opened, last-opened first (so `opened_rev` is in reverse order).
struct PostfixProducer<'b, S, B> {
    subtrees: Vec<S>,
    opened_rev: Vec<S>,
    children_of: &'b B,
}

impl<S, B, I> UnindexedProducer for PostfixProducer<'_, S, B>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn split(mut self) -> (Self, Option<Self>) {
        let children_of = self.children_of;
        // A postfix node comes after its children and before the nodes opened earlier (its
        // ancestors): opened nodes are pushed on `opened_rev`, which is read backwards.
        open_chain(&mut self.subtrees, &mut self.opened_rev, children_of);
        let (earlier, later) = match self.subtrees.len() {
            0 => return (self, None),
            // Still a chain: the rest of the chain goes left, the opened nodes right.
            1 => (std::mem::take(&mut self.subtrees), Vec::new()),
            len => {
                let later = self.subtrees.split_off(len / 2);
                (std::mem::take(&mut self.subtrees), later)
            }
        };
        let left = PostfixProducer {
            subtrees: earlier,
            opened_rev: Vec::new(),
            children_of,
        };
        self.subtrees = later;
        (left, Some(self))
    }

    fn fold_with<F: Folder<S>>(self, mut folder: F) -> F {
        for root in self.subtrees {
            if folder.full() {
                return folder;
            }
            folder = fold_postfix(root, self.children_of, folder);
        }
        if folder.full() {
            return folder;
        }
        folder.consume_iter(self.opened_rev.into_iter().rev())
    }
}

/// Feeds the subtree under `root` to `folder` in postfix order, depth-first with a stack
/// holding each node of the current path with its unvisited children.
fn fold_postfix<S, B, I, F>(root: S, children_of: &B, mut folder: F) -> F
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
    F: Folder<S>,
{
    let children = children_of(&root).into_iter();
    let mut path: Vec<(S, I::IntoIter)> = vec![(root, children)];
    while let Some((_, children)) = path.last_mut() {
        if folder.full() {
            break;
        }
        match children.next() {
            Some(child) => {
                let grandchildren = children_of(&child).into_iter();
                path.push((child, grandchildren));
            }
            None => {
                let (node, _) = path.pop().expect("path is not empty");
                folder = folder.consume(node);
            }
        }
    }
    folder
}
