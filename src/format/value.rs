//! Values that describe data: attributes, fill values, statistics.
//!
//! [`FillValue`], [`StatValue`] and [`ArrayStats`] are stored in segment
//! footers exactly as declared here (rkyv: field and variant order are the
//! format). [`Attr`] is the decoded attribute; its on-disk twin, which keeps
//! strings as pool indices, is `segment::DiskValue`.

use crate::format::dtype::DType;

/// The value of an unwritten element.
#[derive(Debug, Clone, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
pub enum FillValue {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    String(String),
    TimestampNs(i64),
}

/// Bit-exact, so a NaN fill equals itself.
impl PartialEq for FillValue {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Bool(a), Self::Bool(b)) => a == b,
            (Self::Int(a), Self::Int(b)) => a == b,
            (Self::UInt(a), Self::UInt(b)) => a == b,
            (Self::Float(a), Self::Float(b)) => a.to_bits() == b.to_bits(),
            (Self::String(a), Self::String(b)) => a == b,
            (Self::TimestampNs(a), Self::TimestampNs(b)) => a == b,
            _ => false,
        }
    }
}

/// A minimum or a maximum.
#[derive(Debug, Clone, PartialEq, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
pub enum StatValue {
    Int(i64),
    UInt(u64),
    Float(f64),
    /// Strings and binary: raw bytes, compared lexicographically.
    Bytes(Vec<u8>),
    TimestampNs(i64),
}

impl StatValue {
    /// `a <= b` for two bounds of one kind; bounds of two kinds never order.
    pub(crate) fn le(&self, other: &StatValue) -> Option<bool> {
        Some(match (self, other) {
            (Self::Int(a), Self::Int(b)) => a <= b,
            (Self::UInt(a), Self::UInt(b)) => a <= b,
            (Self::Float(a), Self::Float(b)) => a.total_cmp(b).is_le(),
            (Self::Bytes(a), Self::Bytes(b)) => a <= b,
            (Self::TimestampNs(a), Self::TimestampNs(b)) => a <= b,
            _ => return None,
        })
    }
}

/// What the writer recorded about one array: bounds and counts.
#[derive(Debug, Clone, PartialEq, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
pub struct ArrayStats {
    /// In a segment, the dataset; in the reader's answers, as documented there.
    pub name: String,
    pub min: Option<StatValue>,
    pub max: Option<StatValue>,
    /// Elements equal to the fill value (and never-written ones).
    pub null_count: u64,
    /// Elements in the array.
    pub row_count: u64,
}

impl ArrayStats {
    /// Folds `other` in: counts add, bounds widen, an absent bound yields.
    pub(crate) fn merge(&mut self, other: &ArrayStats) {
        self.null_count = self.null_count.saturating_add(other.null_count);
        self.row_count = self.row_count.saturating_add(other.row_count);
        self.min = wider(self.min.take(), other.min.as_ref(), true);
        self.max = wider(self.max.take(), other.max.as_ref(), false);
    }
}

fn wider(
    current: Option<StatValue>,
    other: Option<&StatValue>,
    keep_lower: bool,
) -> Option<StatValue> {
    match (current, other) {
        (None, other) => other.cloned(),
        (current, None) => current,
        (Some(a), Some(b)) => {
            let a_le_b = a.le(b).unwrap_or(true);
            if a_le_b == keep_lower {
                Some(a)
            } else {
                Some(b.clone())
            }
        }
    }
}

/// An attribute value, typed as it was stored.
#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    Bool(bool),
    Int8(i8),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    UInt8(u8),
    UInt16(u16),
    UInt32(u32),
    UInt64(u64),
    Float32(f32),
    Float64(f64),
    String(String),
    Binary(Vec<u8>),
    BoolList(Vec<bool>),
    Int8List(Vec<i8>),
    Int16List(Vec<i16>),
    Int32List(Vec<i32>),
    Int64List(Vec<i64>),
    UInt8List(Vec<u8>),
    UInt16List(Vec<u16>),
    UInt32List(Vec<u32>),
    UInt64List(Vec<u64>),
    Float32List(Vec<f32>),
    Float64List(Vec<f64>),
    StringList(Vec<String>),
    BinaryList(Vec<Vec<u8>>),
}

impl Attr {
    /// The variant's name (`Float64`, `StringList`, …), as atlas-rust spells it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Attr::Bool(_) => "Bool",
            Attr::Int8(_) => "Int8",
            Attr::Int16(_) => "Int16",
            Attr::Int32(_) => "Int32",
            Attr::Int64(_) => "Int64",
            Attr::UInt8(_) => "UInt8",
            Attr::UInt16(_) => "UInt16",
            Attr::UInt32(_) => "UInt32",
            Attr::UInt64(_) => "UInt64",
            Attr::Float32(_) => "Float32",
            Attr::Float64(_) => "Float64",
            Attr::String(_) => "String",
            Attr::Binary(_) => "Binary",
            Attr::BoolList(_) => "BoolList",
            Attr::Int8List(_) => "Int8List",
            Attr::Int16List(_) => "Int16List",
            Attr::Int32List(_) => "Int32List",
            Attr::Int64List(_) => "Int64List",
            Attr::UInt8List(_) => "UInt8List",
            Attr::UInt16List(_) => "UInt16List",
            Attr::UInt32List(_) => "UInt32List",
            Attr::UInt64List(_) => "UInt64List",
            Attr::Float32List(_) => "Float32List",
            Attr::Float64List(_) => "Float64List",
            Attr::StringList(_) => "StringList",
            Attr::BinaryList(_) => "BinaryList",
        }
    }

    /// The type the collection footer records for this value (lists are `list<T>`).
    pub fn dtype(&self) -> DType {
        let list = |child: DType| DType::List {
            child: Box::new(child),
        };
        match self {
            Attr::Bool(_) => DType::Bool,
            Attr::Int8(_) => DType::Int8,
            Attr::Int16(_) => DType::Int16,
            Attr::Int32(_) => DType::Int32,
            Attr::Int64(_) => DType::Int64,
            Attr::UInt8(_) => DType::UInt8,
            Attr::UInt16(_) => DType::UInt16,
            Attr::UInt32(_) => DType::UInt32,
            Attr::UInt64(_) => DType::UInt64,
            Attr::Float32(_) => DType::Float32,
            Attr::Float64(_) => DType::Float64,
            Attr::String(_) => DType::String,
            Attr::Binary(_) => DType::Binary,
            Attr::BoolList(_) => list(DType::Bool),
            Attr::Int8List(_) => list(DType::Int8),
            Attr::Int16List(_) => list(DType::Int16),
            Attr::Int32List(_) => list(DType::Int32),
            Attr::Int64List(_) => list(DType::Int64),
            Attr::UInt8List(_) => list(DType::UInt8),
            Attr::UInt16List(_) => list(DType::UInt16),
            Attr::UInt32List(_) => list(DType::UInt32),
            Attr::UInt64List(_) => list(DType::UInt64),
            Attr::Float32List(_) => list(DType::Float32),
            Attr::Float64List(_) => list(DType::Float64),
            Attr::StringList(_) => list(DType::String),
            Attr::BinaryList(_) => list(DType::Binary),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(min: f64, max: f64, nulls: u64) -> ArrayStats {
        ArrayStats {
            name: "t".into(),
            min: Some(StatValue::Float(min)),
            max: Some(StatValue::Float(max)),
            null_count: nulls,
            row_count: 10,
        }
    }

    #[test]
    fn merging_adds_counts_and_widens_bounds() {
        let mut a = stats(1.0, 5.0, 1);
        a.merge(&stats(-2.0, 3.0, 2));
        assert_eq!(
            a,
            ArrayStats {
                name: "t".into(),
                ..stats(-2.0, 5.0, 3)
            }
            .clone_with_rows(20)
        );
        let mut none = ArrayStats {
            min: None,
            max: None,
            ..stats(0.0, 0.0, 0)
        };
        none.merge(&stats(4.0, 4.0, 0));
        assert_eq!(none.min, Some(StatValue::Float(4.0)));
    }

    impl ArrayStats {
        fn clone_with_rows(mut self, rows: u64) -> Self {
            self.row_count = rows;
            self
        }
    }
}
