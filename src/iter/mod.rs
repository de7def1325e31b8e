//! The `ParallelIterator` family: traits, sources, adapters and consumers.
