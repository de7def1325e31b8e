//! The producer contract (issue #3, after Rayon's `tests/producer_split_at.rs`): every
//! indexed source and adapter hands its producer to a `ProducerCallback`, and that producer,
//! split at every index `i` and its halves split again at every `j <= i <= k`, must yield
//! exactly the expected items in each piece — forwards, backwards, with the right
//! `ExactSizeIterator::len`, and through `fold_with`.
//!
//! Only public plumbing (`iter::plumbing::{Producer, ProducerCallback, Folder}`) is used, so a
//! custom parallel iterator written for Rayon can be checked the same way against weft.

use crate::common;

use common::par::iter::plumbing::{Folder, Producer, ProducerCallback};
use common::par::prelude::*;
use std::collections::VecDeque;
use std::fmt::Debug;

/// Lengths up to this are split at every `(i, j, k)`; it keeps the cubic loop cheap.
const MAX_LEN: usize = 9;

/// Which pieces one callback checks: split at `i`, then the left part at `j` and the right
/// part at `k - i`.
struct SplitCheck<'a, T> {
    expected: &'a [T],
    i: usize,
    j: usize,
    k: usize,
}

impl<T: PartialEq + Debug> ProducerCallback<T> for SplitCheck<'_, T> {
    type Output = ();

    fn callback<P: Producer<Item = T>>(self, producer: P) {
        let SplitCheck { expected, i, j, k } = self;
        let (left, right) = producer.split_at(i);
        let (left_left, left_right) = left.split_at(j);
        let (right_left, right_right) = right.split_at(k - i);
        check_piece(left_left, &expected[..j], "left-left");
        check_piece(left_right, &expected[j..i], "left-right");
        check_piece(right_left, &expected[i..k], "right-left");
        check_piece(right_right, &expected[k..], "right-right");
    }
}

/// Checks one piece forwards, and splits it once more to check backwards iteration and
/// `fold_with` on its two halves.
fn check_piece<P: Producer>(piece: P, expected: &[P::Item], name: &str)
where
    P::Item: PartialEq + Debug,
{
    let mid = expected.len() / 2;
    let (front, back) = piece.split_at(mid);
    let front_iter = front.into_iter();
    assert_eq!(front_iter.len(), mid, "{name}: len of the front half");
    let front_items: Vec<P::Item> = front_iter.collect();
    assert_eq!(
        front_items,
        &expected[..mid],
        "{name}: front half, forwards"
    );

    let back_items: Vec<P::Item> = back.into_iter().rev().collect();
    let expected_back: Vec<&P::Item> = expected[mid..].iter().rev().collect();
    assert_eq!(
        back_items.iter().collect::<Vec<_>>(),
        expected_back,
        "{name}: back half, backwards"
    );
}

/// A folder that collects what it is given.
struct Collect<T>(Vec<T>);

impl<T> Folder<T> for Collect<T> {
    type Result = Vec<T>;

    fn consume(mut self, item: T) -> Self {
        self.0.push(item);
        self
    }

    fn complete(self) -> Vec<T> {
        self.0
    }

    fn full(&self) -> bool {
        false
    }
}

/// Checks `fold_with` on a whole producer.
struct FoldCheck<'a, T> {
    expected: &'a [T],
}

impl<T: PartialEq + Debug> ProducerCallback<T> for FoldCheck<'_, T> {
    type Output = ();

    fn callback<P: Producer<Item = T>>(self, producer: P) {
        assert!(producer.min_len() <= producer.max_len().max(1));
        let folded = producer.fold_with(Collect(Vec::new())).complete();
        assert_eq!(folded, self.expected, "fold_with");
    }
}

/// Runs the full contract on the producer of `make()`, whose items must equal `expected`.
fn check_producer<I>(name: &str, make: impl Fn() -> I, expected: &[I::Item])
where
    I: IndexedParallelIterator,
    I::Item: PartialEq + Debug,
{
    let n = expected.len();
    assert_eq!(make().len(), n, "{name}: len");
    make().with_producer(FoldCheck { expected });
    for i in 0..=n {
        for j in 0..=i {
            for k in i..=n {
                make().with_producer(SplitCheck { expected, i, j, k });
            }
        }
    }
}

#[test]
fn slice_and_vec_producers() {
    for n in 0..=MAX_LEN {
        let v: Vec<u32> = (0..n as u32).map(|x| x * 7 % 11).collect();
        let refs: Vec<&u32> = v.iter().collect();
        check_producer("par_iter", || v.par_iter(), &refs);
        for size in 1..=4 {
            let chunks: Vec<&[u32]> = v.chunks(size).collect();
            check_producer("par_chunks", || v.par_chunks(size), &chunks);
            let exact: Vec<&[u32]> = v.chunks_exact(size).collect();
            check_producer("par_chunks_exact", || v.par_chunks_exact(size), &exact);
            let rchunks: Vec<&[u32]> = v.rchunks(size).collect();
            check_producer("par_rchunks", || v.par_rchunks(size), &rchunks);
            let windows: Vec<&[u32]> = v.windows(size).collect();
            check_producer("par_windows", || v.par_windows(size), &windows);
        }
        let pairs: Vec<&[u32; 2]> = v.windows(2).map(|w| w.try_into().unwrap()).collect();
        check_producer("par_array_windows", || v.par_array_windows::<2>(), &pairs);
        let triples: Vec<&[u32; 3]> = v.windows(3).map(|w| w.try_into().unwrap()).collect();
        check_producer("par_array_windows", || v.par_array_windows::<3>(), &triples);
        let words: Vec<String> = v.iter().map(u32::to_string).collect();
        check_producer("Vec by value", || words.clone().into_par_iter(), &words);
        let deque: VecDeque<u32> = v.iter().copied().collect();
        let deque_refs: Vec<&u32> = deque.iter().collect();
        check_producer("VecDeque", || deque.par_iter(), &deque_refs);
    }
    let array = [1u8, 2, 3, 4, 5];
    check_producer("array", || array.into_par_iter(), &array);
}

#[test]
fn range_and_misc_producers() {
    for n in 0..=MAX_LEN {
        let usizes: Vec<usize> = (3..3 + n).collect();
        check_producer("Range<usize>", || (3..3 + n).into_par_iter(), &usizes);
        let i8s: Vec<i8> = (-4..-4 + n as i8).collect();
        check_producer("Range<i8>", || (-4..-4 + n as i8).into_par_iter(), &i8s);
        let top: Vec<u8> = (255 - n as u8..=255).collect();
        check_producer(
            "RangeInclusive<u8> up to MAX",
            || (255 - n as u8..=255).into_par_iter(),
            &top,
        );
        let start = char::from_u32(0xD7FC).unwrap();
        let chars: Vec<char> = (start..='\u{E004}').take(n).collect();
        if let Some(&last) = chars.last() {
            check_producer(
                "RangeInclusive<char> over surrogates",
                || (start..=last).into_par_iter(),
                &chars,
            );
        }
        let repeated = vec![String::from("r"); n];
        check_producer(
            "repeat_n",
            || common::par::iter::repeat_n(String::from("r"), n),
            &repeated,
        );
    }
    check_producer("Option", || Some(4).into_par_iter(), &[4]);
    check_producer("None", || None::<u8>.into_par_iter(), &[]);
    check_producer("empty", common::par::iter::empty::<u8>, &[]);
    check_producer("once", || common::par::iter::once(9), &[9]);
}

#[test]
fn adapter_producers() {
    for n in 0..=MAX_LEN {
        let v: Vec<u32> = (0..n as u32).map(|x| x * 5 % 13).collect();
        let w: Vec<u32> = (0..n as u32 + 2).collect();
        let expect = |items: Vec<u32>| items;

        check_producer(
            "map",
            || v.par_iter().map(|x| x + 1),
            &expect(v.iter().map(|x| x + 1).collect()),
        );
        check_producer("copied", || v.par_iter().copied(), &v);
        check_producer("cloned", || v.par_iter().cloned(), &v);
        check_producer(
            "rev",
            || v.par_iter().copied().rev(),
            &expect(v.iter().copied().rev().collect()),
        );
        let pairs: Vec<(usize, u32)> = v.iter().copied().enumerate().collect();
        check_producer("enumerate", || v.par_iter().copied().enumerate(), &pairs);
        let rev_pairs: Vec<(usize, u32)> = v.iter().copied().rev().enumerate().collect();
        check_producer(
            "rev().enumerate()",
            || v.par_iter().copied().rev().enumerate(),
            &rev_pairs,
        );
        let zipped: Vec<(u32, u32)> = v.iter().copied().zip(w.iter().copied()).collect();
        check_producer(
            "zip",
            || v.par_iter().copied().zip(w.par_iter().copied()),
            &zipped,
        );
        for k in [0, 1, n / 2, n, n + 1] {
            check_producer(
                "skip",
                || v.par_iter().copied().skip(k),
                &expect(v.iter().copied().skip(k).collect()),
            );
            check_producer(
                "take",
                || v.par_iter().copied().take(k),
                &expect(v.iter().copied().take(k).collect()),
            );
        }
        for step in 1..=3 {
            let stepped: Vec<u32> = v.iter().copied().step_by(step).collect();
            check_producer("step_by", || v.par_iter().copied().step_by(step), &stepped);
            let chunks: Vec<Vec<u32>> = v.chunks(step).map(<[u32]>::to_vec).collect();
            check_producer("chunks", || v.par_iter().copied().chunks(step), &chunks);
        }
        let short = &w[..n / 2];
        let mut woven = Vec::new();
        for i in 0..n.max(short.len()) {
            woven.extend(v.get(i).copied());
            woven.extend(short.get(i).copied());
        }
        check_producer(
            "interleave",
            || v.par_iter().copied().interleave(short.par_iter().copied()),
            &woven,
        );
        let spaced: Vec<u32> = v.iter().flat_map(|&x| [100, x]).skip(1).collect();
        check_producer(
            "intersperse",
            || v.par_iter().copied().intersperse(100),
            &spaced,
        );
        let chained: Vec<u32> = v.iter().chain(short).copied().collect();
        check_producer("chain", || v.par_iter().chain(short).copied(), &chained);
        check_producer("inspect", || v.par_iter().copied().inspect(|_| {}), &v);
        check_producer(
            "update",
            || v.par_iter().copied().update(|x| *x += 1),
            &expect(v.iter().map(|x| x + 1).collect()),
        );
        check_producer("with_min_len", || v.par_iter().copied().with_min_len(2), &v);
        check_producer("with_max_len", || v.par_iter().copied().with_max_len(2), &v);
        check_producer(
            "map_with",
            || v.par_iter().map_with(1u32, |k, x| x + *k),
            &expect(v.iter().map(|x| x + 1).collect()),
        );
        check_producer(
            "map_init",
            || v.par_iter().map_init(|| 2u32, |k, x| x + *k),
            &expect(v.iter().map(|x| x + 2).collect()),
        );
    }
}
