//! scratch: cost of many small parallel loops inside a 2-thread pool
use std::hint::black_box;
use std::time::Instant;
fn main() {
    let v: Vec<u64> = (0..2_000_000u64).collect();
    let len: usize = std::env::args()
        .nth(1)
        .and_then(|x| x.parse().ok())
        .unwrap_or(256);
    let threads: usize = std::env::args()
        .nth(2)
        .and_then(|x| x.parse().ok())
        .unwrap_or(2);
    let w = weft::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let r = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    for round in 0..5 {
        let s = Instant::now();
        let a: u64 = w.install(|| {
            use weft::prelude::*;
            v.chunks(len)
                .map(|c| black_box(c).par_iter().sum::<u64>())
                .sum()
        });
        let tw = s.elapsed();
        let s = Instant::now();
        let b: u64 = r.install(|| {
            use rayon::prelude::*;
            v.chunks(len)
                .map(|c| black_box(c).par_iter().sum::<u64>())
                .sum()
        });
        let tr = s.elapsed();
        let s = Instant::now();
        let c: u64 = w.install(|| {
            use weft::prelude::*;
            v.par_chunks(len).flat_map(|c| c.par_iter()).sum()
        });
        let tn = s.elapsed();
        let s = Instant::now();
        let d: u64 = r.install(|| {
            use rayon::prelude::*;
            v.par_chunks(len).flat_map(|c| c.par_iter()).sum()
        });
        let tnr = s.elapsed();
        assert!(a == b && b == c && c == d);
        let per = (v.len() / len) as f64;
        println!("round {round}: serial-outer small loops: weft {:.0} ns/loop rayon {:.0} ns/loop | nested flat_map: weft {:.0} rayon {:.0}", tw.as_nanos() as f64 / per, tr.as_nanos() as f64 / per, tn.as_nanos() as f64 / per, tnr.as_nanos() as f64 / per);
    }
    println!("weft stats: {:?}", w.stats());
}
