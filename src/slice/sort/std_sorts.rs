//! std's sequential sorts as the parallel sorts call them: a comparator that is not a total
//! order leaves the slice in an unspecified order, never panics (Rayon's documented
//! behaviour), and every element stays there exactly once.
//!
//! Since Rust 1.81, std's sorts may panic with "user-provided comparison function does not
//! correctly implement a total order" when they notice an inconsistent comparator, leaving
//! the slice a permutation of its input. weft's own merges and partitions never rely on the
//! order being total (they count and move; see `guard.rs`), so only the calls into std need
//! this: each runs under `catch_unwind`, and std's own order panic, recognised by its
//! message, is dropped there. Any other panic (the comparator's own) goes on unchanged, to
//! the caller or to the merge sort's `PanicSlot`. While nothing panics the catch costs
//! nothing. What cannot be undone from here: std's panic hook has run by then (its message
//! is printed; a `panic = "abort"` build aborts), as std offers no sort without the check.

use std::any::Any;
use std::cmp::Ordering;
use std::panic::{self, AssertUnwindSafe};

/// What std's sorts say when they catch a comparator that is not a total order.
const ORDER_VIOLATION: &str = "does not correctly implement a total order";

/// Runs `sort`, which sorts with a user's comparator through std, dropping std's panic about
/// an order that is not total.
fn tolerating_partial_orders(sort: impl FnOnce()) {
    if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(sort)) {
        if !is_order_violation(&*payload) {
            panic::resume_unwind(payload);
        }
    }
}

/// True if `payload` is std's panic about a comparator that is not a total order.
fn is_order_violation(payload: &(dyn Any + Send)) -> bool {
    let message = match payload.downcast_ref::<&'static str>() {
        Some(message) => *message,
        None => match payload.downcast_ref::<String>() {
            Some(message) => message.as_str(),
            None => return false,
        },
    };
    message.contains(ORDER_VIOLATION)
}

/// `v.sort_by(compare)`, without the order panic.
pub(super) fn sort_by<T, F>(v: &mut [T], compare: F)
where
    F: FnMut(&T, &T) -> Ordering,
{
    tolerating_partial_orders(|| v.sort_by(compare));
}

/// `v.sort_unstable_by(compare)`, without the order panic.
pub(super) fn sort_unstable_by<T, F>(v: &mut [T], compare: F)
where
    F: FnMut(&T, &T) -> Ordering,
{
    tolerating_partial_orders(|| v.sort_unstable_by(compare));
}

/// `v.sort_by_cached_key(key_of)`, without the order panic (from the keys' `Ord`).
pub(super) fn sort_by_cached_key<T, K, F>(v: &mut [T], key_of: F)
where
    K: Ord,
    F: FnMut(&T) -> K,
{
    tolerating_partial_orders(|| v.sort_by_cached_key(key_of));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A comparator that is not an order at all: a fixed pseudo-random answer per pair.
    fn chaos(a: &u32, b: &u32) -> Ordering {
        match (a.wrapping_mul(2_654_435_761) ^ b.wrapping_mul(40_503)) % 3 {
            0 => Ordering::Less,
            1 => Ordering::Equal,
            _ => Ordering::Greater,
        }
    }

    #[test]
    fn an_inconsistent_comparator_gets_a_permutation_and_no_panic() {
        // std's own sorts do panic on this comparator (the test would not test anything
        // otherwise): the order check exists since Rust 1.81.
        let mut v: Vec<u32> = (0..10_000).collect();
        let std_panicked = panic::catch_unwind(AssertUnwindSafe(|| v.sort_by(chaos)));
        assert!(is_order_violation(&*std_panicked.expect_err("std panics")));
        for len in [0u32, 1, 2, 20, 100, 1000, 10_000] {
            let input: Vec<u32> = (0..len).map(|i| i.wrapping_mul(7919) % 1009).collect();
            let mut expected = input.clone();
            expected.sort_unstable();
            let sorts: [fn(&mut [u32]); 3] = [
                |v| sort_by(v, chaos),
                |v| sort_unstable_by(v, chaos),
                |v| sort_by_cached_key(v, |x| Chaotic(*x)),
            ];
            for sort in sorts {
                let mut v = input.clone();
                sort(&mut v);
                v.sort_unstable();
                assert_eq!(v, expected, "len {len}");
            }
        }
    }

    #[test]
    fn the_comparators_own_panic_still_reaches_the_caller() {
        let mut v: Vec<u32> = (0..100).rev().collect();
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            sort_by(&mut v, |a, b| {
                assert!(*a != 50 && *b != 50, "fifty");
                a.cmp(b)
            })
        }));
        let payload = result.expect_err("the comparator panicked");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"fifty"));
        v.sort_unstable();
        assert_eq!(v, (0..100).collect::<Vec<_>>());
    }

    /// A key whose `Ord` is [`chaos`].
    #[derive(PartialEq, Eq)]
    struct Chaotic(u32);

    impl PartialOrd for Chaotic {
        fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }

    impl Ord for Chaotic {
        fn cmp(&self, other: &Self) -> Ordering {
            chaos(&self.0, &other.0)
        }
    }
}
