//! `decodeBlock`, the one export of the decode module
//! (`atlas_decode_bg.wasm`, feature `decode-module`), which the npm
//! package's decode pool runs on its workers (the calling thread decodes in
//! the core): libzstd and lz4 alone, built for speed rather than size
//! (docs/benchmarks.md, "The decode module").

use std::cell::RefCell;

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

use super::error::to_js;
use super::whole;
use crate::error::Result;
use crate::format::codec::decompress_prefix;
use crate::format::segment::CodecId;

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
    let decoded = run().map_err(to_js)?;
    DECODED.with(|kept| {
        let mut kept = kept.borrow_mut();
        *kept = decoded;
        // SAFETY: the view is of `kept`, which stays put until the next
        // call; nothing in this module allocates before the caller copies it.
        Ok(unsafe { Uint8Array::view(&kept) })
    })
}
