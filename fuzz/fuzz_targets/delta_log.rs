#![no_main]
//! Fuzz target `delta_log`: see `targets::delta_log` (a Delta Lake table's first commit). Seeds: the Atria
//! corpus (tests/atria/make_corpus.sh) through `fuzz/write_seeds.py --atria`.

use atlas_wasm_fuzz::capped_alloc::CappedAlloc;
use atlas_wasm_fuzz::targets;
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: CappedAlloc = CappedAlloc;

fuzz_target!(|data: &[u8]| {
    // A typed error is a correct answer; only panics and aborts are findings.
    let _ = targets::delta_log(data);
});
