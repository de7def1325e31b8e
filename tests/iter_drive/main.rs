//! The parallel-iterator tests of the drivers, result order, panics and producers: the
//! second half of `tests/iter/` (see its `main.rs`), whose files stay in that folder.

#[path = "../common/mod.rs"]
mod common;

#[path = "../iter/deterministic.rs"]
mod deterministic;
#[path = "../iter/drive_on_steal.rs"]
mod drive_on_steal;
#[path = "../iter/drop_counting.rs"]
mod drop_counting;
#[path = "../iter/endless_searches.rs"]
mod endless_searches;
#[path = "../iter/huge_ranges.rs"]
mod huge_ranges;
#[path = "../iter/order.rs"]
mod order;
#[path = "../iter/panics.rs"]
mod panics;
#[path = "../iter/producer_contract.rs"]
mod producer_contract;
#[path = "../iter/producer_split_at.rs"]
mod producer_split_at;
#[path = "../iter/ranges.rs"]
mod ranges;
