//! `Range<char>` and `RangeInclusive<char>`: the chars are numbered without the surrogate
//! gap (`U+D800..=U+DFFF`), so the range becomes a `u32` range mapped back to chars.

use std::ops::{Range, RangeInclusive};

use super::range::Iter as RangeIter;
use super::range_inclusive::Iter as InclusiveIter;
use crate::iter::plumbing::*;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

const SURROGATES: Range<u32> = 0xD800..0xE000;
const GAP: u32 = SURROGATES.end - SURROGATES.start;

/// The index of `c` among all chars.
#[inline]
fn char_index(c: char) -> u32 {
    let code = u32::from(c);
    if code >= SURROGATES.end {
        code - GAP
    } else {
        code
    }
}

/// The char with index `index` (the inverse of [`char_index`]).
#[inline]
fn index_char(index: u32) -> char {
    let code = if index >= SURROGATES.start {
        index + GAP
    } else {
        index
    };
    char::from_u32(code).expect("indices come from char_index, so they map back to chars")
}

/// `start..end` of `char`s as indices into the surrogate-free numbering.
fn char_indices(range: &Range<char>) -> Range<u32> {
    let (start, end) = (char_index(range.start), char_index(range.end));
    start..Ord::max(start, end)
}

/// `start..=end` of `char`s as a half-open range of indices.
fn inclusive_char_indices(range: &RangeInclusive<char>) -> Range<u32> {
    let start = char_index(*range.start());
    if range.is_empty() {
        return start..start;
    }
    start..char_index(*range.end()) + 1
}

/// The chars with indices in `indices`, as an indexed parallel iterator.
fn chars(indices: Range<u32>) -> impl IndexedParallelIterator<Item = char> {
    // The fn item (zero-sized), not a `fn` pointer: no indirect call per char.
    RangeIter::new(indices).map(index_char)
}

/// A range of `char`s (surrogates excluded) is Rayon's `rayon::range::Iter<char>`.
///
/// ```
/// use weft::prelude::*;
///
/// let letters: weft::range::Iter<char> = ('a'..'f').into_par_iter();
/// assert_eq!(letters.collect::<String>(), "abcde");
/// assert_eq!(('\u{D7FF}'..'\u{E001}').into_par_iter().count(), 2);
/// ```
impl IntoParallelIterator for Range<char> {
    type Iter = RangeIter<char>;
    type Item = char;

    fn into_par_iter(self) -> RangeIter<char> {
        RangeIter::new(self)
    }
}

/// An inclusive range of `char`s (surrogates excluded) is Rayon's
/// `rayon::range_inclusive::Iter<char>`.
///
/// ```
/// use weft::prelude::*;
///
/// let letters: weft::range_inclusive::Iter<char> = ('a'..='e').into_par_iter();
/// assert_eq!(letters.rev().collect::<String>(), "edcba");
/// ```
impl IntoParallelIterator for RangeInclusive<char> {
    type Iter = InclusiveIter<char>;
    type Item = char;

    fn into_par_iter(self) -> InclusiveIter<char> {
        InclusiveIter { range: self }
    }
}

/// Both `char` range iterators run as their index range mapped back to chars.
macro_rules! char_range_iterator {
    ($($iter:ty => $indices:ident;)*) => {$(
        impl ParallelIterator for $iter {
            type Item = char;

            fn drive_unindexed<C: UnindexedConsumer<char>>(self, consumer: C) -> C::Result {
                chars($indices(&self.range)).drive_unindexed(consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl IndexedParallelIterator for $iter {
            fn drive<C: Consumer<char>>(self, consumer: C) -> C::Result {
                chars($indices(&self.range)).drive(consumer)
            }

            fn len(&self) -> usize {
                $indices(&self.range).len()
            }

            fn with_producer<CB: ProducerCallback<char>>(self, callback: CB) -> CB::Output {
                chars($indices(&self.range)).with_producer(callback)
            }
        }
    )*};
}

char_range_iterator! {
    RangeIter<char> => char_indices;
    InclusiveIter<char> => inclusive_char_indices;
}
