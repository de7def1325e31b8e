//! How a producer is split across workers. May use `plumbing` and `pool`; never `iter`.
