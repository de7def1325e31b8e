//! Pictures of weft's schedule: runs a parallel quicksort and a Mandelbrot render on pools
//! that record what their workers do (`ThreadPoolBuilder::trace`), and writes each
//! recording as Chrome trace-event JSON (open it in <https://ui.perfetto.dev>) and as an
//! SVG timeline: `OUTDIR/quicksort.{json,svg}` and `OUTDIR/mandelbrot.{json,svg}`.
//!
//! ```sh
//! cargo run --release --example trace -- OUTDIR [--threads 4] [--n 2000000] [--size 640]
//! ```

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::exit;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use weft::prelude::*;
use weft::trace::{SpanKind, Trace};

const USAGE: &str = "usage: trace OUTDIR [--threads N] [--n SORTED_ITEMS] [--size PIXELS]";

/// Escape-time iterations per pixel (as `examples/mandelbrot.rs`).
const MAX_ITERATIONS: u32 = 255;

struct Options {
    out_dir: PathBuf,
    threads: usize,
    n: usize,
    size: usize,
}

fn parse_options() -> Options {
    let mut args = std::env::args().skip(1);
    let out_dir = args.next().unwrap_or_else(|| fail("OUTDIR is missing"));
    let mut options = Options {
        out_dir: PathBuf::from(out_dir),
        threads: std::thread::available_parallelism().map_or(2, |n| n.get().max(2)),
        n: 2_000_000,
        size: 640,
    };
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .unwrap_or_else(|| fail(&format!("{flag} needs a value")));
        let number: usize = value
            .replace('_', "")
            .parse()
            .ok()
            .filter(|&number| number > 0)
            .unwrap_or_else(|| fail(&format!("{flag}: not a positive number: {value}")));
        match flag.as_str() {
            "--threads" => options.threads = number,
            "--n" => options.n = number,
            "--size" => options.size = number,
            _ => fail(&format!("unknown flag {flag}")),
        }
    }
    options
}

fn fail(message: &str) -> ! {
    eprintln!("{message}\n{USAGE}");
    exit(2)
}

/// A pool that records, with its workers started and the recording of their start-up
/// discarded.
fn recording_pool(threads: usize) -> weft::ThreadPool {
    let pool = weft::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|index| format!("worker {index}"))
        .trace(true)
        .build()
        .unwrap_or_else(|err| fail(&format!("cannot build the pool: {err}")));
    pool.broadcast(|_| ());
    pool.take_trace();
    pool
}

/// Runs `work` in `pool` and returns the recording of it. The job that `install` hands to
/// the pool is recorded once it has ended, a moment after `install` returns: wait for it.
fn record(pool: &weft::ThreadPool, work: impl FnOnce() + Send) -> Trace {
    pool.install(work);
    std::thread::sleep(std::time::Duration::from_millis(20));
    pool.take_trace().expect("the pool records")
}

fn save(trace: &Trace, dir: &Path, name: &str) {
    let write = |extension: &str, write: &dyn Fn(BufWriter<File>) -> std::io::Result<()>| {
        let path = dir.join(format!("{name}.{extension}"));
        if let Err(err) = File::create(&path).and_then(|file| write(BufWriter::new(file))) {
            fail(&format!("{}: {err}", path.display()));
        }
        path
    };
    let json = write("json", &|out| trace.write_chrome_json(out));
    let svg = write("svg", &|out| trace.write_svg(out));
    let stats = trace.stats();
    let pieces = (trace.spans().iter())
        .filter(|span| matches!(span.kind, SpanKind::Piece { .. }))
        .count();
    println!(
        "{name}: {} spans ({pieces} loop pieces), {} marks; {} jobs stolen, {} range steals, \
         {} wake-ups; wrote {} and {}",
        trace.spans().len(),
        trace.marks().len(),
        stats.jobs_stolen,
        stats.range_steals,
        stats.wakeups,
        json.display(),
        svg.display()
    );
}

fn escape_time(x: usize, y: usize, size: usize) -> u8 {
    let scale = 3.0 / size as f64;
    let (c_re, c_im) = (-2.2 + x as f64 * scale, -1.5 + y as f64 * scale);
    let (mut re, mut im) = (0.0f64, 0.0f64);
    for i in 0..MAX_ITERATIONS {
        if re * re + im * im > 4.0 {
            return i as u8;
        }
        (re, im) = (re * re - im * im + c_re, 2.0 * re * im + c_im);
    }
    MAX_ITERATIONS as u8
}

fn main() {
    let options = parse_options();
    if let Err(err) = std::fs::create_dir_all(&options.out_dir) {
        fail(&format!("{}: {err}", options.out_dir.display()));
    }

    // A parallel quicksort: recursion on `join`, so the picture shows stolen join halves.
    let mut rng = SmallRng::seed_from_u64(1);
    let mut v: Vec<u64> = (0..options.n).map(|_| rng.random()).collect();
    let mut expected = v.clone();
    expected.sort_unstable();
    let pool = recording_pool(options.threads);
    let trace = record(&pool, || v.par_sort_unstable());
    assert!(v == expected, "the parallel sort differs from std's");
    save(&trace, &options.out_dir, "quicksort");

    // A Mandelbrot render, one row per item: an indexed loop, so the picture shows its
    // pieces (rows) and the ranges of rows that idle workers stole.
    let size = options.size;
    let mut image = vec![0u8; size * size];
    let pool = recording_pool(options.threads);
    let trace = record(&pool, || {
        image.par_chunks_mut(size).enumerate().for_each(|(y, row)| {
            for (x, pixel) in row.iter_mut().enumerate() {
                *pixel = escape_time(x, y, size);
            }
        })
    });
    let sample = size / 2 * size + size / 3;
    assert_eq!(image[sample], escape_time(size / 3, size / 2, size));
    save(&trace, &options.out_dir, "mandelbrot");
}
