//! Every row of a parquet file held in memory, through
//! `atlas_wasm::atria::parquet`.

use std::future::Future;
use std::sync::Arc;

use atlas_wasm::atria::parquet::ParquetFile;
use atlas_wasm::{ByteSource, MemorySource};

#[no_mangle]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    let mut v = Vec::<u8>::with_capacity(len);
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}

/// The length of every row printed, or u64::MAX on an error.
#[no_mangle]
pub extern "C" fn rows(ptr: *const u8, len: usize) -> u64 {
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) }.to_vec();
    let source: Arc<dyn ByteSource> = Arc::new(MemorySource::new(bytes));
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let work = async move {
        let file = ParquetFile::open(source).await?;
        let mut total = 0u64;
        let mut rows = file.rows();
        while let Some(row) = rows.next().await {
            total += format!("{:?}", row?).len() as u64;
        }
        Ok::<u64, atlas_wasm::atria::Error>(total)
    };
    match std::pin::pin!(work).as_mut().poll(&mut cx) {
        std::task::Poll::Ready(Ok(total)) => total,
        _ => u64::MAX,
    }
}
