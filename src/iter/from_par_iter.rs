//! `FromParallelIterator` and `ParallelExtend`: the traits behind `collect` and
//! `par_extend`, with their implementations for `Vec` and `()`. Other collections are in
//! `collect_targets.rs`.

use crate::iter::consumer::collect::extend_vec;
use crate::iter::{IntoParallelIterator, ParallelIterator};

/// Builds a collection from a parallel iterator: the parallel `FromIterator`.
///
/// ```
/// use weft::prelude::*;
///
/// let v = Vec::from_par_iter((0..4).into_par_iter().map(|x| x + 1));
/// assert_eq!(v, [1, 2, 3, 4]);
/// ```
pub trait FromParallelIterator<T>
where
    T: Send,
{
    /// Builds `Self` from the items of `par_iter`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let s = String::from_par_iter(vec!['h', 'i']);
    /// assert_eq!(s, "hi");
    /// ```
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>;
}

/// Extends a collection with the items of a parallel iterator: the parallel `Extend`.
///
/// ```
/// use weft::prelude::*;
///
/// let mut v = vec![0];
/// v.par_extend((1..4).into_par_iter());
/// assert_eq!(v, [0, 1, 2, 3]);
/// ```
pub trait ParallelExtend<T>
where
    T: Send,
{
    /// Adds the items of `par_iter` to `self`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = vec!['a'];
    /// v.par_extend(vec!['b', 'c']);
    /// assert_eq!(v, ['a', 'b', 'c']);
    /// ```
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>;
}

/// Collected in order; indexed iterators write straight into the vector's buffer.
impl<T: Send> FromParallelIterator<T> for Vec<T> {
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>,
    {
        let mut vec = Vec::new();
        extend_vec(&mut vec, par_iter.into_par_iter());
        vec
    }
}

/// Appended in order; indexed iterators write straight into the vector's buffer.
impl<T: Send> ParallelExtend<T> for Vec<T> {
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>,
    {
        extend_vec(self, par_iter.into_par_iter())
    }
}

/// Runs the iterator for its effects (and panics); useful with `Result<(), E>`.
impl FromParallelIterator<()> for () {
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = ()>,
    {
        par_iter.into_par_iter().for_each(drop)
    }
}

/// Runs the iterator for its effects (and panics).
///
/// ```
/// use weft::prelude::*;
///
/// let mut unit = ();
/// unit.par_extend((0..10).into_par_iter().map(|_| ()));
/// ```
impl ParallelExtend<()> for () {
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = ()>,
    {
        par_iter.into_par_iter().for_each(drop)
    }
}
