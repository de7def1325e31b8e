//! The randomized differential test (#54): random chains of a source, one to four adapters
//! and a terminal, run by weft on pools of 1, 2, 3 and 8 threads and compared with std's
//! sequential result.
//!
//! - `spec.rs`: a chain as data, how random chains are drawn, and the sequential oracle.
//! - `erase.rs`: the type erasure that lets a chain drawn at run time be built from adapters
//!   compiled once each.
//! - `run.rs`: the chain built with weft, its terminal, and the checks.
//! - `pending.rs`: the families for the defects of #54 parts 1-3 (`par_bridge` over feedback
//!   iterators, `deterministic()` chains, scans with counted `op` calls).
//!
//! Its own test binary: the erasure keeps it to one instantiation per adapter, and apart
//! from `tests/iter/` (the longest build of `cargo test --release`) it builds in parallel.
//!
//! Environment variables:
//! - `WEFT_DIFF_SEED=<seed>`: run that seed (as printed by a failure) instead of the
//!   clock's, in `fresh_seed`;
//! - `WEFT_DIFF_CHAINS=<n>`: chains per seed (default [`CHAINS_PER_SEED`]);
//! - `WEFT_DIFF_FROM=<i>`: start at chain `i` of the seed (to re-run one failing chain:
//!   `WEFT_DIFF_SEED=s WEFT_DIFF_FROM=i WEFT_DIFF_CHAINS=1`).

#[path = "../common/mod.rs"]
mod common;

mod defects;
mod erase;
mod pending;
mod run;
mod spec;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rand::SeedableRng;

use spec::{Chain, OP_KINDS, TERMINAL_KINDS};

/// The seeds every run checks.
pub(crate) const FIXED_SEEDS: [u64; 4] = [0x5EED_0001, 0x5EED_0002, 0x5EED_0003, 0x5EED_0004];

/// Chains per seed, unless `WEFT_DIFF_CHAINS` says otherwise.
const CHAINS_PER_SEED: usize = 400;

/// A chain that runs longer than this on one pool is taken to hang.
const HANG_LIMIT: Duration = Duration::from_secs(if cfg!(debug_assertions) { 600 } else { 120 });

/// Mismatches reported in full (the count covers all of them).
const SHOWN_MISMATCHES: usize = 5;

fn env_number(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    let value = value.trim();
    let parsed = match value.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => value.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={value} is not a number")))
}

/// The `i`-th chain of `seed`: each is drawn from a generator of its own, so that one chain
/// can be re-run alone.
fn chain(seed: u64, i: usize) -> Chain {
    let mut rng =
        rand::rngs::SmallRng::seed_from_u64(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    Chain::draw(&mut rng)
}

/// How often each adapter (at each position) and each terminal was drawn.
#[derive(Default)]
pub(crate) struct Coverage {
    ops: Vec<[usize; 4]>,
    terminals: Vec<usize>,
    lengths: std::collections::BTreeMap<usize, usize>,
}

impl Coverage {
    fn new() -> Self {
        Coverage {
            ops: vec![[0; 4]; OP_KINDS.len()],
            terminals: vec![0; TERMINAL_KINDS.len()],
            lengths: Default::default(),
        }
    }

    fn add(&mut self, chain: &Chain) {
        for (position, op) in chain.ops.iter().enumerate() {
            // Chains of the pending families may have a fifth step: counted as a fourth.
            self.ops[op.kind()][position.min(3)] += 1;
        }
        self.terminals[chain.terminal.kind()] += 1;
        if !chain.state.ordered {
            *self.terminals.last_mut().expect("kinds") += 1;
        }
        *self.lengths.entry(chain.source.len).or_default() += 1;
    }

    fn report(&self) -> String {
        let mut text = String::from("adapters drawn, by position in the chain (1st..4th):\n");
        for (kind, counts) in OP_KINDS.iter().zip(&self.ops) {
            text += &format!("  {kind:<22} {counts:?}\n");
        }
        text += "terminals drawn:\n";
        for (kind, count) in TERMINAL_KINDS.iter().zip(&self.terminals) {
            text += &format!("  {kind:<28} {count}\n");
        }
        text += &format!("source lengths drawn: {:?}\n", self.lengths);
        text
    }
}

/// A family of chains: how the `i`-th chain of a seed is drawn, and the test that runs them
/// (for the re-run line of a failure).
#[derive(Clone, Copy)]
pub(crate) struct Family {
    pub(crate) draw: fn(u64, usize) -> Chain,
    pub(crate) test: &'static str,
    /// Stop at the first mismatch, unshrunk (where each failing run is slow: a deadlock
    /// that waits for a timeout, a quadratic scan).
    pub(crate) fail_fast: bool,
}

/// The main family: any chain.
const ANY_CHAIN: Family = Family {
    draw: chain,
    test: "fresh_seed",
    fail_fast: false,
};

/// Runs `count` chains of each seed of `seeds` on every pool (see [`run_seed`]).
pub(crate) fn run_chains(family: Family, seeds: &[u64], count: usize) -> Coverage {
    let mut coverage = Coverage::new();
    for &seed in seeds {
        run_seed(family, seed, 0, count, &mut coverage);
    }
    coverage
}

/// Runs chains `from..from + count` of `seed` on every pool; panics with every mismatch
/// found (the first few in full, shrunk), or if a chain hangs.
fn run_seed(family: Family, seed: u64, from: usize, count: usize, coverage: &mut Coverage) {
    // The chain being run, for the watchdog's message.
    let current = Arc::new(Mutex::new((String::new(), Instant::now())));
    let (done_tx, done_rx) = mpsc::channel();
    let worker = {
        let current = Arc::clone(&current);
        std::thread::spawn(move || {
            let mut mismatches = Vec::new();
            let mut drawn = Vec::new();
            for i in from..from + count {
                let chain = (family.draw)(seed, i);
                for (threads, pool) in common::pools() {
                    *current.lock().unwrap() = (
                        format!("chain {i} of seed {seed:#x} on {threads} threads:\n  {chain}"),
                        Instant::now(),
                    );
                    if let Err(what) = verdict(&chain, pool) {
                        let mut report = format!(
                            "chain {i} of seed {seed:#x}, {threads} threads:\n  {chain}\n  {what}\n  \
                             re-run: WEFT_DIFF_SEED={seed:#x} WEFT_DIFF_FROM={i} WEFT_DIFF_CHAINS=1 \
                             cargo test --release --test differential {} -- --nocapture \
                             --include-ignored",
                            family.test
                        );
                        if mismatches.len() < SHOWN_MISMATCHES && !family.fail_fast {
                            if let Some((small, what)) = shrink(&chain, pool, &current) {
                                report += &format!("\n  shrunk to:\n  {small}\n  {what}");
                            }
                        }
                        mismatches.push(report);
                        if family.fail_fast {
                            break;
                        }
                    }
                }
                drawn.push(chain);
                if family.fail_fast && !mismatches.is_empty() {
                    break;
                }
            }
            let _ = done_tx.send((mismatches, drawn));
        })
    };
    let (mismatches, drawn) = loop {
        match done_rx.recv_timeout(Duration::from_secs(1)) {
            Ok(outcome) => break outcome,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let panic = worker
                    .join()
                    .expect_err("the worker ended without an answer");
                panic!(
                    "the differential test itself panicked: {}",
                    panic_message(&*panic)
                );
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let (what, since) = &*current.lock().unwrap();
                if since.elapsed() > HANG_LIMIT {
                    panic!("no result after {HANG_LIMIT:?}, taken to hang: {what}");
                }
            }
        }
    };
    worker.join().expect("the worker answered");
    for chain in &drawn {
        coverage.add(chain);
    }
    if !mismatches.is_empty() {
        let shown: Vec<&str> = mismatches
            .iter()
            .take(SHOWN_MISMATCHES)
            .map(|m| &m[..])
            .collect();
        panic!(
            "{} mismatches between weft and std (seed {seed:#x}, chains {from}..{}):\n\n{}",
            mismatches.len(),
            from + count,
            shown.join("\n\n")
        );
    }
}

/// Runs `chain` on `pool` and checks the result: a panic is wrong but for a planted one
/// (`PanicAt`), which must come through with its payload.
fn verdict(chain: &Chain, pool: &weft::ThreadPool) -> Result<(), String> {
    quiet_planted_panics();
    // ORDERING: no run is under way; `install` publishes the store to its workers.
    chain.scan_calls.store(0, Ordering::Relaxed);
    let result = catch_unwind(AssertUnwindSafe(|| pool.install(|| run::run(chain))));
    // ORDERING: the calls were counted before `install` returned (it joins every worker).
    let calls = chain.scan_calls.load(Ordering::Relaxed);
    if chain.count_scans && calls > pending::counted_scans::bound(chain) {
        return Err(format!(
            "the scans called `op` {calls} times for {} items entering them",
            chain.scan_inputs
        ));
    }
    match result {
        Err(panic) if chain.panics && panic.is::<spec::Planted>() => Ok(()),
        Err(panic) => Err(format!("weft panicked: {}", panic_message(&*panic))),
        Ok(_) if chain.panics => Err("no panic, though an item meets its planted panic".into()),
        Ok(run) => run::check(chain, &run),
    }
}

/// Keeps the panics `PanicAt` plants out of the test's output (hundreds, on worker threads
/// the harness does not capture); every other panic goes to the hook it replaces.
fn quiet_planted_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.payload().is::<spec::Planted>() {
                previous(info);
            }
        }));
    });
}

/// The lengths a failing chain's source is shortened to, when shrinking.
const SHRINK_LENGTHS: [usize; 14] = [
    0, 1, 2, 3, 7, 16, 100, 129, 300, 1000, 3000, 10_000, 30_000, 65_536,
];

/// A smaller chain that still fails on `pool` (with its failure), if `chain` fails again:
/// greedily drops steps, shortens the source, and tries a plain `collect`. A candidate
/// counts as failing if one of three runs fails (some defects depend on timing).
fn shrink(
    chain: &Chain,
    pool: &weft::ThreadPool,
    current: &Mutex<(String, Instant)>,
) -> Option<(Chain, String)> {
    let fails = |candidate: &Chain| -> Option<String> {
        *current.lock().unwrap() = (format!("shrinking, at:\n  {candidate}"), Instant::now());
        (0..3).find_map(|_| verdict(candidate, pool).err())
    };
    let mut best = (chain.clone(), fails(chain)?);
    'smaller: loop {
        let (chain, _) = &best;
        let mut candidates = Vec::new();
        for k in 0..chain.ops.len() {
            let mut ops = chain.ops.clone();
            ops.remove(k);
            let fused = chain.fused - usize::from(k < chain.fused);
            candidates.push((chain.source.clone(), fused, ops, chain.terminal.clone()));
        }
        for len in SHRINK_LENGTHS
            .into_iter()
            .filter(|&len| len < chain.source.len)
        {
            let source = chain.source.shortened(len);
            candidates.push((
                source,
                chain.fused,
                chain.ops.clone(),
                chain.terminal.clone(),
            ));
        }
        if !matches!(
            chain.terminal,
            spec::Terminal::Collect | spec::Terminal::LooseCollect
        ) {
            let ops = chain.ops.clone();
            candidates.push((
                chain.source.clone(),
                chain.fused,
                ops,
                spec::Terminal::Collect,
            ));
        }
        for (source, fused, ops, terminal) in candidates {
            if let Some(candidate) = Chain::assemble(source, fused, ops, terminal) {
                if let Some(what) = fails(&candidate) {
                    best = (candidate, what);
                    continue 'smaller;
                }
            }
        }
        return Some(best);
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        text.to_string()
    } else if let Some(text) = panic.downcast_ref::<String>() {
        text.clone()
    } else {
        "(a panic without a message)".to_string()
    }
}

fn chains_per_seed() -> usize {
    env_number("WEFT_DIFF_CHAINS").map_or(CHAINS_PER_SEED, |n| n as usize)
}

/// The fixed seeds: the same chains on every run. Also checks that they draw every adapter
/// and every terminal several times.
#[test]
fn fixed_seeds() {
    let count = chains_per_seed();
    let coverage = run_chains(ANY_CHAIN, &FIXED_SEEDS, count);
    println!("{}", coverage.report());
    if count >= CHAINS_PER_SEED {
        let rare_op = OP_KINDS
            .iter()
            .zip(&coverage.ops)
            .find(|(_, counts)| counts.iter().sum::<usize>() < 5);
        assert!(rare_op.is_none(), "an adapter is rarely drawn: {rare_op:?}");
        let rare_terminal = TERMINAL_KINDS
            .iter()
            .zip(&coverage.terminals)
            .find(|(_, &count)| count < 5);
        assert!(
            rare_terminal.is_none(),
            "a terminal is rarely drawn: {rare_terminal:?}"
        );
    }
}

/// One fresh seed per run, from the clock (or `WEFT_DIFF_SEED`), printed on failure.
#[test]
fn fresh_seed() {
    let seed = env_number("WEFT_DIFF_SEED").unwrap_or_else(|| {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("after 1970");
        now.as_nanos() as u64
    });
    let from = env_number("WEFT_DIFF_FROM").unwrap_or(0) as usize;
    println!("differential test: seed {seed:#x} (WEFT_DIFF_SEED={seed:#x} re-runs it)");
    let mut coverage = Coverage::new();
    run_seed(ANY_CHAIN, seed, from, chains_per_seed(), &mut coverage);
}
