//! Transparent huge pages for large fresh buffers (Linux).
//!
//! A large `collect` writes every byte of a buffer the allocator has just mapped, and the
//! parallel stable sort does the same with its scratch buffer. The first touch of each 4 KiB
//! page is a page fault, and on a virtual machine that hands freed memory back to its host
//! a fault costs microseconds, and filling a large buffer is dominated by its faults until
//! the kernel backs it with 2 MiB pages (one fault per 512 pages). Linux does that
//! for a range that asks for it with `madvise(MADV_HUGEPAGE)` when transparent huge pages
//! are enabled in `madvise` mode, which is the common default.
//!
//! Only buffers of at least [`MIN_BYTES`] get the advice. It covers every 4 KiB page the
//! buffer lies on: for a buffer that is a mapping of its own (glibc's, from 32 MiB on) that
//! is exactly its mapping, which so stays one piece. Advice over part of a mapping splits it
//! in two or three, and glibc's `realloc` then cannot move the buffer with `mremap` and
//! copies it instead: one `push` onto a full buffer then copies all of it. The kernel backs
//! only the 2 MiB-aligned blocks inside the range
//! with huge pages, and faults a block in only when a byte of it is touched: memory nobody
//! writes costs nothing, and a block written in part costs its whole 2 MiB. This changes
//! which pages the kernel uses, never what the memory holds: where the call is unavailable
//! or refused, nothing happens.
//!
//! **Off by default** (as in jemalloc, mimalloc and the JVM): with transparent huge pages in
//! `madvise` mode the kernel's `defrag` setting is usually `madvise` too, so the first touch
//! of an advised block may compact memory synchronously to find 2 MiB of contiguous pages
//! (a stall far longer than the fault it saves), and the advice stays on the memory after
//! the buffer is freed if the allocator keeps the pages and hands them to other
//! allocations, where a block faulted in for a few bytes costs 2 MiB. It is turned on per pool
//! ([`ThreadPoolBuilder::huge_pages`](crate::ThreadPoolBuilder::huge_pages)) or for the
//! whole process (`WEFT_HUGE_PAGES=1`); see [`enabled`] for which setting a thread uses.
//!
//! `madvise` comes from the C library that `std` already links on Linux; weft declares the
//! one function itself instead of depending on the `libc` crate.
//!
//! `benches/iter.rs` gives its sequential baseline the same advice through
//! `bench_internals::reserve_with_huge_page_advice`.

/// Buffers smaller than this get no advice. From 32 MiB on, glibc's `malloc` always maps a
/// region of its own for an allocation (its dynamic mmap threshold stops growing there), so
/// the advice lands on fresh memory no other allocation shares and ends with the buffer.
/// Smaller buffers usually come back from the heap already faulted in, where the advice gains
/// nothing (measured: 1–16 MB collects took the same time with and without it).
pub(crate) const MIN_BYTES: usize = 32 << 20;

use std::cell::Cell;
use std::sync::atomic::{AtomicU8, Ordering};

/// The base page size `madvise` ranges are aligned to (x86-64, and aarch64 as most Linux
/// distributions build it; with larger base pages the call fails and nothing happens).
const PAGE: usize = 4096;

/// Reserves room for at least `additional` more items in `vec`, like `Vec::reserve`. If that
/// took a new allocation and the `additional` slots the caller is about to fill span at
/// least [`MIN_BYTES`], asks for huge pages over the whole new buffer ([`advise`]).
pub(crate) fn reserve<T>(vec: &mut Vec<T>, additional: usize) {
    let reallocates = vec.capacity() - vec.len() < additional;
    vec.reserve(additional);
    if reallocates && additional.saturating_mul(std::mem::size_of::<T>()) >= MIN_BYTES {
        let bytes = vec.capacity() * std::mem::size_of::<T>();
        advise(vec.as_mut_ptr().cast(), bytes);
    }
}

/// Asks the kernel to back the buffer of `bytes` bytes at `start` with huge pages, if
/// `bytes` is at least [`MIN_BYTES`]: the advice covers every page the buffer lies on (see
/// the module docs for why not only the 2 MiB blocks inside it). Returns whether the kernel
/// accepted it (false when it was not given). The buffer must be one live allocation of the
/// caller's.
pub(crate) fn advise(start: *mut u8, bytes: usize) -> bool {
    if bytes < MIN_BYTES || !enabled() {
        return false;
    }
    let first = start as usize / PAGE * PAGE;
    let end = (start as usize)
        .saturating_add(bytes)
        .next_multiple_of(PAGE);
    os::advise_huge_pages(first, end - first)
}

/// Whether a buffer allocated on this thread gets the advice:
/// - on a worker thread, its pool's [`ThreadPoolBuilder::huge_pages`] setting (the worker
///   allocates the result of a `collect` inside `install`, the pieces of an unindexed
///   collect, and the sort's buffer of a sort it runs);
/// - on any other thread, the global pool's setting (a parallel call from outside any pool
///   runs in the global pool, but allocates its result on the calling thread);
/// - where that pool has no setting: `WEFT_HUGE_PAGES=1` in the environment (read once per
///   process) turns the advice on, anything else leaves it off.
///
/// [`ThreadPoolBuilder::huge_pages`]: crate::ThreadPoolBuilder::huge_pages
pub(crate) fn enabled() -> bool {
    let setting = match THREAD_SETTING.with(Cell::get) {
        NOT_A_WORKER => GLOBAL_POOL_SETTING.load(Ordering::Relaxed),
        pool => pool,
    };
    match setting {
        ON => true,
        OFF => false,
        _ => environment_default(),
    }
}

/// `WEFT_HUGE_PAGES`, read once per process.
fn environment_default() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| enabled_by(std::env::var_os("WEFT_HUGE_PAGES").as_deref()))
}

/// The meaning of `WEFT_HUGE_PAGES`: on if it is `1`, off otherwise (unset included).
fn enabled_by(value: Option<&std::ffi::OsStr>) -> bool {
    matches!(value, Some(value) if value == "1")
}

/// A thread that is no pool's worker (the value of [`THREAD_SETTING`] until a pool makes
/// the thread its worker).
const NOT_A_WORKER: u8 = 0;
/// A pool that did not say: the environment decides.
const UNSET: u8 = 1;
const OFF: u8 = 2;
const ON: u8 = 3;

fn encode(setting: Option<bool>) -> u8 {
    match setting {
        None => UNSET,
        Some(false) => OFF,
        Some(true) => ON,
    }
}

thread_local! {
    /// The setting of the pool this thread is a worker of, or [`NOT_A_WORKER`].
    static THREAD_SETTING: Cell<u8> = const { Cell::new(NOT_A_WORKER) };
}

/// The global pool's setting ([`UNSET`] unless `build_global` gave one), for threads that
/// are no pool's worker.
static GLOBAL_POOL_SETTING: AtomicU8 = AtomicU8::new(UNSET);

/// Makes this thread a worker of a pool with `setting` (`None`: the pool did not say), until
/// [`leave_worker_thread`]. Called by the pool when a thread starts its worker loop or is
/// adopted as a worker.
pub(crate) fn enter_worker_thread(setting: Option<bool>) {
    THREAD_SETTING.with(|thread| thread.set(encode(setting)));
}

/// Runs `f` with the advice on for this thread, whatever its pool says, then restores the
/// thread's setting (the sequential baselines of the benches, through `bench_internals`).
#[cfg(feature = "bench-internals")]
pub(crate) fn with_advice_on<R>(f: impl FnOnce() -> R) -> R {
    let previous = THREAD_SETTING.with(|thread| thread.replace(ON));
    let result = f();
    THREAD_SETTING.with(|thread| thread.set(previous));
    result
}

/// This thread is no longer a pool's worker (its worker loop ended).
pub(crate) fn leave_worker_thread() {
    THREAD_SETTING.with(|thread| thread.set(NOT_A_WORKER));
}

/// Records the global pool's `setting`, which applies to threads outside any pool. Called
/// once, when the global pool is built from a builder.
pub(crate) fn set_global_pool_setting(setting: Option<bool>) {
    // ORDERING: a configuration value with no data attached. The global pool is built
    // before any parallel call can use it (its `OnceLock` publishes it), and a thread that
    // reads a stale `UNSET` here only follows the environment for one buffer.
    GLOBAL_POOL_SETTING.store(encode(setting), Ordering::Relaxed);
}

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64"),
    not(miri)
))]
mod os {
    use std::ffi::{c_int, c_void};

    extern "C" {
        /// `int madvise(void *addr, size_t length, int advice)` of the C library (POSIX,
        /// Linux man page madvise(2)).
        fn madvise(addr: *mut c_void, length: usize, advice: c_int) -> c_int;
    }

    /// `MADV_HUGEPAGE` in Linux's generic `mman-common.h`, which x86-64 and aarch64 use.
    const MADV_HUGEPAGE: c_int = 14;

    /// `madvise(first, len, MADV_HUGEPAGE) == 0`; `first` is aligned to a 4 KiB page.
    pub(super) fn advise_huge_pages(first: usize, len: usize) -> bool {
        // SAFETY: the declaration above matches the C library's `madvise`. `MADV_HUGEPAGE`
        // only sets which page size the kernel may use for the range; it neither reads nor
        // changes the memory's contents or its mapping's protection, so no Rust value can
        // observe it; that holds as well for the bytes of the first and last page that lie
        // outside the caller's buffer (the range is rounded out to whole pages). A range that
        // is misaligned, unmapped or not eligible makes the call fail with an error code,
        // which is returned as `false`; it cannot fault.
        unsafe { madvise(first as *mut c_void, len, MADV_HUGEPAGE) == 0 }
    }
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64"),
    not(miri)
)))]
mod os {
    /// No advice outside Linux on x86-64 and aarch64 (or under Miri).
    pub(super) fn advise_huge_pages(_first: usize, _len: usize) -> bool {
        false
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #[test]
    fn buffers_below_the_threshold_get_no_advice() {
        let mut small: Vec<u8> = Vec::with_capacity(super::MIN_BYTES - 1);
        assert!(!super::advise(small.as_mut_ptr(), super::MIN_BYTES - 1));
    }

    #[test]
    fn only_weft_huge_pages_1_turns_the_advice_on() {
        assert!(!super::enabled_by(None));
        assert!(!super::enabled_by(Some("0".as_ref())));
        assert!(!super::enabled_by(Some("yes".as_ref())));
        assert!(super::enabled_by(Some("1".as_ref())));
    }

    /// A worker follows its pool's setting, and falls back to the environment when the
    /// pool has none; a thread outside any pool follows the global pool's setting.
    #[test]
    fn a_thread_follows_its_pools_setting() {
        std::thread::spawn(|| {
            let environment = super::environment_default();
            assert_eq!(
                super::enabled(),
                environment,
                "outside any pool, no global setting"
            );
            super::enter_worker_thread(Some(true));
            assert!(super::enabled());
            super::enter_worker_thread(Some(false));
            assert!(!super::enabled());
            super::enter_worker_thread(None);
            assert_eq!(super::enabled(), environment);
            super::leave_worker_thread();
            assert_eq!(super::enabled(), environment);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn reserve_keeps_the_items_and_makes_room() {
        let mut v: Vec<u64> = (0..1000).collect();
        super::reserve(&mut v, super::MIN_BYTES / 8 + 5);
        assert!(v.capacity() >= 1000 + super::MIN_BYTES / 8 + 5);
        assert!(v.iter().copied().eq(0..1000));
        let capacity = v.capacity();
        super::reserve(&mut v, 10); // room enough: no new allocation
        assert_eq!(v.capacity(), capacity);
    }

    /// `reserve` (the sorts' buffers, the indexed collect's) advises a large new buffer on a
    /// thread whose pool turned the advice on, and not on one whose pool turned it off.
    #[test]
    fn reserve_advises_only_when_enabled() {
        if !advice_is_possible() {
            return;
        }
        std::thread::spawn(|| {
            for on in [true, false] {
                super::enter_worker_thread(Some(on));
                let mut buffer: Vec<u64> = Vec::new();
                super::reserve(&mut buffer, super::MIN_BYTES / 8);
                let start = buffer.as_ptr() as usize;
                let end = start + buffer.capacity() * 8;
                if on {
                    assert_one_flagged_mapping(start, end, "reserve, advice on");
                } else {
                    assert_not_flagged(start, end, "reserve, advice off");
                }
            }
        })
        .join()
        .unwrap();
    }

    /// `(start, end, VmFlags)` of every mapping of this process.
    fn mappings() -> Vec<(usize, usize, String)> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("read /proc/self/smaps");
        let mut out: Vec<(usize, usize, String)> = Vec::new();
        for line in smaps.lines() {
            if let Some(flags) = line.strip_prefix("VmFlags:") {
                out.last_mut().expect("VmFlags after its mapping").2 = flags.trim().to_string();
            } else if let Some((range, _)) = line.split_once(' ') {
                if let Some((lo, hi)) = range.split_once('-') {
                    if let (Ok(lo), Ok(hi)) =
                        (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                    {
                        out.push((lo, hi, String::new()));
                    }
                }
            }
        }
        out
    }

    /// Asserts that the buffer `start..end` lies in one mapping, flagged for huge pages
    /// (`hg` in its `VmFlags`); `what` names the buffer in the messages.
    pub(crate) fn assert_one_flagged_mapping(start: usize, end: usize, what: &str) {
        let maps = mappings();
        let (lo, hi, flags) = maps
            .iter()
            .find(|(lo, hi, _)| (*lo..*hi).contains(&start))
            .expect("the buffer is mapped");
        let huge = flags.split(' ').any(|flag| flag == "hg");
        assert!(huge, "{what}: the buffer is not flagged for huge pages");
        assert!(
            *lo <= start && end <= *hi,
            "{what}: the buffer {start:x}..{end:x} spans more than the mapping {lo:x}..{hi:x}"
        );
    }

    /// Whether the advice can be given here: the platforms of `os::advise_huge_pages` and a
    /// kernel with transparent huge pages (else the flag tests have nothing to look at, and
    /// say so). Callers turn the advice on themselves (a pool with `huge_pages(true)`).
    pub(crate) fn advice_is_possible() -> bool {
        let platform = cfg!(all(
            target_os = "linux",
            any(target_arch = "x86_64", target_arch = "aarch64"),
            not(miri)
        ));
        let kernel = std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists();
        let possible = platform && kernel;
        if !possible {
            eprintln!("skipped: no transparent huge pages here");
        }
        possible
    }

    /// Asserts that no page of the buffer `start..end` is flagged for huge pages.
    pub(crate) fn assert_not_flagged(start: usize, end: usize, what: &str) {
        for (lo, hi, flags) in mappings() {
            if lo < end && start < hi {
                let huge = flags.split(' ').any(|flag| flag == "hg");
                assert!(!huge, "{what}: the buffer is flagged for huge pages");
            }
        }
    }

    /// The kernel flags every page of an advised buffer for huge pages (`hg` in smaps), as
    /// one mapping: advice over only part of it would have split it.
    #[test]
    fn the_kernel_flags_every_page_of_the_buffer_in_one_mapping() {
        if !advice_is_possible() {
            return;
        }
        super::enter_worker_thread(Some(true)); // this test's thread only
        let len = super::MIN_BYTES + 12_345;
        let mut buffer: Vec<u8> = Vec::with_capacity(len);
        let start = buffer.as_mut_ptr() as usize;
        assert!(
            super::advise(start as *mut u8, len),
            "madvise(MADV_HUGEPAGE) was refused"
        );
        let (first, end) = (start / 4096 * 4096, (start + len).next_multiple_of(4096));
        assert_one_flagged_mapping(first, end, "an advised buffer");
    }
}
