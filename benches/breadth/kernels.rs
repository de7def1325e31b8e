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
pub(crate) fn small_loops(i: &Input, _: &mut [u64]) -> u64 {
    // A sequential loop of 256-item parallel loops: what each small `par_iter` costs.
    i.v[..i.v.len() / 8]
        .chunks(256)
        .map(|c| c.par_iter().sum::<u64>())
        .sum()
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
pub(crate) fn sum_f64_as_bits(i: &Input, _: &mut [u64]) -> u64 {
    // Integer-valued f64s below 2^53 so every order of summation is exact.
    i.v.par_iter().map(|&x| (x >> 40) as f64).sum::<f64>() as u64
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
    ("bridge_sum", bridge_sum),
    ("map_init", map_init),
    ("try_for_each", try_for_each),
    ("chunks_mut_sort", chunks_mut_sort),
    ("range_filter_sum", range_filter_sum),
    ("step_by_sum", step_by_sum),
    ("windows_count", windows_count),
    ("reduce_with", reduce_with),
    ("collect_strings", collect_strings),
    ("sum_f64", sum_f64_as_bits),
];
