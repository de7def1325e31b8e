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

/// The pieces of `text` between occurrences of the ASCII byte `byte` (`str::split`), or, if
/// `inclusive`, each ending with it (`str::split_inclusive`). No byte of a multi-byte
/// UTF-8 char is ASCII, so every match is a char boundary and the search can run over bytes.
pub(super) struct AsciiSplit<'a> {
    /// What is left to split; `None` once the last piece is out.
    rest: Option<&'a str>,
    byte: u8,
    inclusive: bool,
}

impl<'a> AsciiSplit<'a> {
    pub(super) fn new(text: &'a str, byte: u8, inclusive: bool) -> Self {
        debug_assert!(byte.is_ascii());
        AsciiSplit {
            // `split_inclusive` of "" has no pieces; `split` of "" has one, "".
            rest: (!inclusive || !text.is_empty()).then_some(text),
            byte,
            inclusive,
        }
    }
}

impl<'a> Iterator for AsciiSplit<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        match find_byte(rest.as_bytes(), self.byte) {
            Some(at) => {
                let end = if self.inclusive { at + 1 } else { at };
                // SAFETY: `rest[at]` is the ASCII byte `byte`, so `at` and `at + 1` (at most
                // `rest.len()`) are char boundaries of `rest`: no multi-byte char contains
                // an ASCII byte.
                let (piece, after) =
                    unsafe { (rest.get_unchecked(..end), rest.get_unchecked(at + 1..)) };
                // `split_inclusive` leaves no empty piece after a final separator.
                self.rest = (!self.inclusive || !after.is_empty()).then_some(after);
                Some(piece)
            }
            None => {
                self.rest = None;
                Some(rest)
            }
        }
    }
}

/// The occurrences of the ASCII byte `byte` in `text` with their positions
/// (`str::match_indices` of the char).
pub(super) struct AsciiMatches<'a> {
    text: &'a str,
    /// Where the search goes on.
    at: usize,
    byte: u8,
}

impl<'a> AsciiMatches<'a> {
    pub(super) fn new(text: &'a str, byte: u8) -> Self {
        debug_assert!(byte.is_ascii());
        AsciiMatches { text, at: 0, byte }
    }
}

impl<'a> Iterator for AsciiMatches<'a> {
    type Item = (usize, &'a str);

    #[inline]
    fn next(&mut self) -> Option<(usize, &'a str)> {
        let rest = self.text.as_bytes().get(self.at..)?;
        let found = self.at + find_byte(rest, self.byte)?;
        self.at = found + 1;
        // SAFETY: `text[found]` is the ASCII byte `byte`, a char of its own, so `found` and
        // `found + 1` are char boundaries of `text`.
        Some((found, unsafe { self.text.get_unchecked(found..found + 1) }))
    }
}

/// The first position of `byte` in `hay`, reading sixteen bytes per step as two words: a
/// word XOR the byte repeated has a zero byte where the byte was, and
/// `(w - 0x01..01) & !w & 0x80..80` has the high bit of its lowest zero byte set (a borrow
/// can mark bytes above the first zero, never below it). Inlined in the split loop, this
/// beats std's out-of-line `memchr` at every line length measured (8, 80 and 4000 bytes).
#[inline]
fn find_byte(hay: &[u8], byte: u8) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    let pattern = ONES * u64::from(byte);
    // The high bits of the bytes of `word` equal to `byte`, and of none below the first.
    let matches = |word: &[u8]| {
        let w = u64::from_le_bytes(word.try_into().expect("eight bytes")) ^ pattern;
        w.wrapping_sub(ONES) & !w & HIGHS
    };
    // The byte index of the first match in a word's match bits (little-endian order).
    let first = |bits: u64| (bits.trailing_zeros() / 8) as usize;
    let mut pairs = hay.chunks_exact(16);
    let mut at = 0;
    for pair in &mut pairs {
        let (low, high) = (matches(&pair[..8]), matches(&pair[8..]));
        if low | high != 0 {
            // One 128-bit count, not a branch on which word matched: the search then ends
            // with one mispredicted branch per piece instead of two.
            let bits = u128::from(high) << 64 | u128::from(low);
            return Some(at + (bits.trailing_zeros() / 8) as usize);
        }
        at += 16;
    }
    let tail = pairs.remainder();
    if tail.len() >= 8 {
        let low = matches(&tail[..8]);
        if low != 0 {
            return Some(at + first(low));
        }
        at += 8;
    }
    let found = hay[at..].iter().position(|&b| b == byte);
    found.map(|i| at + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `find_byte` against `position` at every length to 40 and every place of the first
    /// match, with the bytes that trip word-at-a-time searches around it: the byte's
    /// neighbours, bytes with the high bit set, and later matches (the borrow of a zero
    /// byte marks the byte above it).
    #[test]
    fn find_byte_is_position() {
        for byte in [b'\n', b',', 0x00, 0x7f] {
            for filler in [
                byte ^ 1,
                byte.wrapping_add(1),
                byte.wrapping_sub(1),
                0x80,
                0xff,
            ] {
                for len in 0..=40 {
                    for first in (0..len).map(Some).chain([None]) {
                        let mut hay = vec![filler; len];
                        if let Some(first) = first {
                            hay[first] = byte;
                            // A second match right after, and one further on.
                            if first + 1 < len {
                                hay[first + 1] = byte;
                            }
                            if first + 9 < len {
                                hay[first + 9] = byte;
                            }
                        }
                        let expected = hay.iter().position(|&b| b == byte);
                        assert_eq!(expected, first);
                        for start in 0..len.min(9) {
                            let want = hay[start..].iter().position(|&b| b == byte);
                            assert_eq!(find_byte(&hay[start..], byte), want, "{hay:?}[{start}..]");
                        }
                    }
                }
            }
        }
    }

    /// `AsciiSplit` and `AsciiMatches` give std's `split` / `split_inclusive` pieces and
    /// `match_indices` matches, for texts with separators at every distance up to 70 bytes
    /// and multi-byte chars between.
    #[test]
    fn ascii_split_and_matches_are_std() {
        let mut texts = vec![String::new(), "\n".into(), "\n\n".into(), "é\n".into()];
        for gap in 0..70 {
            let piece: String = "aé日".chars().cycle().take(gap).collect();
            texts.push([&piece[..], "\n", &piece, "\n\n", &piece].concat());
            texts.push([&piece[..], "\n", &piece, "\n"].concat());
            texts.push(piece);
        }
        for text in &texts {
            let pieces: Vec<&str> = AsciiSplit::new(text, b'\n', false).collect();
            assert_eq!(pieces, text.split('\n').collect::<Vec<_>>(), "{text:?}");
            let pieces: Vec<&str> = AsciiSplit::new(text, b'\n', true).collect();
            assert_eq!(
                pieces,
                text.split_inclusive('\n').collect::<Vec<_>>(),
                "{text:?}"
            );
            let found: Vec<(usize, &str)> = AsciiMatches::new(text, b'\n').collect();
            assert_eq!(
                found,
                text.match_indices('\n').collect::<Vec<_>>(),
                "{text:?}"
            );
        }
    }
}
