//! [`JsStore`]: an Atria [`Store`] over a JavaScript object.
//!
//! The facade (`js/src/atria.js`) hands over an object with
//!
//! ```text
//! open(relativePath) -> source      (the shape atlas-wasm-js's source.rs reads)
//! list(dir) -> Promise<string[] | null>
//! ```
//!
//! `open` is synchronous: making a source asks nothing of the network (a
//! missing object shows on its first read as `NotFound`). `list` answers
//! null when the source cannot list, and the readers then probe.

use std::sync::Arc;

use atlas_wasm::atria::Store;
use atlas_wasm::source::{ByteSource, SourceFuture};
use atlas_wasm::{Error, Result};
use atlas_wasm_js::error::from_js;
use atlas_wasm_js::{JsByteSource, JsSource};
use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    /// A store object as the facade normalises it.
    pub type JsStoreObject;

    #[wasm_bindgen(method, catch)]
    fn open(this: &JsStoreObject, path: &str) -> std::result::Result<JsSource, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn list(this: &JsStoreObject, dir: &str) -> std::result::Result<Promise, JsValue>;
}

/// A [`Store`] that forwards to a [`JsStoreObject`].
pub(crate) struct JsStore(pub(crate) JsStoreObject);

impl Store for JsStore {
    fn open(&self, path: &str) -> Result<Arc<dyn ByteSource>> {
        let source = self.0.open(path).map_err(|e| from_js(&e, path))?;
        Ok(Arc::new(JsByteSource::new(source)))
    }

    fn list<'a>(&'a self, dir: &'a str) -> SourceFuture<'a, Option<Vec<String>>> {
        Box::pin(async move {
            let what = || format!("listing '{dir}'");
            let promise = self.0.list(dir).map_err(|e| from_js(&e, &what()))?;
            let answer = JsFuture::from(promise)
                .await
                .map_err(|e| from_js(&e, &what()))?;
            if answer.is_null() || answer.is_undefined() {
                return Ok(None);
            }
            let names = answer.dyn_into::<Array>().map_err(|_| {
                Error::Io(format!("{} answered something other than an array", what()))
            })?;
            let names = names
                .iter()
                .map(|n| {
                    n.as_string().ok_or_else(|| {
                        Error::Io(format!("{} answered a name that is not a string", what()))
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(Some(names))
        })
    }
}
