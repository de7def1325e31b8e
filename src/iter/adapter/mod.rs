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
mod skip_take; // skip, take
mod state; // per-piece state for map_with / fold / try_fold
mod step_by; // step_by
mod take_skip_any; // take_any, skip_any
mod try_fold; // try_fold, try_fold_with
mod while_some; // while_some
mod zip; // zip, zip_eq

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
pub use skip_take::{Skip, Take};
pub use step_by::StepBy;
pub use take_skip_any::{SkipAny, TakeAny};
pub use try_fold::{TryFold, TryFoldWith};
pub use while_some::WhileSome;
pub use zip::{Zip, ZipEq};
