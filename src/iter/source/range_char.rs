//! `Range<char>` and `RangeInclusive<char>`: the chars are numbered without the surrogate
//! gap (`U+D800..=U+DFFF`), so the range becomes a `u32` range mapped back to chars.

use std::ops::{Range, RangeInclusive};

use super::range::Iter as RangeIter;
use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, Map, ParallelIterator};

const SURROGATES: Range<u32> = 0xD800..0xE000;
const GAP: u32 = SURROGATES.end - SURROGATES.start;

/// The index of `c` among all chars.
fn char_index(c: char) -> u32 {
    let code = u32::from(c);
    if code >= SURROGATES.end {
        code - GAP
    } else {
        code
    }
}

/// The char with index `index` (the inverse of [`char_index`]).
fn index_char(index: u32) -> char {
    let code = if index >= SURROGATES.start {
        index + GAP
    } else {
        index
    };
    char::from_u32(code).expect("indices come from char_index, so they map back to chars")
}

/// A parallel iterator over a range of `char`s (surrogates excluded).
///
/// ```
/// use weft::prelude::*;
///
/// let letters: String = ('a'..='e').into_par_iter().collect();
/// assert_eq!(letters, "abcde");
/// assert_eq!(('\u{D7FF}'..'\u{E001}').into_par_iter().count(), 2);
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct CharIter {
    indices: Range<u32>,
}

impl CharIter {
    fn chars(self) -> Map<RangeIter<u32>, fn(u32) -> char> {
        RangeIter::new(self.indices).map(index_char as fn(u32) -> char)
    }
}

impl IntoParallelIterator for Range<char> {
    type Iter = CharIter;
    type Item = char;

    fn into_par_iter(self) -> CharIter {
        let (start, end) = (char_index(self.start), char_index(self.end));
        CharIter {
            indices: start..Ord::max(start, end),
        }
    }
}

impl IntoParallelIterator for RangeInclusive<char> {
    type Iter = CharIter;
    type Item = char;

    fn into_par_iter(self) -> CharIter {
        let start = char_index(*self.start());
        if self.is_empty() {
            return CharIter {
                indices: start..start,
            };
        }
        CharIter {
            indices: start..char_index(*self.end()) + 1,
        }
    }
}

impl ParallelIterator for CharIter {
    type Item = char;

    fn drive_unindexed<C: UnindexedConsumer<char>>(self, consumer: C) -> C::Result {
        self.chars().drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl IndexedParallelIterator for CharIter {
    fn drive<C: Consumer<char>>(self, consumer: C) -> C::Result {
        self.chars().drive(consumer)
    }

    fn len(&self) -> usize {
        self.indices.len()
    }

    fn with_producer<CB: ProducerCallback<char>>(self, callback: CB) -> CB::Output {
        self.chars().with_producer(callback)
    }
}
