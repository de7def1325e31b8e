//! How a producer is split across workers. May use `plumbing` and `pool`; never `iter`.

#[allow(dead_code)] // until the on-steal driver uses it
mod steal_range; // lock-free work-stealing index range and its producer hand-off
