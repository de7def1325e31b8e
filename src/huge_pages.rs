//! Transparent huge pages for large fresh buffers (Linux).
//!
//! A large `collect` writes every byte of a buffer the allocator has just mapped, and the
//! parallel stable sort does the same with its scratch buffer. The first touch of each 4 KiB
//! page is a page fault, and on a virtual machine that hands freed memory back to its host
//! a fault costs microseconds: 80 MB took 53 ms to fill on one thread here, 14 ms once the
//! kernel backed the same buffer with 2 MiB pages (one fault per 512 pages). Linux does that
//! for a range that asks for it with `madvise(MADV_HUGEPAGE)` when transparent huge pages
//! are enabled in `madvise` mode, which is the common default.
//!
//! Only buffers of at least [`MIN_BYTES`] get the advice, and only the 2 MiB blocks that lie
//! wholly inside the part the caller is about to fill, so no huge page is ever faulted in
//! for memory nobody writes. This changes which pages the kernel uses, never what the
//! memory holds: where the call is unavailable or refused, nothing happens, and
//! `WEFT_HUGE_PAGES=0` in the environment turns it off.
//!
//! `madvise` comes from the C library that `std` already links on Linux; weft declares the
//! one function itself instead of depending on the `libc` crate.
//!
//! This file uses nothing else of the crate, so `benches/iter.rs` includes it as well, to
//! give the sequential baseline the same advice.

/// Buffers smaller than this get no advice. From 32 MiB on, glibc's `malloc` always maps a
/// region of its own for an allocation (its dynamic mmap threshold stops growing there), so
/// the advice lands on fresh memory no other allocation shares and ends with the buffer.
/// Smaller buffers usually come back from the heap already faulted in, where the advice gains
/// nothing (measured: 1–16 MB collects took the same time with and without it).
pub(crate) const MIN_BYTES: usize = 32 << 20;

/// The huge page size on x86-64 and on aarch64 with 4 KiB base pages; a multiple of every
/// base page size up to it, so ranges aligned to it are valid `madvise` arguments.
const HUGE_PAGE: usize = 2 << 20;

/// Reserves room for at least `additional` more items in `vec`, like `Vec::reserve`. If that
/// took a new allocation, asks for huge pages over the `additional` slots after the current
/// items (the part the caller is about to fill), when they span at least [`MIN_BYTES`].
pub(crate) fn reserve<T>(vec: &mut Vec<T>, additional: usize) {
    let reallocates = vec.capacity() - vec.len() < additional;
    vec.reserve(additional);
    if reallocates {
        let spare = &mut vec.spare_capacity_mut()[..additional];
        advise(spare.as_mut_ptr().cast(), std::mem::size_of_val(spare));
    }
}

/// Asks the kernel to back the 2 MiB-aligned blocks inside `bytes` bytes at `start` with
/// huge pages, if `bytes` is at least [`MIN_BYTES`]. Returns whether the kernel accepted the
/// advice (false when it was not given). The range must lie inside one live allocation of the
/// caller's, which the caller is about to fill.
pub(crate) fn advise(start: *mut u8, bytes: usize) -> bool {
    if bytes < MIN_BYTES || !enabled() {
        return false;
    }
    let first = (start as usize).next_multiple_of(HUGE_PAGE);
    let end = (start as usize + bytes) / HUGE_PAGE * HUGE_PAGE;
    end > first && os::advise_huge_pages(first, end - first)
}

/// Whether the advice is given at all: `WEFT_HUGE_PAGES=0` in the environment turns it off
/// (read once per process), for programs whose allocator reuses freed memory for small
/// allocations, where a huge page faulted in for a few bytes would cost 2 MiB of memory.
fn enabled() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| enabled_by(std::env::var_os("WEFT_HUGE_PAGES").as_deref()))
}

/// The meaning of `WEFT_HUGE_PAGES`: on unless it is `0`.
fn enabled_by(value: Option<&std::ffi::OsStr>) -> bool {
    !matches!(value, Some(value) if value == "0")
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

    /// `madvise(first, len, MADV_HUGEPAGE) == 0`; `first` is aligned to a huge page.
    pub(super) fn advise_huge_pages(first: usize, len: usize) -> bool {
        // SAFETY: the declaration above matches the C library's `madvise`. `MADV_HUGEPAGE`
        // only sets which page size the kernel may use for the range; it neither reads nor
        // changes the memory's contents or its mapping's protection, so no Rust value can
        // observe it. A range that is misaligned, unmapped or not eligible makes the call
        // fail with an error code, which is returned as `false`; it cannot fault.
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
mod tests {
    // `super::` paths, no `use`: benches/iter.rs includes this file too, and cargo builds
    // benches with `cfg(test)` but drops their `#[test]` functions, which would leave a `use`
    // unused there.

    #[test]
    fn buffers_below_the_threshold_get_no_advice() {
        let mut small: Vec<u8> = Vec::with_capacity(super::MIN_BYTES - 1);
        assert!(!super::advise(small.as_mut_ptr(), super::MIN_BYTES - 1));
    }

    #[test]
    fn weft_huge_pages_0_turns_the_advice_off() {
        assert!(super::enabled_by(None));
        assert!(!super::enabled_by(Some("0".as_ref())));
        assert!(super::enabled_by(Some("1".as_ref())));
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

    /// `(start, end, VmFlags)` of every mapping of this process.
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
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

    /// The kernel flags exactly the whole 2 MiB blocks inside the range (`hg` in smaps), not
    /// the bytes before the first block or after the last.
    #[test]
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    fn the_kernel_flags_the_whole_huge_blocks_inside_the_range() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            eprintln!("skipped: this kernel has no transparent huge pages");
            return;
        }
        let len = super::MIN_BYTES + 3 * super::HUGE_PAGE + 12_345;
        let mut buffer: Vec<u8> = Vec::with_capacity(len + 1);
        let start = buffer.as_mut_ptr().wrapping_add(1) as usize; // not aligned on purpose
        assert!(
            super::advise(start as *mut u8, len),
            "madvise(MADV_HUGEPAGE) was refused"
        );
        let first = start.next_multiple_of(super::HUGE_PAGE);
        let end = (start + len) / super::HUGE_PAGE * super::HUGE_PAGE;
        let maps = mappings();
        let flags_at = |address: usize| {
            let map = maps
                .iter()
                .find(|(lo, hi, _)| (*lo..*hi).contains(&address));
            map.map(|(lo, hi, flags)| (*lo, *hi, flags.split(' ').any(|f| f == "hg")))
                .expect("the buffer is mapped")
        };
        let (lo, hi, huge) = flags_at(first);
        assert!(huge, "the first whole block is not flagged");
        assert!(
            lo <= first && end <= hi,
            "the flagged blocks are split: {lo:x}..{hi:x}"
        );
        assert!(
            !flags_at(first - 1).2,
            "bytes before the first block were flagged"
        );
        if end < start + len {
            assert!(!flags_at(end).2, "bytes after the last block were flagged");
        }
    }
}
