//! Oracle tests for the sources of issue #3 other than ranges (iter_ranges.rs), strings
//! (iter_str.rs) and std collections (iter_collections.rs): slices, `Vec` by value and
//! `par_drain`, arrays, `Option`, `Result`, `par_bridge` and
//! `iter::{empty, once, repeat, repeat_n, split}`.

use crate::common;

use common::par;
use common::par::prelude::*;
use common::{in_pools, random_u32s, random_words, SIZES};
use std::ops::Range;

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
        check_array_windows::<1>(&v);
        check_array_windows::<2>(&v);
        check_array_windows::<5>(&v);
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

/// `par_array_windows::<N>` against std's `windows(N)`, each window converted to an array;
/// also from the back (`rev`) and its length.
fn check_array_windows<const N: usize>(v: &[u32]) {
    let expected: Vec<&[u32; N]> = v.windows(N).map(|w| w.try_into().unwrap()).collect();
    let got: Vec<&[u32; N]> = v.par_array_windows::<N>().collect();
    assert_eq!(got, expected, "par_array_windows::<{N}>()");
    let mut backwards: Vec<&[u32; N]> = v.par_array_windows::<N>().rev().collect();
    backwards.reverse();
    assert_eq!(backwards, expected, "par_array_windows::<{N}>().rev()");
    assert_eq!(v.par_array_windows::<N>().len(), expected.len());
}
