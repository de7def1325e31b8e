//! The traits users import with `use weft::prelude::*;`.
