//! The on-steal protocol of `drive/README.md` section 2 (with the blocks and `peek_steal`
//! of the driver), written out over `Handoff` with
//! `join` played by scoped threads: `b` (the steal-me job) always runs on a thread of its
//! own, as if an idle worker had stolen it at once. The results are `Vec`s joined by
//! concatenation, a non-commutative reduce, so they come out as `0..n` only if every piece
//! is the upper neighbour of what its victim kept and nothing is lost or repeated.

use core::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

use super::{ChunkLimits, Handoff, OwnerCursor, SplitAt};

/// Item `k` of the piece for `a..b` is `a + k`, so the output must be exactly `0..n`.
#[derive(Debug)]
struct Items(Vec<u32>);

impl SplitAt for Items {
    fn split_at(mut self, index: usize) -> (Self, Self) {
        let upper = self.0.split_off(index);
        (self, Items(upper))
    }
}

struct Protocol {
    limits: ChunkLimits,
    /// One per owner: the first plus one per successful steal (what `init` would count).
    owners: AtomicUsize,
    /// The fewest indices any thief took.
    smallest_steal: AtomicUsize,
    /// Make each owner wait after its first chunk until its steal-me job has tried, so that
    /// steals surely happen (the real driver never waits; other rounds do not either).
    wait_for_thief: bool,
}

impl Protocol {
    /// `join(owner loop, steal me)`: the owner folds chunks in blocks of `BLOCK` items and
    /// looks for a steal between blocks (`peek_steal`) and at each claim; on seeing one it
    /// recurses to post a fresh steal-me job for what is left, carrying the unfolded rest of
    /// its chunk along, as the driver does.
    fn own(
        &self,
        handoff: &Handoff<Items>,
        mut cursor: OwnerCursor,
        mut acc: Vec<u32>,
        mut rest: Vec<u32>,
    ) -> Vec<u32> {
        const BLOCK: usize = 2;
        let tried = AtomicBool::new(false);
        std::thread::scope(|s| {
            let thief = s.spawn(|| {
                let stolen = self.steal_me(handoff);
                // ORDERING: Relaxed: a flag for pacing only; the data comes back by `join`.
                tried.store(true, Relaxed);
                stolen
            });
            let mine = 'owner: loop {
                let mut steal_seen = false;
                if rest.is_empty() {
                    let Some((chunk, piece)) = handoff.take_chunk(&mut cursor) else {
                        break acc;
                    };
                    rest = piece.0;
                    steal_seen = chunk.steal_observed;
                }
                while !rest.is_empty() {
                    let tail = rest.split_off(rest.len().min(BLOCK));
                    acc.append(&mut rest);
                    rest = tail;
                    // ORDERING: Relaxed: see the store above.
                    while self.wait_for_thief && !tried.load(Relaxed) {
                        std::thread::yield_now();
                    }
                    steal_seen |= handoff.peek_steal(&mut cursor);
                    if steal_seen && cursor.worth_stealing() {
                        break 'owner self.own(handoff, cursor, acc, rest);
                    }
                }
            };
            let mut all = mine;
            all.extend(thief.join().unwrap());
            all
        })
    }

    /// The steal-me job: take the upper half of the victim and become its owner.
    fn steal_me(&self, victim: &Handoff<Items>) -> Vec<u32> {
        let Some((indices, piece)) = victim.steal_half() else {
            return Vec::new();
        };
        self.owners.fetch_add(1, Relaxed);
        self.smallest_steal.fetch_min(indices.len(), Relaxed);
        let (handoff, cursor) = Handoff::new(indices, piece, self.limits);
        self.own(&handoff, cursor, Vec::new(), Vec::new())
    }

    /// The indices in the order the owners folded them, how many owners there were, and the
    /// fewest indices one thief took (`usize::MAX` if none stole).
    fn run(
        limits: ChunkLimits,
        indices: Range<u32>,
        wait_for_thief: bool,
    ) -> (Vec<u32>, usize, usize) {
        let protocol = Protocol {
            limits,
            owners: AtomicUsize::new(1),
            smallest_steal: AtomicUsize::new(usize::MAX),
            wait_for_thief,
        };
        let items = Items(indices.clone().collect());
        let (handoff, cursor) = Handoff::new(indices, items, limits);
        let out = protocol.own(&handoff, cursor, Vec::new(), Vec::new());
        let smallest = protocol.smallest_steal.load(Relaxed);
        (out, protocol.owners.load(Relaxed), smallest)
    }
}

#[test]
fn results_come_out_in_index_order_with_eager_thieves() {
    let mut steals = 0;
    for (n, min_len) in [
        (0, 1),
        (1, 1),
        (2, 1),
        (7, 1),
        (100, 4),
        (2000, 40),
        (30_000, 600),
    ] {
        for round in 0..4 {
            let limits = ChunkLimits::new(min_len, usize::MAX);
            let (out, owners, smallest_steal) = Protocol::run(limits, 0..n, round % 2 == 0);
            assert_eq!(
                out,
                (0..n).collect::<Vec<_>>(),
                "n = {n}, min_len = {min_len}"
            );
            // Every owner but the first stole at least `min_len` indices. (Not a bound on the
            // owners from `n`: a thief may take the whole rest of a range, and another thief
            // the whole of that before its new owner claims any, so indices can be stolen
            // more than once.)
            assert!(
                owners == 1 || smallest_steal >= min_len,
                "n = {n}, min_len = {min_len}: a thief took {smallest_steal} indices"
            );
            steals += owners - 1;
        }
    }
    assert!(
        steals > 0,
        "the eager thieves never got anything: the test tests nothing"
    );
}
