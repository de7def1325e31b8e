//! `Handoff<T>`: a `StealRange` plus the splittable value its indices stand for (an indexed
//! producer, or a producer and consumer pair), so that whoever claims indices also receives
//! exactly the piece of the value for them. See "The hand-off" in `drive/README.md`.
//!
//! The indices are decided lock-free by the `StealRange`; the value is a single owned `T`
//! (Send, not Sync) behind a mutex, standing for one run of indices: the owner cuts its
//! chunks from the front (it claims lock-free, then takes its piece out under the lock),
//! thieves cut their parts from the back, and a thief holds the lock from its claim to the
//! end of its cut. So thieves' parts leave the slot in the order they were claimed, each
//! the upper end of what is left, and the owner's claims are always at the front: the slot
//! never holds more than one run. Nobody holds the lock while user code runs, only across
//! `split_at` calls.

use core::ops::Range;

use super::{Chunk, OwnerCursor, StealRange};
#[cfg(not(all(test, loom)))]
use crate::sync::atomic::{AtomicU8, Ordering};
use crate::sync::UnsafeCell;

/// A value that stands for `len` consecutive indices and can be cut in two, like a Rayon
/// `Producer`: `split_at(i)` gives the first `i` and the rest.
pub(crate) trait SplitAt: Sized {
    /// Splits into `[0, index)` and `[index, len)`.
    fn split_at(self, index: usize) -> (Self, Self);
}

/// A `StealRange` together with the value for its indices.
pub(crate) struct Handoff<T> {
    range: StealRange,
    /// Guards `slot` ([`SlotLock`]): a lock of its own, not a `Mutex<Option<..T..>>`, so
    /// that its code is compiled once, not once per loop type.
    lock: SlotLock,
    /// The value for the indices no claimant has taken out yet, and those indices; `None`
    /// once everything is taken out. Accessed only under `lock` (`cut_locked`).
    slot: UnsafeCell<Option<(Range<u32>, T)>>,
}

// SAFETY: the only shared access to `slot` is `cut_locked`, under `lock`, so at most one
// thread touches the `T` inside at a time, and it may be another thread than the one that
// put it there: `T: Send` suffices. `range` is `Sync` on its own.
unsafe impl<T: Send> Sync for Handoff<T> {}

impl<T> core::fmt::Debug for Handoff<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Handoff")
            .field("range", &self.range)
            .finish_non_exhaustive()
    }
}

impl<T: SplitAt> Handoff<T> {
    /// `value` stands for `indices` (so `indices.len()` items); returns the owner's cursor too
    /// (tests and benches; the driver builds its hand-off with [`Handoff::unclaimed_by`]).
    #[cfg(any(test, feature = "bench-internals"))]
    pub(crate) fn new(
        indices: Range<u32>,
        value: T,
        limits: super::ChunkLimits,
    ) -> (Self, OwnerCursor) {
        let cursor = OwnerCursor::new(indices, limits);
        (Handoff::unclaimed_by(&cursor, value), cursor)
    }

    /// A hand-off for the indices `cursor` has not claimed yet, for which `value` stands (a
    /// driver that claimed first chunks with [`OwnerCursor::claim_unshared`]).
    pub(crate) fn unclaimed_by(cursor: &OwnerCursor, value: T) -> Self {
        Handoff {
            range: StealRange::unclaimed_by(cursor),
            lock: SlotLock::new(),
            slot: UnsafeCell::new(Some((cursor.low..cursor.high_seen, value))),
        }
    }

    /// The shared range.
    pub(crate) fn range(&self) -> &StealRange {
        &self.range
    }

    /// Owner: the next chunk and its piece of the value, or `None` once exhausted.
    #[inline]
    pub(crate) fn take_chunk(&self, cursor: &mut OwnerCursor) -> Option<(Chunk, T)> {
        let chunk = self.range.take_chunk(cursor)?;
        let locked = self.lock.lock();
        let mine = self.cut_locked(&locked, chunk.indices.clone(), Give::Lower);
        Some((chunk, mine))
    }

    /// Thief: the upper half of what is left and its piece, or `None` if too little is left.
    /// The thief then owns that piece: it makes a `Handoff` of its own for it.
    pub(crate) fn steal_half(&self) -> Option<(Range<u32>, T)> {
        // The lock is held from the claim to the cut: thieves' parts leave in claim order.
        let locked = self.lock.lock();
        let claim = self.range.steal_half()?;
        let theirs = self.cut_locked(&locked, claim.clone(), Give::Upper);
        Some((claim, theirs))
    }

    /// Owner: whether a thief took part of the range since the owner last looked (see
    /// `StealRange::peek_steal`).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn peek_steal(&self, cursor: &mut OwnerCursor) -> bool {
        self.range.peek_steal(cursor)
    }

    /// True once every index has been claimed (pieces may still be on their way out).
    #[cfg(test)]
    pub(crate) fn is_exhausted(&self) -> bool {
        self.range.is_exhausted()
    }

    /// Takes the piece of the slot's value for `claim`, the run's front (`Give::Lower`, an
    /// owner's chunk) or its back (`Give::Upper`, a thief's part), and leaves the rest in
    /// the slot, under `lock`, held as `_locked` (a few `split_at` calls, never user code
    /// beyond). One function for both claimants: the cut is compiled once per loop type.
    fn cut_locked(&self, _locked: &Locked<'_>, claim: Range<u32>, give: Give) -> T {
        self.slot.with_mut(|slot| {
            // SAFETY: `slot` is only ever reached here, and `_locked` is the guard of this
            // hand-off's `lock` (both callers pass the one they just took), held until this
            // returns or unwinds: no other reference to `slot` exists meanwhile.
            let slot = unsafe { &mut *slot };
            let (indices, value) = slot.take().expect("claimed indices are in the hand-off");
            let at = match give {
                Give::Lower => {
                    debug_assert_eq!(
                        indices.start, claim.start,
                        "an owner's chunk is at the front"
                    );
                    claim.end
                }
                Give::Upper => {
                    debug_assert_eq!(indices.end, claim.end, "a thief's part is at the back");
                    claim.start
                }
            };
            if at <= indices.start || at >= indices.end {
                // The claim is all that is left.
                return value;
            }
            let (lower, upper) = value.split_at((at - indices.start) as usize);
            match give {
                Give::Lower => {
                    *slot = Some((at..indices.end, upper));
                    lower
                }
                Give::Upper => {
                    *slot = Some((indices.start..at, lower));
                    upper
                }
            }
        })
    }
}

/// Which end of the hand-off's run a claimant takes ([`Handoff::cut_locked`]).
#[derive(Clone, Copy)]
enum Give {
    /// The front: an owner's chunk.
    Lower,
    /// The back: a thief's part.
    Upper,
}

/// The states of a [`SlotLock`].
#[cfg(not(all(test, loom)))]
const FREE: u8 = 0;
#[cfg(not(all(test, loom)))]
const HELD: u8 = 1;
/// A holder unwound (a producer's `split_at` panicked while its piece was cut): the loop is
/// failing, and later claimants panic instead of waiting forever.
#[cfg(not(all(test, loom)))]
const POISONED: u8 = 2;

/// The hand-off's lock: held across a few `split_at` calls, rarely contended (the owner
/// once per claim, a thief once per steal), so a waiter spins, then yields.
#[cfg(not(all(test, loom)))]
struct SlotLock(AtomicU8);

/// Under loom, a mutex: the models check the claims and cuts the lock guards, and two
/// waiters spinning on a lock whose holder is preempted would alternate without end in
/// loom's exploration (every yield a branch of the model).
#[cfg(all(test, loom))]
struct SlotLock(crate::sync::Mutex<()>);

/// Releases a [`SlotLock`] when dropped, poisoning it if the holder unwinds.
#[cfg(not(all(test, loom)))]
struct Locked<'a>(&'a SlotLock);

#[cfg(all(test, loom))]
struct Locked<'a>(#[allow(dead_code)] loom::sync::MutexGuard<'a, ()>);

#[cfg(all(test, loom))]
impl SlotLock {
    fn new() -> SlotLock {
        SlotLock(crate::sync::Mutex::new(()))
    }

    fn lock(&self) -> Locked<'_> {
        Locked(
            self.0
                .lock()
                .expect("no model panics while it holds the lock"),
        )
    }
}

#[cfg(not(all(test, loom)))]
impl SlotLock {
    fn new() -> SlotLock {
        SlotLock(AtomicU8::new(FREE))
    }

    #[inline(never)]
    fn lock(&self) -> Locked<'_> {
        let mut spins = 0u32;
        loop {
            // ORDERING: Acquire on success: the previous holder's writes to the slot are seen.
            match self
                .0
                .compare_exchange_weak(FREE, HELD, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => return Locked(self),
                Err(POISONED) => {
                    panic!("weft: a producer's split_at panicked during a range hand-off")
                }
                Err(_) if spins < 64 => {
                    spins += 1;
                    std::hint::spin_loop();
                }
                Err(_) => crate::sync::thread::yield_now(),
            }
        }
    }
}

#[cfg(not(all(test, loom)))]
impl Drop for Locked<'_> {
    #[inline(never)]
    fn drop(&mut self) {
        let state = if std::thread::panicking() {
            POISONED
        } else {
            FREE
        };
        // ORDERING: Release: the next holder sees this holder's writes to the slot.
        self.0 .0.store(state, Ordering::Release);
    }
}
