//! `WEFT_TRACE`'s files: a pool's recording written as Chrome JSON and SVG side by side.
//! The pool decides when (once its workers have exited, or at process exit) and under which
//! name (`pool/trace/pool_trace.rs`); this writes them.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::Trace;
use crate::pool::trace::Recording;

/// Reads `recording` and writes it to `dir/<stem>.json` and `dir/<stem>.svg`, creating `dir` if missing. A
/// failure is reported on stderr and otherwise ignored: a trace is a diagnostic, and the
/// program it describes goes on (this runs at pool end or process exit, with nobody to
/// return an error to).
pub(crate) fn write_files(dir: &Path, stem: &str, recording: Recording) {
    let trace = Trace::read(recording);
    let stem = dir.join(stem);
    let result = fs::create_dir_all(dir)
        .and_then(|()| write_file(&stem.with_extension("json"), |w| trace.write_chrome_json(w)))
        .and_then(|()| write_file(&stem.with_extension("svg"), |w| trace.write_svg(w)));
    if let Err(err) = result {
        eprintln!("weft: WEFT_TRACE: writing {}.*: {err}", stem.display());
    }
}

fn write_file(path: &Path, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let mut file = BufWriter::new(fs::File::create(path)?);
    write(&mut file)?;
    file.flush()
}
