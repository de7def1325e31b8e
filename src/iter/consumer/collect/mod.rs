//! Collecting: into a `Vec`'s spare capacity when the length is known, otherwise into a
//! list of per-leaf vectors that keeps the items in order.

mod write_slots; // the one unsafe part: items written into uninitialised capacity

use std::collections::LinkedList;
use std::marker::PhantomData;

use crate::iter::ParallelIterator;
use crate::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
pub(crate) use write_slots::{WriteSlots, WrittenSlots};

/// Appends exactly `len` items to `vec`: `drive` runs a consumer over its spare capacity.
///
/// Panics if the iterator yields a different number of items than `len`.
pub(crate) fn extend_vec_exact<T, D>(vec: &mut Vec<T>, len: usize, drive: D)
where
    T: Send,
    D: for<'c> FnOnce(WriteSlots<'c, T>) -> WrittenSlots<'c, T>,
{
    crate::huge_pages::reserve(vec, len);
    let old_len = vec.len();
    let written = drive(WriteSlots::new(&mut vec.spare_capacity_mut()[..len]));
    let actual = written.written();
    assert!(
        actual == len,
        "expected {len} items from an indexed parallel iterator, but got {actual}"
    );
    written.release_ownership();
    // SAFETY: `written` covered the `len` slots after `old_len` and held an initialised item
    // in each (count checked above; the merge only counts contiguous full runs); its
    // ownership was just released, so the vector now owns them exactly once.
    unsafe { vec.set_len(old_len + len) };
}

/// Runs any parallel iterator into a list of vectors whose concatenation is in order.
pub(crate) fn collect_vec_list<I>(par_iter: I) -> LinkedList<Vec<I::Item>>
where
    I: ParallelIterator,
{
    collect_piece_list(par_iter)
}

/// Runs any parallel iterator into a list of pieces (`Vec`s, or `String`s of chars) whose
/// concatenation is in order: each leaf `extend`s one piece.
pub(crate) fn collect_piece_list<I, C>(par_iter: I) -> LinkedList<C>
where
    I: ParallelIterator,
    C: Piece<I::Item>,
{
    par_iter.drive_unindexed(PieceListConsumer(PhantomData))
}

/// The largest buffer, in bytes, that [`extend_vec_in_place`] reserves for a bound of
/// items it may not all receive: reserved address space costs nothing until written, but
/// a filter that keeps little of a huge input should not ask for gigabytes of it.
const IN_PLACE_MAX_BYTES: usize = 1 << 30;

/// Appends at most `upper` items to `vec` when they come from `drive` over `upper`
/// positions, each run of positions yielding at most as many items as it has positions
/// (`ParallelIterator::upper_len_by_position`): each piece writes its items straight into
/// the buffer, at the front of its own positions' slots, and neighbouring pieces close the
/// gap between them as they merge (`WrittenSlots`). Against collecting pieces into vectors
/// of their own and copying them into the result, this saves the copy and, for a fresh
/// buffer, faulting its pages in a second time (a `filter(..).collect()` of 10^7 `u64` on
/// two threads: half the page faults). A buffer this call allocated and left at more than
/// twice the items is shrunk.
fn extend_vec_in_place<T, D>(vec: &mut Vec<T>, upper: usize, drive: D)
where
    T: Send,
    D: for<'c> FnOnce(WriteSlots<'c, T>) -> WrittenSlots<'c, T>,
{
    let capacity_before = vec.capacity();
    crate::huge_pages::reserve(vec, upper);
    let old_len = vec.len();
    let written = drive(WriteSlots::new(&mut vec.spare_capacity_mut()[..upper]));
    assert!(
        written.run_len() == upper,
        "weft: an in-place collect's pieces did not merge into one"
    );
    let count = written.written();
    written.release_ownership();
    // SAFETY: `written` is one run over the `upper` slots after `old_len` (checked above)
    // whose first `count` slots hold initialised items (`WrittenSlots`' invariant); its
    // ownership was just released, so the vector now owns them exactly once.
    unsafe { vec.set_len(old_len + count) };
    // Only a buffer this call allocated is shrunk: a capacity the caller reserved is kept.
    if vec.capacity() > capacity_before && vec.capacity() - vec.len() > vec.len() {
        vec.shrink_to(capacity_before.max(vec.len()));
    }
}

/// Appends the items of any parallel iterator to `vec`, in order.
pub(crate) fn extend_vec<I>(vec: &mut Vec<I::Item>, par_iter: I)
where
    I: ParallelIterator,
{
    let item_size = std::mem::size_of::<I::Item>();
    match (par_iter.opt_len(), par_iter.upper_len_by_position()) {
        (Some(len), _) => extend_vec_exact(vec, len, |slots| par_iter.drive_unindexed(slots)),
        (None, Some(upper))
            if item_size > 0 && upper.saturating_mul(item_size) <= IN_PLACE_MAX_BYTES =>
        {
            extend_vec_in_place(vec, upper, |slots| par_iter.drive_unindexed(slots))
        }
        (None, _) => {
            let mut list = collect_vec_list(par_iter);
            adopt_first_piece(vec, &mut list);
            crate::huge_pages::reserve(vec, list.iter().map(Vec::len).sum());
            for mut piece in list {
                vec.append(&mut piece);
            }
        }
    }
}

/// Makes the first of `pieces` the `target` if `target` has no buffer of its own: one copy
/// fewer, and none at all when one worker made every item (the caller's `reserve` then grows
/// it in place or, for large buffers, by remapping its pages). A buffer the caller reserved
/// is kept.
pub(crate) fn adopt_first_piece<T, C: Piece<T>>(target: &mut C, pieces: &mut LinkedList<C>) {
    if !target.has_buffer() {
        if let Some(first) = pieces.pop_front() {
            *target = first;
        }
    }
}

/// A collection one leaf fills with its items, in order.
pub(crate) trait Piece<T>: Default + Extend<T> + Send {
    fn is_empty(&self) -> bool;

    /// Whether it holds an allocation (which a collect into it keeps).
    fn has_buffer(&self) -> bool;

    /// About to take at most `upper` more items in one `extend`: a chance to grow the
    /// buffer in a way of its own before `extend` grows it.
    #[inline]
    fn make_room(&mut self, _upper: usize) {}
}

impl<T: Send> Piece<T> for Vec<T> {
    fn is_empty(&self) -> bool {
        self.is_empty()
    }

    fn has_buffer(&self) -> bool {
        self.capacity() != 0
    }

    /// A piece that already holds half of [`MIN_BYTES`] and fills at least half its buffer,
    /// and that the next `extend` may outgrow, doubles its buffer now, as `Vec` would once
    /// full, but with the huge-page advice (`huge_pages`): so a large unindexed collect also
    /// writes most of its pieces into huge pages. Growing ahead of the items costs at most
    /// one doubling of slack more than `Vec`'s own growth, in address space only (a filter
    /// that then keeps little never touches it); small pieces are never grown here, and if
    /// the items outgrow even the doubled buffer, `extend` grows it as usual.
    ///
    /// [`MIN_BYTES`]: crate::huge_pages::MIN_BYTES
    #[inline]
    fn make_room(&mut self, upper: usize) {
        let (len, capacity) = (self.len(), self.capacity());
        if len.saturating_add(upper) > capacity
            && len >= capacity / 2
            && len.saturating_mul(std::mem::size_of::<T>()) >= crate::huge_pages::MIN_BYTES / 2
        {
            grow_for_huge_pages(self);
        }
    }
}

/// The cold part of [`Piece::make_room`] for `Vec`: doubles the buffer (at least
/// `MIN_BYTES` then) and advises huge pages for all of it.
#[cold]
#[inline(never)]
fn grow_for_huge_pages<T>(vec: &mut Vec<T>) {
    vec.reserve_exact(vec.capacity());
    let bytes = vec.capacity() * std::mem::size_of::<T>();
    crate::huge_pages::advise(vec.as_mut_ptr().cast(), bytes);
}

/// Chars into a `String`: `String::extend` pushes through the source iterator's own `fold`
/// with the string behind a reference. A `fold(String::new, push)` moved the whole string
/// through the stack for every char (measured: 1.3x Rayon's time at one thread).
impl Piece<char> for String {
    fn is_empty(&self) -> bool {
        self.is_empty()
    }

    fn has_buffer(&self) -> bool {
        self.capacity() != 0
    }
}

/// A leaf's nodes, linked by `extend` (each `push_back` through `&mut`): a `fold` that
/// takes and returns the list per item kept it in stack slots that a 16-byte load read back
/// from two 8-byte stores, a store-forwarding stall per item (1.4x Rayon's time collecting
/// 5*10^5 `u64`s).
impl<T: Send> Piece<T> for LinkedList<T> {
    fn is_empty(&self) -> bool {
        self.is_empty()
    }

    fn has_buffer(&self) -> bool {
        !self.is_empty()
    }
}

/// Each leaf collects into a piece `C`; neighbouring results are linked in order.
struct PieceListConsumer<C>(PhantomData<fn() -> C>);

/// The folder of [`PieceListConsumer`].
struct PieceListFolder<C> {
    items: C,
}

/// Appends the right list to the left one.
struct ListAppend;

impl<T, C: Piece<T>> Consumer<T> for PieceListConsumer<C> {
    type Folder = PieceListFolder<C>;
    type Reducer = ListAppend;
    type Result = LinkedList<C>;

    fn split_at(self, _index: usize) -> (Self, Self, ListAppend) {
        (PieceListConsumer(PhantomData), self, ListAppend)
    }

    fn into_folder(self) -> PieceListFolder<C> {
        PieceListFolder {
            items: C::default(),
        }
    }

    fn full(&self) -> bool {
        false
    }

    fn continue_folder(self, folder: Self::Folder) -> Result<Self::Folder, (Self, Self::Folder)> {
        Ok(folder)
    }
}

impl<T, C: Piece<T>> UnindexedConsumer<T> for PieceListConsumer<C> {
    fn split_off_left(&self) -> Self {
        PieceListConsumer(PhantomData)
    }

    fn to_reducer(&self) -> ListAppend {
        ListAppend
    }
}

/// Items per `make_room` call when a piece takes a long input of inexact length with huge
/// pages on ([`PieceListFolder::consume_iter`]).
const ROOM_BATCH: usize = 1024;

impl<T, C: Piece<T>> Folder<T> for PieceListFolder<C> {
    type Result = LinkedList<C>;

    fn consume(mut self, item: T) -> Self {
        self.items.extend(Some(item));
        self
    }

    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let mut iter = iter.into_iter();
        let (lower, upper) = iter.size_hint();
        let inexact_and_long = upper.map_or(true, |upper| upper > lower.max(ROOM_BATCH));
        if inexact_and_long && crate::huge_pages::enabled() {
            // An input of inexact length (`flat_map_iter`, a whole leaf) goes in batches, so
            // that `make_room` can grow a large piece into advised memory as it fills. Only
            // with huge pages on: each batch counts down per item.
            loop {
                let mut batch = iter.by_ref().take(ROOM_BATCH).peekable();
                if batch.peek().is_none() {
                    return self;
                }
                self.items.make_room(ROOM_BATCH);
                self.items.extend(batch);
            }
        }
        self.items.make_room(upper.unwrap_or(lower));
        self.items.extend(iter);
        self
    }

    fn complete(self) -> LinkedList<C> {
        let mut list = LinkedList::new();
        if !self.items.is_empty() {
            list.push_back(self.items);
        }
        list
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T> Reducer<LinkedList<T>> for ListAppend {
    fn reduce(self, mut left: LinkedList<T>, mut right: LinkedList<T>) -> LinkedList<T> {
        left.append(&mut right);
        left
    }
}

#[cfg(test)]
mod tests {
    use std::panic::{catch_unwind, AssertUnwindSafe};

    use crate::iter::{IntoParallelIterator, ParallelIterator};
    use crate::plumbing::UnindexedConsumer;

    /// Claims a length it does not have: collecting must panic, never write out of bounds.
    struct WrongLength {
        real: usize,
        claimed: usize,
    }

    impl ParallelIterator for WrongLength {
        type Item = String;

        fn drive_unindexed<C: UnindexedConsumer<String>>(self, consumer: C) -> C::Result {
            (0..self.real)
                .into_par_iter()
                .map(|i| i.to_string())
                .drive_unindexed(consumer)
        }

        fn opt_len(&self) -> Option<usize> {
            Some(self.claimed)
        }
    }

    /// Runs `test` inside an explicit pool.
    fn in_pool<R: Send>(test: impl FnOnce() -> R + Send) -> R {
        crate::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap()
            .install(test)
    }

    /// The large collects of [`a_large_collect_advises_its_whole_buffer_as_one_mapping`],
    /// each run in a pool built with `huge_pages(setting)` (`None`: not called): an indexed
    /// collect and a filtered one (written in place) in 3 threads, an unindexed one in 3
    /// threads, and an unindexed one on one thread, whose one piece becomes the result as
    /// it is. Returns `(what, vec, copies)`:
    /// `vec` holds `copies` copies of `expected` (returned too).
    #[allow(clippy::type_complexity)]
    fn large_collects(setting: Option<bool>) -> (Vec<u64>, Vec<(&'static str, Vec<u64>, usize)>) {
        let n = crate::huge_pages::MIN_BYTES / 8 + 1000;
        let expected: Vec<u64> = (0..n as u64).map(|x| x * 3).collect();
        let indexed = || (0..n as u64).into_par_iter().map(|x| x * 3);
        let pool = |threads| {
            let builder = crate::ThreadPoolBuilder::new().num_threads(threads);
            match setting {
                Some(on) => builder.huge_pages(on),
                None => builder,
            }
            .build()
            .unwrap()
        };
        let (three, one) = (pool(3), pool(1));
        // `flat_map_iter` gives no bound on its items, so its collect goes through pieces.
        let cases = vec![
            ("indexed", three.install(|| indexed().collect()), 1),
            (
                "filtered, in place",
                three.install(|| indexed().chain(indexed()).filter(|_| true).collect()),
                2,
            ),
            (
                "unindexed",
                three.install(|| indexed().chain(indexed()).flat_map_iter(Some).collect()),
                2,
            ),
            (
                "unindexed, one piece",
                one.install(|| indexed().flat_map_iter(Some).collect()),
                1,
            ),
        ];
        (expected, cases)
    }

    /// A large collect in a pool with `huge_pages(true)` (indexed, filtered in place, and
    /// unindexed through its list of pieces) gives its whole buffer the huge-page advice as
    /// one mapping, so that growing the `Vec` later moves it with `mremap` instead of
    /// copying it (`huge_pages`); a `push` keeps every item. On one thread the unindexed collect's one
    /// piece becomes the result as it is, so its advice can only come from the piece's own
    /// growth (`Piece::make_room`).
    #[test]
    fn a_large_collect_advises_its_whole_buffer_as_one_mapping() {
        use crate::huge_pages::tests::{advice_is_possible, assert_one_flagged_mapping};
        if !advice_is_possible() {
            return;
        }
        let (expected, cases) = large_collects(Some(true));
        let n = expected.len();
        for (what, mut vec, copies) in cases {
            let start = vec.as_ptr() as usize;
            let end = start + vec.capacity() * 8;
            assert_one_flagged_mapping(start, end, what);
            vec.push(7);
            assert_eq!(vec.pop(), Some(7), "{what}");
            assert_eq!(vec.len(), copies * n, "{what}");
            assert!(vec.chunks(n).all(|copy| copy == expected), "{what}");
        }
    }

    /// Without `huge_pages(true)` the same collects give no advice: the default is off
    /// (unless `WEFT_HUGE_PAGES=1` is set for the test run), and `huge_pages(false)` turns it
    /// off whatever the environment says.
    #[test]
    fn a_large_collect_gives_no_advice_unless_asked() {
        use crate::huge_pages::tests::assert_not_flagged;
        let environment_on = std::env::var_os("WEFT_HUGE_PAGES").is_some_and(|v| v == "1");
        let settings: &[Option<bool>] = if environment_on {
            &[Some(false)]
        } else {
            &[None, Some(false)]
        };
        for &setting in settings {
            let (expected, cases) = large_collects(setting);
            let n = expected.len();
            for (what, vec, copies) in cases {
                let start = vec.as_ptr() as usize;
                assert_not_flagged(start, start + vec.capacity() * 8, what);
                assert_eq!(vec.len(), copies * n, "{what}, {setting:?}");
                assert!(vec.chunks(n).all(|copy| copy == expected), "{what}");
            }
        }
    }

    /// Batches whose size hints promise far more items than they yield (as a filter's do)
    /// never make a small piece grow ahead of its items: its buffer stays within `Vec`'s own
    /// growth, however many such batches come.
    #[test]
    fn a_small_piece_is_not_grown_ahead_of_its_items() {
        use crate::plumbing::Folder;
        let n = crate::huge_pages::MIN_BYTES as u64; // hints far above the threshold
        let batch = |round: u64| (0..n).filter(move |x| x % (1 << 20) == round);
        let mut folder = super::PieceListFolder::<Vec<u64>> { items: Vec::new() };
        for round in 0..4 {
            folder = folder.consume_iter(batch(round));
        }
        let expected: Vec<u64> = (0..4).flat_map(batch).collect();
        assert_eq!(folder.items, expected);
        let (len, capacity) = (folder.items.len(), folder.items.capacity());
        assert!(capacity <= 2 * len, "{len} items in a buffer of {capacity}");
    }

    #[test]
    fn too_few_items_is_a_clear_panic() {
        let short = || {
            WrongLength {
                real: 5,
                claimed: 10,
            }
            .collect::<Vec<_>>()
        };
        let result = catch_unwind(AssertUnwindSafe(|| in_pool(short)));
        let message = *result.unwrap_err().downcast::<String>().unwrap();
        assert!(message.contains("expected 10 items"), "{message}");
    }

    #[test]
    fn too_many_items_is_a_clear_panic() {
        let long = || {
            WrongLength {
                real: 50,
                claimed: 30,
            }
            .collect::<Vec<_>>()
        };
        let result = catch_unwind(AssertUnwindSafe(|| in_pool(long)));
        assert!(result.is_err());
    }

    #[test]
    fn collect_keeps_order_and_extends_after_existing_items() {
        in_pool(collect_in_order);
    }

    fn collect_in_order() {
        let mut v = vec![String::from("start")];
        v.par_extend((0..1000).into_par_iter().map(|i| i.to_string()));
        let expected: Vec<String> = std::iter::once("start".to_string())
            .chain((0..1000).map(|i| i.to_string()))
            .collect();
        assert_eq!(v, expected);
        let unindexed: Vec<i32> = (0..1000).into_par_iter().filter(|x| x % 7 == 0).collect();
        assert_eq!(
            unindexed,
            (0..1000).filter(|x| x % 7 == 0).collect::<Vec<_>>()
        );
    }

    use crate::iter::ParallelExtend;
}
