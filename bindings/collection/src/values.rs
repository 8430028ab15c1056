//! The collection's values as JavaScript values: attributes, statistics,
//! layouts, schemas, and a read's answer written straight into its typed
//! array ([`JsStack`]). Where a value has no type of its own (a fill value,
//! a statistics bound), it takes the JavaScript type of its array's elements.

use atlas_wasm::{
    ArrayData, ArrayLayout, ArrayStats, Attr, CollectionStats, DType, Error, FillValue, Result,
    SchemaView, StackSink, StackedLayout, StatValue,
};
use atlas_wasm_js::convert::{bytes, is_wide, keyed, list, numbers, object};
use indexmap::IndexMap;
use js_sys::{Array, BigInt, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The facade's progress reporter for one read: told the planned ranges
    /// as `[offset, length, offset, length, ...]`.
    #[derive(Clone)]
    pub type Reporter;

    #[wasm_bindgen(method)]
    pub(crate) fn planned(this: &Reporter, ranges: &[f64]);
}

/// An attribute value: numbers, `BigInt` for 64-bit integers, strings,
/// `Uint8Array`, typed arrays for numeric lists, arrays for the rest.
pub(crate) fn attr(value: &Attr) -> JsValue {
    use js_sys::*;
    match value {
        Attr::Bool(v) => (*v).into(),
        Attr::Int8(v) => (*v).into(),
        Attr::Int16(v) => (*v).into(),
        Attr::Int32(v) => (*v).into(),
        Attr::Int64(v) => BigInt::from(*v).into(),
        Attr::UInt8(v) => (*v).into(),
        Attr::UInt16(v) => (*v).into(),
        Attr::UInt32(v) => (*v).into(),
        Attr::UInt64(v) => BigInt::from(*v).into(),
        Attr::Float32(v) => (*v).into(),
        Attr::Float64(v) => (*v).into(),
        Attr::String(v) => v.into(),
        Attr::Binary(v) => bytes(v),
        Attr::BoolList(v) => list(v, |&b| JsValue::from(b)),
        Attr::Int8List(v) => Int8Array::from(&v[..]).into(),
        Attr::Int16List(v) => Int16Array::from(&v[..]).into(),
        Attr::Int32List(v) => Int32Array::from(&v[..]).into(),
        Attr::Int64List(v) => BigInt64Array::from(&v[..]).into(),
        Attr::UInt8List(v) => Uint8Array::from(&v[..]).into(),
        Attr::UInt16List(v) => Uint16Array::from(&v[..]).into(),
        Attr::UInt32List(v) => Uint32Array::from(&v[..]).into(),
        Attr::UInt64List(v) => BigUint64Array::from(&v[..]).into(),
        Attr::Float32List(v) => Float32Array::from(&v[..]).into(),
        Attr::Float64List(v) => Float64Array::from(&v[..]).into(),
        Attr::StringList(v) => list(v, JsValue::from),
        Attr::BinaryList(v) => list(v, |b| bytes(b)),
    }
}

/// `{key: value}` in the order the attributes were set.
pub(crate) fn attrs(values: IndexMap<String, Attr>) -> JsValue {
    keyed(values.into_iter().map(|(k, v)| {
        let v = attr(&v);
        (k, v)
    }))
}

/// `{min, max, nullCount, rowCount}`; bounds take the type of `dtype`'s elements.
pub(crate) fn stats(stats: &ArrayStats, dtype: Option<&DType>) -> JsValue {
    stats_of_dtypes(stats, dtype, dtype)
}

/// [`stats`] of a collection, where each bound may come from a dataset of
/// another dtype.
pub(crate) fn collection_stats(merged: &CollectionStats) -> JsValue {
    stats_of_dtypes(
        &merged.stats,
        merged.min_dtype.as_ref(),
        merged.max_dtype.as_ref(),
    )
}

fn stats_of_dtypes(
    stats: &ArrayStats,
    min_dtype: Option<&DType>,
    max_dtype: Option<&DType>,
) -> JsValue {
    let bound = |v: &Option<StatValue>, dtype: Option<&DType>| {
        v.as_ref().map_or(JsValue::NULL, |v| stat_value(v, dtype))
    };
    object(&[
        ("min", bound(&stats.min, min_dtype)),
        ("max", bound(&stats.max, max_dtype)),
        ("nullCount", (stats.null_count as f64).into()),
        ("rowCount", (stats.row_count as f64).into()),
    ])
}

fn stat_value(value: &StatValue, dtype: Option<&DType>) -> JsValue {
    let wide = dtype.is_none_or(is_wide);
    match value {
        StatValue::Int(v) if wide => BigInt::from(*v).into(),
        StatValue::Int(v) => (*v as f64).into(),
        StatValue::UInt(v) if wide => BigInt::from(*v).into(),
        StatValue::UInt(v) => (*v as f64).into(),
        StatValue::Float(v) => (*v).into(),
        StatValue::TimestampNs(v) => BigInt::from(*v).into(),
        StatValue::Bytes(b) if dtype == Some(&DType::Binary) => bytes(b),
        StatValue::Bytes(b) => String::from_utf8_lossy(b).into_owned().into(),
    }
}

/// `{shape, chunkShape, dimensions, fillValue}`.
pub(crate) fn layout(layout: &ArrayLayout, dtype: &DType) -> JsValue {
    let fill = layout
        .fill_value
        .as_ref()
        .map_or(JsValue::NULL, |f| fill_value(f, dtype));
    object(&[
        ("shape", numbers(&layout.shape)),
        ("chunkShape", numbers(&layout.chunk_shape)),
        ("dimensions", list(&layout.dimension_names, JsValue::from)),
        ("fillValue", fill),
    ])
}

fn fill_value(fill: &FillValue, dtype: &DType) -> JsValue {
    match fill {
        FillValue::Bool(v) => (*v).into(),
        FillValue::Int(v) if is_wide(dtype) => BigInt::from(*v).into(),
        FillValue::Int(v) => (*v as f64).into(),
        FillValue::UInt(v) if is_wide(dtype) => BigInt::from(*v).into(),
        FillValue::UInt(v) => (*v as f64).into(),
        FillValue::Float(v) => (*v).into(),
        FillValue::String(v) => v.into(),
        FillValue::TimestampNs(v) => BigInt::from(*v).into(),
    }
}

/// `{arrays: [{name, dtype, attributes: [{key, dtype}]}], attributes: [{key, dtype}]}`.
pub(crate) fn schema(schema: SchemaView<'_>) -> JsValue {
    let keys = |pairs: Vec<(&str, &DType)>| {
        list(pairs, |(key, dtype)| {
            object(&[("key", key.into()), ("dtype", dtype.name().into())])
        })
    };
    let arrays = list(schema.arrays(), |a| {
        object(&[
            ("name", a.name().into()),
            ("dtype", a.dtype().name().into()),
            ("attributes", keys(a.attributes())),
        ])
    });
    object(&[
        ("arrays", arrays),
        ("attributes", keys(schema.attributes())),
    ])
}

/// A stacked read written straight into one JavaScript array: a typed array
/// allocated once at the answer's full length, each dataset's part copied
/// into its slice as it is built, so wasm memory never holds the whole answer.
#[derive(Default)]
pub(crate) struct JsStack {
    /// Told what the read will request, for its `onProgress`.
    reporter: Option<Reporter>,
    elements: Option<JsValue>,
    /// The bytes of `elements` when it is a typed array, for little-endian parts.
    bytes: Option<js_sys::Uint8Array>,
    filled: u32,
    total: u32,
}

impl JsStack {
    /// An answer whose read reports its progress to `reporter`.
    pub(crate) fn reporting(reporter: Option<Reporter>) -> JsStack {
        JsStack {
            reporter,
            ..JsStack::default()
        }
    }

    /// `{dtype, shape, data}` of a stack of one part (a single read), its
    /// first axis dropped.
    pub(crate) fn finish_one(self, layout: &StackedLayout) -> JsValue {
        object(&[
            ("dtype", layout.dtype.name().into()),
            ("shape", numbers(layout.shape.get(1..).unwrap_or(&[]))),
            ("data", self.elements.unwrap_or_else(|| Array::new().into())),
        ])
    }

    /// `{dtype, datasets, shape, data}`, and `skipped` when the caller asked to skip.
    pub(crate) fn finish(self, layout: &StackedLayout, report_skipped: bool) -> JsValue {
        let out = object(&[
            ("dtype", layout.dtype.name().into()),
            (
                "datasets",
                list(&layout.datasets, |n| JsValue::from(n.as_str())),
            ),
            ("shape", numbers(&layout.shape)),
            ("data", self.elements.unwrap_or_else(|| Array::new().into())),
        ]);
        if report_skipped {
            let skipped = list(&layout.skipped, |s| {
                object(&[
                    ("dataset", s.dataset.as_str().into()),
                    ("dtype", s.dtype.name().into()),
                    ("shape", numbers(&s.shape)),
                ])
            });
            let _ = Reflect::set(&out, &"skipped".into(), &skipped);
        }
        out
    }
}

impl StackSink for JsStack {
    fn planned(&mut self, requests: &[std::ops::Range<u64>]) {
        if let Some(reporter) = &self.reporter {
            let flat: Vec<f64> = requests
                .iter()
                .flat_map(|r| [r.start as f64, (r.end - r.start) as f64])
                .collect();
            reporter.planned(&flat);
        }
    }

    fn begin(&mut self, layout: &StackedLayout) -> Result<()> {
        use js_sys::{
            BigInt64Array, BigUint64Array, Float32Array, Float64Array, Int16Array, Int32Array,
            Int8Array, Uint16Array, Uint32Array, Uint8Array,
        };
        let total = layout.total_len();
        // Typed arrays are indexed by u32 here; the answer limit keeps most reads far below.
        let n = u32::try_from(total)
            .map_err(|_| Error::TooLarge(format!("a stacked answer of {total} elements")))?;
        self.total = n;
        self.elements = Some(match &layout.dtype {
            DType::Bool | DType::UInt8 => Uint8Array::new_with_length(n).into(),
            DType::Int8 => Int8Array::new_with_length(n).into(),
            DType::Int16 => Int16Array::new_with_length(n).into(),
            DType::Int32 => Int32Array::new_with_length(n).into(),
            DType::Int64 | DType::TimestampNs => BigInt64Array::new_with_length(n).into(),
            DType::UInt16 => Uint16Array::new_with_length(n).into(),
            DType::UInt32 => Uint32Array::new_with_length(n).into(),
            DType::UInt64 => BigUint64Array::new_with_length(n).into(),
            DType::Float32 => Float32Array::new_with_length(n).into(),
            DType::Float64 => Float64Array::new_with_length(n).into(),
            // Strings and byte strings are one JavaScript value each.
            _ => Array::new_with_length(n).into(),
        });
        self.bytes = match layout.dtype.element_size() {
            // Every typed array above owns its buffer from byte 0.
            Some(_) => self.elements.as_ref().map(|e| {
                js_sys::Uint8Array::new(&e.unchecked_ref::<js_sys::Uint8Array>().buffer())
            }),
            None => None,
        };
        Ok(())
    }

    fn append_le(&mut self, dtype: &DType, part: &[u8]) -> Result<()> {
        let (Some(view), Some(width), false) =
            (&self.bytes, dtype.element_size(), *dtype == DType::Bool)
        else {
            // Booleans are normalised to 0 and 1 on the way.
            return self.append(ArrayData::from_le_bytes(dtype, part)?);
        };
        let len = (part.len() / width) as u64;
        let from = u64::from(self.filled);
        if part.len() % width != 0 || from + len > u64::from(self.total) {
            return Err(Error::corrupt_collection(
                "a stacked part longer than its frame",
            ));
        }
        let at = (from * width as u64) as u32;
        view.subarray(at, at + part.len() as u32).copy_from(part);
        self.filled += len as u32;
        Ok(())
    }

    fn append(&mut self, part: ArrayData) -> Result<()> {
        use js_sys::{
            BigInt64Array, BigUint64Array, Float32Array, Float64Array, Int16Array, Int32Array,
            Int8Array, Uint16Array, Uint32Array, Uint8Array,
        };
        let elements = self
            .elements
            .as_ref()
            .ok_or_else(|| Error::InvalidArgument("a stacked part before its frame".into()))?;
        let (from, len) = (self.filled, part.len() as u32);
        // `copy_from` panics on a length mismatch; a part must fit its slice.
        if u64::from(from) + u64::from(len) > u64::from(self.total) {
            return Err(Error::corrupt_collection(
                "a stacked part longer than its frame",
            ));
        }
        macro_rules! copy {
            ($class:ident, $values:expr) => {
                elements
                    .unchecked_ref::<$class>()
                    .subarray(from, from + len)
                    .copy_from(&$values[..])
            };
        }
        match part {
            ArrayData::Bool(v) => {
                copy!(Uint8Array, v.into_iter().map(u8::from).collect::<Vec<_>>())
            }
            ArrayData::Int8(v) => copy!(Int8Array, v),
            ArrayData::Int16(v) => copy!(Int16Array, v),
            ArrayData::Int32(v) => copy!(Int32Array, v),
            ArrayData::Int64(v) | ArrayData::TimestampNs(v) => copy!(BigInt64Array, v),
            ArrayData::UInt8(v) => copy!(Uint8Array, v),
            ArrayData::UInt16(v) => copy!(Uint16Array, v),
            ArrayData::UInt32(v) => copy!(Uint32Array, v),
            ArrayData::UInt64(v) => copy!(BigUint64Array, v),
            ArrayData::Float32(v) => copy!(Float32Array, v),
            ArrayData::Float64(v) => copy!(Float64Array, v),
            ArrayData::String(v) => {
                let array = elements.unchecked_ref::<Array>();
                for (i, s) in v.into_iter().enumerate() {
                    array.set(from + i as u32, JsValue::from(s));
                }
            }
            ArrayData::Binary(v) => {
                let array = elements.unchecked_ref::<Array>();
                for (i, b) in v.iter().enumerate() {
                    array.set(from + i as u32, bytes(b));
                }
            }
        }
        self.filled = from + len;
        Ok(())
    }
}
