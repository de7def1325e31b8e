//! `FromParallelIterator` and `ParallelExtend` for the std collections other than `Vec`.
//!
//! Unordered and node-based collections gather the items into a list of per-piece vectors
//! in parallel, then insert them sequentially (hashing and tree insertion are the only
//! sequential part). `Result`, `Option` and `Cow` wrap another collection.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hash};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use either::Either;

use crate::iter::consumer::collect::{adopt_first_piece, collect_piece_list, collect_vec_list};
use crate::iter::consumer::unzip::{partition_into, unzip_into};
use crate::iter::{FromParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator};

/// Gathers the items in parallel and appends them to `target` in order.
fn extend_in_order<C, T, I>(target: &mut C, par_iter: I)
where
    C: Extend<T>,
    T: Send,
    I: IntoParallelIterator<Item = T>,
{
    extend_reserved(target, par_iter, |_, _| {});
}

/// [`extend_in_order`] for a collection with a `reserve`: room for all the items is made
/// once, before the first insertion, as Rayon does. `Extend` reserves per piece, and a hash
/// table that grows while a later piece goes in moves every item already in it again.
fn extend_reserved<C, T, I>(target: &mut C, par_iter: I, reserve: impl FnOnce(&mut C, usize))
where
    C: Extend<T>,
    T: Send,
    I: IntoParallelIterator<Item = T>,
{
    let pieces = collect_vec_list(par_iter.into_par_iter());
    reserve(target, pieces.iter().map(Vec::len).sum());
    for piece in pieces {
        target.extend(piece);
    }
}

/// Builds `C` with `ParallelExtend`, starting from `C::default()`.
fn build<C, T, I>(par_iter: I) -> C
where
    C: Default + ParallelExtend<T>,
    T: Send,
    I: IntoParallelIterator<Item = T>,
{
    let mut collection = C::default();
    collection.par_extend(par_iter);
    collection
}

/// `ParallelExtend<&T>` for `T: Copy`, by copying the items into `ParallelExtend<T>`
/// (as `Extend<&T>` does for the std collections).
macro_rules! extend_by_copy {
    ($($collection:ident<T $(, $hasher:ident)?> $(where T: $($bound:path),+)?;)*) => {$(
        /// Copies the `&T` items in, as `Extend<&T>` does.
        impl<'a, T $(, $hasher)?> ParallelExtend<&'a T> for $collection<T $(, $hasher)?>
        where
            T: Copy + Send + Sync + 'a $($(+ $bound)+)?,
            $($hasher: BuildHasher + Send,)?
        {
            fn par_extend<I: IntoParallelIterator<Item = &'a T>>(&mut self, par_iter: I) {
                ParallelExtend::<T>::par_extend(self, par_iter.into_par_iter().copied())
            }
        }
    )*};
}

extend_by_copy! {
    Vec<T>;
    VecDeque<T>;
    LinkedList<T>;
    BinaryHeap<T> where T: Ord;
    BTreeSet<T> where T: Ord;
    HashSet<T, S> where T: Eq, Hash;
}

/// Collected in order.
impl<T: Send> FromParallelIterator<T> for VecDeque<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into()
    }
}

/// Appended in order.
impl<T: Send> ParallelExtend<T> for VecDeque<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        let items: Vec<T> = par_iter.into_par_iter().collect();
        self.extend(items);
    }
}

/// Collected in order.
impl<T: Send> FromParallelIterator<T> for Box<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into_boxed_slice()
    }
}

/// Collected in order.
///
/// ```
/// use std::rc::Rc;
/// use weft::prelude::*;
///
/// let squares: Rc<[u32]> = (1..4u32).into_par_iter().map(|x| x * x).collect();
/// assert_eq!(&*squares, &[1, 4, 9]);
/// ```
impl<T: Send> FromParallelIterator<T> for Rc<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into()
    }
}

/// Collected in order.
impl<T: Send> FromParallelIterator<T> for std::sync::Arc<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into()
    }
}

/// Concatenated in order (from anything a `String` collects).
impl<T: Send> FromParallelIterator<T> for Box<str>
where
    String: FromParallelIterator<T>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        String::from_par_iter(par_iter).into_boxed_str()
    }
}

/// Collects the owned form.
impl<'a, C, T> FromParallelIterator<T> for Cow<'a, C>
where
    C: ToOwned + ?Sized,
    C::Owned: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Cow::Owned(C::Owned::from_par_iter(par_iter))
    }
}

/// Collected in order: each piece links its own nodes (so the allocations run in
/// parallel too), and neighbouring lists are joined in order, each join O(1).
impl<T: Send> FromParallelIterator<T> for LinkedList<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        let pieces: LinkedList<LinkedList<T>> = collect_piece_list(par_iter.into_par_iter());
        let mut list = LinkedList::new();
        for mut piece in pieces {
            list.append(&mut piece);
        }
        list
    }
}

/// Appended in order.
impl<T: Send> ParallelExtend<T> for LinkedList<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        self.append(&mut LinkedList::from_par_iter(par_iter));
    }
}

impl<T: Ord + Send> FromParallelIterator<T> for BinaryHeap<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into()
    }
}

impl<T: Ord + Send> ParallelExtend<T> for BinaryHeap<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        extend_reserved(self, par_iter, |target, len| target.reserve(len))
    }
}

/// Later items win on equal keys, as with `Extend`.
impl<K, V, S> FromParallelIterator<(K, V)> for HashMap<K, V, S>
where
    K: Eq + Hash + Send,
    V: Send,
    S: BuildHasher + Default + Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = (K, V)>>(par_iter: I) -> Self {
        build(par_iter)
    }
}

/// Later items win on equal keys, as with `Extend`.
impl<K, V, S> ParallelExtend<(K, V)> for HashMap<K, V, S>
where
    K: Eq + Hash + Send,
    V: Send,
    S: BuildHasher + Send,
{
    fn par_extend<I: IntoParallelIterator<Item = (K, V)>>(&mut self, par_iter: I) {
        extend_reserved(self, par_iter, |target, len| target.reserve(len))
    }
}

impl<T, S> FromParallelIterator<T> for HashSet<T, S>
where
    T: Eq + Hash + Send,
    S: BuildHasher + Default + Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        build(par_iter)
    }
}

impl<T, S> ParallelExtend<T> for HashSet<T, S>
where
    T: Eq + Hash + Send,
    S: BuildHasher + Send,
{
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        extend_reserved(self, par_iter, |target, len| target.reserve(len))
    }
}

/// Later items win on equal keys, as with `Extend`.
impl<K: Ord + Send, V: Send> FromParallelIterator<(K, V)> for BTreeMap<K, V> {
    fn from_par_iter<I: IntoParallelIterator<Item = (K, V)>>(par_iter: I) -> Self {
        build(par_iter)
    }
}

/// Later items win on equal keys, as with `Extend`.
impl<K: Ord + Send, V: Send> ParallelExtend<(K, V)> for BTreeMap<K, V> {
    fn par_extend<I: IntoParallelIterator<Item = (K, V)>>(&mut self, par_iter: I) {
        extend_in_order(self, par_iter)
    }
}

impl<T: Ord + Send> FromParallelIterator<T> for BTreeSet<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        build(par_iter)
    }
}

impl<T: Ord + Send> ParallelExtend<T> for BTreeSet<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        extend_in_order(self, par_iter)
    }
}

/// Concatenated in order.
impl FromParallelIterator<char> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = char>>(par_iter: I) -> Self {
        build(par_iter)
    }
}

/// Appended in order.
impl ParallelExtend<char> for String {
    fn par_extend<I: IntoParallelIterator<Item = char>>(&mut self, par_iter: I) {
        let mut pieces: LinkedList<String> = collect_piece_list(par_iter.into_par_iter());
        adopt_first_piece(self, &mut pieces);
        self.reserve(pieces.iter().map(String::len).sum());
        pieces.iter().for_each(|piece| self.push_str(piece));
    }
}

/// Appended in order.
///
/// ```
/// use weft::prelude::*;
///
/// let mut s = String::from(">");
/// s.par_extend(['a', 'ñ', 'b'].par_iter());
/// assert_eq!(s, ">añb");
/// ```
impl<'a> ParallelExtend<&'a char> for String {
    fn par_extend<I: IntoParallelIterator<Item = &'a char>>(&mut self, par_iter: I) {
        self.par_extend(par_iter.into_par_iter().copied())
    }
}

/// Appends string-like pieces (to a `String` or `OsString`) in order: each worker
/// concatenates its run of pieces into one string, then the runs are appended.
fn extend_concat<T, S, I>(target: &mut T, par_iter: I)
where
    T: Default + Send + Extend<S> + Extend<T>,
    S: Send,
    I: IntoParallelIterator<Item = S>,
{
    let runs = par_iter
        .into_par_iter()
        .fold(T::default, |mut run, piece| {
            run.extend(Some(piece));
            run
        })
        .collect_vec_list();
    target.extend(runs.into_iter().flatten());
}

/// Concatenated in order.
impl<'a> FromParallelIterator<&'a char> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = &'a char>>(par_iter: I) -> Self {
        par_iter.into_par_iter().copied().collect()
    }
}

/// Concatenated in order.
impl<'a> FromParallelIterator<&'a str> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = &'a str>>(par_iter: I) -> Self {
        build(par_iter)
    }
}

/// Appended in order.
impl<'a> ParallelExtend<&'a str> for String {
    fn par_extend<I: IntoParallelIterator<Item = &'a str>>(&mut self, par_iter: I) {
        extend_concat(self, par_iter)
    }
}

/// Concatenated in order.
impl FromParallelIterator<String> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = String>>(par_iter: I) -> Self {
        build(par_iter)
    }
}

/// Appended in order.
impl ParallelExtend<String> for String {
    fn par_extend<I: IntoParallelIterator<Item = String>>(&mut self, par_iter: I) {
        extend_concat(self, par_iter)
    }
}

/// Concatenated in order.
///
/// ```
/// use weft::prelude::*;
///
/// let parts: Vec<Box<str>> = vec!["ab".into(), "cd".into()];
/// let s: String = parts.into_par_iter().collect();
/// assert_eq!(s, "abcd");
/// ```
impl FromParallelIterator<Box<str>> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = Box<str>>>(par_iter: I) -> Self {
        build(par_iter)
    }
}

/// Appended in order.
///
/// ```
/// use weft::prelude::*;
///
/// let mut s = String::from("x");
/// s.par_extend(vec![Box::<str>::from("yz"), "w".into()]);
/// assert_eq!(s, "xyzw");
/// ```
impl ParallelExtend<Box<str>> for String {
    fn par_extend<I: IntoParallelIterator<Item = Box<str>>>(&mut self, par_iter: I) {
        extend_concat(self, par_iter)
    }
}

/// Appended in order.
///
/// ```
/// use std::borrow::Cow;
/// use weft::prelude::*;
///
/// let mut s = String::new();
/// s.par_extend(vec![Cow::Borrowed("a"), Cow::Owned("bc".to_string())]);
/// assert_eq!(s, "abc");
/// ```
impl<'a> ParallelExtend<Cow<'a, str>> for String {
    fn par_extend<I: IntoParallelIterator<Item = Cow<'a, str>>>(&mut self, par_iter: I) {
        extend_concat(self, par_iter)
    }
}

/// Concatenated in order.
impl<'a> FromParallelIterator<Cow<'a, str>> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = Cow<'a, str>>>(par_iter: I) -> Self {
        build(par_iter)
    }
}

/// `Err` with one of the errors (the first one any thread saw) if there is one; otherwise
/// `Ok` with the collection. Stops early after an error.
impl<C, T, E> FromParallelIterator<Result<T, E>> for Result<C, E>
where
    C: FromParallelIterator<T>,
    T: Send,
    E: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Result<T, E>>>(par_iter: I) -> Self {
        let saved_error = Mutex::new(None);
        let save = |item: Result<T, E>| match item {
            Ok(value) => Some(value),
            Err(error) => {
                // The lock is held only for this store: no user code runs under it.
                let mut saved = saved_error.lock().unwrap_or_else(PoisonError::into_inner);
                saved.get_or_insert(error);
                None
            }
        };
        let collection = par_iter.into_par_iter().map(save).while_some().collect();
        match saved_error
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
        {
            Some(error) => Err(error),
            None => Ok(collection),
        }
    }
}

/// `None` if any item is `None`; otherwise `Some` with the collection. Stops early.
impl<C, T> FromParallelIterator<Option<T>> for Option<C>
where
    C: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Option<T>>>(par_iter: I) -> Self {
        let found_none = AtomicBool::new(false);
        let note = |item: Option<T>| {
            if item.is_none() {
                // ORDERING: read only after the parallel work has joined (join
                // synchronizes), so Relaxed suffices.
                found_none.store(true, Ordering::Relaxed);
            }
            item
        };
        let collection = par_iter.into_par_iter().map(note).while_some().collect();
        (!found_none.into_inner()).then_some(collection)
    }
}

/// Unzips pairs into two collections, in order (the same as `unzip`).
///
/// ```
/// use weft::prelude::*;
///
/// let (a, b): (Vec<i32>, String) = vec![(1, 'x'), (2, 'y')].into_par_iter().collect();
/// assert_eq!((a, b), (vec![1, 2], "xy".to_string()));
/// ```
impl<A, B, FromA, FromB> FromParallelIterator<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Default + Send + ParallelExtend<A>,
    FromB: Default + Send + ParallelExtend<B>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = (A, B)>>(par_iter: I) -> Self {
        par_iter.into_par_iter().unzip()
    }
}

/// Sends `Left`s to the first collection and `Right`s to the second, in order.
///
/// ```
/// use weft::iter::Either;
/// use weft::prelude::*;
///
/// let (l, r): (Vec<i32>, Vec<char>) =
///     vec![Either::Left(1), Either::Right('a'), Either::Left(2)].into_par_iter().collect();
/// assert_eq!((l, r), (vec![1, 2], vec!['a']));
/// ```
impl<L, R, A, B> FromParallelIterator<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Default + Send + ParallelExtend<L>,
    B: Default + Send + ParallelExtend<R>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Either<L, R>>>(par_iter: I) -> Self {
        par_iter
            .into_par_iter()
            .partition_map(std::convert::identity)
    }
}

/// Copies the `(&K, &V)` entries in, as `Extend<(&K, &V)>` does (later entries win).
///
/// ```
/// use std::collections::HashMap;
/// use weft::prelude::*;
///
/// let source: HashMap<u8, u8> = (0..10).map(|k| (k, k * k)).collect();
/// let mut copy = HashMap::new();
/// copy.par_extend(source.par_iter());
/// assert_eq!(copy, source);
/// ```
impl<'a, K, V, S> ParallelExtend<(&'a K, &'a V)> for HashMap<K, V, S>
where
    K: Copy + Eq + Hash + Send + Sync + 'a,
    V: Copy + Send + Sync + 'a,
    S: BuildHasher + Send,
{
    fn par_extend<I: IntoParallelIterator<Item = (&'a K, &'a V)>>(&mut self, par_iter: I) {
        self.par_extend(par_iter.into_par_iter().map(copy_entry))
    }
}

/// Copies the `(&K, &V)` entries in, as `Extend<(&K, &V)>` does (later entries win).
impl<'a, K, V> ParallelExtend<(&'a K, &'a V)> for BTreeMap<K, V>
where
    K: Copy + Ord + Send + Sync + 'a,
    V: Copy + Send + Sync + 'a,
{
    fn par_extend<I: IntoParallelIterator<Item = (&'a K, &'a V)>>(&mut self, par_iter: I) {
        self.par_extend(par_iter.into_par_iter().map(copy_entry))
    }
}

fn copy_entry<K: Copy, V: Copy>((key, value): (&K, &V)) -> (K, V) {
    (*key, *value)
}

/// Concatenated in order.
///
/// ```
/// use std::ffi::{OsStr, OsString};
/// use weft::prelude::*;
///
/// let parts = ["a", "b", "c"];
/// let joined: OsString = parts.par_iter().map(OsStr::new).collect();
/// assert_eq!(joined, "abc");
/// ```
impl<'a> FromParallelIterator<&'a OsStr> for OsString {
    fn from_par_iter<I: IntoParallelIterator<Item = &'a OsStr>>(par_iter: I) -> Self {
        build(par_iter)
    }
}

/// Concatenated in order.
impl FromParallelIterator<OsString> for OsString {
    fn from_par_iter<I: IntoParallelIterator<Item = OsString>>(par_iter: I) -> Self {
        build(par_iter)
    }
}

/// Concatenated in order.
impl<'a> FromParallelIterator<Cow<'a, OsStr>> for OsString {
    fn from_par_iter<I: IntoParallelIterator<Item = Cow<'a, OsStr>>>(par_iter: I) -> Self {
        build(par_iter)
    }
}

/// Appended in order.
///
/// ```
/// use std::ffi::{OsStr, OsString};
/// use weft::prelude::*;
///
/// let mut path = OsString::from("x");
/// path.par_extend(vec![OsStr::new("y"), OsStr::new("z")]);
/// assert_eq!(path, "xyz");
/// ```
impl<'a> ParallelExtend<&'a OsStr> for OsString {
    fn par_extend<I: IntoParallelIterator<Item = &'a OsStr>>(&mut self, par_iter: I) {
        extend_concat(self, par_iter)
    }
}

/// Appended in order.
impl ParallelExtend<OsString> for OsString {
    fn par_extend<I: IntoParallelIterator<Item = OsString>>(&mut self, par_iter: I) {
        extend_concat(self, par_iter)
    }
}

/// Appended in order.
impl<'a> ParallelExtend<Cow<'a, OsStr>> for OsString {
    fn par_extend<I: IntoParallelIterator<Item = Cow<'a, OsStr>>>(&mut self, par_iter: I) {
        extend_concat(self, par_iter)
    }
}

/// Extends the two collections with the pairs' parts, in order (as `unzip` would).
///
/// ```
/// use weft::prelude::*;
///
/// let mut pair = (vec![0], String::from("-"));
/// pair.par_extend(vec![(1, 'a'), (2, 'b')]);
/// assert_eq!(pair, (vec![0, 1, 2], "-ab".to_string()));
/// ```
impl<A, B, FromA, FromB> ParallelExtend<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Send + ParallelExtend<A>,
    FromB: Send + ParallelExtend<B>,
{
    fn par_extend<I: IntoParallelIterator<Item = (A, B)>>(&mut self, par_iter: I) {
        unzip_into(par_iter.into_par_iter(), &mut self.0, &mut self.1)
    }
}

/// Extends the first collection with the `Left`s and the second with the `Right`s, in
/// order (as `partition_map` would).
///
/// ```
/// use weft::iter::Either;
/// use weft::prelude::*;
///
/// let mut sides = (vec![0], vec!['z']);
/// sides.par_extend(vec![Either::Left(1), Either::Right('a'), Either::Left(2)]);
/// assert_eq!(sides, (vec![0, 1, 2], vec!['z', 'a']));
/// ```
impl<L, R, A, B> ParallelExtend<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + ParallelExtend<L>,
    B: Send + ParallelExtend<R>,
{
    fn par_extend<I: IntoParallelIterator<Item = Either<L, R>>>(&mut self, par_iter: I) {
        partition_into(par_iter.into_par_iter(), &mut self.0, &mut self.1)
    }
}

/// Extends whichever collection the `Either` holds.
///
/// ```
/// use std::collections::VecDeque;
/// use weft::iter::Either;
/// use weft::prelude::*;
///
/// let mut target: Either<Vec<u8>, VecDeque<u8>> = Either::Right(VecDeque::new());
/// target.par_extend(vec![1, 2, 3]);
/// assert_eq!(target.right(), Some(VecDeque::from(vec![1, 2, 3])));
/// ```
impl<L, R, T> ParallelExtend<T> for Either<L, R>
where
    L: ParallelExtend<T>,
    R: ParallelExtend<T>,
    T: Send,
{
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        match self {
            Either::Left(collection) => collection.par_extend(par_iter),
            Either::Right(collection) => collection.par_extend(par_iter),
        }
    }
}
