//! Conversions into parallel iterators: by value, by reference and by mutable reference.

use crate::iter::ParallelIterator;

/// Conversion into a [`ParallelIterator`]; the parallel `IntoIterator`.
///
/// ```
/// use weft::prelude::*;
///
/// let doubled: Vec<i32> = vec![1, 2, 3].into_par_iter().map(|x| x * 2).collect();
/// assert_eq!(doubled, [2, 4, 6]);
/// ```
pub trait IntoParallelIterator {
    /// The parallel iterator this turns into.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The type of item it yields.
    type Item: Send;

    /// Converts `self` into a parallel iterator.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// assert_eq!((0..10).into_par_iter().sum::<i32>(), 45);
    /// ```
    fn into_par_iter(self) -> Self::Iter;
}

impl<T: ParallelIterator> IntoParallelIterator for T {
    type Iter = T;
    type Item = T::Item;

    fn into_par_iter(self) -> T {
        self
    }
}

/// `par_iter()`: a parallel iterator over shared references, for any `C` where `&C`
/// converts into a parallel iterator.
///
/// ```
/// use weft::prelude::*;
///
/// let v = vec![1, 2, 3];
/// assert_eq!(v.par_iter().sum::<i32>(), 6);
/// ```
pub trait IntoParallelRefIterator<'data> {
    /// The parallel iterator over references.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The reference type yielded.
    type Item: Send + 'data;

    /// Iterates in parallel over references to the items of `self`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let words = ["a", "bb", "ccc"];
    /// assert_eq!(words.par_iter().map(|w| w.len()).sum::<usize>(), 6);
    /// ```
    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefIterator<'data> for I
where
    &'data I: IntoParallelIterator,
{
    type Iter = <&'data I as IntoParallelIterator>::Iter;
    type Item = <&'data I as IntoParallelIterator>::Item;

    fn par_iter(&'data self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// `par_iter_mut()`: a parallel iterator over mutable references.
///
/// ```
/// use weft::prelude::*;
///
/// let mut v = vec![1, 2, 3];
/// v.par_iter_mut().for_each(|x| *x *= 10);
/// assert_eq!(v, [10, 20, 30]);
/// ```
pub trait IntoParallelRefMutIterator<'data> {
    /// The parallel iterator over mutable references.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The mutable reference type yielded.
    type Item: Send + 'data;

    /// Iterates in parallel over mutable references to the items of `self`.
    ///
    /// ```
    /// use weft::prelude::*;
    ///
    /// let mut v = [1, 2, 3];
    /// v.par_iter_mut().for_each(|x| *x += 1);
    /// assert_eq!(v, [2, 3, 4]);
    /// ```
    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefMutIterator<'data> for I
where
    &'data mut I: IntoParallelIterator,
{
    type Iter = <&'data mut I as IntoParallelIterator>::Iter;
    type Item = <&'data mut I as IntoParallelIterator>::Item;

    fn par_iter_mut(&'data mut self) -> Self::Iter {
        self.into_par_iter()
    }
}
