//! The scheduling state of a future task: one atomic word that decides who queues the task
//! and who polls it, so that a future is polled by one worker at a time, is in at most one
//! queue, is polled again after every wake that came during a poll, and never after its end.
//!
//! ## The word
//!
//! | bits | state | meaning | a wake (`fetch_or(NOTIFIED)`) |
//! |---|---|---|---|
//! | none | idle | pending, in no queue | makes it scheduled; the waker queues the task |
//! | `NOTIFIED` | scheduled | one queued job holds the task | changes nothing |
//! | `RUNNING` | running | a worker polls the future | makes it running and notified |
//! | `RUNNING \| NOTIFIED` | running, notified | woken during the poll | changes nothing |
//! | `DONE` (and maybe `NOTIFIED`) | done | the future is gone | changes nothing that matters |
//!
//! Moves by the poller: scheduled → running (`start_poll`, by the worker that took the
//! job); running → idle when the poll returned `Pending` and no wake came
//! (`end_poll_pending`, a CAS), running and notified → scheduled, the poller queueing the
//! task again (the CAS failed); running, notified or not → done (`finish`).
//!
//! The races, named: *wake-during-poll*: the wake's `fetch_or` and the poller's CAS
//! `RUNNING → 0` are RMWs on one word, so either the wake comes first and the CAS fails
//! (the poller queues the task) or the CAS comes first and the wake sees idle (the waker
//! queues it): exactly one queues it. *wake-twice*: of two wakes of an idle task, only the
//! first sees idle. *wake-after-done*: a wake never sees idle after `DONE`. loom models:
//! `loom_tests.rs`.
//!
//! ## Orderings
//!
//! Every operation is an RMW except `finish`'s store, so the word's modification order
//! is one release sequence from wake to poll: a poll sees what every waker wrote before
//! its wake, and the next poller sees what the last poll wrote to the future.
//!
//! | operation | ordering | pairs with |
//! |---|---|---|
//! | `wake`: `fetch_or(NOTIFIED)` | AcqRel | Release: the waker's writes, to the next `start_poll` or failed `end_poll_pending`; Acquire: the last poll's writes (a waker that queues the task passes them on through the queue) |
//! | `start_poll`: `swap(RUNNING)` | AcqRel | Acquire: the wakes before it (and the queue's push); Release: nothing needed, an RMW for the sequence |
//! | `end_poll_pending`: CAS `RUNNING → 0` | AcqRel, failure Acquire | success Release: the poll's writes, to the next wake; failure Acquire: the wakes during the poll |
//! | `end_poll_pending`: `swap(NOTIFIED)` after a failed CAS | AcqRel | Acquire: a wake between the CAS and the swap; Release: to the next `start_poll` |
//! | `finish`: `store(DONE)` | Release | none needed: a wake that sees `DONE` does nothing |

use crate::sync::atomic::{AtomicUsize, Ordering};

const NOTIFIED: usize = 1 << 0;
const RUNNING: usize = 1 << 1;
const DONE: usize = 1 << 2;

/// A future task's scheduling state (see the module doc).
#[derive(Debug)]
pub(crate) struct Schedule {
    state: AtomicUsize,
}

impl Schedule {
    /// The state of a task queued when it is spawned: scheduled.
    pub(crate) fn scheduled() -> Self {
        Schedule {
            state: AtomicUsize::new(NOTIFIED),
        }
    }

    /// A wake: true if the task was idle, and the caller must now queue it; false if it is
    /// queued already, being polled (the poller queues it again), or done.
    #[inline]
    pub(crate) fn wake(&self) -> bool {
        // ORDERING: see the module's table.
        self.state.fetch_or(NOTIFIED, Ordering::AcqRel) == 0
    }

    /// The worker that took the task's queued job starts polling it.
    #[inline]
    pub(crate) fn start_poll(&self) {
        // ORDERING: see the module's table.
        let old = self.state.swap(RUNNING, Ordering::AcqRel);
        debug_assert_eq!(old, NOTIFIED, "weft: a future task polled while not queued");
    }

    /// The poll returned `Pending`: true if the task was woken during the poll and the
    /// caller must queue it again (it is scheduled now); false if it is idle until a wake.
    #[inline]
    pub(crate) fn end_poll_pending(&self) -> bool {
        // ORDERING: see the module's table.
        let idle = self
            .state
            .compare_exchange(RUNNING, 0, Ordering::AcqRel, Ordering::Acquire);
        match idle {
            Ok(_) => false,
            Err(_) => {
                // Running and notified: wakes leave the word as it is until we change it.
                // ORDERING: see the module's table.
                let old = self.state.swap(NOTIFIED, Ordering::AcqRel);
                debug_assert_eq!(old, RUNNING | NOTIFIED);
                true
            }
        }
    }

    /// The future is gone (it finished, or was dropped): wakes do nothing from now on.
    #[inline]
    pub(crate) fn finish(&self) {
        // ORDERING: see the module's table.
        self.state.store(DONE, Ordering::Release);
    }
}
