//! Oracle tests for the adapters of issue #3: each parallel adapter chain must give the same
//! result as the std sequential iterator on seeded random inputs of every size in
//! `common::SIZES`, inside pools of 1, 2, 3 and 8 threads.
//!
//! Adapters whose order or count is not fixed by their contract (`take_any`, `skip_any`,
//! `take_any_while`, `skip_any_while`, `while_some`) are checked against the guarantees
//! Rayon documents, not against one particular sequential run.

use crate::common;

use common::par::prelude::*;
use common::{in_pools, random_u32s, SIZES};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Runs `check(n, input)` for every size in every pool; `input` is a fresh random vector.
fn each_input(seed: u64, check: impl Fn(usize, Vec<u32>) + Sync) {
    in_pools(|_threads| {
        for n in SIZES {
            check(n, random_u32s(n, 1000, seed));
        }
    });
}

/// True when `part` appears in `whole` in the same relative order.
fn is_subsequence<T: PartialEq>(part: &[T], whole: &[T]) -> bool {
    let mut rest = whole.iter();
    part.iter().all(|x| rest.any(|y| y == x))
}

#[test]
fn map_filter_filter_map() {
    each_input(1, |_, v| {
        let mapped: Vec<u64> = v.par_iter().map(|&x| u64::from(x) * 3 + 1).collect();
        assert_eq!(
            mapped,
            v.iter().map(|&x| u64::from(x) * 3 + 1).collect::<Vec<_>>()
        );

        let kept: Vec<u32> = v.par_iter().copied().filter(|x| x % 3 == 0).collect();
        assert_eq!(
            kept,
            v.iter().copied().filter(|x| x % 3 == 0).collect::<Vec<_>>()
        );

        let halves: Vec<u32> = v
            .par_iter()
            .filter_map(|&x| (x % 2 == 0).then_some(x / 2))
            .collect();
        let expected: Vec<u32> = v
            .iter()
            .filter_map(|&x| (x % 2 == 0).then_some(x / 2))
            .collect();
        assert_eq!(halves, expected);
    });
}

#[test]
fn map_with_clones_state_and_keeps_order() {
    each_input(2, |_, v| {
        let (sender, receiver) = mpsc::channel();
        let doubled: Vec<u32> = v
            .par_iter()
            .map_with(sender, |sender, &x| {
                sender.send(x).unwrap();
                x * 2
            })
            .collect();
        assert_eq!(doubled, v.iter().map(|x| x * 2).collect::<Vec<_>>());
        let mut seen: Vec<u32> = receiver.iter().collect();
        let mut expected = v.clone();
        seen.sort_unstable();
        expected.sort_unstable();
        assert_eq!(seen, expected);

        let offset: Vec<u32> = v.par_iter().map_with(7u32, |k, &x| x + *k).collect();
        assert_eq!(offset, v.iter().map(|x| x + 7).collect::<Vec<_>>());
    });
}

#[test]
fn map_init_calls_init_and_keeps_order() {
    each_input(3, |n, v| {
        let inits = AtomicUsize::new(0);
        let out: Vec<u32> = v
            .par_iter()
            .map_init(
                || {
                    inits.fetch_add(1, Ordering::Relaxed);
                    Vec::<u32>::new()
                },
                |scratch, &x| {
                    scratch.push(x); // state is per-init, mutable, and reused
                    x + 1
                },
            )
            .collect();
        assert_eq!(out, v.iter().map(|x| x + 1).collect::<Vec<_>>());
        if n > 0 {
            assert!(inits.load(Ordering::Relaxed) >= 1);
        }
    });
}

#[test]
fn flat_map_and_flatten() {
    each_input(4, |_, v| {
        let expected: Vec<u32> = v.iter().flat_map(|&x| 0..x % 5).collect();
        let par_nested: Vec<u32> = v
            .par_iter()
            .flat_map(|&x| (0..x % 5).into_par_iter())
            .collect();
        assert_eq!(par_nested, expected);
        let seq_nested: Vec<u32> = v.par_iter().flat_map_iter(|&x| 0..x % 5).collect();
        assert_eq!(seq_nested, expected);

        let nested: Vec<Vec<u32>> = v.iter().map(|&x| (0..x % 5).collect()).collect();
        let flat: Vec<u32> = nested.clone().into_par_iter().flatten().collect();
        assert_eq!(flat, expected);
        let flat_iter: Vec<u32> = nested.into_par_iter().flatten_iter().collect();
        assert_eq!(flat_iter, expected);
    });
}

/// Zips whose sides both yield exactly their lengths (slices and `map`, `copied`,
/// `enumerate`, `zip` over them) take the right side's items without an end test; checked
/// with the short-circuiting consumers that pull pairs one by one, shorter side first and
/// second, and against a side without that guarantee (`step_by`).
#[test]
fn zips_of_exact_sides_in_searches() {
    each_input(23, |n, v| {
        let w: Vec<u32> = random_u32s(n / 3 + 2, 1000, 24);
        let f = |x: &u32| x % 7;
        let g = |x: &u32| x % 5;
        for (a, b) in [(&v, &w), (&w, &v)] {
            let par = || a.par_iter().map(f).zip(b.par_iter().map(g));
            let seq = || a.iter().map(f).zip(b.iter().map(g));
            let hit = |&(x, y): &(u32, u32)| x == y + 3;
            assert_eq!(
                par().position_first(|p| hit(&p)),
                seq().position(|p| hit(&p))
            );
            assert_eq!(par().find_first(hit), seq().find(hit));
            assert_eq!(
                par().all(|(x, y)| x < 7 && y < 5),
                seq().all(|(x, y)| x < 7 && y < 5)
            );
            assert_eq!(par().any(|p| hit(&p)), seq().any(|p| hit(&p)));
            let nested = a
                .par_iter()
                .copied()
                .enumerate()
                .zip(b.par_iter().zip(a.par_iter()))
                .find_last(|&((i, x), (y, z))| (i as u32 + x + y + z) % 11 == 0);
            let nested_seq = a
                .iter()
                .copied()
                .enumerate()
                .zip(b.iter().zip(a.iter()))
                .rfind(|&((i, x), (y, z))| (i as u32 + x + y + z) % 11 == 0);
            assert_eq!(nested, nested_seq);
            let stepped = a
                .par_iter()
                .map(f)
                .zip(b.par_iter().step_by(2).map(g))
                .position_first(|p| hit(&p));
            let stepped_seq = a
                .iter()
                .map(f)
                .zip(b.iter().step_by(2).map(g))
                .position(|p| hit(&p));
            assert_eq!(stepped, stepped_seq);
        }
        let doubled: Vec<u32> = v.iter().map(|x| x * 2).collect();
        assert!(v.par_iter().map(|x| x * 2).eq(doubled.par_iter().copied()));
        let mut changed = doubled.clone();
        if let Some(last) = changed.last_mut() {
            *last += 1;
        }
        assert_eq!(
            v.par_iter().map(|x| x * 2).eq(changed.par_iter().copied()),
            n == 0
        );
    });
}

#[test]
fn enumerate_zip_zip_eq() {
    each_input(5, |n, v| {
        let pairs: Vec<(usize, u32)> = v.par_iter().copied().enumerate().collect();
        assert_eq!(pairs, v.iter().copied().enumerate().collect::<Vec<_>>());

        let other = random_u32s(n / 2 + 1, 50, 55);
        let zipped: Vec<(u32, u32)> = v
            .par_iter()
            .copied()
            .zip(other.par_iter().copied())
            .collect();
        let expected: Vec<(u32, u32)> = v.iter().copied().zip(other.iter().copied()).collect();
        assert_eq!(zipped, expected);
        // The shorter side first, folded by a sum: the leaf loop driven by `a`.
        let dot: u64 = other
            .par_iter()
            .zip(v.par_iter())
            .map(|(&a, &b)| u64::from(a) * u64::from(b))
            .sum();
        let expected_dot: u64 = other
            .iter()
            .zip(&v)
            .map(|(&a, &b)| u64::from(a) * u64::from(b))
            .sum();
        assert_eq!(dot, expected_dot);

        let same_len: Vec<u32> = v.iter().map(|x| x ^ 1).collect();
        let eq_zipped: Vec<u32> = v.par_iter().zip_eq(&same_len).map(|(a, b)| a + b).collect();
        assert_eq!(
            eq_zipped,
            v.iter()
                .zip(&same_len)
                .map(|(a, b)| a + b)
                .collect::<Vec<_>>()
        );
    });
}

#[test]
fn chain_indexed_and_unindexed() {
    each_input(6, |n, v| {
        let tail = random_u32s(n / 3, 1000, 66);
        let chained: Vec<u32> = v.par_iter().chain(&tail).copied().collect();
        assert_eq!(chained, v.iter().chain(&tail).copied().collect::<Vec<_>>());
        assert_eq!(v.par_iter().chain(&tail).len(), n + tail.len());

        let odd_then_even: Vec<u32> = v
            .par_iter()
            .copied()
            .filter(|x| x % 2 == 1)
            .chain(tail.par_iter().copied().filter(|x| x % 2 == 0))
            .collect();
        let expected: Vec<u32> = v
            .iter()
            .copied()
            .filter(|x| x % 2 == 1)
            .chain(tail.iter().copied().filter(|x| x % 2 == 0))
            .collect();
        assert_eq!(odd_then_even, expected);
    });
}

#[test]
fn cloned_copied_inspect_update() {
    each_input(7, |_, v| {
        let words: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        let cloned: Vec<String> = words.par_iter().cloned().collect();
        assert_eq!(cloned, words);
        let copied: Vec<u32> = v.par_iter().copied().collect();
        assert_eq!(copied, v);

        let calls = AtomicUsize::new(0);
        let sum_seen = AtomicUsize::new(0);
        let total: u64 = v
            .par_iter()
            .inspect(|&&x| {
                calls.fetch_add(1, Ordering::Relaxed);
                sum_seen.fetch_add(x as usize, Ordering::Relaxed);
            })
            .map(|&x| u64::from(x))
            .sum();
        let expected: u64 = v.iter().map(|&x| u64::from(x)).sum();
        assert_eq!(total, expected);
        assert_eq!(calls.load(Ordering::Relaxed), v.len());
        assert_eq!(sum_seen.load(Ordering::Relaxed) as u64, expected);

        let updated: Vec<u32> = v.par_iter().copied().update(|x| *x += 10).collect();
        assert_eq!(updated, v.iter().map(|x| x + 10).collect::<Vec<_>>());
    });
}

#[test]
fn skip_take_rev_step_by() {
    each_input(8, |n, v| {
        for k in [0, 1, n / 2, n.saturating_sub(1), n, n + 5] {
            let skipped: Vec<u32> = v.par_iter().copied().skip(k).collect();
            assert_eq!(
                skipped,
                v.iter().copied().skip(k).collect::<Vec<_>>(),
                "skip({k})"
            );
            let taken: Vec<u32> = v.par_iter().copied().take(k).collect();
            assert_eq!(
                taken,
                v.iter().copied().take(k).collect::<Vec<_>>(),
                "take({k})"
            );
            assert_eq!(v.par_iter().skip(k).len(), n.saturating_sub(k));
            assert_eq!(v.par_iter().take(k).len(), k.min(n));
        }
        let reversed: Vec<u32> = v.par_iter().copied().rev().collect();
        assert_eq!(reversed, v.iter().copied().rev().collect::<Vec<_>>());
        let rev_enum: Vec<(usize, u32)> = v.par_iter().copied().rev().enumerate().collect();
        assert_eq!(
            rev_enum,
            v.iter().copied().rev().enumerate().collect::<Vec<_>>()
        );
        for step in [1, 2, 3, 7, n + 1] {
            let stepped: Vec<u32> = v.par_iter().copied().step_by(step).collect();
            let expected: Vec<u32> = v.iter().copied().step_by(step).collect();
            assert_eq!(stepped, expected, "step_by({step})");
            assert_eq!(v.par_iter().step_by(step).len(), expected.len());
        }
    });
}

#[test]
fn chunks_of_an_iterator() {
    each_input(9, |_, v| {
        for size in [1, 2, 3, 7, 64] {
            let chunks: Vec<Vec<u32>> = v.par_iter().copied().chunks(size).collect();
            let expected: Vec<Vec<u32>> = v.chunks(size).map(<[u32]>::to_vec).collect();
            assert_eq!(chunks, expected, "chunks({size})");
        }
    });
}

/// Chunks consumed by a reduction (each leaf folds its run of chunks in one `fold`), with
/// every chunk's position in the result: a chunk cut wrong, dropped, repeated or empty
/// changes it.
#[test]
fn chunks_folded_by_a_reduction() {
    let step = |a: u64, x: &u32| a.wrapping_mul(31).wrapping_add(u64::from(*x));
    // A chunk's weight: its items folded in order, and its length.
    let weigh = |c: &[u32]| (c.iter().fold(0, step), c.len() as u64);
    // Nonzero for every chunk, an empty one included, and different at each position.
    let placed =
        |(i, (sum, len)): (usize, (u64, u64))| (sum ^ ((len + 1) << 48)).rotate_left(i as u32 % 64);
    each_input(11, |_, v| {
        for size in [1, 2, 3, 7, 64] {
            let expected = v
                .chunks(size)
                .map(weigh)
                .enumerate()
                .map(placed)
                .fold(0, |a, b| a ^ b);
            let folded = v
                .par_iter()
                .fold_chunks(size, || (0, 0), |(sum, len), x| (step(sum, x), len + 1))
                .enumerate()
                .map(placed)
                .reduce(|| 0, |a, b| a ^ b);
            assert_eq!(folded, expected, "fold_chunks({size})");
            let gathered = v
                .par_iter()
                .copied()
                .chunks(size)
                .map(|c| weigh(&c))
                .enumerate()
                .map(placed)
                .reduce(|| 0, |a, b| a ^ b);
            assert_eq!(gathered, expected, "chunks({size})");
        }
    });
}

#[test]
fn interleave_and_intersperse() {
    each_input(10, |n, v| {
        for other_len in [0, n / 2, n, n + 3] {
            let other = random_u32s(other_len, 1000, 100 + other_len as u64);
            let woven: Vec<u32> = v.par_iter().interleave(&other).copied().collect();
            let mut expected = Vec::new();
            for i in 0..n.max(other_len) {
                expected.extend(v.get(i));
                expected.extend(other.get(i));
            }
            assert_eq!(woven, expected, "interleave with {other_len}");
            assert_eq!(v.par_iter().interleave(&other).len(), n + other_len);
        }

        let spaced: Vec<u32> = v.par_iter().copied().intersperse(9999).collect();
        let mut expected = Vec::new();
        for (i, &x) in v.iter().enumerate() {
            if i > 0 {
                expected.push(9999);
            }
            expected.push(x);
        }
        assert_eq!(spaced, expected);
    });
}

#[test]
fn split_length_hints_do_not_change_results() {
    each_input(11, |_, v| {
        let expected: Vec<u32> = v.iter().map(|x| x * 2).collect();
        for len in [1, 2, 1000] {
            let min: Vec<u32> = v.par_iter().with_min_len(len).map(|x| x * 2).collect();
            assert_eq!(min, expected, "with_min_len({len})");
            let max: Vec<u32> = v.par_iter().with_max_len(len).map(|x| x * 2).collect();
            assert_eq!(max, expected, "with_max_len({len})");
        }
        let fused: Vec<u32> = v.par_iter().panic_fuse().map(|x| x * 2).collect();
        assert_eq!(fused, expected);
    });
}

#[test]
fn positions() {
    each_input(12, |_, v| {
        let found: Vec<usize> = v.par_iter().positions(|x| x % 7 == 0).collect();
        let expected: Vec<usize> = v
            .iter()
            .enumerate()
            .filter(|(_, x)| *x % 7 == 0)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(found, expected);
    });
}

#[test]
fn while_some_stops_at_none_and_keeps_order() {
    each_input(13, |n, v| {
        // No `None`: every item comes through, in order.
        let all: Vec<u32> = v.par_iter().map(|&x| Some(x)).while_some().collect();
        assert_eq!(all, v);

        // A `None` somewhere: only `Some` values, as a subsequence of the input. How many of
        // them arrive is not specified.
        if n > 0 {
            let stop = n / 2;
            let some: Vec<u32> = v
                .par_iter()
                .enumerate()
                .map(|(i, &x)| (i != stop).then_some(x))
                .while_some()
                .collect();
            let without_stop: Vec<u32> = v
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != stop)
                .map(|(_, &x)| x)
                .collect();
            assert!(some.len() < n);
            assert!(is_subsequence(&some, &without_stop));
        }
    });
}

#[test]
fn while_some_sum_keeps_every_item_it_produced() {
    each_input(15, |n, v| {
        // No `None`: the sum (a fold, not a collect) is the whole input's.
        let expected: u64 = v.iter().map(|&x| u64::from(x)).sum();
        let all: u64 = v.par_iter().map(|&x| Some(u64::from(x))).while_some().sum();
        assert_eq!(all, expected);

        // A `None` in the middle: every `Some` the map produced is in the sum (none thrown
        // away after the stop: weft's documented promise, stronger than Rayon's, whose
        // pieces may drop an item produced after the stop); in a pool of one, exactly the
        // items before it.
        if n > 0 {
            let stop = n / 2;
            let produced = AtomicUsize::new(0);
            let produced_sum = AtomicU64::new(0);
            let sum: u64 = v
                .par_iter()
                .enumerate()
                .map(|(i, &x)| {
                    if i == stop {
                        return None;
                    }
                    produced.fetch_add(1, Ordering::Relaxed);
                    produced_sum.fetch_add(u64::from(x), Ordering::Relaxed);
                    Some(u64::from(x))
                })
                .while_some()
                .sum();
            assert_eq!(sum, produced_sum.load(Ordering::Relaxed));
            if common::par::current_num_threads() == 1 {
                // In order on one thread: everything before the stop, nothing after it.
                let before: u64 = v[..stop].iter().map(|&x| u64::from(x)).sum();
                assert_eq!(sum, before);
                assert_eq!(produced.load(Ordering::Relaxed), stop);
            }
        }
    });
}

#[test]
fn fold_fold_with_try_fold() {
    each_input(14, |_, v| {
        let expected: u64 = v.iter().map(|&x| u64::from(x)).sum();
        let folded: u64 = v
            .par_iter()
            .fold(|| 0u64, |acc, &x| acc + u64::from(x))
            .sum();
        assert_eq!(folded, expected);
        let folded_with: u64 = v
            .par_iter()
            .fold_with(0u64, |acc, &x| acc + u64::from(x))
            .sum();
        assert_eq!(folded_with, expected);

        // Each fold accumulator covers a contiguous run, and the runs come out in order.
        let runs: Vec<Vec<u32>> = v
            .par_iter()
            .fold(Vec::new, |mut run, &x| {
                run.push(x);
                run
            })
            .collect();
        assert_eq!(runs.concat(), v);

        // try_fold with checked arithmetic: no overflow here, so every piece is `Some`.
        let pieces: Option<u64> = v
            .par_iter()
            .try_fold(|| 0u64, |acc, &x| acc.checked_add(u64::from(x)))
            .try_reduce(|| 0, |a, b| a.checked_add(b));
        assert_eq!(pieces, Some(expected));
        let pieces_with: Option<u64> = v
            .par_iter()
            .try_fold_with(0u64, |acc, &x| acc.checked_add(u64::from(x)))
            .try_reduce(|| 0, |a, b| a.checked_add(b));
        assert_eq!(pieces_with, Some(expected));

        // An `Err` from the fold closure reaches the caller.
        let failed: Result<u64, u32> = v
            .par_iter()
            .try_fold(
                || 0u64,
                |acc, &x| if x == 999 { Err(x) } else { Ok(acc + 1) },
            )
            .try_reduce(|| 0, |a, b| Ok(a + b));
        let expected_fail = if v.contains(&999) {
            Err(999)
        } else {
            Ok(v.len() as u64)
        };
        assert_eq!(failed, expected_fail);
    });
}

/// A fold whose accumulator is a heap value made by the identity (a histogram): every piece
/// makes its accumulator where its items are folded, lazily (`Acc` in `fold.rs`); the counts
/// must come out as the sequential loop's, and every accumulator that reaches the output was
/// made by exactly one identity call, pieces without items included.
#[test]
fn fold_into_a_heap_accumulator_made_by_the_identity() {
    each_input(15, |n, v| {
        let mut expected = vec![0u64; 256];
        for &x in &v {
            expected[x as usize % 256] += 1;
        }
        let made = AtomicUsize::new(0);
        let accumulators: Vec<Vec<u64>> = v
            .par_iter()
            .fold(
                || {
                    made.fetch_add(1, Ordering::Relaxed);
                    vec![0u64; 256]
                },
                |mut h, &x| {
                    h[x as usize % 256] += 1;
                    h
                },
            )
            .collect();
        assert_eq!(made.load(Ordering::Relaxed), accumulators.len(), "n = {n}");
        let mut total = vec![0u64; 256];
        for h in &accumulators {
            assert_eq!(h.len(), 256);
            for (t, c) in total.iter_mut().zip(h) {
                *t += c;
            }
        }
        assert_eq!(total, expected, "n = {n}");
        let with: Vec<u64> = v
            .par_iter()
            .fold_with(vec![0u64; 256], |mut h, &x| {
                h[x as usize % 256] += 1;
                h
            })
            .reduce(Vec::new, |a, b| {
                if a.is_empty() {
                    return b;
                }
                a.iter().zip(&b).map(|(x, y)| x + y).collect()
            });
        assert_eq!(with, expected, "fold_with, n = {n}");
    });
}

#[test]
fn try_fold_stops_each_piece_at_its_first_break() {
    // Every piece folds a contiguous run of `0..n` and stops calling the closure at its first
    // `Err` (the one at `bad`); the pieces' results come out in order. So the closure sees
    // every item up to `bad` and every item from the end of the broken piece's run on; the
    // `Ok` sums after the broken piece tell where that run ends.
    in_pools(|threads| {
        let (n, bad) = (20_000u64, 12_345u64);
        let calls = AtomicUsize::new(0);
        let pieces: Vec<Result<u64, u64>> = (0..n)
            .into_par_iter()
            .try_fold(
                || 0u64,
                |acc, x| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    if x == bad {
                        Err(x)
                    } else {
                        Ok(acc + x)
                    }
                },
            )
            .collect();
        let broken = pieces.iter().position(Result::is_err).unwrap();
        assert_eq!(pieces[broken], Err(bad));
        assert_eq!(pieces.iter().filter(|p| p.is_err()).count(), 1);
        // end + (end + 1) + ... + (n - 1) = after.
        let after: u64 = pieces[broken + 1..].iter().map(|p| p.unwrap()).sum();
        let end = (bad + 1..=n)
            .find(|&e| (n * (n - 1) - e * (e - 1)) / 2 == after)
            .unwrap();
        let expected = (bad + 1) + (n - end);
        assert_eq!(
            calls.load(Ordering::Relaxed) as u64,
            expected,
            "{threads} threads: pieces {}",
            pieces.len()
        );
    });
}

#[test]
fn take_any_and_skip_any_counts_and_membership() {
    in_pools(|_| {
        for n in SIZES {
            let v = common::permutation(n, 15);
            for k in [0, 1, n / 3, n, n + 2] {
                let taken: Vec<usize> = v.par_iter().copied().take_any(k).collect();
                assert_eq!(taken.len(), k.min(n), "take_any({k}) of {n}");
                assert!(is_subsequence(&taken, &v), "take_any keeps relative order");

                let kept: Vec<usize> = v.par_iter().copied().skip_any(k).collect();
                assert_eq!(kept.len(), n.saturating_sub(k), "skip_any({k}) of {n}");
                assert!(is_subsequence(&kept, &v), "skip_any keeps relative order");

                // On an unindexed source too.
                let evens = v.iter().filter(|x| *x % 2 == 0).count();
                let taken_even = v.par_iter().filter(|x| *x % 2 == 0).take_any(k).count();
                assert_eq!(taken_even, k.min(evens));

                // Places are claimed in batches where the length is known: whatever comes
                // after `take_any` still sees exactly the taken items, and a source whose
                // pieces have no useful `size_hint` (flat_map_iter) gives the same count.
                let downstream = AtomicUsize::new(0);
                let sum: usize = v
                    .par_iter()
                    .take_any(k)
                    .map(|x| {
                        downstream.fetch_add(1, Ordering::Relaxed);
                        *x
                    })
                    .sum();
                assert_eq!(downstream.load(Ordering::Relaxed), k.min(n));
                assert!(k < n || sum == v.iter().sum::<usize>());
                let pairs = v.par_iter().flat_map_iter(|&x| [x, x]).take_any(k).count();
                assert_eq!(pairs, k.min(2 * n), "take_any({k}) of flat_map_iter");
                let downstream = AtomicUsize::new(0);
                v.par_iter().skip_any(k).for_each(|_| {
                    downstream.fetch_add(1, Ordering::Relaxed);
                });
                assert_eq!(downstream.load(Ordering::Relaxed), n.saturating_sub(k));
                let pairs = v.par_iter().flat_map_iter(|&x| [x, x]).skip_any(k).count();
                assert_eq!(
                    pairs,
                    (2 * n).saturating_sub(k),
                    "skip_any({k}) of flat_map_iter"
                );
            }
        }
    });
}

#[test]
fn take_any_while_and_skip_any_while_guarantees() {
    in_pools(|_| {
        for n in SIZES {
            let v = common::permutation(n, 16);
            let small = |x: &usize| *x < n / 2;

            // Everything taken satisfies the predicate, in input order.
            let taken: Vec<usize> = v.par_iter().copied().take_any_while(small).collect();
            assert!(taken.iter().all(small));
            assert!(is_subsequence(&taken, &v));
            // A predicate that always holds takes everything.
            let all: Vec<usize> = v.par_iter().copied().take_any_while(|_| true).collect();
            assert_eq!(all, v);

            // Items failing the predicate are never skipped; the order is kept.
            let rest: Vec<usize> = v.par_iter().copied().skip_any_while(small).collect();
            let failing: Vec<usize> = v.iter().copied().filter(|x| !small(x)).collect();
            assert!(is_subsequence(&failing, &rest));
            assert!(is_subsequence(&rest, &v));
            let none_skipped: Vec<usize> =
                v.par_iter().copied().skip_any_while(|_| false).collect();
            assert_eq!(none_skipped, v);
            let all_skipped = v.par_iter().skip_any_while(|_| true).count();
            assert_eq!(all_skipped, 0);
        }
    });
}

#[test]
fn adapters_report_their_length() {
    let v = random_u32s(1000, 10, 17);
    assert_eq!(v.par_iter().map(|x| x + 1).opt_len(), Some(1000));
    assert_eq!(v.par_iter().enumerate().rev().len(), 1000);
    assert_eq!(v.par_iter().chunks(7).len(), 143);
    assert_eq!(v.par_iter().step_by(3).len(), 334);
    assert_eq!(v.par_iter().zip(0..10usize).len(), 10);
    assert_eq!(v.par_iter().intersperse(&0).len(), 1999);
    assert_eq!(v.par_iter().filter(|_| true).opt_len(), None);
    assert_eq!(v.par_iter().flat_map_iter(|&x| 0..x).opt_len(), None);
}

/// A `Copy` type whose `Clone` counts its calls (a `Clone` that is not a copy is legal).
#[derive(Copy, Debug, PartialEq)]
struct CountsClones(u32);

static CLONES: AtomicUsize = AtomicUsize::new(0);

#[allow(clippy::non_canonical_clone_impl)] // the point: a `Clone` that is not a copy
impl Clone for CountsClones {
    fn clone(&self) -> Self {
        CLONES.fetch_add(1, Ordering::Relaxed);
        CountsClones(self.0 ^ 1)
    }
}

#[test]
#[allow(clippy::iter_cloned_collect)] // the oracle copies; `to_vec` would clone
fn copied_copies_and_cloned_clones() {
    // Indexed (collect, chunks, sum) and unindexed (after filter) paths alike: `copied`
    // never calls `Clone::clone`, `cloned` calls it once per item.
    each_input(31, |n, v| {
        let items: Vec<CountsClones> = v.iter().map(|&x| CountsClones(x)).collect();
        let before = CLONES.load(Ordering::Relaxed);
        let copied: Vec<CountsClones> = items.par_iter().copied().collect();
        let chunked: Vec<Vec<CountsClones>> = items.par_iter().copied().chunks(7).collect();
        let kept = items.par_iter().copied().filter(|c| c.0 % 2 == 0).count();
        let copies_made = CLONES.load(Ordering::Relaxed) - before;
        assert_eq!(copied, items);
        let expected_chunks: Vec<Vec<CountsClones>> = items
            .chunks(7)
            .map(|c| c.iter().copied().collect())
            .collect();
        assert_eq!(chunked, expected_chunks);
        assert_eq!(kept, v.iter().filter(|&&x| x % 2 == 0).count());

        let cloned: Vec<CountsClones> = items.par_iter().cloned().collect();
        let expected: Vec<CountsClones> = v.iter().map(|&x| CountsClones(x ^ 1)).collect();
        assert_eq!(cloned, expected);
        let odd_sum: u64 = items.par_iter().cloned().map(|c| u64::from(c.0)).sum();
        assert_eq!(odd_sum, v.iter().map(|&x| u64::from(x ^ 1)).sum::<u64>());
        // Other tests in this binary do not use `CountsClones`, and tests of this binary run
        // in parallel, so only this test's own calls are counted.
        let clones_made = CLONES.load(Ordering::Relaxed) - before - copies_made;
        assert_eq!((copies_made, clones_made), (0, 2 * n));
    });
}
