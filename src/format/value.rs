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
    /// Booleans (and integers, converted with `as`).
    Bool(bool),
    /// Signed integers; converted with `as` for other types.
    Int(i64),
    /// Unsigned integers; converted with `as` for other types.
    UInt(u64),
    /// Floats, NaN included; converted with `as` for other types.
    Float(f64),
    /// Strings; unwritten string cells read as empty all the same.
    String(String),
    /// Timestamps, nanoseconds since the Unix epoch.
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
    /// Signed integer bounds.
    Int(i64),
    /// Unsigned integer bounds (and bools as 0 or 1).
    UInt(u64),
    /// Float bounds, ordered by `total_cmp`.
    Float(f64),
    /// Strings and binary: raw bytes, compared lexicographically.
    Bytes(Vec<u8>),
    /// Timestamp bounds, nanoseconds since the Unix epoch.
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
    /// The least non-null value, if any.
    pub min: Option<StatValue>,
    /// The greatest non-null value, if any.
    pub max: Option<StatValue>,
    /// Elements equal to the fill value (and never-written ones).
    pub null_count: u64,
    /// Elements in the array.
    pub row_count: u64,
}

impl ArrayStats {
    /// Folds `other` in, the way atlas-rust 0.17.2 folds one dataset into a
    /// collection's statistics: counts add, each bound takes the wider of the
    /// two, and an absent bound yields to a present one.
    ///
    /// Two bounds of different variants (one name at two dtypes) do not
    /// order. atlas-rust answers "not less or equal" for such a pair, so the
    /// incoming bound takes the minimum and the standing one keeps the
    /// maximum; the result depends on the order of the fold. On a tie the
    /// minimum stays and the maximum is taken. Says which bounds `other` gave.
    pub(crate) fn merge(&mut self, other: &ArrayStats) -> BoundsTaken {
        self.null_count = self.null_count.saturating_add(other.null_count);
        self.row_count = self.row_count.saturating_add(other.row_count);
        let (min, min_taken) = wider(self.min.take(), other.min.as_ref(), true);
        let (max, max_taken) = wider(self.max.take(), other.max.as_ref(), false);
        self.min = min;
        self.max = max;
        BoundsTaken {
            min: min_taken,
            max: max_taken,
        }
    }
}

/// Which bounds a [`ArrayStats::merge`] took from the incoming statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BoundsTaken {
    pub(crate) min: bool,
    pub(crate) max: bool,
}

/// The lower (`keep_lower`) or upper of two bounds, and whether it is `other`.
fn wider(
    current: Option<StatValue>,
    other: Option<&StatValue>,
    keep_lower: bool,
) -> (Option<StatValue>, bool) {
    match (current, other) {
        (current, None) => (current, false),
        (None, Some(other)) => (Some(other.clone()), true),
        (Some(a), Some(b)) => {
            // Two variants never order: atlas-rust reads them as "a > b".
            let a_le_b = a.le(b).unwrap_or(false);
            if a_le_b == keep_lower {
                (Some(a), false)
            } else {
                (Some(b.clone()), true)
            }
        }
    }
}

/// An attribute value, typed as it was stored.
#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    /// A boolean.
    Bool(bool),
    /// An `i8`.
    Int8(i8),
    /// An `i16`.
    Int16(i16),
    /// An `i32`.
    Int32(i32),
    /// An `i64`.
    Int64(i64),
    /// A `u8`.
    UInt8(u8),
    /// A `u16`.
    UInt16(u16),
    /// A `u32`.
    UInt32(u32),
    /// A `u64`.
    UInt64(u64),
    /// An `f32`.
    Float32(f32),
    /// An `f64`.
    Float64(f64),
    /// Text.
    String(String),
    /// Bytes.
    Binary(Vec<u8>),
    /// A list of booleans.
    BoolList(Vec<bool>),
    /// A list of `i8`.
    Int8List(Vec<i8>),
    /// A list of `i16`.
    Int16List(Vec<i16>),
    /// A list of `i32`.
    Int32List(Vec<i32>),
    /// A list of `i64`.
    Int64List(Vec<i64>),
    /// A list of `u8`.
    UInt8List(Vec<u8>),
    /// A list of `u16`.
    UInt16List(Vec<u16>),
    /// A list of `u32`.
    UInt32List(Vec<u32>),
    /// A list of `u64`.
    UInt64List(Vec<u64>),
    /// A list of `f32`.
    Float32List(Vec<f32>),
    /// A list of `f64`.
    Float64List(Vec<f64>),
    /// A list of strings.
    StringList(Vec<String>),
    /// A list of byte strings.
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

    fn bounds(min: StatValue, max: StatValue) -> ArrayStats {
        ArrayStats {
            name: "t".into(),
            min: Some(min),
            max: Some(max),
            null_count: 0,
            row_count: 1,
        }
    }

    #[test]
    fn a_bound_of_another_variant_takes_the_minimum_and_never_the_maximum() {
        // atlas-rust 0.17.2: Int(-5) vs Float(0.25) does not order, so the
        // incoming bound is the minimum whatever its value, and the standing
        // maximum stays.
        let mut acc = bounds(StatValue::Int(-5), StatValue::Int(10));
        let taken = acc.merge(&bounds(StatValue::Float(0.25), StatValue::Float(99.0)));
        assert_eq!(
            taken,
            BoundsTaken {
                min: true,
                max: false
            }
        );
        assert_eq!(acc.min, Some(StatValue::Float(0.25)));
        assert_eq!(acc.max, Some(StatValue::Int(10)));
        // The same pair in the other order gives another answer.
        let mut acc = bounds(StatValue::Float(0.25), StatValue::Float(99.0));
        acc.merge(&bounds(StatValue::Int(-5), StatValue::Int(10)));
        assert_eq!(acc.min, Some(StatValue::Int(-5)));
        assert_eq!(acc.max, Some(StatValue::Float(99.0)));
        // UInt against Int, and bytes against a number, likewise.
        let mut acc = bounds(StatValue::UInt(1), StatValue::UInt(200));
        acc.merge(&bounds(StatValue::Int(-3), StatValue::Int(300)));
        assert_eq!(acc.min, Some(StatValue::Int(-3)));
        assert_eq!(acc.max, Some(StatValue::UInt(200)));
        let mut acc = bounds(
            StatValue::Bytes(b"b".to_vec()),
            StatValue::Bytes(b"z".to_vec()),
        );
        acc.merge(&bounds(StatValue::Float(5.0), StatValue::Float(6.0)));
        assert_eq!(acc.min, Some(StatValue::Float(5.0)));
        assert_eq!(acc.max, Some(StatValue::Bytes(b"z".to_vec())));
    }

    #[test]
    fn ties_keep_the_minimum_and_take_the_maximum_and_nan_orders_totally() {
        let mut acc = bounds(StatValue::Int(1), StatValue::Int(2));
        let taken = acc.merge(&bounds(StatValue::Int(1), StatValue::Int(2)));
        assert_eq!(
            taken,
            BoundsTaken {
                min: false,
                max: true
            }
        );
        // total_cmp: -NaN below -inf, NaN above +inf.
        let mut acc = bounds(StatValue::Float(f64::NEG_INFINITY), StatValue::Float(1.0));
        acc.merge(&bounds(
            StatValue::Float(-f64::NAN),
            StatValue::Float(f64::NAN),
        ));
        assert!(matches!(acc.min, Some(StatValue::Float(v)) if v.is_nan() && v.is_sign_negative()));
        assert!(matches!(acc.max, Some(StatValue::Float(v)) if v.is_nan() && v.is_sign_positive()));
        // An absent bound yields both ways.
        let mut acc = ArrayStats {
            min: None,
            max: None,
            ..bounds(StatValue::Int(0), StatValue::Int(0))
        };
        let taken = acc.merge(&bounds(StatValue::Int(4), StatValue::Int(5)));
        assert_eq!(
            taken,
            BoundsTaken {
                min: true,
                max: true
            }
        );
        let taken = acc.merge(&ArrayStats {
            min: None,
            max: None,
            ..bounds(StatValue::Int(0), StatValue::Int(0))
        });
        assert_eq!(
            taken,
            BoundsTaken {
                min: false,
                max: false
            }
        );
        assert_eq!(
            (acc.min, acc.max),
            (Some(StatValue::Int(4)), Some(StatValue::Int(5)))
        );
        assert_eq!(acc.row_count, 3);
    }

    impl ArrayStats {
        fn clone_with_rows(mut self, rows: u64) -> Self {
            self.row_count = rows;
            self
        }
    }
}
