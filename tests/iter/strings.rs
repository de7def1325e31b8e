//! Oracle tests for the `str` sources of issue #3 (`ParallelString`): each must give the
//! same items, in the same order, as the std `str` method, on seeded random texts that mix
//! multi-byte chars, whitespace, `\n` and `\r\n`.
//!
//! Rayon's patterns are `char`, `&[char]`, `[char; N]` and `Fn(char) -> bool` closures (not
//! `&str`), so only those are used here.

use crate::common;

use common::par::prelude::*;
use common::{in_pools, random_text, SIZES};

fn each_text(seed: u64, check: impl Fn(&str) + Sync) {
    in_pools(|_| {
        for n in SIZES {
            check(&random_text(n, seed));
        }
        check("");
        check("\n");
        check("\r\n\r\n");
        check("  leading and trailing  ");
    });
}

#[test]
fn chars_char_indices_bytes() {
    each_text(50, |text| {
        assert_eq!(
            text.par_chars().collect::<Vec<_>>(),
            text.chars().collect::<Vec<_>>()
        );
        assert_eq!(text.par_chars().count(), text.chars().count());
        assert_eq!(
            text.par_char_indices().collect::<Vec<_>>(),
            text.char_indices().collect::<Vec<_>>()
        );
        assert_eq!(
            text.par_bytes().collect::<Vec<_>>(),
            text.bytes().collect::<Vec<_>>()
        );
        // Rayon's str iterators are unindexed (no `len`/`rev`); only the item sequence counts.
        assert_eq!(text.par_bytes().count(), text.len());
    });
}

#[test]
fn lines_and_whitespace() {
    each_text(51, |text| {
        assert_eq!(
            text.par_lines().collect::<Vec<_>>(),
            text.lines().collect::<Vec<_>>()
        );
        assert_eq!(
            text.par_split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
    });
}

#[test]
fn split_and_split_terminator() {
    each_text(52, |text| {
        assert_eq!(
            text.par_split(' ').collect::<Vec<_>>(),
            text.split(' ').collect::<Vec<_>>()
        );
        assert_eq!(
            text.par_split('日').collect::<Vec<_>>(),
            text.split('日').collect::<Vec<_>>()
        );
        let set: &[char] = &['a', 'é', '\n'];
        assert_eq!(
            text.par_split(set).collect::<Vec<_>>(),
            text.split(set).collect::<Vec<_>>()
        );
        assert_eq!(
            text.par_split(['z', '🦀']).collect::<Vec<_>>(),
            text.split(['z', '🦀']).collect::<Vec<_>>()
        );
        let upper_or_space = |c: char| c.is_whitespace() || !c.is_ascii();
        assert_eq!(
            text.par_split(upper_or_space).collect::<Vec<_>>(),
            text.split(upper_or_space).collect::<Vec<_>>()
        );
        assert_eq!(
            text.par_split_terminator('\n').collect::<Vec<_>>(),
            text.split_terminator('\n').collect::<Vec<_>>()
        );
        let closing = |c: char| c.is_ascii_digit() || c == 'b' || c == 'ß';
        assert_eq!(
            text.par_split_terminator(closing).collect::<Vec<_>>(),
            text.split_terminator(closing).collect::<Vec<_>>()
        );
    });
}

#[test]
fn matches() {
    each_text(53, |text| {
        assert_eq!(
            text.par_matches('a').collect::<Vec<_>>(),
            text.matches('a').collect::<Vec<_>>()
        );
        assert_eq!(
            text.par_matches(char::is_alphabetic).collect::<Vec<_>>(),
            text.matches(char::is_alphabetic).collect::<Vec<_>>()
        );
        assert_eq!(
            text.par_matches(['ß', '🦀']).count(),
            text.matches(['ß', '🦀']).count()
        );
    });
}

/// Every split and match method, for one pattern of each kind Rayon accepts: each kind
/// folds with its own searcher (std's; a byte search for an ASCII `char`), so each is
/// checked.
macro_rules! check_every_method {
    ($text:expr, $pattern:expr) => {{
        let (text, pattern) = ($text, $pattern);
        let what = stringify!($pattern);
        assert_eq!(
            text.par_split(pattern).collect::<Vec<_>>(),
            text.split(pattern).collect::<Vec<_>>(),
            "split {what}"
        );
        assert_eq!(
            text.par_split_inclusive(pattern).collect::<Vec<_>>(),
            text.split_inclusive(pattern).collect::<Vec<_>>(),
            "split_inclusive {what}"
        );
        assert_eq!(
            text.par_split_terminator(pattern).collect::<Vec<_>>(),
            text.split_terminator(pattern).collect::<Vec<_>>(),
            "split_terminator {what}"
        );
        assert_eq!(
            text.par_matches(pattern).collect::<Vec<_>>(),
            text.matches(pattern).collect::<Vec<_>>(),
            "matches {what}"
        );
        assert_eq!(
            text.par_match_indices(pattern).collect::<Vec<_>>(),
            text.match_indices(pattern).collect::<Vec<_>>(),
            "match_indices {what}"
        );
    }};
}

#[test]
fn every_pattern_kind_and_method() {
    each_text(55, |text| {
        let set: &[char] = &['z', 'ß', ' '];
        let array = ['\n', '日'];
        check_every_method!(text, 'a');
        check_every_method!(text, '日');
        check_every_method!(text, set);
        check_every_method!(text, array);
        check_every_method!(text, &array);
        check_every_method!(text, |c: char| c == 'b' || c == '🦀');
        check_every_method!(text, char::is_whitespace);
        assert_eq!(
            text.par_split_ascii_whitespace().collect::<Vec<_>>(),
            text.split_ascii_whitespace().collect::<Vec<_>>()
        );
    });
}

#[test]
fn string_sources() {
    in_pools(|_| {
        for n in SIZES {
            let text = random_text(n, 54);
            let owned = text.clone();
            assert_eq!(owned.par_chars().collect::<String>(), text);
            // par_drain on a String takes a byte range on char boundaries.
            let boundaries: Vec<usize> = text
                .char_indices()
                .map(|(i, _)| i)
                .chain([text.len()])
                .collect();
            let lo = boundaries[boundaries.len() / 3];
            let hi = boundaries[2 * boundaries.len() / 3];
            let mut par_string = text.clone();
            let mut seq_string = text.clone();
            let drained: String = par_string.par_drain(lo..hi).collect();
            assert_eq!(drained, seq_string.drain(lo..hi).collect::<String>());
            assert_eq!(par_string, seq_string);
        }
    });
}
