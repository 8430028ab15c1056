//! Our reader's view of a collection, in the canonical JSON of interop/.

use atlas_wasm::{ArrayData, ArrayStats, Atlas, Attr, FillValue, StatValue};
use serde_json::{json, Value};

// interop/src/encode.rs's float rules, written again here because the
// wasm-bindgen tests compile this file for wasm32, where the interop crate
// (it links atlas-rust) cannot go; the interop tests compare the two
// encodings on every fixture, so they cannot drift apart unseen.
fn f32_value(x: f32) -> Value {
    Value::String(if x.is_nan() {
        format!("NaN:{:08x}", x.to_bits())
    } else {
        format!("{x:?}")
    })
}

fn f64_value(x: f64) -> Value {
    Value::String(if x.is_nan() {
        format!("NaN:{:016x}", x.to_bits())
    } else {
        format!("{x:?}")
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Floats in interop's encoding: one string per bit pattern, NaNs included.
fn floats<T: Copy>(v: &[T], one: fn(T) -> Value) -> Value {
    Value::Array(v.iter().map(|&x| one(x)).collect())
}

pub fn values(data: &ArrayData) -> Value {
    match data {
        ArrayData::Bool(v) => json!(v),
        ArrayData::Int8(v) => json!(v),
        ArrayData::Int16(v) => json!(v),
        ArrayData::Int32(v) => json!(v),
        ArrayData::Int64(v) | ArrayData::TimestampNs(v) => json!(v),
        ArrayData::UInt8(v) => json!(v),
        ArrayData::UInt16(v) => json!(v),
        ArrayData::UInt32(v) => json!(v),
        ArrayData::UInt64(v) => json!(v),
        ArrayData::Float32(v) => floats(v, f32_value),
        ArrayData::Float64(v) => floats(v, f64_value),
        ArrayData::String(v) => json!(v),
        ArrayData::Binary(v) => Value::Array(v.iter().map(|b| Value::String(hex(b))).collect()),
    }
}

pub fn attr(a: &Attr) -> Value {
    let value = match a {
        Attr::Bool(v) => json!(v),
        Attr::Int8(v) => json!(v),
        Attr::Int16(v) => json!(v),
        Attr::Int32(v) => json!(v),
        Attr::Int64(v) => json!(v),
        Attr::UInt8(v) => json!(v),
        Attr::UInt16(v) => json!(v),
        Attr::UInt32(v) => json!(v),
        Attr::UInt64(v) => json!(v),
        Attr::Float32(v) => f32_value(*v),
        Attr::Float64(v) => f64_value(*v),
        Attr::String(v) => json!(v),
        Attr::Binary(v) => json!(hex(v)),
        Attr::BoolList(v) => json!(v),
        Attr::Int8List(v) => json!(v),
        Attr::Int16List(v) => json!(v),
        Attr::Int32List(v) => json!(v),
        Attr::Int64List(v) => json!(v),
        Attr::UInt8List(v) => json!(v),
        Attr::UInt16List(v) => json!(v),
        Attr::UInt32List(v) => json!(v),
        Attr::UInt64List(v) => json!(v),
        Attr::Float32List(v) => floats(v, f32_value),
        Attr::Float64List(v) => floats(v, f64_value),
        Attr::StringList(v) => json!(v),
        Attr::BinaryList(v) => Value::Array(v.iter().map(|b| json!(hex(b))).collect()),
    };
    json!({"type": a.type_name(), "value": value})
}

fn fill(f: &FillValue) -> Value {
    match f {
        FillValue::Bool(v) => json!({"type": "Bool", "value": v}),
        FillValue::Int(v) => json!({"type": "Int", "value": v}),
        FillValue::UInt(v) => json!({"type": "UInt", "value": v}),
        FillValue::Float(v) => json!({"type": "Float", "value": f64_value(*v)}),
        FillValue::String(v) => json!({"type": "String", "value": v}),
        FillValue::TimestampNs(v) => json!({"type": "TimestampNs", "value": v}),
    }
}

fn stat_value(s: &StatValue) -> Value {
    match s {
        StatValue::Int(v) => json!({"type": "Int", "value": v}),
        StatValue::UInt(v) => json!({"type": "UInt", "value": v}),
        StatValue::Float(v) => json!({"type": "Float", "value": f64_value(*v)}),
        StatValue::Bytes(v) => json!({"type": "Bytes", "value": hex(v)}),
        StatValue::TimestampNs(v) => json!({"type": "TimestampNs", "value": v}),
    }
}

pub fn stats(s: &ArrayStats) -> Value {
    json!({
        "name": s.name,
        "min": s.min.as_ref().map(stat_value),
        "max": s.max.as_ref().map(stat_value),
        "null_count": s.null_count,
        "row_count": s.row_count,
    })
}

fn attrs(map: &indexmap::IndexMap<String, Attr>) -> Value {
    Value::Array(map.iter().map(|(k, v)| json!([k, attr(v)])).collect())
}

/// Everything the canonical dump holds, read through our core.
pub async fn dump(atlas: &Atlas) -> atlas_wasm::Result<Value> {
    let mut datasets = Vec::new();
    for name in atlas.list_datasets() {
        let ds = atlas.dataset(&name)?;
        let mut arrays = Vec::new();
        for array in ds.list_arrays() {
            let layout = ds.array_layout(&array).await?;
            let read = ds.read_array(&array, &[], &[]).await?;
            assert_eq!(
                read.shape, layout.shape,
                "a whole read has the layout's shape"
            );
            arrays.push(json!({
                "name": array,
                "dtype": ds.array_meta(&array).unwrap().dtype().name(),
                "shape": layout.shape,
                "chunk_shape": layout.chunk_shape,
                "dimensions": layout.dimension_names,
                "fill": layout.fill_value.as_ref().map(fill),
                "attributes": attrs(&ds.array_attributes(&array).await?),
                "stats": ds.array_stats(&array).await?.as_ref().map(stats),
                "values": values(&read.data),
            }));
        }
        datasets.push(json!({
            "name": name,
            "ordinal": ds.ordinal(),
            "attributes": attrs(&ds.attributes().await?),
            "arrays": arrays,
        }));
    }
    let mut array_stats = serde_json::Map::new();
    let mut by_dataset = serde_json::Map::new();
    for array in atlas.list_arrays() {
        array_stats.insert(
            array.clone(),
            atlas
                .array_stats(&array)
                .await?
                .as_ref()
                .map_or(Value::Null, stats),
        );
        let rows = atlas.array_stats_by_dataset(&array).await?;
        by_dataset.insert(
            array.clone(),
            Value::Array(rows.iter().map(stats).collect()),
        );
    }
    // Every key any schema declares, deleted datasets' schemas included.
    let footer = atlas.footer();
    let mut columns = std::collections::BTreeSet::new();
    for schema in &footer.schema_pool {
        for &(key, _) in &schema.attrs {
            columns.insert((String::new(), footer.string(key).to_string()));
        }
        for (position, keys) in &schema.array_attrs {
            let array = footer.string(schema.arrays[*position as usize].0);
            for &(key, _) in keys {
                columns.insert((array.to_string(), footer.string(key).to_string()));
            }
        }
    }
    let mut by_attribute = Vec::new();
    for (array, key) in columns {
        let target = (!array.is_empty()).then_some(array.as_str());
        let map = atlas.attributes_by_dataset(target, &key).await?;
        by_attribute.push(json!({
            "array": target,
            "key": key,
            "values": Value::Array(map.iter().map(|(d, v)| json!([d, attr(v)])).collect()),
        }));
    }
    let sweep = sweep(atlas).await?;
    Ok(json!({
        "format_version": atlas.format_version(),
        "codec": format!("{:?}", atlas.codec()),
        "created_unix_ms": atlas.created_unix_ms(),
        "total_datasets": atlas.total_datasets(),
        "dataset_count": atlas.dataset_count(),
        "arrays": atlas.list_arrays(),
        "datasets": datasets,
        "array_stats": array_stats,
        "array_stats_by_dataset": by_dataset,
        "attributes_by_dataset": by_attribute,
        "sweep": sweep,
    }))
}

/// The interop dump's `sweep`: collection-level answers for the footer's
/// variables `list_arrays` leaves out, a name nobody declared, and which
/// footer dataset names exist.
async fn sweep(atlas: &Atlas) -> atlas_wasm::Result<Value> {
    const UNDECLARED: &str = "no such name";
    let footer = atlas.footer();
    let listed = atlas.list_arrays();
    let mut names: std::collections::BTreeSet<String> = footer
        .variables
        .iter()
        .map(|v| footer.string(v.name).to_string())
        .filter(|name| !listed.contains(name))
        .collect();
    names.insert(UNDECLARED.to_string());
    let mut unlisted = serde_json::Map::new();
    for name in names {
        let merged = atlas.array_stats(&name).await?;
        let each = atlas.array_stats_by_dataset(&name).await?;
        let attributes = atlas.attributes_by_dataset(Some(&name), UNDECLARED).await?;
        unlisted.insert(
            name,
            json!({
                "array_stats": merged.as_ref().map_or(Value::Null, stats),
                "array_stats_by_dataset": each.iter().map(stats).collect::<Vec<_>>(),
                "attributes_by_dataset": attrs(&attributes),
            }),
        );
    }
    let exists: Vec<Value> = footer
        .datasets
        .names()
        .map(|name| json!([name, atlas.dataset_exists(name)]))
        .collect();
    Ok(json!({
        "unlisted_names": unlisted,
        "list_datasets": atlas.list_datasets(),
        "dataset_exists": exists,
        "undeclared_dataset_attribute": attrs(&atlas.attributes_by_dataset(None, UNDECLARED).await?),
    }))
}
