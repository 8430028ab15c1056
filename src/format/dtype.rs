//! Element types.
//!
//! One enum serves both places a type is written: the segment footer (rkyv,
//! variant order is the tag) and the collection footer (msgpack, serde's
//! snake_case names such as `u_int8` and `timestamp_nanoseconds`). The
//! variant order and the names are therefore part of the format.

pub use def::DType;

/// How many `list<…>` / `fixed_size_list<…>` a dtype may nest, in either
/// footer. Both decoders recurse per level, so the limit is what keeps a
/// forged file from running the stack out (wasm's is 1 MiB, with no guard
/// page); no real collection comes near it.
pub const MAX_DTYPE_NESTING: usize = 16;

// rkyv derives per-variant structs for `FixedSizeList` and `List` whose
// fields it leaves undocumented; the lint cannot reach them otherwise.
#[allow(missing_docs)]
mod def {
    /// The element type of an array, or the value type of an attribute.
    #[derive(
        Debug, Clone, PartialEq, Eq, Hash, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize,
    )]
    #[cfg_attr(any(feature = "writer", test), derive(serde::Serialize))]
    #[rkyv(serialize_bounds(
        __S: rkyv::ser::Writer + rkyv::ser::Allocator,
        __S::Error: rkyv::rancor::Source,
    ))]
    #[rkyv(deserialize_bounds(__D::Error: rkyv::rancor::Source))]
    #[rkyv(bytecheck(bounds(
        __C: rkyv::validation::ArchiveContext,
        <__C as rkyv::rancor::Fallible>::Error: rkyv::rancor::Source,
    )))]
    #[cfg_attr(any(feature = "writer", test), serde(rename_all = "snake_case"))]
    pub enum DType {
        /// One byte, 0 or 1.
        Bool,
        /// Signed 8-bit integer.
        Int8,
        /// Signed 16-bit integer.
        Int16,
        /// Signed 32-bit integer.
        Int32,
        /// Signed 64-bit integer.
        Int64,
        /// Unsigned 8-bit integer.
        UInt8,
        /// Unsigned 16-bit integer.
        UInt16,
        /// Unsigned 32-bit integer.
        UInt32,
        /// Unsigned 64-bit integer.
        UInt64,
        /// IEEE 754 single precision.
        Float32,
        /// IEEE 754 double precision.
        Float64,
        /// UTF-8 text of any length (an offset table in chunks).
        String,
        /// Bytes of any length (an offset table in chunks).
        Binary,
        /// `size` elements of `child` per element.
        FixedSizeList {
            /// The element type of each item.
            #[rkyv(omit_bounds)]
            child: Box<DType>,
            /// Elements per list.
            size: u32,
        },
        /// Any number of elements of `child` per element.
        List {
            /// The element type of each item.
            #[rkyv(omit_bounds)]
            child: Box<DType>,
        },
        /// Nanoseconds since the Unix epoch, as `i64`.
        #[cfg_attr(any(feature = "writer", test), serde(rename = "timestamp_nanoseconds"))]
        TimestampNs,
    }
}

impl DType {
    /// Bytes per element for fixed-width types; `None` for variable-length ones.
    pub fn element_size(&self) -> Option<usize> {
        match self {
            DType::Bool | DType::Int8 | DType::UInt8 => Some(1),
            DType::Int16 | DType::UInt16 => Some(2),
            DType::Int32 | DType::UInt32 | DType::Float32 => Some(4),
            DType::Int64 | DType::UInt64 | DType::Float64 | DType::TimestampNs => Some(8),
            DType::FixedSizeList { child, size } => child
                .element_size()
                .and_then(|c| c.checked_mul(*size as usize)),
            DType::String | DType::Binary | DType::List { .. } => None,
        }
    }

    /// The name people see, as atlas-python prints it: `float32`, `uint16`,
    /// `timestamp_ns`, `string`, `list<int32>`.
    pub fn name(&self) -> String {
        let simple = match self {
            DType::Bool => "bool",
            DType::Int8 => "int8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::UInt8 => "uint8",
            DType::UInt16 => "uint16",
            DType::UInt32 => "uint32",
            DType::UInt64 => "uint64",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::String => "string",
            DType::Binary => "binary",
            DType::TimestampNs => "timestamp_ns",
            DType::FixedSizeList { child, size } => {
                return format!("fixed_size_list<{},{size}>", child.name())
            }
            DType::List { child } => return format!("list<{}>", child.name()),
        };
        simple.to_string()
    }

    /// Parses a name made by [`name`](Self::name) (simple types only).
    pub fn from_name(name: &str) -> Option<DType> {
        Some(match name {
            "bool" => DType::Bool,
            "int8" => DType::Int8,
            "int16" => DType::Int16,
            "int32" => DType::Int32,
            "int64" => DType::Int64,
            "uint8" => DType::UInt8,
            "uint16" => DType::UInt16,
            "uint32" => DType::UInt32,
            "uint64" => DType::UInt64,
            "float32" => DType::Float32,
            "float64" => DType::Float64,
            "string" => DType::String,
            "binary" => DType::Binary,
            "timestamp_ns" => DType::TimestampNs,
            _ => return None,
        })
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_follow_serde_snake_case() {
        let pool = vec![DType::UInt8, DType::TimestampNs, DType::Float32];
        let packed = rmp_serde::to_vec(&pool).unwrap();
        let text = String::from_utf8_lossy(&packed);
        assert!(text.contains("u_int8") && text.contains("timestamp_nanoseconds"));
    }

    #[test]
    fn people_see_atlas_python_names() {
        assert_eq!(DType::UInt16.name(), "uint16");
        assert_eq!(DType::from_name("timestamp_ns"), Some(DType::TimestampNs));
        assert_eq!(
            DType::List {
                child: Box::new(DType::Int32)
            }
            .name(),
            "list<int32>"
        );
    }
}
