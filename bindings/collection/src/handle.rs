//! The exported classes: `AtlasHandle` (one open collection) and
//! `DatasetHandle` (one dataset of it). The facade wraps both.
//!
//! A handle and its datasets share one slot holding the core [`Atlas`].
//! `close()` empties it, so the caches go at once even while the caller still
//! holds datasets; their later calls fail with a clear error.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::sync::Arc;

use atlas_wasm::{
    AcrossRequest, Atlas, ByteSource, DType, DatasetView, Error, ReadOptions, Result,
};
use atlas_wasm_js::convert::{object, strings};
use atlas_wasm_js::error::to_js;
use atlas_wasm_js::{whole, JsByteSource, JsSource};
use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use crate::values::{self, JsStack, Reporter};

type Slot = Rc<RefCell<Option<Atlas>>>;

/// Runs one call of these classes (see [`atlas_wasm_js::task`]): a promise
/// of its value, or of its error as an `AtlasError`.
fn spawn_abortable(
    call: impl Future<Output = Result<JsValue>> + 'static,
    abort: Option<Promise>,
) -> Promise {
    atlas_wasm_js::task::spawn_abortable(Box::pin(call), to_js, abort)
}

/// The error of a call on a closed handle.
fn closed() -> JsValue {
    to_js(Error::InvalidArgument(
        "the collection was closed; open it again".into(),
    ))
}

/// Window corners from JavaScript; absent means empty (the whole array).
fn axes(values: Option<Vec<f64>>, what: &str) -> Result<Vec<u64>> {
    values
        .unwrap_or_default()
        .into_iter()
        .map(|x| whole(x, what))
        .collect()
}

/// Reads the numeric options [`ReadOptions::BY_JS_NAME`] lists and `decode`
/// (the decode pool's function); absent keys keep the defaults.
fn read_options(options: &JsValue) -> Result<ReadOptions> {
    let mut out = ReadOptions::default();
    if !options.is_object() {
        return Ok(out);
    }
    for (key, set) in ReadOptions::BY_JS_NAME {
        let value = js_sys::Reflect::get(options, &key.into()).unwrap_or(JsValue::UNDEFINED);
        if value.is_undefined() || value.is_null() {
            continue;
        }
        let number = value
            .as_f64()
            .ok_or_else(|| Error::InvalidArgument(format!("option {key} must be a number")))?;
        set(&mut out, whole(number, key)?);
    }
    out.decoder = crate::decoder::from_options(options);
    Ok(out)
}

/// One open collection.
#[wasm_bindgen]
pub struct AtlasHandle {
    slot: Slot,
}

#[wasm_bindgen]
impl AtlasHandle {
    /// Opens the collection in `data`, hiding what `mask` lists; resolves to an `AtlasHandle`.
    pub fn open(
        data: JsSource,
        mask: Option<JsSource>,
        options: JsValue,
        abort: Option<Promise>,
    ) -> Promise {
        let call = async move {
            let options = read_options(&options)?;
            let data: Arc<dyn ByteSource> = Arc::new(JsByteSource::new(data));
            let mask = mask.map(|m| Arc::new(JsByteSource::new(m)) as Arc<dyn ByteSource>);
            let atlas = Atlas::open_with(data, mask, options).await?;
            Ok(AtlasHandle {
                slot: Rc::new(RefCell::new(Some(atlas))),
            }
            .into())
        };
        spawn_abortable(call, abort)
    }

    fn atlas(&self) -> std::result::Result<Atlas, JsValue> {
        self.slot.borrow().clone().ok_or_else(closed)
    }

    /// What never changes while the handle is open:
    /// `{datasetCount, totalDatasets, deletedCount, createdUnixMs, codec, formatVersion, containerBytes}`.
    pub fn info(&self) -> std::result::Result<JsValue, JsValue> {
        let atlas = self.atlas()?;
        Ok(object(&[
            ("datasetCount", (atlas.dataset_count() as f64).into()),
            ("totalDatasets", (atlas.total_datasets() as f64).into()),
            ("deletedCount", (atlas.deleted_count() as f64).into()),
            ("createdUnixMs", (atlas.created_unix_ms() as f64).into()),
            ("codec", atlas.codec().name().into()),
            ("formatVersion", atlas.format_version().into()),
            ("containerBytes", (atlas.container_bytes() as f64).into()),
        ]))
    }

    #[wasm_bindgen(js_name = listDatasets)]
    pub fn list_datasets(&self) -> std::result::Result<Array, JsValue> {
        Ok(strings(&self.atlas()?.list_datasets()).collect())
    }

    #[wasm_bindgen(js_name = listArrays)]
    pub fn list_arrays(&self) -> std::result::Result<Vec<String>, JsValue> {
        Ok(self.atlas()?.list_arrays())
    }

    #[wasm_bindgen(js_name = hasDataset)]
    pub fn has_dataset(&self, name: &str) -> std::result::Result<bool, JsValue> {
        Ok(self.atlas()?.dataset_exists(name))
    }

    #[wasm_bindgen(js_name = cachedBytes)]
    pub fn cached_bytes(&self) -> std::result::Result<f64, JsValue> {
        Ok(self.atlas()?.cached_bytes() as f64)
    }

    /// A dataset by name; throws `DatasetNotFound`.
    pub fn dataset(&self, name: &str) -> std::result::Result<DatasetHandle, JsValue> {
        let view = self.atlas()?.dataset(name).map_err(to_js)?;
        Ok(DatasetHandle {
            slot: self.slot.clone(),
            name: name.to_string(),
            ordinal: view.ordinal(),
        })
    }

    /// `{min, max, nullCount, rowCount}` over every live dataset, whatever its
    /// dtype (as atlas-rust merges them), or `null`. A bound shows as the
    /// dataset it came from would show it.
    #[wasm_bindgen(js_name = arrayStats)]
    pub fn array_stats(
        &self,
        array: String,
        abort: Option<Promise>,
    ) -> std::result::Result<Promise, JsValue> {
        let atlas = self.atlas()?;
        let call = async move {
            Ok(atlas
                .collection_stats(&array)
                .await?
                .map_or(JsValue::NULL, |merged| values::collection_stats(&merged)))
        };
        Ok(spawn_abortable(call, abort))
    }

    /// `[{dataset, min, max, nullCount, rowCount}]` in write order.
    #[wasm_bindgen(js_name = arrayStatsByDataset)]
    pub fn array_stats_by_dataset(
        &self,
        array: String,
        abort: Option<Promise>,
    ) -> std::result::Result<Promise, JsValue> {
        let atlas = self.atlas()?;
        let call = async move {
            let each = atlas.array_stats_by_dataset(&array).await?;
            let out: js_sys::Array = each
                .iter()
                .map(|s| {
                    let entry = values::stats(s, dtype_of(&atlas, &s.name, &array).as_ref());
                    let _ =
                        js_sys::Reflect::set(&entry, &"dataset".into(), &s.name.as_str().into());
                    entry
                })
                .collect();
            Ok(out.into())
        };
        Ok(spawn_abortable(call, abort))
    }

    /// `{datasetName: value}` for one attribute; `array` null means dataset-level.
    #[wasm_bindgen(js_name = attributesByDataset)]
    pub fn attributes_by_dataset(
        &self,
        array: Option<String>,
        key: String,
        abort: Option<Promise>,
    ) -> std::result::Result<Promise, JsValue> {
        let atlas = self.atlas()?;
        let call = async move {
            let values = atlas.attributes_by_dataset(array.as_deref(), &key).await?;
            Ok(values::attrs(values))
        };
        Ok(spawn_abortable(call, abort))
    }

    /// Reads one array across datasets, stacked: resolves to
    /// `{dtype, datasets, shape: [n, ...], data}` (plus `skipped` when `skip`).
    /// `datasets` null means every live dataset that declares the array.
    #[wasm_bindgen(js_name = readAcross)]
    #[allow(clippy::too_many_arguments)]
    pub fn read_across(
        &self,
        array: String,
        datasets: Option<Vec<String>>,
        start: Option<Vec<f64>>,
        shape: Option<Vec<f64>>,
        skip: bool,
        abort: Option<Promise>,
        on_progress: Option<Reporter>,
    ) -> std::result::Result<Promise, JsValue> {
        let atlas = self.atlas()?;
        let call = async move {
            let request = AcrossRequest {
                datasets,
                start: axes(start, "start")?,
                shape: axes(shape, "shape")?,
                skip_mismatched: skip,
            };
            let mut stack = JsStack::reporting(on_progress);
            let layout = atlas
                .read_stacked_into(&array, &request, &mut stack)
                .await?;
            Ok(stack.finish(&layout, skip))
        };
        Ok(spawn_abortable(call, abort))
    }

    /// Drops the collection and its caches; datasets of it stop working.
    pub fn close(&self) {
        self.slot.borrow_mut().take();
    }
}

fn dtype_of(atlas: &Atlas, dataset: &str, array: &str) -> Option<DType> {
    Some(
        atlas
            .dataset(dataset)
            .ok()?
            .array_meta(array)?
            .dtype()
            .clone(),
    )
}

/// One dataset of an open collection.
#[wasm_bindgen]
pub struct DatasetHandle {
    slot: Slot,
    name: String,
    ordinal: u32,
}

#[wasm_bindgen]
impl DatasetHandle {
    fn view(&self) -> std::result::Result<DatasetView, JsValue> {
        let atlas = self.slot.borrow().clone().ok_or_else(closed)?;
        atlas.dataset(&self.name).map_err(to_js)
    }

    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.name.clone()
    }

    #[wasm_bindgen(getter)]
    pub fn ordinal(&self) -> u32 {
        self.ordinal
    }

    /// `{arrays: [{name, dtype, attributes}], attributes}`. No I/O.
    pub fn schema(&self) -> std::result::Result<JsValue, JsValue> {
        Ok(values::schema(self.view()?.schema()))
    }

    #[wasm_bindgen(js_name = listArrays)]
    pub fn list_arrays(&self) -> std::result::Result<Vec<String>, JsValue> {
        Ok(self.view()?.list_arrays())
    }

    /// `{shape, chunkShape, dimensions, fillValue}`.
    pub fn layout(
        &self,
        array: String,
        abort: Option<Promise>,
    ) -> std::result::Result<Promise, JsValue> {
        let view = self.view()?;
        let call = async move {
            let layout = view.array_layout(&array).await?;
            let dtype = view
                .array_meta(&array)
                .map(|m| m.dtype().clone())
                .unwrap_or(DType::Binary);
            Ok(values::layout(&layout, &dtype))
        };
        Ok(spawn_abortable(call, abort))
    }

    /// `{min, max, nullCount, rowCount}`, or `null` when nothing was recorded.
    pub fn stats(
        &self,
        array: String,
        abort: Option<Promise>,
    ) -> std::result::Result<Promise, JsValue> {
        let view = self.view()?;
        let call = async move {
            let Some(stats) = view.array_stats(&array).await? else {
                return Ok(JsValue::NULL);
            };
            let dtype = view.array_meta(&array).map(|m| m.dtype().clone());
            Ok(values::stats(&stats, dtype.as_ref()))
        };
        Ok(spawn_abortable(call, abort))
    }

    pub fn attributes(&self, abort: Option<Promise>) -> std::result::Result<Promise, JsValue> {
        let view = self.view()?;
        let call = async move { Ok(values::attrs(view.attributes().await?)) };
        Ok(spawn_abortable(call, abort))
    }

    #[wasm_bindgen(js_name = arrayAttributes)]
    pub fn array_attributes(
        &self,
        array: String,
        abort: Option<Promise>,
    ) -> std::result::Result<Promise, JsValue> {
        let view = self.view()?;
        let call = async move { Ok(values::attrs(view.array_attributes(&array).await?)) };
        Ok(spawn_abortable(call, abort))
    }

    /// Reads a window (`start` and `shape` both absent: the whole array);
    /// resolves to `{dtype, shape, data}`. `abort` settles to abort the read.
    pub fn read(
        &self,
        array: String,
        start: Option<Vec<f64>>,
        shape: Option<Vec<f64>>,
        abort: Option<Promise>,
        on_progress: Option<Reporter>,
    ) -> std::result::Result<Promise, JsValue> {
        let view = self.view()?;
        let call = async move {
            let (start, shape) = (axes(start, "start")?, axes(shape, "shape")?);
            let mut answer = JsStack::reporting(on_progress);
            let layout = view
                .read_array_into(&array, &start, &shape, &mut answer)
                .await?;
            Ok(answer.finish_one(&layout))
        };
        Ok(spawn_abortable(call, abort))
    }
}
