//! Renders the Mandelbrot set to a greyscale PGM image, once sequentially and once in
//! parallel (`par_chunks_mut` over rows), checks that both images are
//! identical, and prints both times.
//!
//! ```sh
//! cargo run --release --example mandelbrot -- --size 1024 --out mandelbrot.pgm
//! ```

use std::io::Write;

use std::process::exit;
use std::time::Instant;
use weft::prelude::*;

/// Escape-time iterations per pixel; the grey level is the iteration count.
const MAX_ITERATIONS: u32 = 255;

const USAGE: &str = "usage: mandelbrot [--size PIXELS] [--out FILE]";

struct Options {
    size: usize,
    out: String,
}

fn parse_options() -> Options {
    let mut options = Options {
        size: 1024,
        out: "mandelbrot.pgm".to_string(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .unwrap_or_else(|| fail(&format!("{flag} needs a value")));
        match flag.as_str() {
            "--size" => {
                options.size = value
                    .parse()
                    .ok()
                    .filter(|&size| size > 0)
                    .unwrap_or_else(|| fail(&format!("--size: not a positive number: {value}")))
            }
            "--out" => options.out = value,
            _ => fail(&format!("unknown flag {flag}")),
        }
    }
    options
}

fn fail(message: &str) -> ! {
    eprintln!("{message}\n{USAGE}");
    exit(2)
}

/// Iterations before the orbit of the pixel at (`x`, `y`) escapes the radius-2 disc, for a
/// `size`x`size` view of [-2.2, 0.8] x [-1.5, 1.5].
fn escape_time(x: usize, y: usize, size: usize) -> u8 {
    let scale = 3.0 / size as f64;
    let c_re = -2.2 + x as f64 * scale;
    let c_im = -1.5 + y as f64 * scale;
    let (mut re, mut im) = (0.0f64, 0.0f64);
    for i in 0..MAX_ITERATIONS {
        if re * re + im * im > 4.0 {
            return i as u8;
        }
        (re, im) = (re * re - im * im + c_re, 2.0 * re * im + c_im);
    }
    MAX_ITERATIONS as u8
}

/// Fills `rows` (whole rows of the image, starting at row `first_row`).
fn render_rows(rows: &mut [u8], first_row: usize, size: usize) {
    for (i, row) in rows.chunks_mut(size).enumerate() {
        for (x, pixel) in row.iter_mut().enumerate() {
            *pixel = escape_time(x, first_row + i, size);
        }
    }
}

/// Renders the image in parallel, one row per item: the rows near the middle cost far more
/// than those at the edges, which is what work stealing has to balance.
fn render_parallel(image: &mut [u8], size: usize) {
    image
        .par_chunks_mut(size)
        .enumerate()
        .for_each(|(y, row)| render_rows(row, y, size));
}

fn main() {
    let options = parse_options();
    let size = options.size;
    let threads = weft::current_num_threads();

    let mut sequential = vec![0u8; size * size];
    let start = Instant::now();
    render_rows(&mut sequential, 0, size);
    let sequential_time = start.elapsed();

    let mut parallel = vec![0u8; size * size];
    let start = Instant::now();
    render_parallel(&mut parallel, size);
    let parallel_time = start.elapsed();

    if sequential != parallel {
        eprintln!("the parallel image differs from the sequential one");
        exit(1);
    }
    let file = std::fs::File::create(&options.out);
    let written = file.and_then(|mut file| {
        write!(file, "P5\n{size} {size}\n255\n")?;
        file.write_all(&parallel)
    });
    if let Err(error) = written {
        eprintln!("{}: {error}", options.out);
        exit(1);
    }

    let seq_ms = sequential_time.as_secs_f64() * 1e3;
    let par_ms = parallel_time.as_secs_f64() * 1e3;
    let speedup = seq_ms / par_ms;
    println!(
        "mandelbrot {size}x{size}, {MAX_ITERATIONS} iterations, wrote {}",
        options.out
    );
    println!("sequential {seq_ms:>8.1}ms");
    println!("parallel   {par_ms:>8.1}ms  {speedup:.2}x on {threads} threads (images identical)");
}
