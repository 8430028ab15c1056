//! [`dump`]: a whole collection as canonical JSON, read through atlas-rust.
//!
//! The document is the contract atlas-wasm's reader is held to. It records
//! what atlas-rust *does*, quirks included, so a reader that matches it byte
//! for byte in JSON reads collections the way the published crate does.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::Context;
use atlas::{ArrayElement, Atlas, DType, DatasetView, TimestampNs};
use serde_json::{json, Map, Value};

use crate::encode;

/// Opens the collection in `dir` with atlas-rust and returns its canonical
/// JSON. Blocks on a current-thread runtime of its own.
pub fn dump(dir: &Path) -> anyhow::Result<Value> {
    crate::runtime()?.block_on(dump_async(dir))
}

/// [`dump`], for a caller that already runs inside a runtime.
pub async fn dump_async(dir: &Path) -> anyhow::Result<Value> {
    let atlas = Atlas::open_path(dir)
        .await
        .with_context(|| format!("opening {}", dir.display()))?;
    let arrays = atlas.list_arrays();

    let mut datasets = Vec::new();
    for name in atlas.list_datasets() {
        let view = atlas.dataset(&name)?;
        datasets.push(
            dataset(&view)
                .await
                .with_context(|| format!("dataset {name:?}"))?,
        );
    }

    let mut array_stats = Map::new();
    let mut array_stats_by_dataset = Map::new();
    for array in &arrays {
        let merged = atlas.array_stats(array).await?;
        array_stats.insert(array.clone(), encode::stats(merged.as_ref()));
        let each = atlas.array_stats_by_dataset(array).await?;
        array_stats_by_dataset.insert(
            array.clone(),
            Value::Array(each.iter().map(|s| encode::stats(Some(s))).collect()),
        );
    }

    let mut by_dataset = Vec::new();
    for (array, key) in declared_attribute_keys(&atlas) {
        let values = atlas.attributes_by_dataset(array.as_deref(), &key).await?;
        by_dataset.push(json!({
            "array": array,
            "key": key,
            "values": encode::attr_pairs(&values),
        }));
    }

    let sweep = sweep(&atlas).await?;

    Ok(json!({
        "format_version": atlas.format_version(),
        "codec": format!("{:?}", atlas.codec()),
        "created_unix_ms": atlas.created_unix_ms(),
        "total_datasets": atlas.total_datasets(),
        "dataset_count": atlas.dataset_count(),
        "arrays": arrays,
        "datasets": datasets,
        "array_stats": array_stats,
        "array_stats_by_dataset": array_stats_by_dataset,
        "attributes_by_dataset": by_dataset,
        "sweep": sweep,
    }))
}

/// Collection-level answers for names `arrays` does not list: every
/// variable of the footer (those only deleted datasets declare, and the
/// reserved `_datasets`), a name nobody declared, and which footer dataset
/// names exist. A reader that answers these from its own idea of "live"
/// differs here.
async fn sweep(atlas: &Atlas) -> anyhow::Result<Value> {
    let footer = atlas.footer();
    let listed = atlas.list_arrays();
    let mut names: BTreeSet<String> = footer
        .variables
        .iter()
        .filter_map(|v| footer.string(v.name))
        .filter(|name| !listed.iter().any(|l| l == name))
        .map(str::to_string)
        .collect();
    names.insert(UNDECLARED.to_string());
    let mut unlisted = Map::new();
    for name in names {
        let merged = atlas.array_stats(&name).await?;
        let each = atlas.array_stats_by_dataset(&name).await?;
        let attrs = atlas.attributes_by_dataset(Some(&name), UNDECLARED).await?;
        unlisted.insert(
            name,
            json!({
                "array_stats": encode::stats(merged.as_ref()),
                "array_stats_by_dataset": each.iter().map(|s| encode::stats(Some(s))).collect::<Vec<_>>(),
                "attributes_by_dataset": encode::attr_pairs(&attrs),
            }),
        );
    }
    let exists: Vec<Value> = footer
        .datasets
        .keys()
        .map(|name| json!([name.as_str(), atlas.dataset_exists(name)]))
        .collect();
    Ok(json!({
        "unlisted_names": unlisted,
        "list_datasets": atlas.list_datasets(),
        "dataset_exists": exists,
        "undeclared_dataset_attribute": encode::attr_pairs(
            &atlas.attributes_by_dataset(None, UNDECLARED).await?
        ),
    }))
}

/// A name no fixture uses, for array, attribute and key alike.
const UNDECLARED: &str = "no such name";

/// Every `(array, key)` some schema in the pool declares, with `None` for a
/// dataset-level key. Sorted by `(array or "", key)`. The pool covers deleted
/// datasets too, so a key only they carried still appears, with no values.
fn declared_attribute_keys(atlas: &Atlas) -> Vec<(Option<String>, String)> {
    let schema = atlas.footer().collection_schema();
    // An array name is never empty, so "" sorts the dataset level first.
    let mut keys: BTreeSet<(String, String)> = BTreeSet::new();
    for key in schema.attributes.keys() {
        keys.insert((String::new(), key.to_string()));
    }
    for (array, keyed) in &schema.array_attributes {
        for key in keyed.keys() {
            keys.insert((array.to_string(), key.to_string()));
        }
    }
    keys.into_iter()
        .map(|(array, key)| ((!array.is_empty()).then_some(array), key))
        .collect()
}

/// One live dataset: its attributes, then every array in schema order.
async fn dataset(view: &DatasetView) -> anyhow::Result<Value> {
    let attributes = view.attributes().await?;
    let mut arrays = Vec::new();
    for meta in view.schema().iter() {
        let name = meta.name();
        let layout = view.array_layout(name).await?;
        let array_attributes = view.array_attributes(name).await?;
        let stats = view.array_stats(name).await?;
        arrays.push(json!({
            "name": name,
            "dtype": encode::dtype_name(meta.dtype()),
            "shape": layout.shape(),
            "chunk_shape": layout.chunk_shape(),
            "dimensions": layout.dimension_names(),
            "fill": encode::fill(layout.fill_value()),
            "attributes": encode::attr_pairs(&array_attributes),
            "stats": encode::stats(stats.as_ref()),
            "values": values(view, name, meta.dtype()).await,
        }));
    }
    Ok(json!({
        "name": view.name(),
        "ordinal": view.ordinal(),
        "attributes": encode::attr_pairs(&attributes),
        "arrays": arrays,
    }))
}

/// The whole array, flat in C order, or `{"error": message}` when atlas-rust
/// refuses the read. The error form lets our reader prove it refuses too.
async fn values(view: &DatasetView, array: &str, dtype: &DType) -> Value {
    let read = match dtype {
        DType::Int8 => read_all::<i8>(view, array, |x| json!(x)).await,
        DType::Int16 => read_all::<i16>(view, array, |x| json!(x)).await,
        DType::Int32 => read_all::<i32>(view, array, |x| json!(x)).await,
        DType::Int64 => read_all::<i64>(view, array, |x| json!(x)).await,
        DType::UInt8 => read_all::<u8>(view, array, |x| json!(x)).await,
        DType::UInt16 => read_all::<u16>(view, array, |x| json!(x)).await,
        DType::UInt32 => read_all::<u32>(view, array, |x| json!(x)).await,
        DType::UInt64 => read_all::<u64>(view, array, |x| json!(x)).await,
        DType::Float32 => read_all::<f32>(view, array, |x| encode::f32_value(*x)).await,
        DType::Float64 => read_all::<f64>(view, array, |x| encode::f64_value(*x)).await,
        DType::String => read_all::<String>(view, array, |x| json!(x)).await,
        DType::Binary => read_all::<Vec<u8>>(view, array, |x| json!(encode::hex(x))).await,
        DType::TimestampNs => read_all::<TimestampNs>(view, array, |x| json!(x.0)).await,
        // atlas-rust has no ArrayElement for these, so it cannot read them.
        // It cannot write them either, so no fixture holds one.
        DType::Bool | DType::List { .. } | DType::FixedSizeList { .. } => Err(format!(
            "atlas-rust has no ArrayElement for {}",
            encode::dtype_name(dtype)
        )),
    };
    read.unwrap_or_else(|message| json!({ "error": message }))
}

/// Reads all of `array` as `T` and encodes each element with `one`.
async fn read_all<T: ArrayElement>(
    view: &DatasetView,
    array: &str,
    one: impl Fn(&T) -> Value,
) -> Result<Value, String> {
    let data = view
        .read_array::<T>(array, vec![], vec![])
        .await
        .map_err(|e| e.to_string())?;
    // `iter` walks in logical C order whatever the memory layout.
    Ok(Value::Array(data.iter().map(one).collect()))
}
