//! The Rust types a writer accepts, and how their values become chunk bytes.

use std::borrow::Cow;

use crate::format::chunk::encode_elements;
use crate::format::dtype::DType;
use crate::read::TimestampNs;

/// Values on their way into a chunk: fixed-width elements as little-endian
/// bytes, variable-length ones as byte slices.
pub enum Cells<'a> {
    /// `width` bytes per element, C order.
    Fixed(Cow<'a, [u8]>),
    /// One slice per element.
    Var(Vec<&'a [u8]>),
}

impl Cells<'_> {
    /// Number of elements, given the element width of fixed-width data.
    pub(crate) fn len(&self, width: usize) -> usize {
        match self {
            Cells::Fixed(bytes) => bytes.len() / width.max(1),
            Cells::Var(items) => items.len(),
        }
    }
}

/// An element type the writer can store.
///
/// Implemented for the integers, `f32`, `f64`, [`TimestampNs`], `String`
/// (dtype `string`) and `Vec<u8>` (dtype `binary`): the types atlas-rust
/// 0.17.2 can write and read back. `bool` is left out for the same reason:
/// atlas-rust cannot read a bool array.
pub trait WriteElement: Sized {
    /// The stored element type.
    const DTYPE: DType;
    /// The values as cells.
    fn cells(values: &[Self]) -> Cells<'_>;
}

macro_rules! fixed {
    ($ty:ty, $variant:ident) => {
        impl WriteElement for $ty {
            const DTYPE: DType = DType::$variant;
            fn cells(values: &[Self]) -> Cells<'_> {
                Cells::Fixed(Cow::Owned(encode_elements(values)))
            }
        }
    };
}

fixed!(i16, Int16);
fixed!(i32, Int32);
fixed!(i64, Int64);
fixed!(u16, UInt16);
fixed!(u32, UInt32);
fixed!(u64, UInt64);
fixed!(f32, Float32);
fixed!(f64, Float64);

impl WriteElement for u8 {
    const DTYPE: DType = DType::UInt8;
    fn cells(values: &[Self]) -> Cells<'_> {
        Cells::Fixed(Cow::Borrowed(values))
    }
}

impl WriteElement for i8 {
    const DTYPE: DType = DType::Int8;
    fn cells(values: &[Self]) -> Cells<'_> {
        Cells::Fixed(Cow::Owned(values.iter().map(|&v| v as u8).collect()))
    }
}

impl WriteElement for TimestampNs {
    const DTYPE: DType = DType::TimestampNs;
    fn cells(values: &[Self]) -> Cells<'_> {
        Cells::Fixed(Cow::Owned(
            values.iter().flat_map(|v| v.0.to_le_bytes()).collect(),
        ))
    }
}

impl WriteElement for String {
    const DTYPE: DType = DType::String;
    fn cells(values: &[Self]) -> Cells<'_> {
        Cells::Var(values.iter().map(|s| s.as_bytes()).collect())
    }
}

impl WriteElement for &str {
    const DTYPE: DType = DType::String;
    fn cells(values: &[Self]) -> Cells<'_> {
        Cells::Var(values.iter().map(|s| s.as_bytes()).collect())
    }
}

impl WriteElement for Vec<u8> {
    const DTYPE: DType = DType::Binary;
    fn cells(values: &[Self]) -> Cells<'_> {
        Cells::Var(values.iter().map(Vec::as_slice).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_width_values_become_little_endian_bytes() {
        let Cells::Fixed(bytes) = i16::cells(&[1, -2]) else {
            panic!()
        };
        assert_eq!(&bytes[..], &[1, 0, 0xFE, 0xFF]);
        assert_eq!(f64::cells(&[1.0, 2.0]).len(8), 2);
        let strings = ["ab".to_string(), String::new()];
        let Cells::Var(items) = String::cells(&strings) else {
            panic!()
        };
        assert_eq!(items, vec![&b"ab"[..], &b""[..]]);
    }
}
