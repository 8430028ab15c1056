//! What a read returns: a shaped array whose element type is known at run
//! time ([`NdArray`]), or at compile time ([`TypedArray`]).

use crate::error::{Error, Result};
use crate::format::chunk::{decode_elements, LeElement};
use crate::format::dtype::DType;

/// The elements of an array, in C order, one variant per element type.
#[derive(Debug, Clone, PartialEq)]
pub enum ArrayData {
    /// `bool` elements.
    Bool(Vec<bool>),
    /// `int8` elements.
    Int8(Vec<i8>),
    /// `int16` elements.
    Int16(Vec<i16>),
    /// `int32` elements.
    Int32(Vec<i32>),
    /// `int64` elements.
    Int64(Vec<i64>),
    /// `uint8` elements.
    UInt8(Vec<u8>),
    /// `uint16` elements.
    UInt16(Vec<u16>),
    /// `uint32` elements.
    UInt32(Vec<u32>),
    /// `uint64` elements.
    UInt64(Vec<u64>),
    /// `float32` elements.
    Float32(Vec<f32>),
    /// `float64` elements.
    Float64(Vec<f64>),
    /// `string` elements (invalid UTF-8 replaced, as array-format does).
    String(Vec<String>),
    /// `binary` elements.
    Binary(Vec<Vec<u8>>),
    /// Nanoseconds since the Unix epoch.
    TimestampNs(Vec<i64>),
}

impl ArrayData {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            ArrayData::Bool(v) => v.len(),
            ArrayData::Int8(v) => v.len(),
            ArrayData::Int16(v) => v.len(),
            ArrayData::Int32(v) => v.len(),
            ArrayData::Int64(v) | ArrayData::TimestampNs(v) => v.len(),
            ArrayData::UInt8(v) => v.len(),
            ArrayData::UInt16(v) => v.len(),
            ArrayData::UInt32(v) => v.len(),
            ArrayData::UInt64(v) => v.len(),
            ArrayData::Float32(v) => v.len(),
            ArrayData::Float64(v) => v.len(),
            ArrayData::String(v) => v.len(),
            ArrayData::Binary(v) => v.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Builds typed elements from little-endian bytes of a fixed-width `dtype`.
    pub fn from_le_bytes(dtype: &DType, bytes: &[u8]) -> Result<ArrayData> {
        fn each<T: LeElement>(bytes: &[u8]) -> Vec<T> {
            decode_elements(bytes).collect()
        }
        Ok(match dtype {
            DType::Bool => ArrayData::Bool(bytes.iter().map(|&b| b != 0).collect()),
            DType::Int8 => ArrayData::Int8(bytes.iter().map(|&b| b as i8).collect()),
            DType::UInt8 => ArrayData::UInt8(bytes.to_vec()),
            DType::Int16 => ArrayData::Int16(each(bytes)),
            DType::UInt16 => ArrayData::UInt16(each(bytes)),
            DType::Int32 => ArrayData::Int32(each(bytes)),
            DType::UInt32 => ArrayData::UInt32(each(bytes)),
            DType::Float32 => ArrayData::Float32(each(bytes)),
            DType::Int64 => ArrayData::Int64(each(bytes)),
            DType::UInt64 => ArrayData::UInt64(each(bytes)),
            DType::Float64 => ArrayData::Float64(each(bytes)),
            DType::TimestampNs => ArrayData::TimestampNs(each(bytes)),
            other => {
                return Err(Error::InvalidArgument(format!(
                    "{other} is not a fixed-width scalar type"
                )))
            }
        })
    }
}

/// A shaped array of run-time element type.
#[derive(Debug, Clone, PartialEq)]
pub struct NdArray {
    /// The stored element type.
    pub dtype: DType,
    /// Extent of each axis; empty for a scalar.
    pub shape: Vec<u64>,
    /// `shape.iter().product()` elements in C order.
    pub data: ArrayData,
}

impl NdArray {
    /// The typed form, when `T` is the stored type.
    pub fn into_typed<T: Element>(self) -> Result<TypedArray<T>> {
        let stored = self.dtype.name();
        match T::unwrap(self.data) {
            Some(data) => Ok(TypedArray {
                shape: self.shape,
                data,
            }),
            None => Err(Error::DTypeMismatch {
                array: String::new(),
                stored,
                requested: T::DTYPE.name(),
            }),
        }
    }
}

/// A shaped array of compile-time element type.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedArray<T> {
    /// Extent of each axis; empty for a scalar.
    pub shape: Vec<u64>,
    /// `shape.iter().product()` elements in C order.
    pub data: Vec<T>,
}

/// A Rust type that an array's elements can be read as.
pub trait Element: Sized {
    /// The stored type this Rust type reads.
    const DTYPE: DType;
    /// Takes the vector out of matching [`ArrayData`].
    fn unwrap(data: ArrayData) -> Option<Vec<Self>>;
}

macro_rules! element {
    ($ty:ty, $variant:ident) => {
        impl Element for $ty {
            const DTYPE: DType = DType::$variant;
            fn unwrap(data: ArrayData) -> Option<Vec<Self>> {
                match data {
                    ArrayData::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

element!(bool, Bool);
element!(i8, Int8);
element!(i16, Int16);
element!(i32, Int32);
element!(i64, Int64);
element!(u8, UInt8);
element!(u16, UInt16);
element!(u32, UInt32);
element!(u64, UInt64);
element!(f32, Float32);
element!(f64, Float64);
element!(String, String);
element!(Vec<u8>, Binary);

/// Nanoseconds since the Unix epoch, as a distinct Rust type so that a
/// timestamp array is never read as plain `i64` by accident.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimestampNs(pub i64);

impl Element for TimestampNs {
    const DTYPE: DType = DType::TimestampNs;
    fn unwrap(data: ArrayData) -> Option<Vec<Self>> {
        match data {
            ArrayData::TimestampNs(v) => Some(v.into_iter().map(TimestampNs).collect()),
            _ => None,
        }
    }
}
