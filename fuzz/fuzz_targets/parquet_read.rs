#![no_main]
//! Fuzz target `parquet_read`: see `targets::parquet_read`. Seeds:
//! tests/atria/make_parquet.py's files (docs/atria.md, "Parquet").

use atlas_wasm_fuzz::capped_alloc::CappedAlloc;
use atlas_wasm_fuzz::targets;
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: CappedAlloc = CappedAlloc;

fuzz_target!(|data: &[u8]| {
    // A typed error is a correct answer; only panics and aborts are findings.
    let _ = targets::parquet_read(data);
});
