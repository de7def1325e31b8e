//! Adapters that skip items cost what they produce when nothing runs for the skipped items
//! (#21): each test walks a range of 2^40 items, which would take hours if the skipped items
//! were stepped over one by one, and finishes at once when they are jumped over.
#![cfg(target_pointer_width = "64")]

use crate::common;

use common::{in_pools, par};
use par::prelude::*;

const HUGE: usize = 1 << 40;
const STEP: usize = 1 << 30;

/// `0, STEP, 2 * STEP, ...` below `HUGE`: 1024 items.
fn every_step() -> Vec<usize> {
    (0..HUGE / STEP).map(|i| i * STEP).collect()
}

#[test]
fn step_by_jumps_over_a_huge_range_from_either_end() {
    in_pools(|threads| {
        let what = format!("{threads} threads");
        assert_eq!(
            (0..HUGE).into_par_iter().step_by(STEP).count(),
            1024,
            "{what}"
        );
        let v: Vec<usize> = (0..HUGE).into_par_iter().step_by(STEP).collect();
        assert_eq!(v, every_step(), "{what}");
        let v: Vec<usize> = (0..HUGE).into_par_iter().step_by(STEP).rev().collect();
        assert_eq!(
            v,
            every_step().into_iter().rev().collect::<Vec<_>>(),
            "{what}"
        );
        let v: Vec<usize> = (0..HUGE).into_par_iter().rev().step_by(STEP).collect();
        let expected: Vec<usize> = every_step().iter().map(|i| HUGE - 1 - i).collect();
        assert_eq!(v, expected, "{what}");
    });
}

#[test]
fn skip_and_take_cost_nothing_on_a_huge_range() {
    in_pools(|threads| {
        let v: Vec<usize> = (0..HUGE).into_par_iter().skip(HUGE - 3).collect();
        assert_eq!(v, [HUGE - 3, HUGE - 2, HUGE - 1], "{threads} threads");
        let v: Vec<usize> = (0..HUGE).into_par_iter().take(3).collect();
        assert_eq!(v, [0, 1, 2], "{threads} threads");
        let v: Vec<usize> = (0..HUGE)
            .into_par_iter()
            .skip(5)
            .step_by(STEP)
            .take(3)
            .collect();
        assert_eq!(v, [5, 5 + STEP, 5 + 2 * STEP], "{threads} threads");
    });
}

#[test]
fn chunks_and_chains_of_a_huge_range_jump_too() {
    in_pools(|threads| {
        let firsts: Vec<usize> = (0..HUGE)
            .into_par_iter()
            .chunks(2)
            .step_by(STEP)
            .map(|chunk| chunk[0])
            .collect();
        let expected: Vec<usize> = (0..HUGE / 2 / STEP).map(|i| i * 2 * STEP).collect();
        assert_eq!(firsts, expected, "{threads} threads: chunks");

        let half = HUGE / 2;
        let v: Vec<usize> = (0..half)
            .into_par_iter()
            .chain(half..HUGE)
            .step_by(STEP)
            .collect();
        assert_eq!(v, every_step(), "{threads} threads: chain");
        let v: Vec<usize> = (0..half)
            .into_par_iter()
            .chain(half..HUGE)
            .step_by(STEP)
            .rev()
            .collect();
        let expected: Vec<usize> = every_step().into_iter().rev().collect();
        assert_eq!(v, expected, "{threads} threads: chain, reversed");
    });
}

/// std's `Zip` (which `zip` and `enumerate` iterate with) jumps over the items of ranges in
/// `nth` by a loop whose body is empty for them: gone in an optimized build, 2^40 rounds in a
/// debug one (for Rayon's ranges too), so this runs in release builds only.
#[cfg(not(debug_assertions))]
#[test]
fn zip_and_enumerate_of_a_huge_range_jump_too() {
    in_pools(|threads| {
        let v: Vec<(usize, usize)> = (0..HUGE)
            .into_par_iter()
            .zip(0..HUGE)
            .step_by(STEP)
            .collect();
        let expected: Vec<(usize, usize)> = every_step().into_iter().map(|i| (i, i)).collect();
        assert_eq!(v, expected, "{threads} threads: zip");
        let v: Vec<(usize, usize)> = (0..HUGE)
            .into_par_iter()
            .enumerate()
            .step_by(STEP)
            .collect();
        assert_eq!(v, expected, "{threads} threads: enumerate");
    });
}

#[test]
fn repeat_n_jumps_without_cloning() {
    in_pools(|threads| {
        let v: Vec<u8> = par::iter::repeat_n(7u8, HUGE).step_by(STEP).collect();
        assert_eq!(v, vec![7u8; 1024], "{threads} threads");
    });
}

/// A loop of more items than a stealing range holds (2^32) is halved with a `join` first,
/// down to ranges of 2^31 items: 8 of them here.
const LONGER_THAN_A_RANGE: usize = 1 << 34;

#[test]
fn a_loop_longer_than_a_range_keeps_its_order_across_the_halves() {
    in_pools(|threads| {
        let last = LONGER_THAN_A_RANGE - 2;
        // Every range after the first one stops at once: it cannot hold an earlier match.
        let found = (0..LONGER_THAN_A_RANGE)
            .into_par_iter()
            .position_first(|i| i == 5 || i == last);
        assert_eq!(found, Some(5), "{threads} threads");
        let found = (0..LONGER_THAN_A_RANGE)
            .into_par_iter()
            .map(|i| i * 3)
            .find_first(|&x| x % 7 == 4);
        assert_eq!(
            found,
            (0..).map(|i| i * 3).find(|&x| x % 7 == 4),
            "{threads} threads"
        );
    });
}

#[test]
fn a_panic_in_a_loop_longer_than_a_range_reaches_the_caller_as_its_first_items() {
    in_pools(|threads| {
        // Every item panics, so every piece stops at its first item, whoever runs it; the
        // halves' joins keep the first half's panic, as `join` keeps `a`'s.
        let caught = std::panic::catch_unwind(|| {
            (0..LONGER_THAN_A_RANGE)
                .into_par_iter()
                .for_each(|i| panic!("item {i}"))
        })
        .expect_err("every item panics");
        let message = caught
            .downcast_ref::<String>()
            .expect("a formatted panic message");
        assert_eq!(message, "item 0", "{threads} threads");
        // The pool still runs loops.
        let sum: usize = (0..1000usize).into_par_iter().sum();
        assert_eq!(sum, (0..1000).sum::<usize>(), "{threads} threads");
    });
}
