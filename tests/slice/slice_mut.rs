//! Oracle tests for the mutable slice sources that cut a slice by its contents:
//! `par_chunk_by_mut`, `par_split_mut` and `par_split_inclusive_mut`, against std's
//! `chunk_by_mut`, `split_mut` and `split_inclusive_mut` on seeded random inputs, in pools of
//! 1, 2, 3 and 8 threads; plus the remainders of `par_(r)chunks_exact_mut` and panics in the
//! predicate.

use crate::common;

use common::par::prelude::*;
use common::{in_pools, random_u32s, SIZES};
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};

/// Where each piece lies in `base`, as a range of indices (pieces can be equal in content
/// yet lie elsewhere, and empty pieces have no content at all).
fn spans(base: *const u32, pieces: &[&mut [u32]]) -> Vec<Range<usize>> {
    let item = std::mem::size_of::<u32>();
    pieces
        .iter()
        .map(|piece| {
            let start = (piece.as_ptr() as usize - base as usize) / item;
            start..start + piece.len()
        })
        .collect()
}

/// Checks one way of cutting a slice against its std twin on `input`: the pieces (content and
/// place), then two mutations through them (reverse each piece in parallel; add each piece's
/// index to its items) against the same done through std's pieces.
fn check_cut<Par, Seq>(input: &[u32], what: &str, par_cut: Par, seq_cut: Seq)
where
    Par: for<'a> Fn(&'a mut [u32]) -> Vec<&'a mut [u32]>,
    Seq: for<'a> Fn(&'a mut [u32]) -> Vec<&'a mut [u32]>,
{
    let n = input.len();
    let (mut par_data, mut seq_data) = (input.to_vec(), input.to_vec());
    let (par_base, seq_base) = (par_data.as_ptr(), seq_data.as_ptr());
    let par_pieces = par_cut(&mut par_data);
    let seq_pieces = seq_cut(&mut seq_data);
    let contents = |pieces: &[&mut [u32]]| -> Vec<Vec<u32>> {
        pieces.iter().map(|piece| piece.to_vec()).collect()
    };
    assert_eq!(
        contents(&par_pieces),
        contents(&seq_pieces),
        "{what}: pieces, n = {n}"
    );
    assert_eq!(
        spans(par_base, &par_pieces),
        spans(seq_base, &seq_pieces),
        "{what}: places, n = {n}"
    );

    // Reverse every piece, in parallel, straight from the parallel iterator's pieces.
    let mut par_data = input.to_vec();
    par_cut(&mut par_data)
        .into_par_iter()
        .for_each(|piece| piece.reverse());
    let mut seq_data = input.to_vec();
    seq_cut(&mut seq_data)
        .into_iter()
        .for_each(|piece| piece.reverse());
    assert_eq!(par_data, seq_data, "{what}: reversed pieces, n = {n}");

    // Add each piece's index to its items: the pieces must come in order.
    let mut par_data = input.to_vec();
    par_cut(&mut par_data)
        .into_par_iter()
        .enumerate()
        .for_each(|(i, piece)| piece.iter_mut().for_each(|x| *x += i as u32));
    let mut seq_data = input.to_vec();
    for (i, piece) in seq_cut(&mut seq_data).into_iter().enumerate() {
        piece.iter_mut().for_each(|x| *x += i as u32);
    }
    assert_eq!(par_data, seq_data, "{what}: indexed pieces, n = {n}");
}

/// Inputs of every size in [`SIZES`] (values below 1000) and a few fixed ones with
/// separators and breaks at both ends.
fn each_input(seed: u64, check: impl Fn(&[u32]) + Sync) {
    let fixed: [&[u32]; 4] = [&[0], &[0, 0], &[0, 5, 0, 0, 7, 0], &[5, 0, 5]];
    in_pools(|_threads| {
        for n in SIZES {
            check(&random_u32s(n, 1000, seed));
        }
        for input in fixed {
            check(input);
        }
    });
}

type Separator = fn(&u32) -> bool;

/// Separators for the split tests: many pieces (every tenth value), few (about every 500th
/// item), every item (all pieces empty when dropped) and none (one piece).
const SEPARATORS: [(&str, Separator); 4] = [
    ("many", |x| x % 10 == 0),
    ("few", |x| x % 500 == 0),
    ("every", |_| true),
    ("none", |_| false),
];

type Related = fn(&u32, &u32) -> bool;

/// Predicates for the chunk-by tests: many runs (about every other item), few runs (a break
/// about every 500 items), one run, and one run per item.
const RELATIONS: [(&str, Related); 4] = [
    ("many", |a, b| a <= b),
    ("few", |_, b| b % 500 != 0),
    ("always", |_, _| true),
    ("never", |_, _| false),
];

#[test]
fn chunk_by_mut_split_mut_and_split_inclusive_mut_match_std() {
    each_input(70, |input| {
        for ((name, sep), (relation, pred)) in SEPARATORS.into_iter().zip(RELATIONS) {
            check_cut(
                input,
                &format!("par_split_mut({name})"),
                |s| s.par_split_mut(sep).collect(),
                |s| s.split_mut(sep).collect(),
            );
            check_cut(
                input,
                &format!("par_split_inclusive_mut({name})"),
                |s| s.par_split_inclusive_mut(sep).collect(),
                |s| s.split_inclusive_mut(sep).collect(),
            );
            check_cut(
                input,
                &format!("par_chunk_by_mut({relation})"),
                |s| s.par_chunk_by_mut(pred).collect(),
                |s| s.chunk_by_mut(pred).collect(),
            );
        }
    });
}

#[test]
fn shared_splits_and_chunk_by_match_std() {
    each_input(73, |input| {
        for (name, sep) in SEPARATORS {
            let pieces: Vec<&[u32]> = input.par_split(sep).collect();
            assert_eq!(pieces, input.split(sep).collect::<Vec<_>>(), "{name}");
            let pieces: Vec<&[u32]> = input.par_split_inclusive(sep).collect();
            let expected: Vec<&[u32]> = input.split_inclusive(sep).collect();
            assert_eq!(pieces, expected, "{name}");
        }
        let runs: Vec<&[u32]> = input.par_chunk_by(|a, b| a / 100 == b / 100).collect();
        let expected: Vec<&[u32]> = input.chunk_by(|a, b| a / 100 == b / 100).collect();
        assert_eq!(runs, expected);
    });
}

/// Checks `remainder` and `take_remainder` of `$par(size)` against std's `$seq(size)`: the
/// remainder's content, then reversing every chunk (in parallel) and adding 1 to the
/// remainder taken out of the iterator, against the same through std.
macro_rules! check_exact_mut {
    ($input:expr, $size:expr, $par:ident, $seq:ident) => {{
        let (mut data, mut seq) = ($input.to_vec(), $input.to_vec());
        let mut chunks = data.$par($size);
        assert_eq!(chunks.remainder(), seq.$seq($size).into_remainder());
        let rem = chunks.take_remainder();
        assert!(chunks.take_remainder().is_empty());
        chunks.for_each(|c| c.reverse());
        rem.iter_mut().for_each(|x| *x += 1);
        seq.$seq($size).for_each(|c| c.reverse());
        let seq_rem = seq.$seq($size).into_remainder();
        seq_rem.iter_mut().for_each(|x| *x += 1);
        assert_eq!(data, seq, "{}({})", stringify!($par), $size);
    }};
}

#[test]
fn exact_mut_remainders_match_std() {
    each_input(74, |input| {
        for size in [1, 2, 3, 7, 64, input.len() + 1] {
            check_exact_mut!(input, size, par_chunks_exact_mut, chunks_exact_mut);
            check_exact_mut!(input, size, par_rchunks_exact_mut, rchunks_exact_mut);
        }
    });
}

/// Runs `body`, which must panic with the message `expected`.
fn assert_panics_with(expected: &str, body: impl FnOnce()) {
    let payload = panic::catch_unwind(AssertUnwindSafe(body)).expect_err("the panic was lost");
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
    assert_eq!(message, Some(expected));
}

#[test]
fn a_panicking_predicate_reaches_the_caller() {
    let input = random_u32s(100_003, 1000, 75);
    // Panics on one item near the end, whichever thread tests it.
    let poisoned = input.len() - 7;
    in_pools(|_threads| {
        let mut data = input.clone();
        let base = data.as_ptr() as usize;
        let is_poisoned = |x: &u32| {
            let at = (x as *const u32 as usize - base) / std::mem::size_of::<u32>();
            assert!(at != poisoned, "poisoned item");
            *x % 10 == 0
        };
        assert_panics_with("poisoned item", || {
            data.par_split_mut(is_poisoned).for_each(|s| s.reverse())
        });
        assert_panics_with("poisoned item", || {
            data.par_split_inclusive_mut(is_poisoned)
                .for_each(|s| s.reverse())
        });
        assert_panics_with("poisoned item", || {
            data.par_chunk_by_mut(|a, b| is_poisoned(a) == is_poisoned(b))
                .for_each(|s| s.reverse())
        });
    });
}

#[test]
fn types_are_named_as_in_rayon() {
    use common::par as rayon;
    use rayon::slice::{ChunkBy, ChunkByMut, ParallelSliceMut, SplitInclusive, SplitInclusiveMut};

    let mut v = [1, 2, 0, 3];
    let runs: ChunkByMut<'_, i32, _> = v.par_chunk_by_mut(|a, b| a < b);
    assert_eq!(format!("{runs:?}"), "ChunkByMut { slice: [1, 2, 0, 3] }");
    let parts: SplitInclusiveMut<'_, i32, _> = v.par_split_inclusive_mut(|&x| x == 0);
    assert_eq!(
        format!("{parts:?}"),
        "SplitInclusiveMut { slice: [1, 2, 0, 3] }"
    );
    assert_eq!(parts.count(), 2);

    let runs: ChunkBy<'_, i32, _> = v.par_chunk_by(|a, b| a < b);
    assert_eq!(runs.clone().count(), runs.count());
    let parts: SplitInclusive<'_, i32, _> = v.par_split_inclusive(|&x| x == 0);
    assert_eq!(parts.clone().count(), parts.count());
}
