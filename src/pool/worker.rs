//! `WorkerThread`: the state a worker keeps for itself (its deque, its fork stack, its victim
//! RNG), reached through a thread-local pointer, and the search loop (own deque → own
//! broadcast queue → injector → random victims → other workers' fork stacks).
//!
//! ## Forks: stealable from the start, published on demand
//! `join(a, b)` records `b` on the worker's *fork stack* (`fork_stack.rs`) with a few plain
//! stores and pops it back after `a`: on one busy thread a join costs no atomic
//! read-modify-write and no fence. Every fork can be taken by another worker from the moment
//! it is pushed, through the fork stack's heavy side (a process-wide barrier per steal), so a
//! worker that is idle, or becomes idle later, can always take the oldest fork of a worker
//! whose owner is blocked in user code. That path is the slow one: an idle worker tries it
//! once per trip towards sleep, and a sleeper looks at every fork stack before it parks.
//!
//! The cheap path is publication: when the sleep counters say some worker is idle, a worker
//! that forks moves its oldest fork to its crossbeam deque (one at a time: only while the
//! deque is empty), where thieves take it with one CAS and the sleep protocol wakes them.
//!
//! ## The job word
//! One word per thread for the layers above the pool (`pool::job_word`): `execute` clears
//! it for every job taken from a queue and restores it afterwards, as such a job is not part
//! of the code that set it.
//!
//! ## Isolation
//! Queued jobs carry a tag (`TaggedJob`) and the worker runs in an isolation context
//! (`isolate.rs`); a fork records its tag when it is pushed (one more store). A worker in a
//! restricted context sets aside every queued job it takes but may not run, and searches on;
//! from fork stacks it steals only forks its context admits.

use std::cell::Cell;
use std::ptr;
use std::sync::Arc;

use crossbeam_deque::{Steal, Worker};

use super::cancel::{Region, RegionPtr};
use super::fence;
use super::fork_stack::{ForkStack, FORK_CAPACITY};
use super::isolate::{Tag, WorkerContexts};
use super::job::{JobRef, TaggedJob};
use super::latch::{AsCoreLatch, CoreLatch};
use super::registry::{Registry, Retire};
use super::stats::{Event, WorkerStats};
use super::trace::TraceWriter;

/// `push_fork`'s answer when the fork went straight to the deque.
const PUBLISHED_DIRECTLY: usize = usize::MAX;

thread_local! {
    /// The worker running on this thread (null if none).
    static CURRENT: Cell<*const WorkerThread> = const { Cell::new(ptr::null()) };

    /// The job word (`pool::job_word`).
    static JOB_WORD: Cell<u64> = const { Cell::new(0) };
}

/// This thread's job word.
#[inline(always)]
pub(crate) fn job_word() -> u64 {
    JOB_WORD.with(Cell::get)
}

/// Sets this thread's job word, returning the previous one.
#[inline(always)]
pub(crate) fn set_job_word(word: u64) -> u64 {
    JOB_WORD.with(|cell| cell.replace(word))
}

/// Undoes `install_current` when dropped: at the end of `run_as_current` (returning or
/// unwinding), and at the end of an adopted thread (`adopt_current_thread`).
struct Uninstall<'w>(&'w WorkerThread);

impl Drop for Uninstall<'_> {
    fn drop(&mut self) {
        self.0.uninstall_current();
    }
}

/// The per-thread state of one worker.
pub(crate) struct WorkerThread {
    deque: Worker<TaggedJob>,
    /// This worker's fork stack (the registry shares it with the other workers).
    forks: Arc<ForkStack>,
    /// The isolation context this worker runs in (`isolate.rs`).
    contexts: WorkerContexts,
    index: usize,
    rng: XorShift64Star,
    registry: Arc<Registry>,
    /// This worker's counters (shared with the registry, which sums them for `PoolStats`).
    stats: Arc<WorkerStats>,
    /// The worker of a pool of one: nobody could take a fork, so `join` records none.
    /// Refreshed for every job taken from a queue: after a resize, a worker sees the new size from
    /// its next job on (the job it runs keeps the mode it started in: correct either way).
    alone: Cell<bool>,
    /// The `cancellable` region the running work belongs to (`cancel.rs`), null outside
    /// every region. Points to a region kept alive by the frame that set it (`in_region`).
    region: Cell<*const Region>,
    /// `join` runs in place: `alone`, outside every region.
    in_place: Cell<bool>,
    /// How many forks the fork stack takes: `FORK_CAPACITY`, or 0 in a region, whose joins
    /// so take the branch every join tests anyway (a full stack): `b` goes to the deque
    /// with the region (`cancel.rs`). Joins outside every region test nothing more.
    fork_limit: Cell<usize>,
    /// Set if the pool records (`pool/trace`): every recording point tests this field.
    trace: Option<TraceWriter>,
    /// How many frames on this thread's stack wait for something (a latch, a fork a thief
    /// may hold, the job `yield_now` runs) while this worker runs other jobs above them:
    /// nonzero while the code running now was taken up by such a wait (`inside_a_wait`).
    /// The main loop's wait for the pool's end does not count: nothing waits below it.
    waits: Cell<u32>,
}

impl std::fmt::Debug for WorkerThread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerThread")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl WorkerThread {
    pub(crate) fn new(deque: Worker<TaggedJob>, index: usize, registry: Arc<Registry>) -> Self {
        WorkerThread {
            deque,
            forks: registry.fork_stack(index),
            contexts: WorkerContexts::new(),
            index,
            rng: XorShift64Star::new(index as u64 + 1),
            alone: Cell::new(registry.num_threads() == 1),
            region: Cell::new(ptr::null()),
            in_place: Cell::new(registry.num_threads() == 1),
            fork_limit: Cell::new(FORK_CAPACITY),
            trace: registry.trace_writer(index),
            waits: Cell::new(0),
            stats: registry.worker_stats(index),
            registry,
        }
    }

    /// Calls `f` with the worker running on the current thread, or `None` outside any pool.
    /// The one place that turns [`CURRENT`] into a reference: the borrow `f` gets cannot
    /// leave `f` (its lifetime is chosen by `with_current`'s caller for each call).
    ///
    /// Always inlined: `join`'s fast path goes through it, and left to LLVM's judgement the
    /// closure changed how a `join` recursion was inlined, and `join` cost more than with a
    /// raw read of the thread-local.
    #[inline(always)]
    pub(crate) fn with_current<R>(f: impl FnOnce(Option<&WorkerThread>) -> R) -> R {
        let current = CURRENT.with(Cell::get);
        // SAFETY: CURRENT is non-null only while the worker it points to is alive:
        // `run_as_current` sets it to `self` for the duration of `body` and resets it to null
        // before returning or unwinding (its `Uninstall` guard), and `adopt_current_thread`
        // installs a leaked worker that is never freed. `f` runs on this thread and returns
        // before `with_current` does, so inside one of those spans; the reference cannot
        // escape `f` (higher-ranked lifetime) nor reach another thread (`WorkerThread` is
        // `!Sync`, so `&WorkerThread` is `!Send`). Only shared references to a worker exist.
        f(unsafe { current.as_ref() })
    }

    /// Runs `body` with `self` installed as the current thread's worker.
    pub(crate) fn run_as_current<R>(&self, body: impl FnOnce() -> R) -> R {
        self.install_current();
        let _uninstall = Uninstall(self);
        body()
    }

    /// Makes `self` this thread's worker in [`CURRENT`].
    fn install_current(&self) {
        CURRENT.with(|current| {
            assert!(
                current.get().is_null(),
                "weft: a thread can be only one worker"
            );
            current.set(self);
        });
    }

    /// Undoes [`install_current`](Self::install_current).
    fn uninstall_current(&self) {
        JOB_WORD.with(|word| word.set(0));
        CURRENT.with(|current| current.set(ptr::null()));
    }

    /// Forks of this worker that no thief took and that are not published: what a thief
    /// could still be offered.
    #[inline]
    fn private_forks(&self) -> usize {
        self.forks.present()
    }

    /// Makes the current thread this worker for the rest of its life, without a worker loop
    /// (`ThreadPoolBuilder::use_current_thread`). The worker is leaked: the thread may be in
    /// the middle of a `join` on it at any later time, so no point is safe to free it.
    pub(crate) fn adopt_current_thread(self) {
        thread_local! {
            /// Uninstalls the adopted worker when the thread ends (its thread-locals are
            /// freed after their destructors have run).
            static ADOPTED: Cell<Option<Uninstall<'static>>> = const { Cell::new(None) };
        }
        let worker: &'static WorkerThread = Box::leak(Box::new(self));
        worker.install_current();
        ADOPTED.with(|adopted| adopted.set(Some(Uninstall(worker))));
    }

    /// Whether `join` runs in place here: the one worker of its pool, outside every region.
    #[inline(always)]
    pub(crate) fn joins_in_place(&self) -> bool {
        self.in_place.get()
    }

    /// The `cancellable` region the running work belongs to, or null.
    #[inline(always)]
    pub(crate) fn region(&self) -> *const Region {
        self.region.get()
    }

    /// Runs `op` as work of `region` (null: of no region), then returns to the current one
    /// (also when `op` unwinds).
    ///
    /// `region` must be null or stay alive until this returns (the caller holds it).
    pub(crate) fn in_region<R>(&self, region: *const Region, op: impl FnOnce() -> R) -> R {
        struct Restore<'w>(&'w WorkerThread, *const Region);
        impl Drop for Restore<'_> {
            fn drop(&mut self) {
                self.0.set_region(self.1);
            }
        }
        let _restore = Restore(self, self.region.get());
        self.set_region(region);
        op()
    }

    #[inline]
    fn set_region(&self, region: *const Region) {
        self.region.set(region);
        self.refresh_join_path();
    }

    /// Sets the join path from `alone` and `region`.
    #[inline]
    fn refresh_join_path(&self) {
        let outside = self.region.get().is_null();
        self.in_place.set(self.alone.get() && outside);
        self.fork_limit.set(if outside { FORK_CAPACITY } else { 0 });
    }

    /// Gives back the deque, once this worker has left its loop (`registry::main_loop`).
    pub(crate) fn into_deque(self) -> Worker<TaggedJob> {
        self.deque
    }

    /// Refreshes `alone` from the pool's current size: a resize changes it between jobs.
    #[inline]
    fn refresh_alone(&self) {
        let alone = self.registry.num_threads() == 1;
        if alone != self.alone.get() {
            self.alone.set(alone);
            self.refresh_join_path();
        }
    }

    pub(crate) fn index(&self) -> usize {
        self.index
    }

    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// This worker's trace writer, if its pool records.
    #[inline]
    pub(crate) fn trace(&self) -> Option<&TraceWriter> {
        self.trace.as_ref()
    }

    /// Runs `op`, which starts a series on this worker (a trace's unit for a driver's run
    /// of positions: see `pool/trace/writer.rs`).
    #[inline]
    pub(crate) fn trace_series<R>(&self, op: impl FnOnce() -> R) -> R {
        let _series = self.trace.as_ref().map(TraceWriter::enter_series);
        op()
    }

    /// Records `job` (the `b` of a join) as a fork; returns its index for `pop_fork`. If some
    /// worker is idle, the oldest fork is published for it (see the module doc).
    #[inline]
    pub(crate) fn push_fork(&self, job: JobRef) -> usize {
        let Some(index) = self
            .forks
            .push(job, self.context_tag(), self.fork_limit.get())
        else {
            // A full stack, or a region's join: published, with the region if any.
            let region = RegionPtr(self.region.get());
            self.push(TaggedJob::in_region(job, self.context_tag(), region));
            return PUBLISHED_DIRECTLY;
        };
        self.forked(index)
    }

    /// After the fork `index` was recorded: offer the oldest fork to an idle worker.
    #[inline]
    fn forked(&self, index: usize) -> usize {
        // The push's store, then the look at the sleep counters: a worker that is about to
        // sleep either counts as idle here or sees the fork after its heavy fence
        // (*fork-while-falling-asleep* in `sleep/README.md`).
        fence::light();
        self.offer_forks();
        index
    }

    /// Takes fork `index` back; true if it is still ours to run inline, false if it was
    /// published or stolen (then `reclaim_fork` finds it in the deque or waits for it).
    #[inline]
    pub(crate) fn pop_fork(&self, index: usize) -> bool {
        if index == PUBLISHED_DIRECTLY {
            return false;
        }
        self.forks.pop(index)
    }

    /// True if some worker of this pool is looking for work (a hint: see `Sleep::anyone_idle`).
    #[inline]
    pub(crate) fn anyone_idle(&self) -> bool {
        self.registry.sleep.anyone_idle()
    }

    /// Whether work this worker started offering now would go to an idle worker: one is
    /// idle, and nothing of this worker's would be taken first, as its deque is empty and it
    /// holds no private fork (an offer publishes the oldest unpublished fork, which is older and
    /// larger than any new work). If a worker is idle but something else comes first, that
    /// is offered instead (`offer_forks`). See `pool::idle_worker_needs_work`.
    #[inline]
    pub(crate) fn idle_worker_needs_work(&self) -> bool {
        if !self.anyone_idle() {
            return false;
        }
        if self.has_pending_tasks() {
            self.share_fork_cold();
            return false;
        }
        true
    }

    /// Publishes the oldest unpublished fork if some worker is idle (see `pool::offer_forks`).
    #[inline]
    pub(crate) fn offer_forks(&self) {
        if self.anyone_idle() {
            self.share_fork_cold();
        }
    }

    /// Publishes the oldest unpublished fork whether or not anyone is idle (see
    /// `pool::publish_fork`).
    #[inline]
    pub(crate) fn publish_fork(&self) {
        if self.private_forks() > 0 {
            self.share_fork_cold();
        }
    }

    /// Someone is idle (or `publish_fork` asks): publish our oldest fork, unless one
    /// already waits in the deque.
    #[cold]
    fn share_fork_cold(&self) {
        if !self.deque.is_empty() {
            return;
        }
        if let Some(job) = self.forks.take_oldest() {
            self.deque.push(job);
            self.note(Event::ForkPublished, 1);
            self.registry.sleep.new_jobs(1);
        }
    }

    /// Publishes every fork: called before this worker waits, so that idle workers (and
    /// this one, while it waits) can take the forks of the frames it is suspended in.
    fn share_all_forks(&self) {
        let published = self.forks.take_all(|job| self.deque.push(job));
        if published > 0 {
            self.note(Event::ForkPublished, published as u64);
            self.registry.sleep.new_jobs(published);
        }
    }

    /// True if this worker has forks or jobs of its own that have not run yet.
    #[inline]
    pub(crate) fn has_pending_tasks(&self) -> bool {
        self.private_forks() > 0 || !self.deque.is_empty()
    }

    /// Pushes a job on this worker's deque, visible to thieves at once (spawn, overflow).
    pub(crate) fn push(&self, job: TaggedJob) {
        self.deque.push(job);
        self.registry.sleep.new_jobs(1);
    }

    /// Pops the newest job of this worker's deque that its context admits; jobs popped on
    /// the way that it may not run are set aside.
    #[inline]
    pub(crate) fn take_local_job(&self) -> Option<TaggedJob> {
        let context = self.context_tag();
        if context == Tag::NONE {
            return self.deque.pop();
        }
        while let Some(job) = self.deque.pop() {
            if context.admits(job.tag) {
                return Some(job);
            }
            self.registry.set_aside(job);
        }
        None
    }

    /// The published fork whose data is at `job` is needed now: true if we popped it back
    /// (run it inline), false once a thief has run it and set `latch`. (An address, not the
    /// `JobRef`: the caller's handle then need not be kept in memory for this cold call.)
    pub(crate) fn reclaim_fork(&self, job: *const (), latch: &CoreLatch) -> bool {
        while !latch.probe() {
            match self.deque.pop() {
                Some(popped) if popped.job.points_to(job) => return true,
                Some(other) if self.context_tag().admits(other.tag) => {
                    // SAFETY: jobs in our deque are live until executed (JobRef contract).
                    self.waiting(|| unsafe { self.execute(other) })
                }
                Some(other) => self.registry.set_aside(other),
                None => {
                    self.wait_until(latch);
                    return false;
                }
            }
        }
        false
    }

    /// Executes jobs until `latch` is set, sleeping when there is nothing to do.
    #[inline]
    pub(crate) fn wait_until<L: AsCoreLatch + ?Sized>(&self, latch: &L) {
        let core = latch.as_core_latch();
        if !core.probe() {
            self.wait_until_cold(core);
        }
    }

    #[cold]
    fn wait_until_cold(&self, latch: &CoreLatch) {
        self.waiting(|| self.run_jobs_until(latch));
    }

    /// The main loop of a pool's thread: runs jobs until the pool ends or this worker
    /// retires (its stop latch is set, and `Registry::retire_check` says so). Unlike
    /// [`wait_until`](Self::wait_until) it does not count as a wait (`waits`).
    pub(crate) fn run_until_retired(&self) {
        let stop = self.registry.stop_latch(self.index);
        loop {
            if !stop.probe() {
                self.run_jobs_until(stop);
            }
            // Between jobs: nothing of a job is on this thread's stack.
            match self.registry.retire_check(self) {
                Retire::Stay => {}
                Retire::RunTargeted => {
                    while let Some(job) = self.registry.take_targeted_job(self.index) {
                        // SAFETY: a job taken from a queue is live until executed, and ours.
                        unsafe { self.execute(job) };
                    }
                }
                Retire::Exit => return,
            }
        }
    }

    /// Runs `op` counted in [`waits`](Self::waits): jobs it runs run inside a wait.
    #[inline]
    pub(crate) fn waiting<R>(&self, op: impl FnOnce() -> R) -> R {
        /// Uncounts the wait when dropped, unwinding or not.
        struct Counted<'a>(&'a Cell<u32>);
        impl Drop for Counted<'_> {
            fn drop(&mut self) {
                self.0.set(self.0.get() - 1);
            }
        }
        self.waits.set(self.waits.get() + 1);
        let _counted = Counted(&self.waits);
        op()
    }

    /// Whether the code running now was taken up by a wait of this worker (see `waits`).
    #[inline]
    pub(crate) fn inside_a_wait(&self) -> bool {
        self.waits.get() > 0
    }

    /// Executes jobs until `latch` is set, sleeping when there is nothing to do.
    fn run_jobs_until(&self, latch: &CoreLatch) {
        self.share_all_forks();
        while !latch.probe() {
            if let Some(job) = self.take_local_job() {
                // SAFETY: jobs in our deque are live until executed.
                unsafe { self.execute(job) };
                continue;
            }
            let sleep = &self.registry.sleep;
            let mut idle = sleep.start_looking(self.index, self.context_tag().to_bits());
            let found = loop {
                if latch.probe() {
                    break None;
                }
                if let Some(job) = self.find_work() {
                    break Some(job);
                }
                // Once per trip towards sleep, the expensive source: forks nobody offered.
                if idle.becoming_sleepy() {
                    if let Some(job) = self.steal_unoffered_fork() {
                        break Some(job);
                    }
                }
                let since = self.trace.as_ref().map(TraceWriter::now);
                if sleep.no_work_found(&mut idle, latch, || self.has_visible_work()) {
                    self.note(Event::Woken, 1);
                    if let (Some(trace), Some(since)) = (&self.trace, since) {
                        trace.slept(since);
                    }
                }
            };
            sleep.stop_looking(found.is_some());
            if let Some(job) = found {
                // SAFETY: a job taken from a queue is live until executed, and we own it.
                unsafe { self.execute(job) };
            }
        }
    }

    /// One search: own deque, own broadcast queue, jobs set aside, the injector, then random
    /// victims. Jobs this worker's context does not admit are set aside on the way.
    pub(crate) fn find_work(&self) -> Option<TaggedJob> {
        let context = self.context_tag();
        self.take_local_job()
            .or_else(|| self.registry.take_targeted_job(self.index))
            .or_else(|| self.registry.take_set_aside(context))
            .or_else(|| {
                let job = self.registry.steal_injected(context);
                if job.is_some() {
                    self.note(Event::JobInjected, 1);
                    if let Some(trace) = &self.trace {
                        trace.took_injected();
                    }
                }
                job
            })
            .or_else(|| {
                let (job, victim) = self.steal_from_others(context)?;
                self.note(Event::JobStolen, 1);
                if let Some(trace) = &self.trace {
                    trace.stole_job(victim);
                }
                Some(job)
            })
    }

    /// A job stolen from another worker's deque that this worker's context admits, and
    /// that worker's index.
    fn steal_from_others(&self, context: Tag) -> Option<(TaggedJob, usize)> {
        // Retiring workers too: they may still run loops whose pieces others should take.
        let stealers = self.registry.victims();
        if stealers <= 1 {
            return None;
        }
        let start = self.rng.next_below(stealers);
        loop {
            let mut retry = false;
            for offset in 0..stealers {
                let victim = (start + offset) % stealers;
                if victim == self.index {
                    continue;
                }
                match self.registry.steal_from(victim) {
                    Steal::Success(job) if context.admits(job.tag) => return Some((job, victim)),
                    // Taken but not ours to run in this context: others will find it.
                    Steal::Success(job) => self.registry.set_aside(job),
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
            if !retry {
                return None;
            }
        }
    }

    /// A fork that its owner did not publish, taken from another worker's fork stack (the
    /// oldest of the first stack found non-empty whose oldest fork this worker's context
    /// admits).
    #[cold]
    fn steal_unoffered_fork(&self) -> Option<TaggedJob> {
        let context = self.context_tag();
        let workers = self.registry.victims();
        let start = self.rng.next_below(workers);
        let (job, victim) = (0..workers)
            .map(|offset| (start + offset) % workers)
            .filter(|&victim| victim != self.index)
            .find_map(|victim| Some((self.registry.steal_fork_from(victim, context)?, victim)))?;
        self.note(Event::JobStolen, 1);
        if let Some(trace) = &self.trace {
            trace.stole_job(victim);
        }
        Some(job)
    }

    /// The last look before parking. The heavy fence first: a fork pushed before it is seen
    /// below, and one pushed after it finds this worker counted in `idle` and is published
    /// (*fork-while-falling-asleep* in `sleep/README.md`).
    fn has_visible_work(&self) -> bool {
        fence::heavy();
        !self.deque.is_empty()
            || self
                .registry
                .has_visible_work(self.index, self.context_tag())
    }

    /// The isolation context this worker runs in.
    #[inline]
    pub(crate) fn context_tag(&self) -> Tag {
        self.contexts.tag()
    }

    /// Runs `op` in a fresh isolation context (`isolate`).
    pub(crate) fn isolated<R>(&self, tag: Tag, op: impl FnOnce() -> R) -> R {
        self.contexts.enter(tag, op)
    }

    /// Runs `op`, the body of a job tagged `tag`, in the context it belongs in: the job's if
    /// this worker is unrestricted, else the current one (`JoinHandle::join` running its
    /// task inline uses this too).
    #[inline]
    pub(crate) fn run_tagged<R>(&self, tag: Tag, op: impl FnOnce() -> R) -> R {
        self.contexts.run_job(tag, op)
    }

    /// Runs `job` if this worker's context admits it, else sets it aside (a FIFO entry's job).
    ///
    /// # Safety
    /// As for [`execute`](Self::execute).
    pub(crate) unsafe fn run_or_set_aside(&self, job: TaggedJob) {
        if self.context_tag().admits(job.tag) {
            // SAFETY: forwarded from this function's contract.
            self.run_tagged(job.tag, || unsafe { job.job.execute() })
        } else {
            self.registry.set_aside(job);
        }
    }

    /// Executes a job on this worker, in the job's isolation context if this worker is
    /// unrestricted.
    ///
    /// # Safety
    /// `job` must be live and not executed before (the `JobRef` contract).
    #[inline]
    pub(crate) unsafe fn execute(&self, job: TaggedJob) {
        self.note(Event::JobExecuted, 1);
        // The job is not part of the work this thread was doing: it starts with a clear job
        // word, and the work's word is back once the job is done. (Jobs do not unwind: they
        // catch their panics.)
        // Nor does it belong to the work's `cancellable` region: it runs in its own (a
        // region's `join` carries it in the queue; a task holds its own: `cancel.rs`).
        let word = set_job_word(0);
        let region = self.region.replace(job.region.0);
        self.refresh_alone();
        self.refresh_join_path();
        // SAFETY: forwarded from this function's contract.
        let run = || self.run_tagged(job.tag, || unsafe { job.job.execute() });
        match &self.trace {
            Some(trace) => trace.execute(job.job.kind(), run),
            None => run(),
        }
        set_job_word(word);
        self.set_region(region);
    }

    /// Adds to one of this worker's statistics counters.
    #[inline]
    pub(crate) fn note(&self, event: Event, n: u64) {
        self.stats.add(event, n);
    }
}

/// Victim selection: xorshift64*, seeded per worker; statistical quality is irrelevant.
struct XorShift64Star {
    state: Cell<u64>,
}

impl XorShift64Star {
    fn new(seed: u64) -> Self {
        XorShift64Star {
            state: Cell::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
        }
    }

    fn next_below(&self, bound: usize) -> usize {
        let mut x = self.state.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state.set(x);
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as usize % bound
    }
}
