//! `Registry`: everything the workers of one pool share — their stealers, the injector for
//! jobs from outside, per-worker queues for targeted jobs, the sleep state, the handlers and
//! the termination count — plus the global pool and the `in_worker` entry points that move a
//! closure onto a worker of the right pool.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread;

use crossbeam_deque::{Injector, Steal, Stealer, Worker};

use super::cancel::RegionPtr;
use super::fence;
use super::fork_stack::ForkStack;
use super::isolate::{self, SetAside, Tag};
use super::job::{Job, JobRef, StackJob, TaggedJob};
use super::latch::{CoreLatch, CrossLatch, LatchRef, LockLatch};
use super::sleep::{Sleep, MAX_WORKERS};
use super::slots::Slots;
use super::stats::{PoolStats, WorkerStats};
use super::thread_builder::{Arrival, DefaultSpawn, ThreadBuilder, ThreadSpawn};
use super::thread_pool::{PanicHandler, ThreadPoolBuildError, ThreadPoolBuilder};
use super::trace::{self, JobKind, PoolTrace, Recording};
use super::unwind::{self, PanicPayload};
use super::worker::WorkerThread;
use crate::sync::atomic::{AtomicUsize, Ordering};

type ThreadHandler = dyn Fn(usize) + Send + Sync;

/// The shared state of one pool.
pub(crate) struct Registry {
    /// One entry per worker index ever used; it outlives the threads that use it (a retired
    /// worker's entry waits, empty, for the next worker of its index: see `resize`).
    slots: Slots<ThreadInfo>,
    /// The pool's size: workers `0..num_threads` are its members. Written under `resize`;
    /// read without it as the answer to `current_num_threads` and as a hint.
    num_threads: AtomicUsize,
    /// One more than the highest index whose thread has not exited (members, and retiring
    /// workers still finishing their work): the victims a search looks at. Written under
    /// `resize`, before a new worker starts.
    occupied_end: AtomicUsize,
    /// Resizing: who owns which slot. Taken by `set_num_threads`, a worker retiring, a
    /// broadcast queueing its jobs and `terminate`; never held while user code runs.
    resize: Mutex<ResizeState>,
    /// The stack size for threads a resize starts; `None` if the pool cannot start threads
    /// after `build` (a `spawn_handler` started its workers, and the pool does not keep it).
    grow_stack_size: Option<Option<usize>>,
    pub(crate) sleep: Sleep,
    injector: Injector<TaggedJob>,
    /// Jobs a worker in an isolated context took but could not run (`isolate.rs`).
    set_aside: SetAside,
    /// Starts at 1 for the `ThreadPool` handle; each detached spawn holds one more. The
    /// workers exit when it reaches zero.
    terminate_count: AtomicUsize,
    panic_handler: Option<Box<PanicHandler>>,
    start_handler: Option<Box<ThreadHandler>>,
    exit_handler: Option<Box<ThreadHandler>>,
    /// `ThreadPoolBuilder::huge_pages`, given to each worker thread (`crate::huge_pages`).
    huge_pages: Option<bool>,
    /// The threads `DefaultSpawn` started, joined by `join_all_threads`.
    handles: Mutex<Vec<thread::JoinHandle<()>>>,
    /// Workers whose `ThreadBuilder` exists or whose loop still runs (see `LiveWorker`): what
    /// `join_all_threads` waits for when a spawn handler started the threads.
    live_workers: Mutex<usize>,
    /// Signalled when `live_workers` drops to zero.
    no_live_workers: Condvar,
    /// The recording, if this pool records (`pool/trace`).
    trace: Option<PoolTrace>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("num_threads", &self.num_threads())
            .finish_non_exhaustive()
    }
}

/// What `Registry::resize` guards.
struct ResizeState {
    /// Per slot index: whether a thread owns it.
    occupants: Vec<Occupant>,
    /// The pool has terminated: no worker stays, none starts.
    terminated: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Occupant {
    /// No thread: the slot's deque is parked in it.
    Vacant,
    /// A thread runs (or will run) this worker's loop.
    Running,
    /// The thread decided to retire and handed off its work; it parks its deque next.
    Exiting,
}

/// What a worker whose stop latch is set does next (`Registry::retire_check`).
pub(crate) enum Retire {
    /// Stay: the pool grew back before it could retire (its latch is reset).
    Stay,
    /// Run the broadcast jobs queued for it first, then ask again.
    RunTargeted,
    /// Leave the loop: its work is handed off (or the pool has terminated).
    Exit,
}

struct ThreadInfo {
    stealer: Stealer<TaggedJob>,
    /// The slot's deque while no thread owns it (`Occupant::Vacant`); a worker takes it
    /// when it starts and parks it back when it retires, so that `stealer` stays its own.
    parked: Mutex<Option<Worker<TaggedJob>>>,
    /// The worker's forks (`fork_stack.rs`): the worker pushes and pops, others steal.
    forks: Arc<ForkStack>,
    /// Jobs that only this worker may run (broadcast).
    targeted: Injector<TaggedJob>,
    /// Jobs `spawn_fifo`ed by this worker, oldest first; see `FifoQueue`.
    fifo: FifoQueue,
    /// Set when the pool terminates or this worker must retire; the worker's main loop
    /// waits on it. Set and reset only under the registry's `resize` lock.
    stop: CoreLatch,
    /// Counters written only by this worker (which holds the other `Arc`, so that counting
    /// an event is one add through its own field, not a walk through the registry).
    stats: Arc<WorkerStats>,
}

impl ThreadInfo {
    fn new() -> Self {
        let deque = Worker::new_lifo();
        ThreadInfo {
            stealer: deque.stealer(),
            parked: Mutex::new(Some(deque)),
            forks: Arc::new(ForkStack::new()),
            targeted: Injector::new(),
            fifo: FifoQueue(Injector::new()),
            stop: CoreLatch::new(),
            stats: Arc::default(),
        }
    }
}

/// A worker's FIFO spawns. For each job pushed here, the worker pushes one "take the oldest
/// FIFO job" entry (a `JobRef` to this queue) on its LIFO deque: whoever runs an entry runs
/// the queue's oldest job, so FIFO spawns of one thread start in spawn order. Entries are
/// tagged `Tag::ANY`: the job an entry leads to is checked against the isolation context of
/// whoever runs the entry, and set aside if that context does not admit it.
struct FifoQueue(Injector<TaggedJob>);

impl Job for FifoQueue {
    unsafe fn execute(this: *const ()) {
        // SAFETY: the queue lives in a registry; the entry is executed by one of that
        // registry's workers, which holds an `Arc` to it.
        let queue = unsafe { &*this.cast::<FifoQueue>() };
        // Entries sit in deques, so a worker runs them.
        WorkerThread::with_current(|worker| {
            let worker = worker.expect("a FIFO entry runs on a worker");
            loop {
                match queue.0.steal() {
                    // SAFETY: a job in the queue is live until executed, and we took it.
                    Steal::Success(job) => return unsafe { worker.run_or_set_aside(job) },
                    Steal::Retry => {}
                    Steal::Empty => unreachable!("weft: a FIFO entry without its job"),
                }
            }
        })
    }
}

static GLOBAL_REGISTRY: OnceLock<Arc<Registry>> = OnceLock::new();
static GLOBAL_INIT: Mutex<()> = Mutex::new(());

/// The global pool, created on first use with the default configuration.
pub(crate) fn global_registry() -> &'static Arc<Registry> {
    if let Some(registry) = GLOBAL_REGISTRY.get() {
        return registry;
    }
    global_registry_cold()
}

/// First use: build the default pool, unless another thread (first use elsewhere, or
/// `build_global`) got there while we waited for the lock.
#[cold]
fn global_registry_cold() -> &'static Arc<Registry> {
    let _init = GLOBAL_INIT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(registry) = GLOBAL_REGISTRY.get() {
        return registry;
    }
    let registry = Registry::new(ThreadPoolBuilder::new())
        .unwrap_or_else(|err| panic!("weft: the global thread pool could not be built: {err}"));
    // The global pool lives for the whole process: its termination count never drops.
    GLOBAL_REGISTRY.get_or_init(|| registry)
}

/// Builds the global pool from `builder`; an error if it already exists.
pub(crate) fn init_global_registry<S: ThreadSpawn>(
    builder: ThreadPoolBuilder<S>,
) -> Result<(), ThreadPoolBuildError> {
    let _init = GLOBAL_INIT.lock().unwrap_or_else(|e| e.into_inner());
    if GLOBAL_REGISTRY.get().is_some() {
        return Err(ThreadPoolBuildError::global_pool_already_initialized());
    }
    let huge_pages = builder.huge_pages_setting();
    let registry = Registry::new(builder)?;
    crate::huge_pages::set_global_pool_setting(huge_pages);
    // The global pool lives for the whole process: its termination count never drops.
    GLOBAL_REGISTRY
        .set(registry)
        .expect("guarded by GLOBAL_INIT");
    Ok(())
}

/// Runs `op` on a worker: directly if this thread is one (of any pool), else on the global
/// pool, blocking. `op` learns whether it was injected from outside.
#[inline]
pub(crate) fn in_worker<OP, R>(op: OP) -> R
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    WorkerThread::with_current(|worker| match worker {
        Some(worker) => op(worker, false),
        None => run_erased(op, |op| global_registry().in_worker_cold(op)),
    })
}

/// An operation handed to another thread, seen through one type (see [`run_erased`]).
type ErasedOp<'a> = &'a mut (dyn FnMut(&WorkerThread, bool) + Send);

/// Runs `op` through `cold` as an [`ErasedOp`] (called once), and returns its result: the
/// cold paths that inject an operation and wait for it are compiled once, not once per
/// closure type (every `join` and every start of a loop's range instantiated them). A panic
/// in `op` unwinds out of `cold` as it would out of a call of `op`.
#[inline(always)]
fn run_erased<OP, R>(op: OP, cold: impl FnOnce(ErasedOp<'_>)) -> R
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    let mut op = Some(op);
    let mut result = None;
    cold(&mut |worker: &WorkerThread, injected: bool| {
        let op = op.take().expect("an erased operation runs once");
        result = Some(op(worker, injected));
    });
    result.expect("the cold path ran the operation or resumed its panic")
}

impl Registry {
    pub(crate) fn new<S: ThreadSpawn>(
        mut builder: ThreadPoolBuilder<S>,
    ) -> Result<Arc<Registry>, ThreadPoolBuildError> {
        let num_threads = builder.resolved_num_threads();
        // Before any worker can push a fork: the workers must see the final fence mode.
        fence::init();
        let adopt_current_thread = builder.uses_current_thread();
        if adopt_current_thread && WorkerThread::with_current(|worker| worker.is_some()) {
            return Err(ThreadPoolBuildError::current_thread_already_in_pool());
        }
        let registry = Arc::new(Registry {
            slots: Slots::new(num_threads, |_| ThreadInfo::new()),
            num_threads: AtomicUsize::new(num_threads),
            occupied_end: AtomicUsize::new(num_threads),
            resize: Mutex::new(ResizeState {
                occupants: vec![Occupant::Running; num_threads],
                terminated: false,
            }),
            grow_stack_size: builder
                .spawn_handler_mut()
                .is_default_spawn()
                .then(|| builder.get_stack_size()),
            sleep: Sleep::new(num_threads),
            injector: Injector::new(),
            set_aside: SetAside::new(),
            terminate_count: AtomicUsize::new(1),
            panic_handler: builder.take_panic_handler(),
            start_handler: builder.take_start_handler(),
            exit_handler: builder.take_exit_handler(),
            huge_pages: builder.huge_pages_setting(),
            handles: Mutex::new(Vec::with_capacity(num_threads)),
            live_workers: Mutex::new(0),
            no_live_workers: Condvar::new(),
            trace: builder
                .trace_config()
                .map(|config| PoolTrace::new(num_threads, config)),
        });
        if registry
            .trace
            .as_ref()
            .is_some_and(PoolTrace::writes_output)
        {
            trace::write_at_exit(&registry);
        }
        // `use_current_thread`: worker 0 is this thread, installed once all others started.
        let first_spawned = usize::from(adopt_current_thread);
        // On an error, or a panic in the spawn handler, the started workers must exit.
        let terminate_on_unwind = TerminateOnDrop(&registry);
        let started = (first_spawned..num_threads).try_for_each(|index| {
            let thread = ThreadBuilder::new(
                &registry,
                index,
                builder.thread_name_for(index),
                builder.get_stack_size(),
            );
            builder.spawn_handler_mut().spawn(thread)
        });
        if let Err(err) = started {
            drop(terminate_on_unwind);
            // The threads a spawn handler started are not waited for (the handler may run its
            // `ThreadBuilder`s later, as Rayon allows): they see the pool terminated and exit.
            registry.join_spawned_threads();
            return Err(err);
        }
        if adopt_current_thread {
            crate::huge_pages::enter_worker_thread(registry.huge_pages);
            let deque = registry.take_parked_deque(0);
            WorkerThread::new(deque, 0, Arc::clone(&registry)).adopt_current_thread();
        }
        terminate_on_unwind.disarm();
        Ok(registry)
    }

    /// Keeps the handle of a thread `DefaultSpawn` started, for `join_all_threads`.
    pub(crate) fn keep_handle(&self, handle: thread::JoinHandle<()>) {
        self.handles
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(handle);
    }

    /// A `ThreadBuilder` was created: one more worker to wait for.
    pub(crate) fn worker_created(&self) {
        *self.live_workers.lock().unwrap_or_else(|e| e.into_inner()) += 1;
    }

    /// A worker left its loop, or its `ThreadBuilder` was dropped without running.
    pub(crate) fn worker_gone(&self) {
        let mut live = self.live_workers.lock().unwrap_or_else(|e| e.into_inner());
        *live -= 1;
        if *live == 0 {
            self.no_live_workers.notify_all();
        }
    }

    /// The counters of worker `index`; only that worker may add to them.
    pub(crate) fn worker_stats(&self, index: usize) -> Arc<WorkerStats> {
        Arc::clone(&self.slot(index).stats)
    }

    /// The pool's counters, summed over every worker it has had.
    pub(crate) fn stats(&self) -> PoolStats {
        let mut total = PoolStats::default();
        for info in self.slots.iter() {
            info.stats.add_to(&mut total);
        }
        total
    }

    #[inline]
    fn slot(&self, index: usize) -> &ThreadInfo {
        self.slots.get(index)
    }

    /// The pool's size (see `num_threads`): the new size as soon as `set_num_threads` took it.
    #[inline]
    pub(crate) fn num_threads(&self) -> usize {
        // ORDERING: a value, not a publication: a worker acts on a resize only under the
        // resize lock (`retire_check`), and the slots it indexes exist before this is raised.
        self.num_threads.load(Ordering::Relaxed)
    }

    /// The indices a search looks at (see `occupied_end`).
    #[inline]
    pub(crate) fn victims(&self) -> usize {
        // ORDERING: pairs with the Release in `set_occupied_end`: the slots below are
        // allocated. A stale value is harmless: a new worker's published jobs announce
        // themselves through the sleep counters, and its forks are pushed after the store
        // (the thread starts after it), so the heavy fence of a sleeper's last look sees it.
        self.occupied_end.load(Ordering::Acquire)
    }

    /// Takes slot `index`'s parked deque, for the thread that starts to own the slot.
    pub(crate) fn take_parked_deque(&self, index: usize) -> Worker<TaggedJob> {
        lock(&self.slot(index).parked)
            .take()
            .expect("weft: two threads started for one worker slot")
    }

    /// The latch worker `index`'s main loop waits on (see `ThreadInfo::stop`).
    pub(crate) fn stop_latch(&self, index: usize) -> &CoreLatch {
        &self.slot(index).stop
    }

    /// `ThreadPool::set_num_threads`: see its documentation for what callers see, and
    /// `pool/README.md` (*Resizing*) for the protocol.
    pub(crate) fn set_num_threads(self: &Arc<Self>, n: usize) -> Result<(), ThreadPoolBuildError> {
        assert!(
            n > 0,
            "weft: set_num_threads(0): a pool needs at least one thread"
        );
        let n = n.min(MAX_WORKERS);
        let mut state = lock(&self.resize);
        assert!(
            !state.terminated,
            "weft: set_num_threads on a pool that has terminated"
        );
        let old = self.num_threads();
        if n <= old {
            self.shrink_locked(&mut state, n);
            return Ok(());
        }
        // Room first, then the new size, then the threads: a thread of the new size finds
        // its slot, and wakers and thieves reach it (`Sleep::grow`, `victims`).
        self.slots.ensure(n, |_| ThreadInfo::new());
        self.sleep.grow(n);
        if state.occupants.len() < n {
            state.occupants.resize(n, Occupant::Vacant);
        }
        self.set_occupied_end(&state, n);
        // ORDERING: see `num_threads`.
        self.num_threads.store(n, Ordering::Relaxed);
        for index in old..n {
            // A thread that still owns the slot (asked to retire, or exiting) sees the new
            // size under this lock and stays (`retire_check`, `vacate`).
            if state.occupants[index] != Occupant::Vacant {
                continue;
            }
            if let Err(err) = self.start_worker(index) {
                // The pool is what it could reach: workers `0..index`.
                self.shrink_locked(&mut state, index);
                return Err(err);
            }
            state.occupants[index] = Occupant::Running;
        }
        Ok(())
    }

    /// Makes the size `n` and asks every thread of an index from `n` up to retire.
    fn shrink_locked(&self, state: &mut ResizeState, n: usize) {
        // ORDERING: see `num_threads`.
        self.num_threads.store(n, Ordering::Relaxed);
        for index in n..state.occupants.len() {
            if state.occupants[index] != Occupant::Vacant {
                self.set_stop_latch(index);
            }
        }
        self.set_occupied_end(state, n);
    }

    /// Sets worker `index`'s stop latch (under the resize lock) and wakes it if it sleeps.
    fn set_stop_latch(&self, index: usize) {
        // SAFETY: the latch lives in the registry, which outlives this call.
        if unsafe { CoreLatch::set(&self.slot(index).stop) } {
            self.sleep.notify_worker_latch_is_set(index);
        }
    }

    /// Recomputes `occupied_end` (under the resize lock): at least `floor`, the slots a
    /// resize is about to start.
    fn set_occupied_end(&self, state: &ResizeState, floor: usize) {
        let occupied = (state.occupants.iter())
            .rposition(|&occupant| occupant != Occupant::Vacant)
            .map_or(0, |index| index + 1);
        // ORDERING: Release, paired with the Acquire in `victims`.
        self.occupied_end
            .store(occupied.max(floor), Ordering::Release);
    }

    /// Starts a thread for slot `index` (under the resize lock), as `DefaultSpawn` does.
    fn start_worker(self: &Arc<Self>, index: usize) -> Result<(), ThreadPoolBuildError> {
        let stack_size = self
            .grow_stack_size
            .ok_or_else(ThreadPoolBuildError::cannot_grow)?;
        // Threads that retired earlier: forget their handles (join the finished ones).
        {
            let mut handles = lock(&self.handles);
            let (finished, running) = std::mem::take(&mut *handles)
                .into_iter()
                .partition::<Vec<_>, _>(|handle| handle.is_finished());
            *handles = running;
            drop(handles);
            for handle in finished {
                let _ = handle.join();
            }
        }
        // The builder's `thread_name` closure is not `Send`, so the pool cannot keep it:
        // threads started by a resize are unnamed.
        DefaultSpawn.spawn(ThreadBuilder::new(self, index, None, stack_size))
    }

    /// Worker `worker`, whose stop latch is set, back in its main loop between jobs: may it
    /// leave? If it must retire, its queued jobs go to the injector here, under the lock,
    /// so that each runs once, elsewhere.
    pub(crate) fn retire_check(&self, worker: &WorkerThread) -> Retire {
        let mut state = lock(&self.resize);
        if state.terminated {
            return Retire::Exit;
        }
        let index = worker.index();
        let slot = self.slot(index);
        if index < self.num_threads() {
            // Every setter of the latch holds the lock, and its owner is not waiting on it.
            slot.stop.reset();
            return Retire::Stay;
        }
        // A broadcast queued before the shrink counted this worker: it runs its part first.
        // No later broadcast counts it (`FixedSize`), so this ends.
        if !slot.targeted.is_empty() {
            return Retire::RunTargeted;
        }
        // Its fork stack is empty: forks live only while the frame that pushed them does,
        // and the main loop has no frame of a job below it.
        debug_assert!(!slot.forks.looks_nonempty());
        self.hand_off_queued_jobs(slot);
        self.sleep.searcher_retired();
        state.occupants[index] = Occupant::Exiting;
        Retire::Exit
    }

    /// Moves every job of `slot`'s deque to the injector, oldest first (the deque's owner
    /// is the caller, so no job is added meanwhile; thieves may take some first).
    fn hand_off_queued_jobs(&self, slot: &ThreadInfo) {
        let mut moved = 0;
        loop {
            match slot.stealer.steal() {
                Steal::Success(job) => {
                    self.injector.push(job);
                    moved += 1;
                }
                Steal::Empty => break,
                Steal::Retry => {}
            }
        }
        if moved > 0 {
            self.sleep.new_jobs(moved);
        }
    }

    /// A worker that left its main loop gives its deque back. Returns the deque if the pool
    /// has grown back over its index meanwhile, or if a broadcast queued a job for it while
    /// it had (a grow, a broadcast and a shrink since `retire_check`): then it stays and
    /// runs its loop again (with its stop latch still set in the second case, so that it
    /// runs those jobs and retires again).
    fn vacate(&self, index: usize, deque: Worker<TaggedJob>) -> Option<Worker<TaggedJob>> {
        let mut state = lock(&self.resize);
        let slot = self.slot(index);
        if !state.terminated {
            if index < self.num_threads() {
                slot.stop.reset();
                state.occupants[index] = Occupant::Running;
                return Some(deque);
            }
            if !slot.targeted.is_empty() {
                // The shrink after that grow set the latch again (`shrink_locked`).
                debug_assert!(slot.stop.probe());
                state.occupants[index] = Occupant::Running;
                return Some(deque);
            }
        }
        // Jobs the exit handler queued here (a `spawn` on the worker) must not wait for
        // the next thread of this slot.
        self.hand_off_queued_jobs(slot);
        *lock(&slot.parked) = Some(deque);
        state.occupants[index] = Occupant::Vacant;
        let floor = self.num_threads().min(state.occupants.len());
        self.set_occupied_end(&state, floor);
        None
    }

    /// Holds the pool's size fixed while a broadcast queues one job per worker.
    pub(crate) fn fixed_size(&self) -> FixedSize<'_> {
        let state = lock(&self.resize);
        FixedSize {
            registry: self,
            num_threads: self.num_threads(),
            _state: state,
        }
    }

    /// Worker `index`'s trace writer, if the pool records (taken once, by that worker).
    pub(crate) fn trace_writer(&self, index: usize) -> Option<trace::TraceWriter> {
        self.trace.as_ref()?.writer_for(index)
    }

    /// What the workers recorded since the previous call; `None` if the pool does not record.
    pub(crate) fn take_trace(&self) -> Option<Recording> {
        Some(self.trace.as_ref()?.take(|| self.stats()))
    }

    /// `WEFT_TRACE`: writes the recording's files, once (at the pool's end or process exit).
    pub(crate) fn write_trace_output(&self) {
        if let Some(trace) = &self.trace {
            let global = GLOBAL_REGISTRY
                .get()
                .is_some_and(|global| ptr_eq(global, self));
            trace.write_output(|| self.stats(), global);
        }
    }

    pub(crate) fn steal_from(&self, victim: usize) -> Steal<TaggedJob> {
        self.slot(victim).stealer.steal()
    }

    /// Worker `index`'s fork stack, for that worker.
    pub(crate) fn fork_stack(&self, index: usize) -> Arc<ForkStack> {
        Arc::clone(&self.slot(index).forks)
    }

    /// The oldest fork of worker `victim` that its owner did not publish (the fork stack's
    /// heavy side: see `fork_stack.rs`).
    pub(crate) fn steal_fork_from(&self, victim: usize, context: Tag) -> Option<TaggedJob> {
        self.slot(victim).forks.steal(|tag| context.admits(tag))
    }

    /// The oldest injected job that `context` admits; the ones before it are set aside.
    pub(crate) fn steal_injected(&self, context: Tag) -> Option<TaggedJob> {
        loop {
            match self.injector.steal() {
                Steal::Success(job) if context.admits(job.tag) => return Some(job),
                Steal::Success(job) => self.set_aside(job),
                Steal::Empty => return None,
                Steal::Retry => {}
            }
        }
    }

    /// A job set aside by an isolated worker that `context` admits.
    #[inline]
    pub(crate) fn take_set_aside(&self, context: Tag) -> Option<TaggedJob> {
        self.set_aside.take(context)
    }

    /// `job` was taken by a worker whose context does not admit it: keep it where any worker
    /// that may run it finds it, and wake one such worker if all of them sleep
    /// (*set-aside-while-eligible-worker-sleeps* in `isolate.rs`).
    #[cold]
    pub(crate) fn set_aside(&self, job: TaggedJob) {
        let tag = job.tag;
        self.set_aside.push(job);
        self.sleep.new_job_for(|bits| tag.admitted_by_bits(bits));
    }

    /// Broadcast jobs: only worker `index` may run them, so every context admits them.
    pub(crate) fn take_targeted_job(&self, index: usize) -> Option<TaggedJob> {
        loop {
            match self.slot(index).targeted.steal() {
                Steal::Success(job) => return Some(job),
                Steal::Empty => return None,
                Steal::Retry => {}
            }
        }
    }

    /// Work some search by worker `index` in `context` could find right now (the last look
    /// before a worker parks). Queued jobs count whatever their tag: the search would take
    /// them, to run or to set aside.
    pub(crate) fn has_visible_work(&self, index: usize, context: Tag) -> bool {
        let victims = self.victims();
        !self.injector.is_empty()
            || !self.slot(index).targeted.is_empty()
            || self.set_aside.has_job_for(context)
            || (0..victims).any(|victim| !self.slot(victim).stealer.is_empty())
            || (0..victims).any(|other| other != index && self.slot(other).forks.looks_nonempty())
    }

    /// Queues a job from outside the pool (or for any worker) and wakes a worker for it.
    pub(crate) fn inject(&self, job: TaggedJob) {
        self.injector.push(job);
        self.sleep.new_jobs(1);
    }

    /// Pushes `job` on the current worker's deque if it belongs to this pool, else injects.
    pub(crate) fn push_or_inject(&self, job: TaggedJob) {
        self.with_current_worker(|worker| match worker {
            Some(worker) => worker.push(job),
            None => self.inject(job),
        })
    }

    /// Like `push_or_inject`, keeping FIFO order among the current worker's FIFO spawns.
    pub(crate) fn push_fifo_or_inject(&self, job: TaggedJob) {
        self.with_current_worker(|worker| match worker {
            Some(worker) => {
                let queue = &self.slot(worker.index()).fifo;
                queue.0.push(job);
                // SAFETY: the queue lives as long as the registry, which outlives every
                // worker that could execute the entry; each entry matches one pushed job.
                let entry = unsafe { JobRef::new(queue) }.with_kind(job.job.kind());
                worker.push(TaggedJob::new(entry, Tag::ANY));
            }
            None => self.inject(job),
        })
    }

    pub(crate) fn notify_worker_latch_is_set(&self, index: usize) {
        self.sleep.notify_worker_latch_is_set(index);
    }

    /// Calls `f` with the current thread's worker if it belongs to this registry, else `None`.
    #[inline]
    pub(crate) fn with_current_worker<R>(&self, f: impl FnOnce(Option<&WorkerThread>) -> R) -> R {
        WorkerThread::with_current(|worker| {
            f(worker.filter(|worker| ptr_eq(worker.registry(), self)))
        })
    }

    /// Runs `op` on a worker of this pool and returns its result.
    pub(crate) fn in_worker<OP, R>(self: &Arc<Self>, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread, bool) -> R + Send,
        R: Send,
    {
        WorkerThread::with_current(|worker| match worker {
            Some(worker) if ptr_eq(worker.registry(), self) => op(worker, false),
            elsewhere => run_erased(op, |op| match elsewhere {
                None => self.in_worker_cold(op),
                Some(worker) => self.in_worker_cross(worker, op),
            }),
        })
    }

    /// From a thread outside every pool: inject `op` and block until it is done.
    #[cold]
    fn in_worker_cold(&self, op: ErasedOp<'_>) {
        thread_local!(static LOCK_LATCH: LockLatch = LockLatch::new());
        LOCK_LATCH.with(|latch| {
            let job = StackJob::new(
                |injected| {
                    assert!(injected);
                    WorkerThread::with_current(|worker| {
                        op(worker.expect("an injected job runs on a worker"), true)
                    })
                },
                LatchRef(latch),
            );
            // SAFETY: `job` stays on this stack until its latch is set, which we wait for.
            let job_ref = unsafe { job.as_job_ref() }.with_kind(JobKind::Install);
            self.inject(TaggedJob::new(job_ref, isolate::external_tag()));
            latch.wait_and_reset();
            job.into_result()
        })
    }

    /// From a worker of another pool: inject `op` here and keep that worker busy with its own
    /// pool's jobs until `op` is done (blocking it could deadlock its own pool).
    #[cold]
    fn in_worker_cross(self: &Arc<Self>, current: &WorkerThread, op: ErasedOp<'_>) {
        // `op` belongs to the waiter's `cancellable` region, if any, which outlives the wait.
        let region = RegionPtr(current.region());
        let job = StackJob::new(
            move |injected| {
                assert!(injected);
                let region = region;
                WorkerThread::with_current(|worker| {
                    let worker = worker.expect("an injected job runs on a worker");
                    worker.in_region(region.0, || op(worker, true))
                })
            },
            CrossLatch::new(current),
        );
        // SAFETY: `job` stays on this stack until its latch is set, which we wait for.
        let job_ref = unsafe { job.as_job_ref() }.with_kind(JobKind::Install);
        // The job runs in the waiter's isolation context, in the other pool.
        self.inject(TaggedJob::new(job_ref, current.context_tag()));
        current.wait_until(&job.latch);
        job.into_result()
    }

    /// A detached job starts: the pool must not terminate before it ends.
    pub(crate) fn increment_terminate_count(&self) {
        // ORDERING: the caller holds a count (the pool handle, or the job spawning this one),
        // so the count cannot reach zero concurrently; nothing else is published through it.
        let old = self.terminate_count.fetch_add(1, Ordering::Relaxed);
        assert!(old != 0, "weft: spawn on a pool that has terminated");
    }

    /// Drops one termination count; at zero, every worker is told to exit.
    pub(crate) fn terminate(&self) {
        // ORDERING: AcqRel so that the last decrement sees all work done before the others.
        if self.terminate_count.fetch_sub(1, Ordering::AcqRel) == 1 {
            let mut state = lock(&self.resize);
            state.terminated = true;
            for index in 0..state.occupants.len() {
                self.set_stop_latch(index);
            }
        }
    }

    /// Waits until every worker of this pool has left its loop and, for the threads
    /// `DefaultSpawn` started, until the thread itself has exited. (A worker adopted by
    /// `use_current_thread` is not waited for: it never runs a loop.)
    pub(crate) fn join_all_threads(&self) {
        self.join_spawned_threads();
        let mut live = self.live_workers.lock().unwrap_or_else(|e| e.into_inner());
        while *live > 0 {
            live = self
                .no_live_workers
                .wait(live)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Joins the threads `DefaultSpawn` started.
    fn join_spawned_threads(&self) {
        let handles = std::mem::take(&mut *self.handles.lock().unwrap_or_else(|e| e.into_inner()));
        for handle in handles {
            // A worker never unwinds (jobs catch their panics), so this is Ok in practice.
            let _ = handle.join();
        }
    }

    /// Whether the builder set a panic handler.
    pub(crate) fn has_panic_handler(&self) -> bool {
        self.panic_handler.is_some()
    }

    /// Reports a panic from a detached task: to the panic handler, or abort (as Rayon does).
    pub(crate) fn handle_panic(&self, payload: PanicPayload) {
        match &self.panic_handler {
            Some(handler) => {
                let abort = unwind::AbortIfPanic;
                handler(payload);
                std::mem::forget(abort);
            }
            None => {
                drop(payload);
                eprintln!("weft: a spawned task panicked and no panic_handler is set; aborting");
                std::process::abort();
            }
        }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        // Every worker has exited: the recording is complete.
        self.write_trace_output();
    }
}

/// One job per worker queued while the pool's size is held fixed: a broadcast counts
/// exactly the workers `0..num_threads`, none of which retires before it has run its job
/// (`Registry::retire_check`).
pub(crate) struct FixedSize<'a> {
    registry: &'a Registry,
    num_threads: usize,
    _state: MutexGuard<'a, ResizeState>,
}

impl FixedSize<'_> {
    /// The pool's size while this is held.
    pub(crate) fn num_threads(&self) -> usize {
        self.num_threads
    }

    /// Queues one job for each worker (`jobs[i]` runs on worker `i`), and lets the size go.
    pub(crate) fn inject_targeted(self, jobs: impl IntoIterator<Item = TaggedJob>) {
        let registry = self.registry;
        for (index, job) in (0..self.num_threads).zip(jobs) {
            registry.slot(index).targeted.push(job);
        }
        drop(self);
        registry.sleep.new_jobs_for_all();
    }
}

/// Locks `mutex`, ignoring poisoning (nothing under these locks runs user code).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// True if `arc` points to `registry`.
fn ptr_eq(arc: &Arc<Registry>, registry: &Registry) -> bool {
    std::ptr::eq(Arc::as_ptr(arc), registry)
}

/// Terminates the registry when dropped, unless disarmed: a failure or a panic while starting
/// the workers must still let the started ones exit.
struct TerminateOnDrop<'a>(&'a Registry);

impl TerminateOnDrop<'_> {
    fn disarm(self) {
        std::mem::forget(self);
    }
}

impl Drop for TerminateOnDrop<'_> {
    fn drop(&mut self) {
        self.0.terminate();
    }
}

/// The body of a worker thread (see `ThreadBuilder::run`). `arrival` (a thread started by
/// `DefaultSpawn`) counts the worker as idle until it starts looking for work itself.
///
/// The loop ends when the pool terminates or the worker retires (a shrink); a worker whose
/// pool grew back over its index before it gave its slot back runs its loop again, with its
/// start and exit handlers called again.
pub(crate) fn main_loop(registry: Arc<Registry>, index: usize, mut arrival: Option<Arrival>) {
    let mut deque = registry.take_parked_deque(index);
    crate::huge_pages::enter_worker_thread(registry.huge_pages);
    loop {
        let worker = WorkerThread::new(deque, index, Arc::clone(&registry));
        worker.run_as_current(|| {
            if let Some(handler) = &registry.start_handler {
                if let Err(payload) = unwind::halt_unwinding(|| handler(index)) {
                    registry.handle_panic(payload);
                }
            }
            drop(arrival.take());
            worker.run_until_retired();
            if let Some(handler) = &registry.exit_handler {
                if let Err(payload) = unwind::halt_unwinding(|| handler(index)) {
                    registry.handle_panic(payload);
                }
            }
        });
        match registry.vacate(index, worker.into_deque()) {
            Some(kept) => deque = kept,
            None => break,
        }
    }
    crate::huge_pages::leave_worker_thread();
}
