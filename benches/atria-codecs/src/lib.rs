//! Exports, to run.mjs, the parquet page decoders under test over bytes in
//! this module's memory: atria::parquet's own files (compiled here from
//! src/atria/, unchanged) and the former hand-written ones (src/former/).
//! Each decode returns the output's length, or its CRC-32 when `check` is
//! set (so run.mjs can hold both decoders' outputs equal), or u32::MAX on
//! an error.

use std::sync::atomic::{AtomicU32, Ordering};

mod error;

#[path = "../../../src/atria/crc32.rs"]
mod crc32;

// The paths atria::parquet's gzip.rs and snappy.rs name the CRC-32 and
// the error by.
#[cfg(any(feature = "crate-gzip", feature = "crate-snappy"))]
mod atria {
    #[cfg(feature = "crate-gzip")]
    pub(crate) use crate::crc32;
    pub(crate) use crate::error;
}

#[cfg(feature = "crate-gzip")]
#[path = "../../../src/atria/parquet/gzip.rs"]
mod gzip;
#[cfg(feature = "crate-snappy")]
#[path = "../../../src/atria/parquet/snappy.rs"]
mod snappy;

#[cfg(any(feature = "former-snappy", feature = "former-gzip"))]
mod former {
    #[cfg(feature = "crc-peers")]
    pub mod crc32_bytewise;
    #[cfg(feature = "former-gzip")]
    pub mod inflate;
    #[cfg(feature = "former-snappy")]
    pub mod snappy;
}

/// `len` bytes of this module's memory for run.mjs to fill; never freed.
#[no_mangle]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    Box::leak(vec![0u8; len].into_boxed_slice()).as_mut_ptr()
}

fn run(
    decode: impl Fn(&[u8], usize) -> error::Result<Vec<u8>>,
    ptr: *const u8,
    len: usize,
    size: usize,
    check: u32,
) -> u32 {
    // SAFETY: run.mjs passes a range that `alloc` returned.
    let input = unsafe { std::slice::from_raw_parts(ptr, len) };
    match decode(input, size) {
        Ok(out) if check != 0 => crc32::crc32(&out),
        Ok(out) => out.len() as u32,
        Err(error::Error::Corrupt(message)) => {
            // Kept, as the Atria module keeps its messages for JavaScript:
            // else their formatting would not count in the size builds.
            ERROR_LEN.store(message.len() as u32, Ordering::Relaxed);
            u32::MAX
        }
    }
}

static ERROR_LEN: AtomicU32 = AtomicU32::new(0);

/// The length of the last error's message.
#[no_mangle]
pub extern "C" fn error_len() -> u32 {
    ERROR_LEN.load(Ordering::Relaxed)
}

/// The CRC-32 of a range, eight bytes a step (src/atria/crc32.rs).
#[no_mangle]
pub extern "C" fn crc_sliced(ptr: *const u8, len: usize) -> u32 {
    // SAFETY: as in `run`.
    crc32::crc32(unsafe { std::slice::from_raw_parts(ptr, len) })
}

#[cfg(feature = "crc-peers")]
#[no_mangle]
pub extern "C" fn crc_bytewise(ptr: *const u8, len: usize) -> u32 {
    // SAFETY: as in `run`.
    former::crc32_bytewise::crc32(unsafe { std::slice::from_raw_parts(ptr, len) })
}

#[cfg(feature = "crc-peers")]
#[no_mangle]
pub extern "C" fn crc_bitwise(ptr: *const u8, len: usize) -> u32 {
    // SAFETY: as in `run`.
    former::inflate::crc32(unsafe { std::slice::from_raw_parts(ptr, len) })
}

#[cfg(feature = "crate-snappy")]
#[no_mangle]
pub extern "C" fn snappy_crate(ptr: *const u8, len: usize, size: usize, check: u32) -> u32 {
    run(snappy::decompress, ptr, len, size, check)
}

#[cfg(feature = "former-snappy")]
#[no_mangle]
pub extern "C" fn snappy_former(ptr: *const u8, len: usize, size: usize, check: u32) -> u32 {
    run(former::snappy::decompress, ptr, len, size, check)
}

#[cfg(feature = "crate-gzip")]
#[no_mangle]
pub extern "C" fn gzip_crate(ptr: *const u8, len: usize, size: usize, check: u32) -> u32 {
    run(gzip::gunzip, ptr, len, size, check)
}

#[cfg(feature = "former-gzip")]
#[no_mangle]
pub extern "C" fn gzip_former(ptr: *const u8, len: usize, size: usize, check: u32) -> u32 {
    run(former::inflate::gunzip, ptr, len, size, check)
}
