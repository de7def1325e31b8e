//! `find_map_any`, `find_map_first` and `find_map_last` (and through them every `find_*`,
//! `position_*`, `any` and `all`).
//!
//! `any`: one shared flag; every piece stops once it is set.
//!
//! `first`/`last`: every consumer owns a slice `[low, high)` of an abstract position space
//! (`0..u128::MAX` at the root); splitting divides it (in proportion to the items each
//! side gets when that is known, else in half), so positions grow in iteration order. The
//! space is 128 bits wide because nested loops multiply: three nested loops of 10^9 items
//! each left the innermost pieces of a 64-bit space with no positions of their own, and
//! pieces that share positions cannot stop each other ([`best::Best`] holds the shared
//! value). A piece that finds a match records its `low` in a shared best-so-far (the
//! lowest for first, the highest for last); a piece whose whole slice lies after the best
//! (first: `best < low`) or before it (last: `best >= high`, or `best > low` for a piece
//! whose positions ran out, see [`FindInOrder::beaten_from`]) can no longer matter and
//! reports `full`. Results are combined by the reducer in order,
//! so the answer is the sequentially first (last) match even when position slices run out.

mod best;

use std::cell::Cell;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

use best::Best;

use crate::iter::ParallelIterator;
use crate::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

pub(crate) fn find_map_any<I, R>(par_iter: I) -> Option<R>
where
    I: ParallelIterator<Item = Option<R>>,
    R: Send,
{
    let found = AtomicBool::new(false);
    par_iter.drive_unindexed(FindAny { found: &found })
}

struct FindAny<'f> {
    found: &'f AtomicBool,
}

impl FindAny<'_> {
    #[inline]
    fn found(&self) -> bool {
        // ORDERING: a stop hint; the value itself travels through the results, so Relaxed
        // suffices. Pairs with the Relaxed store in `FindAnyFolder::consume_iter`.
        self.found.load(Ordering::Relaxed)
    }
}

impl<'f, R: Send> Consumer<Option<R>> for FindAny<'f> {
    type Folder = FindAnyFolder<'f, R>;
    type Reducer = FirstSome;
    type Result = Option<R>;

    fn split_at(self, _index: usize) -> (Self, Self, FirstSome) {
        (FindAny { found: self.found }, self, FirstSome)
    }

    fn into_folder(self) -> Self::Folder {
        FindAnyFolder {
            found: self.found,
            item: None,
        }
    }

    fn full(&self) -> bool {
        self.found()
    }
}

impl<R: Send> UnindexedConsumer<Option<R>> for FindAny<'_> {
    fn split_off_left(&self) -> Self {
        FindAny { found: self.found }
    }

    fn to_reducer(&self) -> FirstSome {
        FirstSome
    }
}

struct FindAnyFolder<'f, R> {
    found: &'f AtomicBool,
    item: Option<R>,
}

impl<R> Folder<Option<R>> for FindAnyFolder<'_, R> {
    type Result = Option<R>;

    const MAY_STOP_EARLY: bool = true;

    fn consume(self, item: Option<R>) -> Self {
        self.consume_iter(Some(item))
    }

    fn consume_iter<I: IntoIterator<Item = Option<R>>>(mut self, iter: I) -> Self {
        let found = self.found;
        // Each item is looked at before the flag, as in `first_match`: with the flag first
        // (`take_while`), LLVM kept an enumerated slice's counter and position in two
        // registers, one more instruction per item than Rayon's loop (`position_any`).
        let stopped = iter.into_iter().find_map(|item| match item {
            Some(item) => Some(Some(item)),
            // ORDERING: see `FindAny::found`.
            None if found.load(Ordering::Relaxed) => Some(None),
            None => None,
        });
        self.item = stopped.flatten();
        if self.item.is_some() {
            found.store(true, Ordering::Relaxed);
        }
        self
    }

    fn complete(self) -> Option<R> {
        self.item
    }

    fn full(&self) -> bool {
        // ORDERING: see `FindAny::found`.
        self.item.is_some() || self.found.load(Ordering::Relaxed)
    }
}

/// Keeps the left result if it has one.
pub(crate) struct FirstSome;

impl<R> Reducer<Option<R>> for FirstSome {
    fn reduce(self, left: Option<R>, right: Option<R>) -> Option<R> {
        left.or(right)
    }
}

/// Keeps the right result if it has one.
pub(crate) struct LastSome;

impl<R> Reducer<Option<R>> for LastSome {
    fn reduce(self, left: Option<R>, right: Option<R>) -> Option<R> {
        right.or(left)
    }
}

pub(crate) fn find_map_first<I, R>(par_iter: I) -> Option<R>
where
    I: ParallelIterator<Item = Option<R>>,
    R: Send,
{
    let best = Best::falling();
    par_iter.drive_unindexed(FindInOrder {
        low: Cell::new(0),
        high: u128::MAX,
        best: &best,
        last: false,
    })
}

pub(crate) fn find_map_last<I, R>(par_iter: I) -> Option<R>
where
    I: ParallelIterator<Item = Option<R>>,
    R: Send,
{
    let best = Best::rising();
    par_iter.drive_unindexed(FindInOrder {
        low: Cell::new(0),
        high: u128::MAX,
        best: &best,
        last: true,
    })
}

/// Owns positions `[low, high)`; `best` is the lowest (first) or highest (last) `low` of a
/// piece that found a match. `low` is a `Cell` because `split_off_left` (which
/// only gets `&self`) hands out the lower half and keeps the upper one.
struct FindInOrder<'b> {
    low: Cell<u128>,
    high: u128,
    best: &'b Best,
    last: bool,
}

impl FindInOrder<'_> {
    /// Whether a piece entirely before (first) or after (last) us has already found one.
    #[inline]
    fn beaten(low: u128, high: u128, best: &Best, last: bool) -> bool {
        // A pruning hint (results travel through the reducers): a stale answer only stops a
        // piece later than it could have.
        if last {
            best.reaches(Self::beaten_from(low, high))
        } else {
            best.is_before(low)
        }
    }

    /// The lowest best that beats a `find_last` piece owning `[low, high)`: a match of a
    /// piece after it, which records its own `low`, at least `high`. A piece whose positions
    /// ran out (`low == high`: `flat_map` splits a consumer off its piece for every item, in
    /// halves, so after 128 items the split-off ones are empty) shares its position with the
    /// pieces around it; one before it may have recorded `low` itself, so only a best past
    /// `low` beats it. (Pieces before it own positions up to `low`, so a best past `low`
    /// comes from a piece after it.) An empty piece at `u128::MAX` gets no items: it is the
    /// upper side of a cut at the end of its consumer's items.
    #[inline]
    fn beaten_from(low: u128, high: u128) -> u128 {
        if low < high {
            high
        } else {
            low.saturating_add(1)
        }
    }

    /// Whether a piece before (first) or after (last) this one has already found one.
    #[inline]
    fn is_beaten(&self) -> bool {
        Self::beaten(self.low.get(), self.high, self.best, self.last)
    }

    /// Splits `[low, high)` at its midpoint.
    fn halves(&self) -> (Self, Self) {
        self.cut(1, 2)
    }

    /// Splits `[low, high)` in proportion: the lower piece gets `index` parts of `len`.
    /// Only `len` items ever reach this consumer, so no positions are wasted on items that
    /// never come; cuts in half would run out of positions after 128 consecutive chunks of
    /// one owner, and pieces with empty ranges no longer stop each other.
    fn cut(&self, index: usize, len: usize) -> (Self, Self) {
        let low = self.low.get();
        let width = self.high - low;
        let (index, len) = (index.min(len) as u128, len as u128);
        // `width * index / len` without overflow: both products are below 2^128 (the
        // remainder is below `len`, and `index`, `len` fit in 64 bits).
        let lower_width = width / len * index + width % len * index / len;
        let mid = low + lower_width;
        let (best, last) = (self.best, self.last);
        (
            FindInOrder {
                low: Cell::new(low),
                high: mid,
                best,
                last,
            },
            FindInOrder {
                low: Cell::new(mid),
                high: self.high,
                best,
                last,
            },
        )
    }
}

impl<'b, R: Send> Consumer<Option<R>> for FindInOrder<'b> {
    type Folder = FindInOrderFolder<'b, R>;
    type Reducer = FindReducer;
    type Result = Option<R>;

    fn split_at(self, _index: usize) -> (Self, Self, FindReducer) {
        let (left, right) = self.halves();
        (left, right, FindReducer { last: self.last })
    }

    fn split_at_sized(self, index: usize, len: usize) -> (Self, Self, FindReducer) {
        let (left, right) = if len == 0 {
            self.halves()
        } else {
            self.cut(index, len)
        };
        (left, right, FindReducer { last: self.last })
    }

    fn into_folder(self) -> Self::Folder {
        FindInOrderFolder {
            consumer: self,
            item: None,
        }
    }

    fn full(&self) -> bool {
        self.is_beaten()
    }
}

impl<R: Send> UnindexedConsumer<Option<R>> for FindInOrder<'_> {
    fn split_off_left(&self) -> Self {
        // `self` keeps the upper half; the caller drives the returned consumer on the left.
        let (left, right) = self.halves();
        self.low.set(right.low.get());
        left
    }

    fn to_reducer(&self) -> FindReducer {
        FindReducer { last: self.last }
    }
}

/// Combines two pieces' matches keeping the first (or last) in iteration order.
pub(crate) struct FindReducer {
    last: bool,
}

impl<R> Reducer<Option<R>> for FindReducer {
    fn reduce(self, left: Option<R>, right: Option<R>) -> Option<R> {
        if self.last {
            LastSome.reduce(left, right)
        } else {
            FirstSome.reduce(left, right)
        }
    }
}

/// Input items between two records of a `find_last` piece's match (one `fetch_max`).
const RECORD_LAST_EVERY: usize = 1024;

struct FindInOrderFolder<'b, R> {
    consumer: FindInOrder<'b>,
    item: Option<R>,
}

/// The first `Some` of `items`, unless a piece before position `low` has matched (then
/// `None`, possibly after a few more items). The loop over the items makes no call and
/// loads one word per item, the best's upper word ([`Best::may_be_before`]); the exact test
/// runs outside it when that says the piece may be beaten. (With the exact test in the loop,
/// LLVM reloaded the predicate's captures on every item.)
fn first_match<R>(mut items: impl Iterator<Item = Option<R>>, low: u128, best: &Best) -> Option<R> {
    loop {
        // Each item is looked at before the best: a beaten piece may look at one more item,
        // and none is lost when the hint turns out wrong.
        let stopped = items.find_map(|item| match item {
            Some(found) => Some(Some(found)),
            None if best.may_be_before(low) => Some(None),
            None => None,
        });
        match stopped {
            None => return None,
            Some(Some(found)) => return Some(found),
            Some(None) => {
                if best.is_before(low) {
                    return None;
                }
            }
        }
    }
}

/// The last `Some` of `items` and `false`; or, once the best reaches `high` (a piece after
/// this one has matched: [`FindInOrder::beaten_from`]), the last `Some` so far and `true`.
/// No call in the loop, as in [`first_match`].
fn last_match<R>(
    mut items: impl Iterator<Item = Option<R>>,
    high: u128,
    best: &Best,
) -> (Option<R>, bool) {
    let mut last = None;
    loop {
        // The last match so far is the fold's accumulator, not a captured variable: LLVM
        // keeps it in registers and hoists the predicate's captures out of the loop.
        let stopped = items.try_fold(last, |last, item| {
            if best.may_reach(high) {
                return ControlFlow::Break((last, item));
            }
            ControlFlow::Continue(if item.is_some() { item } else { last })
        });
        match stopped {
            ControlFlow::Continue(found) => return (found, false),
            ControlFlow::Break((found, item)) => {
                if best.reaches(high) {
                    return (found, true);
                }
                last = if item.is_some() { item } else { found };
            }
        }
    }
}

impl<R> FindInOrderFolder<'_, R> {
    fn record(&self) {
        // Its `low` in both directions: a `find_last` piece that recorded its `high` would
        // share the best's upper word and pass the one-word test on every later item.
        self.consumer.best.record(self.consumer.low.get());
    }
}

impl<R> Folder<Option<R>> for FindInOrderFolder<'_, R> {
    type Result = Option<R>;

    const MAY_STOP_EARLY: bool = true;

    fn consume(self, item: Option<R>) -> Self {
        self.consume_iter(Some(item))
    }

    fn consume_iter<I: IntoIterator<Item = Option<R>>>(mut self, iter: I) -> Self {
        if self.full() {
            // A first match found by an earlier call stays (and a beaten piece stops).
            return self;
        }
        let (low, high, best, last) = (
            self.consumer.low.get(),
            self.consumer.high,
            self.consumer.best,
            self.consumer.last,
        );
        let beaten_from = FindInOrder::beaten_from(low, high);
        // One loop per direction, so the test of `last` is not repeated per item.
        let found = if last {
            // A last match is only known at the end of the input, but the pieces to the
            // left may stop as soon as it exists: a long input goes in batches, and a batch
            // that matched is recorded at once (without this, a piece left of an endless
            // one never learned it was beaten).
            let mut items = iter.into_iter();
            let mut left = crate::iter::adapter::long_input_len(&items);
            while left > RECORD_LAST_EVERY {
                let (batch_match, beaten) =
                    last_match(items.by_ref().take(RECORD_LAST_EVERY), beaten_from, best);
                if batch_match.is_some() {
                    self.item = batch_match;
                    self.record();
                }
                if beaten || FindInOrder::beaten(low, high, best, true) {
                    return self;
                }
                left -= RECORD_LAST_EVERY;
            }
            last_match(items, beaten_from, best).0
        } else {
            first_match(iter.into_iter(), low, best)
        };
        if found.is_some() {
            self.item = found;
            self.record();
        }
        self
    }

    fn complete(self) -> Option<R> {
        self.item
    }

    fn full(&self) -> bool {
        (!self.consumer.last && self.item.is_some()) || self.consumer.is_beaten()
    }
}

// Not under loom: these build `Best`s outside a model.
#[cfg(all(test, not(loom)))]
mod tests {
    use crate::iter::{IntoParallelIterator, ParallelIterator};
    use crate::ThreadPoolBuilder;

    #[test]
    fn find_first_stops_the_pieces_right_of_a_match_on_unindexed_work() {
        // An endless-in-practice unindexed iterator (2^64 - 1 items): only terminates if
        // every piece split off to the right of the match learns that it is beaten.
        let halve = |r: std::ops::Range<u64>| {
            if r.end - r.start < 2 {
                (r, None)
            } else {
                let mid = r.start + (r.end - r.start) / 2;
                (r.start..mid, Some(mid..r.end))
            }
        };
        for threads in [1, 2, 3] {
            let pool = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                // A budget turns "never stops" into a clean failure.
                let calls = std::sync::atomic::AtomicU64::new(0);
                let items = || {
                    crate::iter::split(0..u64::MAX, halve)
                        .flat_map_iter(|r| r)
                        .inspect(|_| {
                            let n = calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            assert!(n < 20_000_000, "pieces right of the match kept going");
                        })
                };
                assert_eq!(items().find_first(|&x| x == 1000), Some(1000));
                let found = items().find_map_first(|x| (x % 4096 == 4095).then_some(x * 2));
                assert_eq!(found, Some(8190));
            });
        }
    }

    #[test]
    fn a_million_chunks_cut_in_proportion_keep_positions_apart() {
        // The on-steal driver's cuts along one owner's run: `chunk` items off the front of
        // what is left, a million times. Every chunk must keep a non-empty range of its own (so a
        // match in it is told apart from its neighbours'), and no range may overlap.
        use super::{Best, Consumer, FindInOrder};
        use core::cell::Cell;
        let best = Best::falling();
        let whole = |low, high| FindInOrder {
            low: Cell::new(low),
            high,
            best: &best,
            last: false,
        };
        let mut rest = whole(0, u128::MAX);
        let (mut left, chunk) = (1_000_000_000usize, 1000);
        let mut previous_high = 0;
        while left > 0 {
            let (piece, upper, _) = Consumer::<Option<u8>>::split_at_sized(rest, chunk, left);
            let low = piece.low.get();
            assert!(
                low == previous_high && low < piece.high,
                "{low}..{}",
                piece.high
            );
            previous_high = piece.high;
            rest = upper;
            left -= chunk;
        }
        assert_eq!(previous_high, u128::MAX);
        // Cut in half instead, 128 chunks leave the rest at most one position.
        let mut rest = whole(0, u128::MAX);
        for _ in 0..128 {
            rest = Consumer::<Option<u8>>::split_at(rest, chunk).1;
        }
        assert!(rest.high - rest.low.get() <= 1);
    }

    #[test]
    fn a_best_in_the_same_upper_word_stops_only_pieces_it_beats_and_loses_no_item() {
        // Positions that share the best's upper word pass the one-word hint in every item;
        // the exact test must then tell beaten pieces from the others, and an unbeaten piece
        // must still see every item.
        use super::{first_match, last_match, Best};
        let word = 1u128 << 64;
        let items = || (0..100u32).map(|x| (x % 7 == 6).then_some(x));
        let (first, last) = (
            (0..100u32).find(|x| x % 7 == 6),
            (0..100u32).rev().find(|x| x % 7 == 6),
        );
        let falling = Best::falling();
        falling.record(word + 10);
        assert_eq!(first_match(items(), word + 10, &falling), first);
        assert_eq!(first_match(items().skip(1), word + 10, &falling), first);
        assert_eq!(first_match(items(), word + 11, &falling), None);
        let rising = Best::rising();
        rising.record(word + 10);
        assert_eq!(last_match(items(), word + 11, &rising), (last, false));
        assert_eq!(last_match(items(), word + 10, &rising), (None, true));
        // Beaten only after some items: a match seen before that is kept.
        let mut seen = 0;
        let counted = items().inspect(|_| {
            seen += 1;
            if seen == 20 {
                rising.record(word + 30);
            }
        });
        let before_the_record = (0..19u32).rev().find(|x| x % 7 == 6);
        assert_eq!(
            last_match(counted, word + 20, &rising),
            (before_the_record, true)
        );
    }

    #[test]
    fn a_find_last_piece_whose_positions_ran_out_is_beaten_only_by_a_later_match() {
        // `flat_map` splits an empty piece `[p, p)` off for every item once its positions ran
        // out: a match recorded at `p` may come before such a piece, one past `p` cannot.
        use super::{Best, FindInOrder};
        let best = Best::rising();
        best.record(500);
        assert!(!FindInOrder::beaten(500, 500, &best, true));
        assert!(FindInOrder::beaten(499, 499, &best, true));
        assert!(FindInOrder::beaten(400, 500, &best, true));
        assert!(!FindInOrder::beaten(400, 501, &best, true));
    }

    #[test]
    fn three_nested_loops_of_a_billion_keep_positions_at_the_innermost_level() {
        // The last item of the last item of a loop of 10^9, cut in proportion at each level,
        // and then a chain of thieves halving the innermost loop down to one chunk: every
        // cut along the way still leaves both sides positions of their own. (In 64 bits the
        // innermost loop got 18 positions for 10^9 items.)
        use super::{Best, Consumer, FindInOrder};
        use core::cell::Cell;
        let best = Best::rising();
        let mut piece = FindInOrder {
            low: Cell::new(0),
            high: u128::MAX,
            best: &best,
            last: true,
        };
        let level = 1_000_000_000usize;
        for _ in 0..2 {
            // The last item of this level: everything before it is cut off.
            let (before, last, _) = Consumer::<Option<u8>>::split_at_sized(piece, level - 1, level);
            assert!(before.high == last.low.get() && before.low.get() < before.high);
            piece = last;
        }
        let mut left = level;
        while left > 1000 {
            let half = left / 2;
            let (owner, thief, _) =
                Consumer::<Option<u8>>::split_at_sized(piece, left - half, left);
            assert!(owner.low.get() < owner.high && thief.low.get() < thief.high);
            piece = thief;
            left = half;
        }
        assert_eq!(piece.high, u128::MAX);
        assert!(
            piece.high - piece.low.get() > 1_000_000,
            "{}",
            piece.high - piece.low.get()
        );
    }

    #[test]
    fn first_and_last_are_sequential_answers_on_any_pool() {
        let n = 100_003u64;
        let pick = |x: &u64| x.wrapping_mul(2_654_435_761) % 1009 == 3;
        let first = (0..n).find(pick);
        let last = (0..n).rev().find(pick);
        for threads in [1, 2, 3, 8] {
            let pool = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                for _ in 0..20 {
                    assert_eq!((0..n).into_par_iter().find_first(pick), first);
                    assert_eq!((0..n).into_par_iter().find_last(pick), last);
                    let unindexed = (0..n).into_par_iter().filter(|x| x % 2 == 1);
                    let odd_first = (0..n).filter(|x| x % 2 == 1).find(pick);
                    assert_eq!(unindexed.find_first(pick), odd_first);
                }
                let found = (0..n).into_par_iter().find_any(pick).unwrap();
                assert!(pick(&found));
                assert_eq!((0..n).into_par_iter().find_first(|_| false), None);
            });
        }
    }
}
