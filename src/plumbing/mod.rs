//! The producer / consumer vocabulary shared by `iter/` and `drive/`: traits only, no code
//! that splits or schedules work. Depends on nothing else in the crate.
//!
//! The design (producers and consumers, one chain walked end to end, where splitting
//! happens) is in `src/plumbing/README.md`. The names and signatures match
//! Rayon's `rayon::iter::plumbing`, so a custom parallel iterator ports by renaming.
//!
//! Users reach these traits as `weft::iter::plumbing`, together with the `bridge*`
//! functions that hand a producer and a consumer to the driver.

use std::marker::PhantomData;
use std::num::NonZeroUsize;
use std::ops::ControlFlow;

/// A splittable source of items with a known length: the indexed half of the plumbing.
///
/// A producer can be cut at any index into two producers, and it turns into a sequential
/// iterator (double-ended and exact-size) for the piece a worker keeps.
///
/// ```
/// use weft::iter::plumbing::Producer;
///
/// // A producer over `0..n` squares, written by hand.
/// struct Squares(std::ops::Range<u32>);
/// impl Producer for Squares {
///     type Item = u32;
///     type IntoIter = std::iter::Map<std::ops::Range<u32>, fn(u32) -> u32>;
///     fn into_iter(self) -> Self::IntoIter {
///         self.0.map(|x| x * x)
///     }
///     fn split_at(self, index: usize) -> (Self, Self) {
///         let mid = self.0.start + index as u32;
///         (Squares(self.0.start..mid), Squares(mid..self.0.end))
///     }
/// }
/// let (left, right) = Squares(0..5).split_at(2);
/// assert_eq!(left.into_iter().collect::<Vec<_>>(), [0, 1]);
/// assert_eq!(right.into_iter().collect::<Vec<_>>(), [4, 9, 16]);
/// ```
pub trait Producer: Send + Sized {
    /// The type of item produced.
    type Item;
    /// The sequential iterator this producer turns into.
    type IntoIter: Iterator<Item = Self::Item> + DoubleEndedIterator + ExactSizeIterator;

    /// Turns the producer into a sequential iterator over its items.
    fn into_iter(self) -> Self::IntoIter;

    /// The smallest piece the driver should split this producer into (default 1).
    fn min_len(&self) -> usize {
        1
    }

    /// The largest piece the driver should leave unsplit (default `usize::MAX`).
    fn max_len(&self) -> usize {
        usize::MAX
    }

    /// Splits into the items before `index` and the items from `index` on.
    fn split_at(self, index: usize) -> (Self, Self);

    /// Whether items of this producer may be skipped without being produced: producing one
    /// runs no user code that a skip should still run (a `Clone` is not counted, as std's
    /// iterators do not count it either), and dropping the producer drops whatever items it
    /// owns. `skip` then drops the items it skips at once instead of running them, so that
    /// skipping costs nothing on a range or a slice. Sources and the adapters that only move
    /// items around say `true` (adapters: when what they wrap does); the default `false`
    /// runs every skipped item, as Rayon does for all of them. Internal to weft: not part
    /// of Rayon's API.
    #[doc(hidden)]
    const INERT: bool = false;

    /// Feeds every item to `folder`; override when a faster loop than `into_iter` exists.
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>,
    {
        folder.consume_iter(self.into_iter())
    }

    /// Hands `self` and `consumer` (for `len` items) to `driver`; the default does only that.
    ///
    /// Why it exists: `map_with` and `map_init` give every piece of work a state (a clone,
    /// or what `init` returns), and their producer carries it. On the on-steal driver an
    /// owner folds a whole run of chunks, turning each chunk's producer piece into an
    /// iterator, so a state carried by the producer would be made again for every chunk.
    /// Their producer overrides this method to move the state onto the consumer side
    /// before the driver sees the pair: a consumer's folder holds the state, and the driver
    /// keeps one folder for an owner's run ([`Consumer::continue_folder`]), so `init` runs
    /// once per owner, as the README's "Differences from Rayon" promises. It has to be a
    /// method of `Producer` because the override must be found through any generic
    /// producer the driver is handed. Other producers keep the default. Hidden: weft's own
    /// plumbing, not part of Rayon's API; custom producers never need it.
    #[doc(hidden)]
    #[inline]
    fn drive_with<C, D>(self, len: usize, consumer: C, driver: D) -> C::Result
    where
        C: Consumer<Self::Item>,
        D: IndexedDriver,
    {
        driver.drive(len, self, consumer)
    }

    /// How this producer asks to be split: wherever the driver likes (the default), or in a
    /// tree fixed by the length alone ([`SplitTree::Fixed`], asked for by scans, and by a
    /// deterministic chain's producer handed to an adapter that drives it itself, such as
    /// `positions`). Adapters that wrap producers forward their base's answer (both sides'
    /// for `zip`, `chain`, `interleave`), so that the request reaches the driver through any
    /// chain. A deterministic chain's own reductions do not rely on it: they drive the
    /// chain's producer in the fixed tree directly. Internal to weft: not part of Rayon's
    /// API; a producer written outside weft gets the default.
    #[doc(hidden)]
    fn split_tree(&self) -> SplitTree {
        SplitTree::Adaptive
    }

    /// A second producer over the same items, if making one is cheap and reading the items
    /// twice is harmless: producers that borrow their items (slices, ranges) and adapters
    /// over them that call no user closure (`copied`, `cloned`, `enumerate`, `zip`, `rev`)
    /// return `Some`. A scan reads the blocks a worker reaches before their prefix is known
    /// through a duplicate (`iter/adapter/scan.rs`); producers that own their items, and
    /// `map`, whose closure would run twice per item, keep the default `None`. Internal to
    /// weft: not part of Rayon's API.
    #[doc(hidden)]
    fn duplicate(&self) -> Option<Self> {
        None
    }

    /// `Some` if every iterator of type `IntoIter` yields exactly as many items from `next`
    /// as its `len` says: the zip of two such producers then takes the right side's items
    /// without testing for its end (`iter/adapter/zip.rs`), as std's `Zip` does for its own
    /// random-access iterators. Only weft can make an [`ExactLen`], for iterator types whose
    /// code it knows (std's slice iterators, and its own adapters over such); a producer
    /// written outside weft keeps the default `None`, or forwards another producer's value
    /// when its `IntoIter` is that producer's. Internal to weft: not part of Rayon's API.
    #[doc(hidden)]
    const EXACT_LEN: Option<ExactLen<Self::IntoIter>> = None;
}

/// Evidence that every iterator of type `I` yields exactly `len()` more items from `next`
/// (see [`Producer::EXACT_LEN`]). It can only be made inside weft. Internal to weft.
#[doc(hidden)]
pub struct ExactLen<I>(PhantomData<fn() -> I>);

impl<I> std::fmt::Debug for ExactLen<I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ExactLen")
    }
}

impl<I> ExactLen<I> {
    /// # Safety
    ///
    /// For every value `it` of type `I`, at any point, `it.next()` returns `Some` exactly
    /// `it.len()` more times (unsafe code relies on it: `ZipProducer::fold_with`).
    pub(crate) const unsafe fn new() -> Self {
        ExactLen(PhantomData)
    }

    /// `Some` for `J` if `base` holds for `I`.
    ///
    /// # Safety
    ///
    /// As [`ExactLen::new`] for `J`, given that it holds for `I`.
    pub(crate) const unsafe fn carried<J>(base: &Option<ExactLen<I>>) -> Option<ExactLen<J>> {
        match base {
            // SAFETY: the caller's promise.
            Some(_) => Some(unsafe { ExactLen::new() }),
            None => None,
        }
    }
}

/// How a producer asks the driver to split it ([`Producer::split_tree`]). Internal to weft.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SplitTree {
    /// Wherever the driver likes: the on-steal driver splits where thieves take work.
    #[default]
    Adaptive,
    /// In halves of whole leaves down to single leaves of `grain` items (`None`: the default
    /// grain for the length), the same on every pool: `drive/fixed_tree.rs`.
    Fixed(Option<NonZeroUsize>),
}

impl SplitTree {
    /// `self` if it asks for a fixed tree, else `other`: what a producer made of two others
    /// (`zip`, `chain`, `interleave`) asks for. A fixed tree wins, and the first side's grain
    /// if both ask for one.
    pub fn or(self, other: SplitTree) -> SplitTree {
        match self {
            SplitTree::Fixed(_) => self,
            SplitTree::Adaptive => other,
        }
    }
}

/// What [`Producer::drive_with`] hands a producer and consumer to: the driver that splits
/// indexed work across workers. Internal to weft.
#[doc(hidden)]
pub trait IndexedDriver {
    /// Runs `consumer` over the `len` items of `producer`.
    fn drive<P, C>(self, len: usize, producer: P, consumer: C) -> C::Result
    where
        P: Producer,
        C: Consumer<P::Item>;
}

/// A splittable source whose length is unknown: it splits "somewhere", or declines.
///
/// ```
/// use weft::iter::plumbing::{Folder, UnindexedProducer};
///
/// struct Evens(std::ops::Range<u32>);
/// impl UnindexedProducer for Evens {
///     type Item = u32;
///     fn split(self) -> (Self, Option<Self>) {
///         let mid = self.0.start + (self.0.end - self.0.start) / 2;
///         if self.0.len() < 2 {
///             return (self, None);
///         }
///         (Evens(self.0.start..mid), Some(Evens(mid..self.0.end)))
///     }
///     fn fold_with<F: Folder<u32>>(self, folder: F) -> F {
///         folder.consume_iter(self.0.filter(|x| x % 2 == 0))
///     }
/// }
/// let (left, right) = Evens(0..10).split();
/// assert_eq!(left.0, 0..5);
/// assert_eq!(right.unwrap().0, 5..10);
/// ```
pub trait UnindexedProducer: Send + Sized {
    /// The type of item produced.
    type Item;

    /// Splits into two producers, or returns `(self, None)` if it will not split further.
    fn split(self) -> (Self, Option<Self>);

    /// Feeds every item to `folder`.
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>;
}

/// The sink side of a parallel computation: splits alongside the producer, folds its piece
/// sequentially, and its [`Reducer`] joins the results of neighbouring pieces.
///
/// ```
/// use weft::iter::plumbing::{Consumer, Folder, Reducer};
/// use weft::prelude::*;
///
/// // Every built-in consumer is reached through a parallel iterator's terminal method.
/// assert_eq!((1..=4).into_par_iter().map(|x| x * 10).sum::<i32>(), 100);
/// ```
pub trait Consumer<Item>: Send + Sized {
    /// The sequential folder this consumer becomes.
    type Folder: Folder<Item, Result = Self::Result>;
    /// The reducer that combines the results of the two halves of a split.
    ///
    /// `Send` (unlike Rayon): the on-steal driver creates the reducer for a steal boundary on
    /// the thief's thread and uses it where the victim's result is.
    type Reducer: Reducer<Self::Result> + Send;
    /// The result of consuming items.
    type Result: Send;

    /// Splits into consumers for the items before and from `index`, and their reducer.
    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer);

    /// [`split_at`](Consumer::split_at) for a consumer that will be given exactly `len` items
    /// (counted as `index` is), so that the split can be in proportion: `index` of `len` go
    /// left. The default ignores `len`.
    ///
    /// A weft extension (Rayon has no such method). The drivers call it wherever they know
    /// the length; the on-steal driver cuts a consumer at every chunk an owner claims, so a
    /// consumer that divides something finite between its pieces (`find_first` and
    /// `find_last` divide the positions that order their matches) would run out of it after
    /// a few dozen cuts in half, but not in proportion. Adapters forward it to their base.
    ///
    /// ```
    /// use weft::iter::plumbing::{Consumer, Folder, Reducer};
    ///
    /// /// Counts items; each piece knows which share of the whole it holds.
    /// struct Share(f64);
    /// struct CountFolder(usize);
    /// struct Add;
    /// impl Folder<u8> for CountFolder {
    ///     type Result = usize;
    ///     fn consume(self, _item: u8) -> Self { CountFolder(self.0 + 1) }
    ///     fn complete(self) -> usize { self.0 }
    ///     fn full(&self) -> bool { false }
    /// }
    /// impl Reducer<usize> for Add {
    ///     fn reduce(self, left: usize, right: usize) -> usize { left + right }
    /// }
    /// impl Consumer<u8> for Share {
    ///     type Folder = CountFolder;
    ///     type Reducer = Add;
    ///     type Result = usize;
    ///     fn split_at(self, _index: usize) -> (Self, Self, Add) {
    ///         (Share(self.0 / 2.0), Share(self.0 / 2.0), Add)
    ///     }
    ///     fn split_at_sized(self, index: usize, len: usize) -> (Self, Self, Add) {
    ///         let left = self.0 * index as f64 / len as f64;
    ///         (Share(left), Share(self.0 - left), Add)
    ///     }
    ///     fn into_folder(self) -> CountFolder { CountFolder(0) }
    ///     fn full(&self) -> bool { false }
    /// }
    /// let (chunk, rest, _) = Share(1.0).split_at_sized(1, 4);
    /// assert_eq!((chunk.0, rest.0), (0.25, 0.75));
    /// ```
    fn split_at_sized(self, index: usize, len: usize) -> (Self, Self, Self::Reducer) {
        let _ = len;
        self.split_at(index)
    }

    /// Turns into a folder that consumes items one piece at a time.
    fn into_folder(self) -> Self::Folder;

    /// True when no more items are wanted (e.g. `find_any` has found one).
    fn full(&self) -> bool;

    /// Takes over `folder`, which has consumed exactly the items just before this consumer's
    /// own, so that it goes on to consume this consumer's items as well: its result then
    /// stands for both pieces, and the reducer of the split between them is never needed.
    /// Returns both unchanged (`Err`) if it cannot; that is the default.
    ///
    /// A weft extension (Rayon has no such method). The on-steal driver calls it at each
    /// chunk boundary, so a worker folds the whole run of chunks it owns into one folder:
    /// per-folder state such as `map_init`'s `init` value or `fold`'s accumulator is then
    /// made once per owner instead of once per chunk. Override it when continuing a folder is
    /// the same as folding the two pieces separately and reducing.
    ///
    /// ```
    /// use weft::iter::plumbing::{Consumer, Folder, Reducer};
    ///
    /// struct Sum;
    /// struct SumFolder(u64);
    /// struct Add;
    /// impl Folder<u64> for SumFolder {
    ///     type Result = u64;
    ///     fn consume(self, item: u64) -> Self { SumFolder(self.0 + item) }
    ///     fn complete(self) -> u64 { self.0 }
    ///     fn full(&self) -> bool { false }
    /// }
    /// impl Reducer<u64> for Add {
    ///     fn reduce(self, left: u64, right: u64) -> u64 { left + right }
    /// }
    /// impl Consumer<u64> for Sum {
    ///     type Folder = SumFolder;
    ///     type Reducer = Add;
    ///     type Result = u64;
    ///     fn split_at(self, _index: usize) -> (Self, Self, Add) { (Sum, Sum, Add) }
    ///     fn into_folder(self) -> SumFolder { SumFolder(0) }
    ///     fn full(&self) -> bool { false }
    ///     fn continue_folder(self, folder: SumFolder) -> Result<SumFolder, (Self, SumFolder)> {
    ///         Ok(folder) // a running sum simply goes on
    ///     }
    /// }
    /// let (lower, upper, _) = Sum.split_at(2);
    /// let folder = lower.into_folder().consume_iter([1, 2]);
    /// let Ok(folder) = upper.continue_folder(folder) else { unreachable!() };
    /// assert_eq!(folder.consume_iter([3, 4]).complete(), 10);
    /// ```
    #[allow(clippy::result_large_err)] // both values go back to the caller, by design
    fn continue_folder(self, folder: Self::Folder) -> Result<Self::Folder, (Self, Self::Folder)> {
        Err((self, folder))
    }
}

/// A consumer that can also split without an index, for unindexed producers.
pub trait UnindexedConsumer<I>: Consumer<I> {
    /// Splits off a consumer for items that come before whatever `self` will consume.
    fn split_off_left(&self) -> Self;

    /// A reducer for combining the result of `split_off_left` (left) with `self` (right).
    fn to_reducer(&self) -> Self::Reducer;
}

/// The sequential end of a consumer: takes items one by one (or an iterator at once).
///
/// ```
/// use weft::iter::plumbing::Folder;
///
/// struct SumFolder(u64);
/// impl Folder<u64> for SumFolder {
///     type Result = u64;
///     fn consume(self, item: u64) -> Self {
///         SumFolder(self.0 + item)
///     }
///     fn complete(self) -> u64 {
///         self.0
///     }
///     fn full(&self) -> bool {
///         false
///     }
/// }
/// assert_eq!(SumFolder(0).consume_iter(1..=10).complete(), 55);
/// ```
pub trait Folder<Item>: Sized {
    /// The result of folding.
    type Result;

    /// Consumes one item.
    fn consume(self, item: Item) -> Self;

    /// Consumes items until the iterator ends or the folder is [`full`](Folder::full).
    /// Folders with a faster whole-iterator loop override this.
    fn consume_iter<I>(self, iter: I) -> Self
    where
        I: IntoIterator<Item = Item>,
    {
        if self.full() {
            return self;
        }
        let step = |folder: Self, item| {
            let folder = folder.consume(item);
            if folder.full() {
                ControlFlow::Break(folder)
            } else {
                ControlFlow::Continue(folder)
            }
        };
        match iter.into_iter().try_fold(self, step) {
            ControlFlow::Break(folder) | ControlFlow::Continue(folder) => folder,
        }
    }

    /// Finishes folding and returns the result.
    fn complete(self) -> Self::Result;

    /// True when no more items are wanted.
    fn full(&self) -> bool;

    /// Whether this folder may become [`full`](Folder::full) before it has seen every item
    /// (a search, a short-circuiting `try_` reduction, `take_any`). Drivers then fold long
    /// inputs in blocks with a `full()` test between them; adapters that may drop items
    /// (`filter`) pass long inputs on in batches, so that a stop flag is not hidden for long;
    /// an adapter that holds items back until the end of its piece (`fold`'s accumulator)
    /// hands them on in portions, so that the search can stop as early as Rayon's does.
    /// Adapters forward their base folder's; the default is `false`. A constant, so that a
    /// loop that cannot stop does not even compile the code that would stop it. Internal to
    /// weft: not part of Rayon's API.
    #[doc(hidden)]
    const MAY_STOP_EARLY: bool = false;
}

/// Combines the results of two neighbouring pieces; `left` came first in iteration order.
///
/// ```
/// use weft::iter::plumbing::Reducer;
///
/// struct Concat;
/// impl Reducer<String> for Concat {
///     fn reduce(self, mut left: String, right: String) -> String {
///         left.push_str(&right);
///         left
///     }
/// }
/// assert_eq!(Concat.reduce("ab".into(), "cd".into()), "abcd");
/// ```
pub trait Reducer<Result> {
    /// Combines `left` and `right` into one result, keeping their order.
    fn reduce(self, left: Result, right: Result) -> Result;
}

/// A generic closure over a producer: how an indexed iterator hands its producer out
/// (see `with_producer` on `IndexedParallelIterator`). Sources that own their data (`Vec`)
/// need it, since the producer borrows from their stack frame.
///
/// ```
/// use weft::iter::plumbing::{Producer, ProducerCallback};
/// use weft::prelude::*;
///
/// struct FirstItem;
/// impl<T> ProducerCallback<T> for FirstItem {
///     type Output = Option<T>;
///     fn callback<P: Producer<Item = T>>(self, producer: P) -> Option<T> {
///         producer.into_iter().next()
///     }
/// }
/// assert_eq!((7..10).into_par_iter().with_producer(FirstItem), Some(7));
/// ```
pub trait ProducerCallback<T> {
    /// What the callback returns.
    type Output;

    /// Runs with the producer.
    fn callback<P>(self, producer: P) -> Self::Output
    where
        P: Producer<Item = T>;
}
