//! Oracle tests for the consumers of issue #3 (for_each, reduce, sum, min/max, find, position,
//! comparisons, ...) against the std sequential iterator, for every size in `common::SIZES`
//! inside pools of 1, 2, 3 and 8 threads.

use crate::common;

use common::par::prelude::*;
use common::{in_pools, random_i64s, random_u32s, SIZES};
use std::cmp::Ordering;
use std::num::Wrapping;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc;

fn each_input(seed: u64, check: impl Fn(usize, Vec<u32>) + Sync) {
    in_pools(|_threads| {
        for n in SIZES {
            check(n, random_u32s(n, 1000, seed));
        }
    });
}

#[test]
fn for_each_family_visits_every_item_once() {
    each_input(20, |_, v| {
        let expected: u64 = v.iter().map(|&x| u64::from(x)).sum();

        let sum = AtomicU64::new(0);
        v.par_iter().for_each(|&x| {
            sum.fetch_add(u64::from(x), Relaxed);
        });
        assert_eq!(sum.load(Relaxed), expected);

        let (sender, receiver) = mpsc::channel();
        v.par_iter()
            .for_each_with(sender, |s, &x| s.send(x).unwrap());
        let mut seen: Vec<u32> = receiver.iter().collect();
        let mut sorted = v.clone();
        seen.sort_unstable();
        sorted.sort_unstable();
        assert_eq!(seen, sorted);

        let inits = AtomicUsize::new(0);
        let visits = AtomicUsize::new(0);
        v.par_iter().for_each_init(
            || inits.fetch_add(1, Relaxed),
            |_, _| {
                visits.fetch_add(1, Relaxed);
            },
        );
        assert_eq!(visits.load(Relaxed), v.len());
        if !v.is_empty() {
            assert!(inits.load(Relaxed) >= 1);
        }
    });
}

#[test]
fn try_for_each_family_reports_an_error() {
    each_input(21, |_, v| {
        let all_ok: Result<(), u32> =
            v.par_iter()
                .try_for_each(|&x| if x < 1000 { Ok(()) } else { Err(x) });
        assert_eq!(all_ok, Ok(()));

        let bad = |x: u32| x % 97 == 5;
        let result = v
            .par_iter()
            .try_for_each(|&x| if bad(x) { Err(x) } else { Ok(()) });
        match result {
            Ok(()) => assert!(!v.iter().any(|&x| bad(x))),
            Err(e) => assert!(bad(e) && v.contains(&e)),
        }

        let result =
            v.par_iter()
                .try_for_each_with(5u32, |k, &x| if bad(x) { Err(x + *k) } else { Ok(()) });
        match result {
            Ok(()) => assert!(!v.iter().any(|&x| bad(x))),
            Err(e) => assert!(bad(e - 5) && v.contains(&(e - 5))),
        }

        let option = v.par_iter().try_for_each_init(
            || 1u32,
            |one, &x| {
                if bad(x) {
                    None
                } else {
                    Some(()).filter(|_| *one == 1)
                }
            },
        );
        assert_eq!(option.is_some(), !v.iter().any(|&x| bad(x)));
    });
}

#[test]
fn reduce_family() {
    each_input(22, |_, v| {
        let expected: u64 = v.iter().map(|&x| u64::from(x)).sum();
        let reduced = v
            .par_iter()
            .map(|&x| u64::from(x))
            .reduce(|| 0, |a, b| a + b);
        assert_eq!(reduced, expected);
        let reduced_with = v
            .par_iter()
            .map(|&x| u64::from(x))
            .reduce_with(|a, b| a + b);
        assert_eq!(
            reduced_with,
            v.iter().map(|&x| u64::from(x)).reduce(|a, b| a + b)
        );

        // checked_add of non-negative values overflows in some grouping iff the total does.
        let big: Vec<u32> = v.iter().map(|&x| x * 4_000_000).collect();
        let oracle = big.iter().try_fold(0u32, |a, &b| a.checked_add(b));
        let tried = big
            .par_iter()
            .map(|&x| Some(x))
            .try_reduce(|| 0, |a, b| a.checked_add(b));
        assert_eq!(tried, oracle);
        let tried_with = big
            .par_iter()
            .map(|&x| Some(x))
            .try_reduce_with(|a, b| a.checked_add(b));
        let oracle_with = if big.is_empty() { None } else { Some(oracle) };
        assert_eq!(tried_with, oracle_with);

        // An `Err` item reaches the caller.
        let errs = v
            .par_iter()
            .map(|&x| if x == 500 { Err(x) } else { Ok(u64::from(x)) })
            .try_reduce(|| 0, |a, b| Ok(a + b));
        assert_eq!(
            errs,
            if v.contains(&500) {
                Err(500)
            } else {
                Ok(expected)
            }
        );
    });
}

#[test]
fn sum_and_product() {
    each_input(23, |_, v| {
        assert_eq!(
            v.par_iter().map(|&x| u64::from(x)).sum::<u64>(),
            v.iter().map(|&x| u64::from(x)).sum::<u64>()
        );
        let signed = random_i64s(v.len(), 1 << 40, 23);
        assert_eq!(signed.par_iter().sum::<i64>(), signed.iter().sum::<i64>());
        assert_eq!(
            v.par_iter()
                .map(|&x| Wrapping(u64::from(x) | 1))
                .product::<Wrapping<u64>>(),
            v.iter()
                .map(|&x| Wrapping(u64::from(x) | 1))
                .product::<Wrapping<u64>>()
        );
        let small: Vec<u64> = v.iter().map(|&x| u64::from(x % 3) + 1).take(30).collect();
        assert_eq!(
            small.par_iter().product::<u64>(),
            small.iter().product::<u64>()
        );
    });
}

/// A key and an index, ordered by the key alone.
#[derive(Debug)]
struct KeyOnly(u32, usize);

impl PartialEq for KeyOnly {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}
impl Eq for KeyOnly {}
impl PartialOrd for KeyOnly {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for KeyOnly {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.cmp(&other.0)
    }
}

#[test]
fn min_max_family_with_std_tie_breaking() {
    each_input(24, |_, v| {
        // Items carry their index so that ties by key show which one was chosen: std picks the
        // first minimum and the last maximum, and an order-preserving reduction must too.
        let items: Vec<(u32, usize)> = v.iter().copied().zip(0..).collect();
        let key = |&(x, _): &(u32, usize)| x % 10;
        let by = |a: &(u32, usize), b: &(u32, usize)| (a.0 % 10).cmp(&(b.0 % 10));

        assert_eq!(v.par_iter().min(), v.iter().min());
        assert_eq!(v.par_iter().max(), v.iter().max());
        // `min`/`max` by `Ord` take their own path: ties there too, with an `Ord` that sees
        // only the key.
        let keyed: Vec<KeyOnly> = items.iter().map(|&(x, i)| KeyOnly(x % 10, i)).collect();
        assert_eq!(
            keyed.par_iter().min().map(|k| k.1),
            keyed.iter().min().map(|k| k.1)
        );
        assert_eq!(
            keyed.par_iter().max().map(|k| k.1),
            keyed.iter().max().map(|k| k.1)
        );
        assert_eq!(
            items.par_iter().min_by_key(|p| key(p)),
            items.iter().min_by_key(|p| key(p))
        );
        assert_eq!(
            items.par_iter().max_by_key(|p| key(p)),
            items.iter().max_by_key(|p| key(p))
        );
        assert_eq!(
            items.par_iter().min_by(|a, b| by(a, b)),
            items.iter().min_by(|a, b| by(a, b))
        );
        assert_eq!(
            items.par_iter().max_by(|a, b| by(a, b)),
            items.iter().max_by(|a, b| by(a, b))
        );
    });
}

#[test]
fn count_any_all() {
    each_input(25, |_, v| {
        assert_eq!(v.par_iter().count(), v.len());
        assert_eq!(
            v.par_iter().filter(|x| *x % 3 == 0).count(),
            v.iter().filter(|x| *x % 3 == 0).count()
        );
        for target in [0, 7, 999, 1000] {
            assert_eq!(v.par_iter().any(|&x| x == target), v.contains(&target));
            assert_eq!(v.par_iter().all(|&x| x != target), !v.contains(&target));
        }
        assert!(v.par_iter().all(|&x| x < 1000));
        assert!(!v.par_iter().any(|&x| x >= 1000));
    });
}

#[test]
fn find_family() {
    each_input(26, |_, v| {
        for modulus in [2, 17, 1000, 5000] {
            let hit = |x: &u32| x % modulus == 3;
            let hit_map = |x: &u32| hit(x).then(|| u64::from(*x) * 2);

            match v.par_iter().find_any(|x| hit(x)) {
                Some(found) => assert!(hit(found) && v.contains(found)),
                None => assert!(!v.iter().any(hit)),
            }
            assert_eq!(
                v.par_iter().find_first(|x| hit(x)),
                v.iter().find(|x| hit(x))
            );
            assert_eq!(
                v.par_iter().find_last(|x| hit(x)),
                v.iter().rev().find(|x| hit(x))
            );

            match v.par_iter().find_map_any(hit_map) {
                Some(found) => assert!(found % 2 == 0 && hit(&((found / 2) as u32))),
                None => assert!(!v.iter().any(hit)),
            }
            assert_eq!(
                v.par_iter().find_map_first(hit_map),
                v.iter().find_map(hit_map)
            );
            assert_eq!(
                v.par_iter().find_map_last(hit_map),
                v.iter().rev().find_map(hit_map)
            );

            match v.par_iter().position_any(hit) {
                Some(i) => assert!(hit(&v[i])),
                None => assert!(!v.iter().any(hit)),
            }
            assert_eq!(v.par_iter().position_first(hit), v.iter().position(hit));
            assert_eq!(v.par_iter().position_last(hit), v.iter().rposition(hit));
        }
    });
}

#[test]
fn comparisons_match_std() {
    each_input(27, |n, v| {
        let mut variants: Vec<Vec<u32>> = vec![v.clone(), v[..n / 2].to_vec()];
        if n > 0 {
            for i in [0, n / 2, n - 1] {
                let mut up = v.clone();
                up[i] += 1;
                let mut down = v.clone();
                down[i] = down[i].wrapping_sub(1);
                variants.push(up);
                variants.push(down);
            }
        }
        let mut longer = v.clone();
        longer.push(0);
        variants.push(longer);

        for other in &variants {
            let a = || v.par_iter();
            let b = || other.par_iter();
            assert_eq!(a().cmp(b()), v.iter().cmp(other.iter()));
            assert_eq!(a().partial_cmp(b()), v.iter().partial_cmp(other.iter()));
            assert_eq!(a().eq(b()), v.iter().eq(other.iter()));
            assert_eq!(a().ne(b()), v.iter().ne(other.iter()));
            assert_eq!(a().lt(b()), v.iter().lt(other.iter()));
            assert_eq!(a().le(b()), v.iter().le(other.iter()));
            assert_eq!(a().gt(b()), v.iter().gt(other.iter()));
            assert_eq!(a().ge(b()), v.iter().ge(other.iter()));
        }
    });
}

#[test]
fn partial_cmp_with_nan() {
    in_pools(|_| {
        let mut a: Vec<f64> = (0..1000).map(f64::from).collect();
        let b = a.clone();
        assert_eq!(a.par_iter().partial_cmp(&b), Some(Ordering::Equal));
        a[600] = f64::NAN;
        assert_eq!(a.par_iter().partial_cmp(&b), None);
        assert!(!a.par_iter().eq(&b));
        a[10] = -1.0; // an earlier difference decides before the NaN is reached
        assert_eq!(a.par_iter().partial_cmp(&b), a.iter().partial_cmp(b.iter()));
        assert_eq!(a.par_iter().partial_cmp(&b), Some(Ordering::Less));
    });
}
