//! atlas-wasm with `atria` linked, reading no parquet: the floor the two
//! readers below are measured against.

#[no_mangle]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    let mut v = Vec::<u8>::with_capacity(len);
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}

#[no_mangle]
pub extern "C" fn rows(ptr: *const u8, len: usize) -> u64 {
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) };
    bytes.iter().map(|&b| b as u64).sum::<u64>() + atlas_wasm::atria::default_memory_budget()
}
