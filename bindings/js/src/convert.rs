//! The JavaScript forms every module builds: objects, strings, lists and
//! arrays.
//!
//! Elements become the matching typed array (copied out of wasm memory, so
//! they outlive the handle). 64-bit integers become `BigInt`, everything
//! narrower a `number`.

use atlas_wasm::{ArrayData, DType, NdArray};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

/// An object with fixed, trusted keys.
pub fn object(pairs: &[(&str, JsValue)]) -> JsValue {
    let out = Object::new();
    for (key, value) in pairs {
        let _ = Reflect::set(&out, &JsValue::from_str(key), value);
    }
    out.into()
}

/// An object keyed by names from the collection. A key named `__proto__`
/// is defined, not set (setting it would replace the prototype), so it is a
/// key like any other. Set one by one, not by `Object.fromEntries`: that
/// took 7 ms for a thousand keys in a fresh Node process, a loop 0.8 ms.
pub fn keyed(pairs: impl IntoIterator<Item = (String, JsValue)>) -> JsValue {
    let (keys, values): (Vec<String>, Vec<JsValue>) = pairs.into_iter().unzip();
    let out = Object::new();
    for ((name, key), value) in keys.iter().zip(strings(&keys)).zip(values) {
        if name == "__proto__" {
            let own = object(&[
                ("value", value),
                ("enumerable", true.into()),
                ("writable", true.into()),
                ("configurable", true.into()),
            ]);
            Object::define_property(&out, &key, own.unchecked_ref());
        } else {
            let _ = Reflect::set(&out, &key, &value);
        }
    }
    out.into()
}

/// JavaScript strings of `items`, decoded from UTF-8 in one call and
/// sliced: a catalogue's thousand names cost a thousand decoder calls one
/// by one, 12 ms of a cold first call (docs/benchmarks.md, "The catalogue (W1): where its time goes").
pub fn strings(items: &[impl AsRef<str>]) -> impl Iterator<Item = JsValue> + '_ {
    let all = js_sys::JsString::from(items.iter().map(AsRef::as_ref).collect::<String>());
    let mut at = 0;
    items.iter().map(move |item| {
        let item = item.as_ref();
        // JavaScript strings index by UTF-16 unit.
        let units = if item.is_ascii() {
            item.len()
        } else {
            item.encode_utf16().count()
        };
        let piece = all.slice(at, at + units as u32);
        at += units as u32;
        piece.into()
    })
}

/// A JavaScript array of `items`, each made by `one`.
pub fn list<T>(items: impl IntoIterator<Item = T>, one: impl Fn(T) -> JsValue) -> JsValue {
    items.into_iter().map(one).collect::<Array>().into()
}

/// Sizes and offsets as a JavaScript array of numbers.
pub fn numbers(values: &[u64]) -> JsValue {
    list(values, |&v| JsValue::from(v as f64))
}

/// A `Uint8Array` copy of `b`.
pub fn bytes(b: &[u8]) -> JsValue {
    js_sys::Uint8Array::from(b).into()
}

/// Elements of this type are `BigInt`s in JavaScript.
pub fn is_wide(dtype: &DType) -> bool {
    matches!(dtype, DType::Int64 | DType::UInt64 | DType::TimestampNs)
}

/// `{dtype, shape, data}` (the Atria module's arrays; a read of a
/// collection fills its typed array as it goes, through the collection
/// module's `JsStack`).
pub fn array(nd: NdArray) -> JsValue {
    object(&[
        ("dtype", nd.dtype.name().into()),
        ("shape", numbers(&nd.shape)),
        ("data", data(nd.data)),
    ])
}

/// The typed array (or array of strings and byte strings) of `data`.
pub fn data(data: ArrayData) -> JsValue {
    use js_sys::*;
    match data {
        ArrayData::Bool(v) => {
            Uint8Array::from(&v.into_iter().map(u8::from).collect::<Vec<_>>()[..]).into()
        }
        ArrayData::Int8(v) => Int8Array::from(&v[..]).into(),
        ArrayData::Int16(v) => Int16Array::from(&v[..]).into(),
        ArrayData::Int32(v) => Int32Array::from(&v[..]).into(),
        ArrayData::Int64(v) | ArrayData::TimestampNs(v) => BigInt64Array::from(&v[..]).into(),
        ArrayData::UInt8(v) => Uint8Array::from(&v[..]).into(),
        ArrayData::UInt16(v) => Uint16Array::from(&v[..]).into(),
        ArrayData::UInt32(v) => Uint32Array::from(&v[..]).into(),
        ArrayData::UInt64(v) => BigUint64Array::from(&v[..]).into(),
        ArrayData::Float32(v) => Float32Array::from(&v[..]).into(),
        ArrayData::Float64(v) => Float64Array::from(&v[..]).into(),
        ArrayData::String(v) => list(v, JsValue::from),
        ArrayData::Binary(v) => list(v, |b| bytes(&b)),
    }
}
