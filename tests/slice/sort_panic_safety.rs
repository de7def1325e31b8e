//! Panic safety of the parallel sorts (issue #5): when the comparator or key function
//! panics, the panic reaches the caller and the slice holds a permutation of its input;
//! every element is dropped exactly once, when the slice itself is dropped.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Once};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use weft::slice::ParallelSliceMut;

const PANIC_MESSAGE: &str = "planned panic in user code";

// Miri checks the merge buffer's unsafe code; the sorts shrink their thresholds under Miri,
// so small lengths still take the parallel paths. crossbeam-epoch (under the pool) needs
// tree borrows and exposed provenance, and its per-thread state shows up as leaks:
//   MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-ignore-leaks" \
//     cargo +nightly miri test --test sort_panic_safety
const LENGTHS: &[usize] = if cfg!(miri) {
    &[0, 1, 7, 100, 300]
} else {
    &[0, 1, 2, 7, 20, 1000, 20_000, 70_000]
};
const REPEATS: usize = if cfg!(miri) { 1 } else { 4 };
const POOL_SIZES: &[usize] = if cfg!(miri) { &[2] } else { &[1, 2, 3, 8] };

/// An element that counts its own drops in a shared table, by id.
#[derive(Debug)]
struct Tracked {
    key: u32,
    id: usize,
    drops: Arc<[AtomicUsize]>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.drops[self.id].fetch_add(1, SeqCst);
    }
}

impl PartialEq for Tracked {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Tracked {}
impl PartialOrd for Tracked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Tracked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// Counts calls into user code and panics on call number `panic_at`.
struct Trap {
    calls: AtomicUsize,
    panic_at: usize,
}

impl Trap {
    fn spring(&self) {
        if self.calls.fetch_add(1, SeqCst) == self.panic_at {
            panic!("{PANIC_MESSAGE}");
        }
    }
}

/// The seven entry points, each running user code that goes through `trap`.
/// A sort that runs user code through a trap.
type TrappedSort = fn(&mut [Tracked], &Trap);

const ENTRY_POINTS: [(&str, TrappedSort); 7] = [
    ("par_sort_unstable", |v, trap| {
        // `Ord` itself cannot see the trap: go through a key that does.
        v.par_sort_unstable_by(|a, b| {
            trap.spring();
            a.cmp(b)
        });
        v.par_sort_unstable();
    }),
    ("par_sort_unstable_by", |v, trap| {
        v.par_sort_unstable_by(|a, b| {
            trap.spring();
            b.key.cmp(&a.key)
        })
    }),
    ("par_sort_unstable_by_key", |v, trap| {
        v.par_sort_unstable_by_key(|a| {
            trap.spring();
            a.key
        })
    }),
    ("par_sort", |v, trap| {
        v.par_sort_by(|a, b| {
            trap.spring();
            a.cmp(b)
        });
        v.par_sort();
    }),
    ("par_sort_by", |v, trap| {
        v.par_sort_by(|a, b| {
            trap.spring();
            b.key.cmp(&a.key)
        })
    }),
    ("par_sort_by_key", |v, trap| {
        v.par_sort_by_key(|a| {
            trap.spring();
            a.key
        })
    }),
    ("par_sort_by_cached_key", |v, trap| {
        v.par_sort_by_cached_key(|a| {
            trap.spring();
            a.key.to_string()
        })
    }),
];

/// Keeps the planned panics quiet; every other panic is still reported.
fn silence_planned_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default_hook = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let planned = info
                .payload()
                .downcast_ref::<String>()
                .is_some_and(|s| s == PANIC_MESSAGE);
            if !planned {
                default_hook(info);
            }
        }));
    });
}

/// `len` tracked elements with random keys, and their drop counters.
fn tracked(len: usize, seed: u64) -> (Vec<Tracked>, Arc<[AtomicUsize]>) {
    let drops: Arc<[AtomicUsize]> = (0..len).map(|_| AtomicUsize::new(0)).collect();
    let mut rng = SmallRng::seed_from_u64(seed);
    let key_range = (len as u32 / 4).max(1);
    let v = (0..len)
        .map(|id| Tracked {
            key: rng.random_range(0..key_range),
            id,
            drops: Arc::clone(&drops),
        })
        .collect();
    (v, drops)
}

/// Checks that `v` is a permutation of the ids `0..len` with nothing dropped yet, then
/// drops it and checks that each element was dropped exactly once.
fn check_aftermath(v: Vec<Tracked>, drops: &[AtomicUsize], what: &str) {
    assert!(
        drops.iter().all(|d| d.load(SeqCst) == 0),
        "{what}: an element was dropped during the sort"
    );
    let mut ids: Vec<usize> = v.iter().map(|t| t.id).collect();
    ids.sort_unstable();
    assert!(
        ids.iter().copied().eq(0..drops.len()),
        "{what}: not a permutation"
    );
    drop(v);
    for (id, count) in drops.iter().enumerate() {
        assert_eq!(
            count.load(SeqCst),
            1,
            "{what}: element {id} dropped wrongly"
        );
    }
}

/// Sorts `len` tracked elements with a trap at `panic_at` and checks the aftermath.
fn check_one(entry: (&str, TrappedSort), len: usize, panic_at: usize, seed: u64) {
    let (name, sort) = entry;
    let what = format!("{name} len {len} panic_at {panic_at}");
    let (mut v, drops) = tracked(len, seed);
    let trap = Trap {
        calls: AtomicUsize::new(0),
        panic_at,
    };
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| sort(&mut v, &trap)));
    let calls = trap.calls.load(SeqCst);
    match outcome {
        Err(payload) => {
            let message = payload.downcast_ref::<String>().map(String::as_str);
            assert_eq!(message, Some(PANIC_MESSAGE), "{what}: foreign panic");
        }
        Ok(()) => assert!(
            calls <= panic_at,
            "{what}: the trap fired but no panic came out"
        ),
    }
    check_aftermath(v, &drops, &what);
}

#[test]
fn panicking_user_code_leaves_a_permutation() {
    silence_planned_panics();
    let mut rng = SmallRng::seed_from_u64(2024);
    for &threads in POOL_SIZES {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            for entry in ENTRY_POINTS {
                for &len in LENGTHS {
                    for _ in 0..REPEATS {
                        let panic_at = rng.random_range(0..len.max(1) * 3);
                        check_one(entry, len, panic_at, rng.random());
                    }
                }
            }
        });
    }
}

#[test]
fn sorts_without_panic_drop_each_element_once() {
    for &threads in POOL_SIZES {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            for entry in ENTRY_POINTS {
                check_one(
                    entry,
                    LENGTHS[LENGTHS.len() - 1],
                    usize::MAX,
                    threads as u64,
                );
            }
        });
    }
}

/// A comparator that is not a total order (it answers at random) must not break memory
/// safety: the sort may panic (std's sorts may detect the violation) or return, but the
/// slice stays a permutation.
#[test]
fn inconsistent_comparators_leave_a_permutation() {
    for &threads in POOL_SIZES {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for &len in LENGTHS {
            let stable_and_unstable: [fn(&mut [Tracked], &AtomicUsize); 2] = [
                |v, calls| v.par_sort_by(|_, _| coin(calls)),
                |v, calls| v.par_sort_unstable_by(|_, _| coin(calls)),
            ];
            for sort in stable_and_unstable {
                let (mut v, drops) = tracked(len, len as u64);
                let calls = AtomicUsize::new(len);
                let _ = panic::catch_unwind(AssertUnwindSafe(|| {
                    pool.install(|| sort(&mut v, &calls));
                }));
                check_aftermath(v, &drops, &format!("len {len} threads {threads}"));
            }
        }
    }
}

/// A pseudo-random ordering, from a hash of a shared call counter.
fn coin(calls: &AtomicUsize) -> std::cmp::Ordering {
    let n = calls.fetch_add(1, SeqCst) as u64;
    let hash = n.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    hash.wrapping_mul(0xBF58_476D_1CE4_E5B9)
        .cmp(&(u64::MAX / 2))
}
