//! Parallel iterators over the std collections (Rayon's `rayon::collections`). The hash
//! and tree collections and `LinkedList` gather their items into a `Vec` first; `VecDeque`
//! and `BinaryHeap` split their slices directly.
//!
//! ```
//! use std::collections::HashMap;
//! use weft::prelude::*;
//!
//! let map: HashMap<i32, i32> = (0..100).map(|i| (i, i * i)).collect();
//! assert_eq!(map.par_iter().map(|(_, v)| v).sum::<i32>(), (0..100).map(|i| i * i).sum());
//! ```

/// `HashMap` iterators.
pub mod hash_map {
    /// By value.
    pub type IntoIter<K, V> = crate::vec::IntoIter<(K, V)>;
    /// By reference.
    pub type Iter<'a, K, V> = crate::vec::IntoIter<(&'a K, &'a V)>;
    /// By mutable reference.
    pub type IterMut<'a, K, V> = crate::vec::IntoIter<(&'a K, &'a mut V)>;
    /// `par_drain` (the entries are moved out when the drain is made; `'a` is the borrow
    /// of the map, named as in Rayon's `Drain<'a, K, V>`).
    pub type Drain<'a, K, V> = crate::vec::IntoIter<(K, V)>;
}

/// `HashSet` iterators.
pub mod hash_set {
    /// By value.
    pub type IntoIter<T> = crate::vec::IntoIter<T>;
    /// By reference.
    pub type Iter<'a, T> = crate::vec::IntoIter<&'a T>;
    /// `par_drain` (the items are moved out when the drain is made; `'a` is the borrow of
    /// the collection, named as in Rayon's `Drain<'a, T>`).
    pub type Drain<'a, T> = crate::vec::IntoIter<T>;
}

/// `BTreeMap` iterators.
pub mod btree_map {
    /// By value.
    pub type IntoIter<K, V> = crate::vec::IntoIter<(K, V)>;
    /// By reference.
    pub type Iter<'a, K, V> = crate::vec::IntoIter<(&'a K, &'a V)>;
    /// By mutable reference.
    pub type IterMut<'a, K, V> = crate::vec::IntoIter<(&'a K, &'a mut V)>;
}

/// `BTreeSet` iterators.
pub mod btree_set {
    /// By value.
    pub type IntoIter<T> = crate::vec::IntoIter<T>;
    /// By reference.
    pub type Iter<'a, T> = crate::vec::IntoIter<&'a T>;
}

/// `LinkedList` iterators.
pub mod linked_list {
    /// By value.
    pub type IntoIter<T> = crate::vec::IntoIter<T>;
    /// By reference.
    pub type Iter<'a, T> = crate::vec::IntoIter<&'a T>;
    /// By mutable reference.
    pub type IterMut<'a, T> = crate::vec::IntoIter<&'a mut T>;
}

/// `VecDeque` iterators.
pub mod vec_deque {
    /// By value.
    pub type IntoIter<T> = crate::vec::IntoIter<T>;
    /// By reference: the two halves of the ring buffer, chained.
    pub type Iter<'a, T> = crate::iter::Chain<crate::slice::Iter<'a, T>, crate::slice::Iter<'a, T>>;
    /// By mutable reference.
    pub type IterMut<'a, T> =
        crate::iter::Chain<crate::slice::IterMut<'a, T>, crate::slice::IterMut<'a, T>>;
    /// `par_drain` (the items are moved out when the drain is made; `'a` is the borrow of
    /// the collection, named as in Rayon's `Drain<'a, T>`).
    pub type Drain<'a, T> = crate::vec::IntoIter<T>;
}

/// `BinaryHeap` iterators.
pub mod binary_heap {
    /// By value.
    pub type IntoIter<T> = crate::vec::IntoIter<T>;
    /// By reference (in the heap's internal order).
    pub type Iter<'a, T> = crate::slice::Iter<'a, T>;
    /// `par_drain` (the items are moved out when the drain is made; `'a` is the borrow of
    /// the collection, named as in Rayon's `Drain<'a, T>`).
    pub type Drain<'a, T> = crate::vec::IntoIter<T>;
}
