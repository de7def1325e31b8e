//! `ForkStack`: the forks (`join`'s second halves) of one worker, newest on top, which the
//! worker pushes and pops with plain stores and which any other worker can take from the
//! oldest end at any time, including while the owner is blocked in user code.
//!
//! It is the THE protocol of Cilk-5 (Frigo, Leiserson, Randall 1998) with its two fences made
//! asymmetric (`fence.rs`): the owner, which pushes and pops on every `join`, runs the light
//! side; a thief, which is rare, runs the heavy side and holds the stack's lock while it
//! claims a fork.
//!
//! # State
//!
//! Forks sit in `slots[top..bottom]`, the oldest at `top`. A fork's index is its depth in the
//! owner's stack of `join` frames: `push` at `index` makes `bottom = index + 1`, and the frame
//! later pops that same index. `top` only moves under `lock`.
//!
//! | field | written by | read by |
//! |---|---|---|
//! | `bottom` | owner (`push`: Release; `pop`: Relaxed) | owner; thieves (Acquire, after their heavy fence) |
//! | `top` | thieves and the owner's slow paths, under `lock` (Relaxed) | owner's `pop` (Relaxed, after its light fence); lock holders |
//! | `lock` | thieves (`try_lock`), the owner's slow paths | the same (Acquire on taking, Release on giving back) |
//! | `slots[i]` | owner (`push`, Relaxed) | lock holders, after seeing `bottom > i` |
//!
//! # Why each fork runs exactly once
//!
//! The owner pops fork `d` by storing `bottom = d`, running the light fence, then loading
//! `top`: `top <= d` means the fork is still there and is the owner's; otherwise it takes
//! the lock and looks again. A thief claims fork `t = top` by storing `top = t + 1`, running
//! the heavy fence, then loading `bottom`: `t < bottom` means the fork is the thief's;
//! otherwise it puts `top` back. Both are a store followed by a load across a fence pair, so
//! (Dekker) at least one side sees the other's store: if both target the same fork, either
//! the thief sees `bottom = d` and backs off, or the owner sees `top = d + 1` and waits on
//! the lock for the thief's verdict. A thief only ever claims the oldest fork, so a fork
//! below the owner's (`t < d`) never conflicts. Taking the lock serializes thieves among
//! themselves and with the owner's slow paths, so `top` has one writer at a time, and a slot
//! is not rewritten while a thief that claimed it reads it: the owner must first pop that
//! index, and that pop sees the claim and waits for the lock.
//!
//! # Why no fork is lost
//!
//! A fork is run by its owner (popped), or taken under the lock by a thief or by the owner
//! itself to publish it on its deque (`take_oldest`, `take_all`). A pop that finds its fork
//! gone moves `top` back to the popped index, so that the next push is visible to thieves.

use std::mem;

use crossbeam_utils::CachePadded;

use super::fence;
use super::isolate::Tag;
use super::job::{JobRef, TaggedJob};
use crate::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};

/// Forks one worker keeps stealable; deeper recursions push the excess on the worker's
/// deque directly (see `WorkerThread::push_fork`). Loom models use a small stack.
pub(crate) const FORK_CAPACITY: usize = if cfg!(all(test, loom)) { 4 } else { 128 };

/// A worker's fork stack, shared with the other workers of its pool.
pub(crate) struct ForkStack {
    /// Written by the owner on every push and pop; padded away from the thieves' side.
    bottom: CachePadded<AtomicUsize>,
    /// The thieves' side: the oldest present fork and the lock that guards moving it.
    thieves: CachePadded<ThiefSide>,
    slots: [Slot; FORK_CAPACITY],
}

struct ThiefSide {
    top: AtomicUsize,
    lock: AtomicBool,
}

/// One fork: the parts of its `JobRef` (a fork is always a `join`'s job) and its tag.
struct Slot {
    pointer: AtomicPtr<()>,
    execute: AtomicUsize,
    tag: AtomicU64,
}

impl std::fmt::Debug for ForkStack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForkStack").finish_non_exhaustive()
    }
}

impl ForkStack {
    pub(crate) fn new() -> Self {
        ForkStack {
            bottom: CachePadded::new(AtomicUsize::new(0)),
            thieves: CachePadded::new(ThiefSide {
                top: AtomicUsize::new(0),
                lock: AtomicBool::new(false),
            }),
            slots: std::array::from_fn(|_| Slot {
                pointer: AtomicPtr::new(std::ptr::null_mut()),
                execute: AtomicUsize::new(0),
                tag: AtomicU64::new(0),
            }),
        }
    }

    /// Owner: records `job`, tagged `tag`, as the newest fork; its index for `pop`, or
    /// `None` if `limit` forks (at most [`FORK_CAPACITY`]) are there already (the fork was
    /// not recorded). The owner's limit is below the capacity while its joins must take
    /// their cold path (`WorkerThread::fork_limit`).
    #[inline]
    pub(crate) fn push(&self, job: JobRef, tag: Tag, limit: usize) -> Option<usize> {
        debug_assert!(limit <= FORK_CAPACITY);
        // ORDERING: the owner reads its own last store.
        let index = self.bottom.load(Ordering::Relaxed);
        if index >= limit {
            return None;
        }
        // SAFETY: `index < limit <= FORK_CAPACITY`, the length of `slots`.
        let slot = unsafe { self.slots.get_unchecked(index) };
        let (pointer, execute) = job.into_parts();
        // ORDERING: Relaxed: the Release store of `bottom` below publishes them.
        slot.pointer.store(pointer.cast_mut(), Ordering::Relaxed);
        slot.execute.store(execute, Ordering::Relaxed);
        slot.tag.store(tag.to_bits(), Ordering::Relaxed);
        // ORDERING: Release pairs with a thief's Acquire load of `bottom`: a thief that sees
        // the fork sees its slot.
        self.bottom.store(index + 1, Ordering::Release);
        Some(index)
    }

    /// Owner: takes fork `index` (the newest) back; true if it is still the owner's to run,
    /// false if a thief or the owner's own publication took it.
    #[inline]
    pub(crate) fn pop(&self, index: usize) -> bool {
        // ORDERING: Relaxed store, light fence, Relaxed load: the owner's half of the fence
        // pair (see the module doc, "exactly once").
        self.bottom.store(index, Ordering::Relaxed);
        fence::light();
        if self.thieves.top.load(Ordering::Relaxed) <= index {
            return true;
        }
        self.pop_contended(index)
    }

    /// `pop` saw the fork claimed: wait for the claimer's verdict under the lock.
    #[cold]
    fn pop_contended(&self, index: usize) -> bool {
        self.lock();
        // ORDERING: Relaxed under the lock, whose Acquire made every earlier holder's
        // stores visible.
        let top = self.thieves.top.load(Ordering::Relaxed);
        let ours = top <= index;
        if !ours {
            // Gone: the stack is empty at `index` now, and the next push must be visible.
            self.thieves.top.store(index, Ordering::Relaxed);
        }
        self.unlock();
        ours
    }

    /// Owner: takes the oldest fork, to publish it.
    pub(crate) fn take_oldest(&self) -> Option<TaggedJob> {
        // ORDERING: the owner reads its own last store.
        let bottom = self.bottom.load(Ordering::Relaxed);
        // A cheap look first: the owner's own `top` is only ever lowered by itself.
        // ORDERING: Relaxed: a stale (lower) value only costs the lock below.
        if self.thieves.top.load(Ordering::Relaxed) >= bottom {
            return None;
        }
        self.lock();
        // ORDERING: Relaxed under the lock.
        let top = self.thieves.top.load(Ordering::Relaxed);
        let taken = (top < bottom).then(|| {
            self.thieves.top.store(top + 1, Ordering::Relaxed);
            self.read(top)
        });
        self.unlock();
        taken
    }

    /// Owner: takes every fork, oldest first, hands each to `publish` (under the lock:
    /// thieves skip this stack meanwhile) and returns how many there were.
    pub(crate) fn take_all(&self, mut publish: impl FnMut(TaggedJob)) -> usize {
        // ORDERING: the owner reads its own last store.
        let bottom = self.bottom.load(Ordering::Relaxed);
        // ORDERING: as in `take_oldest`.
        if self.thieves.top.load(Ordering::Relaxed) >= bottom {
            return 0;
        }
        self.lock();
        // ORDERING: Relaxed under the lock.
        let top = self.thieves.top.load(Ordering::Relaxed);
        for index in top..bottom {
            publish(self.read(index));
        }
        self.thieves.top.store(top.max(bottom), Ordering::Relaxed);
        self.unlock();
        bottom.saturating_sub(top)
    }

    /// Owner: how many of its forks are still present (a hint).
    #[inline]
    pub(crate) fn present(&self) -> usize {
        // ORDERING: a hint; the owner reads its own last store of `bottom`.
        let bottom = self.bottom.load(Ordering::Relaxed);
        bottom.saturating_sub(self.thieves.top.load(Ordering::Relaxed))
    }

    /// Anyone: whether the stack looked non-empty (a hint, stale as soon as it is read).
    #[inline]
    pub(crate) fn looks_nonempty(&self) -> bool {
        // ORDERING: a hint; `steal` decides under the lock and the fences.
        self.thieves.top.load(Ordering::Relaxed) < self.bottom.load(Ordering::Relaxed)
    }

    /// Thief: takes the oldest fork if there is one, no other thief holds the lock, and
    /// `admits` its tag (the thief's isolation context). Runs the heavy fence: a few
    /// microseconds where it is a system call.
    pub(crate) fn steal(&self, admits: impl FnOnce(Tag) -> bool) -> Option<TaggedJob> {
        if !self.looks_nonempty() || !self.try_lock() {
            return None;
        }
        // ORDERING: Relaxed under the lock.
        let top = self.thieves.top.load(Ordering::Relaxed);
        // ORDERING: Relaxed store, heavy fence, then the load of `bottom`: the thief's half
        // of the fence pair (see the module doc, "exactly once").
        self.thieves.top.store(top + 1, Ordering::Relaxed);
        fence::heavy();
        // ORDERING: Acquire pairs with `push`'s Release store: the slot's contents are seen.
        let stolen = if top < self.bottom.load(Ordering::Acquire) {
            Some(self.read(top)).filter(|job| admits(job.tag))
        } else {
            None
        };
        if stolen.is_none() {
            self.thieves.top.store(top, Ordering::Relaxed);
        }
        self.unlock();
        stolen
    }

    /// Slot `index`'s fork; the caller holds the lock and claimed it.
    fn read(&self, index: usize) -> TaggedJob {
        let slot = &self.slots[index];
        // ORDERING: Relaxed: the claimer saw `bottom > index` with Acquire (a thief), or is
        // the owner, which wrote the slot itself.
        let pointer = slot.pointer.load(Ordering::Relaxed);
        let execute = slot.execute.load(Ordering::Relaxed);
        let tag = Tag::from_bits(slot.tag.load(Ordering::Relaxed));
        // SAFETY: the parts were written together by `push` from one `JobRef`, and the slot
        // is not rewritten while its fork is claimed (module doc, "exactly once").
        let job = unsafe { JobRef::from_parts(pointer, execute) };
        TaggedJob::new(job, tag)
    }

    fn try_lock(&self) -> bool {
        // ORDERING: Acquire on success: the previous holder's stores (to `top`) are seen.
        self.thieves
            .lock
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    fn lock(&self) {
        let mut spins = 0u32;
        while !self.try_lock() {
            // The holder is a thief between two loads around a fence: short, unless the
            // OS descheduled it.
            if spins < 64 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                crate::sync::thread::yield_now();
            }
        }
    }

    fn unlock(&self) {
        // ORDERING: Release: the next holder sees this holder's stores.
        self.thieves.lock.store(false, Ordering::Release);
    }
}

// The execute function of a `JobRef` travels as a plain integer.
const _: () = assert!(mem::size_of::<unsafe fn(*const ())>() == mem::size_of::<usize>());

#[cfg(all(test, loom))]
mod loom_tests;

#[cfg(all(test, not(loom)))]
mod tests;
