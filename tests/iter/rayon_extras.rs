//! Rayon public API that issue #3 does not list but that a Rayon program may use, so
//! `use weft as rayon;` needs it too: more slice and str splitters, `interleave_shortest`,
//! `fold_chunks`, `collect_vec_list`, tuple `MultiZip`, `Arc<[T]>`/`Box<str>` collect targets.
//! Kept in its own file so that anything weft has not implemented yet fails to compile here
//! alone, not in the core suites.

use crate::common;

use common::par::prelude::*;
use common::{in_pools, random_text, random_u32s, SIZES};
use std::sync::Arc;

#[test]
fn more_slice_splitters() {
    in_pools(|_| {
        for n in SIZES {
            let v = random_u32s(n, 100, 90);
            for size in [1, 3, 64] {
                let rexact: Vec<&[u32]> = v.par_rchunks_exact(size).collect();
                assert_eq!(rexact, v.rchunks_exact(size).collect::<Vec<_>>());

                let mut par_mut = v.clone();
                par_mut.par_chunks_exact_mut(size).for_each(|c| c.reverse());
                let mut seq_mut = v.clone();
                seq_mut.chunks_exact_mut(size).for_each(|c| c.reverse());
                assert_eq!(par_mut, seq_mut);

                let mut par_mut = v.clone();
                par_mut.par_rchunks_mut(size).for_each(|c| c.rotate_left(1));
                let mut seq_mut = v.clone();
                seq_mut.rchunks_mut(size).for_each(|c| c.rotate_left(1));
                assert_eq!(par_mut, seq_mut);
            }
            let pieces: Vec<&[u32]> = v.par_split_inclusive(|x| x % 10 == 0).collect();
            assert_eq!(
                pieces,
                v.split_inclusive(|x| x % 10 == 0).collect::<Vec<_>>()
            );
            let mut par_mut = v.clone();
            par_mut
                .par_split_mut(|x| x % 10 == 0)
                .for_each(|s| s.sort_unstable());
            let mut seq_mut = v.clone();
            seq_mut
                .split_mut(|x| x % 10 == 0)
                .for_each(|s| s.sort_unstable());
            assert_eq!(par_mut, seq_mut);
            let runs: Vec<&[u32]> = v.par_chunk_by(|a, b| a <= b).collect();
            assert_eq!(runs, v.chunk_by(|a, b| a <= b).collect::<Vec<_>>());
        }
    });
}

#[test]
fn more_str_methods() {
    in_pools(|_| {
        for n in SIZES {
            let text = random_text(n, 91);
            assert_eq!(
                text.par_split_inclusive('\n').collect::<Vec<_>>(),
                text.split_inclusive('\n').collect::<Vec<_>>()
            );
            assert_eq!(
                text.par_split_ascii_whitespace().collect::<Vec<_>>(),
                text.split_ascii_whitespace().collect::<Vec<_>>()
            );
            assert_eq!(
                text.par_encode_utf16().collect::<Vec<_>>(),
                text.encode_utf16().collect::<Vec<_>>()
            );
            assert_eq!(
                text.par_match_indices('a').collect::<Vec<_>>(),
                text.match_indices('a').collect::<Vec<_>>()
            );
        }
    });
}

#[test]
fn more_adapters_and_targets() {
    in_pools(|_| {
        for n in SIZES {
            let v = random_u32s(n, 1000, 92);
            let w = random_u32s(n / 2, 1000, 93);
            let shortest: Vec<u32> = v.par_iter().interleave_shortest(&w).copied().collect();
            let mut expected = Vec::new();
            let mut right = w.iter();
            for &x in &v {
                expected.push(x);
                match right.next() {
                    Some(&y) => expected.push(y),
                    None => break,
                }
            }
            assert_eq!(shortest, expected);

            let sums: Vec<u64> = v
                .par_iter()
                .fold_chunks(4, || 0u64, |acc, &x| acc + u64::from(x))
                .collect();
            let seq_sums: Vec<u64> = v
                .chunks(4)
                .map(|c| c.iter().map(|&x| u64::from(x)).sum())
                .collect();
            assert_eq!(sums, seq_sums);
            let sums_with: Vec<u64> = v
                .par_iter()
                .fold_chunks_with(4, 0u64, |acc, &x| acc + u64::from(x))
                .collect();
            assert_eq!(sums_with, seq_sums);

            let lists = v
                .par_iter()
                .copied()
                .filter(|x| x % 2 == 0)
                .collect_vec_list();
            let flat: Vec<u32> = lists.into_iter().flatten().collect();
            assert_eq!(
                flat,
                v.iter().copied().filter(|x| x % 2 == 0).collect::<Vec<_>>()
            );

            let triples: Vec<(u32, u32, usize)> = (&v, &v, 0..n)
                .into_par_iter()
                .map(|(a, b, i)| (*a, *b, i))
                .collect();
            assert_eq!(
                triples,
                v.iter()
                    .zip(&v)
                    .zip(0..n)
                    .map(|((a, b), i)| (*a, *b, i))
                    .collect::<Vec<_>>()
            );

            let shared: Arc<[u32]> = v.par_iter().copied().collect();
            assert_eq!(&*shared, &v[..]);
            let text: Box<str> = v
                .par_iter()
                .map(|x| char::from(b'a' + (x % 26) as u8))
                .collect();
            assert_eq!(
                &*text,
                v.iter()
                    .map(|x| char::from(b'a' + (x % 26) as u8))
                    .collect::<String>()
            );

            let blocks: Vec<u32> = v.par_iter().copied().by_exponential_blocks().collect();
            assert_eq!(blocks, v);
            let blocks: Vec<u32> = v.par_iter().copied().by_uniform_blocks(100).collect();
            assert_eq!(blocks, v);
        }
    });
}
