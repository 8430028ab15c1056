#![no_main]
//! Fuzz target `parquet_read`: opens the input as a parquet file
//! (`atlas_wasm::atria::parquet`) and reads every row group, every column.
//! Seeds: tests/atria/make_parquet.py's files (docs/atria.md, "Parquet").

use std::sync::Arc;

use atlas_wasm::atria::parquet::ParquetFile;
use atlas_wasm::{ByteSource, MemorySource};
use atlas_wasm_fuzz::capped_alloc::CappedAlloc;
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: CappedAlloc = CappedAlloc;

/// The memory budget: well under the capped allocator's limit.
const BUDGET: u64 = 64 << 20;

fuzz_target!(|data: &[u8]| {
    // A typed error is a correct answer; only panics and aborts are findings.
    let source: Arc<dyn ByteSource> = Arc::new(MemorySource::new(data.to_vec()));
    let _ = futures_executor::block_on(async {
        let file = ParquetFile::open_with_budget(source, BUDGET).await?;
        let _ = (file.num_rows(), file.columns(), file.row_group_rows());
        for group in 0..file.row_groups() {
            file.read_row_group(group, None).await?;
        }
        Ok::<(), atlas_wasm::Error>(())
    });
});
