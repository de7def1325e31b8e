//! `fold` and `fold_with`: each piece folds its items into one accumulator, which becomes
//! one item of the output (so the output has one item per piece, in order).

use std::fmt;

use super::state::{CloneState, InitState, StateSource};
use crate::iter::plumbing::*;
use crate::iter::ParallelIterator;

/// The iterator returned by [`ParallelIterator::fold`].
///
/// ```
/// use weft::prelude::*;
///
/// let total: u32 = (1..=100u32).into_par_iter().fold(|| 0, |acc, x| acc + x).sum();
/// assert_eq!(total, 5050);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Fold<I, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
}

impl<I: fmt::Debug, ID, F> fmt::Debug for Fold<I, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fold").field("base", &self.base).finish()
    }
}

impl<I, ID, F> Fold<I, ID, F> {
    pub(crate) fn new(base: I, identity: ID, fold_op: F) -> Self {
        Fold {
            base,
            identity,
            fold_op,
        }
    }
}

impl<U, I, ID, F> ParallelIterator for Fold<I, ID, F>
where
    I: ParallelIterator,
    F: Fn(U, I::Item) -> U + Sync + Send,
    ID: Fn() -> U + Sync + Send,
    U: Send,
{
    type Item = U;

    fn drive_unindexed<C: UnindexedConsumer<U>>(self, consumer: C) -> C::Result {
        let Fold {
            base,
            identity,
            fold_op,
        } = self;
        let (source, op) = (InitState(&identity), &fold_op);
        base.drive_unindexed(FoldConsumer {
            base: consumer,
            source,
            op,
        })
    }
}

/// The iterator returned by [`ParallelIterator::fold_with`].
///
/// ```
/// use weft::prelude::*;
///
/// let lists: Vec<Vec<i32>> = (0..3).into_par_iter().fold_with(Vec::new(), |mut v, x| { v.push(x); v }).collect();
/// assert_eq!(lists.concat(), [0, 1, 2]);
/// ```
#[must_use = "iterator adapters are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FoldWith<I, U, F> {
    base: I,
    item: U,
    fold_op: F,
}

impl<I: fmt::Debug, U: fmt::Debug, F> fmt::Debug for FoldWith<I, U, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, U, F> FoldWith<I, U, F> {
    pub(crate) fn new(base: I, item: U, fold_op: F) -> Self {
        FoldWith {
            base,
            item,
            fold_op,
        }
    }
}

impl<U, I, F> ParallelIterator for FoldWith<I, U, F>
where
    I: ParallelIterator,
    F: Fn(U, I::Item) -> U + Sync + Send,
    U: Send + Clone,
{
    type Item = U;

    fn drive_unindexed<C: UnindexedConsumer<U>>(self, consumer: C) -> C::Result {
        let FoldWith {
            base,
            item,
            fold_op,
        } = self;
        let pristine = std::sync::Mutex::new(item);
        let (source, op) = (CloneState(&pristine), &fold_op);
        base.drive_unindexed(FoldConsumer {
            base: consumer,
            source,
            op,
        })
    }
}

/// Folds a piece into the state from `source`, then passes the result downstream.
struct FoldConsumer<'f, C, S, F> {
    base: C,
    source: S,
    op: &'f F,
}

impl<C, S: StateSource, F> FoldConsumer<'_, C, S, F> {
    /// Splits the base consumer with `split` (`split_at` or `split_at_sized`) and wraps
    /// each piece.
    fn split_base<Red>(self, split: impl FnOnce(C) -> (C, C, Red)) -> (Self, Self, Red) {
        let (left, right, reducer) = split(self.base);
        let (op, left_source) = (self.op, self.source.split());
        let left = FoldConsumer {
            base: left,
            source: left_source,
            op,
        };
        (
            left,
            FoldConsumer {
                base: right,
                source: self.source,
                op,
            },
            reducer,
        )
    }
}

impl<'f, T, C, S, F> Consumer<T> for FoldConsumer<'f, C, S, F>
where
    C: Consumer<S::State>,
    S: StateSource,
    F: Fn(S::State, T) -> S::State + Sync,
{
    type Folder = FoldFolder<'f, C, S, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    super::splits_through_base!();

    fn into_folder(self) -> Self::Folder {
        let early = <C::Folder as Folder<S::State>>::MAY_STOP_EARLY.then(|| Early {
            source: self.source.split(),
            batch: 1,
            taken: 0,
        });
        // Without the early hand-on the accumulator is made by the first `consume_iter`,
        // in the leaf's own code (see `Acc`).
        let acc = match early {
            Some(_) => Acc::Ready(self.source.into_state()),
            None => Acc::Pending(self.source),
        };
        FoldFolder {
            sink: Sink::Consumer(self.base),
            acc,
            op: self.op,
            early,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }

    /// The accumulator goes on over this piece's items too. The fold then yields one item
    /// for both pieces, into the lower piece's consumer; this piece's downstream consumer is
    /// dropped unused, exactly as if its piece had yielded no item (fold is unindexed, so
    /// downstream consumers accept any number of items).
    fn continue_folder(self, folder: Self::Folder) -> Result<Self::Folder, (Self, Self::Folder)> {
        Ok(folder)
    }
}

impl<T, C, S, F> UnindexedConsumer<T> for FoldConsumer<'_, C, S, F>
where
    C: UnindexedConsumer<S::State>,
    S: StateSource,
    F: Fn(S::State, T) -> S::State + Sync,
{
    fn split_off_left(&self) -> Self {
        let (base, source) = (self.base.split_off_left(), self.source.split());
        FoldConsumer {
            base,
            source,
            op: self.op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// Folds a piece's items into `acc`, which goes downstream when the piece completes. If the
/// downstream consumer may stop early (`Folder::MAY_STOP_EARLY`: `fold(..).find_any(..)`),
/// the folder hands its accumulator on after 1 item, then after 2 more, 4, ..., each time
/// starting a fresh one, and stops as soon as the downstream folder is full: a search over
/// the accumulators then ends after at most about twice the items it needed, where waiting
/// for the piece's end would fold all of them (Rayon stops at the end of a leaf piece).
struct FoldFolder<'f, C: Consumer<S::State>, S: StateSource, F> {
    sink: Sink<C, C::Folder>,
    acc: Acc<S>,
    op: &'f F,
    early: Option<Early<S>>,
}

/// A folder's accumulator, or where it will come from. Made at the folder's first
/// `consume_iter` (or `consume`, or `complete` if the folder gets no item), not in
/// `into_folder`: the leaf loop then sees the identity's value, and LLVM can use what it
/// knows of it. `fold(|| vec![0u64; 256], |mut h, x| { h[x as usize % 256] += 1; h })`
/// kept a bounds check per item while its 256 buckets were made in another function, and
/// drops it as the sequential loop does when they are made beside the loop.
enum Acc<S: StateSource> {
    Pending(S),
    Ready(S::State),
}

impl<S: StateSource> Acc<S> {
    #[inline(always)]
    fn into_state(self) -> S::State {
        match self {
            Acc::Pending(source) => source.into_state(),
            Acc::Ready(acc) => acc,
        }
    }
}

/// Where the accumulator goes: the downstream consumer, or its folder once an accumulator
/// has been handed on early.
enum Sink<C, G> {
    Consumer(C),
    Folder(G),
}

/// The early hand-on: where fresh accumulators come from, how many items the current one
/// takes before it goes on (doubling), and how many it has taken.
struct Early<S> {
    source: S,
    batch: usize,
    taken: usize,
}

impl<'f, C, S, F> FoldFolder<'f, C, S, F>
where
    C: Consumer<S::State>,
    S: StateSource,
{
    /// Early mode, a batch is complete: hands the accumulator on and starts a fresh one.
    fn hand_on(self, early: Early<S>) -> Self {
        let folder = match self.sink {
            Sink::Consumer(consumer) => consumer.into_folder(),
            Sink::Folder(folder) => folder,
        };
        let folder = folder.consume(self.acc.into_state());
        FoldFolder {
            sink: Sink::Folder(folder),
            acc: Acc::Ready(early.source.split().into_state()),
            op: self.op,
            early: Some(Early {
                batch: early.batch.saturating_mul(2),
                taken: 0,
                ..early
            }),
        }
    }
}

impl<T, C, S, F> Folder<T> for FoldFolder<'_, C, S, F>
where
    C: Consumer<S::State>,
    S: StateSource,
    F: Fn(S::State, T) -> S::State,
{
    type Result = C::Result;

    const MAY_STOP_EARLY: bool = <C::Folder as Folder<S::State>>::MAY_STOP_EARLY;

    fn consume(mut self, item: T) -> Self {
        self.acc = Acc::Ready((self.op)(self.acc.into_state(), item));
        match self.early.take() {
            None => self,
            Some(mut early) => {
                early.taken += 1;
                if early.taken < early.batch {
                    self.early = Some(early);
                    self
                } else {
                    self.hand_on(early)
                }
            }
        }
    }

    #[allow(clippy::redundant_closure)] // a direct call, not `&F`'s shim: see `MapIter`
    #[inline(always)] // into the leaf: see `ReduceWithFolder::consume_iter`
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        // A direct call, not `&F`'s `FnMut` shim (see `MapIter`): with the shim, collecting
        // chars into a `String` called it per char, out of line. `try_fold` (`fold_items`),
        // neither `fold` nor a `for` loop: `fold` vectorized a `u64` max over a slice into
        // slow SSE2 code (see `fold_items`), and a `for` loop drove nested iterators by
        // `next` (`flat_map_iter(..).fold(..)`), where `try_fold` loops inside them.
        let op = self.op;
        let Some(mut early) = self.early.take() else {
            let fold = |acc| {
                crate::iter::consumer::fold_items(iter.into_iter(), acc, |acc, item| op(acc, item))
            };
            // Two calls of `fold`, so that the first chunk's loop starts from the identity's
            // value as the sequential code would (see `Acc`).
            self.acc = Acc::Ready(match self.acc {
                Acc::Pending(source) => fold(source.into_state()),
                Acc::Ready(acc) => fold(acc),
            });
            return self;
        };
        let mut iter = iter.into_iter();
        loop {
            let want = early.batch - early.taken;
            let mut got = 0;
            let acc = self.acc.into_state();
            self.acc = Acc::Ready(iter.by_ref().take(want).fold(acc, |acc, item| {
                got += 1;
                op(acc, item)
            }));
            early.taken += got;
            if got < want {
                self.early = Some(early);
                return self;
            }
            self = self.hand_on(early);
            early = self.early.take().expect("hand_on keeps the early mode");
            if self.full() {
                self.early = Some(early);
                return self;
            }
        }
    }

    fn complete(self) -> C::Result {
        match self.sink {
            Sink::Consumer(consumer) => consumer
                .into_folder()
                .consume(self.acc.into_state())
                .complete(),
            // A fresh accumulator that took no item stands for nothing: dropped.
            Sink::Folder(folder) if self.early.is_some_and(|early| early.taken == 0) => {
                folder.complete()
            }
            Sink::Folder(folder) => folder.consume(self.acc.into_state()).complete(),
        }
    }

    fn full(&self) -> bool {
        match &self.sink {
            Sink::Consumer(consumer) => consumer.full(),
            Sink::Folder(folder) => folder.full(),
        }
    }
}
