//! loom models of the sleep protocol (`README.md` names the races). A lost wake-up shows
//! up as a deadlock, which loom reports. Deques are not loom-instrumented, so a
//! mutex-protected `Vec` stands in for them.

use loom::sync::Arc;

use super::Sleep;
use crate::pool::fence;
use crate::pool::fork_stack::{ForkStack, FORK_CAPACITY};
use crate::pool::isolate::Tag;
use crate::pool::job::{Job, JobRef};
use crate::pool::latch::CoreLatch;
use crate::sync::{thread, Mutex};

/// The search loop of a worker, reduced to what the protocol needs: take a job from the
/// stand-in queue, else let the sleep state decide whether to spin, get sleepy or park.
fn worker_loop(
    sleep: &Sleep,
    index: usize,
    queue: &Mutex<Vec<u32>>,
    latch: &CoreLatch,
) -> Option<u32> {
    let mut idle = sleep.start_looking(index, 0);
    loop {
        if latch.probe() {
            sleep.stop_looking(false);
            return None;
        }
        // Release the queue lock before calling into the protocol (the real deques are
        // lock-free; holding it here would invert the lock order with `has_work`).
        let popped = queue.lock().unwrap().pop();
        if let Some(job) = popped {
            sleep.stop_looking(true);
            return Some(job);
        }
        sleep.no_work_found(&mut idle, latch, || !queue.lock().unwrap().is_empty());
    }
}

/// *sleepy-then-publish*: a job published while the only worker falls asleep is found.
/// The publisher first yields `publisher_yields` times: loom does not run a spawned thread
/// ahead of the thread that spawned it unless that thread yields or is preempted, and the
/// worker yields once per search round, so with no yields here every explored schedule had
/// the job published before the worker got sleepy. With the re-checks in `Sleep::sleep`
/// (the jobs-event compare and `has_work`) both removed, the model with yields reports the
/// lost wake-up as a deadlock at `LOOM_MAX_PREEMPTIONS=2`; the one without passed.
fn publish_while_the_worker_falls_asleep(publisher_yields: u32) {
    loom::model(move || {
        let sleep = Arc::new(Sleep::new(1));
        let queue = Arc::new(Mutex::new(Vec::new()));
        let latch = Arc::new(CoreLatch::new());
        let worker = {
            let (sleep, queue, latch) = (sleep.clone(), queue.clone(), latch.clone());
            thread::spawn(move || worker_loop(&sleep, 0, &queue, &latch))
        };
        for _ in 0..publisher_yields {
            thread::yield_now();
        }
        queue.lock().unwrap().push(7);
        sleep.new_jobs(1);
        assert_eq!(worker.join().unwrap(), Some(7));
    });
}

#[test]
fn loom_no_lost_wakeup_for_a_published_job() {
    publish_while_the_worker_falls_asleep(0);
}

/// The same, published once the worker has had its search rounds (enough yields for it to
/// get sleepy and reach `Sleep::sleep`).
#[test]
fn loom_no_lost_wakeup_for_a_job_published_as_the_worker_sleeps() {
    publish_while_the_worker_falls_asleep(super::ROUNDS_UNTIL_SLEEPY + 2);
}

/// *latch-set-while-falling-asleep*: a worker waiting on its latch wakes when it is set. The
/// setter first yields `setter_yields` times (see `publish_while_the_worker_falls_asleep`).
fn latch_set_while_the_owner_falls_asleep(setter_yields: u32) {
    loom::model(move || {
        let sleep = Arc::new(Sleep::new(1));
        let queue = Arc::new(Mutex::new(Vec::new()));
        let latch = Arc::new(CoreLatch::new());
        let worker = {
            let (sleep, queue, latch) = (sleep.clone(), queue.clone(), latch.clone());
            thread::spawn(move || worker_loop(&sleep, 0, &queue, &latch))
        };
        for _ in 0..setter_yields {
            thread::yield_now();
        }
        // SAFETY: the latch is kept alive by our Arc for the whole call.
        if unsafe { CoreLatch::set(&*latch) } {
            sleep.notify_worker_latch_is_set(0);
        }
        assert_eq!(worker.join().unwrap(), None);
        assert!(latch.probe());
    });
}

#[test]
fn loom_latch_set_wakes_a_sleeping_owner() {
    latch_set_while_the_owner_falls_asleep(0);
}

/// The same, set once the owner has had its search rounds. With `fall_asleep`'s failure
/// ignored in `Sleep::sleep` (the owner parks although its latch was set as it got sleepy),
/// this variant reports the deadlock at `LOOM_MAX_PREEMPTIONS=2` and the one above passes.
#[test]
fn loom_latch_set_as_the_owner_sleeps_wakes_it() {
    latch_set_while_the_owner_falls_asleep(super::ROUNDS_UNTIL_SLEEPY + 2);
}

/// *publish-while-last-searcher-leaves*: two workers, one job. Whoever takes it releases the
/// other through its latch; if the job were stranded, both would sleep forever.
#[test]
fn loom_two_workers_one_job_terminates() {
    loom::model(|| {
        let sleep = Arc::new(Sleep::new(2));
        let queue = Arc::new(Mutex::new(Vec::new()));
        let latches = Arc::new([CoreLatch::new(), CoreLatch::new()]);
        let workers: Vec<_> = (0..2)
            .map(|index| {
                let (sleep, queue, latches) = (sleep.clone(), queue.clone(), latches.clone());
                thread::spawn(move || {
                    let got = worker_loop(&sleep, index, &queue, &latches[index]);
                    if got.is_some() {
                        let other = 1 - index;
                        // SAFETY: the latches live in an Arc we hold.
                        if unsafe { CoreLatch::set(&latches[other]) } {
                            sleep.notify_worker_latch_is_set(other);
                        }
                    }
                    got
                })
            })
            .collect();
        queue.lock().unwrap().push(1);
        sleep.new_jobs(1);
        let results: Vec<_> = workers.into_iter().map(|w| w.join().unwrap()).collect();
        assert_eq!(results.iter().flatten().count(), 1, "{results:?}");
    });
}

/// *set-aside-while-eligible-worker-sleeps*: worker 1 is isolated (context 5) and takes the
/// job, which it may not run; it sets the job aside. Worker 0 (unrestricted) must still get
/// it, even though worker 1 was the awake searcher the publisher counted on.
#[test]
fn loom_a_job_set_aside_by_an_isolated_worker_reaches_an_eligible_one() {
    const ISOLATED: u64 = 5;
    loom::model(|| {
        let sleep = Arc::new(Sleep::new(2));
        let queue = Arc::new(Mutex::new(Vec::new()));
        let set_aside = Arc::new(Mutex::new(Vec::new()));
        let latches = Arc::new([CoreLatch::new(), CoreLatch::new()]);
        let unrestricted = {
            let (sleep, queue, set_aside) = (sleep.clone(), queue.clone(), set_aside.clone());
            let latches = latches.clone();
            thread::spawn(move || {
                // Context 0 runs anything: from the queue or from the set-aside list.
                let mut idle = sleep.start_looking(0, 0);
                loop {
                    let popped = queue.lock().unwrap().pop();
                    let found = popped.or_else(|| set_aside.lock().unwrap().pop());
                    if let Some(job) = found {
                        sleep.stop_looking(true);
                        return job;
                    }
                    let has_work = || {
                        !queue.lock().unwrap().is_empty() || !set_aside.lock().unwrap().is_empty()
                    };
                    sleep.no_work_found(&mut idle, &latches[0], has_work);
                }
            })
        };
        let isolated = {
            let (sleep, queue, set_aside) = (sleep.clone(), queue.clone(), set_aside.clone());
            let latches = latches.clone();
            thread::spawn(move || {
                // Context 5 admits nothing here: every job it takes is set aside.
                let mut idle = sleep.start_looking(1, ISOLATED);
                loop {
                    if latches[1].probe() {
                        sleep.stop_looking(false);
                        return;
                    }
                    let popped = queue.lock().unwrap().pop();
                    if let Some(job) = popped {
                        set_aside.lock().unwrap().push(job);
                        sleep.new_job_for(|context| context == 0);
                        continue;
                    }
                    let has_work = || !queue.lock().unwrap().is_empty();
                    sleep.no_work_found(&mut idle, &latches[1], has_work);
                }
            })
        };
        queue.lock().unwrap().push(3);
        sleep.new_jobs(1);
        assert_eq!(unrestricted.join().unwrap(), 3);
        // SAFETY: the latches live in an Arc we hold.
        if unsafe { CoreLatch::set(&latches[1]) } {
            sleep.notify_worker_latch_is_set(1);
        }
        isolated.join().unwrap();
    });
}

/// *fork-while-falling-asleep*: an owner pushes a fork and then blocks (it never forks or
/// publishes again); the only other worker is falling asleep. Either the owner sees it idle
/// and publishes the fork on its (stand-in) deque, or the worker's last look before parking,
/// after its heavy fence, sees the fork on the owner's fork stack and steals it on its next
/// trip towards sleep. A fork stranded with a parked worker shows up as a deadlock.
fn fork_while_the_worker_falls_asleep(owner_yields: u32) {
    loom::model(move || {
        let sleep = Arc::new(Sleep::new(2));
        let deque = Arc::new(Mutex::new(Vec::new()));
        let forks = Arc::new(ForkStack::new());
        let latch = Arc::new(CoreLatch::new());
        let worker = {
            let (sleep, deque, forks, latch) =
                (sleep.clone(), deque.clone(), forks.clone(), latch.clone());
            thread::spawn(move || {
                let mut idle = sleep.start_looking(1, 0);
                loop {
                    let popped = deque.lock().unwrap().pop();
                    if let Some(job) = popped {
                        sleep.stop_looking(true);
                        return job;
                    }
                    if idle.becoming_sleepy() {
                        if let Some(job) = forks.steal(|_| true) {
                            sleep.stop_looking(true);
                            return job.job;
                        }
                    }
                    sleep.no_work_found(&mut idle, &latch, || {
                        fence::heavy();
                        !deque.lock().unwrap().is_empty() || forks.looks_nonempty()
                    });
                }
            })
        };
        for _ in 0..owner_yields {
            thread::yield_now();
        }
        // `WorkerThread::push_fork`: the push, the light fence, the look at the counters.
        // SAFETY: never executed; the pointer only identifies the fork.
        let job = unsafe { JobRef::new(&MARKER) };
        forks.push(job, Tag::NONE, FORK_CAPACITY).unwrap();
        fence::light();
        if sleep.anyone_idle() {
            if let Some(oldest) = forks.take_oldest() {
                deque.lock().unwrap().push(oldest.job);
                sleep.new_jobs(1);
            }
        }
        assert_eq!(worker.join().unwrap(), job);
    });
}

struct Marker;

impl Job for Marker {
    unsafe fn execute(_: *const ()) {
        unreachable!("the model never runs the fork");
    }
}

static MARKER: Marker = Marker;

#[test]
fn loom_a_fork_pushed_as_a_worker_starts_looking_reaches_it() {
    fork_while_the_worker_falls_asleep(0);
}

/// The same, pushed once the worker has had its search rounds. With the heavy fence removed
/// from the last look, or the owner's look at the counters, the fork can be stranded.
#[test]
fn loom_a_fork_pushed_as_a_worker_sleeps_reaches_it() {
    fork_while_the_worker_falls_asleep(super::ROUNDS_UNTIL_SLEEPY + 2);
}

/// *wake-a-new-worker* (a growing pool, `Sleep::grow`): a publisher that started before the
/// pool grew, publishing while the new worker falls asleep, still wakes it. The publisher
/// yields `publisher_yields` times first (see `publish_while_the_worker_falls_asleep`).
/// Worker 0 exists in the sleep state but runs no loop, so only worker 1 can take the job.
fn publish_while_a_new_worker_falls_asleep(publisher_yields: u32) {
    loom::model(move || {
        let sleep = Arc::new(Sleep::new(1));
        let queue = Arc::new(Mutex::new(Vec::new()));
        let latch = Arc::new(CoreLatch::new());
        let publisher = {
            let (sleep, queue) = (sleep.clone(), queue.clone());
            thread::spawn(move || {
                for _ in 0..publisher_yields {
                    thread::yield_now();
                }
                queue.lock().unwrap().push(7);
                sleep.new_jobs(1);
            })
        };
        sleep.grow(2);
        let worker = {
            let (sleep, queue, latch) = (sleep.clone(), queue.clone(), latch.clone());
            thread::spawn(move || worker_loop(&sleep, 1, &queue, &latch))
        };
        assert_eq!(worker.join().unwrap(), Some(7));
        publisher.join().unwrap();
    });
}

#[test]
fn loom_a_worker_of_a_grown_pool_is_woken() {
    publish_while_a_new_worker_falls_asleep(0);
}

#[test]
fn loom_a_worker_of_a_grown_pool_is_woken_as_it_sleeps() {
    publish_while_a_new_worker_falls_asleep(super::ROUNDS_UNTIL_SLEEPY + 2);
}

/// *retire-while-searching*: worker 0 is told to retire (its latch set, as a shrink sets a
/// worker's stop latch) while a job is published, and leaves the search for good; worker 1
/// may be asleep. Whoever does not take the job is released through its latch afterwards;
/// if worker 0 left without waking worker 1, the job would be stranded and the model
/// deadlocks (as it does with `searcher_retired` removed).
#[test]
fn loom_a_retiring_searcher_does_not_strand_a_job() {
    loom::model(|| {
        let sleep = Arc::new(Sleep::new(2));
        let queue = Arc::new(Mutex::new(Vec::new()));
        let latches = Arc::new([CoreLatch::new(), CoreLatch::new()]);
        let spawn_worker = |index: usize| {
            let (sleep, queue, latches) = (sleep.clone(), queue.clone(), latches.clone());
            thread::spawn(move || {
                let got = worker_loop(&sleep, index, &queue, &latches[index]);
                if index == 0 && got.is_none() {
                    sleep.searcher_retired();
                }
                got
            })
        };
        let retiring = spawn_worker(0);
        let staying = spawn_worker(1);
        queue.lock().unwrap().push(7);
        sleep.new_jobs(1);
        // SAFETY: the latches live in an Arc we hold.
        if unsafe { CoreLatch::set(&latches[0]) } {
            sleep.notify_worker_latch_is_set(0);
        }
        let first = retiring.join().unwrap();
        if first.is_some() {
            // SAFETY: as above.
            if unsafe { CoreLatch::set(&latches[1]) } {
                sleep.notify_worker_latch_is_set(1);
            }
        }
        let second = staying.join().unwrap();
        assert_eq!(first.or(second), Some(7));
        assert!(first.is_none() || second.is_none());
    });
}
