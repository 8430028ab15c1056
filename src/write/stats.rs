//! Statistics of stored chunk bytes, defined exactly as array-format 0.15
//! computes them, so a collection we write carries the numbers atlas-rust's
//! writer would have stored for the same data.
//!
//! - A chunk's partial is `(min, max, nulls, rows)` over its bytes.
//! - An element equal to the fill counts as a null and stays out of min/max.
//!   The fill is converted with `as` to the element type first; for a float a
//!   NaN fill matches every NaN. Only fills of a matching kind count (an
//!   integer array ignores a float fill, a string array only a string fill).
//! - Floats order by `total_cmp`: without a NaN fill a NaN is the maximum.
//! - Strings and binary order as raw bytes. Lists have no statistics.
//! - At finish, rows are the shape's product and nulls are rows minus the
//!   non-null elements of the written chunks: every unwritten element is a
//!   null, with or without a fill value.

use crate::format::chunk::{decode_elements, split_offsets_lenient};
use crate::format::dtype::DType;
use crate::format::value::{ArrayStats, FillValue, StatValue};

/// One chunk's contribution.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Partial {
    pub min: Option<StatValue>,
    pub max: Option<StatValue>,
    pub nulls: u64,
    pub rows: u64,
}

impl Partial {
    const EMPTY: Partial = Partial {
        min: None,
        max: None,
        nulls: 0,
        rows: 0,
    };
}

/// Folds values in order, counting those `is_null` says are nulls.
fn fold<T: Copy>(
    values: impl Iterator<Item = T>,
    is_null: impl Fn(T) -> bool,
    lt: impl Fn(T, T) -> bool,
) -> (Option<(T, T)>, u64, u64) {
    let (mut bounds, mut nulls, mut rows) = (None::<(T, T)>, 0u64, 0u64);
    for v in values {
        rows += 1;
        if is_null(v) {
            nulls += 1;
            continue;
        }
        bounds = Some(match bounds {
            None => (v, v),
            Some((lo, hi)) => (
                if lt(v, lo) { v } else { lo },
                if lt(hi, v) { v } else { hi },
            ),
        });
    }
    (bounds, nulls, rows)
}

fn partial<T: Copy>(result: (Option<(T, T)>, u64, u64), wrap: impl Fn(T) -> StatValue) -> Partial {
    let (bounds, nulls, rows) = result;
    Partial {
        min: bounds.map(|b| wrap(b.0)),
        max: bounds.map(|b| wrap(b.1)),
        nulls,
        rows,
    }
}

macro_rules! ints {
    ($bytes:expr, $fill:expr, $ty:ty, $wrap:expr, $($pat:pat => $e:expr),*) => {{
        let fill: Option<$ty> = match $fill { $(Some($pat) => Some($e),)* _ => None };
        let values = decode_elements::<$ty>($bytes);
        partial(fold(values, |v| fill == Some(v), |a, b| a < b), $wrap)
    }};
}

macro_rules! floats {
    ($bytes:expr, $fill:expr, $ty:ty) => {{
        let fill: Option<$ty> = match $fill {
            Some(FillValue::Float(v)) => Some(*v as $ty),
            _ => None,
        };
        let values = decode_elements::<$ty>($bytes);
        let is_null = |v: $ty| fill.is_some_and(|f| if f.is_nan() { v.is_nan() } else { v == f });
        partial(fold(values, is_null, |a, b| a.total_cmp(&b).is_lt()), |v| {
            StatValue::Float(v as f64)
        })
    }};
}

/// The partial of one chunk's stored bytes.
pub(crate) fn chunk_partial(bytes: &[u8], dtype: &DType, fill: Option<&FillValue>) -> Partial {
    use FillValue as F;
    if bytes.is_empty() {
        return Partial::EMPTY;
    }
    match dtype {
        DType::Int8 => {
            ints!(bytes, fill, i8, |v| StatValue::Int(v as i64), F::Int(v) => *v as i8, F::UInt(v) => *v as i8)
        }
        DType::Int16 => {
            ints!(bytes, fill, i16, |v| StatValue::Int(v as i64), F::Int(v) => *v as i16, F::UInt(v) => *v as i16)
        }
        DType::Int32 => {
            ints!(bytes, fill, i32, |v| StatValue::Int(v as i64), F::Int(v) => *v as i32, F::UInt(v) => *v as i32)
        }
        DType::Int64 => {
            ints!(bytes, fill, i64, StatValue::Int, F::Int(v) => *v, F::UInt(v) => *v as i64)
        }
        DType::UInt8 => {
            ints!(bytes, fill, u8, |v| StatValue::UInt(v as u64), F::UInt(v) => *v as u8, F::Int(v) => *v as u8)
        }
        DType::UInt16 => {
            ints!(bytes, fill, u16, |v| StatValue::UInt(v as u64), F::UInt(v) => *v as u16, F::Int(v) => *v as u16)
        }
        DType::UInt32 => {
            ints!(bytes, fill, u32, |v| StatValue::UInt(v as u64), F::UInt(v) => *v as u32, F::Int(v) => *v as u32)
        }
        DType::UInt64 => {
            ints!(bytes, fill, u64, StatValue::UInt, F::UInt(v) => *v, F::Int(v) => *v as u64)
        }
        DType::Bool => {
            ints!(bytes, fill, u8, |v| StatValue::UInt(v as u64), F::Bool(v) => *v as u8)
        }
        DType::TimestampNs => {
            ints!(bytes, fill, i64, StatValue::TimestampNs, F::TimestampNs(v) => *v, F::Int(v) => *v)
        }
        DType::Float32 => floats!(bytes, fill, f32),
        DType::Float64 => floats!(bytes, fill, f64),
        DType::String | DType::Binary => {
            let fill = match fill {
                Some(F::String(s)) => Some(s.as_bytes()),
                _ => None,
            };
            partial(
                fold(
                    split_offsets_lenient(bytes).into_iter(),
                    |v| fill == Some(v),
                    |a, b| a < b,
                ),
                |v| StatValue::Bytes(v.to_vec()),
            )
        }
        DType::FixedSizeList { .. } | DType::List { .. } => Partial::EMPTY,
    }
}

/// Merges chunk partials into an array's statistics. `elements` is the
/// product of the array's shape.
pub(crate) fn finish<'a>(
    name: &str,
    elements: u64,
    partials: impl Iterator<Item = &'a Partial>,
) -> ArrayStats {
    let mut stats = ArrayStats {
        name: name.to_string(),
        min: None,
        max: None,
        null_count: 0,
        row_count: elements,
    };
    let mut non_null = 0u64;
    for p in partials {
        non_null += p.rows - p.nulls;
        stats.min = pick(stats.min.take(), p.min.clone(), true);
        stats.max = pick(stats.max.take(), p.max.clone(), false);
    }
    stats.null_count = elements.wrapping_sub(non_null);
    stats
}

/// The lower (or upper) of two bounds, keeping the first on a tie or when
/// the two do not compare, as array-format's merge does.
fn pick(a: Option<StatValue>, b: Option<StatValue>, lower: bool) -> Option<StatValue> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => {
            let a_le_b = a.le(&b).unwrap_or(false);
            Some(if a_le_b == lower { a } else { b })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::chunk::encode_offsets;

    fn f64s(v: &[f64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn fill_values_are_nulls_and_stay_out_of_bounds() {
        let bytes: Vec<u8> = [3i32, 1, 4, 1, 5]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let p = chunk_partial(&bytes, &DType::Int32, Some(&FillValue::Int(1)));
        assert_eq!(
            (p.min, p.max, p.nulls, p.rows),
            (Some(StatValue::Int(3)), Some(StatValue::Int(5)), 2, 5)
        );
        // A float fill does not count on an integer array.
        assert_eq!(
            chunk_partial(&bytes, &DType::Int32, Some(&FillValue::Float(1.0))).nulls,
            0
        );
    }

    #[test]
    fn nan_is_the_maximum_unless_it_is_the_fill() {
        let bytes = f64s(&[1.0, f64::NAN, -2.0]);
        let p = chunk_partial(&bytes, &DType::Float64, None);
        assert_eq!(p.min, Some(StatValue::Float(-2.0)));
        assert!(matches!(p.max, Some(StatValue::Float(x)) if x.is_nan()));
        let p = chunk_partial(&bytes, &DType::Float64, Some(&FillValue::Float(f64::NAN)));
        assert_eq!((p.max, p.nulls), (Some(StatValue::Float(1.0)), 1));
    }

    #[test]
    fn strings_order_as_bytes_and_unwritten_cells_are_nulls() {
        let bytes = encode_offsets([&b"pear"[..], b"apple", b""].into_iter());
        let p = chunk_partial(
            &bytes,
            &DType::String,
            Some(&FillValue::String(String::new())),
        );
        assert_eq!(p.min, Some(StatValue::Bytes(b"apple".to_vec())));
        assert_eq!((p.nulls, p.rows), (1, 3));
        let stats = finish("d", 10, [p].iter());
        assert_eq!((stats.null_count, stats.row_count), (8, 10));
    }
}
