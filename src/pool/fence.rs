//! Asymmetric fences: a pair of memory barriers whose *light* side costs the thread that runs
//! it almost nothing and whose *heavy* side makes up for it, for protocols where one side
//! runs all the time (a worker pushing and popping its own forks) and the other rarely (a
//! thief taking a fork from a worker that did not offer it).
//!
//! The contract is the one of a pair of `fence(SeqCst)`: if thread A runs `light()` between
//! a store X and a load Y, and thread B runs `heavy()` between a store Y and a load X, then
//! A's load sees B's store or B's load sees A's store (or both).
//!
//! On Linux the heavy side makes every running thread of the process execute a full memory
//! barrier before it returns, and the light side is then only a compiler fence, which keeps
//! the compiler from moving A's store past its load. The barrier is
//! `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)` where the kernel offers it; on x86-64
//! without it (an old kernel, a sandbox that filters the call), it is a change of protection
//! of a page of our own, whose TLB shootdown interrupts every CPU that runs a thread of the
//! process (the same fallback as .NET's `FlushProcessWriteBuffers`). aarch64 without
//! `membarrier` (its TLB invalidation needs no interrupt), and every other OS, use
//! `fence(SeqCst)` on both sides: correct, and as costly on the light side as a published
//! deque. On aarch64 the light side checks which mode it is in; on x86-64 it never has to.
//!
//! Under loom both sides are `fence(SeqCst)`, which loom models: the models check the
//! protocols built on these fences, and the argument that the process-wide barrier gives
//! the same order is the kernel's (membarrier(2), "asymmetric" use).

use crate::sync::atomic::{self, Ordering};

/// Makes the heavy side available if the OS offers it; idempotent, cheap after the first
/// call. Called before a pool starts its workers, so every worker sees the final mode.
pub(crate) fn init() {
    #[cfg(not(all(test, loom)))]
    os::init();
}

/// The frequent side: orders this thread's earlier stores before its later loads against
/// any thread that runs [`heavy`] in between (see the module doc).
#[inline(always)]
pub(crate) fn light() {
    #[cfg(not(all(test, loom)))]
    {
        if os::asymmetric() {
            atomic::compiler_fence(Ordering::SeqCst);
        } else {
            atomic::fence(Ordering::SeqCst);
        }
    }
    #[cfg(all(test, loom))]
    atomic::fence(Ordering::SeqCst);
}

/// The rare side: a full barrier for this thread that also orders every other thread's
/// accesses around its [`light`] fences (see the module doc). Costs a system call (a few
/// microseconds when other threads of the process run) where [`light`] is a compiler fence.
#[inline]
pub(crate) fn heavy() {
    #[cfg(not(all(test, loom)))]
    {
        if os::asymmetric() {
            os::process_barrier();
        } else {
            atomic::fence(Ordering::SeqCst);
        }
    }
    #[cfg(all(test, loom))]
    atomic::fence(Ordering::SeqCst);
}

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64"),
    not(miri),
    not(all(test, loom))
))]
mod os {
    use std::ffi::{c_int, c_long, c_void};
    use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
    use std::sync::{Mutex, Once};

    extern "C" {
        /// `long syscall(long number, ...)` of the C library (Linux man page syscall(2)).
        fn syscall(number: c_long, ...) -> c_long;
        /// `void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)`.
        fn mmap(
            addr: *mut c_void,
            len: usize,
            prot: c_int,
            flags: c_int,
            fd: c_int,
            off: i64,
        ) -> *mut c_void;
        /// `int mprotect(void *addr, size_t len, int prot)`.
        fn mprotect(addr: *mut c_void, len: usize, prot: c_int) -> c_int;
    }

    /// `__NR_membarrier` (Linux `asm/unistd_64.h` on x86-64, the generic table on aarch64).
    #[cfg(target_arch = "x86_64")]
    const SYS_MEMBARRIER: c_long = 324;
    #[cfg(target_arch = "aarch64")]
    const SYS_MEMBARRIER: c_long = 283;

    /// `MEMBARRIER_CMD_PRIVATE_EXPEDITED` and its registration (`linux/membarrier.h`).
    const CMD_PRIVATE_EXPEDITED: c_int = 1 << 3;
    const CMD_REGISTER_PRIVATE_EXPEDITED: c_int = 1 << 4;

    /// `PROT_*`, `MAP_*` (`asm-generic/mman-common.h`, the same on x86-64 and aarch64).
    const PROT_NONE: c_int = 0;
    const PROT_READ_WRITE: c_int = 0x1 | 0x2;
    const MAP_PRIVATE_ANONYMOUS: c_int = 0x02 | 0x20;
    const PAGE: usize = 4096;

    /// Set once by [`init`] if the process registered for expedited private barriers.
    static MEMBARRIER: AtomicBool = AtomicBool::new(false);
    /// The page whose protection changes make the barrier where `membarrier` is missing
    /// (x86-64 only); null if none.
    static HELPER_PAGE: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());
    /// Serializes the protection changes of [`HELPER_PAGE`].
    static HELPER_LOCK: Mutex<()> = Mutex::new(());
    static INIT: Once = Once::new();

    pub(super) fn init() {
        INIT.call_once(|| {
            if membarrier(CMD_REGISTER_PRIVATE_EXPEDITED) == 0 {
                // ORDERING: Relaxed: `Once` orders this store before every later `init`
                // caller's return, and workers start after their pool's `init` (thread
                // spawn orders it for them).
                MEMBARRIER.store(true, Ordering::Relaxed);
            } else if cfg!(target_arch = "x86_64") {
                // SAFETY: an anonymous private mapping of one page that nothing else uses;
                // a failure returns MAP_FAILED (-1), checked below.
                let page = unsafe {
                    mmap(
                        std::ptr::null_mut(),
                        PAGE,
                        PROT_READ_WRITE,
                        MAP_PRIVATE_ANONYMOUS,
                        -1,
                        0,
                    )
                };
                // Without a barrier the fork protocol would be unsound on x86-64, where the
                // light side never checks: one page of address space is not too much to ask.
                assert!(
                    page as isize != -1,
                    "weft: neither membarrier nor a page for mprotect barriers is available"
                );
                // ORDERING: as above.
                HELPER_PAGE.store(page, Ordering::Relaxed);
            }
        });
    }

    /// Whether the light side may be a compiler fence: always on x86-64 (`init` makes sure a
    /// barrier exists), on aarch64 only with `membarrier`.
    #[inline(always)]
    pub(super) fn asymmetric() -> bool {
        // ORDERING: every thread that runs a fork protocol starts after `init`, and the
        // values never change again.
        cfg!(target_arch = "x86_64") || MEMBARRIER.load(Ordering::Relaxed)
    }

    /// The process-wide barrier.
    pub(super) fn process_barrier() {
        // Pools call `init` before their workers start; this covers any other caller.
        init();
        // ORDERING: see `init`.
        if MEMBARRIER.load(Ordering::Relaxed) {
            let done = membarrier(CMD_PRIVATE_EXPEDITED);
            assert!(done == 0, "weft: a registered membarrier failed");
            return;
        }
        // ORDERING: see `init`.
        let page = HELPER_PAGE.load(Ordering::Relaxed);
        let _serial = HELPER_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        // Dirty the page first, so that the kernel cannot skip the flush of a clean page;
        // then take write access away and give it back: each change flushes the TLB of every
        // CPU that runs a thread of the process, by interrupt, which orders its memory
        // accesses as a full barrier does.
        // SAFETY: `page` is our own mapping of `PAGE` bytes, readable and writable here
        // (under the lock, every change below restores that before it is released).
        unsafe {
            page.cast::<u8>().write_volatile(1);
            let none = mprotect(page, PAGE, PROT_NONE);
            let back = mprotect(page, PAGE, PROT_READ_WRITE);
            assert!(
                none == 0 && back == 0,
                "weft: mprotect of the barrier page failed"
            );
        }
    }

    fn membarrier(cmd: c_int) -> c_long {
        // SAFETY: the declaration above matches the C library's variadic `syscall`;
        // membarrier(2) takes (int cmd, unsigned int flags, int cpu_id), reads no memory of
        // ours, and reports failure (unknown command, not registered, not supported) as -1.
        unsafe { syscall(SYS_MEMBARRIER, cmd, 0 as c_int, 0 as c_int) }
    }
}

#[cfg(not(any(
    all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64"),
        not(miri)
    ),
    all(test, loom)
)))]
mod os {
    /// No process-wide barrier here: both sides are full fences.
    pub(super) fn init() {}

    #[inline(always)]
    pub(super) fn asymmetric() -> bool {
        false
    }

    pub(super) fn process_barrier() {}
}
