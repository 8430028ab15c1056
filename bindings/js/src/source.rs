//! [`JsByteSource`]: the core's [`ByteSource`] over a JavaScript object.
//!
//! Every source the package offers (HTTP, R2, Blob, bytes, a user's own
//! object) reaches the core through this one adapter. The facade
//! (`js/src/sources.js`) hands over an object with these methods:
//!
//! ```text
//! readTail(length, signal) -> Promise<{ bytes: Bytes, size: number }>
//! read(offset, length, signal) -> Promise<Bytes>
//! describe() -> string
//! ```
//!
//! `Bytes` is a `Uint8Array`, or an array of them: the chunks of one answer
//! in order, copied here one after another (the HTTP source's bodies in
//! Node, which are then never joined in JavaScript).
//!
//! Each call gets its own `AbortSignal`, aborted when the core drops the read
//! before it settles. The answer's length is checked here, once for every
//! source: a source that answers more or fewer bytes than asked is an error,
//! never data.

use std::ops::Range;

use atlas_wasm::source::{ByteSource, SourceFuture, Tail};
use atlas_wasm::{Error, Result};
use js_sys::{Array, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal};

use crate::error::from_js;
use crate::MAX_SAFE;

#[wasm_bindgen]
extern "C" {
    /// A source object as the facade normalises it.
    pub type JsSource;

    #[wasm_bindgen(method, catch, js_name = readTail)]
    fn read_tail(
        this: &JsSource,
        length: f64,
        signal: Option<AbortSignal>,
    ) -> std::result::Result<Promise, JsValue>;

    #[wasm_bindgen(method, catch, js_name = read)]
    fn read(
        this: &JsSource,
        offset: f64,
        length: f64,
        signal: Option<AbortSignal>,
    ) -> std::result::Result<Promise, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn describe(this: &JsSource) -> std::result::Result<String, JsValue>;
}

/// A [`ByteSource`] that forwards to a [`JsSource`].
pub struct JsByteSource {
    js: JsSource,
    name: String,
}

impl JsByteSource {
    pub fn new(js: JsSource) -> Self {
        let name = js
            .describe()
            .unwrap_or_else(|_| "a JavaScript source".to_string());
        Self { js, name }
    }

    /// Calls into JavaScript and awaits the promise, with an abort guard.
    async fn call(
        &self,
        start: impl FnOnce(Option<AbortSignal>) -> std::result::Result<Promise, JsValue>,
    ) -> Result<JsValue> {
        let guard = AbortOnDrop(AbortController::new().ok());
        let promise =
            start(guard.0.as_ref().map(|c| c.signal())).map_err(|e| from_js(&e, &self.name))?;
        let answer = JsFuture::from(promise).await;
        guard.disarm();
        answer.map_err(|e| from_js(&e, &self.name))
    }

    fn bytes(&self, value: JsValue, asked: u64, offset: u64) -> Result<Vec<u8>> {
        let not_bytes = || {
            Error::Io(format!(
                "{} answered something other than a Uint8Array",
                self.name
            ))
        };
        let chunks: Vec<Uint8Array> = match value.dyn_into::<Uint8Array>() {
            Ok(one) => vec![one],
            Err(value) if Array::is_array(&value) => Array::from(&value)
                .iter()
                .map(|chunk| chunk.dyn_into::<Uint8Array>().map_err(|_| not_bytes()))
                .collect::<Result<_>>()?,
            Err(_) => return Err(not_bytes()),
        };
        let got: u64 = chunks.iter().map(|c| u64::from(c.length())).sum();
        if got != asked {
            return Err(Error::Io(format!(
                "{} answered {got} bytes for a read of {asked} bytes at offset {offset}",
                self.name
            )));
        }
        // `asked` is the length this crate asked for, and the answer matches it.
        let mut out = Vec::with_capacity(got as usize);
        for chunk in chunks {
            let n = chunk.length() as usize;
            chunk.copy_to_uninit(&mut out.spare_capacity_mut()[..n]);
            // SAFETY: `copy_to_uninit` initialised the `n` bytes after `len`.
            unsafe { out.set_len(out.len() + n) };
        }
        Ok(out)
    }
}

impl ByteSource for JsByteSource {
    fn read_range(&self, range: Range<u64>) -> SourceFuture<'_, Vec<u8>> {
        Box::pin(async move {
            let length = checked_length(&range)?;
            if length == 0 {
                return Ok(Vec::new());
            }
            let answer = self
                .call(|signal| self.js.read(range.start as f64, length as f64, signal))
                .await?;
            self.bytes(answer, length, range.start)
        })
    }

    fn read_tail(&self, len: u64) -> SourceFuture<'_, Tail> {
        Box::pin(async move {
            let len = len.min(MAX_SAFE);
            let answer = self
                .call(|signal| self.js.read_tail(len as f64, signal))
                .await?;
            let size = Reflect::get(&answer, &"size".into())
                .ok()
                .and_then(|s| s.as_f64())
                .filter(|s| s.fract() == 0.0 && (0.0..=MAX_SAFE as f64).contains(s))
                .ok_or_else(|| {
                    Error::Io(format!(
                        "{} answered a tail without a valid size",
                        self.name
                    ))
                })? as u64;
            let bytes = Reflect::get(&answer, &"bytes".into()).unwrap_or(JsValue::UNDEFINED);
            let bytes = self.bytes(bytes, len.min(size), size - len.min(size))?;
            Ok(Tail {
                bytes,
                object_size: size,
            })
        })
    }

    fn describe(&self) -> String {
        self.name.clone()
    }
}

fn checked_length(range: &Range<u64>) -> Result<u64> {
    if range.start > range.end || range.end > MAX_SAFE {
        return Err(Error::OutOfBounds(format!(
            "range {}..{} cannot be read from JavaScript (offsets end at 2^53)",
            range.start, range.end
        )));
    }
    Ok(range.end - range.start)
}

/// Aborts the JavaScript request when the read is dropped before it settles.
struct AbortOnDrop(Option<AbortController>);

impl AbortOnDrop {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(controller) = self.0.take() {
            controller.abort();
        }
    }
}
