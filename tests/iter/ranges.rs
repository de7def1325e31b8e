//! Oracle tests for ranges as sources (issue #3): `Range` and `RangeInclusive` of every
//! integer type and `char`, including empty, reversed and exhausted ranges, ranges ending at
//! the type's maximum, ranges spanning the surrogate gap, and ranges longer than `usize`.
//!
//! Rayon makes `Range<u8/u16/u32/usize/i8/i16/i32/isize>`, `RangeInclusive<u8/u16/i8/i16>`
//! and both `char` ranges indexed; the others are only `ParallelIterator` (with `opt_len`
//! when the length fits in `usize`). The indexed checks are applied exactly to the former, so
//! an implementation that indexes more ranges still passes.

use crate::common;

use common::in_pools;
use common::par::prelude::*;
use std::fmt::Debug;
use std::ops::{Range, RangeInclusive};

/// Checks a range against std: items, count, sum-free extremes, `opt_len`.
fn check_range<T>(range: Range<T>)
where
    T: Copy + Ord + Debug + Send,
    Range<T>: Iterator<Item = T> + IntoParallelIterator<Item = T> + Clone + Debug,
{
    let expected: Vec<T> = range.clone().collect();
    let got: Vec<T> = range.clone().into_par_iter().collect();
    assert_eq!(got, expected, "{range:?}");
    assert_eq!(
        range.clone().into_par_iter().opt_len(),
        Some(expected.len()),
        "{range:?}"
    );
    assert_eq!(
        range.clone().into_par_iter().min(),
        expected.first().copied()
    );
    assert_eq!(
        range.clone().into_par_iter().max(),
        expected.last().copied()
    );
}

fn check_range_inclusive<T>(range: RangeInclusive<T>)
where
    T: Copy + Ord + Debug + Send,
    RangeInclusive<T>: Iterator<Item = T> + IntoParallelIterator<Item = T> + Clone + Debug,
{
    let expected: Vec<T> = range.clone().collect();
    let got: Vec<T> = range.clone().into_par_iter().collect();
    assert_eq!(got, expected, "{range:?}");
    assert_eq!(
        range.clone().into_par_iter().count(),
        expected.len(),
        "{range:?}"
    );
    assert_eq!(
        range.clone().into_par_iter().max(),
        expected.last().copied()
    );
}

/// The extra checks for ranges Rayon makes indexed.
fn check_indexed_range<R, T>(range: R)
where
    T: Copy + Ord + Debug + Send,
    R: Iterator<Item = T> + DoubleEndedIterator + IntoParallelIterator<Item = T> + Clone + Debug,
    R::Iter: IndexedParallelIterator,
{
    let expected: Vec<T> = range.clone().collect();
    assert_eq!(
        range.clone().into_par_iter().len(),
        expected.len(),
        "{range:?}"
    );
    let reversed: Vec<T> = range.clone().into_par_iter().rev().collect();
    assert_eq!(
        reversed,
        range.clone().rev().collect::<Vec<_>>(),
        "{range:?}"
    );
    let pairs: Vec<(usize, T)> = range.clone().into_par_iter().enumerate().skip(1).collect();
    assert_eq!(
        pairs,
        range.clone().enumerate().skip(1).collect::<Vec<_>>(),
        "{range:?}"
    );
}

#[test]
#[allow(clippy::reversed_empty_ranges)]
fn ranges_of_every_integer_type() {
    in_pools(|_| {
        // Rayon makes Range<u8/u16/u32/usize/i8/i16/i32/isize> and RangeInclusive<u8/u16/i8/i16>
        // (and both of char) indexed; the 64- and 128-bit ones are only ParallelIterator.
        for r in [0u8..0, 5..5, 9..3, 0..255, 200..255] {
            check_range(r.clone());
            check_indexed_range(r);
        }
        for r in [0u8..=255, 7..=7, 9..=3, 250..=255] {
            check_range_inclusive(r.clone());
            check_indexed_range(r);
        }
        for r in [0u16..0, 0..1000, 65_000..u16::MAX] {
            check_range(r.clone());
            check_indexed_range(r);
        }
        check_indexed_range(65_000u16..=u16::MAX);
        check_range_inclusive(0u16..=u16::MAX);
        for r in [0u32..0, 3..100_003, u32::MAX - 1000..u32::MAX, 10..2] {
            check_range(r.clone());
            check_indexed_range(r);
        }
        check_range_inclusive(u32::MAX - 1000..=u32::MAX);
        for r in [0usize..0, 1..100_003, usize::MAX - 64..usize::MAX] {
            check_range(r.clone());
            check_indexed_range(r);
        }
        check_range_inclusive(usize::MAX - 64..=usize::MAX);
        for r in [i8::MIN..i8::MAX, -3..3, 3..-3] {
            check_range(r.clone());
            check_indexed_range(r);
        }
        for r in [i8::MIN..=i8::MAX, -1..=-1] {
            check_range_inclusive(r.clone());
            check_indexed_range(r);
        }
        for r in [i16::MIN..i16::MAX, -700..700] {
            check_range(r.clone());
            check_indexed_range(r);
        }
        check_indexed_range(i16::MIN..=i16::MAX);
        for r in [
            i32::MIN..i32::MIN + 1000,
            -50_001..50_002,
            i32::MAX - 7..i32::MAX,
        ] {
            check_range(r.clone());
            check_indexed_range(r);
        }
        check_range_inclusive(i32::MAX - 7..=i32::MAX);
        for r in [isize::MIN..isize::MIN + 999, -5..5] {
            check_range(r.clone());
            check_indexed_range(r);
        }
        check_range_inclusive(isize::MAX - 3..=isize::MAX);
        for r in [0u64..0, 0..100_003, u64::MAX - 1000..u64::MAX] {
            check_range(r);
        }
        check_range_inclusive(u64::MAX - 1000..=u64::MAX);
        for r in [i64::MIN..i64::MIN + 1000, -1000..1000, 5..-5] {
            check_range(r);
        }
        check_range_inclusive(i64::MIN..=i64::MIN + 3);
        for r in [0u128..0, 0..100_003, u128::MAX - 1000..u128::MAX] {
            check_range(r);
        }
        check_range_inclusive(u128::MAX - 1000..=u128::MAX);
        for r in [i128::MIN..i128::MIN + 1000, -10..10] {
            check_range(r);
        }
        check_range_inclusive(i128::MAX - 10..=i128::MAX);
    });
}

#[test]
fn exhausted_inclusive_range_is_empty() {
    let mut range = 1u8..=3;
    range.by_ref().for_each(drop);
    assert_eq!(range.clone().into_par_iter().count(), 0);
    assert_eq!(range.into_par_iter().len(), 0);
    let mut wide = 1u64..=3;
    wide.by_ref().for_each(drop);
    assert_eq!(wide.into_par_iter().count(), 0);
}

#[test]
#[cfg(target_pointer_width = "64")]
fn ranges_longer_than_usize() {
    in_pools(|_| {
        // Lengths that do not fit in usize: only unindexed operations, and no opt_len.
        assert_eq!((0..u128::MAX).into_par_iter().opt_len(), None);
        assert_eq!((i128::MIN..i128::MAX).into_par_iter().opt_len(), None);
        assert_eq!((0..=u64::MAX).into_par_iter().opt_len(), None);
        assert_eq!(
            (0..u128::MAX).into_par_iter().find_first(|&x| x >= 1000),
            Some(1000)
        );
        assert_eq!(
            (i128::MIN..i128::MAX)
                .into_par_iter()
                .find_first(|&x| x > i128::MIN + 5),
            Some(i128::MIN + 6)
        );
        let some: Vec<u128> = (0..u128::MAX).into_par_iter().take_any(10).collect();
        assert_eq!(some.len(), 10);
        assert!(some.windows(2).all(|w| w[0] < w[1]));
        // Lengths that just fit.
        assert_eq!((0..u64::MAX).into_par_iter().opt_len(), Some(usize::MAX));
        assert_eq!(
            (i64::MIN..i64::MAX).into_par_iter().opt_len(),
            Some(usize::MAX)
        );
        assert_eq!((isize::MIN..isize::MAX).into_par_iter().len(), usize::MAX);
        let top: Vec<isize> = (isize::MIN..isize::MAX)
            .into_par_iter()
            .skip(usize::MAX - 3)
            .collect();
        assert_eq!(top, [isize::MAX - 3, isize::MAX - 2, isize::MAX - 1]);
        let last = (0..u64::MAX).into_par_iter().find_first(|&x| x > 7);
        assert_eq!(last, Some(8));
    });
}

#[test]
#[allow(clippy::reversed_empty_ranges)]
fn char_ranges_skip_surrogates() {
    in_pools(|_| {
        for r in [
            'a'..'y',
            'z'..'a',
            '\u{D7F0}'..'\u{E010}',
            '\u{0}'..'\u{D7FF}',
            '\u{E000}'..char::MAX,
        ] {
            check_range(r.clone());
            check_indexed_range(r);
        }
        for r in [
            'a'..='a',
            '\u{D7FF}'..='\u{E000}',
            '\u{10FF00}'..=char::MAX,
            'b'..='a',
        ] {
            check_range_inclusive(r.clone());
            check_indexed_range(r);
        }
        assert_eq!(
            ('\u{0}'..=char::MAX).into_par_iter().count(),
            ('\u{0}'..=char::MAX).count()
        );
    });
}
