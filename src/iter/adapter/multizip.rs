//! Tuples of indexed parallel iterables zip into a parallel iterator of tuples (Rayon's
//! `MultiZip`): `(a, b, c).into_par_iter()` is `a.zip(b).zip(c)` with the nesting undone.
//! Tuples of 1 to 12 elements work by value, by reference (`par_iter()` of each element)
//! and by mutable reference (`par_iter_mut()` of each element).

use crate::iter::plumbing::*;
use crate::iter::{
    IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelIterator,
};

/// The iterator over a tuple of indexed parallel iterators, from `into_par_iter()` on the
/// tuple (or on a reference to it); as long as the shortest.
///
/// ```
/// use weft::prelude::*;
///
/// let a = [1, 2, 3];
/// let v: Vec<(&i32, char, usize)> = (&a, vec!['x', 'y', 'z'], 0..3).into_par_iter().collect();
/// assert_eq!(v, [(&1, 'x', 0), (&2, 'y', 1), (&3, 'z', 2)]);
///
/// // By reference: each element's `par_iter()`; by mutable reference: `par_iter_mut()`.
/// let mut pair = (vec![1, 2], vec![10, 20]);
/// let sums: Vec<i32> = (&pair).into_par_iter().map(|(x, y)| x + y).collect();
/// assert_eq!(sums, [11, 22]);
/// (&mut pair).into_par_iter().for_each(|(x, y)| std::mem::swap(x, y));
/// assert_eq!(pair, (vec![10, 20], vec![1, 2]));
/// ```
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct MultiZip<T> {
    tuple: T,
}

/// The pattern `((a, b), c)…` that `a.zip(b).zip(c)…` yields, for the given names.
macro_rules! nested_pattern {
    (@ $acc:pat,) => { $acc };
    (@ $acc:pat, $next:ident $($rest:ident)*) => { nested_pattern!(@ ($acc, $next), $($rest)*) };
    ($first:ident $($rest:ident)*) => { nested_pattern!(@ $first, $($rest)*) };
}

macro_rules! multizip {
    ($(($($T:ident $v:ident $idx:tt),+))*) => {$(
        impl<$($T),+> IntoParallelIterator for ($($T,)+)
        where
            $($T: IntoParallelIterator, $T::Iter: IndexedParallelIterator,)+
        {
            type Iter = MultiZip<($($T::Iter,)+)>;
            type Item = ($($T::Item,)+);

            fn into_par_iter(self) -> Self::Iter {
                MultiZip { tuple: ($(self.$idx.into_par_iter(),)+) }
            }
        }

        multizip!(@by_ref [&'a] IntoParallelRefIterator par_iter; $($T $idx),+);
        multizip!(@by_ref [&'a mut] IntoParallelRefMutIterator par_iter_mut; $($T $idx),+);

        impl<$($T),+> ParallelIterator for MultiZip<($($T,)+)>
        where
            $($T: IndexedParallelIterator,)+
        {
            type Item = ($($T::Item,)+);

            fn drive_unindexed<CONSUMER>(self, consumer: CONSUMER) -> CONSUMER::Result
            where
                CONSUMER: UnindexedConsumer<Self::Item>,
            {
                bridge(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$($T),+> IndexedParallelIterator for MultiZip<($($T,)+)>
        where
            $($T: IndexedParallelIterator,)+
        {
            fn drive<CONSUMER>(self, consumer: CONSUMER) -> CONSUMER::Result
            where
                CONSUMER: Consumer<Self::Item>,
            {
                bridge(self, consumer)
            }

            fn len(&self) -> usize {
                let ($($v,)+) = &self.tuple;
                let mut len = usize::MAX;
                $(len = Ord::min(len, $v.len());)+
                len
            }

            fn with_producer<CB>(self, callback: CB) -> CB::Output
            where
                CB: ProducerCallback<Self::Item>,
            {
                let ($($v,)+) = self.tuple;
                multizip!(@zip $($v)+)
                    .map(|nested_pattern!($($v)+)| ($($v,)+))
                    .with_producer(callback)
            }
        }
    )*};
    (@zip $first:ident $($rest:ident)*) => { $first $(.zip($rest))* };
    // A tuple by (mutable) reference zips its elements' `par_iter()` (`par_iter_mut()`).
    (@by_ref [$($reference:tt)+] $Trait:ident $method:ident; $($T:ident $idx:tt),+) => {
        impl<'a, $($T),+> IntoParallelIterator for $($reference)+ ($($T,)+)
        where
            $($T: $Trait<'a>, $T::Iter: IndexedParallelIterator,)+
        {
            type Iter = MultiZip<($($T::Iter,)+)>;
            type Item = ($($T::Item,)+);

            fn into_par_iter(self) -> Self::Iter {
                MultiZip { tuple: ($(self.$idx.$method(),)+) }
            }
        }
    };
}

multizip! {
    (A a 0)
    (A a 0, B b 1)
    (A a 0, B b 1, C c 2)
    (A a 0, B b 1, C c 2, D d 3)
    (A a 0, B b 1, C c 2, D d 3, E e 4)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9, K k 10)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9, K k 10, L l 11)
}
