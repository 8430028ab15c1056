//! The footer (`FileMetaData`) and page headers, picked out of the thrift
//! tree by field id (parquet.thrift's numbering).

use crate::atria::error::{Error, Result};
use crate::format::budget::Budget;

use super::thrift::{decode_struct, Thrift};

/// A column's physical type (parquet.thrift `Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Physical {
    Boolean,
    Int32,
    Int64,
    Int96,
    Float,
    Double,
    ByteArray,
    FixedLenByteArray,
}

impl Physical {
    fn from_code(code: i64) -> Result<Physical> {
        Ok(match code {
            0 => Physical::Boolean,
            1 => Physical::Int32,
            2 => Physical::Int64,
            3 => Physical::Int96,
            4 => Physical::Float,
            5 => Physical::Double,
            6 => Physical::ByteArray,
            7 => Physical::FixedLenByteArray,
            other => return Err(corrupt(format!("physical type {other}"))),
        })
    }
}

/// `FieldRepetitionType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Repetition {
    Required,
    Optional,
    Repeated,
}

/// One `SchemaElement`, as stored (a depth-first list; `schema.rs` makes the tree).
#[derive(Debug, Clone)]
pub(crate) struct SchemaElement {
    pub name: String,
    pub physical: Option<Physical>,
    pub type_length: i64,
    pub repetition: Repetition,
    pub num_children: i64,
    pub converted: Option<i64>,
    pub scale: i64,
    pub precision: i64,
    pub logical: Option<Logical>,
}

/// The logical types this reader tells apart (`LogicalType` union).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Logical {
    String,
    Map,
    List,
    Enum,
    Decimal {
        scale: i64,
        precision: i64,
    },
    Date,
    Time {
        unit: &'static str,
    },
    Timestamp {
        unit: &'static str,
        utc: bool,
    },
    Integer {
        bits: i64,
        signed: bool,
    },
    Json,
    Bson,
    Uuid,
    Float16,
    /// Anything newer (variant, geometry…): the physical type decides.
    Other,
}

/// A column chunk's place and coding (`ColumnMetaData`).
#[derive(Debug, Clone)]
pub(crate) struct ChunkMeta {
    pub codec: i64,
    pub num_values: i64,
    pub start: u64,
    pub length: u64,
}

#[derive(Debug, Clone)]
pub(crate) struct RowGroupMeta {
    pub num_rows: u64,
    pub chunks: Vec<ChunkMeta>,
}

#[derive(Debug, Clone)]
pub(crate) struct FileMeta {
    pub num_rows: u64,
    pub schema: Vec<SchemaElement>,
    pub row_groups: Vec<RowGroupMeta>,
}

pub(crate) fn corrupt(why: String) -> Error {
    Error::Corrupt(format!("parquet metadata: {why}"))
}

fn unsupported(why: String) -> Error {
    Error::UnsupportedProtocol(format!("parquet: {why}"))
}

fn non_negative(value: Option<i64>, what: &str) -> Result<u64> {
    match value {
        Some(v) if v >= 0 => Ok(v as u64),
        Some(v) => Err(corrupt(format!("{what} is {v}"))),
        None => Err(corrupt(format!("{what} is missing"))),
    }
}

/// Decodes the footer; `data_end` is where the metadata starts (chunks must
/// end before it).
pub(crate) fn file_meta(bytes: &[u8], data_end: u64, budget: &mut Budget) -> Result<FileMeta> {
    let (root, _) = decode_struct(bytes, budget, "the parquet footer")?;
    if root.field(8).is_some() {
        return Err(unsupported(
            "the file is encrypted (an encryption algorithm in a plaintext footer); encrypted files are not read".into(),
        ));
    }
    let schema = root
        .list(2)
        .ok_or_else(|| corrupt("no schema".into()))?
        .iter()
        .map(schema_element)
        .collect::<Result<Vec<_>>>()?;
    let num_rows = non_negative(root.int(3), "num_rows")?;
    let row_groups = root
        .list(4)
        .unwrap_or(&[])
        .iter()
        .map(|g| row_group(g, data_end))
        .collect::<Result<Vec<_>>>()?;
    let sum = row_groups
        .iter()
        .try_fold(0u64, |acc, g| acc.checked_add(g.num_rows));
    if sum != Some(num_rows) {
        return Err(corrupt(format!(
            "num_rows is {num_rows}, the row groups add up to {sum:?}"
        )));
    }
    Ok(FileMeta {
        num_rows,
        schema,
        row_groups,
    })
}

fn schema_element(t: &Thrift<'_>) -> Result<SchemaElement> {
    let name = t
        .binary(4)
        .ok_or_else(|| corrupt("a schema element without a name".into()))?;
    let name = String::from_utf8(name.to_vec())
        .map_err(|_| corrupt("a schema name that is not UTF-8".into()))?;
    let repetition = match t.int(3) {
        None | Some(0) => Repetition::Required,
        Some(1) => Repetition::Optional,
        Some(2) => Repetition::Repeated,
        Some(other) => return Err(corrupt(format!("repetition {other} of '{name}'"))),
    };
    Ok(SchemaElement {
        physical: t.int(1).map(Physical::from_code).transpose()?,
        type_length: t.int(2).unwrap_or(0),
        repetition,
        num_children: t.int(5).unwrap_or(0),
        converted: t.int(6),
        scale: t.int(7).unwrap_or(0),
        precision: t.int(8).unwrap_or(0),
        logical: t.field(10).map(logical),
        name,
    })
}

fn time_unit(t: Option<&Thrift<'_>>) -> &'static str {
    match t.and_then(|u| u.union_member()).map(|(id, _)| id) {
        Some(1) => "ms",
        Some(2) => "us",
        Some(3) => "ns",
        _ => "unknown",
    }
}

fn logical(t: &Thrift<'_>) -> Logical {
    let Some((id, inner)) = t.union_member() else {
        return Logical::Other;
    };
    match id {
        1 => Logical::String,
        2 => Logical::Map,
        3 => Logical::List,
        4 => Logical::Enum,
        5 => Logical::Decimal {
            scale: inner.int(1).unwrap_or(0),
            precision: inner.int(2).unwrap_or(0),
        },
        6 => Logical::Date,
        7 => Logical::Time {
            unit: time_unit(inner.field(2)),
        },
        8 => Logical::Timestamp {
            unit: time_unit(inner.field(2)),
            utc: inner.bool(1).unwrap_or(false),
        },
        10 => Logical::Integer {
            bits: inner.int(1).unwrap_or(64),
            signed: inner.bool(2).unwrap_or(true),
        },
        12 => Logical::Json,
        13 => Logical::Bson,
        14 => Logical::Uuid,
        15 => Logical::Float16,
        _ => Logical::Other,
    }
}

fn row_group(t: &Thrift<'_>, data_end: u64) -> Result<RowGroupMeta> {
    let num_rows = non_negative(t.int(3), "a row group's num_rows")?;
    let chunks = t
        .list(1)
        .ok_or_else(|| corrupt("a row group without columns".into()))?
        .iter()
        .map(|c| chunk(c, data_end))
        .collect::<Result<Vec<_>>>()?;
    Ok(RowGroupMeta { num_rows, chunks })
}

fn chunk(t: &Thrift<'_>, data_end: u64) -> Result<ChunkMeta> {
    if t.field(8).is_some() || t.field(9).is_some() {
        return Err(unsupported("a column chunk is encrypted".into()));
    }
    if t.binary(1).is_some() {
        return Err(unsupported(
            "a column chunk lives in another file (file_path); only single-file parquet is read"
                .into(),
        ));
    }
    let m = t
        .field(3)
        .ok_or_else(|| corrupt("a column chunk without metadata".into()))?;
    let data_page = non_negative(m.int(9), "data_page_offset")?;
    let start = match m.int(11) {
        Some(dict) if dict > 0 && (dict as u64) < data_page => dict as u64,
        _ => data_page,
    };
    let length = non_negative(m.int(7), "total_compressed_size")?;
    if start.checked_add(length).is_none_or(|end| end > data_end) {
        return Err(corrupt(format!(
            "a column chunk at {start} of {length} bytes reaches past the data ({data_end} bytes)"
        )));
    }
    Ok(ChunkMeta {
        codec: m.int(4).unwrap_or(0),
        num_values: m.int(5).unwrap_or(0),
        start,
        length,
    })
}

/// The RLE/bit-packed hybrid encoding, as levels are written today.
pub(crate) const RLE: i64 = 3;
/// The deprecated encoding of levels that parquet-mr still names for columns
/// that have none (Spark, Hive, Delta checkpoints).
pub(crate) const BIT_PACKED: i64 = 4;

/// A page header (`PageHeader`) and what it says about its body.
#[derive(Debug, Clone)]
pub(crate) struct PageHeader {
    pub kind: PageKind,
    pub uncompressed: usize,
    pub compressed: usize,
}

#[derive(Debug, Clone)]
pub(crate) enum PageKind {
    Dictionary {
        num_values: usize,
        encoding: i64,
    },
    DataV1 {
        num_values: usize,
        encoding: i64,
        /// How the definition and repetition levels are encoded: [`RLE`] or
        /// [`BIT_PACKED`].
        def_encoding: i64,
        rep_encoding: i64,
    },
    DataV2 {
        num_values: usize,
        encoding: i64,
        def_bytes: usize,
        rep_bytes: usize,
        compressed: bool,
    },
    /// Index pages and kinds added later: skipped.
    Other,
}

fn size(value: Option<i64>, what: &str) -> Result<usize> {
    non_negative(value, what).and_then(|v| {
        usize::try_from(v).map_err(|_| corrupt(format!("{what} of {v} does not fit memory")))
    })
}

/// Decodes a page header at the front of `bytes`; returns it and its length.
pub(crate) fn page_header(bytes: &[u8], budget: &mut Budget) -> Result<(PageHeader, usize)> {
    let (t, used) = decode_struct(bytes, budget, "a page header")?;
    let kind = match t.int(1) {
        Some(2) => {
            let h = t
                .field(7)
                .ok_or_else(|| corrupt("a dictionary page without its header".into()))?;
            PageKind::Dictionary {
                num_values: size(h.int(1), "a dictionary's num_values")?,
                encoding: h.int(2).unwrap_or(0),
            }
        }
        Some(0) => {
            let h = t
                .field(5)
                .ok_or_else(|| corrupt("a data page without its header".into()))?;
            PageKind::DataV1 {
                num_values: size(h.int(1), "a page's num_values")?,
                encoding: h.int(2).unwrap_or(0),
                def_encoding: h.int(3).unwrap_or(RLE),
                rep_encoding: h.int(4).unwrap_or(RLE),
            }
        }
        Some(3) => {
            let h = t
                .field(8)
                .ok_or_else(|| corrupt("a v2 data page without its header".into()))?;
            PageKind::DataV2 {
                num_values: size(h.int(1), "a page's num_values")?,
                encoding: h.int(4).unwrap_or(0),
                def_bytes: size(h.int(5), "definition_levels_byte_length")?,
                rep_bytes: size(h.int(6), "repetition_levels_byte_length")?,
                compressed: h.bool(7).unwrap_or(true),
            }
        }
        Some(_) => PageKind::Other,
        None => return Err(corrupt("a page header without a type".into())),
    };
    Ok((
        PageHeader {
            kind,
            uncompressed: size(t.int(2), "uncompressed_page_size")?,
            compressed: size(t.int(3), "compressed_page_size")?,
        },
        used,
    ))
}
