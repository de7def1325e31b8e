//! Isolation: `isolate(op)` runs `op` so that a worker waiting inside it (in a `join`, a
//! scope, a parallel loop, a `JoinHandle::join`) runs only work created inside it.
//!
//! ## Tags and contexts
//! Every queued job carries a [`Tag`] (`TaggedJob`): the isolation context it was created
//! in, `Tag::NONE` outside every isolated region. A worker runs in a *context* too: `NONE`
//! at its top level, the region's fresh tag inside `isolate`, and the job's tag while it
//! runs a tagged job it took while unrestricted (a thief helping an isolated region is
//! isolated with it, so that it cannot pick up outer work while it waits inside that piece).
//! A worker in context `NONE` may run every job; in context `T` only jobs tagged `T`
//! (`Tag::admits`). Tags are exact, as in oneTBB: a region nested in `T` has its own tag,
//! and `T`'s waiter does not run the nested region's jobs (their owner does).
//!
//! A worker keeps its current context in one cell, saved and restored by the frame that
//! enters a context. Every fork records the context it was pushed in (`fork_stack.rs`), so
//! whoever takes a fork, by theft or publication, knows its tag.
//!
//! ## Jobs a restricted worker takes but may not run
//! crossbeam's deques and injectors cannot be peeked, so a worker in context `T` that pops or
//! steals a job with another tag has already taken it. It *sets it aside*: the job goes to
//! the pool's [`SetAside`] list, where any worker whose context admits it finds it (its
//! waiter among them: a job's waiter always waits in the context the job was tagged with).
//! Searching goes on as before: a restricted worker still takes whatever it finds, so the
//! sleep protocol's premise — an awake searcher takes every job it sees — keeps holding; what
//! changes is that "takes" may mean "sets aside". Broadcast jobs (only their target may run
//! them) and FIFO entries (`Tag::ANY`, which lead to a tagged job checked when it is taken)
//! are admitted everywhere.
//!
//! **set-aside-while-eligible-worker-sleeps.** Setting a job aside bumps the sleep protocol's
//! jobs event (so a worker about to sleep searches again) and then wakes one sleeping worker
//! whose context admits the job, even if other workers are awake: an awake restricted worker
//! may be unable to run it. A sleeper records its context before it registers as sleeping
//! (`Sleep::sleep`), and the waker reads it after its own jobs-event RMW, which follows the
//! registration in the counter word's single order; see `Sleep::new_job_for`.

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::Mutex;

use super::job::TaggedJob;
use super::worker::WorkerThread;
use crate::sync::atomic::{AtomicUsize, Ordering};

/// The isolation context a job was created in, or that a worker runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tag(u64);

impl Tag {
    /// No isolation: a worker in this context may run every job.
    pub(crate) const NONE: Tag = Tag(0);
    /// A job every context admits and that runs in the context of whoever takes it (a FIFO
    /// entry, which leads to a tagged job that is checked when it is taken).
    pub(crate) const ANY: Tag = Tag(u64::MAX);

    /// A tag no other region has had: isolated regions must never share one, or a region
    /// could run a leftover job of an earlier region that happened to get the same tag.
    fn fresh() -> Tag {
        // Each thread takes tags from a private block; the shared counter moves once per
        // 2^20 regions of a thread.
        const BLOCK: u64 = 1 << 20;
        // A plain std atomic: tag allocation is not part of any modelled protocol.
        static NEXT_BLOCK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        thread_local!(static BLOCK_LEFT: Cell<(u64, u64)> = const { Cell::new((0, 0)) });
        BLOCK_LEFT.with(|cell| {
            let (mut next, mut end) = cell.get();
            if next == end {
                // ORDERING: only uniqueness matters, which every RMW gives.
                next = NEXT_BLOCK.fetch_add(BLOCK, std::sync::atomic::Ordering::Relaxed);
                end = next + BLOCK;
                assert!(end < u64::MAX, "weft: isolation tags exhausted");
            }
            cell.set((next + 1, end));
            Tag(next)
        })
    }

    /// Whether a worker in this context may run a job tagged `job`.
    #[inline]
    pub(crate) fn admits(self, job: Tag) -> bool {
        self == Tag::NONE || self == job || job == Tag::ANY
    }

    /// Whether running a job tagged `job` in this context enters the job's context: an
    /// unrestricted worker adopts a real tag; a restricted one stays where it is.
    #[inline]
    fn adopts(self, job: Tag) -> bool {
        self == Tag::NONE && job != Tag::NONE && job != Tag::ANY
    }

    /// The raw value, for the sleep state and the fork stack (which keep plain integers).
    #[inline]
    pub(crate) fn to_bits(self) -> u64 {
        self.0
    }

    /// The tag whose raw value is `bits` ([`to_bits`](Self::to_bits)).
    #[inline]
    pub(crate) fn from_bits(bits: u64) -> Tag {
        Tag(bits)
    }

    /// Whether a sleeper that recorded context `bits` could run a job tagged `self`.
    pub(crate) fn admitted_by_bits(self, bits: u64) -> bool {
        Tag(bits).admits(self)
    }
}

/// A worker's isolation state. Only the owning thread touches it (`WorkerThread` is `!Sync`).
#[derive(Debug)]
pub(crate) struct WorkerContexts {
    /// The context this worker runs in now.
    current: Cell<Tag>,
}

impl WorkerContexts {
    pub(crate) fn new() -> Self {
        WorkerContexts {
            current: Cell::new(Tag::NONE),
        }
    }

    /// The tag of the context this worker runs in.
    #[inline]
    pub(crate) fn tag(&self) -> Tag {
        self.current.get()
    }

    /// Runs `op` in context `tag`, then returns to the current one (also on unwinding).
    #[inline]
    pub(crate) fn enter<R>(&self, tag: Tag, op: impl FnOnce() -> R) -> R {
        struct Restore<'a>(&'a Cell<Tag>, Tag);
        impl Drop for Restore<'_> {
            fn drop(&mut self) {
                self.0.set(self.1);
            }
        }
        let _restore = Restore(&self.current, self.current.replace(tag));
        op()
    }

    /// Runs `op`, the body of a job tagged `job`: in the job's context if this worker is
    /// unrestricted, else in the current one.
    #[inline]
    pub(crate) fn run_job<R>(&self, job: Tag, op: impl FnOnce() -> R) -> R {
        // Most jobs are untagged: one compare, and no look at the current context.
        if job != Tag::NONE && self.tag().adopts(job) {
            self.enter(job, op)
        } else {
            op()
        }
    }
}

/// Jobs that a worker in a restricted context took from a queue but may not run. Any worker
/// whose context admits a job takes it from here (see the module doc).
#[derive(Debug)]
pub(crate) struct SetAside {
    jobs: Mutex<VecDeque<TaggedJob>>,
    /// `jobs.len()`, readable without the lock: searchers skip the lock while it is 0.
    len: AtomicUsize,
}

impl SetAside {
    pub(crate) fn new() -> Self {
        SetAside {
            jobs: Mutex::new(VecDeque::new()),
            len: AtomicUsize::new(0),
        }
    }

    /// Adds `job`; the caller then announces it (`Sleep::new_job_for`).
    pub(crate) fn push(&self, job: TaggedJob) {
        let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        jobs.push_back(job);
        // ORDERING: written under the lock; a hint for searchers, which the announcement's
        // SeqCst jobs-event RMW makes visible before any worker decides to sleep.
        self.len.store(jobs.len(), Ordering::Relaxed);
    }

    /// The oldest job a worker in context `context` may run.
    #[inline]
    pub(crate) fn take(&self, context: Tag) -> Option<TaggedJob> {
        // ORDERING: a hint (see `push`); a stale 0 costs one search round, and a worker
        // about to sleep re-checks under the sleep protocol.
        if self.len.load(Ordering::Relaxed) == 0 {
            return None;
        }
        self.take_cold(context)
    }

    #[cold]
    fn take_cold(&self, context: Tag) -> Option<TaggedJob> {
        let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        let position = jobs.iter().position(|job| context.admits(job.tag))?;
        let job = jobs.remove(position);
        // ORDERING: as in `push`.
        self.len.store(jobs.len(), Ordering::Relaxed);
        job
    }

    /// Whether a worker in context `context` would find a job here (its last look before
    /// sleeping).
    pub(crate) fn has_job_for(&self, context: Tag) -> bool {
        // ORDERING: as in `take`.
        if self.len.load(Ordering::Relaxed) == 0 {
            return false;
        }
        let jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        jobs.iter().any(|job| context.admits(job.tag))
    }
}

thread_local! {
    /// The isolation context of a thread outside every pool (`isolate` called there): the
    /// tag given to the jobs it injects.
    static EXTERNAL_CONTEXT: Cell<Tag> = const { Cell::new(Tag::NONE) };
}

/// The context of the calling thread when it is not a worker.
pub(crate) fn external_tag() -> Tag {
    EXTERNAL_CONTEXT.with(Cell::get)
}

/// Runs `op` isolated: while it runs, a worker that waits inside it (for the other half of
/// a [`join`](crate::join), for a [`scope`](crate::scope)'s tasks, for the pieces of a
/// parallel iterator, for a [`JoinHandle`](crate::JoinHandle)) runs only work created inside
/// `op`, never an unrelated task of the pool. Other workers still help with that work.
///
/// Use it around parallel work done while holding something an outer task may also want,
/// typically a lock: without it, a worker holding a `Mutex` that waits for a stolen inner
/// piece may pick up another outer task, which then blocks on the same `Mutex` forever.
///
/// The cost: entering and leaving is a few stores on the worker; inside, a waiting worker
/// that takes an unrelated job from a queue moves it to a shared list for others (a lock),
/// and helps only with the region's own jobs. `join`'s fast path does not change.
///
/// Called outside any pool, `op` runs on the calling thread and the work it hands to a pool
/// is isolated the same way. [`broadcast`](crate::broadcast) jobs still reach a worker that
/// waits inside an isolated region (only that worker can run them).
///
/// ```
/// use std::sync::Mutex;
/// use weft::prelude::*;
///
/// let total = Mutex::new(0u64);
/// (0..64u64).into_par_iter().for_each(|i| {
///     let mut total = total.lock().unwrap();
///     // The inner loop's waits never start another outer item, which would block on `total`.
///     *total += weft::isolate(|| (0..1000u64).into_par_iter().map(|x| x * i).sum::<u64>());
/// });
/// assert_eq!(total.into_inner().unwrap(), (0..64u64).sum::<u64>() * (0..1000u64).sum::<u64>());
/// ```
pub fn isolate<R>(op: impl FnOnce() -> R) -> R {
    WorkerThread::with_current(|worker| match worker {
        Some(worker) => worker.isolated(Tag::fresh(), op),
        None => isolate_external(op),
    })
}

/// `isolate` on a thread outside every pool: its injected jobs carry the region's tag.
fn isolate_external<R>(op: impl FnOnce() -> R) -> R {
    struct Restore(Tag);
    impl Drop for Restore {
        fn drop(&mut self) {
            EXTERNAL_CONTEXT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(EXTERNAL_CONTEXT.with(|c| c.replace(Tag::fresh())));
    op()
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Tag;

    #[test]
    fn tags_are_fresh_and_admission_is_exact() {
        let (a, b) = (Tag::fresh(), Tag::fresh());
        assert_ne!(a, b);
        assert_ne!(a, Tag::NONE);
        let other_thread = std::thread::spawn(Tag::fresh).join().unwrap();
        assert!(![a, b].contains(&other_thread));
        assert!(Tag::NONE.admits(a) && Tag::NONE.admits(Tag::NONE));
        assert!(a.admits(a) && a.admits(Tag::ANY));
        assert!(!a.admits(b) && !a.admits(Tag::NONE));
        assert!(Tag::NONE.adopts(a) && !Tag::NONE.adopts(Tag::ANY) && !a.adopts(b));
    }
}
