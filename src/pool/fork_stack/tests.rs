//! The fork stack's contract, single-threaded and under real threads: every pushed fork is
//! popped back by its owner or taken (stolen or published) exactly once, never both.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::{ForkStack, FORK_CAPACITY};
use crate::pool::isolate::Tag;
use crate::pool::job::{Job, JobRef};

/// A job that is never run: only its address matters (it identifies the fork).
struct Marker;

impl Job for Marker {
    unsafe fn execute(_: *const ()) {
        unreachable!("the fork stack tests never run a fork");
    }
}

/// Distinct `JobRef`s: fork `i` points `i` bytes into `markers` (never dereferenced).
fn forks(markers: &[u8]) -> Vec<JobRef> {
    (0..markers.len())
        // SAFETY: the job is never executed (see `Marker`); the pointer is only compared.
        .map(|i| unsafe { JobRef::new(markers[i..].as_ptr().cast::<Marker>()) })
        .collect()
}

fn admits_all(_: Tag) -> bool {
    true
}

#[test]
fn the_owner_pops_back_what_nobody_took() {
    let stack = ForkStack::new();
    let markers = [0u8; 3];
    let jobs = forks(&markers);
    let indices: Vec<usize> = jobs
        .iter()
        .map(|&job| stack.push(job, Tag::NONE, FORK_CAPACITY).unwrap())
        .collect();
    assert_eq!(indices, [0, 1, 2]);
    assert_eq!(stack.present(), 3);
    for &index in indices.iter().rev() {
        assert!(stack.pop(index));
    }
    assert_eq!(stack.present(), 0);
    assert!(!stack.looks_nonempty());
}

#[test]
fn the_oldest_fork_goes_first_and_its_pop_says_so() {
    let stack = ForkStack::new();
    let markers = [0u8; 3];
    let jobs = forks(&markers);
    let tags = [Tag::NONE, Tag::from_bits(7), Tag::NONE];
    for (&job, &tag) in jobs.iter().zip(&tags) {
        stack.push(job, tag, FORK_CAPACITY).unwrap();
    }
    let taken = stack.take_oldest().unwrap();
    assert_eq!(taken.job, jobs[0]);
    let stolen = stack.steal(admits_all).unwrap();
    assert_eq!(stolen.job, jobs[1]);
    assert_eq!(stolen.tag, Tag::from_bits(7));
    assert!(stack.pop(2), "the newest fork is still there");
    assert!(!stack.pop(1), "fork 1 was stolen");
    assert!(!stack.pop(0), "fork 0 was published");
    // Empty again at depth 0: a new fork there is visible to thieves.
    stack.push(jobs[2], Tag::NONE, FORK_CAPACITY).unwrap();
    assert_eq!(stack.steal(admits_all).unwrap().job, jobs[2]);
    assert!(!stack.pop(0));
}

#[test]
fn a_thief_leaves_a_fork_its_context_does_not_admit() {
    let stack = ForkStack::new();
    let markers = [0u8; 1];
    let jobs = forks(&markers);
    stack
        .push(jobs[0], Tag::from_bits(3), FORK_CAPACITY)
        .unwrap();
    assert!(stack.steal(|tag| tag == Tag::NONE).is_none());
    assert!(stack.pop(0), "the refused fork is still the owner's");
}

#[test]
fn a_push_beyond_the_owners_limit_is_refused_and_records_nothing() {
    let stack = ForkStack::new();
    let markers = [0u8; 3];
    let jobs = forks(&markers);
    assert_eq!(stack.push(jobs[0], Tag::NONE, 0), None);
    assert_eq!(stack.push(jobs[0], Tag::NONE, 2), Some(0));
    assert_eq!(stack.push(jobs[1], Tag::NONE, 2), Some(1));
    assert_eq!(stack.push(jobs[2], Tag::NONE, 2), None);
    let mut published = Vec::new();
    assert_eq!(stack.take_all(|job| published.push(job.job)), 2);
    assert_eq!(published, jobs[..2]);
}

#[test]
fn take_all_publishes_in_order_and_a_full_stack_refuses() {
    let stack = ForkStack::new();
    let markers = vec![0u8; FORK_CAPACITY + 1];
    let jobs = forks(&markers);
    for &job in &jobs[..FORK_CAPACITY] {
        assert!(stack.push(job, Tag::NONE, FORK_CAPACITY).is_some());
    }
    assert!(stack
        .push(jobs[FORK_CAPACITY], Tag::NONE, FORK_CAPACITY)
        .is_none());
    let mut published = Vec::new();
    assert_eq!(stack.take_all(|job| published.push(job.job)), FORK_CAPACITY);
    assert_eq!(published, jobs[..FORK_CAPACITY]);
    for index in (0..FORK_CAPACITY).rev() {
        assert!(!stack.pop(index));
    }
}

/// An owner that pushes and pops like a recursion of `join`s while thieves steal: each fork
/// ends up exactly once with the owner or with one thief.
#[test]
fn forks_go_exactly_once_under_concurrent_thieves() {
    const ROUNDS: usize = 5_000;
    let stack = Arc::new(ForkStack::new());
    let markers = vec![0u8; 8];
    let jobs = forks(&markers);
    let stolen = Arc::new(Mutex::new(Vec::new()));
    let done = Arc::new(AtomicBool::new(false));
    let steals = Arc::new(AtomicUsize::new(0));
    let thieves: Vec<_> = (0..2)
        .map(|_| {
            let (stack, stolen, done, steals) = (
                Arc::clone(&stack),
                Arc::clone(&stolen),
                Arc::clone(&done),
                Arc::clone(&steals),
            );
            std::thread::spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    if let Some(job) = stack.steal(admits_all) {
                        stolen.lock().unwrap().push(job.job.into_parts().0 as usize);
                        steals.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    for round in 0..ROUNDS {
        let depth = 1 + round % jobs.len();
        let indices: Vec<usize> = jobs[..depth]
            .iter()
            .map(|&job| stack.push(job, Tag::NONE, FORK_CAPACITY).unwrap())
            .collect();
        // Like `a` between push and pop: long enough, some rounds, for a thief to get there.
        for _ in 0..(round % 5) * 2_000 {
            std::hint::spin_loop();
        }
        let mut kept = HashSet::new();
        let mut gone = Vec::new();
        for (&index, &job) in indices.iter().zip(&jobs).rev() {
            let fork = job.into_parts().0 as usize;
            if stack.pop(index) {
                kept.insert(fork);
            } else {
                gone.push(fork);
            }
        }
        // A fork that is gone was claimed by a thief, which records it right after: wait
        // for that (as `join` waits for its thief's latch), then check the round.
        let this_round: Vec<usize> = loop {
            let mut stolen = stolen.lock().unwrap();
            if gone.iter().all(|fork| stolen.contains(fork)) {
                break stolen.drain(..).collect();
            }
            drop(stolen);
            std::thread::yield_now();
        };
        assert_eq!(
            this_round.len(),
            gone.len(),
            "round {round}: a fork was taken twice"
        );
        for fork in &this_round {
            assert!(kept.insert(*fork), "round {round}: a fork ran twice");
        }
        assert_eq!(kept.len(), depth, "round {round}: a fork was lost");
    }
    done.store(true, Ordering::Relaxed);
    for thief in thieves {
        thief.join().unwrap();
    }
    // Reported, not asserted (how often thieves win depends on the schedule).
    eprintln!(
        "{} of the forks were stolen",
        steals.load(Ordering::Relaxed)
    );
}
