//! A pool's recording: the workers' rings (handed to each worker as it starts), the reader
//! that drains them into a [`Recording`], and when `WEFT_TRACE`'s files are written
//! (when the pool is gone, or at process exit; `crate::trace` writes them).

use std::ffi::OsStr;
use std::path::PathBuf;
// Not `crate::sync`: statics need const constructors, and none of this is a protocol a loom
// model would check (the rings, which are, use `crate::sync`).
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once, Weak};
use std::time::{Duration, Instant};

use super::super::registry::Registry;
use super::super::PoolStats;
use super::hooks;
use super::ring::{self, Consumer, Producer};
use super::writer::{Record, TraceWriter};

/// Records per worker unless [`ThreadPoolBuilder::trace_capacity`] says otherwise: 48 bytes
/// each, so 3 MiB per worker.
///
/// [`ThreadPoolBuilder::trace_capacity`]: crate::ThreadPoolBuilder::trace_capacity
pub(crate) const DEFAULT_CAPACITY: usize = 1 << 16;

/// Whether and how a pool records: what its builder and `WEFT_TRACE` decided.
#[derive(Debug)]
pub(crate) struct TraceConfig {
    capacity: usize,
    /// `WEFT_TRACE`'s directory.
    output: Option<PathBuf>,
}

impl TraceConfig {
    /// The builder's `trace` setting (`None`: not set) and capacity, with `WEFT_TRACE`.
    pub(crate) fn resolve(setting: Option<bool>, capacity: usize) -> Option<TraceConfig> {
        let output = output_dir(std::env::var_os("WEFT_TRACE").as_deref());
        match setting {
            Some(false) => None,
            Some(true) => Some(TraceConfig { capacity, output }),
            None => output.map(|output| TraceConfig {
                capacity,
                output: Some(output),
            }),
        }
    }
}

/// The meaning of `WEFT_TRACE`: a directory, unless unset, empty or `0`.
fn output_dir(value: Option<&OsStr>) -> Option<PathBuf> {
    value
        .filter(|value| !value.is_empty() && *value != "0")
        .map(PathBuf::from)
}

/// What a pool's workers recorded between two takes, as the pool wrote it: `crate::trace`
/// reads it into a `Trace`.
#[derive(Debug)]
pub(crate) struct Recording {
    /// Each worker's thread name (`"worker <index>"` if it has none).
    pub(crate) names: Vec<String>,
    /// The records with the index of the worker that wrote them, each worker's in the order
    /// it wrote them.
    pub(crate) records: Vec<(usize, Record)>,
    /// The time the recording covers, since the pool was built.
    pub(crate) interval: Range<Duration>,
    /// The pool's counters over `interval`.
    pub(crate) stats: PoolStats,
    /// Records lost to full rings over `interval`.
    pub(crate) dropped: u64,
}

/// The recording of one pool.
#[derive(Debug)]
pub(crate) struct PoolTrace {
    epoch: Instant,
    /// Each worker's writing end, until the worker takes it (`writer_for`).
    producers: Mutex<Vec<Option<Producer<Record>>>>,
    reader: Mutex<Reader>,
    /// `WEFT_TRACE`'s directory and this pool's number among the pools that write there.
    output: Option<(PathBuf, usize)>,
    /// Set once the files are written; held while writing, so that an exit-time write
    /// waits for a pool's own and finds it done.
    output_written: Mutex<bool>,
}

#[derive(Debug)]
struct Reader {
    consumers: Vec<Consumer<Record>>,
    names: Vec<Option<String>>,
    /// Where the previous `take` ended, and what it saw of the counters.
    taken_until: Duration,
    stats_before: PoolStats,
    dropped_before: Vec<u64>,
}

impl PoolTrace {
    pub(crate) fn new(num_workers: usize, config: TraceConfig) -> PoolTrace {
        static POOLS_WITH_OUTPUT: AtomicUsize = AtomicUsize::new(0);
        hooks::a_pool_records();
        let (producers, consumers) = (0..num_workers)
            .map(|_| {
                let (producer, consumer) = ring::ring(config.capacity);
                (Some(producer), consumer)
            })
            .unzip();
        let output = config.output.map(|dir| {
            // ORDERING: a counter that only names files; nothing is published through it.
            (dir, POOLS_WITH_OUTPUT.fetch_add(1, Ordering::Relaxed))
        });
        PoolTrace {
            epoch: Instant::now(),
            producers: Mutex::new(producers),
            reader: Mutex::new(Reader {
                consumers,
                names: vec![None; num_workers],
                taken_until: Duration::ZERO,
                stats_before: PoolStats::default(),
                dropped_before: vec![0; num_workers],
            }),
            output,
            output_written: Mutex::new(false),
        }
    }

    /// Worker `index`'s writer, for the worker starting on the current thread (whose name
    /// the trace will show). `None` if it was handed out already.
    pub(crate) fn writer_for(&self, index: usize) -> Option<TraceWriter> {
        // A worker a resize started beyond the pool's first size records nothing.
        let producer = lock(&self.producers).get_mut(index)?.take()?;
        lock(&self.reader).names[index] = std::thread::current().name().map(str::to_owned);
        Some(TraceWriter::new(producer, self.epoch, index))
    }

    /// Everything recorded since the previous call; `stats` reads the pool's counters
    /// (under the reader's lock, so that concurrent takes see growing counters in turn).
    pub(crate) fn take(&self, stats: impl FnOnce() -> PoolStats) -> Recording {
        let mut reader = lock(&self.reader);
        let stats = stats();
        let now = self.epoch.elapsed();
        let (mut records, mut dropped) = (Vec::new(), 0);
        let mut drained = Vec::new();
        let Reader {
            consumers,
            dropped_before,
            ..
        } = &mut *reader;
        for (worker, (consumer, dropped_before)) in
            consumers.iter_mut().zip(dropped_before).enumerate()
        {
            drained.clear();
            consumer.drain_into(&mut drained);
            records.extend(drained.iter().map(|record| (worker, *record)));
            dropped += consumer.dropped() - *dropped_before;
            *dropped_before = consumer.dropped();
        }
        let names = (reader.names.iter().enumerate())
            .map(|(index, name)| name.clone().unwrap_or_else(|| format!("worker {index}")))
            .collect();
        let recording = Recording {
            names,
            records,
            interval: reader.taken_until..now,
            stats: stats - reader.stats_before,
            dropped,
        };
        reader.taken_until = now;
        reader.stats_before = stats;
        recording
    }

    /// Whether `WEFT_TRACE` asked for files.
    pub(crate) fn writes_output(&self) -> bool {
        self.output.is_some()
    }

    /// `WEFT_TRACE`: writes what is left to the pool's files, once.
    pub(crate) fn write_output(&self, stats: impl FnOnce() -> PoolStats, global: bool) {
        let Some((dir, number)) = &self.output else {
            return;
        };
        let mut written = lock(&self.output_written);
        if *written {
            return;
        }
        *written = true;
        let recording = self.take(stats);
        let pool = if global {
            "global".to_owned()
        } else {
            number.to_string()
        };
        let stem = format!("weft-trace-{}-{pool}", std::process::id());
        crate::trace::write_files(dir, &stem, recording);
    }
}

/// Locks `mutex`, ignoring poison: the data behind these locks stays consistent (a panic
/// while writing files leaves at worst a file unwritten).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|err| err.into_inner())
}

/// The pools whose files are still to be written at process exit.
static EXIT_WRITES: Mutex<Vec<Weak<Registry>>> = Mutex::new(Vec::new());

/// `registry` writes `WEFT_TRACE` files: make sure they are written at process exit if the
/// pool is still there then.
pub(crate) fn write_at_exit(registry: &Arc<Registry>) {
    static REGISTER: Once = Once::new();
    let mut pools = lock(&EXIT_WRITES);
    pools.retain(|pool| pool.strong_count() > 0);
    pools.push(Arc::downgrade(registry));
    drop(pools);
    REGISTER.call_once(exit::register);
}

/// The exit-time write, for every pool still alive.
fn write_all_at_exit() {
    let pools: Vec<_> = lock(&EXIT_WRITES)
        .iter()
        .filter_map(Weak::upgrade)
        .collect();
    for registry in pools {
        registry.write_trace_output();
    }
}

#[cfg(any(unix, windows))]
mod exit {
    use std::ffi::c_int;

    extern "C" {
        /// `int atexit(void (*function)(void))` of the C library (C11 7.22.4.2; Rust's
        /// standard library links the C library on these targets).
        fn atexit(function: extern "C" fn()) -> c_int;
    }

    extern "C" fn at_exit() {
        // No panic may unwind into the C library.
        let _ = std::panic::catch_unwind(super::write_all_at_exit);
    }

    pub(super) fn register() {
        // SAFETY: the declaration matches the C library's `atexit`; `at_exit` is an
        // `extern "C" fn()` that lives as long as the program and never unwinds.
        let failed = unsafe { atexit(at_exit) } != 0;
        if failed {
            eprintln!("weft: WEFT_TRACE: atexit failed; traces are written when pools end");
        }
    }
}

#[cfg(not(any(unix, windows)))]
mod exit {
    /// No exit hook elsewhere: traces are written when their pools end.
    pub(super) fn register() {}
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn weft_trace_names_a_directory_unless_empty_or_zero() {
        assert_eq!(output_dir(None), None);
        assert_eq!(output_dir(Some(OsStr::new(""))), None);
        assert_eq!(output_dir(Some(OsStr::new("0"))), None);
        assert_eq!(
            output_dir(Some(OsStr::new("out/traces"))),
            Some(PathBuf::from("out/traces"))
        );
    }
}
