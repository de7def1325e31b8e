//! The time rules of `policy.rs`, on hand-made measurements.

use std::time::Duration;

use super::{claim_len, start, Pace, Start};
use crate::drive::steal_range::ChunkLimits;

fn pace_after(len: u32, elapsed: Duration) -> Pace {
    let mut pace = Pace::new();
    pace.block_took(len, elapsed, 1);
    pace
}

#[test]
fn slow_blocks_scale_the_next_block_to_the_time_target_and_fast_ones_double() {
    let us = Duration::from_micros;
    let mut pace = Pace::new();
    // No measurement yet: the whole chunk is one block, and items count as fast.
    assert_eq!(pace.block_len(500), 500);
    assert!(!pace.items_are_slow());
    // 100 items in 2500 µs: 25 µs each, so about 50 µs (the target) is 2 items; min_len is 4.
    pace.block_took(100, us(2500), 4);
    assert_eq!(pace.block_len(500), 4);
    assert!(pace.items_are_slow());
    // A full block of 4 in 10 µs (under half the target): the block doubles.
    pace.block_took(4, us(10), 4);
    assert_eq!(pace.block_len(500), 8);
    assert!(!pace.items_are_slow());
    // A block cut short by the end of its chunk says nothing about the length: kept.
    pace.block_took(3, us(1), 4);
    assert_eq!(pace.block_len(500), 8);
    // Between half the target and the target: kept, and items count as slow.
    pace.block_took(8, us(40), 4);
    assert_eq!(pace.block_len(500), 8);
    assert!(pace.items_are_slow());
    // 8 items in 100 µs: 50 µs is 4 items; and a block never exceeds what is left.
    pace.block_took(8, us(100), 4);
    assert_eq!(pace.block_len(500), 4);
    assert_eq!(pace.block_len(3), 3);
}

#[test]
fn the_claim_floor_covers_2_us_at_the_measured_rate() {
    assert_eq!(Pace::new().claim_floor(), 0, "nothing timed yet");
    // 1 item in 200 ns: 2 µs is 10 items.
    assert_eq!(pace_after(1, Duration::from_nanos(200)).claim_floor(), 10);
    // 50 items in 100 ns: 1000 items.
    assert_eq!(
        pace_after(50, Duration::from_nanos(100)).claim_floor(),
        1000
    );
    // A block too fast for the clock: everything.
    assert_eq!(pace_after(1000, Duration::ZERO).claim_floor(), u32::MAX);
    // Items of 20 µs: no item fits.
    assert_eq!(pace_after(1, Duration::from_micros(20)).claim_floor(), 0);
}

#[test]
fn a_rest_is_short_if_it_takes_at_most_4_us_at_the_measured_rate() {
    assert_eq!(Pace::new().short_rest_items(), 0, "nothing timed yet");
    // 1 item in 100 ns: 40 items take 4 µs.
    assert_eq!(
        pace_after(1, Duration::from_nanos(100)).short_rest_items(),
        40
    );
    // 3 items in 1 µs: 12 items.
    assert_eq!(
        pace_after(3, Duration::from_micros(1)).short_rest_items(),
        12
    );
    // Items of 5 µs: none.
    assert_eq!(
        pace_after(1, Duration::from_micros(5)).short_rest_items(),
        0
    );
}

#[test]
fn the_nested_inline_limit_follows_the_measured_rate() {
    assert_eq!(Pace::new().nested_inline_limit(), 0, "nothing timed yet");
    // 20 ns an item: loops of up to 16 * 20 items inline.
    assert_eq!(
        pace_after(1000, Duration::from_micros(20)).nested_inline_limit(),
        320
    );
    // 1 µs an item: 16 000 items.
    assert_eq!(
        pace_after(10, Duration::from_micros(10)).nested_inline_limit(),
        16_000
    );
    // An item of 10 µs or more: nothing inline.
    assert_eq!(
        pace_after(1, Duration::from_micros(20)).nested_inline_limit(),
        0
    );
    assert_eq!(
        pace_after(3, Duration::from_micros(40)).nested_inline_limit(),
        0
    );
    // A block timed at zero (a clock read backwards): nothing inline either.
    assert_eq!(pace_after(1000, Duration::ZERO).nested_inline_limit(), 0);
}

#[test]
fn a_claim_doubles_up_to_an_eighth_of_the_rest_and_never_below_the_floor() {
    assert_eq!(claim_len(4, 1000, 0), 4);
    assert_eq!(claim_len(512, 1000, 0), 125);
    assert_eq!(claim_len(4, 1000, 300), 300);
    assert_eq!(claim_len(4, 7, 0), 0, "the cursor raises it to min_len");
}

#[test]
fn a_loop_starts_shared_when_a_worker_is_idle_or_it_is_short() {
    let unlimited = ChunkLimits::new(1, usize::MAX);
    assert_eq!(start(0, 4, unlimited, false), Start::Alone);
    assert_eq!(start(1000, 1, unlimited, true), Start::Alone);
    assert_eq!(start(1000, 2, unlimited, true), Start::Shared);
    assert_eq!(
        start(31, 2, unlimited, false),
        Start::Shared,
        "under 16 per thread"
    );
    assert_eq!(start(32, 2, unlimited, false), Start::Timed { first: 1 });
    assert_eq!(
        start(1 << 20, 2, unlimited, false),
        Start::Timed { first: 4 }
    );
    assert_eq!(
        start(1000, 2, ChunkLimits::new(2, usize::MAX), false),
        Start::Shared,
        "with_min_len: no single-item first claim"
    );
}
