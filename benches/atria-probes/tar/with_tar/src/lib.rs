/// Lists a TAR held in memory: total of name lengths and sizes.
#[no_mangle]
pub extern "C" fn list(ptr: *const u8, len: usize) -> u64 {
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) }.to_vec();
    let mut archive = tar::Archive::new(std::io::Cursor::new(bytes));
    let mut total = 0u64;
    if let Ok(entries) = archive.entries() {
        for entry in entries.flatten() {
            if let Ok(path) = entry.path() {
                total += path.to_string_lossy().len() as u64;
            }
            total += entry.size();
        }
    }
    total
}
#[no_mangle]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    let mut v = vec![0u8; len];
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}
