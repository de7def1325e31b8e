//! The producer / consumer vocabulary shared by `iter/` and `drive/`. Traits only.
