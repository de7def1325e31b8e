//! Issue #3 asks every adapter and source to be `Clone` when its parts are, and `Debug`
//! (closures skipped): this file fails to compile if one is not. Each value is also cloned
//! and both copies are run, so a clone that shares or loses state is caught.

use crate::common;

use common::par;
use common::par::prelude::*;
use std::fmt::Debug;

/// Clones `iter`, formats the clone, and checks both copies yield the same items.
fn check<I>(iter: I)
where
    I: ParallelIterator + Clone + Debug,
    I::Item: PartialEq + Debug,
{
    let copy = iter.clone();
    assert!(!format!("{copy:?}").is_empty());
    assert_eq!(iter.collect::<Vec<_>>(), copy.collect::<Vec<_>>());
}

/// Like [`check`] for `fold`-like adapters, whose items depend on how the input was split:
/// only the total is compared.
fn check_total<I>(iter: I)
where
    I: ParallelIterator<Item = u64> + Clone + Debug,
{
    let copy = iter.clone();
    assert!(!format!("{copy:?}").is_empty());
    assert_eq!(iter.sum::<u64>(), copy.sum::<u64>());
}

#[test]
fn adapters_are_clone_and_debug() {
    let v: Vec<u32> = (0..100).collect();
    let w: Vec<u32> = (0..50).collect();
    let nested: Vec<Vec<u32>> = vec![vec![1, 2], vec![], vec![3]];
    let it = || v.par_iter().copied();

    check(it().map(|x| x + 1));
    check(it().map_with(1u32, |k, x| x + *k));
    check(it().map_init(|| 2u32, |k, x| x * *k));
    check(it().filter(|x| x % 2 == 0));
    check(it().filter_map(|x| x.checked_sub(50)));
    check(it().flat_map(|x| vec![x; 2]));
    check(it().flat_map_iter(|x| 0..x % 3));
    check(nested.par_iter().cloned().flatten());
    check(nested.par_iter().cloned().flatten_iter());
    check(it().enumerate());
    check(it().zip(w.par_iter()));
    check(it().zip_eq(v.par_iter()));
    check(it().chain(w.par_iter().copied()));
    check(v.par_iter().cloned());
    check(v.par_iter().copied());
    check(it().inspect(|_| {}));
    check(it().update(|x| *x += 1));
    check(it().skip(3));
    check(it().take(3));
    check(it().rev());
    check(it().step_by(3));
    check(it().chunks(7));
    check(it().interleave(w.par_iter().copied()));
    check(it().intersperse(0));
    check(it().with_min_len(4));
    check(it().with_max_len(4));
    check(it().panic_fuse());
    check(it().map(Some).while_some());
    check(it().positions(|x| x % 5 == 0));
    check_total(it().fold(|| 0u64, |a, x| a + u64::from(x)));
    check_total(it().fold_with(0u64, |a, x| a + u64::from(x)));
    let partial_sums = it().try_fold(|| 0u64, |a, x| Some(a + u64::from(x)));
    check_total(partial_sums.map(Option::unwrap));
    let partial_sums = it().try_fold_with(0u64, |a, x| Some(a + u64::from(x)));
    check_total(partial_sums.map(Option::unwrap));
    check(it().take_any(1000));
    check(it().skip_any(0));
    check(it().take_any_while(|_| true));
    check(it().skip_any_while(|_| false));
}

#[test]
fn sources_are_clone_and_debug() {
    let v: Vec<u32> = (0..100).collect();
    let text = "a b\nc,d";
    check(v.par_iter());
    check(v.par_chunks(3));
    check(v.par_chunks_exact(3));
    check(v.par_rchunks(3));
    check(v.par_windows(3));
    check(v.par_array_windows::<3>());
    check(v.par_split(|x| x % 10 == 0));
    check(v.clone().into_par_iter());
    check((0..10u64).into_par_iter());
    check((0..=10i8).into_par_iter());
    check(('a'..='z').into_par_iter());
    check(Some(1).into_par_iter());
    check(Ok::<u8, ()>(1).into_par_iter());
    check(text.par_chars());
    check(text.par_char_indices());
    check(text.par_bytes());
    check(text.par_lines());
    check(text.par_split(','));
    check(text.par_split_terminator('\n'));
    check(text.par_split_whitespace());
    check(text.par_matches('a')); // Rayon's str iterators are Debug only when the pattern is
    check(par::iter::empty::<u8>());
    check(par::iter::once(1));
    check(par::iter::repeat_n(1, 5));
    check(par::iter::repeat(1).take(5));
}
