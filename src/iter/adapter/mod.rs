//! Adapters: one per file (closely paired ones, like `skip`/`take`, share one). Each file
//! holds the public structs and their iterator impls, then the consumer and folder, then
//! the producer.

mod any_while; // take_any_while, skip_any_while
mod blocks; // by_exponential_blocks, by_uniform_blocks
mod chain; // chain
mod chunks; // chunks
mod cloned_copied; // cloned, copied
mod enumerate; // enumerate
mod filter_map; // filter, filter_map
mod flat_map; // flat_map, flatten
mod flat_map_iter; // flat_map_iter, flatten_iter
mod fold; // fold, fold_with
mod fold_chunks; // fold_chunks, fold_chunks_with
mod inspect_update; // inspect, update
mod interleave; // interleave, interleave_shortest
mod intersperse; // intersperse
mod map; // map
mod map_with; // map_with, map_init
mod min_max_len; // with_min_len, with_max_len
mod multizip; // tuples of indexed iterators
mod panic_fuse; // panic_fuse
mod positions; // positions
mod rev; // rev
mod scan; // inclusive_scan, exclusive_scan
mod skip_take; // skip, take
mod state; // per-piece state for map_with / fold / try_fold
mod step_by; // step_by
mod take_any_skip_any; // take_any, skip_any
mod try_fold; // try_fold, try_fold_with
mod while_some; // while_some
mod zip; // zip, zip_eq

/// Input items between two `full()` tests in [`consume_checking_full!`].
const FULL_CHECK_EVERY: usize = 1024;

/// Inputs longer than this go in batches in [`consume_checking_full!`] if the consumer may
/// stop early. The drivers never hand such a consumer's indexed leaf more than this in one
/// call (`drive::fold_indexed`, which tests `full()` between its blocks), so only unindexed
/// leaves and folders called directly reach the batching, which costs: the `take` counts
/// down per item, and keeps LLVM from vectorizing the loop.
pub(crate) use crate::drive::LONG_INPUT;

/// How many of `items` to feed in batches: its length if it is longer than [`LONG_INPUT`],
/// else 0. The upper bound when known, else the lower one (a `u128` range longer than
/// `usize::MAX` reports `(usize::MAX, None)`); an input of unknown length beyond that goes
/// in one unchecked call.
#[inline]
pub(crate) fn long_input_len<I: Iterator>(items: &I) -> usize {
    let (lower, upper) = items.size_hint();
    let len = upper.unwrap_or(lower);
    if len > LONG_INPUT {
        len
    } else {
        0
    }
}

/// `folder.consume_iter(adapt(items))` for adapters that may drop items (`filter`,
/// `flat_map_iter` with empty inner iterators), written `|batch| adapt`. A short-circuiting
/// folder (`find_any`, `any`, `find_first`) tests its stop flag once per item it
/// *receives*; a filter rejecting a long stretch would hide that flag for the whole
/// stretch, and a piece whose match can no longer win would run to its end (forever, on a
/// `u128` range of 10^27 items). So if `$stops` (a constant: the consumer may stop early,
/// `Folder::MAY_STOP_EARLY`), an input longer than [`LONG_INPUT`] goes in batches of
/// [`FULL_CHECK_EVERY`] items, with a `full()` test between batches; each batch is still
/// one `consume_iter`. A shorter input, or any input when the consumer can never stop,
/// takes the plain single call: the batches' `take` counts down per item.
macro_rules! consume_checking_full {
    ($stops:expr, $folder:expr, $items:expr, |$batch:ident| $adapt:expr) => {{
        let mut folder = $folder;
        let mut items = $items;
        if $stops {
            let mut left = $crate::iter::adapter::long_input_len(&items);
            let mut stopped = false;
            while left > $crate::iter::adapter::FULL_CHECK_EVERY {
                let $batch = items.by_ref().take($crate::iter::adapter::FULL_CHECK_EVERY);
                folder = folder.consume_iter($adapt);
                if folder.full() {
                    stopped = true;
                    break;
                }
                left -= $crate::iter::adapter::FULL_CHECK_EVERY;
            }
            if !stopped {
                let $batch = items;
                folder = folder.consume_iter($adapt);
            }
            folder
        } else {
            let $batch = items;
            folder.consume_iter($adapt)
        }
    }};
}
use consume_checking_full;

/// `Consumer::split_at` and `Consumer::split_at_sized` of an adapter's consumer: both split
/// the base consumer the same way and wrap the pieces with the adapter's own
/// `split_base(self, split)`, so that the length the driver knows reaches the base.
macro_rules! splits_through_base {
    () => {
        fn split_at(self, index: usize) -> (Self, Self, Self::Reducer) {
            self.split_base(|base| base.split_at(index))
        }

        fn split_at_sized(self, index: usize, len: usize) -> (Self, Self, Self::Reducer) {
            self.split_base(|base| base.split_at_sized(index, len))
        }
    };
}
use splits_through_base;

/// `Producer::min_len` and `Producer::max_len` of an adapter's producer that neither adds
/// items nor changes its base's chunk limits: both are the base's (`self.base`); and its
/// `Producer::split_tree`, which every adapter's producer forwards (for the scans, and
/// `deterministic()` chains driven through a producer of their own).
macro_rules! lengths_from_base {
    () => {
        fn min_len(&self) -> usize {
            self.base.min_len()
        }

        fn max_len(&self) -> usize {
            self.base.max_len()
        }

        fn split_tree(&self) -> $crate::plumbing::SplitTree {
            self.base.split_tree()
        }
    };
}
use lengths_from_base;

/// `Consumer::continue_folder` of an adapter whose consumer and folder wrap a base consumer
/// and folder: the base decides whether its folder goes on, and what comes back is wrapped
/// again by the adapter's constructors, written `|base| consumer` and `|base| folder`. A
/// macro, not a generic function taking closures: that would be three more functions to
/// compile for every loop through the adapter.
macro_rules! continue_base_folder {
    ($base:expr, $base_folder:expr, |$c:ident| $consumer:expr, |$f:ident| $folder:expr $(,)?) => {
        match $base.continue_folder($base_folder) {
            Ok($f) => Ok($folder),
            Err((consumer, folder)) => Err((
                {
                    let $c = consumer;
                    $consumer
                },
                {
                    let $f = folder;
                    $folder
                },
            )),
        }
    };
}
use continue_base_folder;

pub use any_while::{SkipAnyWhile, TakeAnyWhile};
pub use blocks::{ExponentialBlocks, UniformBlocks};
pub use chain::Chain;
pub use chunks::Chunks;
pub use cloned_copied::{Cloned, Copied};
pub use enumerate::Enumerate;
pub use filter_map::{Filter, FilterMap};
pub use flat_map::{FlatMap, Flatten};
pub use flat_map_iter::{FlatMapIter, FlattenIter};
pub use fold::{Fold, FoldWith};
pub use fold_chunks::{FoldChunks, FoldChunksWith};
pub use inspect_update::{Inspect, Update};
pub use interleave::{Interleave, InterleaveShortest};
pub use intersperse::Intersperse;
pub use map::Map;
pub use map_with::{MapInit, MapWith};
pub use min_max_len::{MaxLen, MinLen, MinMaxLen};
pub use multizip::MultiZip;
pub use panic_fuse::PanicFuse;
pub use positions::Positions;
pub use rev::Rev;
pub use scan::{ExclusiveScan, InclusiveScan, Scan};
pub use skip_take::{Skip, Take};
pub use step_by::StepBy;
pub use take_any_skip_any::{SkipAny, TakeAny};
pub use try_fold::{TryFold, TryFoldWith};
pub use while_some::WhileSome;
pub use zip::{Zip, ZipEq};
