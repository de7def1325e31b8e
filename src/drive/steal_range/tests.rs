//! Sequential contract of `StealRange` and `Handoff`, and a std-threads stress test.

use core::ops::Range;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{pack, unpack, Chunk, ChunkLimits, Handoff, OwnerCursor, SplitAt, StealRange};

/// A test producer that owns its items: item `k` of the piece for `a..b` is `10 * (a + k)`.
#[derive(Debug)]
struct Items(Vec<u64>);

impl Items {
    fn for_indices(indices: Range<u32>) -> Items {
        Items(indices.map(|i| 10 * u64::from(i)).collect())
    }
}

impl SplitAt for Items {
    fn split_at(mut self, index: usize) -> (Self, Self) {
        let upper = self.0.split_off(index);
        (self, Items(upper))
    }
}

fn lens(chunks: &[Chunk]) -> Vec<u32> {
    chunks.iter().map(|c| c.indices.len() as u32).collect()
}

fn drain(range: &StealRange, cursor: &mut super::OwnerCursor) -> Vec<Chunk> {
    std::iter::from_fn(|| range.take_chunk(cursor)).collect()
}

#[test]
fn pack_puts_low_in_the_low_half_and_unpack_inverts_it() {
    assert_eq!(pack(1, 2), 1 | (2 << 32));
    assert_eq!(pack(u32::MAX, 0), 0x0000_0000_FFFF_FFFF);
    assert_eq!(pack(0, u32::MAX), 0xFFFF_FFFF_0000_0000);
    let edges = [0, 1, 7, 1 << 31, u32::MAX - 1, u32::MAX];
    for low in edges {
        for high in edges {
            assert_eq!(unpack(pack(low, high)), (low, high));
        }
    }
}

#[test]
fn chunk_limits_clamp_zero_and_crossed_bounds() {
    assert_eq!(ChunkLimits::new(0, 0), ChunkLimits::new(1, 1));
    assert_eq!(ChunkLimits::new(8, 3), ChunkLimits::new(8, 8));
    assert_eq!(ChunkLimits::new(1, usize::MAX), ChunkLimits::DEFAULT);
}

#[test]
fn owner_alone_doubles_its_chunks_until_an_eighth_of_the_rest() {
    let n = 1 << 20;
    let (range, mut cursor) = StealRange::new(0..n, ChunkLimits::DEFAULT);
    let chunks = drain(&range, &mut cursor);
    let lens = lens(&chunks);
    let powers: Vec<u32> = (0..17).map(|k| 1 << k).collect();
    assert_eq!(lens[..17], powers[..]);
    // After 2^17 - 1 indices, an eighth of the rest (1048576 - 131071) / 8 caps the doubling.
    assert_eq!(lens[17], 114_688);
    assert!(chunks.iter().all(|c| !c.steal_observed));
    let mut next = 0;
    for chunk in &chunks {
        assert_eq!(
            chunk.indices.start, next,
            "chunks are contiguous from the low end"
        );
        next = chunk.indices.end;
    }
    assert_eq!(next, n);
    assert!(range.is_exhausted());
}

#[test]
fn unshared_claims_are_the_shared_claims_without_the_atomic() {
    // The driver claims the first chunk of every range unshared, and a tiny range's owner
    // may claim several (`owner::own_private`) before sharing the rest.
    for (n, limits) in [
        (1, ChunkLimits::DEFAULT),
        (3, ChunkLimits::DEFAULT),
        (8, ChunkLimits::DEFAULT),
        (1000, ChunkLimits::DEFAULT),
        (1000, ChunkLimits::new(7, 40)),
        (5, ChunkLimits::new(8, 8)),
        (24, ChunkLimits::new(3, u32::MAX as usize)),
    ] {
        let (range, mut cursor) = StealRange::new(0..n, limits);
        let shared = drain(&range, &mut cursor);
        for unshared_claims in 1..=8 {
            let mut cursor = OwnerCursor::new(0..n, limits);
            let mut unshared = Vec::new();
            while unshared.len() < unshared_claims {
                let Some(indices) = cursor.claim_unshared() else {
                    break;
                };
                unshared.push(Chunk {
                    indices,
                    steal_observed: false,
                });
            }
            let range = StealRange::unclaimed_by(&cursor);
            let claimed = unshared.last().map_or(0, |chunk| chunk.indices.end);
            assert_eq!(cursor.remaining(), n - claimed, "n={n}");
            unshared.extend(drain(&range, &mut cursor));
            let what = format!("n={n} {limits:?}, {unshared_claims} unshared");
            assert_eq!(unshared, shared, "{what}");
            assert!(range.is_exhausted(), "{what}");
        }
    }
    // A thief sees only what the first claim left: the upper half of 2..100.
    let mut cursor = OwnerCursor::new(0..100, ChunkLimits::new(2, 100));
    assert_eq!(cursor.claim_unshared(), Some(0..2));
    let range = StealRange::unclaimed_by(&cursor);
    assert_eq!(range.steal_half(), Some(51..100));
    assert!(OwnerCursor::new(5..5, ChunkLimits::DEFAULT)
        .claim_unshared()
        .is_none());
}

#[test]
fn owner_pays_a_logarithmic_number_of_claims() {
    let (range, mut cursor) = StealRange::new(0..100_000_000, ChunkLimits::DEFAULT);
    let claims = drain(&range, &mut cursor).len();
    // ~27 doublings, then ln(10^8 / 8) / ln(8 / 7) ≈ 122 eighths, then a tail of 1s under 16.
    assert!((100..200).contains(&claims), "{claims} claims");
}

#[test]
fn claims_double_from_min_len_while_nobody_steals() {
    let (range, mut cursor) = StealRange::new(0..1_000_000, ChunkLimits::new(4, 1 << 20));
    let lens: Vec<u32> = (0..5)
        .map(|_| {
            let chunk = range.take_chunk(&mut cursor).expect("plenty left");
            chunk.indices.end - chunk.indices.start
        })
        .collect();
    assert_eq!(lens, [4, 8, 16, 32, 64]);
}

#[test]
fn a_claim_floor_raises_claims_and_a_lower_one_leaves_them() {
    let (range, mut cursor) = StealRange::new(0..1_000_000, ChunkLimits::DEFAULT);
    let next_len = |cursor: &mut super::OwnerCursor| {
        let chunk = range.take_chunk(cursor).expect("plenty left");
        chunk.indices.end - chunk.indices.start
    };
    assert_eq!(next_len(&mut cursor), 1, "no floor yet: min_len");
    cursor.set_claim_floor(10);
    assert_eq!(
        next_len(&mut cursor),
        10,
        "the floor is above the doubling's 2"
    );
    cursor.set_claim_floor(1000);
    assert_eq!(next_len(&mut cursor), 1000);
    // A floor of everything: the claim is whatever is left.
    cursor.set_claim_floor(u32::MAX);
    assert_eq!(next_len(&mut cursor), 1_000_000 - 1011);
    assert!(range.take_chunk(&mut cursor).is_none());

    // A floor below the doubling changes nothing, and `max_len` still caps.
    let (range, mut cursor) = StealRange::new(0..1_000_000, ChunkLimits::new(1, 300));
    cursor.set_claim_floor(1);
    let mut lens = Vec::new();
    for _ in 0..4 {
        lens.push(
            range
                .take_chunk(&mut cursor)
                .expect("plenty left")
                .indices
                .len(),
        );
    }
    assert_eq!(lens, [1, 2, 4, 8]);
    cursor.set_claim_floor(u32::MAX);
    assert_eq!(
        range
            .take_chunk(&mut cursor)
            .expect("plenty left")
            .indices
            .len(),
        300
    );
}

#[test]
fn a_peek_reports_each_steal_once_and_restarts_the_chunks_like_a_claim() {
    let (range, mut cursor) = StealRange::new(0..1000, ChunkLimits::DEFAULT);
    let first = range.take_chunk(&mut cursor).expect("plenty left");
    assert_eq!(first.indices, 0..1);
    range.take_chunk(&mut cursor).expect("plenty left"); // 1..3; next would be 4 long
    assert!(!range.peek_steal(&mut cursor), "nobody stole yet");
    let stolen = range.steal_half().expect("plenty left");
    assert_eq!(
        stolen,
        501..1000,
        "997 left: the thief takes 499, rounded up"
    );
    assert!(range.peek_steal(&mut cursor), "the steal is seen");
    assert!(!range.peek_steal(&mut cursor), "and reported only once");
    assert_eq!(cursor.remaining(), 498);
    // The next claim does not report the steal again, starts from min_len, and the owner
    // never claims past what the thief left.
    let next = range.take_chunk(&mut cursor).expect("plenty left");
    assert_eq!((next.indices.clone(), next.steal_observed), (3..4, false));
    let mut claimed = vec![next.indices];
    while let Some(chunk) = range.take_chunk(&mut cursor) {
        assert!(!chunk.steal_observed);
        claimed.push(chunk.indices);
    }
    assert_eq!(claimed.first().unwrap().start, 3);
    assert_eq!(claimed.last().unwrap().end, 501);
    assert!(claimed.windows(2).all(|w| w[0].end == w[1].start));
}

#[test]
fn min_and_max_len_bound_every_chunk() {
    for n in [1000u32, 1001, 1009, 1011] {
        let (range, mut cursor) = StealRange::new(5..5 + n, ChunkLimits::new(10, 40));
        let lens = lens(&drain(&range, &mut cursor));
        assert_eq!(lens.iter().sum::<u32>(), n);
        assert!(lens.iter().all(|&len| (10..=40).contains(&len)), "{lens:?}");
        assert!(lens.contains(&40), "the doubling reaches max_len: {lens:?}");
    }
}

#[test]
fn the_minimum_wins_over_a_smaller_maximum() {
    // As in Rayon: no chunk under `min_len` (unless the range is), none over
    // `2 * min_len - 1` when `max_len` is below that.
    for (n, min, max) in [(1000u32, 30, 10), (1000, 30, 30), (999, 7, 1), (20, 30, 5)] {
        let (range, mut cursor) = StealRange::new(0..n, ChunkLimits::new(min, max));
        let lens = lens(&drain(&range, &mut cursor));
        assert_eq!(lens.iter().sum::<u32>(), n);
        let (lo, hi) = (min.min(n as usize) as u32, (2 * min - 1).max(max) as u32);
        assert!(
            lens.iter().all(|&len| (lo..=hi).contains(&len)),
            "{n} {min} {max}: {lens:?}"
        );
    }
}

#[test]
fn a_claim_takes_along_the_crumb_that_steals_left() {
    // The owner sizes its claim from what it saw (79 left: an eighth is 9, raised to
    // min_len, 10), but thieves have left it 19: the claim would leave 9 < min_len, which no
    // thief can take, so it takes it along.
    let (range, mut cursor) = StealRange::new(0..100, ChunkLimits::new(10, 40));
    let first: Vec<_> = (0..2)
        .map(|_| range.take_chunk(&mut cursor).unwrap())
        .collect();
    assert_eq!(
        lens(&first),
        [10, 11],
        "the second capped at an eighth of 90"
    );
    assert_eq!(
        range.steal_half(),
        Some(60..100),
        "79 left: 40 for the thief"
    );
    assert_eq!(range.steal_half(), Some(40..60));
    let chunk = range.take_chunk(&mut cursor).unwrap();
    assert_eq!(chunk.indices, 21..40);
    assert!(chunk.steal_observed);
    assert!(range.is_exhausted());
    assert_eq!(range.take_chunk(&mut cursor), None);
}

#[test]
fn a_crumb_that_would_make_a_chunk_too_long_gets_a_chunk_of_min_len() {
    // The owner claims `max_len` (40) from what it saw (360 left), but thieves have left it
    // 45: the crumb of 5 cannot go alone (under `min_len`) nor along (45 > `max_len`, and
    // `2 * min_len - 1` = 19), so the claim becomes 35 and the last 10 a chunk of their own.
    // (Found by `with_min_len_wins_over_a_smaller_with_max_len`, once in about 150 runs
    // under load: a `fold` piece of 3935 items with `max_len` 2979 and `min_len` 1332.)
    let (range, mut cursor) = StealRange::new(0..430, ChunkLimits::new(10, 40));
    let first: Vec<_> = (0..3)
        .map(|_| range.take_chunk(&mut cursor).unwrap())
        .collect();
    assert_eq!(lens(&first), [10, 20, 40]);
    assert_eq!(range.steal_half(), Some(250..430));
    assert_eq!(range.steal_half(), Some(160..250));
    assert_eq!(range.steal_half(), Some(115..160));
    let chunk = range.take_chunk(&mut cursor).unwrap();
    assert_eq!(chunk.indices, 70..105);
    assert!(chunk.steal_observed);
    assert!(range.is_exhausted(), "the crumb is claimed with the chunk");
    assert_eq!(
        cursor.remaining(),
        10,
        "the last chunk is still the owner's to take"
    );
    assert_eq!(range.steal_half(), None);
    let last = range.take_chunk(&mut cursor).unwrap();
    assert_eq!(last.indices, 105..115);
    assert!(!last.steal_observed);
    assert_eq!(cursor.remaining(), 0);
    assert_eq!(range.take_chunk(&mut cursor), None);
}

#[test]
fn thieves_take_the_upper_half_rounded_up_and_a_last_item_whole() {
    let (range, mut cursor) = StealRange::new(0..10, ChunkLimits::DEFAULT);
    let steals: Vec<_> = std::iter::from_fn(|| range.steal_half()).collect();
    assert_eq!(steals, vec![5..10, 2..5, 1..2, 0..1]);
    assert!(range.is_exhausted(), "a rest too short to halve goes whole");
    assert_eq!(range.take_chunk(&mut cursor), None);
    assert_eq!(cursor.remaining(), 0);
}

#[test]
fn thieves_take_nothing_shorter_than_min_len() {
    let (range, mut cursor) = StealRange::new(0..10, ChunkLimits::new(4, 100));
    assert_eq!(range.steal_half(), Some(5..10));
    assert_eq!(
        range.steal_half(),
        Some(0..5),
        "half of 5 is 2 < 4, and 5 >= 4: all of it"
    );
    assert_eq!(range.steal_half(), None);
    assert_eq!(range.take_chunk(&mut cursor), None);

    let (range, mut cursor) = StealRange::new(0..3, ChunkLimits::new(4, 100));
    assert_eq!(range.steal_half(), None, "3 items, under min_len");
    assert_eq!(range.take_chunk(&mut cursor).unwrap().indices, 0..3);
}

#[test]
fn a_thief_that_takes_the_whole_rest_ends_the_owners_claims() {
    let (range, mut cursor) = StealRange::new(0..5, ChunkLimits::DEFAULT);
    assert_eq!(range.take_chunk(&mut cursor).unwrap().indices, 0..1);
    assert_eq!(range.steal_half(), Some(3..5));
    assert!(
        cursor.worth_stealing(),
        "the owner has not seen the steal yet"
    );
    assert!(range.peek_steal(&mut cursor));
    assert!(
        cursor.worth_stealing(),
        "1..3 left: a thief could take 2..3"
    );
    assert_eq!(range.steal_half(), Some(2..3));
    assert_eq!(
        range.steal_half(),
        Some(1..2),
        "one item left: it goes whole"
    );
    assert_eq!(range.steal_half(), None);
    assert_eq!(range.take_chunk(&mut cursor), None, "nothing left to claim");
    assert!(!cursor.worth_stealing());
    assert_eq!(cursor.remaining(), 0);
}

#[test]
fn a_steal_is_observed_once_and_resets_the_chunk_length() {
    let (range, mut cursor) = StealRange::new(0..1000, ChunkLimits::DEFAULT);
    for expected in [0..1, 1..3, 3..7] {
        assert_eq!(range.take_chunk(&mut cursor).unwrap().indices, expected);
    }
    assert_eq!(range.steal_half(), Some(503..1000));
    let after: Vec<_> = (0..3)
        .map(|_| range.take_chunk(&mut cursor).unwrap())
        .collect();
    let indices: Vec<_> = after.iter().map(|c| c.indices.clone()).collect();
    assert_eq!(indices, vec![7..15, 15..16, 16..18]);
    let observed: Vec<_> = after.iter().map(|c| c.steal_observed).collect();
    assert_eq!(observed, vec![true, false, false]);
    assert_eq!(cursor.remaining(), 503 - 18);
}

#[test]
fn many_steals_between_claims_cut_the_owners_chunk_and_exhaust_the_range() {
    let (range, mut cursor) = StealRange::new(0..1024, ChunkLimits::DEFAULT);
    assert_eq!(
        lens(
            &(0..5)
                .map(|_| range.take_chunk(&mut cursor).unwrap())
                .collect::<Vec<_>>()
        ),
        [1, 2, 4, 8, 16]
    );
    let steals: Vec<_> = (0..6).map(|_| range.steal_half().unwrap()).collect();
    assert_eq!(
        steals,
        vec![527..1024, 279..527, 155..279, 93..155, 62..93, 46..62]
    );
    // The owner asks for 32 but only 31..46 is left: it gets that and the range is empty.
    let last = range.take_chunk(&mut cursor).unwrap();
    assert_eq!((last.indices, last.steal_observed), (31..46, true));
    assert!(range.is_exhausted());
    assert_eq!(range.take_chunk(&mut cursor), None);
    assert_eq!(range.take_chunk(&mut cursor), None);
    assert_eq!(range.steal_half(), None);
}

#[test]
fn random_interleavings_hand_out_every_index_once_owner_below_thieves() {
    let mut rng = SmallRng::seed_from_u64(0x5eed_4a11);
    for _ in 0..200 {
        let n = rng.random_range(0..3000);
        let min_len = rng.random_range(1..5);
        let (range, mut cursor) = StealRange::new(0..n, ChunkLimits::new(min_len, 64));
        let (mut owner_end, mut thief_start) = (0, n);
        loop {
            if rng.random_bool(0.3) {
                if let Some(stolen) = range.steal_half() {
                    assert_eq!(stolen.end, thief_start, "each steal is the upper neighbour");
                    assert!(stolen.len() >= min_len);
                    let left = thief_start - owner_end;
                    if left as usize >= 2 * min_len {
                        assert!(
                            stolen.len() as u32 <= left - left / 2,
                            "at most half, rounded up"
                        );
                        assert!(
                            (left - stolen.len() as u32) as usize >= min_len,
                            "the owner keeps a chunk"
                        );
                    } else {
                        assert_eq!(stolen.len() as u32, left, "too short to halve: whole");
                    }
                    thief_start = stolen.start;
                }
            } else {
                match range.take_chunk(&mut cursor) {
                    Some(chunk) => {
                        assert_eq!(chunk.indices.start, owner_end);
                        owner_end = chunk.indices.end;
                    }
                    None => break,
                }
            }
        }
        assert_eq!(
            owner_end, thief_start,
            "owner and thieves meet: nothing lost or doubled"
        );
        assert_eq!(range.steal_half(), None);
    }
}

#[test]
fn handoff_gives_each_claimant_exactly_its_piece() {
    let mut rng = SmallRng::seed_from_u64(0xface);
    for _ in 0..100 {
        let n = rng.random_range(0..500);
        let (handoff, mut cursor) =
            Handoff::new(0..n, Items::for_indices(0..n), ChunkLimits::DEFAULT);
        let mut seen = Vec::new();
        loop {
            let taken = if rng.random_bool(0.3) {
                handoff.steal_half()
            } else {
                handoff
                    .take_chunk(&mut cursor)
                    .map(|(chunk, items)| (chunk.indices, items))
            };
            let Some((indices, items)) = taken else {
                if cursor.remaining() == 0 {
                    break;
                }
                continue;
            };
            assert_eq!(items.0, Items::for_indices(indices).0);
            seen.extend(items.0);
        }
        seen.sort_unstable();
        assert_eq!(seen, Items::for_indices(0..n).0);
    }
}

#[test]
fn handoff_cuts_owners_chunks_from_the_front_and_thieves_parts_from_the_back() {
    let (handoff, mut cursor) =
        Handoff::new(0..100, Items::for_indices(0..100), ChunkLimits::DEFAULT);
    let (first, first_items) = handoff.steal_half().unwrap();
    let (second, second_items) = handoff.steal_half().unwrap();
    let (chunk, owners) = handoff.take_chunk(&mut cursor).unwrap();
    assert_eq!(
        (first.clone(), second.clone(), chunk.indices.clone()),
        (50..100, 25..50, 0..1)
    );
    assert_eq!(first_items.0, Items::for_indices(first).0);
    assert_eq!(second_items.0, Items::for_indices(second).0);
    assert_eq!(owners.0, Items::for_indices(0..1).0);
    let rest: Vec<u64> = std::iter::from_fn(|| handoff.take_chunk(&mut cursor))
        .flat_map(|(_, items)| items.0)
        .collect();
    assert_eq!(rest, Items::for_indices(1..25).0);
}

#[test]
fn close_leaves_nothing_for_thieves_and_keeps_the_owners_claims() {
    let (range, mut cursor) = StealRange::new(0..100, ChunkLimits::DEFAULT);
    let first = range
        .take_chunk(&mut cursor)
        .expect("a fresh range has a chunk");
    assert_eq!(first.indices, 0..1);
    range.close();
    assert!(range.is_exhausted());
    assert_eq!(range.steal_half(), None);
    // Closing twice, or closing an exhausted range, changes nothing.
    range.close();
    assert_eq!(range.steal_half(), None);
}

#[test]
fn fixed_size_unshared_claims_leave_the_rest_to_the_usual_claims() {
    // An inline loop's private claims (`owner.rs`, `Start::Claims`).
    let mut cursor = OwnerCursor::new(0..1000, ChunkLimits::DEFAULT);
    let claims: Vec<Range<u32>> = std::iter::from_fn(|| cursor.claim_unshared_up_to(256)).collect();
    assert_eq!(claims, [0..256, 256..512, 512..768, 768..1000]);
    // `with_min_len` raises a claim, `with_max_len` caps it.
    let mut cursor = OwnerCursor::new(0..1000, ChunkLimits::new(300, u32::MAX as usize));
    assert_eq!(cursor.claim_unshared_up_to(256), Some(0..300));
    let mut cursor = OwnerCursor::new(0..1000, ChunkLimits::new(1, 100));
    assert_eq!(cursor.claim_unshared_up_to(256), Some(0..100));
    // No claim leaves a crumb under `min_len`: the last two pieces share what is left, or
    // the last claim takes it all if that is under `2 * min_len`.
    let mut cursor = OwnerCursor::new(0..18_874, ChunkLimits::new(1111, 948));
    let claims: Vec<Range<u32>> =
        std::iter::from_fn(|| cursor.claim_unshared_up_to(u32::MAX)).collect();
    let lens: Vec<u32> = claims.iter().map(|c| c.end - c.start).collect();
    assert_eq!(lens.iter().sum::<u32>(), 18_874);
    assert!(
        lens.iter().all(|&len| (1111..=2221).contains(&len)),
        "{lens:?}"
    );
    let mut cursor = OwnerCursor::new(0..39, ChunkLimits::new(10, 30));
    let claims: Vec<Range<u32>> =
        std::iter::from_fn(|| cursor.claim_unshared_up_to(u32::MAX)).collect();
    assert_eq!(claims, [0..29, 29..39]);
    // Shared afterwards, the range is claimed as a new owner's would be: from `min_len`.
    let mut cursor = OwnerCursor::new(0..1000, ChunkLimits::DEFAULT);
    assert_eq!(cursor.claim_unshared_up_to(256), Some(0..256));
    let range = StealRange::unclaimed_by(&cursor);
    let chunks = drain(&range, &mut cursor);
    assert_eq!(chunks[0].indices, 256..257);
    assert_eq!(chunks.last().unwrap().indices.end, 1000);
}
