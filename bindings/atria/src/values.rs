//! Atria's values as JavaScript values (the `atlas-wasm/atria` entry).
//!
//! A record or row becomes a plain object: msgpack maps with string keys
//! are objects (`convert::keyed`: a key `__proto__` is a key like any
//! other), other maps are `Map`s; integers are numbers while
//! exact (|v| <= 2^53 - 1), `BigInt`s beyond; bytes are `Uint8Array`s; numpy
//! values are `{dtype, shape, data}` as the core's reads answer them.

use atlas_wasm::atria::{Check, Defect, MemberRef, Sample, Value};
use atlas_wasm_js::convert::{array, keyed, object};
use js_sys::{Array, BigInt, Map, Uint8Array};
use wasm_bindgen::prelude::*;

const MAX_SAFE: i64 = atlas_wasm_js::MAX_SAFE as i64;

/// `value` as a plain JavaScript value.
pub(crate) fn value(value: Value) -> JsValue {
    match value {
        Value::Nil => JsValue::NULL,
        Value::Bool(b) => b.into(),
        Value::Int(i) if (-MAX_SAFE..=MAX_SAFE).contains(&i) => (i as f64).into(),
        Value::Int(i) => BigInt::from(i).into(),
        Value::UInt(u) => BigInt::from(u).into(),
        Value::Float(f) => f.into(),
        Value::Str(s) => s.into(),
        Value::Bin(b) => Uint8Array::from(&b[..]).into(),
        Value::List(items) => items.into_iter().map(self::value).collect::<Array>().into(),
        Value::Map(entries) => map(entries),
        Value::Ext(tag, data) => object(&[
            ("extType", tag.into()),
            ("data", Uint8Array::from(&data[..]).into()),
        ]),
        Value::Array(nd) => array(nd),
    }
}

fn map(entries: Vec<(Value, Value)>) -> JsValue {
    if entries.iter().all(|(k, _)| matches!(k, Value::Str(_))) {
        return keyed(entries.into_iter().map(|(k, v)| match k {
            Value::Str(k) => (k, value(v)),
            _ => unreachable!("every key was checked to be a string"),
        }));
    }
    let out = Map::new();
    for (k, v) in entries {
        out.set(&value(k), &value(v));
    }
    out.into()
}

/// `[{name, type}]` from `(name, type)` pairs: a split's or a parquet file's columns.
pub(crate) fn columns<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<JsValue> {
    pairs
        .map(|(name, kind)| object(&[("name", name.into()), ("type", kind.into())]))
        .collect()
}

/// `{pointer, ok, defect, recovered, member, naming, keyConvention}`; `defect` is null or
/// `{kind, message, …what was found}`, `member` null or `{shard, name, offset, size}`,
/// `naming` null, `"content"` or `"field"`, `keyConvention` null or
/// `KeyConvention::as_str`'s.
pub(crate) fn check(check: Check) -> JsValue {
    object(&[
        ("pointer", check.pointer.into()),
        ("ok", check.ok.into()),
        ("defect", check.defect.map_or(JsValue::NULL, defect)),
        ("recovered", check.recovered.into()),
        ("member", check.member.map_or(JsValue::NULL, member)),
        (
            "naming",
            check.naming.map_or(JsValue::NULL, |n| n.as_str().into()),
        ),
        (
            "keyConvention",
            check
                .key_convention
                .map_or(JsValue::NULL, |k| k.as_str().into()),
        ),
    ])
}

fn defect(defect: Defect) -> JsValue {
    let message: JsValue = defect.to_string().into();
    match defect {
        Defect::PastEnd => object(&[("kind", "PastEnd".into()), ("message", message)]),
        Defect::Misaligned => object(&[("kind", "Misaligned".into()), ("message", message)]),
        Defect::NoHeader { found } => object(&[
            ("kind", "NoHeader".into()),
            ("message", message),
            ("found", found.into()),
        ]),
        Defect::OtherMember { name, size } => object(&[
            ("kind", "OtherMember".into()),
            ("message", message),
            ("name", name.into()),
            ("size", (size as f64).into()),
        ]),
        Defect::NoShard => object(&[("kind", "NoShard".into()), ("message", message)]),
        Defect::SplitMissing => object(&[("kind", "SplitMissing".into()), ("message", message)]),
    }
}

fn member(member: MemberRef) -> JsValue {
    object(&[
        ("shard", member.shard.into()),
        ("name", member.name.into()),
        ("offset", (member.offset as f64).into()),
        ("size", (member.size as f64).into()),
    ])
}

/// `[{key, members: [{name, offset, size}]}]`.
pub(crate) fn samples(samples: Vec<Sample>) -> JsValue {
    samples
        .into_iter()
        .map(|sample| {
            let members: Array = sample
                .members
                .into_iter()
                .map(|m| {
                    object(&[
                        ("name", m.name.into()),
                        ("offset", (m.offset as f64).into()),
                        ("size", (m.size as f64).into()),
                    ])
                })
                .collect();
            object(&[("key", sample.key.into()), ("members", members.into())])
        })
        .collect::<Array>()
        .into()
}
