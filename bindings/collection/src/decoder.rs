//! Block decoding handed to JavaScript: the npm package's decode pool.
//!
//! [`JsDecoder`] is the core's [`BlockDecoder`] over a JavaScript function
//! `(codec, bytes, uncompressedSize, wanted) => Promise<Uint8Array> | undefined`.
//! The facade's pool (`js/src/pool.js`) answers with a promise when it posts
//! the bytes to a worker, whose instance of the decode module runs
//! `decodeBlock` (`bindings/decode`), and with `undefined` while no worker is ready:
//! then the block is decoded here. What comes back is checked here too: a
//! worker is code we did not run.

use std::future::ready;
use std::sync::Arc;

use atlas_wasm::format::segment::CodecId;
use atlas_wasm::source::SourceFuture;
use atlas_wasm::{BlockDecoder, CompressedBlock, Error, Result};
use atlas_wasm_js::error::from_js;
use js_sys::{Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

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
        // Decoded here: stored bytes (a copy, not worth a trip to a worker),
        // and a block with nothing loading beside it, which a worker would
        // only give two copies and, the first time, its cold code
        // (docs/benchmarks.md, "The decode pool and `decodeWorkers`' default").
        let codec = match &block.codec {
            CodecId::Named(codec) if !block.alone => codec,
            _ => return Box::pin(ready(block.decompress())),
        };
        let (size, wanted) = (block.uncompressed_size, block.wanted);
        let called = {
            // SAFETY: a view of our memory, used only during this call: the
            // pool copies it into a worker's buffer, and calls nothing of
            // this module that could allocate.
            let bytes = unsafe { Uint8Array::view(&block.bytes[block.range.clone()]) };
            self.decode.call4(
                &JsValue::NULL,
                &codec.as_str().into(),
                &bytes,
                &(size as f64).into(),
                &(wanted as f64).into(),
            )
        };
        let called = match called {
            // No worker is ready: the pool leaves this block to us.
            Ok(answer) if answer.is_undefined() => return Box::pin(ready(block.decompress())),
            other => other,
        };
        Box::pin(async move {
            let promise: Promise = called
                .map_err(|e| from_worker(&e))?
                .dyn_into()
                .map_err(|_| Error::Io("the decode function returned no promise".into()))?;
            let answer = JsFuture::from(promise).await.map_err(|e| from_worker(&e))?;
            let answer = answer
                .dyn_into()
                .map_err(|_| Error::Io("the decode pool answered without bytes".into()))?;
            decoded(answer, wanted)
        })
    }
}

/// The decoded bytes in our memory, if there are as many as were asked.
fn decoded(answer: Uint8Array, wanted: u64) -> Result<Vec<u8>> {
    if answer.length() as u64 != wanted {
        return Err(Error::corrupt_collection(format!(
            "a block decoded to {} bytes, {wanted} were asked",
            answer.length()
        )));
    }
    Ok(answer.to_vec())
}

/// A worker's error: a corrupt block stays [`Error::CorruptCollection`].
fn from_worker(thrown: &JsValue) -> Error {
    let text = |key: &str| Reflect::get(thrown, &key.into()).ok()?.as_string();
    match (text("code").as_deref(), text("message")) {
        (Some("CorruptCollection"), Some(message)) => {
            let message = message
                .strip_prefix("corrupt collection: ")
                .unwrap_or(&message);
            Error::corrupt_collection(message)
        }
        _ => from_js(thrown, "the decode pool"),
    }
}
