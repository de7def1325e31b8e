//! loom models of a future task's scheduling word (`state.rs` names the races): a wake
//! during a poll makes exactly one party queue the task, or is covered by the poll; two wakes
//! queue an idle task once; nothing is queued after the end; and a poll's writes to the
//! future reach the next poller, whichever party queued it.

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;

use super::state::Schedule;
use crate::sync::thread;

/// *wake-during-poll*: a waker writes a value, then wakes, while a worker polls. Either the
/// wake came before the poll started (nobody queues the task, and the poll sees the value),
/// or exactly one of the waker and the poller queues it.
#[test]
fn loom_a_wake_during_a_poll_queues_the_task_once_or_is_covered_by_the_poll() {
    loom::model(|| {
        let schedule = Arc::new(Schedule::scheduled());
        let value = Arc::new(AtomicUsize::new(0));
        let waker = {
            let (schedule, value) = (Arc::clone(&schedule), Arc::clone(&value));
            thread::spawn(move || {
                // ORDERING: published by the wake's Release, as a channel's value would be.
                value.store(1, Ordering::Relaxed);
                schedule.wake()
            })
        };
        schedule.start_poll();
        // ORDERING: the read a poll makes of what the waker wrote.
        let seen = value.load(Ordering::Relaxed);
        let requeued = schedule.end_poll_pending();
        let queued = waker.join().unwrap();
        assert!(!(requeued && queued), "the task was queued twice");
        if !requeued && !queued {
            assert_eq!(
                seen, 1,
                "a wake covered by the poll, but the poll missed its write"
            );
        }
    });
}

/// *wake-twice*: two wakes of an idle task queue it once.
#[test]
fn loom_two_wakes_of_an_idle_task_queue_it_once() {
    loom::model(|| {
        let schedule = Arc::new(Schedule::scheduled());
        schedule.start_poll();
        assert!(!schedule.end_poll_pending());
        let other = {
            let schedule = Arc::clone(&schedule);
            thread::spawn(move || schedule.wake())
        };
        let here = schedule.wake();
        let there = other.join().unwrap();
        assert!(
            here ^ there,
            "an idle task woken twice must be queued exactly once"
        );
    });
}

/// *wake-after-done*: wakes during the last poll or after it queue nothing.
#[test]
fn loom_a_wake_during_or_after_the_last_poll_queues_nothing() {
    loom::model(|| {
        let schedule = Arc::new(Schedule::scheduled());
        schedule.start_poll();
        let waker = {
            let schedule = Arc::clone(&schedule);
            thread::spawn(move || schedule.wake())
        };
        schedule.finish();
        assert!(!waker.join().unwrap(), "a finished task was queued");
        assert!(!schedule.wake());
    });
}

/// The future's state written by one poll is read by the next, polled by whoever queued
/// the task (the waker, or the first poller after a wake during its poll), with no race.
#[test]
fn loom_the_next_poll_sees_what_the_last_poll_wrote() {
    loom::model(|| {
        let task = Arc::new((Schedule::scheduled(), UnsafeCell::new(0u32)));
        let poll_and_bump = |task: &(Schedule, UnsafeCell<u32>)| {
            task.0.start_poll();
            // SAFETY: the poller that moved the word to running owns the future (the model
            // checks the claim: two pollers at once would race here).
            task.1.with_mut(|future| unsafe { *future += 1 });
            task.0.end_poll_pending()
        };
        let waker = {
            let task = Arc::clone(&task);
            thread::spawn(move || {
                if task.0.wake() {
                    assert!(!poll_and_bump(&task), "nobody woke the task again");
                    true
                } else {
                    false
                }
            })
        };
        let mut polls = 1;
        if poll_and_bump(&task) {
            polls += 1;
            assert!(!poll_and_bump(&task), "nobody woke the task again");
        }
        if waker.join().unwrap() {
            polls += 1;
        }
        // SAFETY: both threads are done with the task.
        let bumps = task.1.with(|future| unsafe { *future });
        assert_eq!(bumps, polls);
        assert!(polls <= 2, "one wake brought more than one poll");
    });
}
