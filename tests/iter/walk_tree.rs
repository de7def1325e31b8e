//! Oracle tests for `iter::{walk_tree_prefix, walk_tree_postfix, walk_tree}` (issue #3):
//! seeded random trees, chains and fans, compared with sequential prefix and postfix walks
//! written here, in pools of 1, 2, 3 and 8 threads; plus panic safety with drop counters.

use crate::common;

use common::par;
use common::par::prelude::*;
use common::{in_pools, rng};
use par::iter::{walk_tree, walk_tree_postfix, walk_tree_prefix};
use rand::Rng;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The children of one node, as every walk in these tests gets them.
type Children<'t> = std::iter::Copied<std::slice::Iter<'t, u32>>;

/// A tree over the nodes `0..children.len()`, rooted at `root`.
struct Tree {
    root: u32,
    children: Vec<Vec<u32>>,
}

impl Tree {
    fn len(&self) -> usize {
        self.children.len()
    }

    /// The closure every walk gets: the children of `node`, in their stored order.
    fn children_of<'t>(&'t self) -> impl Fn(&u32) -> Children<'t> + Clone + Send + Sync + 't {
        |&node| self.children[node as usize].iter().copied()
    }

    /// Each node is attached to a random one of the `reach` nodes made just before it
    /// (`reach = usize::MAX`: any earlier node), child lists are shuffled and the labels are
    /// a random permutation, so the walk orders have no relation to the label order.
    fn random(n: usize, reach: usize, seed: u64) -> Tree {
        let mut rng = rng(seed ^ ((n as u64) << 8) ^ reach as u64);
        let mut labels: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            labels.swap(i, rng.random_range(0..=i));
        }
        let mut children = vec![Vec::new(); n];
        for made in 1..n {
            let parent = rng.random_range(made.saturating_sub(reach)..made);
            children[labels[parent] as usize].push(labels[made]);
        }
        for list in &mut children {
            for i in (1..list.len()).rev() {
                list.swap(i, rng.random_range(0..=i));
            }
        }
        Tree {
            root: labels[0],
            children,
        }
    }

    /// `handle` nodes in a chain, the last of which has `fan` leaf children.
    fn broom(handle: usize, fan: usize) -> Tree {
        let n = handle + fan;
        let mut children = vec![Vec::new(); n];
        for node in 1..handle {
            children[node - 1].push(node as u32);
        }
        children[handle - 1].extend(handle as u32..n as u32);
        Tree { root: 0, children }
    }

    /// Prefix order, with an explicit stack (children pushed last-first).
    fn prefix_order(&self) -> Vec<u32> {
        let mut order = Vec::with_capacity(self.len());
        let mut stack = vec![self.root];
        while let Some(node) = stack.pop() {
            order.push(node);
            stack.extend(self.children[node as usize].iter().rev());
        }
        order
    }

    /// Postfix order, with a stack of (node, index of its next unvisited child).
    fn postfix_order(&self) -> Vec<u32> {
        let mut order = Vec::with_capacity(self.len());
        let mut stack = vec![(self.root, 0)];
        while let Some((node, next)) = stack.last_mut() {
            let kids = &self.children[*node as usize];
            if *next < kids.len() {
                let child = kids[*next];
                *next += 1;
                stack.push((child, 0));
            } else {
                order.push(*node);
                stack.pop();
            }
        }
        order
    }
}

/// The trees every oracle test walks.
fn trees(seed: u64) -> Vec<(String, Tree)> {
    let mut trees = Vec::new();
    for n in [1, 2, 7, 1000, 100_003] {
        trees.push((format!("random n={n}"), Tree::random(n, usize::MAX, seed)));
    }
    for n in [7, 1000, 20_000] {
        // Each node hangs off one of the last 3: depth about n / 2, many short side branches.
        trees.push((format!("deep random n={n}"), Tree::random(n, 3, seed)));
    }
    trees.push(("chain 100_000".into(), Tree::random(100_000, 1, seed)));
    trees.push(("fan 100_000".into(), Tree::broom(1, 99_999)));
    trees.push(("broom 5000 + 10_000".into(), Tree::broom(5000, 10_000)));
    trees
}

fn each_tree(seed: u64, check: impl Fn(&str, &Tree) + Sync) {
    let trees = trees(seed);
    in_pools(|threads| {
        for (name, tree) in &trees {
            check(&format!("{name}, {threads} threads"), tree);
        }
    });
}

#[test]
fn prefix_collect_matches_sequential_prefix_order() {
    each_tree(1, |what, tree| {
        let got: Vec<u32> = walk_tree_prefix(tree.root, tree.children_of()).collect();
        assert_eq!(got, tree.prefix_order(), "{what}");
    });
}

#[test]
fn postfix_collect_matches_sequential_postfix_order() {
    each_tree(2, |what, tree| {
        let got: Vec<u32> = walk_tree_postfix(tree.root, tree.children_of()).collect();
        assert_eq!(got, tree.postfix_order(), "{what}");
    });
}

#[test]
fn walk_tree_visits_in_prefix_order() {
    each_tree(3, |what, tree| {
        let got: Vec<u32> = walk_tree(tree.root, tree.children_of()).collect();
        assert_eq!(got, tree.prefix_order(), "{what}");
    });
}

#[test]
fn sum_and_count_see_every_node_once() {
    each_tree(4, |what, tree| {
        let n = tree.len();
        // The labels are a permutation of 0..n.
        let expected_sum = (n as u64 * (n as u64 - 1)) / 2;
        let prefix = walk_tree_prefix(tree.root, tree.children_of());
        assert_eq!(prefix.clone().count(), n, "{what}");
        assert_eq!(prefix.map(u64::from).sum::<u64>(), expected_sum, "{what}");
        let postfix = walk_tree_postfix(tree.root, tree.children_of());
        assert_eq!(postfix.clone().count(), n, "{what}");
        assert_eq!(postfix.map(u64::from).sum::<u64>(), expected_sum, "{what}");
        let any = walk_tree(tree.root, tree.children_of());
        assert_eq!(any.map(u64::from).sum::<u64>(), expected_sum, "{what}");
    });
}

#[test]
fn find_first_returns_the_first_match_in_walk_order() {
    each_tree(5, |what, tree| {
        let prefix = tree.prefix_order();
        let postfix = tree.postfix_order();
        // Several predicates: a common one, a rare one and one that never matches.
        for modulus in [3, 997, u32::MAX] {
            let wanted = |x: &u32| x % modulus == 1;
            let got = walk_tree_prefix(tree.root, tree.children_of()).find_first(wanted);
            assert_eq!(
                got,
                prefix.iter().copied().find(wanted),
                "{what}, prefix %{modulus}"
            );
            let got = walk_tree_postfix(tree.root, tree.children_of()).find_first(wanted);
            assert_eq!(
                got,
                postfix.iter().copied().find(wanted),
                "{what}, postfix %{modulus}"
            );
        }
    });
}

/// Node `n` of an endless binary tree has children `2n + 1` and `2n + 2`; the leftmost path
/// is `2^k - 1`. `children_of` panics after `budget` calls, so a walk that fails to stop
/// fails the test instead of eating the machine's memory.
fn endless_binary_tree(
    budget: usize,
    calls: &AtomicUsize,
) -> par::iter::WalkTreePrefix<u64, impl Fn(&u64) -> [u64; 2] + Send + Sync + '_> {
    walk_tree_prefix(0u64, move |&n| {
        assert!(
            calls.fetch_add(1, Relaxed) < budget,
            "the walk did not stop"
        );
        [2 * n + 1, 2 * n + 2]
    })
}

#[test]
fn find_any_stops_on_an_endless_tree() {
    in_pools(|threads| {
        let calls = AtomicUsize::new(0);
        let target = (1u64 << 20) - 1;
        let found = endless_binary_tree(10_000_000, &calls).find_any(|&n| n == target);
        assert_eq!(found, Some(target), "{threads} threads");
    });
}

#[test]
fn find_first_stops_on_an_endless_chain() {
    in_pools(|threads| {
        let calls = AtomicUsize::new(0);
        let chain = walk_tree_prefix(0u64, |&n| {
            assert!(
                calls.fetch_add(1, Relaxed) < 10_000_000,
                "the walk did not stop"
            );
            std::iter::once(n + 1)
        });
        // Every split takes a bounded piece of the chain and hands on the rest.
        assert_eq!(
            chain.find_first(|&n| n == 50_000),
            Some(50_000),
            "{threads} threads"
        );
    });
}

#[test]
fn find_first_stops_on_an_endless_tree() {
    in_pools(|threads| {
        let calls = AtomicUsize::new(0);
        let target = (1u64 << 20) - 1;
        let found = endless_binary_tree(10_000_000, &calls).find_first(|&n| n == target);
        assert_eq!(found, Some(target), "{threads} threads");
    });
}

#[test]
fn adapters_and_clone_keep_the_order() {
    let tree = Tree::random(5000, usize::MAX, 6);
    let prefix = tree.prefix_order();
    in_pools(|threads| {
        let walk = walk_tree_prefix(tree.root, tree.children_of());
        let doubled: Vec<u64> = walk.clone().map(|x| 2 * u64::from(x)).collect();
        let expected: Vec<u64> = prefix.iter().map(|&x| 2 * u64::from(x)).collect();
        assert_eq!(doubled, expected, "{threads} threads");
        let evens: Vec<u32> = walk.filter(|x| x % 2 == 0).collect();
        let expected: Vec<u32> = prefix.iter().copied().filter(|x| x % 2 == 0).collect();
        assert_eq!(evens, expected, "{threads} threads");
    });
}

#[test]
fn debug_shows_the_root_and_rayon_doc_examples_hold() {
    let walk = walk_tree_prefix(4u32, |&e| {
        if e <= 2 {
            vec![]
        } else {
            vec![e / 2, e / 2 + 1]
        }
    });
    assert_eq!(format!("{walk:?}"), "WalkTreePrefix { root: 4, .. }");
    assert_eq!(walk.sum::<u32>(), 12);
    let walk = walk_tree_postfix(4u32, |&e| {
        if e <= 2 {
            vec![]
        } else {
            vec![e / 2, e / 2 + 1]
        }
    });
    assert_eq!(format!("{walk:?}"), "WalkTreePostfix { root: 4, .. }");
    assert_eq!(walk.collect::<Vec<_>>(), [2, 1, 2, 3, 4]);
    let walk = walk_tree(4u32, |&e| {
        if e <= 2 {
            vec![]
        } else {
            vec![e / 2, e / 2 + 1]
        }
    });
    assert_eq!(format!("{walk:?}"), "WalkTree { root: 4, .. }");
    assert_eq!(walk.collect::<Vec<_>>(), [4, 2, 3, 1, 2]);
}

/// Per-node counts of values created and dropped.
struct Ledger {
    created: Vec<AtomicUsize>,
    dropped: Vec<AtomicUsize>,
}

impl Ledger {
    fn new(n: usize) -> Ledger {
        Ledger {
            created: (0..n).map(|_| AtomicUsize::new(0)).collect(),
            dropped: (0..n).map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    fn make(&self, id: u32) -> Tracked<'_> {
        self.created[id as usize].fetch_add(1, Relaxed);
        Tracked { id, ledger: self }
    }

    fn assert_balanced(&self, what: &str) -> usize {
        let mut made = 0;
        for (id, (created, dropped)) in self.created.iter().zip(&self.dropped).enumerate() {
            let (created, dropped) = (created.load(Relaxed), dropped.load(Relaxed));
            assert!(created <= 1, "{what}: node {id} created {created} times");
            assert_eq!(
                created, dropped,
                "{what}: node {id} created {created}, dropped {dropped}"
            );
            made += created;
        }
        made
    }
}

/// A node value that reports its drop to the ledger.
struct Tracked<'l> {
    id: u32,
    ledger: &'l Ledger,
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.ledger.dropped[self.id as usize].fetch_add(1, Relaxed);
    }
}

const BOOM: &str = "children_of failed on purpose";

#[test]
fn panic_in_children_of_reaches_the_caller_and_drops_each_node_once() {
    let default_hook = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if info.payload().downcast_ref::<&str>() != Some(&BOOM) {
            default_hook(info);
        }
    }));
    for (name, tree) in [
        ("random", Tree::random(20_000, usize::MAX, 7)),
        ("deep random", Tree::random(20_000, 3, 7)),
        ("fan", Tree::broom(1, 20_000)),
    ] {
        let prefix = tree.prefix_order();
        // Panic at the root, early, in the middle and at the last node of the walk.
        let points = [0, 1, prefix.len() / 2, prefix.len() - 1].map(|i| prefix[i]);
        in_pools(|threads| {
            for at in points {
                for postfix in [false, true] {
                    let what = format!("{name}, {threads} threads, postfix {postfix}, at {at}");
                    let ledger = Ledger::new(tree.len());
                    let children_of = |node: &Tracked<'_>| {
                        if node.id == at {
                            panic!("{}", BOOM);
                        }
                        let kids = &tree.children[node.id as usize];
                        kids.iter().map(|&id| ledger.make(id)).collect::<Vec<_>>()
                    };
                    let root = ledger.make(tree.root);
                    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
                        if postfix {
                            let kept: Vec<Tracked<'_>> =
                                walk_tree_postfix(root, children_of).collect();
                            kept.len()
                        } else {
                            let seen = AtomicUsize::new(0);
                            walk_tree_prefix(root, children_of).for_each(|node| {
                                seen.fetch_add(node.id as usize % 2, Relaxed);
                            });
                            seen.into_inner()
                        }
                    }));
                    let payload = outcome.expect_err(&format!("{what}: no panic"));
                    let text = payload.downcast_ref::<String>().map(String::as_str);
                    assert_eq!(text, Some(BOOM), "{what}: payload changed");
                    let made = ledger.assert_balanced(&what);
                    assert!(made >= 1, "{what}: no node made");
                }
            }
        });
    }
    // The pools still work after the panics.
    in_pools(|threads| {
        let tree = Tree::random(1000, usize::MAX, 8);
        let got: Vec<u32> = walk_tree_prefix(tree.root, tree.children_of()).collect();
        assert_eq!(got, tree.prefix_order(), "{threads} threads, after panics");
    });
}
