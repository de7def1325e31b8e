//! Producer contract for the tree walks: however the producers are split, the pieces
//! folded left to right give the sequential prefix (or postfix) order.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{PostfixProducer, PrefixProducer, MAX_OPENED_PER_SPLIT};
use crate::iter::plumbing::{Folder, UnindexedProducer};

/// Collects what it is fed.
struct Collect(Vec<u32>);

impl Folder<u32> for Collect {
    type Result = Vec<u32>;

    fn consume(mut self, item: u32) -> Self {
        self.0.push(item);
        self
    }

    fn complete(self) -> Vec<u32> {
        self.0
    }

    fn full(&self) -> bool {
        false
    }
}

/// Children lists of the nodes `0..n` (root 0); node `i` hangs off one of the `reach`
/// nodes made just before it.
fn random_tree(n: usize, reach: usize, rng: &mut SmallRng) -> Vec<Vec<u32>> {
    let mut children = vec![Vec::new(); n];
    for made in 1..n {
        let parent = rng.random_range(made.saturating_sub(reach)..made);
        children[parent].push(made as u32);
    }
    children
}

/// A chain of `handle` nodes whose last node has `fan` leaf children.
fn broom(handle: usize, fan: usize) -> Vec<Vec<u32>> {
    let mut children = vec![Vec::new(); handle + fan];
    for node in 1..handle {
        children[node - 1].push(node as u32);
    }
    children[handle - 1].extend(handle as u32..(handle + fan) as u32);
    children
}

fn prefix_order(children: &[Vec<u32>]) -> Vec<u32> {
    let mut order = Vec::new();
    let mut stack = vec![0];
    while let Some(node) = stack.pop() {
        order.push(node);
        stack.extend(children[node as usize].iter().rev());
    }
    order
}

fn postfix_order(children: &[Vec<u32>]) -> Vec<u32> {
    // Postfix is the reverse of "node, then children last-first" prefix order.
    let mut order = Vec::new();
    let mut stack = vec![0];
    while let Some(node) = stack.pop() {
        order.push(node);
        stack.extend(children[node as usize].iter());
    }
    order.reverse();
    order
}

/// Splits `producer` wherever `rng` says so (always, with `split_odds` 1.0) and folds the
/// pieces left to right into `out`; checks that no split opens more than the limit.
fn split_and_fold<P>(
    producer: P,
    rng: &mut SmallRng,
    split_odds: f64,
    calls: &AtomicUsize,
    out: &mut Vec<u32>,
) where
    P: UnindexedProducer<Item = u32>,
{
    if !rng.random_bool(split_odds) {
        out.extend(producer.fold_with(Collect(Vec::new())).complete());
        return;
    }
    let before = calls.load(Relaxed);
    let (left, right) = producer.split();
    assert!(
        calls.load(Relaxed) - before <= MAX_OPENED_PER_SPLIT,
        "one split opened too many nodes"
    );
    match right {
        // A producer that declines to split is folded, as the driver does.
        None => out.extend(left.fold_with(Collect(Vec::new())).complete()),
        Some(right) => {
            split_and_fold(left, rng, split_odds, calls, out);
            split_and_fold(right, rng, split_odds, calls, out);
        }
    }
}

fn check(name: &str, children: &[Vec<u32>], rng: &mut SmallRng) {
    let calls = AtomicUsize::new(0);
    let children_of = |&node: &u32| {
        calls.fetch_add(1, Relaxed);
        children[node as usize].iter().copied()
    };
    for split_odds in [1.0, 0.7, 0.2] {
        let mut got = Vec::new();
        let producer = PrefixProducer {
            opened: Vec::new(),
            subtrees: vec![0],
            children_of: &children_of,
        };
        split_and_fold(producer, rng, split_odds, &calls, &mut got);
        assert_eq!(
            got,
            prefix_order(children),
            "{name}: prefix, odds {split_odds}"
        );

        let mut got = Vec::new();
        let producer = PostfixProducer {
            subtrees: vec![0],
            opened_rev: Vec::new(),
            children_of: &children_of,
        };
        split_and_fold(producer, rng, split_odds, &calls, &mut got);
        assert_eq!(
            got,
            postfix_order(children),
            "{name}: postfix, odds {split_odds}"
        );
    }
}

#[test]
fn every_way_of_splitting_keeps_the_walk_order() {
    let mut rng = SmallRng::seed_from_u64(0x7761_6c6b);
    for n in [1, 2, 3, 7, 64, 1000] {
        for reach in [1, 3, usize::MAX] {
            let tree = random_tree(n, reach, &mut rng);
            check(&format!("random n={n} reach={reach}"), &tree, &mut rng);
        }
    }
    // Chains longer than one split may open, with and without a fan at the end.
    let limit = MAX_OPENED_PER_SPLIT;
    for (handle, fan) in [
        (1, 500),
        (limit, 3),
        (limit + 1, 3),
        (3 * limit + 5, 0),
        (3 * limit + 5, 40),
    ] {
        let handle = handle.max(1);
        check(
            &format!("broom {handle} + {fan}"),
            &broom(handle, fan),
            &mut rng,
        );
    }
}
