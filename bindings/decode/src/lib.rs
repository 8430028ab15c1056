//! `decodeBlock`, the one export of the decode module
//! (`atlas_decode_bg.wasm`), which the npm package's decode pool runs on its
//! workers (the calling thread decodes in the core): libzstd and lz4 alone,
//! built for speed rather than size (docs/benchmarks.md, "The decode module").
//! It needs nothing of what the other modules share (`atlas-wasm-js`), and
//! takes none of it: its caller is the pool, which passes on an error's
//! message and code.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;

use atlas_wasm::format::codec::decompress_prefix;
use atlas_wasm::format::segment::CodecId;
use atlas_wasm::{Error, Result};
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

thread_local! {
    /// The last block decoded, which `decodeBlock`'s answer views.
    static DECODED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Decompresses the first `wanted` bytes of one block of `uncompressedSize`
/// bytes (`codec` absent: stored as is) and checks their length. The answer
/// is a view of this module's memory, valid until the next call: the
/// caller copies it once, straight to where it goes (a worker: into the
/// buffer it transfers; the calling thread: into the core's memory).
#[wasm_bindgen(js_name = decodeBlock)]
pub fn decode_block(
    codec: Option<String>,
    bytes: &[u8],
    uncompressed_size: f64,
    wanted: f64,
) -> std::result::Result<Uint8Array, JsValue> {
    // The last answer is the caller's no longer: free it before decoding,
    // so the module's memory holds one decoded block at a time, not two.
    DECODED.with(|kept| *kept.borrow_mut() = Vec::new());
    let run = || -> Result<Vec<u8>> {
        let size = whole(uncompressed_size, "uncompressedSize")?;
        let wanted = whole(wanted, "wanted")?;
        let codec = codec.map_or(CodecId::None, CodecId::Named);
        decompress_prefix(&codec, bytes, size, wanted)
    };
    let decoded = run().map_err(|error| {
        let thrown = js_sys::Error::new(&error.to_string());
        let _ = Reflect::set(&thrown, &"code".into(), &error.code().into());
        JsValue::from(thrown)
    })?;
    DECODED.with(|kept| {
        let mut kept = kept.borrow_mut();
        *kept = decoded;
        // SAFETY: the view is of `kept`, which stays put until the next
        // call; nothing in this module allocates before the caller copies it.
        Ok(unsafe { Uint8Array::view(&kept) })
    })
}

/// A size the pool passed on from the core: whole, and exact in a JavaScript number.
fn whole(value: f64, what: &str) -> Result<u64> {
    const MAX_SAFE: f64 = ((1u64 << 53) - 1) as f64;
    if value.fract() == 0.0 && (0.0..=MAX_SAFE).contains(&value) {
        Ok(value as u64)
    } else {
        Err(Error::InvalidArgument(format!(
            "{what} must be a whole number >= 0"
        )))
    }
}
