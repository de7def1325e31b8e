//! The families of the differential test for the defects of #54 parts 1-3, each of which
//! failed before its fix:
//!
//! - [`feedback`]: `par_bridge` over iterators whose next item exists only once an earlier
//!   one was processed (part 1: the bridge pulled items in batches and deadlocked).
//! - [`deterministic`]: chains with `deterministic()`, compared bit for bit across pools
//!   (part 2: holes after `chain` with a plain iterator and `by_exponential_blocks`, which
//!   `Deterministic` no longer offers).
//! - [`counted_scans`]: scans whose `op` calls are counted (part 3: `with_max_len(1)` after a
//!   scan called `op` quadratically often).

pub(crate) mod feedback {
    //! A source that hands out item `k` only once `k + 1 - window` items have been
    //! processed, in any order (as a work queue fed by its own workers does); the processing
    //! is a `map` right after `par_bridge`, and the rest of the chain is a random one of the
    //! main test (after it, only steps and terminals that consume every item: one that stops
    //! early leaves the source waiting, a hang by design).

    use std::sync::{Arc, Condvar, Mutex};
    use std::time::Duration;

    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    use crate::spec::{Chain, SourceKind, SCAN_MAX_LEN_FLOOR};

    /// How long the source waits for an item to be processed before it gives up (a
    /// deadlock of the bridge), with a panic that says so.
    const PATIENCE: Duration = Duration::from_secs(5);

    /// How many items were processed, and a condition variable to wait for more.
    #[derive(Default)]
    pub(crate) struct Processed {
        count: Mutex<usize>,
        more: Condvar,
    }

    impl Processed {
        /// Counts one more processed item.
        pub(crate) fn add(&self) {
            *self.count.lock().unwrap() += 1;
            self.more.notify_all();
        }
    }

    /// The feedback iterator over `items`.
    pub(crate) struct Feedback<'a> {
        items: &'a [u64],
        next: usize,
        window: usize,
        processed: Arc<Processed>,
    }

    impl<'a> Feedback<'a> {
        pub(crate) fn new(items: &'a [u64], window: usize) -> (Self, Arc<Processed>) {
            let processed = Arc::new(Processed::default());
            let feedback = Feedback {
                items,
                next: 0,
                window,
                processed: Arc::clone(&processed),
            };
            (feedback, processed)
        }
    }

    impl Iterator for Feedback<'_> {
        type Item = u64;

        fn next(&mut self) -> Option<u64> {
            let item = *self.items.get(self.next)?;
            let needed = (self.next + 1).saturating_sub(self.window);
            let count = self.processed.count.lock().unwrap();
            let (_count, waited) = self
                .processed
                .more
                .wait_timeout_while(count, PATIENCE, |count| *count < needed)
                .unwrap();
            assert!(
                !waited.timed_out(),
                "item {} was asked for before {needed} items were processed, and they never \
                 were: the bridge holds items it does not process (window {})",
                self.next,
                self.window
            );
            self.next += 1;
            Some(item)
        }
    }

    /// The `i`-th feedback chain of `seed`: the main test's random steps and terminals, over
    /// a feedback source, without those that may stop before the last item.
    pub(crate) fn chain(seed: u64, i: usize) -> Chain {
        let mut rng =
            SmallRng::seed_from_u64(seed ^ (i as u64).wrapping_mul(0xA24B_AED4_963E_E407));
        loop {
            let window = rng.random_range(1..=4);
            let feedback = Some(SourceKind::Feedback(window));
            let chain = Chain::draw_from(&mut rng, feedback, SCAN_MAX_LEN_FLOOR);
            if chain.state.loose || chain.panics || !chain.terminal.consumes_everything() {
                continue;
            }
            return chain;
        }
    }

    /// #54 part 1: a bridge over a feedback iterator must not wait for items it holds.
    #[test]
    fn bridges_over_feedback_iterators() {
        let family = crate::Family {
            draw: chain,
            test: "bridges_over_feedback_iterators",
            fail_fast: true,
        };
        crate::run_chains(family, &crate::FIXED_SEEDS, 50);
    }
}

pub(crate) mod deterministic {
    //! `deterministic()` chains: every reduction gives the same bits on every pool and in
    //! every run. Built without erasure (`Deterministic` is not a `ParallelIterator`): one
    //! static chain per shape, with random parameters. The reductions use an operation that is neither associative nor
    //! commutative, so every difference in the tree or the order shows; and, as a check
    //! that the integer results are right, a wrapping sum compared with std's.

    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use weft::prelude::*;

    use crate::common;
    use crate::spec::{combine, fold_step, mix, pick, MASK};

    /// A step that shows its operands' grouping and order (not associative).
    fn tree_op(a: u64, b: u64) -> u64 {
        (a.wrapping_mul(0x9E37_79B9) ^ b.rotate_left(17)).wrapping_add(a >> 7) & MASK
    }

    /// The random parameters of one chain.
    #[derive(Clone, Debug)]
    pub(crate) struct Params {
        shape: usize,
        len: usize,
        other_len: usize,
        grain: Option<usize>,
        key: u64,
        n: usize,
        data: Vec<u64>,
        other: Vec<u64>,
    }

    /// The chain shapes, by name; [`reductions`] builds shape `i`.
    pub(crate) const SHAPES: [&str; 11] = [
        "det().map",
        "det().filter",
        "det().zip(plain).map",
        "det().chain(plain)",
        "det().interleave(plain)",
        "det().skip(n).step_by(2)",
        "det().rev().take(n)",
        "det().flat_map_iter",
        "det().enumerate().map",
        "det().fold_chunks(n)",
        "range.det().map",
    ];

    /// `data.par_iter().copied().deterministic()`, with the chain's grain if it sets one.
    macro_rules! det {
        ($params:expr, $data:expr) => {{
            let det = $data.par_iter().copied().deterministic();
            match $params.grain {
                Some(grain) => det.with_grain(grain),
                None => det,
            }
        }};
    }

    /// Every reduction compared across pools, of the chain `$make()` builds: a
    /// non-associative `reduce`, `fold` then `collect` (one accumulator per leaf; its count
    /// and an order-sensitive fold of it), `fold` then `reduce`, `min_by` of a comparison
    /// with many ties, a float sum (its bits), and a wrapping sum (checked against std's).
    macro_rules! reductions_of {
        ($make:expr) => {{
            let make = $make;
            let leaves: Vec<u64> = make().fold(|| 1, tree_op).collect();
            vec![
                make().reduce(|| 0, tree_op),
                leaves.len() as u64,
                leaves.iter().fold(0, |a, &x| fold_step(a, x)),
                make().fold(|| 1, tree_op).reduce(|| 0, tree_op),
                make()
                    .min_by(|a: &u64, b: &u64| (a % 4).cmp(&(b % 4)))
                    .unwrap_or(u64::MAX),
                u64::from(
                    make()
                        .map(|x: u64| (x as f32) * 1e-3 * if x % 2 == 0 { 1e7 } else { 1.0 })
                        .sum::<f32>()
                        .to_bits(),
                ),
                make().reduce(|| 0, u64::wrapping_add),
            ]
        }};
    }

    /// The reductions of shape `p.shape`, each chain built statically (`Deterministic` is
    /// not a `ParallelIterator`, so nothing is erased). Adapters `Deterministic` does not
    /// offer (`by_*_blocks`, `chain` with it on the right) no longer compile, and are not
    /// drawn; `tests/iter/deterministic_all.rs` covers every adapter it offers.
    fn reductions(p: &Params) -> Vec<u64> {
        let key = p.key;
        let n = p.n;
        let plain = || p.other.par_iter().copied();
        match p.shape {
            0 => reductions_of!(|| det!(p, p.data).map(move |x| mix(x, key))),
            1 => reductions_of!(|| det!(p, p.data).filter(move |&x| pick(x, key, 9))),
            2 => reductions_of!(|| det!(p, p.data)
                .zip(plain())
                .map(move |(x, y)| combine(x, y, key))),
            3 => reductions_of!(|| det!(p, p.data).chain(plain())),
            4 => reductions_of!(|| det!(p, p.data).interleave(plain())),
            5 => reductions_of!(|| det!(p, p.data).skip(n).step_by(2)),
            6 => reductions_of!(|| det!(p, p.data).rev().take(n)),
            7 => {
                reductions_of!(|| det!(p, p.data)
                    .flat_map_iter(move |x| (0..mix(x, key) % 3).map(move |j| x + j)))
            }
            8 => reductions_of!(|| det!(p, p.data)
                .enumerate()
                .map(move |(i, x)| combine(x, i as u64, key))),
            9 => reductions_of!(|| det!(p, p.data).fold_chunks(n.max(1), || 1, fold_step)),
            10 => reductions_of!(|| {
                let range = (0..p.len).into_par_iter().deterministic();
                let range = match p.grain {
                    Some(grain) => range.with_grain(grain),
                    None => range,
                };
                range.map(move |i| mix(i as u64, key))
            }),
            _ => unreachable!("shape {} of {}", p.shape, SHAPES.len()),
        }
    }

    /// The same reductions' wrapping sum, sequentially.
    fn sequential_sum(p: &Params) -> u64 {
        let items = p.data.iter().copied();
        let others = || p.other.iter().copied();
        let key = p.key;
        let n = p.n.max(1);
        let sum = |it: &mut dyn Iterator<Item = u64>| it.fold(0u64, u64::wrapping_add);
        match p.shape {
            0 => sum(&mut items.map(|x| mix(x, key))),
            1 => sum(&mut items.filter(|&x| pick(x, key, 9))),
            2 => sum(&mut items.zip(others()).map(|(x, y)| combine(x, y, key))),
            3 | 4 => sum(&mut items.chain(others())),
            5 => sum(&mut items.skip(p.n).step_by(2)),
            6 => sum(&mut items.rev().take(p.n)),
            7 => sum(&mut items.flat_map(|x| (0..mix(x, key) % 3).map(move |j| x + j))),
            8 => sum(&mut items.enumerate().map(|(i, x)| combine(x, i as u64, key))),
            9 => sum(&mut p
                .data
                .chunks(n)
                .map(|c| c.iter().fold(1, |a, &x| fold_step(a, x)))),
            10 => sum(&mut (0..p.len).map(|i| mix(i as u64, key))),
            _ => unreachable!(),
        }
    }

    fn params(seed: u64, i: usize) -> Params {
        let mut rng =
            SmallRng::seed_from_u64(seed ^ (i as u64).wrapping_mul(0xD1B5_4A32_D192_ED03));
        let len = *[0, 1, 7, 1000, 100_003]
            .get(rng.random_range(0..5))
            .expect("a length");
        let other_len = if rng.random_bool(0.5) {
            len
        } else {
            rng.random_range(0..=len)
        };
        let mut values = common::rng(rng.random());
        let data = (0..len).map(|_| values.random_range(0..=MASK)).collect();
        let other = (0..other_len)
            .map(|_| values.random_range(0..=MASK))
            .collect();
        Params {
            shape: i % SHAPES.len(),
            len,
            other_len,
            grain: [None, None, Some(1), Some(3), Some(1000)][rng.random_range(0..5)],
            key: rng.random(),
            n: [0, 1, 2, 7, 100, len / 2][rng.random_range(0..6)],
            data,
            other,
        }
    }

    /// #54 part 2: the same bits on every pool and in every run.
    #[test]
    fn deterministic_chains_give_the_same_bits_on_every_pool() {
        let mut failures = Vec::new();
        for seed in crate::FIXED_SEEDS {
            for i in 0..2 * SHAPES.len() {
                let p = params(seed, i);
                let label = format!(
                    "{} (seed {seed:#x}, chain {i}: len {}, other len {}, grain {:?}, n {}, key {:#x})",
                    SHAPES[p.shape], p.len, p.other_len, p.grain, p.n, p.key
                );
                let mut first: Option<(usize, Vec<u64>)> = None;
                for (threads, pool) in common::pools() {
                    for _ in 0..5 {
                        let got = pool.install(|| reductions(&p));
                        if got[6] != sequential_sum(&p) {
                            failures.push(format!("{label}: wrong sum on {threads} threads"));
                        }
                        match &first {
                            None => first = Some((*threads, got)),
                            Some((one, want)) if *want != got => failures.push(format!(
                                "{label}: {threads} threads gave {got:?}, {one} gave {want:?}"
                            )),
                            Some(_) => {}
                        }
                    }
                }
            }
        }
        failures.dedup_by(|a, b| a.split(':').next() == b.split(':').next());
        assert!(
            failures.is_empty(),
            "{} deterministic chains differ:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}

pub(crate) mod counted_scans {
    //! Chains of the main test with a scan, whose `op` calls weft's chain counts
    //! (`Chain::scan_calls`), without the floor the main test puts under `with_max_len`
    //! after a scan, and with a `with_max_len` of 1, 2 or 7 somewhere in half of them. A run
    //! must give std's result and call `op` at most [`CALLS_PER_ITEM`] times per item that
    //! enters a scan, plus [`CALLS_PER_SCAN`].

    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    use crate::spec::{Chain, Op};

    /// `op` calls allowed per item entering a scan: a scan computes each result and each
    /// block's total in one pass (two calls per item), and a worker that reaches a block
    /// before the blocks below it are done reads some of them once more. A scan under a
    /// producer that does not pass on its fixed tree (the erased steps of this test, as any
    /// adapter written outside weft) is split inside blocks, and each piece that starts
    /// inside one reads it from its start: measured today, up to 4.7 calls per item of
    /// 100 003 on 2 threads with pieces of the driver's own sizes. The bound is there to
    /// catch calls that grow with the length per item (quadratic), not to pin the constant.
    pub(crate) const CALLS_PER_ITEM: usize = 8;

    /// `op` calls allowed per scan beyond [`CALLS_PER_ITEM`] (the identity's, per block).
    pub(crate) const CALLS_PER_SCAN: usize = 1024;

    /// The `i`-th counted chain of `seed`.
    fn chain(seed: u64, i: usize) -> Chain {
        let mut rng =
            SmallRng::seed_from_u64(seed ^ (i as u64).wrapping_mul(0x9FB2_1C65_1E98_DF25));
        loop {
            let chain = Chain::draw_from(&mut rng, None, 1);
            if !chain.ops.iter().any(is_scan) {
                continue;
            }
            let mut ops = chain.ops.clone();
            if rng.random_bool(0.5) {
                let n = [1, 2, 7][rng.random_range(0..3)];
                ops.insert(rng.random_range(0..=ops.len()), Op::MaxLen { n });
            }
            let fused = chain.fused;
            let Some(mut chain) = Chain::assemble(chain.source, fused, ops, chain.terminal) else {
                continue;
            };
            chain.count_scans = true;
            return chain;
        }
    }

    fn is_scan(op: &Op) -> bool {
        matches!(op, Op::InclusiveScan { .. } | Op::ExclusiveScan { .. })
    }

    /// The most calls of `op` a run of `chain` may make.
    pub(crate) fn bound(chain: &Chain) -> usize {
        let scans = chain.ops.iter().filter(|op| is_scan(op)).count();
        CALLS_PER_ITEM * chain.scan_inputs + CALLS_PER_SCAN * scans
    }

    /// #54 part 3: scans call `op` a bounded number of times per item.
    #[test]
    fn scans_call_op_a_bounded_number_of_times() {
        let family = crate::Family {
            draw: chain,
            test: "scans_call_op_a_bounded_number_of_times",
            fail_fast: true,
        };
        crate::run_chains(family, &crate::FIXED_SEEDS, 50);
    }
}
