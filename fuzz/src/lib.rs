//! What the fuzz targets run, and the allocator they run under.
//!
//! `targets.rs` is also compiled into `tests/fuzz_regressions.rs`, so plain
//! `cargo test` replays saved inputs through exactly the code the fuzzer ran.

pub mod capped_alloc;
pub mod targets;
