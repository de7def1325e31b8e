//! Defects the differential test found, each as the smallest test that shows it.

use crate::common;

use weft::prelude::*;

/// `find_last` (and `find_map_last`) through `flat_map` / `flatten`: each inner iterator is
/// driven with a consumer split off the outer one (`split_off_left`), which halves the
/// outer piece's positions; after 128 items in one piece the inner consumers get empty
/// position ranges, and one whose (empty) range sits exactly at the best match so far took
/// itself for beaten by it, though that match came before it. On one thread the whole loop
/// is one piece: `(0..200).flat_map(|x| x..x + 1).find_last(..)` gave `Some(128)`.
#[test]
fn find_last_through_flat_map_sees_every_inner_iterator() {
    common::in_pools(|threads| {
        for n in [129u64, 200, 1000, 100_003] {
            let last_even = (0..n).rev().find(|x| x % 2 == 0);
            let flat_map = (0..n)
                .into_par_iter()
                .flat_map(|x| x..x + 1)
                .find_last(|_| true);
            assert_eq!(
                flat_map,
                Some(n - 1),
                "flat_map, {n} items, {threads} threads"
            );
            let flatten = (0..n)
                .into_par_iter()
                .map(|x| vec![x])
                .flatten()
                .find_last(|x| x % 2 == 0);
            assert_eq!(flatten, last_even, "flatten, {n} items, {threads} threads");
            let find_map = (0..n)
                .into_par_iter()
                .flat_map(|x| x..x + 1)
                .find_map_last(|x| (x % 2 == 0).then_some(x * 3));
            assert_eq!(
                find_map,
                last_even.map(|x| x * 3),
                "find_map_last, {n} items, {threads} threads"
            );
        }
    });
}
