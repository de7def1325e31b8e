//! Real threads on a range of a million indices: every index is handed out exactly once,
//! counted in a bitmap of `AtomicU8` that is read only after the threads are joined.

use core::ops::Range;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use super::{ChunkLimits, Handoff, OwnerCursor, SplitAt, StealRange};

const N: u32 = 1_000_000;
const THIEVES: usize = 3;
/// Each test repeats its run, for more interleavings (a run takes a few milliseconds).
const ROUNDS: usize = 8;
/// A liveness guard only: if an index were lost the workers would never see `N` items done.
const GIVE_UP_AFTER: Duration = Duration::from_secs(20);

fn marks() -> Vec<AtomicU8> {
    (0..N).map(|_| AtomicU8::new(0)).collect()
}

fn mark(marks: &[AtomicU8], indices: Range<u32>) -> usize {
    // ORDERING: Relaxed: the counts are read after `join`, which orders everything.
    for i in indices.clone() {
        marks[i as usize].fetch_add(1, Relaxed);
    }
    indices.len()
}

fn assert_each_marked_once(marks: &[AtomicU8]) {
    let wrong: Vec<_> = (0..N as usize)
        .filter(|&i| marks[i].load(Relaxed) != 1)
        .take(5)
        .map(|i| (i, marks[i].load(Relaxed)))
        .collect();
    assert!(wrong.is_empty(), "(index, times handed out): {wrong:?}");
}

#[test]
fn one_owner_and_three_thieves_hand_out_each_index_once() {
    (0..ROUNDS).for_each(|_| owner_and_thieves_round());
}

fn owner_and_thieves_round() {
    let (range, mut cursor) = StealRange::new(0..N, ChunkLimits::DEFAULT);
    let marks = marks();
    let all_started = Barrier::new(THIEVES + 1);
    std::thread::scope(|s| {
        for _ in 0..THIEVES {
            s.spawn(|| {
                all_started.wait();
                let mut stolen = Vec::new();
                while !range.is_exhausted() {
                    if let Some(indices) = range.steal_half() {
                        mark(&marks, indices.clone());
                        stolen.push(indices);
                    }
                }
                let sorted = stolen.windows(2).all(|w| w[1].end <= w[0].start);
                assert!(sorted, "one thief's steals go down the range: {stolen:?}");
            });
        }
        all_started.wait();
        while let Some(chunk) = range.take_chunk(&mut cursor) {
            mark(&marks, chunk.indices);
        }
    });
    assert_each_marked_once(&marks);
    assert_eq!(range.steal_half(), None);
}

/// A producer that stands for a run of indices and yields them.
#[derive(Debug, PartialEq)]
struct Span(Range<u32>);

impl SplitAt for Span {
    fn split_at(self, index: usize) -> (Self, Self) {
        let mid = self.0.start + index as u32;
        (Span(self.0.start..mid), Span(mid..self.0.end))
    }
}

/// Thieves that become owners: every stolen piece gets a `Handoff` of its own, published so
/// that the other threads can steal from it in turn.
struct Shared {
    handoffs: Mutex<Vec<Arc<Handoff<Span>>>>,
    marks: Vec<AtomicU8>,
    done: AtomicUsize,
    start: Instant,
}

impl Shared {
    fn own(&self, handoff: &Handoff<Span>, mut cursor: OwnerCursor) {
        while let Some((chunk, span)) = handoff.take_chunk(&mut cursor) {
            assert_eq!(span.0, chunk.indices, "the owner's piece matches its chunk");
            let count = mark(&self.marks, span.0);
            self.done.fetch_add(count, Relaxed);
        }
    }

    fn steal_and_own(&self, seed: usize) {
        while self.done.load(Relaxed) < N as usize && self.start.elapsed() < GIVE_UP_AFTER {
            let victims = self.handoffs.lock().unwrap().clone();
            let offset = seed % victims.len().max(1);
            let stolen = victims.iter().cycle().skip(offset).take(victims.len());
            let Some((indices, span)) = stolen.filter_map(|h| h.steal_half()).next() else {
                std::thread::yield_now();
                continue;
            };
            assert_eq!(span.0, indices, "the thief's piece matches its claim");
            let (handoff, cursor) = Handoff::new(indices, span, ChunkLimits::DEFAULT);
            let handoff = Arc::new(handoff);
            self.handoffs.lock().unwrap().push(Arc::clone(&handoff));
            self.own(&handoff, cursor);
            self.handoffs.lock().unwrap().retain(|h| !h.is_exhausted());
        }
    }
}

#[test]
fn thieves_that_become_owners_receive_exactly_their_pieces() {
    (0..ROUNDS).for_each(|_| thieves_become_owners_round());
}

fn thieves_become_owners_round() {
    let (root, cursor) = Handoff::new(0..N, Span(0..N), ChunkLimits::DEFAULT);
    let root = Arc::new(root);
    let shared = Shared {
        handoffs: Mutex::new(vec![Arc::clone(&root)]),
        marks: marks(),
        done: AtomicUsize::new(0),
        start: Instant::now(),
    };
    std::thread::scope(|s| {
        for seed in 0..THIEVES {
            let shared = &shared;
            s.spawn(move || shared.steal_and_own(seed));
        }
        shared.own(&root, cursor);
        shared.steal_and_own(THIEVES);
    });
    assert_each_marked_once(&shared.marks);
}
