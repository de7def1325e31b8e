//! `cmp`, `partial_cmp` and `eq` of two indexed iterators: zip them, find the first pair
//! that differs, and fall back to comparing lengths.

use std::cmp::Ordering;

use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

pub(crate) fn cmp<I, J>(left: I, right: J) -> Ordering
where
    I: IndexedParallelIterator,
    J: IntoParallelIterator<Item = I::Item>,
    J::Iter: IndexedParallelIterator,
    I::Item: Ord,
{
    let right = right.into_par_iter();
    let lengths = left.len().cmp(&right.len());
    let first_difference = left
        .zip(right)
        .map(|(a, b)| a.cmp(&b))
        .find_first(|&order| order != Ordering::Equal);
    first_difference.unwrap_or(lengths)
}

pub(crate) fn partial_cmp<I, J>(left: I, right: J) -> Option<Ordering>
where
    I: IndexedParallelIterator,
    J: IntoParallelIterator,
    J::Iter: IndexedParallelIterator,
    I::Item: PartialOrd<J::Item>,
{
    let right = right.into_par_iter();
    let lengths = left.len().cmp(&right.len());
    let first_difference = left
        .zip(right)
        .map(|(a, b)| a.partial_cmp(&b))
        .find_first(|&order| order != Some(Ordering::Equal));
    first_difference.unwrap_or(Some(lengths))
}

pub(crate) fn eq<I, J>(left: I, right: J) -> bool
where
    I: IndexedParallelIterator,
    J: IntoParallelIterator,
    J::Iter: IndexedParallelIterator,
    I::Item: PartialEq<J::Item>,
{
    let right = right.into_par_iter();
    left.len() == right.len() && left.zip(right).all(|(a, b)| a == b)
}
