//! Placeholder: the join benchmarks are written with the scheduler.
fn main() {}
