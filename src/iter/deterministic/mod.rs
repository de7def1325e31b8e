//! `deterministic()`: a typed front for chains whose reductions give bitwise the same result
//! on every pool. [`Deterministic`] is not a `ParallelIterator`: it offers exactly the
//! adapters and reductions that keep the guarantee, each returning another `Deterministic`
//! (or the result), so an adapter that cannot keep it is not there to call, and a new one
//! keeps it only once it is added here, with a test.
//!
//! How the guarantee is kept, by construction:
//! - While the chain is indexed ([`Indexed`]), its adapters only wrap the base: nothing of
//!   theirs is driven but their producer. A reduction, or an adapter that makes the chain
//!   unindexed (`filter`, `fold`, `positions`, ...), wraps the indexed chain in a
//!   [`FixedTree`], whose `drive` hands the producer of the whole chain straight to the
//!   fixed-tree driver (`drive::drive_with_grain`). So `chain`, `zip` and `interleave` with
//!   any indexed iterator are one producer in one tree, and no adapter's producer has to
//!   pass the request on (`Producer::split_tree`, which only scans still read).
//! - While `FixedTree` builds the chain's producer, a mark on the thread
//!   (`drive::AskedMark`) makes any loop an adapter drives itself meanwhile (a scan
//!   collecting a base it cannot read twice, on either side of a `zip`) take a fixed tree
//!   too.
//! - After that ([`Unindexed`]) only consumer-side adapters are offered: they pass the
//!   consumer down to the `FixedTree` and split nothing themselves.
//! - Loops nested in the items' closures take a fixed tree while a leaf is folded
//!   (`drive/fixed_tree.rs`), and `by_exponential_blocks` nested there sizes its blocks as
//!   on a pool of one.
//!
//! The list of what is covered is in one place: the doc of
//! [`IndexedParallelIterator::deterministic`] (and README's "Reproducible reductions").

mod adapters; // the adapters of both modes: map, filter, fold, flat_map, ...
mod fixed_tree; // FixedTree: the indexed part of a chain, driven in the fixed tree
mod indexed; // with_grain and the adapters and reductions of indexed chains only
mod reductions; // sum, reduce, min_by, collect, find_first, ...

use std::num::NonZeroUsize;

use crate::iter::{IndexedParallelIterator, ParallelIterator};

pub use fixed_tree::FixedTree;

/// The chain returned by [`IndexedParallelIterator::deterministic`]: its reductions give
/// bitwise the same result for the same input and closures on every pool, however work is
/// stolen. Not a [`ParallelIterator`]: it offers the adapters and reductions that keep that
/// guarantee (each adapter returns another `Deterministic`), and no others. The list, and
/// what exactly holds, is in [`IndexedParallelIterator::deterministic`].
///
/// `M` is [`Indexed`] while every adapter so far keeps the items' positions (then
/// `enumerate`, `zip`, `chain`, `skip`, scans, ... are offered too), [`Unindexed`] after one
/// that does not (`filter`, `flat_map`, `fold`, ...).
///
/// ```
/// use weft::prelude::*;
///
/// let v: Vec<f32> = (0..10_000).map(|i| 1.0 / (1 + i) as f32).collect();
/// let pool = |threads| weft::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
/// let sum = |threads| pool(threads).install(|| v.par_iter().deterministic().sum::<f32>());
/// assert_eq!(sum(1).to_bits(), sum(3).to_bits());
/// ```
///
/// An adapter that cannot keep the guarantee is not offered; these do not compile:
///
/// ```compile_fail,E0599
/// use weft::prelude::*;
///
/// // Its blocks would follow the pool's size.
/// let v = vec![1.0f32; 100];
/// let _ = v.par_iter().deterministic().by_exponential_blocks().sum::<f32>();
/// ```
///
/// ```compile_fail,E0599
/// use weft::prelude::*;
///
/// // Which match is found depends on timing.
/// let _ = (0..100).into_par_iter().deterministic().find_any(|&x| x > 10);
/// ```
///
/// ```compile_fail,E0599
/// use weft::prelude::*;
///
/// // After `filter` the chain is unindexed: `chain` would drive its two sides apart.
/// let v = vec![1.0f32; 100];
/// let _ = v.par_iter().deterministic().filter(|&&x| x > 0.0).chain(v.par_iter());
/// ```
///
/// ```compile_fail,E0599
/// use weft::prelude::*;
///
/// // After `filter`, `intersperse` would gather the items and drive them again apart.
/// let _ = (0..100).into_par_iter().deterministic().filter(|x| x % 2 == 0).intersperse(0);
/// ```
///
/// ```compile_fail,E0277
/// use weft::prelude::*;
///
/// // Not a ParallelIterator: it cannot be handed to code that would drive it otherwise.
/// fn total<I: ParallelIterator<Item = u32>>(iter: I) -> u32 {
///     iter.sum()
/// }
/// let _ = total((0..100u32).into_par_iter().deterministic());
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Deterministic<I, M = Indexed> {
    base: I,
    mode: M,
}

/// The mode of a [`Deterministic`] chain whose adapters all keep the items' positions: it
/// is driven as one producer, and holds the grain (items per leaf; `None`: the default
/// for the length).
///
/// ```
/// use weft::iter::deterministic::{Deterministic, Indexed};
/// use weft::prelude::*;
///
/// let chain: Deterministic<weft::range::Iter<u32>, Indexed> =
///     (0..10u32).into_par_iter().deterministic();
/// assert_eq!(chain.sum::<u32>(), 45);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Indexed {
    grain: Option<NonZeroUsize>,
}

/// The mode of a [`Deterministic`] chain after an adapter that does not keep the items'
/// positions: its indexed part is a [`FixedTree`], and what follows only transforms what
/// that tree folds.
///
/// ```
/// use weft::iter::deterministic::Unindexed;
/// use weft::prelude::*;
///
/// let odd = (0..10u32).into_par_iter().deterministic().filter(|x| x % 2 == 1);
/// let _: &weft::iter::deterministic::Deterministic<_, Unindexed> = &odd;
/// assert_eq!(odd.sum::<u32>(), 25);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Unindexed(());

/// How a [`Deterministic`] chain in mode `Self` over `I` is driven: sealed, implemented by
/// [`Indexed`] (the chain in a [`FixedTree`]) and [`Unindexed`] (the chain itself, whose
/// indexed part is a `FixedTree` already).
///
/// ```
/// use weft::iter::deterministic::{Deterministic, Mode};
/// use weft::prelude::*;
///
/// // Code generic over both modes.
/// fn total<I, M>(chain: Deterministic<I, M>) -> u32
/// where
///     I: ParallelIterator<Item = u32>,
///     M: Mode<I>,
/// {
///     chain.sum()
/// }
/// assert_eq!(total((0..10u32).into_par_iter().deterministic()), 45);
/// assert_eq!(total((0..10u32).into_par_iter().deterministic().filter(|x| x % 2 == 0)), 20);
/// ```
pub trait Mode<I: ParallelIterator>: sealed::Sealed + Send {
    /// What a reduction at this point drives: a parallel iterator whose indexed part goes
    /// through a [`FixedTree`].
    type Driven: ParallelIterator<Item = I::Item>;

    /// `base` as it is driven.
    #[doc(hidden)]
    fn driven(self, base: I) -> Self::Driven;
}

impl<I: IndexedParallelIterator> Mode<I> for Indexed {
    type Driven = FixedTree<I>;

    fn driven(self, base: I) -> FixedTree<I> {
        FixedTree::new(base, self.grain)
    }
}

impl<I: ParallelIterator> Mode<I> for Unindexed {
    type Driven = I;

    fn driven(self, base: I) -> I {
        base
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Indexed {}
    impl Sealed for super::Unindexed {}
}

impl<I: IndexedParallelIterator> Deterministic<I> {
    pub(crate) fn new(base: I) -> Self {
        Deterministic {
            base,
            mode: Indexed { grain: None },
        }
    }
}

impl<I, M> Deterministic<I, M>
where
    I: ParallelIterator,
    M: Mode<I>,
{
    /// An adapter that keeps the mode: `adapt` wraps the base.
    fn adapt<J>(self, adapt: impl FnOnce(I) -> J) -> Deterministic<J, M> {
        Deterministic {
            base: adapt(self.base),
            mode: self.mode,
        }
    }

    /// An adapter that makes the chain unindexed: `adapt` wraps the chain as it is driven.
    fn unindex<J>(self, adapt: impl FnOnce(M::Driven) -> J) -> Deterministic<J, Unindexed> {
        Deterministic {
            base: adapt(self.driven()),
            mode: Unindexed(()),
        }
    }

    /// The chain as a reduction drives it.
    fn driven(self) -> M::Driven {
        self.mode.driven(self.base)
    }
}
