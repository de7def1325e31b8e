//! `ParallelString`: chars, char indices, bytes, lines and splits of a `&str`.
//!
//! Every source here is an unindexed producer over a `&str` that splits at a char boundary
//! near its middle. Splits by a pattern split only *at a match* (dropping the separator),
//! so the pieces of the halves are exactly the pieces of the whole.

mod split; // par_split, par_split_terminator, par_lines, par_split_whitespace, par_matches

use crate::iter::plumbing::*;
use crate::iter::{
    Copied, FlatMapIter, IndexedParallelIterator, IntoParallelRefIterator, ParallelIterator,
};
pub use split::{
    Lines, MatchIndices, Matches, Split, SplitAsciiWhitespace, SplitInclusive, SplitTerminator,
    SplitWhitespace,
};

/// A char pattern for `par_split` and friends: a `char`, a slice or array of chars, or a
/// `Fn(char) -> bool` (sealed).
///
/// ```
/// use weft::prelude::*;
///
/// let parts: Vec<&str> = "a-b_c".par_split(['-', '_']).collect();
/// assert_eq!(parts, ["a", "b", "c"]);
/// ```
pub trait Pattern: Sync + Send + sealed::Sealed {
    /// Whether `c` matches.
    #[doc(hidden)]
    fn matches_char(&self, c: char) -> bool;

    /// Folds the substrings of `text` between matches (`str::split`, or
    /// `str::split_inclusive` if `inclusive`), searching with std's searcher for this
    /// pattern (for an ASCII `char`, a word-at-a-time byte search), not char by char.
    #[doc(hidden)]
    fn fold_splits<'a, F: Folder<&'a str>>(&self, text: &'a str, inclusive: bool, folder: F) -> F;

    /// Folds `map(offset + position, match)` over the matches in `text` (`str::match_indices`).
    #[doc(hidden)]
    fn fold_match_indices<'a, T, F, M>(&self, text: &'a str, offset: usize, map: M, folder: F) -> F
    where
        F: Folder<T>,
        M: Fn(usize, &'a str) -> T;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for char {}
    impl Sealed for &[char] {}
    impl<const N: usize> Sealed for [char; N] {}
    impl<const N: usize> Sealed for &[char; N] {}
    impl<F: Fn(char) -> bool> Sealed for F {}
    impl Sealed for super::Whitespace {}
}

/// Implements `Pattern` for a type whose value `$pattern` (with `self` bound to `$this`)
/// is also a std `str` pattern, so that the folds run std's searcher for it.
macro_rules! std_pattern {
    ($this:ident => $pattern:expr) => {
        std_pattern!(splits: $this => $pattern);
        std_pattern!(match_indices: $this => $pattern);
    };
    (splits: $this:ident => $pattern:expr) => {
        fn fold_splits<'a, F: Folder<&'a str>>(
            &$this,
            text: &'a str,
            inclusive: bool,
            folder: F,
        ) -> F {
            if inclusive {
                folder.consume_iter(text.split_inclusive($pattern))
            } else {
                folder.consume_iter(text.split($pattern))
            }
        }
    };
    (match_indices: $this:ident => $pattern:expr) => {
        fn fold_match_indices<'a, T, F, M>(
            &$this,
            text: &'a str,
            offset: usize,
            map: M,
            folder: F,
        ) -> F
        where
            F: Folder<T>,
            M: Fn(usize, &'a str) -> T,
        {
            let matches = text.match_indices($pattern);
            folder.consume_iter(matches.map(|(at, found)| map(offset + at, found)))
        }
    };
}

impl Pattern for char {
    #[inline]
    fn matches_char(&self, c: char) -> bool {
        *self == c
    }

    /// An ASCII char (`'\n'`, `','`, `' '`: the common case) is searched for as a byte,
    /// sixteen at a time ([`split::AsciiSplit`]); std's `CharSearcher` pays a `memchr`
    /// call, and with the needle in a variable a `memcmp`, per piece.
    fn fold_splits<'a, F: Folder<&'a str>>(&self, text: &'a str, inclusive: bool, folder: F) -> F {
        match u8::try_from(*self) {
            Ok(byte) if byte.is_ascii() => {
                folder.consume_iter(split::AsciiSplit::new(text, byte, inclusive))
            }
            _ if inclusive => folder.consume_iter(text.split_inclusive(*self)),
            _ => folder.consume_iter(text.split(*self)),
        }
    }

    /// As for the splits, an ASCII char is searched for as a byte.
    fn fold_match_indices<'a, T, F, M>(&self, text: &'a str, offset: usize, map: M, folder: F) -> F
    where
        F: Folder<T>,
        M: Fn(usize, &'a str) -> T,
    {
        match u8::try_from(*self) {
            Ok(byte) if byte.is_ascii() => {
                let matches = split::AsciiMatches::new(text, byte);
                folder.consume_iter(matches.map(|(at, found)| map(offset + at, found)))
            }
            _ => {
                let matches = text.match_indices(*self);
                folder.consume_iter(matches.map(|(at, found)| map(offset + at, found)))
            }
        }
    }
}

impl Pattern for &[char] {
    #[inline]
    fn matches_char(&self, c: char) -> bool {
        self.contains(&c)
    }
    std_pattern!(self => *self);
}

impl<const N: usize> Pattern for [char; N] {
    #[inline]
    fn matches_char(&self, c: char) -> bool {
        self.contains(&c)
    }
    std_pattern!(self => *self);
}

impl<const N: usize> Pattern for &[char; N] {
    #[inline]
    fn matches_char(&self, c: char) -> bool {
        self.contains(&c)
    }
    std_pattern!(self => *self);
}

impl<Test: Fn(char) -> bool + Sync + Send> Pattern for Test {
    #[inline]
    fn matches_char(&self, c: char) -> bool {
        self(c)
    }
    std_pattern!(self => self);
}

/// The separator of `par_split_whitespace` (Unicode) or `par_split_ascii_whitespace`. A
/// type of its own rather than a `fn(char) -> bool`, so that the test is inlined into the
/// split loop instead of being an indirect call per char.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Whitespace {
    ascii: bool,
}

impl Pattern for Whitespace {
    #[inline]
    fn matches_char(&self, c: char) -> bool {
        if self.ascii {
            c.is_ascii_whitespace()
        } else {
            c.is_whitespace()
        }
    }

    fn fold_splits<'a, F: Folder<&'a str>>(&self, text: &'a str, inclusive: bool, folder: F) -> F {
        match self.ascii {
            true => {
                Pattern::fold_splits(&|c: char| c.is_ascii_whitespace(), text, inclusive, folder)
            }
            false => Pattern::fold_splits(&char::is_whitespace, text, inclusive, folder),
        }
    }

    fn fold_match_indices<'a, T, F, M>(&self, text: &'a str, offset: usize, map: M, folder: F) -> F
    where
        F: Folder<T>,
        M: Fn(usize, &'a str) -> T,
    {
        match self.ascii {
            true => {
                (|c: char| c.is_ascii_whitespace()).fold_match_indices(text, offset, map, folder)
            }
            false => char::is_whitespace.fold_match_indices(text, offset, map, folder),
        }
    }
}

/// Parallel methods on string slices.
///
/// ```
/// use weft::prelude::*;
///
/// assert_eq!("hello world".par_split_whitespace().count(), 2);
/// ```
pub trait ParallelString {
    /// The string the methods work on.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!(String::from("x").as_parallel_string(), "x");
    /// ```
    fn as_parallel_string(&self) -> &str;

    /// The chars.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<char> = "añb".par_chars().collect();
    /// assert_eq!(v, ['a', 'ñ', 'b']);
    /// ```
    fn par_chars(&self) -> Chars<'_> {
        Chars {
            text: self.as_parallel_string(),
        }
    }

    /// The chars with their byte positions.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<(usize, char)> = "añb".par_char_indices().collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'ñ'), (3, 'b')]);
    /// ```
    fn par_char_indices(&self) -> CharIndices<'_> {
        CharIndices {
            text: self.as_parallel_string(),
        }
    }

    /// The bytes (an indexed iterator).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!("abc".par_bytes().map(u32::from).sum::<u32>(), 294);
    /// ```
    fn par_bytes(&self) -> Bytes<'_> {
        Bytes {
            bytes: self.as_parallel_string().as_bytes().par_iter().copied(),
        }
    }

    /// Substrings separated by `separator` (like `str::split`).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<&str> = "a,b,,c".par_split(',').collect();
    /// assert_eq!(v, ["a", "b", "", "c"]);
    /// ```
    fn par_split<P: Pattern>(&self, separator: P) -> Split<'_, P> {
        Split {
            text: self.as_parallel_string(),
            separator,
        }
    }

    /// Like `par_split`, but a trailing empty substring is left out (like
    /// `str::split_terminator`).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<&str> = "a;b;".par_split_terminator(';').collect();
    /// assert_eq!(v, ["a", "b"]);
    /// ```
    fn par_split_terminator<P: Pattern>(&self, terminator: P) -> SplitTerminator<'_, P> {
        let text = self.as_parallel_string();
        let text = match text.chars().next_back() {
            Some(last) if terminator.matches_char(last) => &text[..text.len() - last.len_utf8()],
            _ => text,
        };
        let empty = self.as_parallel_string().is_empty();
        SplitTerminator {
            split: Split {
                text,
                separator: terminator,
            },
            empty,
        }
    }

    /// The lines, without their `\n` or `\r\n` (like `str::lines`).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<&str> = "one\r\ntwo\nthree\n".par_lines().collect();
    /// assert_eq!(v, ["one", "two", "three"]);
    /// ```
    fn par_lines(&self) -> Lines<'_> {
        Lines {
            lines: self.par_split_terminator('\n'),
        }
    }

    /// The non-empty substrings between whitespace (like `str::split_whitespace`).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<&str> = "  a  bc d ".par_split_whitespace().collect();
    /// assert_eq!(v, ["a", "bc", "d"]);
    /// ```
    fn par_split_whitespace(&self) -> SplitWhitespace<'_> {
        SplitWhitespace {
            split: self.par_split(Whitespace { ascii: false }),
        }
    }

    /// The non-empty substrings between ASCII whitespace (like
    /// `str::split_ascii_whitespace`).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<&str> = " a\tb  c".par_split_ascii_whitespace().collect();
    /// assert_eq!(v, ["a", "b", "c"]);
    /// ```
    fn par_split_ascii_whitespace(&self) -> SplitAsciiWhitespace<'_> {
        SplitWhitespace {
            split: self.par_split(Whitespace { ascii: true }),
        }
    }

    /// Substrings that each end with a separator, except possibly the last (like
    /// `str::split_inclusive`).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<&str> = "a\nb\n".par_split_inclusive('\n').collect();
    /// assert_eq!(v, ["a\n", "b\n"]);
    /// ```
    fn par_split_inclusive<P: Pattern>(&self, separator: P) -> SplitInclusive<'_, P> {
        SplitInclusive {
            text: self.as_parallel_string(),
            separator,
        }
    }

    /// The UTF-16 code units of the string (like `str::encode_utf16`).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let units: Vec<u16> = "a𝄞".par_encode_utf16().collect();
    /// assert_eq!(units, "a𝄞".encode_utf16().collect::<Vec<_>>());
    /// ```
    fn par_encode_utf16(&self) -> EncodeUtf16<'_> {
        EncodeUtf16 {
            units: self
                .par_chars()
                .flat_map_iter(utf16_units as fn(char) -> Utf16Units),
        }
    }

    /// The matches of a char pattern with their byte positions (like
    /// `str::match_indices`).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<(usize, &str)> = "abca".par_match_indices('a').collect();
    /// assert_eq!(v, [(0, "a"), (3, "a")]);
    /// ```
    fn par_match_indices<P: Pattern>(&self, pattern: P) -> MatchIndices<'_, P> {
        MatchIndices {
            text: self.as_parallel_string(),
            pattern,
        }
    }

    /// The matches of a char pattern, as substrings (like `str::matches`).
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let v: Vec<&str> = "a1b22".par_matches(char::is_numeric).collect();
    /// assert_eq!(v, ["1", "2", "2"]);
    /// ```
    fn par_matches<P: Pattern>(&self, pattern: P) -> Matches<'_, P> {
        Matches {
            text: self.as_parallel_string(),
            pattern,
        }
    }
}

impl ParallelString for str {
    fn as_parallel_string(&self) -> &str {
        self
    }
}

#[inline]
fn strip_carriage_return(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

/// A char boundary near the middle of `text` (0 if there is none inside).
pub(super) fn middle_boundary(text: &str) -> usize {
    let mid = text.len() / 2;
    (mid..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len())
}

/// Splits `text` at a char boundary near its middle, if both halves are non-empty.
pub(super) fn halve(text: &str) -> Option<(&str, &str)> {
    let at = middle_boundary(text);
    (at > 0 && at < text.len()).then(|| text.split_at(at))
}

/// Iterator over the chars of a string, from [`ParallelString::par_chars`].
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Chars<'a> {
    text: &'a str,
}

impl<'a> ParallelIterator for Chars<'a> {
    type Item = char;

    fn drive_unindexed<C: UnindexedConsumer<char>>(self, consumer: C) -> C::Result {
        bridge_unindexed(CharsProducer { text: self.text }, consumer)
    }
}

struct CharsProducer<'a> {
    text: &'a str,
}

impl UnindexedProducer for CharsProducer<'_> {
    type Item = char;

    fn split(self) -> (Self, Option<Self>) {
        match halve(self.text) {
            Some((left, right)) => (
                CharsProducer { text: left },
                Some(CharsProducer { text: right }),
            ),
            None => (self, None),
        }
    }

    fn fold_with<F: Folder<char>>(self, folder: F) -> F {
        folder.consume_iter(self.text.chars())
    }
}

/// Iterator over chars and their byte positions, from
/// [`ParallelString::par_char_indices`].
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct CharIndices<'a> {
    pub(super) text: &'a str,
}

impl<'a> ParallelIterator for CharIndices<'a> {
    type Item = (usize, char);

    fn drive_unindexed<C: UnindexedConsumer<(usize, char)>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            CharIndicesProducer {
                text: self.text,
                offset: 0,
            },
            consumer,
        )
    }
}

/// `offset` is the byte position of `text` in the whole string.
struct CharIndicesProducer<'a> {
    text: &'a str,
    offset: usize,
}

impl UnindexedProducer for CharIndicesProducer<'_> {
    type Item = (usize, char);

    fn split(self) -> (Self, Option<Self>) {
        match halve(self.text) {
            Some((left, right)) => {
                let right = CharIndicesProducer {
                    text: right,
                    offset: self.offset + left.len(),
                };
                (
                    CharIndicesProducer {
                        text: left,
                        offset: self.offset,
                    },
                    Some(right),
                )
            }
            None => (self, None),
        }
    }

    fn fold_with<F: Folder<(usize, char)>>(self, folder: F) -> F {
        let offset = self.offset;
        folder.consume_iter(self.text.char_indices().map(|(i, c)| (offset + i, c)))
    }
}

/// Iterator over the bytes of a string, from [`ParallelString::par_bytes`].
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Bytes<'a> {
    bytes: Copied<crate::slice::Iter<'a, u8>>,
}

impl ParallelIterator for Bytes<'_> {
    type Item = u8;

    fn drive_unindexed<C: UnindexedConsumer<u8>>(self, consumer: C) -> C::Result {
        self.bytes.drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.bytes.len())
    }
}

impl IndexedParallelIterator for Bytes<'_> {
    fn drive<C: Consumer<u8>>(self, consumer: C) -> C::Result {
        self.bytes.drive(consumer)
    }

    fn len(&self) -> usize {
        self.bytes.len()
    }

    fn with_producer<CB: ProducerCallback<u8>>(self, callback: CB) -> CB::Output {
        self.bytes.with_producer(callback)
    }
}

/// The UTF-16 code units of one char (one or two).
#[derive(Debug, Clone)]
pub struct Utf16Units {
    units: [u16; 2],
    len: u8,
    next: u8,
}

#[inline]
fn utf16_units(c: char) -> Utf16Units {
    let mut units = [0; 2];
    let len = c.encode_utf16(&mut units).len() as u8;
    Utf16Units {
        units,
        len,
        next: 0,
    }
}

impl Iterator for Utf16Units {
    type Item = u16;

    #[inline]
    fn next(&mut self) -> Option<u16> {
        if self.next == self.len {
            return None;
        }
        self.next += 1;
        Some(self.units[usize::from(self.next - 1)])
    }
}

/// Iterator over UTF-16 code units, from [`ParallelString::par_encode_utf16`].
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct EncodeUtf16<'a> {
    units: FlatMapIter<Chars<'a>, fn(char) -> Utf16Units>,
}

impl ParallelIterator for EncodeUtf16<'_> {
    type Item = u16;

    fn drive_unindexed<C: UnindexedConsumer<u16>>(self, consumer: C) -> C::Result {
        self.units.drive_unindexed(consumer)
    }
}
