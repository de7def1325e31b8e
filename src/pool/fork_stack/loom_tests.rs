//! Models of the fork stack (both fences are `fence(SeqCst)` under loom: `fence.rs`). The
//! owner pushes forks and pops them back as nested `join`s would; thieves steal; every fork
//! must end with exactly one of them.

use std::collections::HashSet;

use super::{ForkStack, FORK_CAPACITY};
use crate::pool::isolate::Tag;
use crate::pool::job::{Job, JobRef};
use crate::sync::{thread, Arc};

struct Marker;

impl Job for Marker {
    unsafe fn execute(_: *const ()) {
        unreachable!("the models never run a fork");
    }
}

fn fork(markers: &'static [u8; 4], i: usize) -> JobRef {
    // SAFETY: never executed; the pointer only identifies the fork.
    unsafe { JobRef::new(markers[i..].as_ptr().cast::<Marker>()) }
}

static MARKERS: [u8; 4] = [0; 4];

/// The owner pushes `depth` forks and pops them in reverse; `thieves` threads steal once
/// each. Every fork ends with exactly one side.
fn model(depth: usize, thieves: usize) {
    loom::model(move || {
        let stack = Arc::new(ForkStack::new());
        let handles: Vec<_> = (0..thieves)
            .map(|_| {
                let stack = Arc::clone(&stack);
                thread::spawn(move || stack.steal(|_| true).map(|job| job.job))
            })
            .collect();
        let indices: Vec<usize> = (0..depth)
            .map(|i| {
                stack
                    .push(fork(&MARKERS, i), Tag::NONE, FORK_CAPACITY)
                    .unwrap()
            })
            .collect();
        let mut kept = Vec::new();
        for (i, &index) in indices.iter().enumerate().rev() {
            if stack.pop(index) {
                kept.push(fork(&MARKERS, i));
            }
        }
        let stolen: Vec<JobRef> = handles
            .into_iter()
            .filter_map(|handle| handle.join().unwrap())
            .collect();
        let mut all = HashSet::new();
        for job in kept.iter().chain(&stolen) {
            assert!(all.insert(job.into_parts().0 as usize), "a fork went twice");
        }
        assert_eq!(all.len(), depth, "a fork was lost");
    });
}

#[test]
fn loom_one_fork_one_thief() {
    model(1, 1);
}

#[test]
fn loom_two_forks_one_thief() {
    model(2, 1);
}

#[test]
fn loom_two_forks_two_thieves() {
    model(2, 2);
}

/// After a steal the owner's next push must be visible to thieves again (the pop that found
/// its fork gone moved `top` back).
#[test]
fn loom_a_push_after_a_steal_is_stealable() {
    loom::model(|| {
        let stack = Arc::new(ForkStack::new());
        let first = stack
            .push(fork(&MARKERS, 0), Tag::NONE, FORK_CAPACITY)
            .unwrap();
        let thief = {
            let stack = Arc::clone(&stack);
            thread::spawn(move || stack.steal(|_| true).is_some())
        };
        let popped = stack.pop(first);
        let stole = thief.join().unwrap();
        assert!(popped != stole, "exactly one side has the first fork");
        let second = stack
            .push(fork(&MARKERS, 1), Tag::NONE, FORK_CAPACITY)
            .unwrap();
        let taken = stack.steal(|_| true).map(|job| job.job);
        assert_eq!(taken, Some(fork(&MARKERS, 1)));
        assert!(!stack.pop(second));
    });
}
