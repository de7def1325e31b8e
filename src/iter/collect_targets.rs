//! `FromParallelIterator` and `ParallelExtend` for the std collections other than `Vec`.
//!
//! Unordered and node-based collections gather the items into a list of per-piece vectors
//! in parallel, then insert them sequentially (hashing and tree insertion are the only
//! sequential part). `Result`, `Option` and `Cow` wrap another collection.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use either::Either;

use crate::iter::consumer::collect::collect_vec_list;
use crate::iter::{FromParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator};

/// Gathers the items in parallel and appends them to `target` in order.
fn extend_in_order<C, T, I>(target: &mut C, par_iter: I)
where
    C: Extend<T>,
    T: Send,
    I: IntoParallelIterator<Item = T>,
{
    for piece in collect_vec_list(par_iter.into_par_iter()) {
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

/// Copies `&T` items into a `Vec<T>`.
impl<'a, T: Copy + Send + Sync + 'a> ParallelExtend<&'a T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = &'a T>>(&mut self, par_iter: I) {
        self.par_extend(par_iter.into_par_iter().copied())
    }
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

/// Collected in order.
impl<T: Send> FromParallelIterator<T> for LinkedList<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        build(par_iter)
    }
}

/// Appended in order.
impl<T: Send> ParallelExtend<T> for LinkedList<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        extend_in_order(self, par_iter)
    }
}

impl<T: Ord + Send> FromParallelIterator<T> for BinaryHeap<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into()
    }
}

impl<T: Ord + Send> ParallelExtend<T> for BinaryHeap<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        extend_in_order(self, par_iter)
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
        extend_in_order(self, par_iter)
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
        extend_in_order(self, par_iter)
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
        let pieces = par_iter
            .into_par_iter()
            .fold(String::new, push_char)
            .collect_vec_list();
        append_strings(self, pieces)
    }
}

fn push_char(mut s: String, c: char) -> String {
    s.push(c);
    s
}

fn push_str<S: AsRef<str>>(mut s: String, piece: S) -> String {
    s.push_str(piece.as_ref());
    s
}

fn append_strings(target: &mut String, pieces: LinkedList<Vec<String>>) {
    target.reserve(pieces.iter().flatten().map(String::len).sum());
    pieces
        .iter()
        .flatten()
        .for_each(|piece| target.push_str(piece));
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
        let pieces = par_iter
            .into_par_iter()
            .fold(String::new, push_str)
            .collect_vec_list();
        append_strings(self, pieces)
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
        let pieces = par_iter
            .into_par_iter()
            .fold(String::new, push_str)
            .collect_vec_list();
        append_strings(self, pieces)
    }
}

/// Concatenated in order.
impl<'a> FromParallelIterator<Cow<'a, str>> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = Cow<'a, str>>>(par_iter: I) -> Self {
        let pieces = par_iter
            .into_par_iter()
            .fold(String::new, push_str)
            .collect_vec_list();
        let mut s = String::new();
        append_strings(&mut s, pieces);
        s
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
