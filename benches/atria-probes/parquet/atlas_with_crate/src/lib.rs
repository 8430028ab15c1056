//! atlas-wasm (feature `atria`) and the `parquet` crate reading every row
//! of a file in memory: what the crate adds next to the rest of the module.

use parquet::file::reader::{FileReader, SerializedFileReader};

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
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) };
    let Ok(reader) = SerializedFileReader::new(bytes::Bytes::copy_from_slice(bytes)) else {
        return u64::MAX;
    };
    let Ok(iter) = reader.get_row_iter(None) else {
        return u64::MAX;
    };
    let mut total = atlas_wasm::atria::default_memory_budget();
    for row in iter {
        match row {
            Ok(row) => total += format!("{row}").len() as u64,
            Err(_) => return u64::MAX,
        }
    }
    total
}
