//! Oracle tests for the sources of issue #3 other than strings and std collections: slices,
//! `Vec` by value and `par_drain`, arrays, ranges of every integer type and `char`, `Option`,
//! `Result`, `par_bridge` and `iter::{empty, once, repeat, repeat_n, split}`.

mod common;

use common::par;
use common::par::prelude::*;
use common::{in_pools, random_u32s, random_words, SIZES};
use std::fmt::Debug;
use std::ops::{Range, RangeInclusive};

fn each_input(seed: u64, check: impl Fn(usize, Vec<u32>) + Sync) {
    in_pools(|_threads| {
        for n in SIZES {
            check(n, random_u32s(n, 1000, seed));
        }
    });
}

#[test]
fn slice_iter_and_iter_mut() {
    each_input(40, |_, v| {
        let refs: Vec<&u32> = v.par_iter().collect();
        assert_eq!(refs, v.iter().collect::<Vec<_>>());
        let mut w = v.clone();
        w.par_iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x += i as u32);
        assert_eq!(
            w,
            v.iter()
                .enumerate()
                .map(|(i, x)| x + i as u32)
                .collect::<Vec<_>>()
        );
        let slice: &[u32] = &v;
        assert_eq!(slice.par_iter().len(), v.len());
    });
}

#[test]
fn slice_chunks_windows_split() {
    each_input(41, |n, v| {
        for size in [1, 2, 3, 7, 64, 1000, n + 1] {
            let chunks: Vec<&[u32]> = v.par_chunks(size).collect();
            assert_eq!(
                chunks,
                v.chunks(size).collect::<Vec<_>>(),
                "par_chunks({size})"
            );
            assert_eq!(v.par_chunks(size).len(), v.chunks(size).len());

            let exact = v.par_chunks_exact(size);
            assert_eq!(exact.remainder(), v.chunks_exact(size).remainder());
            let exact: Vec<&[u32]> = exact.collect();
            assert_eq!(
                exact,
                v.chunks_exact(size).collect::<Vec<_>>(),
                "par_chunks_exact({size})"
            );

            let rchunks: Vec<&[u32]> = v.par_rchunks(size).collect();
            assert_eq!(
                rchunks,
                v.rchunks(size).collect::<Vec<_>>(),
                "par_rchunks({size})"
            );

            let mut par_mut = v.clone();
            par_mut.par_chunks_mut(size).for_each(<[u32]>::reverse);
            let mut seq_mut = v.clone();
            seq_mut.chunks_mut(size).for_each(<[u32]>::reverse);
            assert_eq!(par_mut, seq_mut, "par_chunks_mut({size})");

            let windows: Vec<&[u32]> = v.par_windows(size).collect();
            assert_eq!(
                windows,
                v.windows(size).collect::<Vec<_>>(),
                "par_windows({size})"
            );
            assert_eq!(v.par_windows(size).len(), v.windows(size).len());
        }
        let pieces: Vec<&[u32]> = v.par_split(|x| x % 10 == 0).collect();
        assert_eq!(pieces, v.split(|x| x % 10 == 0).collect::<Vec<_>>());
        let everywhere: Vec<&[u32]> = v.par_split(|_| true).collect();
        assert_eq!(everywhere, v.split(|_| true).collect::<Vec<_>>());
    });
}

#[test]
fn vec_and_boxed_slice_by_value() {
    in_pools(|_| {
        for n in SIZES {
            let words = random_words(n, 42);
            let upper: Vec<String> = words
                .clone()
                .into_par_iter()
                .map(|w| w.to_uppercase())
                .collect();
            assert_eq!(
                upper,
                words.iter().map(|w| w.to_uppercase()).collect::<Vec<_>>()
            );
            let boxed: Box<[String]> = words.clone().into_boxed_slice();
            let back: Vec<String> = boxed.into_par_iter().collect();
            assert_eq!(back, words);
            // Only part consumed: the rest must still be dropped (checked for leaks in
            // iter_panics.rs; here the result must just be right).
            let firsts: Vec<String> = words.clone().into_par_iter().take(n / 2).collect();
            assert_eq!(firsts, words[..n / 2]);
        }
    });
}

#[test]
fn vec_par_drain_ranges() {
    in_pools(|_| {
        for n in SIZES {
            let words = random_words(n, 43);
            let ranges: [(usize, usize); 6] = [
                (0, n),
                (n / 3, n),
                (0, n / 2),
                (n / 3, 2 * n / 3),
                (n / 2, n / 2),
                (n, n),
            ];
            for (lo, hi) in ranges {
                let mut par_vec = words.clone();
                let mut seq_vec = words.clone();
                let drained: Vec<String> = par_vec.par_drain(lo..hi).collect();
                let expected: Vec<String> = seq_vec.drain(lo..hi).collect();
                assert_eq!(drained, expected, "par_drain({lo}..{hi}) of {n}");
                assert_eq!(par_vec, seq_vec);
            }
            let mut par_vec = words.clone();
            let drained: Vec<String> = par_vec.par_drain(..).collect();
            assert_eq!((drained, par_vec.len()), (words.clone(), 0));
            if n > 0 {
                let mut par_vec = words.clone();
                let mut seq_vec = words.clone();
                let drained: Vec<String> = par_vec.par_drain(..=n / 2).collect();
                assert_eq!(drained, seq_vec.drain(..=n / 2).collect::<Vec<_>>());
                assert_eq!(par_vec, seq_vec);
                let mut par_vec = words.clone();
                let drained: Vec<String> = par_vec.par_drain(1..).collect();
                assert_eq!(drained, words[1..]);
            }
        }
    });
}

#[test]
fn arrays() {
    let words: [String; 4] = ["a", "bb", "", "ccc"].map(String::from);
    let lens: Vec<usize> = words.par_iter().map(String::len).collect();
    assert_eq!(lens, [1, 2, 0, 3]);
    let mut numbers = [1u32, 2, 3, 4, 5, 6, 7];
    numbers.par_iter_mut().for_each(|x| *x *= 10);
    assert_eq!(numbers, [10, 20, 30, 40, 50, 60, 70]);
    let owned: Vec<String> = words.clone().into_par_iter().rev().collect();
    assert_eq!(owned, ["ccc", "", "bb", "a"]);
    assert_eq!(words.into_par_iter().len(), 4);
    let empty: [u8; 0] = [];
    assert_eq!(empty.into_par_iter().count(), 0);
}

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

#[test]
fn option_and_result() {
    let some: Vec<u32> = Some(5).into_par_iter().collect();
    assert_eq!(some, [5]);
    assert_eq!(None::<u32>.into_par_iter().count(), 0);
    assert_eq!(Some(5).into_par_iter().len(), 1);
    assert_eq!(None::<u32>.into_par_iter().len(), 0);
    let mut option = Some(String::from("x"));
    assert_eq!(option.par_iter().map(String::len).sum::<usize>(), 1);
    option.par_iter_mut().for_each(|s| s.push('y'));
    assert_eq!(option.as_deref(), Some("xy"));

    let ok: Result<u32, String> = Ok(3);
    assert_eq!(ok.clone().into_par_iter().collect::<Vec<_>>(), [3]);
    assert_eq!(ok.par_iter().len(), 1);
    let mut err: Result<u32, String> = Err("e".into());
    assert_eq!(err.clone().into_par_iter().count(), 0);
    err.par_iter_mut().for_each(|x| *x += 1);
    assert_eq!(err, Err("e".into()));
    let mut ok_mut: Result<u32, String> = Ok(1);
    ok_mut.par_iter_mut().for_each(|x| *x += 1);
    assert_eq!(ok_mut, Ok(2));
}

#[test]
fn empty_once_repeat_repeat_n() {
    in_pools(|_| {
        assert_eq!(par::iter::empty::<u32>().count(), 0);
        assert_eq!(par::iter::empty::<u32>().len(), 0);
        assert_eq!(par::iter::once(9).collect::<Vec<_>>(), [9]);
        assert_eq!(par::iter::once(9).len(), 1);
        for n in SIZES {
            let v = random_u32s(n, 1000, 44);
            let tagged: Vec<(char, u32)> =
                par::iter::repeat('x').zip(v.par_iter().copied()).collect();
            assert_eq!(tagged, v.iter().map(|&x| ('x', x)).collect::<Vec<_>>());
            let words: Vec<String> = par::iter::repeat(String::from("ab")).take(n).collect();
            assert_eq!(words, vec![String::from("ab"); n]);
            let counted = par::iter::repeat_n(String::from("cd"), n);
            assert_eq!(counted.len(), n);
            let all: Vec<String> = counted.collect();
            assert_eq!(all, vec![String::from("cd"); n]);
            assert_eq!(
                par::iter::repeat_n(3u8, n).rev().skip(1).count(),
                n.saturating_sub(1)
            );
            let found = par::iter::repeat(1u32).map(|x| x + 1).find_any(|_| true);
            assert_eq!(found, Some(2));
        }
    });
}

#[test]
fn split_covers_the_data_exactly_once() {
    in_pools(|_| {
        for n in SIZES {
            let halves = |r: Range<usize>| {
                if r.len() > 100 {
                    let mid = r.start + r.len() / 2;
                    (r.start..mid, Some(mid..r.end))
                } else {
                    (r, None)
                }
            };
            let mut leaves: Vec<Range<usize>> = par::iter::split(0..n, halves).collect();
            // The driver decides how far to split (adaptively), so leaves may be longer than
            // the splitter's threshold; they must tile the input exactly.
            leaves.sort_by_key(|r| r.start);
            let covered: Vec<usize> = leaves.into_iter().flatten().collect();
            assert_eq!(covered, (0..n).collect::<Vec<_>>());
            let total: usize = par::iter::split(0..n, halves)
                .map(|r| r.sum::<usize>())
                .sum();
            assert_eq!(total, (0..n).sum::<usize>());
        }
    });
}

#[test]
fn par_bridge_yields_every_item() {
    in_pools(|_| {
        for n in SIZES {
            let mut items: Vec<usize> = (0..n).par_bridge().map(|x| x * 3).collect();
            items.sort_unstable();
            assert_eq!(items, (0..n).map(|x| x * 3).collect::<Vec<_>>());
            let words = random_words(n, 45);
            let total: usize = words.iter().par_bridge().map(String::len).sum();
            assert_eq!(total, words.iter().map(String::len).sum::<usize>());
        }
    });
}

#[test]
fn par_bridge_over_a_source_that_is_itself_parallel() {
    // Each `next()` of the source runs a parallel sum. A worker waiting on that inner sum may
    // pick up another piece of the bridge; this must not deadlock on the bridge's lock.
    let inner = |i: u64| {
        (0..2000u64)
            .into_par_iter()
            .map(|j| (i * j) % 7)
            .sum::<u64>()
    };
    let expected: u64 = (0..300u64).map(|i| inner(i) % 1000).sum();
    in_pools(|_| {
        let source = (0..300u64).map(inner);
        let total: u64 = source.par_bridge().map(|s| s % 1000).sum();
        assert_eq!(total, expected);
        let nested: u64 = (0..300u64)
            .map(inner)
            .par_bridge()
            .map(|s| (0..s % 50).into_par_iter().sum::<u64>())
            .sum();
        assert_eq!(
            nested,
            (0..300u64).map(|i| (0..inner(i) % 50).sum::<u64>()).sum()
        );
    });
}
