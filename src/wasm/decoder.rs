//! Block decoding handed to JavaScript: the npm package's decode pool.
//!
//! [`JsDecoder`] is the core's [`BlockDecoder`] over a JavaScript function
//! `(codec, bytes, uncompressedSize, wanted) => Promise<Uint8Array> | undefined`
//! (`undefined`: decode it here, the pool has no worker ready). The facade's
//! pool (`js/src/pool.js`) answers it by posting the bytes to a worker, whose
//! own instance of this module runs [`decode_block`]. What comes back is
//! checked here too: a worker is code we did not run.

use std::future::ready;
use std::sync::Arc;

use js_sys::{Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::error::{from_js, to_js};
use crate::error::{Error, Result};
use crate::format::codec::decompress_prefix;
use crate::format::segment::CodecId;
use crate::read::{BlockDecoder, CompressedBlock};
use crate::source::SourceFuture;

/// The decoder the options ask for: their `decode` key, when it is a function.
pub(crate) fn from_options(options: &JsValue) -> Option<Arc<dyn BlockDecoder>> {
    let decode = Reflect::get(options, &"decode".into()).ok()?;
    let decode = decode.dyn_into::<Function>().ok()?;
    Some(Arc::new(JsDecoder { decode }))
}

/// Decodes blocks by calling a JavaScript function.
struct JsDecoder {
    decode: Function,
}

impl BlockDecoder for JsDecoder {
    fn decode(&self, block: CompressedBlock) -> SourceFuture<'static, Vec<u8>> {
        let CodecId::Named(codec) = &block.codec else {
            // Stored bytes: a copy, not worth a trip to a worker.
            return Box::pin(ready(block.decompress()));
        };
        // A fresh buffer of exactly the block: the pool transfers it.
        let bytes = Uint8Array::from(&block.bytes[block.range.clone()]);
        let (size, wanted) = (block.uncompressed_size, block.wanted);
        let called = self.decode.call4(
            &JsValue::NULL,
            &codec.as_str().into(),
            &bytes,
            &(size as f64).into(),
            &(wanted as f64).into(),
        );
        let called = match called {
            // No worker ready yet: the pool leaves this block to us.
            Ok(answer) if answer.is_undefined() => return Box::pin(ready(block.decompress())),
            other => other,
        };
        Box::pin(async move {
            let promise: Promise = called
                .map_err(|e| from_worker(&e))?
                .dyn_into()
                .map_err(|_| Error::Io("the decode function returned no promise".into()))?;
            let answer = JsFuture::from(promise).await.map_err(|e| from_worker(&e))?;
            let decoded: Uint8Array = answer
                .dyn_into()
                .map_err(|_| Error::Io("the decode pool answered without bytes".into()))?;
            if decoded.length() as u64 != wanted {
                return Err(Error::corrupt(format!(
                    "a block decoded to {} bytes, {wanted} were asked",
                    decoded.length()
                )));
            }
            Ok(decoded.to_vec())
        })
    }
}

/// A worker's error: a corrupt block stays [`Error::CorruptCollection`].
fn from_worker(thrown: &JsValue) -> Error {
    let text = |key: &str| Reflect::get(thrown, &key.into()).ok()?.as_string();
    match (text("code").as_deref(), text("message")) {
        (Some("CorruptCollection"), Some(message)) => {
            let message = message
                .strip_prefix("corrupt collection: ")
                .unwrap_or(&message);
            Error::corrupt(message)
        }
        _ => from_js(thrown, "the decode pool"),
    }
}

/// Decompresses the first `wanted` bytes of one block of `uncompressedSize`
/// bytes (`codec` absent: stored as is) and checks their length: what a
/// decode worker runs.
#[wasm_bindgen(js_name = decodeBlock)]
pub fn decode_block(
    codec: Option<String>,
    bytes: &[u8],
    uncompressed_size: f64,
    wanted: f64,
) -> std::result::Result<Vec<u8>, JsValue> {
    let whole = |n: f64| n.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&n);
    let run = || -> Result<Vec<u8>> {
        if !(whole(uncompressed_size) && whole(wanted)) {
            return Err(Error::InvalidArgument(
                "uncompressedSize and wanted must be whole numbers >= 0".into(),
            ));
        }
        let codec = codec.map_or(CodecId::None, CodecId::Named);
        decompress_prefix(&codec, bytes, uncompressed_size as u64, wanted as u64)
    };
    run().map_err(to_js)
}
