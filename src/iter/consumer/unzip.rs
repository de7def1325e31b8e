//! `unzip`, `partition` and `partition_map`: every leaf sorts its items into two vectors;
//! the per-leaf vectors are linked in order, concatenated, and each side is then
//! `par_extend`ed into its collection (so both keep source order).

use std::collections::LinkedList;

use either::Either;

use crate::iter::{ParallelExtend, ParallelIterator};
use crate::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

pub(crate) fn partition_map<I, A, B, FA, FB, F>(par_iter: I, split: &F) -> (FA, FB)
where
    I: ParallelIterator,
    A: Send,
    B: Send,
    FA: Default + Send + ParallelExtend<A>,
    FB: Default + Send + ParallelExtend<B>,
    F: Fn(I::Item) -> Either<A, B> + Sync,
{
    let (lefts, rights) = par_iter.map(split).drive_unindexed(TwoLists);
    let (mut a, mut b) = (FA::default(), FB::default());
    a.par_extend(concat(lefts));
    b.par_extend(concat(rights));
    (a, b)
}

pub(crate) fn unzip<I, A, B, FA, FB>(par_iter: I) -> (FA, FB)
where
    I: ParallelIterator<Item = (A, B)>,
    A: Send,
    B: Send,
    FA: Default + Send + ParallelExtend<A>,
    FB: Default + Send + ParallelExtend<B>,
{
    let pairs = par_iter.map(Either::<(A, B), ()>::Left);
    let (pair_lists, _) = pairs.drive_unindexed(TwoLists);
    let (left, right): (Vec<A>, Vec<B>) = pair_lists.into_iter().flatten().unzip();
    let (mut a, mut b) = (FA::default(), FB::default());
    a.par_extend(left);
    b.par_extend(right);
    (a, b)
}

fn concat<T>(list: LinkedList<Vec<T>>) -> Vec<T> {
    let mut all = Vec::with_capacity(list.iter().map(Vec::len).sum());
    for mut piece in list {
        all.append(&mut piece);
    }
    all
}

type Lists<A, B> = (LinkedList<Vec<A>>, LinkedList<Vec<B>>);

/// Sorts `Left`s and `Right`s into two lists of vectors.
struct TwoLists;

struct TwoVecs<A, B> {
    left: Vec<A>,
    right: Vec<B>,
}

impl<A: Send, B: Send> Consumer<Either<A, B>> for TwoLists {
    type Folder = TwoVecs<A, B>;
    type Reducer = TwoLists;
    type Result = Lists<A, B>;

    fn split_at(self, _index: usize) -> (Self, Self, TwoLists) {
        (TwoLists, TwoLists, TwoLists)
    }

    fn into_folder(self) -> Self::Folder {
        TwoVecs {
            left: Vec::new(),
            right: Vec::new(),
        }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<A: Send, B: Send> UnindexedConsumer<Either<A, B>> for TwoLists {
    fn split_off_left(&self) -> Self {
        TwoLists
    }

    fn to_reducer(&self) -> TwoLists {
        TwoLists
    }
}

impl<A, B> Folder<Either<A, B>> for TwoVecs<A, B> {
    type Result = Lists<A, B>;

    fn consume(mut self, item: Either<A, B>) -> Self {
        match item {
            Either::Left(a) => self.left.push(a),
            Either::Right(b) => self.right.push(b),
        }
        self
    }

    fn consume_iter<I: IntoIterator<Item = Either<A, B>>>(mut self, iter: I) -> Self {
        iter.into_iter().for_each(|item| match item {
            Either::Left(a) => self.left.push(a),
            Either::Right(b) => self.right.push(b),
        });
        self
    }

    fn complete(self) -> Lists<A, B> {
        let (mut lefts, mut rights) = (LinkedList::new(), LinkedList::new());
        lefts.push_back(self.left);
        rights.push_back(self.right);
        (lefts, rights)
    }

    fn full(&self) -> bool {
        false
    }
}

impl<A, B> Reducer<Lists<A, B>> for TwoLists {
    fn reduce(self, mut left: Lists<A, B>, mut right: Lists<A, B>) -> Lists<A, B> {
        left.0.append(&mut right.0);
        left.1.append(&mut right.1);
        left
    }
}
