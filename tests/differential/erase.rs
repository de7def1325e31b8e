//! Type erasure for parallel iterators of `u64`, so that a chain of any adapters can be built
//! at run time from data and still be compiled only once per adapter.
//!
//! A chain such as `source.map(f).skip(3).filter(p)` has a type that names every adapter; a
//! random chain of four of some forty adapters has millions of such types, far too many to
//! compile. Each step is therefore wrapped into one of two types with no type parameters,
//! [`Indexed`] (for an `IndexedParallelIterator`) and [`Par`] (for an unindexed one), so
//! every adapter is compiled once over `Indexed` (and once over `Par`), and every terminal
//! once per wrapper.
//!
//! Both halves of the plumbing cross the boundary, each behind a trait object:
//! - going down, a consumer handed to `drive` / `drive_unindexed` becomes an
//!   [`ErasedConsumer`] (its folder an [`ErasedFolder`], its reducer an [`ErasedReducer`]),
//!   so the adapters below run their own consumer code;
//! - going up, a producer handed to a `with_producer` callback becomes an
//!   [`ErasedProducer`], so the adapters above run their own producer code.
//!
//! The erased types forward every method whose signature can be written outside weft: the
//! consumer's `split_at_sized` and `continue_folder`, the folder's
//! `consume_iter` (as a `&mut dyn Iterator`), the producer's `fold_with` (through a
//! [`DynFold`] reference, so the producer's own loop still runs), `duplicate`, `min_len` /
//! `max_len`, and the iterator's `upper_len_by_position`. The rest take their defaults at
//! each boundary, as for any parallel iterator written outside weft that wraps weft's: a
//! producer's `split_tree` (the fixed tree of `deterministic()` and scans: a scan above a
//! boundary is split wherever the driver likes, which it must survive), `drive_with`,
//! `INERT` (so `skip` runs the items it skips) and `EXACT_LEN`; the folder's constant
//! `MAY_STOP_EARLY` cannot be forwarded and is `true` (right for any folder, only slower
//! for one that cannot stop). The chains that need those
//! are built without erasure: the static prefixes of `run.rs` (`INERT`, `EXACT_LEN`) and the
//! deterministic chains of `pending.rs`.
//!
//! Results cross the boundary as [`Opaque`] boxes: whoever erased a value knows its type and
//! is the only one to unwrap it (checked by type name on every unwrap).

use std::any::type_name;
use std::marker::PhantomData;

use weft::iter::plumbing::{
    Consumer, Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer,
};
use weft::prelude::*;

/// Marks every type, so that any value can sit behind a `dyn Erasable`.
trait Erasable {}
impl<T: ?Sized> Erasable for T {}

/// A value whose type only its maker and its taker know.
pub(crate) struct Opaque<'a> {
    value: Box<dyn Erasable + 'a>,
    type_name: &'static str,
}

impl<'a> Opaque<'a> {
    fn new<T: 'a>(value: T) -> Self {
        Opaque {
            value: Box::new(value),
            type_name: type_name::<T>(),
        }
    }

    /// The value back.
    ///
    /// # Safety
    ///
    /// `T` is the type this was made from (lifetimes included: a type with other lifetimes
    /// than the original would outlive what it borrows). The type name is checked, which
    /// catches a mix-up of types but cannot see lifetimes.
    unsafe fn take<T>(self) -> T {
        assert_eq!(
            self.type_name,
            type_name::<T>(),
            "an erased value was unwrapped as another type"
        );
        let raw = Box::into_raw(self.value) as *mut T;
        // SAFETY: `raw` comes from `Box::new(value)` of a `T` (the caller's promise, backed by
        // the type name check), unsized to `dyn Erasable` and back: same allocation, same
        // layout.
        *unsafe { Box::from_raw(raw) }
    }
}

/// An [`Opaque`] made from a `Send` value (a consumer's result, which weft moves between
/// workers).
pub(crate) struct OpaqueSend<'a>(Opaque<'a>);

// SAFETY: an `OpaqueSend` is only made by `OpaqueSend::new`, from a `T: Send`; it holds that
// value and nothing else.
unsafe impl Send for OpaqueSend<'_> {}

impl<'a> OpaqueSend<'a> {
    fn new<T: Send + 'a>(value: T) -> Self {
        OpaqueSend(Opaque::new(value))
    }

    /// # Safety
    ///
    /// As [`Opaque::take`].
    unsafe fn take<T>(self) -> T {
        // SAFETY: the caller's promise.
        unsafe { self.0.take() }
    }
}

// ---------------------------------------------------------------------------------------
// Folders

/// What a producer's `fold_with` needs of a folder, by `&mut`.
pub(crate) trait DynFold {
    fn consume(&mut self, item: u64);
    fn consume_iter(&mut self, items: &mut dyn Iterator<Item = u64>);
    fn full(&self) -> bool;
}

/// A whole folder: [`DynFold`] and the ends of its life.
trait DynFolder<'c>: DynFold {
    fn complete(self: Box<Self>) -> OpaqueSend<'c>;
    /// The concrete folder itself, for `continue_folder`.
    fn into_inner(self: Box<Self>) -> Opaque<'c>;
}

/// A folder in a slot it leaves only while one of its by-value methods runs.
struct FolderSlot<F>(Option<F>);

impl<F: Folder<u64>> FolderSlot<F> {
    fn folder(&self) -> &F {
        self.0
            .as_ref()
            .expect("a folder that panicked is not used again")
    }

    fn update(&mut self, step: impl FnOnce(F) -> F) {
        let folder = self
            .0
            .take()
            .expect("a folder that panicked is not used again");
        self.0 = Some(step(folder));
    }
}

impl<F: Folder<u64>> DynFold for FolderSlot<F> {
    fn consume(&mut self, item: u64) {
        self.update(|folder| folder.consume(item));
    }

    fn consume_iter(&mut self, items: &mut dyn Iterator<Item = u64>) {
        self.update(|folder| folder.consume_iter(items));
    }

    fn full(&self) -> bool {
        self.folder().full()
    }
}

impl<'c, F> DynFolder<'c> for FolderSlot<F>
where
    F: Folder<u64> + 'c,
    F::Result: Send + 'c,
{
    fn complete(self: Box<Self>) -> OpaqueSend<'c> {
        let folder = self.0.expect("a folder that panicked is not used again");
        OpaqueSend::new(folder.complete())
    }

    fn into_inner(self: Box<Self>) -> Opaque<'c> {
        Opaque::new(self.0.expect("a folder that panicked is not used again"))
    }
}

/// The folder of an [`ErasedConsumer`].
pub(crate) struct ErasedFolder<'c>(Box<dyn DynFolder<'c> + 'c>);

impl<'c> ErasedFolder<'c> {
    fn new<F>(folder: F) -> Self
    where
        F: Folder<u64> + 'c,
        F::Result: Send + 'c,
    {
        ErasedFolder(Box::new(FolderSlot(Some(folder))))
    }
}

impl<'c> Folder<u64> for ErasedFolder<'c> {
    type Result = OpaqueSend<'c>;

    // A constant cannot be forwarded through a trait object: an erased folder may be one
    // that stops early, so it says so (drivers then fold in blocks with a stop test between
    // them, which is right for every folder).
    const MAY_STOP_EARLY: bool = true;

    fn consume(mut self, item: u64) -> Self {
        self.0.consume(item);
        self
    }

    fn consume_iter<I>(mut self, iter: I) -> Self
    where
        I: IntoIterator<Item = u64>,
    {
        self.0.consume_iter(&mut iter.into_iter());
        self
    }

    fn complete(self) -> OpaqueSend<'c> {
        self.0.complete()
    }

    fn full(&self) -> bool {
        self.0.full()
    }
}

/// A folder by reference, handed to a producer's own `fold_with`.
struct FoldRef<'r>(&'r mut dyn DynFold);

impl Folder<u64> for FoldRef<'_> {
    type Result = ();

    fn consume(self, item: u64) -> Self {
        self.0.consume(item);
        self
    }

    fn consume_iter<I>(self, iter: I) -> Self
    where
        I: IntoIterator<Item = u64>,
    {
        self.0.consume_iter(&mut iter.into_iter());
        self
    }

    fn complete(self) {}

    fn full(&self) -> bool {
        self.0.full()
    }
}

// ---------------------------------------------------------------------------------------
// Reducers and consumers

trait DynReducer<'c>: Send {
    fn reduce(self: Box<Self>, left: OpaqueSend<'c>, right: OpaqueSend<'c>) -> OpaqueSend<'c>;
}

struct ReducerOf<R, T>(R, PhantomData<fn(T) -> T>);

impl<'c, R, T> DynReducer<'c> for ReducerOf<R, T>
where
    R: Reducer<T> + Send,
    T: Send + 'c,
{
    fn reduce(self: Box<Self>, left: OpaqueSend<'c>, right: OpaqueSend<'c>) -> OpaqueSend<'c> {
        // SAFETY: both results come from folders or reducers of consumers split from the one
        // consumer this reducer belongs to, whose `Result` is `T`.
        let (left, right) = unsafe { (left.take::<T>(), right.take::<T>()) };
        OpaqueSend::new(self.0.reduce(left, right))
    }
}

/// The reducer of an [`ErasedConsumer`].
pub(crate) struct ErasedReducer<'c>(Box<dyn DynReducer<'c> + 'c>);

impl<'c> ErasedReducer<'c> {
    fn new<R, T>(reducer: R) -> Self
    where
        R: Reducer<T> + Send + 'c,
        T: Send + 'c,
    {
        ErasedReducer(Box::new(ReducerOf(reducer, PhantomData)))
    }
}

impl<'c> Reducer<OpaqueSend<'c>> for ErasedReducer<'c> {
    fn reduce(self, left: OpaqueSend<'c>, right: OpaqueSend<'c>) -> OpaqueSend<'c> {
        self.0.reduce(left, right)
    }
}

type Split<'c> = (ErasedConsumer<'c>, ErasedConsumer<'c>, ErasedReducer<'c>);
type Continued<'c> = Result<ErasedFolder<'c>, (ErasedConsumer<'c>, ErasedFolder<'c>)>;

trait DynConsumer<'c>: Send {
    fn split_at(self: Box<Self>, index: usize) -> Split<'c>;
    fn split_at_sized(self: Box<Self>, index: usize, len: usize) -> Split<'c>;
    fn into_folder(self: Box<Self>) -> ErasedFolder<'c>;
    fn full(&self) -> bool;
    fn continue_folder(self: Box<Self>, folder: ErasedFolder<'c>) -> Continued<'c>;
    fn split_off_left(&self) -> ErasedConsumer<'c>;
    fn to_reducer(&self) -> ErasedReducer<'c>;
}

/// A consumer handed to `drive`: indexed only.
struct IndexedOnly<C>(C);
/// A consumer handed to `drive_unindexed`.
struct Unindexed<C>(C);

/// The methods both wrappers share, written once over the wrapper's constructor.
macro_rules! consumer_methods {
    ($wrap:ident) => {
        fn split_at(self: Box<Self>, index: usize) -> Split<'c> {
            let (left, right, reducer) = self.0.split_at(index);
            (
                ErasedConsumer::wrap($wrap(left)),
                ErasedConsumer::wrap($wrap(right)),
                ErasedReducer::new(reducer),
            )
        }

        fn split_at_sized(self: Box<Self>, index: usize, len: usize) -> Split<'c> {
            let (left, right, reducer) = self.0.split_at_sized(index, len);
            (
                ErasedConsumer::wrap($wrap(left)),
                ErasedConsumer::wrap($wrap(right)),
                ErasedReducer::new(reducer),
            )
        }

        fn into_folder(self: Box<Self>) -> ErasedFolder<'c> {
            ErasedFolder::new(self.0.into_folder())
        }

        fn full(&self) -> bool {
            self.0.full()
        }

        fn continue_folder(self: Box<Self>, folder: ErasedFolder<'c>) -> Continued<'c> {
            // SAFETY: the driver hands a consumer only folders of consumers split from the
            // same one, all made by `into_folder` above from a `C::Folder`.
            let folder = unsafe { folder.0.into_inner().take::<C::Folder>() };
            match self.0.continue_folder(folder) {
                Ok(folder) => Ok(ErasedFolder::new(folder)),
                Err((consumer, folder)) => Err((
                    ErasedConsumer::wrap($wrap(consumer)),
                    ErasedFolder::new(folder),
                )),
            }
        }
    };
}

impl<'c, C> DynConsumer<'c> for IndexedOnly<C>
where
    C: Consumer<u64> + 'c,
    C::Reducer: 'c,
    C::Result: 'c,
{
    consumer_methods!(IndexedOnly);

    fn split_off_left(&self) -> ErasedConsumer<'c> {
        unreachable!("a consumer given to `drive` was split as an unindexed one")
    }

    fn to_reducer(&self) -> ErasedReducer<'c> {
        unreachable!("a consumer given to `drive` was asked for an unindexed reducer")
    }
}

impl<'c, C> DynConsumer<'c> for Unindexed<C>
where
    C: UnindexedConsumer<u64> + 'c,
    C::Reducer: 'c,
    C::Result: 'c,
{
    consumer_methods!(Unindexed);

    fn split_off_left(&self) -> ErasedConsumer<'c> {
        ErasedConsumer::wrap(Unindexed(self.0.split_off_left()))
    }

    fn to_reducer(&self) -> ErasedReducer<'c> {
        ErasedReducer::new(self.0.to_reducer())
    }
}

/// Any consumer of `u64`, behind a trait object. It claims to be an `UnindexedConsumer`
/// always; one made for `drive` panics if used as such (an indexed iterator's `drive` has no
/// way to ask it).
pub(crate) struct ErasedConsumer<'c>(Box<dyn DynConsumer<'c> + 'c>);

impl<'c> ErasedConsumer<'c> {
    fn wrap(consumer: impl DynConsumer<'c> + 'c) -> Self {
        ErasedConsumer(Box::new(consumer))
    }
}

impl<'c> Consumer<u64> for ErasedConsumer<'c> {
    type Folder = ErasedFolder<'c>;
    type Reducer = ErasedReducer<'c>;
    type Result = OpaqueSend<'c>;

    fn split_at(self, index: usize) -> Split<'c> {
        self.0.split_at(index)
    }

    fn split_at_sized(self, index: usize, len: usize) -> Split<'c> {
        self.0.split_at_sized(index, len)
    }

    fn into_folder(self) -> ErasedFolder<'c> {
        self.0.into_folder()
    }

    fn full(&self) -> bool {
        self.0.full()
    }

    fn continue_folder(self, folder: ErasedFolder<'c>) -> Continued<'c> {
        self.0.continue_folder(folder)
    }
}

impl UnindexedConsumer<u64> for ErasedConsumer<'_> {
    fn split_off_left(&self) -> Self {
        self.0.split_off_left()
    }

    fn to_reducer(&self) -> Self::Reducer {
        self.0.to_reducer()
    }
}

// ---------------------------------------------------------------------------------------
// Producers and callbacks

/// The sequential iterator of an [`ErasedProducer`].
pub(crate) trait DynIter: DoubleEndedIterator<Item = u64> + ExactSizeIterator {}
impl<I: DoubleEndedIterator<Item = u64> + ExactSizeIterator> DynIter for I {}

trait DynProducer<'p>: Send {
    fn into_iter(self: Box<Self>) -> Box<dyn DynIter + 'p>;
    fn min_len(&self) -> usize;
    fn max_len(&self) -> usize;
    fn split_at(self: Box<Self>, index: usize) -> (ErasedProducer<'p>, ErasedProducer<'p>);
    fn fold_with(self: Box<Self>, folder: &mut dyn DynFold);
    fn duplicate(&self) -> Option<ErasedProducer<'p>>;
}

impl<'p, P: Producer<Item = u64> + 'p> DynProducer<'p> for P {
    fn into_iter(self: Box<Self>) -> Box<dyn DynIter + 'p> {
        Box::new(Producer::into_iter(*self))
    }

    fn min_len(&self) -> usize {
        Producer::min_len(self)
    }

    fn max_len(&self) -> usize {
        Producer::max_len(self)
    }

    fn split_at(self: Box<Self>, index: usize) -> (ErasedProducer<'p>, ErasedProducer<'p>) {
        let (left, right) = Producer::split_at(*self, index);
        (ErasedProducer::new(left), ErasedProducer::new(right))
    }

    fn fold_with(self: Box<Self>, folder: &mut dyn DynFold) {
        Producer::fold_with(*self, FoldRef(folder));
    }

    fn duplicate(&self) -> Option<ErasedProducer<'p>> {
        Producer::duplicate(self).map(ErasedProducer::new)
    }
}

/// Any producer of `u64`, behind a trait object.
pub(crate) struct ErasedProducer<'p>(Box<dyn DynProducer<'p> + 'p>);

impl<'p> ErasedProducer<'p> {
    fn new<P: Producer<Item = u64> + 'p>(producer: P) -> Self {
        ErasedProducer(Box::new(producer))
    }
}

impl<'p> Producer for ErasedProducer<'p> {
    type Item = u64;
    type IntoIter = Box<dyn DynIter + 'p>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }

    fn min_len(&self) -> usize {
        self.0.min_len()
    }

    fn max_len(&self) -> usize {
        self.0.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        self.0.split_at(index)
    }

    fn fold_with<F: Folder<u64>>(self, folder: F) -> F {
        let mut slot = FolderSlot(Some(folder));
        self.0.fold_with(&mut slot);
        slot.0.expect("a folder that panicked is not used again")
    }

    fn duplicate(&self) -> Option<Self> {
        self.0.duplicate()
    }
}

trait DynCallback<'c> {
    fn call(self: Box<Self>, producer: ErasedProducer<'_>) -> Opaque<'c>;
}

struct CallbackOf<CB>(CB);

impl<'c, CB> DynCallback<'c> for CallbackOf<CB>
where
    CB: ProducerCallback<u64>,
    CB::Output: 'c,
{
    fn call(self: Box<Self>, producer: ErasedProducer<'_>) -> Opaque<'c> {
        Opaque::new(self.0.callback(producer))
    }
}

/// Any producer callback for `u64`, behind a trait object.
struct ErasedCallback<'c>(Box<dyn DynCallback<'c> + 'c>);

impl<'c> ProducerCallback<u64> for ErasedCallback<'c> {
    type Output = Opaque<'c>;

    fn callback<P: Producer<Item = u64>>(self, producer: P) -> Opaque<'c> {
        self.0.call(ErasedProducer::new(producer))
    }
}

// ---------------------------------------------------------------------------------------
// Iterators

trait DynIndexed<'a>: Send {
    fn len(&self) -> usize;
    fn upper_len_by_position(&self) -> Option<usize>;
    fn drive_unindexed<'c>(self: Box<Self>, consumer: ErasedConsumer<'c>) -> OpaqueSend<'c>;
    fn drive<'c>(self: Box<Self>, consumer: ErasedConsumer<'c>) -> OpaqueSend<'c>;
    fn with_producer<'c>(self: Box<Self>, callback: ErasedCallback<'c>) -> Opaque<'c>;
}

impl<'a, I: IndexedParallelIterator<Item = u64> + 'a> DynIndexed<'a> for I {
    fn len(&self) -> usize {
        IndexedParallelIterator::len(self)
    }

    fn upper_len_by_position(&self) -> Option<usize> {
        ParallelIterator::upper_len_by_position(self)
    }

    fn drive_unindexed<'c>(self: Box<Self>, consumer: ErasedConsumer<'c>) -> OpaqueSend<'c> {
        ParallelIterator::drive_unindexed(*self, consumer)
    }

    fn drive<'c>(self: Box<Self>, consumer: ErasedConsumer<'c>) -> OpaqueSend<'c> {
        IndexedParallelIterator::drive(*self, consumer)
    }

    fn with_producer<'c>(self: Box<Self>, callback: ErasedCallback<'c>) -> Opaque<'c> {
        IndexedParallelIterator::with_producer(*self, callback)
    }
}

/// Any indexed parallel iterator of `u64`.
pub(crate) struct Indexed<'a>(Box<dyn DynIndexed<'a> + 'a>);

impl<'a> Indexed<'a> {
    pub(crate) fn new(iter: impl IndexedParallelIterator<Item = u64> + 'a) -> Self {
        Indexed(Box::new(iter))
    }
}

impl ParallelIterator for Indexed<'_> {
    type Item = u64;

    fn drive_unindexed<C: UnindexedConsumer<u64>>(self, consumer: C) -> C::Result {
        let result = self
            .0
            .drive_unindexed(ErasedConsumer::wrap(Unindexed(consumer)));
        // SAFETY: the result of driving an `ErasedConsumer` made from a `C` is the `Result`
        // of that `C`, made by its folders and reducers.
        unsafe { result.take::<C::Result>() }
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.0.len())
    }

    fn upper_len_by_position(&self) -> Option<usize> {
        self.0.upper_len_by_position()
    }
}

impl IndexedParallelIterator for Indexed<'_> {
    fn drive<C: Consumer<u64>>(self, consumer: C) -> C::Result {
        let result = self.0.drive(ErasedConsumer::wrap(IndexedOnly(consumer)));
        // SAFETY: as in `drive_unindexed`.
        unsafe { result.take::<C::Result>() }
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn with_producer<CB: ProducerCallback<u64>>(self, callback: CB) -> CB::Output {
        let output = self
            .0
            .with_producer(ErasedCallback(Box::new(CallbackOf(callback))));
        // SAFETY: `CallbackOf::call` made `output` from what `callback` returned.
        unsafe { output.take::<CB::Output>() }
    }
}

trait DynPar<'a>: Send {
    fn opt_len(&self) -> Option<usize>;
    fn upper_len_by_position(&self) -> Option<usize>;
    fn drive_unindexed<'c>(self: Box<Self>, consumer: ErasedConsumer<'c>) -> OpaqueSend<'c>;
}

impl<'a, I: ParallelIterator<Item = u64> + 'a> DynPar<'a> for I {
    fn opt_len(&self) -> Option<usize> {
        ParallelIterator::opt_len(self)
    }

    fn upper_len_by_position(&self) -> Option<usize> {
        ParallelIterator::upper_len_by_position(self)
    }

    fn drive_unindexed<'c>(self: Box<Self>, consumer: ErasedConsumer<'c>) -> OpaqueSend<'c> {
        ParallelIterator::drive_unindexed(*self, consumer)
    }
}

/// Any parallel iterator of `u64`.
pub(crate) struct Par<'a>(Box<dyn DynPar<'a> + 'a>);

impl<'a> Par<'a> {
    pub(crate) fn new(iter: impl ParallelIterator<Item = u64> + 'a) -> Self {
        Par(Box::new(iter))
    }
}

impl ParallelIterator for Par<'_> {
    type Item = u64;

    fn drive_unindexed<C: UnindexedConsumer<u64>>(self, consumer: C) -> C::Result {
        let result = self
            .0
            .drive_unindexed(ErasedConsumer::wrap(Unindexed(consumer)));
        // SAFETY: as in `Indexed::drive_unindexed`.
        unsafe { result.take::<C::Result>() }
    }

    fn opt_len(&self) -> Option<usize> {
        self.0.opt_len()
    }

    fn upper_len_by_position(&self) -> Option<usize> {
        self.0.upper_len_by_position()
    }
}
