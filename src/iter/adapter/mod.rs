//! Adapters: one per file. Each file holds the public struct and its iterator impls, then
//! its consumer and folder, then its producer.

mod map;

pub use map::Map;
