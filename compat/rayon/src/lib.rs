//! rayon 1.12's public API, served by [weft](https://docs.rs/weft): every crate that depends
//! on `rayon` runs on weft when this crate is patched in (see weft's README, "Replacing Rayon
//! in a whole dependency graph").

pub use weft::*;
