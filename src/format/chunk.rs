//! The bytes of one chunk, as array-format stores them inside a block.
//!
//! - Fixed-width dtypes: the elements in C order, each little-endian.
//! - `string` and `binary`: an offset table of `N + 1` u32 LE offsets (the
//!   first is 0, the last is the total), then the items' bytes back to back.
//! - An element no writer wrote reads as the array's fill, converted to the
//!   element type with Rust's `as` (wrapping integers, saturating floats);
//!   string and binary cells read as empty whatever the fill.
//!
//! Edge chunks are stored clipped to the array; readers also accept the
//! full chunk shape, which older writers padded to.

use crate::format::dtype::DType;
use crate::format::value::FillValue;

/// A fixed-width element type with a little-endian encoding.
pub(crate) trait LeElement: Copy + 'static {
    /// Bytes per element.
    const WIDTH: usize;
    /// Decodes one element from exactly `WIDTH` bytes.
    fn read(bytes: &[u8]) -> Self;
    /// Appends the element's bytes.
    #[cfg_attr(not(feature = "writer"), allow(dead_code))]
    fn write(self, out: &mut Vec<u8>);
}

macro_rules! le_element {
    ($($ty:ty),*) => {$(
        impl LeElement for $ty {
            const WIDTH: usize = std::mem::size_of::<$ty>();
            // Inlined even in size-optimised builds: a call per element is
            // most of the cost of decoding an answer.
            #[inline(always)]
            fn read(bytes: &[u8]) -> Self {
                let mut raw = [0u8; std::mem::size_of::<$ty>()];
                raw.copy_from_slice(bytes);
                <$ty>::from_le_bytes(raw)
            }
            fn write(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}

le_element!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

/// The elements of fixed-width bytes; a trailing partial element is ignored
/// (callers check lengths against shapes first).
#[cfg_attr(not(feature = "writer"), allow(dead_code))]
pub(crate) fn decode_elements<T: LeElement>(bytes: &[u8]) -> impl Iterator<Item = T> + '_ {
    bytes.chunks_exact(T::WIDTH).map(T::read)
}

/// The stored bytes of fixed-width elements.
#[cfg_attr(not(feature = "writer"), allow(dead_code))]
pub(crate) fn encode_elements<T: LeElement>(values: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(std::mem::size_of_val(values));
    for &v in values {
        v.write(&mut out);
    }
    out
}

/// One unwritten element's bytes: the fill converted with `as`, as
/// array-format does. `None` for strings and binary, whose unwritten cells
/// are empty.
pub(crate) fn fill_element(dtype: &DType, fill: Option<&FillValue>) -> Option<Vec<u8>> {
    macro_rules! num {
        ($ty:ty, $($pat:pat => $e:expr),*) => {{
            let v: $ty = match fill { $(Some($pat) => $e,)* _ => 0 as $ty };
            v.to_le_bytes().to_vec()
        }};
    }
    use FillValue as F;
    Some(match dtype {
        DType::UInt8 => {
            num!(u8, F::UInt(v) => *v as u8, F::Int(v) => *v as u8, F::Float(v) => *v as u8, F::Bool(v) => *v as u8)
        }
        DType::UInt16 => {
            num!(u16, F::UInt(v) => *v as u16, F::Int(v) => *v as u16, F::Float(v) => *v as u16, F::Bool(v) => *v as u16)
        }
        DType::UInt32 => {
            num!(u32, F::UInt(v) => *v as u32, F::Int(v) => *v as u32, F::Float(v) => *v as u32, F::Bool(v) => *v as u32)
        }
        DType::UInt64 => {
            num!(u64, F::UInt(v) => *v, F::Int(v) => *v as u64, F::Float(v) => *v as u64, F::Bool(v) => *v as u64)
        }
        DType::Int8 => {
            num!(i8, F::Int(v) => *v as i8, F::UInt(v) => *v as i8, F::Float(v) => *v as i8)
        }
        DType::Int16 => {
            num!(i16, F::Int(v) => *v as i16, F::UInt(v) => *v as i16, F::Float(v) => *v as i16)
        }
        DType::Int32 => {
            num!(i32, F::Int(v) => *v as i32, F::UInt(v) => *v as i32, F::Float(v) => *v as i32)
        }
        DType::Int64 => {
            num!(i64, F::Int(v) => *v, F::UInt(v) => *v as i64, F::Float(v) => *v as i64)
        }
        DType::Float32 => {
            num!(f32, F::Float(v) => *v as f32, F::Int(v) => *v as f32, F::UInt(v) => *v as f32)
        }
        DType::Float64 => {
            num!(f64, F::Float(v) => *v, F::Int(v) => *v as f64, F::UInt(v) => *v as f64)
        }
        DType::TimestampNs => num!(i64, F::TimestampNs(v) => *v, F::Int(v) => *v),
        // No writer in the family writes bool or list arrays; zeros keep a
        // patch of one defined.
        DType::Bool => vec![0],
        DType::FixedSizeList { .. } => vec![0; dtype.element_size().unwrap_or(0)],
        DType::String | DType::Binary | DType::List { .. } => return None,
    })
}

/// An offset table followed by the items.
#[cfg_attr(not(feature = "writer"), allow(dead_code))]
pub(crate) fn encode_offsets<'a>(
    items: impl ExactSizeIterator<Item = &'a [u8]> + Clone,
) -> Vec<u8> {
    let total: usize = items.clone().map(<[u8]>::len).sum();
    let mut out = Vec::with_capacity(4 * (items.len() + 1) + total);
    let mut end = 0u32;
    out.extend_from_slice(&end.to_le_bytes());
    for item in items.clone() {
        end = end.wrapping_add(item.len() as u32);
        out.extend_from_slice(&end.to_le_bytes());
    }
    for item in items {
        out.extend_from_slice(item);
    }
    out
}

fn offset_at(bytes: &[u8], i: usize) -> usize {
    u32::read(&bytes[i * 4..i * 4 + 4]) as usize
}

/// The items of a chunk that must hold exactly `n` of them: the reader's
/// mode. The table must fit, end exactly at the end of the bytes and never
/// run backwards; otherwise `None`, and the reader reports corruption
/// rather than guess at values.
pub(crate) fn split_offsets_exact(bytes: &[u8], n: u64) -> Option<Vec<&[u8]>> {
    let table = n.checked_add(1)?.checked_mul(4)?;
    if table > bytes.len() as u64 {
        return None;
    }
    let n = n as usize;
    let values = &bytes[table as usize..];
    if offset_at(bytes, n) != values.len() {
        return None;
    }
    let mut items = Vec::with_capacity(n);
    for i in 0..n {
        let (from, to) = (offset_at(bytes, i), offset_at(bytes, i + 1));
        if from > to || to > values.len() {
            return None;
        }
        items.push(&values[from..to]);
    }
    Some(items)
}

/// How many items a chunk holds, found as array-format finds it: the first
/// `n` whose offset `n` ends exactly at the end of the bytes.
#[cfg_attr(not(feature = "writer"), allow(dead_code))]
pub(crate) fn lenient_count(bytes: &[u8]) -> usize {
    let mut n = 0usize;
    while (n + 1) * 4 + 4 <= bytes.len() {
        let at = (n + 1) * 4;
        n += 1;
        if at + 4 + offset_at(bytes, n) == bytes.len() {
            break;
        }
    }
    n
}

/// The items of a chunk read the way array-format reads them: the count from
/// [`lenient_count`], and offsets that do not fit giving empty items. The
/// writer uses this mode for statistics and for patching a chunk it did not
/// write, because the numbers it stores must be the ones array-format would
/// compute from the same bytes, broken or not.
#[cfg_attr(not(feature = "writer"), allow(dead_code))]
pub(crate) fn split_offsets_lenient(bytes: &[u8]) -> Vec<&[u8]> {
    let n = lenient_count(bytes);
    let base = (n + 1) * 4;
    (0..n)
        .map(|i| {
            let (start, end) = (base + offset_at(bytes, i), base + offset_at(bytes, i + 1));
            bytes.get(start..end).unwrap_or(&[])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_convert_with_as() {
        assert_eq!(
            fill_element(&DType::Int8, Some(&FillValue::Int(300))),
            Some(vec![44])
        );
        assert_eq!(
            fill_element(&DType::UInt16, Some(&FillValue::Float(-3.0))),
            Some(vec![0, 0])
        );
        assert_eq!(
            fill_element(&DType::Int32, Some(&FillValue::Bool(true))),
            Some(vec![0; 4])
        );
        assert_eq!(
            fill_element(&DType::UInt8, Some(&FillValue::Bool(true))),
            Some(vec![1])
        );
        assert_eq!(
            fill_element(&DType::TimestampNs, Some(&FillValue::Float(1.0))),
            Some(vec![0; 8])
        );
        assert_eq!(
            fill_element(&DType::String, Some(&FillValue::String("x".into()))),
            None
        );
    }

    #[test]
    fn elements_round_trip_little_endian() {
        let values = [1.5f32, -0.0, f32::NAN];
        let bytes = encode_elements(&values);
        assert_eq!(&bytes[..4], &1.5f32.to_le_bytes());
        let back: Vec<f32> = decode_elements(&bytes).collect();
        assert_eq!(
            back.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            values.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_two_offset_modes_agree_on_good_tables_and_differ_on_bad_ones() {
        let bytes = encode_offsets([&b"ab"[..], b"", b"xyz"].into_iter());
        let items = vec![&b"ab"[..], b"", b"xyz"];
        assert_eq!(split_offsets_exact(&bytes, 3), Some(items.clone()));
        assert_eq!(split_offsets_lenient(&bytes), items);
        assert_eq!(lenient_count(&bytes), 3);
        assert_eq!(split_offsets_exact(&bytes, 2), None);
        let empties = encode_offsets([&b""[..], b""].into_iter());
        assert_eq!(lenient_count(&empties), 2);
        assert_eq!(lenient_count(&0u32.to_le_bytes()), 0);
        // Garbage: the exact mode refuses it, the lenient one yields empties.
        let garbage = [0, 0, 0, 0, 9, 9, 9, 9, 1];
        assert_eq!(split_offsets_exact(&garbage, 1), None);
        assert_eq!(split_offsets_lenient(&garbage), vec![&[0u8; 0][..]]);
        assert_eq!(split_offsets_exact(&[], u64::MAX), None);
    }
}
