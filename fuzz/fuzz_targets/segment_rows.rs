#![no_main]
//! Fuzz target `segment_rows`: see `atlas_wasm_fuzz::targets::segment_rows`.

use atlas_wasm_fuzz::capped_alloc::CappedAlloc;
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: CappedAlloc = CappedAlloc;

fuzz_target!(|data: &[u8]| {
    // A typed error is a correct answer; only panics and aborts are findings.
    let _ = atlas_wasm_fuzz::targets::segment_rows(data);
});
