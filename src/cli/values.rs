//! The reader's values as the Python objects atlas-python's `_ops` builds
//! from them, and its `_format_stats`.

use crate::{ArrayStats, Attr, DType, FillValue, StatValue};

use super::py::Py;

/// atlas-python stores attribute values it cannot type as `json:` strings.
const JSON_PREFIX: &str = "json:";

/// The element type as atlas-python names it.
pub(crate) fn dtype_name(dtype: &DType) -> String {
    match dtype {
        DType::TimestampNs => "timestamp_nanoseconds".into(),
        DType::List { child } => format!("list<{}>", dtype_name(child)),
        DType::FixedSizeList { child, size } => {
            format!("fixed_size_list<{}, {size}>", dtype_name(child))
        }
        other => other.name(),
    }
}

/// An attribute value, `json:` strings decoded.
pub(crate) fn attr(value: &Attr) -> Py {
    let list = |items: Vec<Py>| Py::List(items);
    match value {
        Attr::Bool(v) => Py::Bool(*v),
        Attr::Int8(v) => Py::int(*v),
        Attr::Int16(v) => Py::int(*v),
        Attr::Int32(v) => Py::int(*v),
        Attr::Int64(v) => Py::int(*v),
        Attr::UInt8(v) => Py::int(*v),
        Attr::UInt16(v) => Py::int(*v),
        Attr::UInt32(v) => Py::int(*v),
        Attr::UInt64(v) => Py::int(*v),
        Attr::Float32(v) => Py::Float(*v as f64),
        Attr::Float64(v) => Py::Float(*v),
        Attr::String(v) => decode_json_attr(v),
        Attr::Binary(v) => Py::Bytes(v.clone()),
        Attr::BoolList(v) => list(v.iter().map(|&x| Py::Bool(x)).collect()),
        Attr::Int8List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::Int16List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::Int32List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::Int64List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::UInt8List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::UInt16List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::UInt32List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::UInt64List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::Float32List(v) => list(v.iter().map(|&x| Py::Float(x as f64)).collect()),
        Attr::Float64List(v) => list(v.iter().map(|&x| Py::Float(x)).collect()),
        Attr::StringList(v) => list(v.iter().map(|x| Py::str(x.as_str())).collect()),
        Attr::BinaryList(v) => list(v.iter().map(|x| Py::Bytes(x.clone())).collect()),
    }
}

/// `_decode_attr_value`: a `json:` string becomes the value it encodes
/// (text that is not JSON stays the string it is).
fn decode_json_attr(s: &str) -> Py {
    s.strip_prefix(JSON_PREFIX)
        .and_then(super::pyjson::loads)
        .unwrap_or_else(|| Py::str(s))
}

/// A fill value, `None` when the array has none.
pub(crate) fn fill(value: Option<&FillValue>) -> Py {
    match value {
        None => Py::None,
        Some(FillValue::Bool(v)) => Py::Bool(*v),
        Some(FillValue::Int(v)) | Some(FillValue::TimestampNs(v)) => Py::int(*v),
        Some(FillValue::UInt(v)) => Py::int(*v),
        Some(FillValue::Float(v)) => Py::Float(*v),
        Some(FillValue::String(v)) => Py::str(v.as_str()),
    }
}

fn bound(value: Option<&StatValue>) -> Py {
    match value {
        None => Py::None,
        Some(StatValue::Int(v)) | Some(StatValue::TimestampNs(v)) => Py::int(*v),
        Some(StatValue::UInt(v)) => Py::int(*v),
        Some(StatValue::Float(v)) => Py::Float(*v),
        Some(StatValue::Bytes(v)) => Py::Bytes(v.clone()),
    }
}

/// The statistics a write recorded, `None` when it recorded none.
pub(crate) fn stats(value: Option<&ArrayStats>) -> Py {
    match value {
        None => Py::None,
        Some(s) => Py::dict([
            ("min", bound(s.min.as_ref())),
            ("max", bound(s.max.as_ref())),
            ("null_count", Py::int(s.null_count)),
            ("row_count", Py::int(s.row_count)),
        ]),
    }
}

/// A list of sizes or offsets.
pub(crate) fn ints(values: &[u64]) -> Py {
    Py::List(values.iter().map(|&v| Py::int(v)).collect())
}

/// `_format_stats`: `count=12  nulls=1  min=0.0  max=5.5`.
pub(crate) fn stats_text(stats: &Py) -> String {
    if matches!(stats, Py::None) {
        return String::new();
    }
    let mut parts = vec![format!("count={}", stats.get("row_count").text())];
    if !matches!(stats.get("null_count"), Py::Int(0)) {
        parts.push(format!("nulls={}", stats.get("null_count").text()));
    }
    for key in ["min", "max"] {
        if !matches!(stats.get(key), Py::None) {
            parts.push(format!("{key}={}", stats.get(key).text()));
        }
    }
    parts.join("  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_as_atlas_python_builds_them() {
        assert_eq!(dtype_name(&DType::UInt16), "uint16");
        assert_eq!(
            decode_json_attr("json:[-5.0, 40]"),
            Py::List(vec![Py::Float(-5.0), Py::Int(40)])
        );
        assert_eq!(decode_json_attr("json:{oops"), Py::str("json:{oops"));
    }
}
