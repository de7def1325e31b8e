//! The pattern splits of `ParallelString`: a piece splits only at a separator near its
//! middle, dropping the separator, so the pieces of the halves are the pieces of the whole.

use super::{halve, middle_boundary, Pattern, Whitespace};
use crate::iter::plumbing::*;
use crate::iter::ParallelIterator;

/// Iterator over substrings between separators, from [`ParallelString::par_split`](super::ParallelString::par_split).
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Split<'a, P> {
    pub(super) text: &'a str,
    pub(super) separator: P,
}

impl<'a, P: Pattern> ParallelIterator for Split<'a, P> {
    type Item = &'a str;

    fn drive_unindexed<C: UnindexedConsumer<&'a str>>(self, consumer: C) -> C::Result {
        let producer = SplitProducer {
            text: self.text,
            separator: &self.separator,
            inclusive: false,
        };
        bridge_unindexed(producer, consumer)
    }
}

/// Iterator over substrings that each end with a separator (except possibly the last),
/// from [`ParallelString::par_split_inclusive`](super::ParallelString::par_split_inclusive).
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct SplitInclusive<'a, P> {
    pub(super) text: &'a str,
    pub(super) separator: P,
}

impl<'a, P: Pattern> ParallelIterator for SplitInclusive<'a, P> {
    type Item = &'a str;

    fn drive_unindexed<C: UnindexedConsumer<&'a str>>(self, consumer: C) -> C::Result {
        let producer = SplitProducer {
            text: self.text,
            separator: &self.separator,
            inclusive: true,
        };
        bridge_unindexed(producer, consumer)
    }
}

/// `inclusive`: the separator stays at the end of the piece before it.
struct SplitProducer<'a, 'p, P> {
    text: &'a str,
    separator: &'p P,
    inclusive: bool,
}

impl<'a, P: Pattern> UnindexedProducer for SplitProducer<'a, '_, P> {
    type Item = &'a str;

    fn split(self) -> (Self, Option<Self>) {
        let mid = middle_boundary(self.text);
        let (front, back) = self.text.split_at(mid);
        let is_separator = |(_, c): &(usize, char)| self.separator.matches_char(*c);
        let found = match front.char_indices().rev().find(is_separator) {
            Some(found) => Some(found),
            None => back
                .char_indices()
                .find(is_separator)
                .map(|(i, c)| (mid + i, c)),
        };
        match found {
            None => (self, None),
            Some((at, c)) => {
                let (separator, inclusive) = (self.separator, self.inclusive);
                let after = at + c.len_utf8();
                let left_end = if inclusive { after } else { at };
                let left = SplitProducer {
                    text: &self.text[..left_end],
                    separator,
                    inclusive,
                };
                let right = SplitProducer {
                    text: &self.text[after..],
                    separator,
                    inclusive,
                };
                (left, Some(right))
            }
        }
    }

    fn fold_with<F: Folder<&'a str>>(self, folder: F) -> F {
        self.separator
            .fold_splits(self.text, self.inclusive, folder)
    }
}

/// Iterator from [`ParallelString::par_split_terminator`](super::ParallelString::par_split_terminator).
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct SplitTerminator<'a, P> {
    pub(super) split: Split<'a, P>,
    /// The whole string was empty: no substrings at all.
    pub(super) empty: bool,
}

impl<'a, P: Pattern> ParallelIterator for SplitTerminator<'a, P> {
    type Item = &'a str;

    fn drive_unindexed<C: UnindexedConsumer<&'a str>>(self, consumer: C) -> C::Result {
        if self.empty {
            return consumer.into_folder().complete();
        }
        self.split.drive_unindexed(consumer)
    }
}

/// Iterator over lines, from [`ParallelString::par_lines`](super::ParallelString::par_lines).
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    pub(super) lines: SplitTerminator<'a, char>,
}

impl<'a> ParallelIterator for Lines<'a> {
    type Item = &'a str;

    fn drive_unindexed<C: UnindexedConsumer<&'a str>>(self, consumer: C) -> C::Result {
        // The fn item, not a `fn` pointer stored in the struct: a pointer left an indirect
        // call per line in the leaf loop, and LLVM then kept std's `CharSearcher` out of line.
        self.lines
            .map(super::strip_carriage_return)
            .drive_unindexed(consumer)
    }
}

/// Iterator over whitespace-separated words, from
/// [`ParallelString::par_split_whitespace`](super::ParallelString::par_split_whitespace).
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct SplitWhitespace<'a> {
    pub(super) split: Split<'a, Whitespace>,
}

/// Iterator over ASCII-whitespace-separated words, from
/// [`ParallelString::par_split_ascii_whitespace`](super::ParallelString::par_split_ascii_whitespace)
/// (Rayon's name; the same iterator as [`SplitWhitespace`], splitting on ASCII whitespace).
///
/// ```
/// use weft::prelude::*;
///
/// let words: weft::str::SplitAsciiWhitespace<'_> = "a\u{3000}b c".par_split_ascii_whitespace();
/// assert_eq!(words.collect::<Vec<_>>(), ["a\u{3000}b", "c"]);
/// ```
pub type SplitAsciiWhitespace<'a> = SplitWhitespace<'a>;

impl<'a> ParallelIterator for SplitWhitespace<'a> {
    type Item = &'a str;

    fn drive_unindexed<C: UnindexedConsumer<&'a str>>(self, consumer: C) -> C::Result {
        self.split
            .filter(|word: &&str| !word.is_empty())
            .drive_unindexed(consumer)
    }
}

/// Iterator over the matches of a char pattern, from [`ParallelString::par_matches`](super::ParallelString::par_matches).
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Matches<'a, P> {
    pub(super) text: &'a str,
    pub(super) pattern: P,
}

impl<'a, P: Pattern> ParallelIterator for Matches<'a, P> {
    type Item = &'a str;

    fn drive_unindexed<C: UnindexedConsumer<&'a str>>(self, consumer: C) -> C::Result {
        let producer = MatchesProducer {
            text: self.text,
            offset: 0,
            pattern: &self.pattern,
            map: &|_, found| found,
        };
        bridge_unindexed(producer, consumer)
    }
}

/// Iterator over the matches of a char pattern with their byte positions, from
/// [`ParallelString::par_match_indices`](super::ParallelString::par_match_indices).
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct MatchIndices<'a, P> {
    pub(super) text: &'a str,
    pub(super) pattern: P,
}

impl<'a, P: Pattern> ParallelIterator for MatchIndices<'a, P> {
    type Item = (usize, &'a str);

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let producer = MatchesProducer {
            text: self.text,
            offset: 0,
            pattern: &self.pattern,
            map: &|at, found| (at, found),
        };
        bridge_unindexed(producer, consumer)
    }
}

/// The matches of a char pattern in `text` (at byte `offset` of the whole string), each
/// passed through `map(position, match)`. A match is one char, so any char boundary is a
/// valid place to split.
struct MatchesProducer<'a, 'p, P, M> {
    text: &'a str,
    offset: usize,
    pattern: &'p P,
    map: &'p M,
}

impl<'a, T, P, M> UnindexedProducer for MatchesProducer<'a, '_, P, M>
where
    P: Pattern,
    M: Fn(usize, &'a str) -> T + Sync,
{
    type Item = T;

    fn split(self) -> (Self, Option<Self>) {
        match halve(self.text) {
            Some((left, right)) => {
                let right = MatchesProducer {
                    text: right,
                    offset: self.offset + left.len(),
                    ..self
                };
                (MatchesProducer { text: left, ..self }, Some(right))
            }
            None => (self, None),
        }
    }

    fn fold_with<F: Folder<T>>(self, folder: F) -> F {
        self.pattern
            .fold_match_indices(self.text, self.offset, self.map, folder)
    }
}
