//! The module of the npm entry `atlas-wasm/atria`, `atria_wasm_bg.wasm`: a
//! module of its own (js/scripts/build.sh), so that the core module does not
//! grow, and without the collection classes, which it never calls.
//!
//! Thin on purpose, as the collection module: every answer comes from
//! [`AtriaCache`] and [`Split`]; this crate moves values across the
//! boundary, with what every module shares from `atlas-wasm-js`. The facade
//! `js/src/atria.js` wraps the classes exported here: `AtriaCacheHandle`,
//! `AtriaSplitHandle` and `ParquetHandle`.
//!
//! | File | What crosses |
//! |---|---|
//! | `store.rs` | one Atria [`Store`](atlas_wasm::atria::Store) over a JS object |
//! | `values.rs` | records, rows, numpy values and pointer checks as JS values |
//! | `parquet.rs` | `ParquetHandle`: one parquet file by range |
#![cfg(target_arch = "wasm32")]
// Byte sources are `?Send` on wasm32 and the program has one thread, so an
// `Arc` of one is simply a shared pointer.
#![allow(clippy::arc_with_non_send_sync)]

mod parquet;
mod store;
mod values;

use std::future::Future;
use std::rc::Rc;

use atlas_wasm::atria::{AtriaCache, Error, Split};
use atlas_wasm_js::error::js_error;
use atlas_wasm_js::whole;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

use store::{JsStore, JsStoreObject};

/// Runs one call of these classes (see [`atlas_wasm_js::task`]): a promise
/// of its value, or of its error as an `AtriaError` with Atria's code.
fn spawn(
    call: impl Future<Output = Result<JsValue, Error>> + 'static,
    abort: Option<Promise>,
) -> Promise {
    let to_js = |error: Error| js_error(&error.to_string(), error.code(), error.http_status());
    atlas_wasm_js::task::spawn_abortable(Box::pin(call), to_js, abort)
}

/// One open Atria cache (a config directory).
#[wasm_bindgen]
pub struct AtriaCacheHandle {
    cache: Rc<AtriaCache>,
}

#[wasm_bindgen]
impl AtriaCacheHandle {
    /// Opens the cache `store` serves; resolves to an `AtriaCacheHandle`.
    pub fn open(store: JsStoreObject, abort: Option<Promise>) -> Promise {
        spawn(
            async move {
                let cache = AtriaCache::open(JsStore(store)).await?;
                Ok(AtriaCacheHandle {
                    cache: Rc::new(cache),
                }
                .into())
            },
            abort,
        )
    }

    /// The bytes of member `expected` behind `pointer`: verified, else
    /// recovered by name (`check` says which).
    pub fn content(&self, pointer: String, expected: String, abort: Option<Promise>) -> Promise {
        let shards = self.cache.shards().clone();
        spawn(
            async move {
                let content = shards.content(&pointer, &expected).await?;
                Ok(js_sys::Uint8Array::from(&content.bytes[..]).into())
            },
            abort,
        )
    }

    /// What resolving `pointer` to member `expected` finds, without failing
    /// on a bad pointer.
    pub fn check(&self, pointer: String, expected: String, abort: Option<Promise>) -> Promise {
        let shards = self.cache.shards().clone();
        spawn(
            async move { Ok(values::check(shards.check(&pointer, &expected).await?)) },
            abort,
        )
    }

    /// The members of `shard` grouped into WebDataset samples:
    /// `[{key, members: [{name, offset, size}]}]`.
    pub fn samples(&self, shard: String, abort: Option<Promise>) -> Promise {
        let shards = self.cache.shards().clone();
        spawn(
            async move { Ok(values::samples(shards.samples(&shard).await?)) },
            abort,
        )
    }

    /// `"deltalake"` or `"msgpack"`.
    #[wasm_bindgen(getter)]
    pub fn backend(&self) -> String {
        self.cache.backend().to_string()
    }

    /// The split names.
    #[wasm_bindgen(getter)]
    pub fn splits(&self) -> Vec<String> {
        self.cache.splits().to_vec()
    }

    /// Opens split `name`; resolves to an `AtriaSplitHandle`.
    pub fn split(&self, name: String, abort: Option<Promise>) -> Promise {
        let cache = self.cache.clone();
        spawn(
            async move {
                let split = cache.split(&name).await?;
                Ok(AtriaSplitHandle {
                    split: Rc::new(split),
                }
                .into())
            },
            abort,
        )
    }
}

/// One split of an open cache.
#[wasm_bindgen]
pub struct AtriaSplitHandle {
    split: Rc<Split>,
}

#[wasm_bindgen]
impl AtriaSplitHandle {
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.split.name().to_string()
    }

    #[wasm_bindgen(getter, js_name = numRows)]
    pub fn num_rows(&self) -> f64 {
        self.split.num_rows() as f64
    }

    /// `[{name, type}]`.
    #[wasm_bindgen(getter)]
    pub fn columns(&self) -> Vec<JsValue> {
        let columns = self.split.columns();
        values::columns(
            columns
                .iter()
                .map(|c| (c.name.as_str(), c.data_type.as_str())),
        )
    }

    /// Row `i` as a plain object.
    pub fn row(&self, i: f64, abort: Option<Promise>) -> Promise {
        let split = self.split.clone();
        spawn(
            async move { Ok(values::value(split.row(whole(i, "a row index")?).await?)) },
            abort,
        )
    }

    /// The bytes of `field` in row `i`, as a `Uint8Array`.
    pub fn content(&self, i: f64, field: String, abort: Option<Promise>) -> Promise {
        let split = self.split.clone();
        spawn(
            async move {
                let bytes = split.content(whole(i, "a row index")?, &field).await?;
                Ok(js_sys::Uint8Array::from(&bytes[..]).into())
            },
            abort,
        )
    }

    /// `{pointer, ok, defect, recovered, member, naming}` for `field` in row `i`.
    pub fn check(&self, i: f64, field: String, abort: Option<Promise>) -> Promise {
        let split = self.split.clone();
        spawn(
            async move {
                Ok(values::check(
                    split.check(whole(i, "a row index")?, &field).await?,
                ))
            },
            abort,
        )
    }
}
