//! The producer contract, checked for every indexed source and adapter: splitting a
//! producer at any index (and splitting the pieces again) gives pieces whose items,
//! concatenated, are exactly the unsplit items; each piece's iterator reports its exact
//! length and runs the same backwards.

use std::fmt::Debug;

use weft::iter::plumbing::{Producer, ProducerCallback};
use weft::iter::Either;
use weft::prelude::*;

/// Collects a producer's items, checking `len()` and `rev()` on the way.
fn drain<P: Producer>(producer: P) -> Vec<P::Item>
where
    P::Item: Debug + PartialEq,
{
    let iter = producer.into_iter();
    let claimed = iter.len();
    let items: Vec<P::Item> = iter.collect();
    assert_eq!(items.len(), claimed, "ExactSizeIterator::len is wrong");
    items
}

struct Whole;
impl<T: Debug + PartialEq> ProducerCallback<T> for Whole {
    type Output = Vec<T>;
    fn callback<P: Producer<Item = T>>(self, producer: P) -> Vec<T> {
        drain(producer)
    }
}

struct Backwards;
impl<T: Debug + PartialEq> ProducerCallback<T> for Backwards {
    type Output = Vec<T>;
    fn callback<P: Producer<Item = T>>(self, producer: P) -> Vec<T> {
        producer.into_iter().rev().collect()
    }
}

/// Splits at `first`, then the left piece at `left_at` and the right piece at `right_at`.
struct SplitTwice {
    first: usize,
    left_at: usize,
    right_at: usize,
}
impl<T: Debug + PartialEq> ProducerCallback<T> for SplitTwice {
    type Output = [Vec<T>; 4];
    fn callback<P: Producer<Item = T>>(self, producer: P) -> [Vec<T>; 4] {
        let (left, right) = producer.split_at(self.first);
        let (a, b) = left.split_at(self.left_at);
        let (c, d) = right.split_at(self.right_at);
        [drain(a), drain(b), drain(c), drain(d)]
    }
}

/// Checks the contract for the iterators `make` builds (each call a fresh, equal one).
fn check<I, F>(name: &str, make: F)
where
    F: Fn() -> I,
    I: IndexedParallelIterator,
    I::Item: Debug + PartialEq,
{
    let len = make().len();
    let whole = make().with_producer(Whole);
    assert_eq!(whole.len(), len, "{name}: len() disagrees with the items");
    let mut backwards = make().with_producer(Backwards);
    backwards.reverse();
    assert_eq!(backwards, whole, "{name}: rev() differs");
    for first in 0..=len {
        for left_at in 0..=first {
            for right_at in 0..=len - first {
                let pieces = make().with_producer(SplitTwice {
                    first,
                    left_at,
                    right_at,
                });
                let lens: Vec<usize> = pieces.iter().map(Vec::len).collect();
                let expected = [left_at, first - left_at, right_at, len - first - right_at];
                assert_eq!(
                    lens, expected,
                    "{name}: piece lengths at {first}/{left_at}/{right_at}"
                );
                let joined: Vec<I::Item> = pieces.into_iter().flatten().collect();
                assert_eq!(
                    joined, whole,
                    "{name}: pieces at {first}/{left_at}/{right_at}"
                );
            }
        }
    }
}

const N: usize = 13;

#[test]
fn sources() {
    let v: Vec<u32> = (0..N as u32).map(|x| x * 7 % 5).collect();
    check("range u8", || (3..3 + N as u8).into_par_iter());
    check("range i32 negative", || {
        (-7..(N as i32 - 7)).into_par_iter()
    });
    check("range empty", || (5..5usize).into_par_iter());
    check("range_inclusive u8 to max", || {
        (250..=255u8).into_par_iter()
    });
    check("range_inclusive i16", || (-3..=9i16).into_par_iter());
    check("char range over surrogates", || {
        ('\u{D7F9}'..'\u{E004}').into_par_iter()
    });
    check("char range inclusive", || ('a'..='m').into_par_iter());
    check("slice", || v.par_iter());
    check("slice mut (as values)", || {
        let leaked: &'static mut [u32] = Box::leak(v.clone().into_boxed_slice());
        leaked.par_iter_mut().map(|x| *x)
    });
    check("vec by value", || v.clone().into_par_iter());
    check("array by value", || [1, 2, 3, 4, 5].into_par_iter());
    check("option some", || Some(3).into_par_iter());
    check("option none", || None::<i32>.into_par_iter());
    check("empty", weft::iter::empty::<u8>);
    check("once", || weft::iter::once('x'));
    check("repeat_n", || weft::iter::repeat_n("r", N));
    check("bytes", || "hello, wörld".par_bytes());
    check("either", || {
        Either::<_, weft::range::Iter<u32>>::Left(v.clone().into_par_iter())
    });
    for size in [1, 2, 3, 5, 20] {
        check("chunks", || v.par_chunks(size));
        check("chunks_exact", || v.par_chunks_exact(size));
        check("rchunks", || v.par_rchunks(size));
        check("rchunks_exact", || v.par_rchunks_exact(size));
        check("chunks_exact_mut (as vectors)", || {
            let leaked: &'static mut [u32] = Box::leak(v.clone().into_boxed_slice());
            leaked.par_chunks_exact_mut(size).map(|c| c.to_vec())
        });
        check("rchunks_exact_mut (as vectors)", || {
            let leaked: &'static mut [u32] = Box::leak(v.clone().into_boxed_slice());
            leaked.par_rchunks_exact_mut(size).map(|c| c.to_vec())
        });
        check("windows", || v.par_windows(size));
    }
    check("array_windows::<1>", || v.par_array_windows::<1>());
    check("array_windows::<3>", || v.par_array_windows::<3>());
}

#[test]
fn drain_source() {
    let v: Vec<String> = (0..N).map(|i| i.to_string()).collect();
    let drained = std::cell::RefCell::new(Vec::new());
    check("par_drain middle", || {
        let mut copy = v.clone();
        let iter_items: Vec<String> = copy.par_drain(3..10).collect();
        drained.borrow_mut().push(copy.len());
        iter_items.into_par_iter()
    });
    assert!(drained.borrow().iter().all(|&len| len == N - 7));
}

#[test]
fn adapters() {
    let v: Vec<i64> = (0..N as i64).map(|x| (x * 37) % 11 - 5).collect();
    let w: Vec<i64> = (0..9).collect();
    check("map", || v.par_iter().map(|x| x * 2));
    check("cloned", || v.par_iter().cloned());
    check("copied", || v.par_iter().copied());
    check("enumerate", || v.par_iter().enumerate());
    check("zip shorter right", || v.par_iter().zip(&w));
    check("zip shorter left", || w.par_iter().zip(&v));
    check("zip_eq", || v.par_iter().zip_eq(v.par_iter().rev()));
    check("chain", || v.par_iter().chain(&w));
    check("rev", || v.par_iter().rev());
    check("skip", || v.par_iter().skip(4));
    check("take", || v.par_iter().take(4));
    check("inspect", || v.par_iter().inspect(|_| ()));
    check("update", || v.par_iter().copied().update(|x| *x += 1));
    check("map_with", || v.par_iter().map_with(3, |k, x| *k * x));
    check("map_init", || v.par_iter().map_init(|| 2, |k, x| *k + x));
    check("with_min_len", || v.par_iter().with_min_len(4));
    check("with_max_len", || v.par_iter().with_max_len(2));
    check("intersperse", || v.par_iter().copied().intersperse(100));
    for step in [1, 2, 3, 20] {
        check("step_by", || v.par_iter().step_by(step));
        check("chunks", || v.par_iter().chunks(step));
    }
    for (a, b) in [(0, 0), (0, 5), (5, 0), (4, 4), (7, 3), (3, 8)] {
        check("interleave", || v[..a].par_iter().interleave(&w[..b]));
        check("interleave_shortest", || {
            v[..a].par_iter().interleave_shortest(&w[..b])
        });
    }
    for size in [1, 3, 20] {
        check("fold_chunks", || {
            v.par_iter().fold_chunks(size, || 0, |a, b| a * 3 + b)
        });
        check("fold_chunks_with", || {
            v.par_iter().fold_chunks_with(size, 1, |a, b| a * 3 + b)
        });
    }
}
