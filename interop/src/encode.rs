//! The canonical JSON encodings of single values.
//!
//! atlas-wasm's own reader produces the same encodings, and the interop tests
//! compare the two documents with `==`. Every rule below is therefore part of
//! a contract:
//!
//! | Value | JSON |
//! |---|---|
//! | integer, timestamp | number (i64/u64 kept exact) |
//! | float | string, Rust `{:?}` of the value's own width (`"inf"`, `"-0.0"`); a NaN as `"NaN:"` and its bits in hex (`"NaN:7fc00000"`, `"NaN:fff8000000000000"`), so equal strings are equal bits |
//! | bool | bool |
//! | string | string |
//! | binary | lower-case hex string |
//! | `Attr` | `{"type": <variant name>, "value": ...}`, lists as arrays |
//! | `FillValue` | `{"type": <variant name>, "value": ...}` |
//! | `ArrayStats` | `{"name", "min", "max", "null_count", "row_count"}` |

use atlas::{ArrayStats, Attr, DType, FillValue, StatValue};
use serde_json::{json, Value};

/// An `f32` as Rust's `Debug` gives it (shortest round trip: one string per
/// bit pattern), a NaN with its sign and payload bits.
pub fn f32_value(x: f32) -> Value {
    Value::String(if x.is_nan() {
        format!("NaN:{:08x}", x.to_bits())
    } else {
        format!("{x:?}")
    })
}

/// An `f64` as Rust's `Debug` gives it, a NaN with its sign and payload bits.
pub fn f64_value(x: f64) -> Value {
    Value::String(if x.is_nan() {
        format!("NaN:{:016x}", x.to_bits())
    } else {
        format!("{x:?}")
    })
}

/// Bytes as lower-case hex, two digits each.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 0x0f) as usize] as char);
    }
    out
}

/// The lower-case name of an element type: `float32`, `timestamp_ns`,
/// `list<int32>`, `fixed_size_list<uint8,4>`.
pub fn dtype_name(dtype: &DType) -> String {
    match dtype {
        DType::Bool => "bool".into(),
        DType::Int8 => "int8".into(),
        DType::Int16 => "int16".into(),
        DType::Int32 => "int32".into(),
        DType::Int64 => "int64".into(),
        DType::UInt8 => "uint8".into(),
        DType::UInt16 => "uint16".into(),
        DType::UInt32 => "uint32".into(),
        DType::UInt64 => "uint64".into(),
        DType::Float32 => "float32".into(),
        DType::Float64 => "float64".into(),
        DType::String => "string".into(),
        DType::Binary => "binary".into(),
        DType::TimestampNs => "timestamp_ns".into(),
        DType::List { child } => format!("list<{}>", dtype_name(child)),
        DType::FixedSizeList { child, size } => {
            format!("fixed_size_list<{},{size}>", dtype_name(child))
        }
    }
}

/// `{"type": tag, "value": value}`, the shape every tagged value takes.
fn tagged(tag: &str, value: Value) -> Value {
    json!({ "type": tag, "value": value })
}

/// A list of plain values as a JSON array.
fn list<T: Copy>(items: &[T], one: impl Fn(T) -> Value) -> Value {
    Value::Array(items.iter().map(|&x| one(x)).collect())
}

/// An attribute value, tagged with the name of its `Attr` variant.
pub fn attr(value: &Attr) -> Value {
    match value {
        Attr::Bool(v) => tagged("Bool", json!(v)),
        Attr::Int8(v) => tagged("Int8", json!(v)),
        Attr::Int16(v) => tagged("Int16", json!(v)),
        Attr::Int32(v) => tagged("Int32", json!(v)),
        Attr::Int64(v) => tagged("Int64", json!(v)),
        Attr::UInt8(v) => tagged("UInt8", json!(v)),
        Attr::UInt16(v) => tagged("UInt16", json!(v)),
        Attr::UInt32(v) => tagged("UInt32", json!(v)),
        Attr::UInt64(v) => tagged("UInt64", json!(v)),
        Attr::Float32(v) => tagged("Float32", f32_value(*v)),
        Attr::Float64(v) => tagged("Float64", f64_value(*v)),
        Attr::String(v) => tagged("String", json!(v)),
        Attr::Binary(v) => tagged("Binary", json!(hex(v))),
        Attr::BoolList(v) => tagged("BoolList", list(v, |x| json!(x))),
        Attr::Int8List(v) => tagged("Int8List", list(v, |x| json!(x))),
        Attr::Int16List(v) => tagged("Int16List", list(v, |x| json!(x))),
        Attr::Int32List(v) => tagged("Int32List", list(v, |x| json!(x))),
        Attr::Int64List(v) => tagged("Int64List", list(v, |x| json!(x))),
        Attr::UInt8List(v) => tagged("UInt8List", list(v, |x| json!(x))),
        Attr::UInt16List(v) => tagged("UInt16List", list(v, |x| json!(x))),
        Attr::UInt32List(v) => tagged("UInt32List", list(v, |x| json!(x))),
        Attr::UInt64List(v) => tagged("UInt64List", list(v, |x| json!(x))),
        Attr::Float32List(v) => tagged("Float32List", list(v, f32_value)),
        Attr::Float64List(v) => tagged("Float64List", list(v, f64_value)),
        Attr::StringList(v) => tagged("StringList", json!(v)),
        Attr::BinaryList(v) => tagged(
            "BinaryList",
            Value::Array(v.iter().map(|b| json!(hex(b))).collect()),
        ),
    }
}

/// `[[key, ATTR], ...]` in the order given.
pub fn attr_pairs<'a>(pairs: impl IntoIterator<Item = (&'a String, &'a Attr)>) -> Value {
    Value::Array(
        pairs
            .into_iter()
            .map(|(key, value)| json!([key, attr(value)]))
            .collect(),
    )
}

/// A fill value, or `null` for none.
pub fn fill(value: Option<&FillValue>) -> Value {
    match value {
        None => Value::Null,
        Some(FillValue::Bool(v)) => tagged("Bool", json!(v)),
        Some(FillValue::Int(v)) => tagged("Int", json!(v)),
        Some(FillValue::UInt(v)) => tagged("UInt", json!(v)),
        Some(FillValue::Float(v)) => tagged("Float", f64_value(*v)),
        Some(FillValue::String(v)) => tagged("String", json!(v)),
        Some(FillValue::TimestampNs(v)) => tagged("TimestampNs", json!(v)),
    }
}

/// One statistics bound, or `null` for none. A float bound is an `f64`
/// whatever the array's width, so it prints as one.
fn stat_value(value: Option<&StatValue>) -> Value {
    match value {
        None => Value::Null,
        Some(StatValue::Int(v)) => tagged("Int", json!(v)),
        Some(StatValue::UInt(v)) => tagged("UInt", json!(v)),
        Some(StatValue::Float(v)) => tagged("Float", f64_value(*v)),
        Some(StatValue::Bytes(v)) => tagged("Bytes", json!(hex(v))),
        Some(StatValue::TimestampNs(v)) => tagged("TimestampNs", json!(v)),
    }
}

/// Statistics, or `null` for none.
pub fn stats(value: Option<&ArrayStats>) -> Value {
    match value {
        None => Value::Null,
        Some(s) => json!({
            "name": s.name,
            "min": stat_value(s.min.as_ref()),
            "max": stat_value(s.max.as_ref()),
            "null_count": s.null_count,
            "row_count": s.row_count,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_rust_debug_of_their_own_width() {
        assert_eq!(f32_value(f32::NAN), json!("NaN:7fc00000"));
        assert_eq!(f32_value(-f32::NAN), json!("NaN:ffc00000"));
        let payload = f64::from_bits(0x7ff0_0000_0000_0001);
        assert_eq!(f64_value(payload), json!("NaN:7ff0000000000001"));
        assert_eq!(f32_value(f32::NEG_INFINITY), json!("-inf"));
        assert_eq!(f32_value(-0.0), json!("-0.0"));
        // 0.1f32 prints short as an f32, and long once widened.
        assert_eq!(f32_value(0.1), json!("0.1"));
        assert_eq!(f64_value(0.1f32 as f64), json!("0.10000000149011612"));
        assert_eq!(f64_value(1e300), json!("1e300"));
    }

    #[test]
    fn hex_is_lower_case_and_padded() {
        assert_eq!(hex(&[0x00, 0x0a, 0xff]), "000aff");
        assert_eq!(hex(&[]), "");
    }

    #[test]
    fn nested_dtypes_name_their_children() {
        let dtype = DType::FixedSizeList {
            child: Box::new(DType::List {
                child: Box::new(DType::UInt8),
            }),
            size: 3,
        };
        assert_eq!(dtype_name(&dtype), "fixed_size_list<list<uint8>,3>");
    }

    #[test]
    fn attributes_carry_their_variant_name() {
        assert_eq!(
            attr(&Attr::BinaryList(vec![vec![1, 2], vec![]])),
            json!({"type": "BinaryList", "value": ["0102", ""]})
        );
        assert_eq!(
            attr(&Attr::UInt64(u64::MAX)),
            json!({"type": "UInt64", "value": u64::MAX})
        );
        assert_eq!(
            attr(&Attr::Float32List(vec![])),
            json!({"type": "Float32List", "value": []})
        );
    }
}
