#![no_main]
//! Fuzz target `deletion_vector`: see `targets::deletion_vector` (a Delta
//! deletion vector, as a roaring bitmap and as a framed file). Seeds: the
//! deletion vector files of tests/atria/delta-dv and their bitmaps.

use atlas_wasm_fuzz::capped_alloc::CappedAlloc;
use atlas_wasm_fuzz::targets;
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: CappedAlloc = CappedAlloc;

fuzz_target!(|data: &[u8]| {
    // A typed error is a correct answer; only panics and aborts are findings.
    let _ = targets::deletion_vector(data);
});
