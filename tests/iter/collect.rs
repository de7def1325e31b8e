//! Oracle tests for `collect` into every target of issue #3, and for `collect_into_vec`,
//! `unzip`, `unzip_into_vecs`, `partition`, `partition_map` and `par_extend`. Each runs on
//! indexed and unindexed (filtered) iterators, for every size in `common::SIZES`, inside pools
//! of 1, 2, 3 and 8 threads.

use crate::common;

use common::par::iter::Either;
use common::par::prelude::*;
use common::{in_pools, random_u32s, random_words, SIZES};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};

fn each_input(seed: u64, check: impl Fn(usize, Vec<u32>) + Sync) {
    in_pools(|_threads| {
        for n in SIZES {
            check(n, random_u32s(n, 1000, seed));
        }
    });
}

#[test]
fn collect_sequences_keep_order() {
    each_input(30, |_, v| {
        let odd = |x: &u32| x % 2 == 1;
        let odd_seq: Vec<u32> = v.iter().copied().filter(odd).collect();

        let vec: Vec<u32> = v.par_iter().copied().collect();
        assert_eq!(vec, v);
        let vec: Vec<u32> = v.par_iter().copied().filter(odd).collect();
        assert_eq!(vec, odd_seq);

        let deque: VecDeque<u32> = v.par_iter().copied().filter(odd).collect();
        assert_eq!(deque, odd_seq.iter().copied().collect::<VecDeque<_>>());
        let list: LinkedList<u32> = v.par_iter().copied().filter(odd).collect();
        assert_eq!(list, odd_seq.iter().copied().collect::<LinkedList<_>>());
        let boxed: Box<[u32]> = v.par_iter().copied().collect();
        assert_eq!(boxed, v.clone().into_boxed_slice());

        let cow: Cow<'_, [u32]> = v.par_iter().copied().collect();
        assert!(matches!(cow, Cow::Owned(_)));
        assert_eq!(&*cow, &v[..]);

        let heap: BinaryHeap<u32> = v.par_iter().copied().filter(odd).collect();
        assert_eq!(heap.into_sorted_vec(), {
            let mut s = odd_seq.clone();
            s.sort_unstable();
            s
        });
    });
}

#[test]
fn collect_maps_and_sets() {
    each_input(31, |_, v| {
        // Duplicate keys: the later value wins, as with std `collect`.
        let pairs = || v.iter().enumerate().map(|(i, &x)| (x % 100, i));
        let par_pairs = || v.par_iter().enumerate().map(|(i, &x)| (x % 100, i));

        let hash_map: HashMap<u32, usize> = par_pairs().collect();
        assert_eq!(hash_map, pairs().collect::<HashMap<_, _>>());
        let btree_map: BTreeMap<u32, usize> = par_pairs().collect();
        assert_eq!(btree_map, pairs().collect::<BTreeMap<_, _>>());
        let hash_set: HashSet<u32> = v.par_iter().map(|x| x % 100).collect();
        assert_eq!(hash_set, v.iter().map(|x| x % 100).collect::<HashSet<_>>());
        let btree_set: BTreeSet<u32> = v.par_iter().map(|x| x % 100).collect();
        assert_eq!(
            btree_set,
            v.iter().map(|x| x % 100).collect::<BTreeSet<_>>()
        );
    });
}

#[test]
fn collect_strings() {
    in_pools(|_| {
        for n in SIZES {
            let words = random_words(n, 32);
            let joined: String = words.par_iter().map(String::as_str).collect();
            assert_eq!(joined, words.concat());
            let owned: String = words.par_iter().cloned().collect();
            assert_eq!(owned, words.concat());
            let chars: String = joined.par_chars().filter(|c| *c != 'a').collect();
            assert_eq!(
                chars,
                joined.chars().filter(|c| *c != 'a').collect::<String>()
            );
            let char_refs: Vec<char> = joined.chars().collect();
            let from_refs: String = char_refs.par_iter().collect();
            assert_eq!(from_refs, joined);
            let cows: String = words
                .par_iter()
                .map(|w| Cow::Borrowed(w.as_str()))
                .collect();
            assert_eq!(cows, joined);
        }
    });
}

#[test]
fn collect_into_result_option_and_unit() {
    each_input(33, |_, v| {
        let ok: Result<Vec<u32>, String> = v.par_iter().map(|&x| Ok(x)).collect();
        assert_eq!(ok, Ok(v.clone()));
        let bad = |x: u32| x % 101 == 7;
        let res: Result<Vec<u32>, u32> = v
            .par_iter()
            .map(|&x| if bad(x) { Err(x) } else { Ok(x) })
            .collect();
        match res {
            Ok(all) => {
                assert!(!v.iter().any(|&x| bad(x)));
                assert_eq!(all, v);
            }
            Err(e) => assert!(bad(e) && v.contains(&e)),
        }

        let some: Option<Vec<u32>> = v.par_iter().map(|&x| Some(x)).collect();
        assert_eq!(some, Some(v.clone()));
        let opt: Option<HashSet<u32>> = v.par_iter().map(|&x| (!bad(x)).then_some(x)).collect();
        let expected: Option<HashSet<u32>> = v.iter().map(|&x| (!bad(x)).then_some(x)).collect();
        assert_eq!(opt, expected);

        let unit_calls = std::sync::atomic::AtomicUsize::new(0);
        let () = v
            .par_iter()
            .map(|_| {
                unit_calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            })
            .collect();
        assert_eq!(unit_calls.into_inner(), v.len());
    });
}

#[test]
fn collect_into_vec_reuses_the_target() {
    each_input(34, |n, v| {
        let mut target = vec![7u64; n / 2 + 3];
        v.par_iter()
            .map(|&x| u64::from(x) + 1)
            .collect_into_vec(&mut target);
        assert_eq!(
            target,
            v.iter().map(|&x| u64::from(x) + 1).collect::<Vec<_>>()
        );

        let mut left = vec![1u32; 5];
        let mut right = Vec::with_capacity(n * 2);
        v.par_iter()
            .map(|&x| (x, x % 7))
            .unzip_into_vecs(&mut left, &mut right);
        assert_eq!(left, v);
        assert_eq!(right, v.iter().map(|x| x % 7).collect::<Vec<_>>());
    });
}

#[test]
fn unzip_partition_partition_map() {
    each_input(35, |_, v| {
        let (a, b): (Vec<u32>, Vec<u64>) = v
            .par_iter()
            .filter(|x| *x % 3 != 0)
            .map(|&x| (x, u64::from(x) * 2))
            .unzip();
        let (sa, sb): (Vec<u32>, Vec<u64>) = v
            .iter()
            .filter(|x| *x % 3 != 0)
            .map(|&x| (x, u64::from(x) * 2))
            .unzip();
        assert_eq!((a, b), (sa, sb));

        let (ha, lb): (HashSet<u32>, LinkedList<u32>) = v.par_iter().map(|&x| (x % 50, x)).unzip();
        assert_eq!(ha, v.iter().map(|x| x % 50).collect::<HashSet<_>>());
        assert_eq!(lb, v.iter().copied().collect::<LinkedList<_>>());

        let (even, odd): (Vec<u32>, Vec<u32>) = v.par_iter().partition(|x| *x % 2 == 0);
        let (se, so): (Vec<u32>, Vec<u32>) = v.iter().partition(|x| *x % 2 == 0);
        assert_eq!((even, odd), (se, so));

        let (small, big): (Vec<u32>, VecDeque<String>) = v.par_iter().partition_map(|&x| {
            if x < 300 {
                Either::Left(x)
            } else {
                Either::Right(x.to_string())
            }
        });
        assert_eq!(
            small,
            v.iter().copied().filter(|&x| x < 300).collect::<Vec<_>>()
        );
        let big_seq: VecDeque<String> = v
            .iter()
            .filter(|&&x| x >= 300)
            .map(u32::to_string)
            .collect();
        assert_eq!(big, big_seq);
    });
}

#[test]
fn par_extend_appends_in_order() {
    each_input(36, |n, v| {
        let prefix = random_u32s(n % 10, 1000, 360);
        let mut vec = prefix.clone();
        vec.par_extend(v.par_iter().copied());
        vec.par_extend(v.par_iter().copied().filter(|x| x % 2 == 0));
        let mut expected = prefix.clone();
        expected.extend(v.iter().copied());
        expected.extend(v.iter().copied().filter(|x| x % 2 == 0));
        assert_eq!(vec, expected);

        // An empty vector takes the first piece of an unindexed extend as its buffer, but
        // only when it has none: a buffer the caller reserved is kept and filled.
        let evens: Vec<u32> = v.iter().copied().filter(|x| x % 2 == 0).collect();
        let mut fresh = Vec::new();
        fresh.par_extend(v.par_iter().copied().filter(|x| x % 2 == 0));
        assert_eq!(fresh, evens);
        let mut reserved = Vec::with_capacity(n + 1);
        let buffer = reserved.as_ptr();
        reserved.par_extend(v.par_iter().copied().filter(|x| x % 2 == 0));
        assert_eq!(reserved, evens);
        assert_eq!(
            reserved.as_ptr(),
            buffer,
            "the reserved buffer was replaced"
        );
        // The same for chars into a `String` (some of them two bytes long).
        let letter = |x: &u32| char::from_u32(0x61 + x % 26 + u32::from(x % 3 == 0) * 0x380);
        let text: String = v.iter().filter_map(letter).collect();
        let mut fresh_text = String::new();
        fresh_text.par_extend(v.par_iter().filter_map(letter));
        assert_eq!(fresh_text, text);
        let mut reserved_text = String::with_capacity(2 * n + 1);
        let buffer = reserved_text.as_ptr();
        reserved_text.par_extend(v.par_iter().filter_map(letter));
        assert_eq!(reserved_text, text);
        assert_eq!(
            reserved_text.as_ptr(),
            buffer,
            "the reserved buffer was replaced"
        );

        let mut by_ref = prefix.clone();
        by_ref.par_extend(&v);
        assert_eq!(by_ref, [prefix.as_slice(), v.as_slice()].concat());

        let mut deque: VecDeque<u32> = prefix.iter().copied().collect();
        deque.par_extend(v.par_iter().copied());
        assert!(deque.iter().eq(prefix.iter().chain(&v)));

        let mut list: LinkedList<u32> = prefix.iter().copied().collect();
        list.par_extend(v.par_iter().copied().filter(|x| x % 2 == 1));
        assert!(list
            .iter()
            .eq(prefix.iter().chain(v.iter().filter(|x| *x % 2 == 1))));

        let mut text = String::from("<");
        text.par_extend(v.par_iter().map(|x| char::from(b'a' + (x % 26) as u8)));
        let expected: String = std::iter::once('<')
            .chain(v.iter().map(|x| char::from(b'a' + (x % 26) as u8)))
            .collect();
        assert_eq!(text, expected);

        let mut map: HashMap<u32, u32> = HashMap::new();
        map.par_extend(v.par_iter().map(|&x| (x % 10, x)));
        let mut seq_map: HashMap<u32, u32> = HashMap::new();
        seq_map.extend(v.iter().map(|&x| (x % 10, x)));
        assert_eq!(map, seq_map);

        let mut set: BTreeSet<u32> = BTreeSet::new();
        set.par_extend(v.par_iter().copied());
        assert_eq!(set, v.iter().copied().collect::<BTreeSet<_>>());

        let mut heap: BinaryHeap<u32> = prefix.iter().copied().collect();
        heap.par_extend(v.par_iter().copied());
        assert_eq!(heap.into_sorted_vec(), sorted_concat(&prefix, &v));
    });
}

fn sorted_concat(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut all = [a, b].concat();
    all.sort_unstable();
    all
}

#[test]
fn len_and_opt_len() {
    for n in SIZES {
        let v = random_u32s(n, 1000, 37);
        assert_eq!(v.par_iter().len(), n);
        assert_eq!(v.par_iter().opt_len(), Some(n));
        assert_eq!(v.par_iter().map(|x| x + 1).len(), n);
        assert_eq!(v.par_iter().filter(|_| true).opt_len(), None);
        assert_eq!((0..n).into_par_iter().len(), n);
        assert_eq!(v.par_iter().chain(&v).opt_len(), Some(2 * n));
    }
}

/// A filtered collect into a `Vec` writes each piece in place and closes the gaps between
/// pieces as they merge (`collect/write_slots.rs`): many small pieces (`with_max_len(7)`
/// gives each its own result), owned items, kept fractions from none to all, `filter_map`
/// and `map` after the filter, and `par_extend` after existing items, against std; a
/// buffer is never left at more than twice its items.
#[test]
fn filtered_collects_close_the_gaps_between_pieces() {
    in_pools(|threads| {
        for n in SIZES {
            let words: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
            for keep_every in [1, 2, 3, 1000, usize::MAX] {
                let keep = |i: usize| i % keep_every == 0 && keep_every != usize::MAX;
                let what = format!("{threads} threads, n {n}, every {keep_every}");
                let expected: Vec<String> = (0..n)
                    .filter(|&i| keep(i))
                    .map(|i| words[i].clone())
                    .collect();
                let got: Vec<String> = (0..n)
                    .into_par_iter()
                    .with_max_len(7)
                    .filter(|&i| keep(i))
                    .map(|i| words[i].clone())
                    .collect();
                assert_eq!(got, expected, "filter + map, {what}");
                assert!(
                    got.capacity() <= 2 * got.len(),
                    "{what}: capacity {}",
                    got.capacity()
                );
                let got: Vec<String> = words
                    .par_iter()
                    .enumerate()
                    .filter_map(|(i, w)| keep(i).then(|| w.clone()))
                    .collect();
                assert_eq!(got, expected, "filter_map, {what}");
                let mut extended = vec!["head".to_string()];
                extended.par_extend(
                    words
                        .par_iter()
                        .cloned()
                        .with_max_len(5)
                        .filter(|w| keep(w[1..].parse::<usize>().unwrap())),
                );
                assert_eq!(extended[0], "head", "{what}");
                assert_eq!(extended[1..], expected[..], "par_extend, {what}");
            }
        }
    });
}

/// Runs `body(threads)` in pools of `POOL_SIZES` threads built with `huge_pages(true)` (a
/// weft extension: these pools are weft's, whatever `common::par` names).
fn in_huge_page_pools<F: Fn(usize) + Sync>(body: F) {
    for threads in common::POOL_SIZES {
        let pool = weft::ThreadPoolBuilder::new()
            .num_threads(threads)
            .huge_pages(true)
            .build()
            .unwrap();
        pool.install(|| body(threads));
    }
}

/// Collects whose buffers get the huge-page advice (at least 32 MiB, in pools with
/// `huge_pages(true)`, `src/huge_pages.rs`): indexed and unindexed collects, `par_extend`
/// onto items that must survive the new allocation, `unzip` and `collect_into_vec`, against
/// std, in pools of 1, 2, 3 and 8 threads.
#[test]
fn collects_into_huge_page_buffers_match_std() {
    let n = 5_000_000; // 40 MB of u64
    let scramble = |i: usize| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xA5;
    let expected: Vec<u64> = (0..n).map(scramble).collect();
    let keep = |x: &u64| x % 10 != 3;
    let kept: Vec<u64> = expected.iter().copied().filter(keep).collect();
    let head: Vec<u64> = random_u32s(1000, 1 << 20, 45)
        .into_iter()
        .map(u64::from)
        .collect();
    in_huge_page_pools(|threads| {
        let what = format!("{threads} threads");
        let vec: Vec<u64> = (0..n).into_par_iter().map(scramble).collect();
        assert!(vec == expected, "indexed collect, {what}");
        drop(vec);
        // The unindexed path adopts the first piece and reserves the rest at once.
        let doubled = || expected.par_iter().chain(&expected).copied().filter(keep);
        let vec: Vec<u64> = doubled().collect();
        assert!(
            vec.len() == 2 * kept.len(),
            "unindexed collect length, {what}"
        );
        assert!(
            vec[..kept.len()] == kept[..] && vec[kept.len()..] == kept[..],
            "{what}"
        );
        drop(vec);
        let mut extended = head.clone();
        extended.par_extend((0..n).into_par_iter().map(scramble));
        assert!(
            extended[..head.len()] == head[..],
            "par_extend lost the old items, {what}"
        );
        assert!(extended[head.len()..] == expected[..], "par_extend, {what}");
        drop(extended);
        let (left, right): (Vec<u64>, Vec<usize>) =
            (0..n).into_par_iter().map(|i| (scramble(i), i)).unzip();
        assert!(
            left == expected && right.iter().copied().eq(0..n),
            "unzip, {what}"
        );
        drop((left, right));
        let mut target = head.clone();
        (0..n)
            .into_par_iter()
            .map(scramble)
            .collect_into_vec(&mut target);
        assert!(target == expected, "collect_into_vec, {what}");
    });
}
