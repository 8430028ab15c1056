use std::future::Future;
use std::sync::Arc;

use atlas_wasm::atria::TarShards;
use atlas_wasm::{ByteSource, MemorySource};

/// Lists a TAR held in memory: total of name lengths and sizes.
#[no_mangle]
pub extern "C" fn list(ptr: *const u8, len: usize) -> u64 {
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) }.to_vec();
    let source: Arc<dyn ByteSource> = Arc::new(MemorySource::new(bytes));
    let shards = TarShards::new(move |_: &str| -> atlas_wasm::Result<Arc<dyn ByteSource>> {
        Ok(source.clone())
    });
    let mut index = std::pin::pin!(shards.index("a.tar"));
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match index.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(Ok(index)) => index
            .members
            .iter()
            .map(|m| m.name.len() as u64 + m.size)
            .sum(),
        _ => 0,
    }
}
#[no_mangle]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    let mut v = vec![0u8; len];
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}
