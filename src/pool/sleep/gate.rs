//! A worker's join gate: the one word `join`'s fast path reads.
//!
//! Deep in a recursion, `join` runs both closures in place when its worker already holds
//! enough unpublished forks and nobody is idle. Testing both facts on every `join` took two
//! thread-local loads, a load of the pool's counter word and two branches. The gate folds
//! them into one word per worker: the owner opens it once both facts hold, and it closes
//! when either stops holding (the owner publishes or pops a fork, or another worker starts
//! looking for work). `join` then tests `gate == OPEN`.
//!
//! The gate lives in the worker thread's own storage (`worker.rs`, `JOIN_GATE`), so that
//! `join` reads it at a fixed offset from the thread pointer; `Sleep` reaches it through a
//! pointer the worker registers and takes back when it leaves (*gate-leaves* in `README.md`).
//!
//! Protocol (*idle-while-gate-opens* in `README.md`):
//! - A worker that starts looking for work bumps `idle` (SeqCst RMW), then swaps CLOSED
//!   into every other worker's gate with Release ordering.
//! - The owner opens with an AcqRel swap and then reads `idle`; if anyone is idle it closes
//!   again (an RMW). Closing by the owner is also an RMW, never a plain store.
//! - Every write to a gate is an RMW, so each swap continues the release sequence of every
//!   idle worker's swap before it: an opening swap that replaces a CLOSED written by idle
//!   worker W synchronizes with W, and its read of `idle` sees W's increment (or W's later
//!   decrement, when W found work). So an opening either sees the idle worker and closes
//!   again, or comes before that worker's swap in the gate's order, and the swap closes it.
//! - The owner's own Relaxed read of its gate (`is_open`) may see a CLOSED a little late:
//!   that delays an offer by a few `join`s, it never loses one.

use crate::sync::atomic::{AtomicUsize, Ordering};

const CLOSED: usize = 0;
const OPEN: usize = 1;
#[cfg(all(test, loom))]
const POISONED: usize = 2;

/// One worker's join gate (see the module documentation).
#[derive(Debug)]
pub(crate) struct Gate(AtomicUsize);

impl Gate {
    #[cfg(not(all(test, loom)))]
    pub(crate) const fn closed() -> Gate {
        Gate(AtomicUsize::new(CLOSED))
    }

    #[cfg(all(test, loom))]
    pub(crate) fn closed() -> Gate {
        Gate(AtomicUsize::new(CLOSED))
    }

    /// True if the owner may run a `join` in place without further tests.
    #[inline(always)]
    pub(crate) fn is_open(&self) -> bool {
        // ORDERING: the owner reads what it wrote itself, or a CLOSED swapped in by an idle
        // worker, which is a hint: seeing it late costs parallelism for a moment (forks
        // stay private), never correctness (the owner runs its private forks).
        self.0.load(Ordering::Relaxed) == OPEN
    }

    /// The owner: its forks no longer allow running `join` in place.
    #[inline]
    pub(crate) fn close(&self) {
        // ORDERING: a Relaxed load first, so that the common case (already closed) writes
        // nothing. The closing write must be an RMW (see the module documentation); its own
        // ordering does not matter, only that it continues release sequences.
        if self.0.load(Ordering::Relaxed) == OPEN {
            self.0.swap(CLOSED, Ordering::Relaxed);
        }
    }

    /// The owner opens the gate (`Sleep::open_gate` then reads `idle`).
    pub(super) fn open(&self) {
        // AcqRel: acquire to synchronize with the idle worker whose CLOSED this replaces
        // (its `idle` increment must be visible to the read that follows).
        self.0.swap(OPEN, Ordering::AcqRel);
    }

    /// The owner closes again right after `open` (someone is idle).
    pub(super) fn reclose(&self) {
        self.0.swap(CLOSED, Ordering::Relaxed);
    }

    /// (models) Marks a gate its owner has unregistered and so may free: any later write
    /// by another worker would overwrite the mark (`loom_tests.rs`).
    #[cfg(all(test, loom))]
    pub(super) fn poison(&self) {
        self.0.swap(POISONED, Ordering::Relaxed);
    }

    /// (models) True if nothing wrote the gate since [`poison`](Self::poison).
    #[cfg(all(test, loom))]
    pub(super) fn is_poisoned(&self) -> bool {
        self.0.load(Ordering::Relaxed) == POISONED
    }

    /// Another worker, which has just counted itself idle, closes this gate.
    pub(super) fn close_for_idle(&self) {
        // Release: an owner whose opening swap reads this CLOSED (or a later RMW in its
        // release sequence) then sees our `idle` increment.
        self.0.swap(CLOSED, Ordering::Release);
    }
}
