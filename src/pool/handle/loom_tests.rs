//! loom models of the handle's slot (`slot.rs` names the races): a waker registered while
//! the task completes is woken exactly once, a replaced waker is never woken after its
//! replacement, exactly one of a queue's worker and a `join` runs the task, and a detached
//! result is dropped exactly once.

use std::task::{Poll, Wake, Waker};

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;

use super::slot::{Completion, Slot};
use crate::pool::job::JobResult;
use crate::sync::thread;

#[derive(Default)]
struct CountingWaker(AtomicUsize);

impl Wake for CountingWaker {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn counting_waker() -> (std::sync::Arc<CountingWaker>, Waker) {
    let counter = std::sync::Arc::new(CountingWaker::default());
    let waker = Waker::from(std::sync::Arc::clone(&counter));
    (counter, waker)
}

fn value_of(result: JobResult<u32>) -> u32 {
    match result {
        JobResult::Ok(value) => value,
        _ => panic!("the slot returned no value"),
    }
}

/// *register-vs-complete* and *replace-vs-complete*: the handle polls with one waker, then
/// another, while the task completes.
#[test]
fn loom_a_registered_waker_is_woken_once_and_a_replaced_one_never() {
    loom::model(|| {
        let slot = Arc::new(Slot::<u32>::new());
        let completer = {
            let slot = Arc::clone(&slot);
            thread::spawn(move || {
                assert!(slot.claim());
                // SAFETY: this thread won the claim.
                assert!(matches!(
                    unsafe { slot.complete(JobResult::Ok(42)) },
                    Completion::Delivered
                ));
            })
        };
        let (first, first_waker) = counting_waker();
        let (second, second_waker) = counting_waker();
        let poll = |waker| {
            // SAFETY: this thread is the only handle, and it polls no more after `Ready`.
            unsafe { slot.poll(waker) }
        };
        let value = match poll(&first_waker) {
            Poll::Ready(result) => value_of(result),
            Poll::Pending => match poll(&second_waker) {
                Poll::Ready(result) => value_of(result),
                Poll::Pending => {
                    // Registered and replaced before completion: only `second` is woken.
                    while second.0.load(Ordering::SeqCst) == 0 {
                        thread::yield_now();
                    }
                    assert_eq!(first.0.load(Ordering::SeqCst), 0);
                    match poll(&second_waker) {
                        Poll::Ready(result) => value_of(result),
                        Poll::Pending => panic!("woken before the result was ready"),
                    }
                }
            },
        };
        assert_eq!(value, 42);
        completer.join().unwrap();
        assert!(first.0.load(Ordering::SeqCst) <= 1);
        assert!(second.0.load(Ordering::SeqCst) <= 1);
    });
}

/// *claim*: a queue's worker and a joiner race for the task; exactly one runs it, and the
/// joiner gets the value either way (blocking, parked, when it lost).
#[test]
fn loom_join_and_the_queue_run_the_task_exactly_once() {
    loom::model(|| {
        let slot = Arc::new(Slot::<u32>::new());
        let runs = Arc::new(AtomicUsize::new(0));
        let worker = {
            let (slot, runs) = (Arc::clone(&slot), Arc::clone(&runs));
            thread::spawn(move || {
                if slot.claim() {
                    runs.fetch_add(1, Ordering::SeqCst);
                    // SAFETY: this thread won the claim.
                    assert!(matches!(
                        unsafe { slot.complete(JobResult::Ok(7)) },
                        Completion::Delivered
                    ));
                }
            })
        };
        let value = if slot.claim() {
            runs.fetch_add(1, Ordering::SeqCst);
            7
        } else {
            // SAFETY: this thread is the only handle.
            value_of(unsafe { slot.wait_blocking() })
        };
        assert_eq!(value, 7);
        worker.join().unwrap();
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    });
}

struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Detach racing completion: the result is dropped exactly once, by whichever side has it.
#[test]
fn loom_a_detached_result_is_dropped_exactly_once() {
    loom::model(|| {
        let slot = Arc::new(Slot::<Counted>::new());
        let drops = Arc::new(AtomicUsize::new(0));
        let completer = {
            let (slot, drops) = (Arc::clone(&slot), Arc::clone(&drops));
            thread::spawn(move || {
                assert!(slot.claim());
                // SAFETY: this thread won the claim.
                drop(unsafe { slot.complete(JobResult::Ok(Counted(drops))) });
            })
        };
        // SAFETY: this thread is the only handle, and never polls afterwards.
        drop(unsafe { slot.detach() });
        completer.join().unwrap();
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        drop(slot);
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    });
}
