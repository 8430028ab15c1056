//! msgpack-numpy values: maps with bin keys `nd`, `type`, `kind`, `shape`,
//! `data` (an array) or `nd`, `type`, `data` (a numpy scalar).
//!
//! `type` is numpy's `dtype.str`: a byte order (`<`, `>`, `|`, `=`), a kind
//! and an item size (`<f4`, `>i8`, `|b1`, `<U3`). `data` is the elements in
//! C order. Kinds this reader has no element type for (float16, complex,
//! structured and object arrays) stay plain maps.

use crate::atria::error::{Error, Result};
use crate::format::budget::Budget;
use crate::{ArrayData, DType, NdArray};

use super::value::Value;

/// The array a msgpack-numpy map holds; `None` when `entries` is not one
/// (or is one of a kind this reader leaves as a map).
pub(crate) fn from_map(
    entries: &[(Value, Value)],
    budget: &mut Budget,
    what: &str,
) -> Option<Result<NdArray>> {
    let field = |name: &[u8]| {
        entries
            .iter()
            .find(|(k, _)| matches!(k, Value::Bin(b) if b == name))
            .map(|(_, v)| v)
    };
    if !entries.iter().all(|(k, _)| matches!(k, Value::Bin(_))) {
        return None;
    }
    let Some(Value::Bool(is_array)) = field(b"nd") else {
        return None;
    };
    if matches!(field(b"kind"), Some(Value::Bin(k)) if !k.is_empty()) {
        return None; // structured ('V') or object ('O') arrays
    }
    let Some(Value::Str(type_str)) = field(b"type") else {
        return None;
    };
    let element = Element::parse(type_str)?;
    let bad =
        |why: String| Error::Corrupt(format!("{what}: a msgpack-numpy '{type_str}' value {why}"));
    let shape = if *is_array {
        match field(b"shape") {
            Some(Value::List(dims)) => {
                let dims: Option<Vec<u64>> = dims
                    .iter()
                    .map(|d| match d {
                        Value::Int(n) => u64::try_from(*n).ok(),
                        _ => None,
                    })
                    .collect();
                match dims {
                    Some(dims) => dims,
                    None => {
                        return Some(Err(bad("has a shape that is not a list of sizes".into())))
                    }
                }
            }
            _ => return Some(Err(bad("has no shape".into()))),
        }
    } else {
        Vec::new()
    };
    let Some(Value::Bin(data)) = field(b"data") else {
        return Some(Err(bad("has no data bytes".into())));
    };
    Some(element.decode(shape, data, budget).map_err(|e| match e {
        Error::Corrupt(m) => bad(m),
        other => other,
    }))
}

/// One numpy element type this reader decodes.
#[derive(Debug, Clone, PartialEq)]
struct Element {
    dtype: DType,
    /// Bytes per element (for strings: the fixed width in bytes).
    size: usize,
    big_endian: bool,
}

impl Element {
    fn parse(text: &str) -> Option<Element> {
        let mut chars = text.chars();
        let big_endian = match chars.next()? {
            '>' => true,
            '<' | '|' => false,
            '=' => cfg!(target_endian = "big"),
            _ => return None,
        };
        let kind = chars.next()?;
        let size: usize = chars.as_str().parse().ok()?;
        let dtype = match (kind, size) {
            ('b', 1) => DType::Bool,
            ('i', 1) => DType::Int8,
            ('i', 2) => DType::Int16,
            ('i', 4) => DType::Int32,
            ('i', 8) => DType::Int64,
            ('u', 1) => DType::UInt8,
            ('u', 2) => DType::UInt16,
            ('u', 4) => DType::UInt32,
            ('u', 8) => DType::UInt64,
            ('f', 4) => DType::Float32,
            ('f', 8) => DType::Float64,
            // numpy's unicode: UTF-32 code units, `size` characters.
            ('U', n) if n > 0 => {
                return Some(Element {
                    dtype: DType::String,
                    size: 4 * n,
                    big_endian,
                })
            }
            ('S', n) if n > 0 => DType::Binary,
            _ => return None,
        };
        Some(Element {
            dtype,
            size,
            big_endian,
        })
    }

    fn decode(&self, shape: Vec<u64>, data: &[u8], budget: &mut Budget) -> Result<NdArray> {
        let count = shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| Error::Corrupt(format!("has a shape {shape:?} that overflows")))?;
        let expected = count.checked_mul(self.size as u64);
        if expected != Some(data.len() as u64) {
            return Err(Error::Corrupt(format!(
                "of shape {shape:?} holds {} data bytes, not {count} × {}",
                data.len(),
                self.size
            )));
        }
        // Each element costs at most 24 bytes decoded (a String or Vec).
        budget.charge_items(count, 24, "a msgpack-numpy array")?;
        let items = data.chunks_exact(self.size);
        let be = self.big_endian;
        macro_rules! numbers {
            ($variant:ident, $ty:ty) => {
                ArrayData::$variant(
                    items
                        .map(|c| {
                            let bytes = c.try_into().expect("chunks of the element size");
                            if be {
                                <$ty>::from_be_bytes(bytes)
                            } else {
                                <$ty>::from_le_bytes(bytes)
                            }
                        })
                        .collect(),
                )
            };
        }
        let data = match &self.dtype {
            DType::Bool => ArrayData::Bool(items.map(|c| c[0] != 0).collect()),
            DType::Int8 => numbers!(Int8, i8),
            DType::Int16 => numbers!(Int16, i16),
            DType::Int32 => numbers!(Int32, i32),
            DType::Int64 => numbers!(Int64, i64),
            DType::UInt8 => numbers!(UInt8, u8),
            DType::UInt16 => numbers!(UInt16, u16),
            DType::UInt32 => numbers!(UInt32, u32),
            DType::UInt64 => numbers!(UInt64, u64),
            DType::Float32 => numbers!(Float32, f32),
            DType::Float64 => numbers!(Float64, f64),
            DType::String => {
                ArrayData::String(items.map(|c| utf32(c, be)).collect::<Result<Vec<_>>>()?)
            }
            // numpy's `S` drops trailing NULs when it reads an element.
            _ => ArrayData::Binary(
                items
                    .map(|c| {
                        let end = c.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
                        c[..end].to_vec()
                    })
                    .collect(),
            ),
        };
        Ok(NdArray {
            dtype: self.dtype.clone(),
            shape,
            data,
        })
    }
}

/// One fixed-width UTF-32 element, its trailing NULs dropped (as numpy does).
fn utf32(unit_bytes: &[u8], be: bool) -> Result<String> {
    let mut out = String::new();
    for unit in unit_bytes.chunks_exact(4) {
        let unit: [u8; 4] = unit.try_into().expect("chunks of 4");
        let code = if be {
            u32::from_be_bytes(unit)
        } else {
            u32::from_le_bytes(unit)
        };
        out.push(
            char::from_u32(code).ok_or_else(|| {
                Error::Corrupt(format!("holds {code:#x}, which is not a character"))
            })?,
        );
    }
    Ok(out.trim_end_matches('\0').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtype_strings_parse() {
        let e = Element::parse(">i4").unwrap();
        assert_eq!(
            (e.dtype.clone(), e.size, e.big_endian),
            (DType::Int32, 4, true)
        );
        assert_eq!(Element::parse("<U3").unwrap().size, 12);
        assert_eq!(Element::parse("|b1").unwrap().dtype, DType::Bool);
        for unknown in ["<f2", "<c16", "<M8[ns]", "|O", "|V8", "", "<", "<i"] {
            assert_eq!(Element::parse(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn data_of_the_wrong_length_is_corrupt() {
        let e = Element::parse("<i4").unwrap();
        let err = e
            .decode(vec![2, 2], &[0; 12], &mut Budget::new(1 << 20))
            .unwrap_err();
        assert_eq!(err.code(), "Corrupt");
        let err = e
            .decode(vec![u64::MAX, 2], &[], &mut Budget::new(1 << 20))
            .unwrap_err();
        assert_eq!(err.code(), "Corrupt");
        let empty = e
            .decode(vec![0, 3], &[], &mut Budget::new(1 << 20))
            .unwrap();
        assert_eq!(empty.data, ArrayData::Int32(vec![]));
    }
}
