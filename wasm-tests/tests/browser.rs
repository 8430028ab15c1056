//! The tests of `fixtures.rs` and `bindings.rs` again, in a browser, and a
//! `ByteSource` over `fetch`. This binary is declared browser-only, so
//! `wasm-pack test --headless --chrome` runs it (and skips the Node-only
//! binaries) and `wasm-pack test --node` skips it; nothing to set in the
//! environment either way.
#![cfg(target_arch = "wasm32")]
// bindings.rs and fixtures.rs each load tests/common/dump.rs, as each needs
// it in its own Node binary.
#![allow(clippy::duplicate_mod)]

use std::ops::Range;
use std::sync::Arc;

use atlas_wasm::source::{SourceFuture, Tail};
use atlas_wasm::{Atlas, ByteSource, Error, Result};
use js_sys::{Array, Uint8Array};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Blob, Request, RequestInit, Response, Url};

wasm_bindgen_test_configure!(run_in_browser);

#[path = "bindings.rs"]
mod bindings;
#[path = "fixtures.rs"]
mod fixtures;

/// A `ByteSource` over `fetch` with Range requests: what a crate that depends
/// on atlas-wasm writes to read collections in its own wasm code
/// (docs/js-api.md, "Testing a crate that depends on atlas-wasm").
struct FetchSource {
    url: String,
}

fn js_error(what: &str) -> impl Fn(wasm_bindgen::JsValue) -> Error + '_ {
    move |e| Error::Network(format!("{what}: {e:?}"))
}

impl FetchSource {
    /// One ranged GET: the body and the object's size from Content-Range.
    async fn get(&self, range: String) -> Result<(Vec<u8>, u64)> {
        let init = RequestInit::new();
        let headers = web_sys::Headers::new().map_err(js_error("headers"))?;
        headers.set("Range", &range).map_err(js_error("headers"))?;
        init.set_headers(&headers);
        let request =
            Request::new_with_str_and_init(&self.url, &init).map_err(js_error(&self.url))?;
        let window = web_sys::window().ok_or_else(|| Error::Internal("no window".into()))?;
        let answer = JsFuture::from(window.fetch_with_request(&request))
            .await
            .map_err(js_error(&self.url))?;
        let response: Response = answer.dyn_into().map_err(js_error("not a Response"))?;
        if response.status() != 206 {
            return Err(Error::RangeNotSupported(format!(
                "{}: {} to {range}",
                self.url,
                response.status()
            )));
        }
        let total = response
            .headers()
            .get("Content-Range")
            .ok()
            .flatten()
            .and_then(|v| v.rsplit('/').next()?.parse().ok())
            .ok_or_else(|| {
                Error::RangeNotSupported(format!("{}: no object size in Content-Range", self.url))
            })?;
        let body = response.array_buffer().map_err(js_error("body"))?;
        let bytes =
            Uint8Array::new(&JsFuture::from(body).await.map_err(js_error("body"))?).to_vec();
        Ok((bytes, total))
    }
}

impl ByteSource for FetchSource {
    fn read_range(&self, range: Range<u64>) -> SourceFuture<'_, Vec<u8>> {
        Box::pin(async move {
            if range.is_empty() {
                return Ok(Vec::new());
            }
            let (bytes, _) = self
                .get(format!("bytes={}-{}", range.start, range.end - 1))
                .await?;
            if bytes.len() as u64 != range.end - range.start {
                return Err(Error::Io(format!(
                    "{}: {} bytes for {range:?}",
                    self.url,
                    bytes.len()
                )));
            }
            Ok(bytes)
        })
    }

    fn read_tail(&self, len: u64) -> SourceFuture<'_, Tail> {
        Box::pin(async move {
            let (bytes, object_size) = self.get(format!("bytes=-{len}")).await?;
            Ok(Tail { bytes, object_size })
        })
    }

    fn describe(&self) -> String {
        self.url.clone()
    }
}

/// A `blob:` URL serving `bytes`, which Chromium answers with ranges.
fn blob_url(bytes: &[u8]) -> String {
    let parts = Array::of1(&Uint8Array::from(bytes));
    let blob = Blob::new_with_u8_array_sequence(&parts).unwrap();
    Url::create_object_url_with_blob(&blob).unwrap()
}

#[wasm_bindgen_test]
async fn a_fetch_source_reads_a_collection_by_ranges() {
    let data = include_bytes!("../fixtures/every_dtype_zstd/data.atlas");
    let source: Arc<dyn ByteSource> = Arc::new(FetchSource {
        url: blob_url(data),
    });
    let atlas = Atlas::open(source, None).await.unwrap();
    assert_eq!(atlas.list_datasets(), ["chunked", "unchunked"]);
    let read = atlas
        .dataset("chunked")
        .unwrap()
        .read_array_as::<i32>("int32", &[2], &[5])
        .await
        .unwrap();
    let whole = atlas
        .dataset("chunked")
        .unwrap()
        .read_array_as::<i32>("int32", &[], &[])
        .await
        .unwrap();
    assert_eq!(read.shape, vec![5]);
    assert_eq!(read.data, whole.data[2..7].to_vec());
    assert_eq!(whole.data.len(), 10);
}
