//! Terminal operations. Each file defines the consumer, folder and reducer it drives.

pub(crate) mod collect; // collect into Vec (spare capacity) or a list of vectors
pub(crate) mod for_each; // for_each
pub(crate) mod reduce; // reduce with identity
pub(crate) mod sum_product; // sum, product, count

use crate::iter::IndexedParallelIterator;

pub(crate) fn collect_into_vec<I: IndexedParallelIterator>(par_iter: I, target: &mut Vec<I::Item>) {
    target.clear();
    let len = par_iter.len();
    collect::extend_vec_exact(target, len, |slots| par_iter.drive(slots));
}
