// Kernels of `benches/breadth.rs`, included twice: `par` is weft or Rayon. Each returns a
// digest of its result (the bench checks that every contender gets the same one).
use super::Input;
#[allow(unused_imports)]
use par::prelude::*;

fn mix(x: u64) -> u64 {
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (x >> 29)
}
fn digest_vec(v: &[u64]) -> u64 {
    v.iter().fold(0u64, |a, &x| a.rotate_left(5) ^ x)
}

pub(crate) fn filter_collect(i: &Input, _: &mut [u64]) -> u64 {
    let v: Vec<u64> = i.v.par_iter().copied().filter(|x| x % 3 == 0).collect();
    digest_vec(&v)
}
pub(crate) fn filter_map_collect(i: &Input, _: &mut [u64]) -> u64 {
    let v: Vec<u64> =
        i.v.par_iter()
            .filter_map(|&x| if x % 3 == 0 { Some(x >> 7) } else { None })
            .collect();
    digest_vec(&v)
}
pub(crate) fn flat_map_iter_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().flat_map_iter(|&x| 0..(x & 7)).sum()
}
pub(crate) fn flat_map_nested_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_chunks(256)
        .flat_map(|c| c.par_iter())
        .map(|&x| x >> 1)
        .sum()
}
/// A sequential loop of `len`-item parallel loops, one per 2,048 input items: what
/// each small `par_iter` costs.
fn small_loops_of(i: &Input, len: usize) -> u64 {
    i.v[..i.v.len() / 2048 * len]
        .chunks(len)
        .map(|c| c.par_iter().sum::<u64>())
        .sum()
}
pub(crate) fn small_loops(i: &Input, _: &mut [u64]) -> u64 {
    small_loops_of(i, 256)
}
pub(crate) fn small_loops_64(i: &Input, _: &mut [u64]) -> u64 {
    // 32 items per thread at 2 threads: timed, not offered.
    small_loops_of(i, 64)
}
pub(crate) fn small_loops_16(i: &Input, _: &mut [u64]) -> u64 {
    // 8 items per thread at 2 threads: offered at once.
    small_loops_of(i, 16)
}
/// A sequential loop of `len`-item parallel loops whose items each run `rounds` steps of a
/// dependent hash chain (about 1.3 ns a step here): loops of 8-30 µs, long enough that two
/// threads should beat one, short enough that a claim or a hand-off out of proportion to
/// the loop shows (a 10 µs first claim did, in #21's seventeenth pass).
fn mid_loops_of(i: &Input, len: usize, rounds: u32) -> u64 {
    // One loop per 4,096 input items: 488 loops over the default input.
    i.v[..i.v.len() / 4096 * len]
        .chunks(len)
        .map(|c| {
            c.par_iter()
                .map(|&x| (0..rounds).fold(x, |a, _| mix(a)) >> 8)
                .sum::<u64>()
        })
        .fold(0u64, u64::wrapping_add)
}
pub(crate) fn mid_loops_32(i: &Input, _: &mut [u64]) -> u64 {
    // 32 items of about 400 ns: a 13 µs loop.
    mid_loops_of(i, 32, 300)
}
pub(crate) fn mid_loops_8(i: &Input, _: &mut [u64]) -> u64 {
    // 8 items of about 1.3 µs: an 11 µs loop of few items.
    mid_loops_of(i, 8, 1000)
}
pub(crate) fn coarse_chunks_32(i: &Input, _: &mut [u64]) -> u64 {
    // 32 slow items (a dependent chain over 1/32 of the input each): what a loop of few
    // slow items loses when its first item runs before anything is offered.
    i.v.par_chunks(i.v.len().div_ceil(32))
        .map(|c| {
            c.iter().fold(0u64, |a, &x| {
                (a ^ x).rotate_left(5).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            })
        })
        .reduce(|| 0, |a, b| a ^ b)
}
pub(crate) fn chunks_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_chunks(1000)
        .map(|c| c.iter().map(|&x| x >> 4).sum::<u64>())
        .sum()
}
pub(crate) fn fold_reduce(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .fold(|| 0u64, |a, &x| a ^ mix(x))
        .reduce(|| 0, |a, b| a ^ b)
}
pub(crate) fn min_by_key(i: &Input, _: &mut [u64]) -> u64 {
    *i.v.par_iter().min_by_key(|&&x| x ^ 0x5555).unwrap()
}
pub(crate) fn max(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().copied().max().unwrap()
}
pub(crate) fn position_first(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().position_first(|&x| x == i.target).unwrap() as u64
}
pub(crate) fn position_any(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().position_any(|&x| x == i.target).unwrap() as u64
}
pub(crate) fn any_none(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().any(|&x| x == u64::MAX) as u64
}
pub(crate) fn for_each_mut(_: &Input, s: &mut [u64]) -> u64 {
    s.par_iter_mut().for_each(|x| *x = x.rotate_left(1) ^ 7);
    0
}
pub(crate) fn enumerate_for_each_mut(_: &Input, s: &mut [u64]) -> u64 {
    s.par_iter_mut()
        .enumerate()
        .for_each(|(k, x)| *x ^= k as u64);
    0
}
pub(crate) fn zip_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .zip(&i.w)
        .map(|(x, y)| x.wrapping_mul(*y))
        .reduce(|| 0, u64::wrapping_add)
}
pub(crate) fn filter_count(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().filter(|&&x| mix(x) % 5 == 0).count() as u64
}
pub(crate) fn unzip(i: &Input, _: &mut [u64]) -> u64 {
    let (a, b): (Vec<u64>, Vec<u64>) = i.v.par_iter().map(|&x| (x >> 1, x & 0xff)).unzip();
    digest_vec(&a) ^ digest_vec(&b)
}
pub(crate) fn partition(i: &Input, _: &mut [u64]) -> u64 {
    let (a, b): (Vec<u64>, Vec<u64>) = i.v.par_iter().partition(|&&x| x & 1 == 0);
    digest_vec(&a) ^ digest_vec(&b).rotate_left(1)
}
pub(crate) fn par_extend(i: &Input, _: &mut [u64]) -> u64 {
    let mut out = vec![1u64, 2, 3];
    out.par_extend(i.v.par_iter().map(|&x| x ^ 1));
    digest_vec(&out)
}
pub(crate) fn chain_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().chain(&i.w).map(|&x| x >> 3).sum()
}
pub(crate) fn skip_take_sum(i: &Input, _: &mut [u64]) -> u64 {
    let n = i.v.len();
    i.v.par_iter()
        .skip(n / 10)
        .take(n / 2)
        .map(|&x| x >> 3)
        .sum()
}
pub(crate) fn rev_collect(i: &Input, _: &mut [u64]) -> u64 {
    let v: Vec<u64> = i.v.par_iter().rev().map(|&x| x ^ 5).collect();
    digest_vec(&v)
}
pub(crate) fn cloned_collect(i: &Input, _: &mut [u64]) -> u64 {
    let v: Vec<u64> = i.v.par_iter().cloned().collect();
    digest_vec(&v)
}
pub(crate) fn enumerate_filter_collect(i: &Input, _: &mut [u64]) -> u64 {
    let v: Vec<u64> =
        i.v.par_iter()
            .enumerate()
            .filter(|(_, &x)| x % 7 == 0)
            .map(|(k, _)| k as u64)
            .collect();
    digest_vec(&v)
}
pub(crate) fn chars_collect_string(i: &Input, _: &mut [u64]) -> u64 {
    let s: String = i.text.par_chars().filter(|c| !c.is_whitespace()).collect();
    s.len() as u64 ^ s.bytes().fold(0u64, |a, b| a.rotate_left(3) ^ b as u64)
}
pub(crate) fn split_whitespace_count(i: &Input, _: &mut [u64]) -> u64 {
    i.text
        .par_split_whitespace()
        .filter(|w| w.len() > 3)
        .count() as u64
}
pub(crate) fn char_range_count(i: &Input, _: &mut [u64]) -> u64 {
    // A `char` range source: the scalar values up to one that scales with the input.
    let end = char::from_u32((i.v.len() as u32 / 2).min(0xD000)).unwrap_or('\u{D000}');
    ('\0'..end)
        .into_par_iter()
        .filter(|c| c.is_alphanumeric())
        .count() as u64
}
pub(crate) fn lines_len(i: &Input, _: &mut [u64]) -> u64 {
    i.text
        .par_lines()
        .map(|l| l.len() as u64)
        .max()
        .unwrap_or(0)
}
pub(crate) fn bridge_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v[..i.v.len() / 16]
        .iter()
        .par_bridge()
        .map(|&x| mix(x) >> 8)
        .sum()
}
pub(crate) fn map_init(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .map_init(
            || 17u64,
            |st, &x| {
                *st = st.wrapping_add(1);
                x ^ 1
            },
        )
        .map(|x| x >> 2)
        .sum()
}
pub(crate) fn try_for_each(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .try_for_each(|&x| if x == u64::MAX { Err(x) } else { Ok(()) })
        .is_ok() as u64
}
pub(crate) fn chunks_mut_sort(_: &Input, s: &mut [u64]) -> u64 {
    s.par_chunks_mut(4096).for_each(|c| {
        c.sort_unstable();
        c.reverse();
    });
    0
}
pub(crate) fn range_filter_sum(i: &Input, _: &mut [u64]) -> u64 {
    (0..i.v.len() as u64 * 4)
        .into_par_iter()
        .filter(|x| x % 3 == 1)
        .map(mix)
        .reduce(|| 0, |a, b| a ^ b)
}
pub(crate) fn step_by_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().step_by(3).map(|&x| x >> 2).sum()
}
pub(crate) fn windows_count(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_windows(2).filter(|w| w[0] < w[1]).count() as u64
}
pub(crate) fn reduce_with(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .map(|&x| mix(x))
        .reduce_with(|a, b| a.max(b))
        .unwrap()
}
pub(crate) fn collect_strings(i: &Input, _: &mut [u64]) -> u64 {
    let v: Vec<String> = i.v[..i.v.len() / 16]
        .par_iter()
        .map(|x| x.to_string())
        .collect();
    v.iter().map(|s| s.len() as u64).sum()
}
pub(crate) fn sum_f64(i: &Input, _: &mut [u64]) -> u64 {
    // Integer-valued f64s below 2^53 so every order of summation is exact.
    i.v.par_iter().map(|&x| (x >> 40) as f64).sum::<f64>() as u64
}

// ---- second batch ----
fn digest_str(s: &str) -> u64 {
    s.len() as u64 ^ s.bytes().fold(0u64, |a, b| a.rotate_left(3) ^ b as u64)
}
pub(crate) fn collect_hashmap(i: &Input, _: &mut [u64]) -> u64 {
    let m: std::collections::HashMap<u64, u64> = i.v[..i.v.len() / 4]
        .par_iter()
        .map(|&x| (x, x >> 3))
        .collect();
    m.iter().fold(m.len() as u64, |a, (&k, &v)| a.wrapping_add(k ^ v))
}
pub(crate) fn collect_hashset(i: &Input, _: &mut [u64]) -> u64 {
    let m: std::collections::HashSet<u64> = i.v[..i.v.len() / 4]
        .par_iter()
        .map(|&x| x & 0xffff)
        .collect();
    m.iter().fold(m.len() as u64, |a, &k| a.wrapping_add(mix(k)))
}
pub(crate) fn collect_btreemap(i: &Input, _: &mut [u64]) -> u64 {
    let m: std::collections::BTreeMap<u64, u64> = i.v[..i.v.len() / 4]
        .par_iter()
        .map(|&x| (x, x >> 3))
        .collect();
    m.iter().fold(0u64, |a, (&k, &v)| a.rotate_left(5) ^ k ^ v)
}
pub(crate) fn collect_vecdeque(i: &Input, _: &mut [u64]) -> u64 {
    let d: std::collections::VecDeque<u64> = i.v.par_iter().map(|&x| x ^ 9).collect();
    d.iter().fold(0u64, |a, &x| a.rotate_left(5) ^ x)
}
pub(crate) fn collect_linkedlist(i: &Input, _: &mut [u64]) -> u64 {
    let d: std::collections::LinkedList<u64> = i.v[..i.v.len() / 4]
        .par_iter()
        .map(|&x| x ^ 9)
        .collect();
    d.iter().fold(0u64, |a, &x| a.rotate_left(5) ^ x)
}
pub(crate) fn collect_string_strs(i: &Input, _: &mut [u64]) -> u64 {
    let s: String = i.text.par_split_whitespace().collect();
    digest_str(&s)
}
pub(crate) fn collect_string_split(i: &Input, _: &mut [u64]) -> u64 {
    let s: String = i.text.par_split(' ').filter(|w| w.len() > 2).collect();
    digest_str(&s)
}
pub(crate) fn collect_result_vec(i: &Input, _: &mut [u64]) -> u64 {
    let r: Result<Vec<u64>, u64> =
        i.v.par_iter()
            .map(|&x| if x == u64::MAX { Err(x) } else { Ok(x >> 1) })
            .collect();
    digest_vec(&r.unwrap())
}
pub(crate) fn collect_option_vec(i: &Input, _: &mut [u64]) -> u64 {
    let r: Option<Vec<u64>> =
        i.v.par_iter()
            .map(|&x| x.checked_add(1).map(|y| y >> 1))
            .collect();
    digest_vec(&r.unwrap())
}
pub(crate) fn flat_map_vec_collect(i: &Input, _: &mut [u64]) -> u64 {
    let v: Vec<u64> = i.v[..i.v.len() / 4]
        .par_iter()
        .flat_map(|&x| vec![x, x >> 1, x >> 2])
        .collect();
    digest_vec(&v)
}
pub(crate) fn flat_map_vec_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v[..i.v.len() / 4]
        .par_iter()
        .flat_map(|&x| vec![x >> 20, x >> 21, x >> 22])
        .sum()
}
pub(crate) fn nested_chunks_4(i: &Input, _: &mut [u64]) -> u64 {
    // Tiny inner loops: 4 items start private in weft, 16 are shared from the start.
    i.v[..i.v.len() / 4]
        .par_chunks(4)
        .map(|c| c.par_iter().map(|&x| x >> 1).sum::<u64>())
        .sum()
}
pub(crate) fn nested_chunks_16(i: &Input, _: &mut [u64]) -> u64 {
    i.v[..i.v.len() / 4]
        .par_chunks(16)
        .map(|c| c.par_iter().map(|&x| x >> 1).sum::<u64>())
        .sum()
}
pub(crate) fn flatten_vecs(i: &Input, _: &mut [u64]) -> u64 {
    let v: Vec<u64> = i.nested.par_iter().flatten().copied().collect();
    digest_vec(&v)
}
pub(crate) fn flatten_iter_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.nested
        .par_iter()
        .flatten_iter()
        .map(|&x| x >> 20)
        .sum()
}
pub(crate) fn chunks_exact_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_chunks_exact(8)
        .map(|c| mix(c.iter().fold(0u64, |a, &x| a ^ x)))
        .reduce(|| 0, |a, b| a ^ b)
}
pub(crate) fn rchunks_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_rchunks(7)
        .map(|c| c[0] >> 20)
        .sum()
}
pub(crate) fn zip3_sum(i: &Input, _: &mut [u64]) -> u64 {
    let n = i.v.len() / 2;
    i.v[..n]
        .par_iter()
        .zip(&i.w[..n])
        .zip(&i.v[n..2 * n])
        .map(|((a, b), c)| (a ^ b ^ c) >> 20)
        .sum()
}
pub(crate) fn multizip3_sum(i: &Input, _: &mut [u64]) -> u64 {
    let n = i.v.len() / 2;
    (&i.v[..n], &i.w[..n], &i.v[n..2 * n])
        .into_par_iter()
        .map(|(a, b, c)| (a ^ b ^ c) >> 20)
        .sum()
}
pub(crate) fn enumerate_map_collect(i: &Input, _: &mut [u64]) -> u64 {
    let v: Vec<u64> =
        i.v.par_iter()
            .enumerate()
            .map(|(k, &x)| x ^ k as u64)
            .collect();
    digest_vec(&v)
}
pub(crate) fn interleave_collect(i: &Input, _: &mut [u64]) -> u64 {
    let v: Vec<u64> = i.v[..i.v.len() / 2]
        .par_iter()
        .interleave(&i.w[..i.w.len() / 3])
        .copied()
        .collect();
    digest_vec(&v)
}
pub(crate) fn take_any_count(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().take_any(i.v.len() / 2).count() as u64
}
pub(crate) fn skip_any_count(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().skip_any(i.v.len() / 3).count() as u64
}
pub(crate) fn find_first(i: &Input, _: &mut [u64]) -> u64 {
    *i.v.par_iter().find_first(|&&x| x == i.target).unwrap()
}
pub(crate) fn find_last(i: &Input, _: &mut [u64]) -> u64 {
    let first = i.v[0];
    *i.v.par_iter().find_last(|&&x| x == first).unwrap()
}
pub(crate) fn find_map_first(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .find_map_first(|&x| if x == i.target { Some(x >> 1) } else { None })
        .unwrap()
}
pub(crate) fn position_last(i: &Input, _: &mut [u64]) -> u64 {
    let first = i.v[0];
    i.v.par_iter().position_last(|&x| x == first).unwrap() as u64
}
pub(crate) fn all_true(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().all(|&x| x != u64::MAX) as u64
}
pub(crate) fn product_wrapping(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .map(|&x| std::num::Wrapping(x | 1))
        .product::<std::num::Wrapping<u64>>()
        .0
}
pub(crate) fn max_by_f64(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .map(|&x| (x >> 11) as f64)
        .max_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap() as u64
}
pub(crate) fn min_by_f64(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .map(|&x| (x >> 11) as f64)
        .min_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap() as u64
}
pub(crate) fn sum_u32_u64(i: &Input, _: &mut [u64]) -> u64 {
    i.u.par_iter().map(|&x| x as u64).sum()
}
pub(crate) fn eq_iters(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().map(|x| x >> 1).eq(i.v.par_iter().map(|x| x >> 1)) as u64
}
pub(crate) fn cmp_iters(i: &Input, _: &mut [u64]) -> u64 {
    let t = i.target;
    i.v.par_iter()
        .copied()
        .cmp(i.v.par_iter().map(|&x| if x == t { x ^ 1 } else { x })) as u64
}
pub(crate) fn unzip_into_vecs(i: &Input, _: &mut [u64]) -> u64 {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    i.v.par_iter()
        .map(|&x| (x >> 1, x as u32))
        .unzip_into_vecs(&mut a, &mut b);
    digest_vec(&a) ^ b.iter().fold(0u64, |acc, &x| acc.rotate_left(3) ^ x as u64)
}
pub(crate) fn collect_into_vec(i: &Input, _: &mut [u64]) -> u64 {
    let mut out = Vec::new();
    i.v.par_iter().map(|&x| x ^ 3).collect_into_vec(&mut out);
    digest_vec(&out)
}
pub(crate) fn par_extend_unindexed(i: &Input, _: &mut [u64]) -> u64 {
    let mut out = vec![1u64, 2, 3];
    out.par_extend(i.v.par_iter().filter(|&&x| x % 3 != 0).map(|&x| x ^ 1));
    digest_vec(&out)
}
pub(crate) fn par_drain_sum(_: &Input, s: &mut [u64]) -> u64 {
    let mut v = s.to_vec();
    let n = v.len();
    let a: u64 = v.par_drain(n / 4..).map(|x| x >> 20).sum();
    a ^ digest_vec(&v)
}
pub(crate) fn into_par_iter_strings(i: &Input, _: &mut [u64]) -> u64 {
    let v: Vec<String> = i.strings.clone();
    v.into_par_iter().filter(|s| s.len() > 18).map(|s| s.len() as u64).sum()
}
pub(crate) fn bridge_channel(i: &Input, _: &mut [u64]) -> u64 {
    let (tx, rx) = std::sync::mpsc::channel();
    for &x in &i.v[..i.v.len() / 16] {
        tx.send(x).unwrap();
    }
    drop(tx);
    rx.into_iter().par_bridge().map(|x| mix(x) >> 8).sum()
}
pub(crate) fn flat_map_iter_fold(i: &Input, _: &mut [u64]) -> u64 {
    // A fold fed by a nested sequential iterator (std's `FlatMap`), which iterates best
    // through its own `fold`.
    i.v.par_iter()
        .flat_map_iter(|&x| 0..(x & 7))
        // Wrapping sums: the result must not depend on how the contenders split the work
        // (a `rotate_left` here did, and the result check caught it).
        .fold(|| 0u64, |a, x| a.wrapping_add(x.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
        .reduce(|| 0, u64::wrapping_add)
}
pub(crate) fn fold_with_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .fold_with(0u64, |a, &x| a ^ mix(x))
        .reduce(|| 0, |a, b| a ^ b)
}
pub(crate) fn update_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .copied()
        .update(|x| *x >>= 20)
        .sum()
}
pub(crate) fn inspect_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .inspect(|x| {
            std::hint::black_box(x);
        })
        .map(|&x| x >> 20)
        .sum()
}
pub(crate) fn while_some_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .map(|&x| x.checked_add(1).map(|y| y >> 20))
        .while_some()
        .sum()
}
pub(crate) fn panic_fuse_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().panic_fuse().map(|&x| x >> 20).sum()
}
pub(crate) fn chunks_adapter_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .copied()
        .chunks(16)
        .map(|c| mix(c.iter().fold(0u64, |a, &x| a ^ x)))
        .reduce(|| 0, |a, b| a ^ b)
}
pub(crate) fn exponential_blocks_find(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .by_exponential_blocks()
        .find_first(|&&x| x == i.target)
        .copied()
        .unwrap()
}
pub(crate) fn nested_sort_by_key(_: &Input, s: &mut [u64]) -> u64 {
    s.par_chunks_mut(64).for_each(|c| c.par_sort_by_key(|&x| x & 0xffff_ffff));
    0
}
pub(crate) fn scope_spawn_sum(i: &Input, _: &mut [u64]) -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    let total = AtomicU64::new(0);
    par::scope(|s| {
        for c in i.v.chunks(256) {
            let total = &total;
            s.spawn(move |_| {
                let x = c.iter().fold(0u64, |a, &x| a.wrapping_add(x >> 8));
                total.fetch_add(x, Ordering::Relaxed);
            });
        }
    });
    total.into_inner()
}
fn fib(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = par::join(|| fib(n - 1), || fib(n - 2));
    a + b
}
pub(crate) fn join_fib(_: &Input, _: &mut [u64]) -> u64 {
    fib(25)
}

// ---- third batch: more sources and adapters ----
pub(crate) fn hashmap_source_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.map.par_iter().map(|(&k, &v)| (k ^ v) >> 20).sum()
}
pub(crate) fn btreemap_source_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.tree.par_iter().map(|(&k, &v)| (k ^ v) >> 20).sum()
}
pub(crate) fn vecdeque_source_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.deque.par_iter().map(|&x| x >> 20).sum()
}
pub(crate) fn range_inclusive_sum(i: &Input, _: &mut [u64]) -> u64 {
    (0..=i.v.len() as u64).into_par_iter().map(|x| x ^ (x >> 3)).sum()
}
pub(crate) fn bytes_count(i: &Input, _: &mut [u64]) -> u64 {
    i.text.par_bytes().filter(|&b| b == b'a').count() as u64
}
pub(crate) fn char_indices_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.text
        .par_char_indices()
        .filter(|&(_, c)| c == 'e')
        .map(|(k, _)| k as u64)
        .sum()
}
pub(crate) fn matches_count(i: &Input, _: &mut [u64]) -> u64 {
    i.text.par_matches(['a', 'e']).count() as u64
}
pub(crate) fn for_each_init_sum(i: &Input, _: &mut [u64]) -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    let total = AtomicU64::new(0);
    i.v.par_iter().for_each_init(
        || 0u64,
        |_, &x| {
            if x % 1024 == 0 {
                total.fetch_add(x >> 20, Ordering::Relaxed);
            }
        },
    );
    total.into_inner()
}
pub(crate) fn try_fold_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .try_fold(|| 0u64, |a, &x| a.checked_add(x >> 20))
        .try_reduce(|| 0, |a, b| a.checked_add(b))
        .unwrap()
}
pub(crate) fn try_reduce_with_max(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .map(|&x| Some(x >> 1))
        .try_reduce_with(|a, b| Some(a.max(b)))
        .unwrap()
        .unwrap()
}
pub(crate) fn partition_map(i: &Input, _: &mut [u64]) -> u64 {
    let (a, b): (Vec<u64>, Vec<u32>) = i.v.par_iter().partition_map(|&x| {
        if x & 1 == 0 {
            par::iter::Either::Left(x)
        } else {
            par::iter::Either::Right(x as u32)
        }
    });
    digest_vec(&a) ^ b.iter().fold(0u64, |acc, &x| acc.rotate_left(3) ^ x as u64)
}
pub(crate) fn positions_count(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .positions(|&x| x % 5 == 0)
        .map(|k| k as u64)
        .sum()
}
pub(crate) fn rev_enumerate_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .rev()
        .enumerate()
        .map(|(k, &x)| (x >> 20) ^ k as u64)
        .sum()
}
pub(crate) fn fold_chunks_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .fold_chunks(64, || 0u64, |a, &x| a ^ x)
        .map(mix)
        .reduce(|| 0, |a, b| a ^ b)
}
pub(crate) fn intersperse_collect(i: &Input, _: &mut [u64]) -> u64 {
    let v: Vec<u64> = i.v[..i.v.len() / 4]
        .par_iter()
        .copied()
        .intersperse(7)
        .collect();
    digest_vec(&v)
}
pub(crate) fn max_by_key_tuple(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .enumerate()
        .max_by_key(|&(_, &x)| x & 0xffff_ffff)
        .unwrap()
        .0 as u64
}
pub(crate) fn sum_f32(i: &Input, _: &mut [u64]) -> u64 {
    // Integer-valued f32s below 2^24 in total: exact in any order.
    i.u.par_iter().map(|&x| (x & 3) as f32).sum::<f32>() as u64
}
pub(crate) fn zip_eq_collect(i: &Input, _: &mut [u64]) -> u64 {
    let v: Vec<u64> = i.v.par_iter().zip_eq(&i.w).map(|(a, b)| a ^ b).collect();
    digest_vec(&v)
}
pub(crate) fn option_flatten_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .map(|&x| if x & 3 == 0 { None } else { Some(x >> 20) })
        .flatten_iter()
        .sum()
}
pub(crate) fn min_max_len_sum(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .with_min_len(1024)
        .with_max_len(1 << 16)
        .map(|&x| x >> 20)
        .sum()
}

// Nested loops (#21): inner loops of 256 items, with `nested_chunks_4` and `_16` above.
pub(crate) fn nested_chunks_256(i: &Input, _: &mut [u64]) -> u64 {
    i.v[..i.v.len() / 4]
        .par_chunks(256)
        .map(|c| c.par_iter().map(|&x| x >> 1).sum::<u64>())
        .sum()
}

// Reductions of the shapes users write over large slices (issue #21: `copied().max()` of
// `u64` ran 3.3-3.8x Rayon's time as users build it, and the breadth kernels had no `f64`
// reduction nor a fold into a heap value).
pub(crate) fn min_u64(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().copied().min().unwrap()
}
pub(crate) fn min_by_u64(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().copied().min_by(|a, b| a.cmp(b)).unwrap()
}
pub(crate) fn max_by_key_u64(i: &Input, _: &mut [u64]) -> u64 {
    *i.v.par_iter().max_by_key(|&&x| x >> 4).unwrap()
}
pub(crate) fn reduce_max_u64(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().copied().reduce(|| 0, u64::max)
}
pub(crate) fn fold_max_u64(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter()
        .fold(|| 0, |a: u64, &x| a.max(x))
        .reduce(|| 0, u64::max)
}
pub(crate) fn max_i64(i: &Input, _: &mut [u64]) -> u64 {
    i.v.par_iter().map(|&x| x as i64).max().unwrap() as u64
}
pub(crate) fn max_by_total_f64_slice(i: &Input, _: &mut [u64]) -> u64 {
    let max = i.f.par_iter().copied().max_by(|a, b| a.total_cmp(b));
    max.unwrap().to_bits()
}
pub(crate) fn min_by_partial_f64(i: &Input, _: &mut [u64]) -> u64 {
    let min = i.f.par_iter().min_by(|a, b| a.partial_cmp(b).unwrap());
    min.unwrap().to_bits()
}
pub(crate) fn reduce_max_f64(i: &Input, _: &mut [u64]) -> u64 {
    let max = i.f.par_iter().copied().reduce(|| f64::NEG_INFINITY, f64::max);
    max.to_bits()
}
pub(crate) fn reduce_with_min_f64(i: &Input, _: &mut [u64]) -> u64 {
    i.f.par_iter().copied().reduce_with(f64::min).unwrap().to_bits()
}
pub(crate) fn min_by_key_f64_abs(i: &Input, _: &mut [u64]) -> u64 {
    let min = i.f.par_iter().min_by(|a, b| a.abs().total_cmp(&b.abs()));
    min.unwrap().to_bits()
}
pub(crate) fn fold_vec_histogram(i: &Input, _: &mut [u64]) -> u64 {
    let h = i
        .v
        .par_iter()
        .fold(
            || vec![0u64; 256],
            |mut h, &x| {
                h[(x % 256) as usize] += 1;
                h
            },
        )
        .reduce(
            || vec![0u64; 256],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    *x += y;
                }
                a
            },
        );
    digest_vec(&h)
}
pub(crate) fn fold_hashmap_counts(i: &Input, _: &mut [u64]) -> u64 {
    use std::collections::HashMap;
    let counts = i.v[..i.v.len() / 4]
        .par_iter()
        .fold(HashMap::<u64, u64>::new, |mut m, &x| {
            *m.entry(x % 1000).or_default() += 1;
            m
        })
        .reduce(HashMap::new, |mut a, b| {
            for (k, c) in b {
                *a.entry(k).or_default() += c;
            }
            a
        });
    counts.iter().map(|(k, c)| k.wrapping_mul(*c)).fold(0, u64::wrapping_add)
}
pub(crate) fn fold_string_concat(i: &Input, _: &mut [u64]) -> u64 {
    let s = i.v[..i.v.len() / 4]
        .par_iter()
        .fold(String::new, |mut s, &x| {
            s.push((b'a' + (x % 26) as u8) as char);
            s
        })
        .reduce(String::new, |mut a, b| {
            a.push_str(&b);
            a
        });
    s.bytes().fold(s.len() as u64, |a, b| a.rotate_left(3) ^ u64::from(b))
}

/// A kernel: the shared inputs, a scratch copy of `Input::v` for the mutating kernels.
pub(crate) type Kernel = fn(&Input, &mut [u64]) -> u64;

/// Every kernel, by name.
pub(crate) const ALL: &[(&str, Kernel)] = &[
    ("filter_collect", filter_collect),
    ("filter_map_collect", filter_map_collect),
    ("flat_map_iter_sum", flat_map_iter_sum),
    ("flat_map_nested_sum", flat_map_nested_sum),
    ("small_loops", small_loops),
    ("small_loops_64", small_loops_64),
    ("small_loops_16", small_loops_16),
    ("coarse_chunks_32", coarse_chunks_32),
    ("mid_loops_32", mid_loops_32),
    ("mid_loops_8", mid_loops_8),
    ("chunks_sum", chunks_sum),
    ("fold_reduce", fold_reduce),
    ("min_by_key", min_by_key),
    ("max", max),
    ("position_first", position_first),
    ("position_any", position_any),
    ("any_none", any_none),
    ("for_each_mut", for_each_mut),
    ("enumerate_for_each_mut", enumerate_for_each_mut),
    ("zip_sum", zip_sum),
    ("filter_count", filter_count),
    ("unzip", unzip),
    ("partition", partition),
    ("par_extend", par_extend),
    ("chain_sum", chain_sum),
    ("skip_take_sum", skip_take_sum),
    ("rev_collect", rev_collect),
    ("cloned_collect", cloned_collect),
    ("enumerate_filter_collect", enumerate_filter_collect),
    ("chars_collect_string", chars_collect_string),
    ("split_whitespace_count", split_whitespace_count),
    ("lines_len", lines_len),
    ("char_range_count", char_range_count),
    ("bridge_sum", bridge_sum),
    ("map_init", map_init),
    ("try_for_each", try_for_each),
    ("chunks_mut_sort", chunks_mut_sort),
    ("range_filter_sum", range_filter_sum),
    ("step_by_sum", step_by_sum),
    ("windows_count", windows_count),
    ("reduce_with", reduce_with),
    ("collect_strings", collect_strings),
    ("sum_f64", sum_f64),
    ("collect_hashmap", collect_hashmap),
    ("collect_hashset", collect_hashset),
    ("collect_btreemap", collect_btreemap),
    ("collect_vecdeque", collect_vecdeque),
    ("collect_linkedlist", collect_linkedlist),
    ("collect_string_strs", collect_string_strs),
    ("collect_string_split", collect_string_split),
    ("collect_result_vec", collect_result_vec),
    ("collect_option_vec", collect_option_vec),
    ("flat_map_vec_collect", flat_map_vec_collect),
    ("flat_map_vec_sum", flat_map_vec_sum),
    ("nested_chunks_4", nested_chunks_4),
    ("nested_chunks_16", nested_chunks_16),
    ("flatten_vecs", flatten_vecs),
    ("flatten_iter_sum", flatten_iter_sum),
    ("chunks_exact_sum", chunks_exact_sum),
    ("rchunks_sum", rchunks_sum),
    ("zip3_sum", zip3_sum),
    ("multizip3_sum", multizip3_sum),
    ("enumerate_map_collect", enumerate_map_collect),
    ("interleave_collect", interleave_collect),
    ("take_any_count", take_any_count),
    ("skip_any_count", skip_any_count),
    ("find_first", find_first),
    ("find_last", find_last),
    ("find_map_first", find_map_first),
    ("position_last", position_last),
    ("all_true", all_true),
    ("product_wrapping", product_wrapping),
    ("max_by_f64", max_by_f64),
    ("min_by_f64", min_by_f64),
    ("sum_u32_u64", sum_u32_u64),
    ("eq_iters", eq_iters),
    ("cmp_iters", cmp_iters),
    ("unzip_into_vecs", unzip_into_vecs),
    ("collect_into_vec", collect_into_vec),
    ("par_extend_unindexed", par_extend_unindexed),
    ("par_drain_sum", par_drain_sum),
    ("into_par_iter_strings", into_par_iter_strings),
    ("bridge_channel", bridge_channel),
    ("fold_with_sum", fold_with_sum),
    ("flat_map_iter_fold", flat_map_iter_fold),
    ("update_sum", update_sum),
    ("inspect_sum", inspect_sum),
    ("while_some_sum", while_some_sum),
    ("panic_fuse_sum", panic_fuse_sum),
    ("chunks_adapter_sum", chunks_adapter_sum),
    ("exponential_blocks_find", exponential_blocks_find),
    ("nested_sort_by_key", nested_sort_by_key),
    ("scope_spawn_sum", scope_spawn_sum),
    ("join_fib", join_fib),
    ("hashmap_source_sum", hashmap_source_sum),
    ("btreemap_source_sum", btreemap_source_sum),
    ("vecdeque_source_sum", vecdeque_source_sum),
    ("range_inclusive_sum", range_inclusive_sum),
    ("bytes_count", bytes_count),
    ("char_indices_sum", char_indices_sum),
    ("matches_count", matches_count),
    ("for_each_init_sum", for_each_init_sum),
    ("try_fold_sum", try_fold_sum),
    ("try_reduce_with_max", try_reduce_with_max),
    ("partition_map", partition_map),
    ("positions_count", positions_count),
    ("rev_enumerate_sum", rev_enumerate_sum),
    ("fold_chunks_sum", fold_chunks_sum),
    ("intersperse_collect", intersperse_collect),
    ("max_by_key_tuple", max_by_key_tuple),
    ("sum_f32", sum_f32),
    ("zip_eq_collect", zip_eq_collect),
    ("option_flatten_sum", option_flatten_sum),
    ("min_max_len_sum", min_max_len_sum),
    // Nested loops (#21).
    ("nested_chunks_256", nested_chunks_256),
    ("min_u64", min_u64),
    ("min_by_u64", min_by_u64),
    ("max_by_key_u64", max_by_key_u64),
    ("reduce_max_u64", reduce_max_u64),
    ("fold_max_u64", fold_max_u64),
    ("max_i64", max_i64),
    ("max_by_total_f64_slice", max_by_total_f64_slice),
    ("min_by_partial_f64", min_by_partial_f64),
    ("reduce_max_f64", reduce_max_f64),
    ("reduce_with_min_f64", reduce_with_min_f64),
    ("min_by_key_f64_abs", min_by_key_f64_abs),
    ("fold_vec_histogram", fold_vec_histogram),
    ("fold_hashmap_counts", fold_hashmap_counts),
    ("fold_string_concat", fold_string_concat),
];
