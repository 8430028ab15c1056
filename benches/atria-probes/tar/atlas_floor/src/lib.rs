/// The same export, doing nothing with the bytes: the std and allocator floor.
#[no_mangle]
pub extern "C" fn list(ptr: *const u8, len: usize) -> u64 {
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) }.to_vec();
    bytes.iter().map(|&b| b as u64).sum()
}
#[no_mangle]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    let mut v = vec![0u8; len];
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}
pub use atlas_wasm::atria::default_memory_budget;
