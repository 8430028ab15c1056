//! The collection footer: zstd of msgpack in compact (positional) form.
//!
//! ```text
//! [version, codec, created_unix_ms, string_pool, dtype_pool, schema_pool, variables, datasets]
//! ```
//!
//! Field order is the format. `datasets` is a sequence of `[name, schema]`
//! pairs whose position is the dataset's ordinal; a repeated name is
//! corruption, because a lookup by name could never reach the second one.

use crate::error::{Error, Result};
use crate::format::budget::{over_budget, Budget};
use crate::format::catalogue::{CatalogueBuilder, DatasetCatalogue, BYTES_PER_DATASET};
use crate::format::container::FORMAT_VERSION;
use crate::format::dtype::DType;
use crate::format::msgpack::Reader;

/// The reserved variable whose segment carries dataset-level attributes.
pub const DATASET_ATTRS_VARIABLE: &str = "_datasets";

/// The compression the writer chose (informational: blocks name their own).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(any(feature = "writer", test), derive(serde::Serialize))]
pub enum Codec {
    /// Zstandard (what atlas-python and atlas-rust write by default).
    #[default]
    Zstd,
    /// LZ4 block format with a size prefix.
    Lz4,
    /// Blocks stored as they are.
    Uncompressed,
}

impl Codec {
    /// Lower-case name: `zstd`, `lz4`, `none`.
    pub fn name(&self) -> &'static str {
        match self {
            Codec::Zstd => "zstd",
            Codec::Lz4 => "lz4",
            Codec::Uncompressed => "none",
        }
    }
}

/// What a kind of dataset declares: array names and types, attribute keys and types.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[cfg_attr(any(feature = "writer", test), derive(serde::Serialize))]
pub struct InternedSchema {
    /// `(name, dtype)` indices into the string and dtype pools.
    pub arrays: Vec<(u32, u32)>,
    /// Dataset-level `(key, dtype)`.
    pub attrs: Vec<(u32, u32)>,
    /// `(array position, [(key, dtype)])`.
    pub array_attrs: Vec<(u32, Vec<(u32, u32)>)>,
}

/// Where one variable's segment lies in the container.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(any(feature = "writer", test), derive(serde::Serialize))]
pub struct VariableEntry {
    /// The variable's name, an index into the string pool.
    pub name: u32,
    /// Where the segment starts in `data.atlas`.
    pub seg_offset: u64,
    /// The segment's length in bytes.
    pub seg_len: u64,
}

/// The footer as `read_wire` decodes it.
struct WireFooter {
    version: u32,
    codec: Codec,
    created_unix_ms: i64,
    string_pool: Vec<String>,
    dtype_pool: Vec<DType>,
    schema_pool: Vec<InternedSchema>,
    variables: Vec<VariableEntry>,
    datasets: DatasetCatalogue,
}

/// The footer as it travels: serde's positional msgpack of this struct (the
/// writer's encoding, borrowed from the footer) is what `read_wire` decodes;
/// the datasets go as a list of `[name, schema]` pairs.
#[cfg(any(feature = "writer", test))]
#[derive(serde::Serialize)]
struct WireOut<'a> {
    version: u32,
    codec: Codec,
    created_unix_ms: i64,
    string_pool: &'a [String],
    dtype_pool: &'a [DType],
    schema_pool: &'a [InternedSchema],
    variables: &'a [VariableEntry],
    #[serde(serialize_with = "as_pairs")]
    datasets: &'a DatasetCatalogue,
}

#[cfg(any(feature = "writer", test))]
fn as_pairs<S: serde::Serializer>(
    datasets: &&DatasetCatalogue,
    out: S,
) -> std::result::Result<S::Ok, S::Error> {
    out.collect_seq(datasets.iter())
}

/// The decoded, validated footer.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectionFooter {
    /// The container version (8).
    pub version: u32,
    /// The codec the writer chose.
    pub codec: Codec,
    /// When the collection was written, in ms since the Unix epoch.
    pub created_unix_ms: i64,
    /// Names and keys, each stored once.
    pub string_pool: Vec<String>,
    /// Element types, each stored once.
    pub dtype_pool: Vec<DType>,
    /// Distinct schemas; datasets name one by index.
    pub schema_pool: Vec<InternedSchema>,
    /// One segment per variable.
    pub variables: Vec<VariableEntry>,
    /// Names and schema indices in ordinal order, indexed by name.
    pub datasets: DatasetCatalogue,
}

impl CollectionFooter {
    /// Decompresses, decodes and validates footer bytes from a container of
    /// `container_size` bytes (segments must lie inside it). The inflated
    /// bytes and everything decoded from them are held to `budget` bytes.
    pub fn decode(bytes: &[u8], container_size: u64, budget: u64) -> Result<Self> {
        let limit = usize::try_from(budget.min(MAX_FOOTER_BYTES as u64)).unwrap_or(usize::MAX);
        let packed = crate::format::codec::zstd_decompress(bytes, limit).map_err(|e| match e {
            Error::TooLarge(_) => {
                over_budget("the collection footer, inflated,", limit as u64 + 1, budget)
            }
            e => Error::corrupt_collection(format!("the footer is not valid zstd: {e}")),
        })?;
        let mut charged = Budget::new(budget);
        charged.charge(packed.len() as u64, "the inflated collection footer")?;
        let wire = read_wire(&packed, charged)?;
        drop(packed);
        let footer = CollectionFooter {
            version: wire.version,
            codec: wire.codec,
            created_unix_ms: wire.created_unix_ms,
            string_pool: wire.string_pool,
            dtype_pool: wire.dtype_pool,
            schema_pool: wire.schema_pool,
            variables: wire.variables,
            datasets: wire.datasets,
        };
        footer.validate(container_size)?;
        Ok(footer)
    }

    /// Encodes to msgpack (the writer compresses it).
    #[cfg(any(feature = "writer", test))]
    pub fn to_msgpack(&self) -> Result<Vec<u8>> {
        let wire = WireOut {
            version: self.version,
            codec: self.codec,
            created_unix_ms: self.created_unix_ms,
            string_pool: &self.string_pool,
            dtype_pool: &self.dtype_pool,
            schema_pool: &self.schema_pool,
            variables: &self.variables,
            datasets: &self.datasets,
        };
        rmp_serde::to_vec(&wire)
            .map_err(|e| Error::InvalidArgument(format!("footer does not encode: {e}")))
    }

    /// A pooled string.
    pub fn string(&self, index: u32) -> &str {
        // `validate` proved every index in use resolves.
        self.string_pool
            .get(index as usize)
            .map_or("", String::as_str)
    }

    /// A pooled dtype.
    pub fn dtype(&self, index: u32) -> &DType {
        &self.dtype_pool[index as usize]
    }

    fn validate(&self, container_size: u64) -> Result<()> {
        if self.version != FORMAT_VERSION {
            return Err(Error::UnsupportedVersion {
                found: self.version,
                expected: FORMAT_VERSION,
            });
        }
        let strings = self.string_pool.len();
        let dtypes = self.dtype_pool.len();
        let string_ok = |i: u32, what: &str| -> Result<()> {
            if (i as usize) < strings {
                Ok(())
            } else {
                Err(Error::corrupt_collection(format!(
                    "{what} names string {i} of a pool of {strings}"
                )))
            }
        };
        let dtype_ok = |i: u32, what: &str| -> Result<()> {
            if (i as usize) < dtypes {
                Ok(())
            } else {
                Err(Error::corrupt_collection(format!(
                    "{what} names dtype {i} of a pool of {dtypes}"
                )))
            }
        };
        let mut segment_of = std::collections::HashSet::with_capacity(self.variables.len());
        let data_end = container_size.saturating_sub(crate::format::container::TRAILER_SIZE);
        for v in &self.variables {
            string_ok(v.name, "a variable")?;
            if !segment_of.insert(v.name) {
                return Err(Error::corrupt_collection(format!(
                    "variable '{}' has two segments",
                    self.string(v.name)
                )));
            }
            let end = v.seg_offset.checked_add(v.seg_len);
            if v.seg_len == 0
                || v.seg_offset < crate::format::container::HEADER_SIZE
                || end.is_none_or(|end| end > data_end)
            {
                return Err(Error::corrupt_collection(format!(
                    "the segment of '{}' ({} bytes at {}) is empty or outside the container of {container_size} bytes",
                    self.string(v.name),
                    v.seg_len,
                    v.seg_offset
                )));
            }
        }
        for (i, schema) in self.schema_pool.iter().enumerate() {
            let what = format!("schema {i}");
            for &(name, dtype) in &schema.arrays {
                string_ok(name, &what)?;
                dtype_ok(dtype, &what)?;
                if !segment_of.contains(&name) {
                    return Err(Error::corrupt_collection(format!(
                        "schema {i} declares array '{}' but no segment holds it",
                        self.string(name)
                    )));
                }
            }
            for &(key, dtype) in schema
                .attrs
                .iter()
                .chain(schema.array_attrs.iter().flat_map(|(_, k)| k))
            {
                string_ok(key, &what)?;
                dtype_ok(dtype, &what)?;
            }
            for (position, _) in &schema.array_attrs {
                if *position as usize >= schema.arrays.len() {
                    return Err(Error::corrupt_collection(format!(
                        "schema {i} annotates array {position} of {}",
                        schema.arrays.len()
                    )));
                }
            }
        }
        for (name, schema) in self.datasets.iter() {
            if schema as usize >= self.schema_pool.len() {
                return Err(Error::corrupt_collection(format!(
                    "dataset '{name}' names schema {schema} of {}",
                    self.schema_pool.len()
                )));
            }
        }
        Ok(())
    }
}

fn read_wire(bytes: &[u8], budget: Budget) -> Result<WireFooter> {
    let r = &mut Reader::with_budget(bytes, budget);
    r.array_of(8)?;
    let wire = WireFooter {
        version: r.u32()?,
        codec: match r.str()? {
            "Zstd" => Codec::Zstd,
            "Lz4" => Codec::Lz4,
            "Uncompressed" => Codec::Uncompressed,
            other => return Err(r.error(&format!("unknown codec '{other}'"))),
        },
        created_unix_ms: r.i64()?,
        string_pool: r.vec(Reader::string)?,
        dtype_pool: r.vec(|r| read_dtype(r, 0))?,
        schema_pool: r.vec(|r| {
            r.array_of(3)?;
            Ok(InternedSchema {
                arrays: r.vec(Reader::pair)?,
                attrs: r.vec(Reader::pair)?,
                array_attrs: r.vec(|r| {
                    r.array_of(2)?;
                    Ok((r.u32()?, r.vec(Reader::pair)?))
                })?,
            })
        })?,
        variables: r.vec(|r| {
            r.array_of(3)?;
            Ok(VariableEntry {
                name: r.u32()?,
                seg_offset: r.u64()?,
                seg_len: r.u64()?,
            })
        })?,
        datasets: read_datasets(r)?,
    };
    if !r.is_done() {
        return Err(r.error("bytes after the footer"));
    }
    Ok(wire)
}

/// The datasets, read straight into the catalogue: each name copied once
/// into its buffer, then indexed in one build. Its room is charged to the
/// budget before it is reserved, and bounded by the bytes that remain.
fn read_datasets(r: &mut Reader) -> Result<DatasetCatalogue> {
    let n = r.array_len()?;
    // Each entry takes at least 3 bytes besides its name ([name, schema]
    // with a fixstr and a fixint), so neither the count nor the names can
    // reserve more than the bytes back.
    let n_room = n.min(r.remaining() / 3);
    let name_room = r.remaining().saturating_sub(3 * n);
    r.charge_items(n, BYTES_PER_DATASET, "the dataset index")?;
    r.charge_items(name_room, 1, "the dataset names")?;
    let mut datasets = CatalogueBuilder::with_capacity(n_room, name_room);
    for _ in 0..n {
        r.array_of(2)?;
        let name = r.str()?;
        let schema = r.u32()?;
        datasets.push(name, schema)?;
    }
    datasets.finish()
}

/// A unit variant is its snake_case name; a struct variant is a one-entry
/// map from its name to its fields.
fn read_dtype(r: &mut Reader, depth: u32) -> Result<DType> {
    if depth as usize > crate::format::dtype::MAX_DTYPE_NESTING {
        return Err(r.error("list types nested too deep"));
    }
    if matches!(r.peek(), Some(0x80..=0x8f | 0xde | 0xdf)) {
        if r.map_len()? != 1 {
            return Err(r.error("a dtype map with other than one entry"));
        }
        return match r.str()? {
            "fixed_size_list" => {
                r.array_of(2)?;
                let child = Box::new(read_dtype(r, depth + 1)?);
                Ok(DType::FixedSizeList {
                    child,
                    size: r.u32()?,
                })
            }
            "list" => {
                r.array_of(1)?;
                Ok(DType::List {
                    child: Box::new(read_dtype(r, depth + 1)?),
                })
            }
            other => Err(r.error(&format!("unknown dtype '{other}'"))),
        };
    }
    let name = r.str()?;
    Ok(match name {
        "bool" => DType::Bool,
        "int8" => DType::Int8,
        "int16" => DType::Int16,
        "int32" => DType::Int32,
        "int64" => DType::Int64,
        "u_int8" => DType::UInt8,
        "u_int16" => DType::UInt16,
        "u_int32" => DType::UInt32,
        "u_int64" => DType::UInt64,
        "float32" => DType::Float32,
        "float64" => DType::Float64,
        "string" => DType::String,
        "binary" => DType::Binary,
        "timestamp_nanoseconds" => DType::TimestampNs,
        other => return Err(r.error(&format!("unknown dtype '{other}'"))),
    })
}

/// A decompressed footer larger than this is refused: a million datasets
/// take well under 100 MiB, and the bound keeps a forged frame from
/// claiming the whole address space.
pub const MAX_FOOTER_BYTES: usize = 512 * 1024 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datasets_travel_as_a_sequence_and_repeats_are_corrupt() {
        // The wire footer's fields in order, with a name twice.
        let packed = wire_with(&[("a", 0), ("a", 0)]);
        let zst = crate::format::codec::tests::zstd_frame_of(&packed);
        let err = CollectionFooter::decode(&zst, 1000, 1 << 20).unwrap_err();
        assert!(err.to_string().contains("appears twice"), "{err}");
    }

    /// A wire footer's msgpack with these datasets and nothing else.
    fn wire_with(datasets: &[(&str, u32)]) -> Vec<u8> {
        let wire = (
            8u32,
            Codec::Zstd,
            1i64,
            Vec::<String>::new(),
            Vec::<DType>::new(),
            vec![InternedSchema::default()],
            Vec::<VariableEntry>::new(),
            datasets,
        );
        rmp_serde::to_vec(&wire).unwrap()
    }

    #[test]
    fn a_dataset_name_that_is_not_utf8_is_corrupt() {
        let mut packed = wire_with(&[("ok", 0), ("XY", 0)]);
        let at = packed
            .windows(3)
            .position(|w| w == [0xa2, b'X', b'Y'])
            .unwrap();
        packed[at + 1..at + 3].copy_from_slice(&[0xff, 0xfe]);
        let err = read_wire(&packed, Budget::new(1 << 20)).err().unwrap();
        assert_eq!(err.code(), "CorruptCollection");
        assert!(err.to_string().contains("not UTF-8"), "{err}");
    }

    #[test]
    fn a_dataset_count_is_refused_before_it_reserves() {
        // Four billion datasets claimed in the last bytes of the footer.
        let mut packed = wire_with(&[]);
        assert_eq!(packed.pop(), Some(0x90), "the empty list ends the footer");
        packed.extend_from_slice(&[0xdd, 0xff, 0xff, 0xff, 0xff]);
        let err = read_wire(&packed, Budget::new(u64::MAX)).err().unwrap();
        assert_eq!(err.code(), "CorruptCollection");
        assert!(
            err.to_string().contains("4294967295 items claimed"),
            "{err}"
        );
        // An honest count is charged (index and names) before reserving.
        let names: Vec<String> = (0..1000).map(|i| format!("d{i:04}")).collect();
        let pairs: Vec<(&str, u32)> = names.iter().map(|n| (n.as_str(), 0)).collect();
        let packed = wire_with(&pairs);
        let need = (1000 * BYTES_PER_DATASET) as u64;
        let err = read_wire(&packed, Budget::new(need)).err().unwrap();
        assert_eq!(err.code(), "TooLarge");
        assert!(err.to_string().contains("the dataset"), "{err}");
        let wire = read_wire(&packed, Budget::new(need + packed.len() as u64)).unwrap();
        assert_eq!(wire.datasets.ordinal_of("d0999"), Some(999));
    }

    #[test]
    fn the_reader_decodes_what_serde_encodes() {
        let list = |child| DType::List {
            child: Box::new(child),
        };
        let footer = CollectionFooter {
            version: 8,
            codec: Codec::Lz4,
            created_unix_ms: -5,
            string_pool: vec!["t".into(), "units".into()],
            dtype_pool: vec![
                DType::Bool,
                DType::Int8,
                DType::Int16,
                DType::Int32,
                DType::Int64,
                DType::UInt8,
                DType::UInt16,
                DType::UInt32,
                DType::UInt64,
                DType::Float32,
                DType::Float64,
                DType::String,
                DType::Binary,
                DType::TimestampNs,
                list(DType::Float64),
                DType::FixedSizeList {
                    child: Box::new(list(DType::UInt8)),
                    size: 3,
                },
            ],
            schema_pool: vec![InternedSchema {
                arrays: vec![(0, 9)],
                attrs: vec![(1, 11)],
                array_attrs: vec![(0, vec![(1, 14)])],
            }],
            variables: vec![VariableEntry {
                name: 0,
                seg_offset: 8,
                seg_len: u32::MAX as u64 + 7,
            }],
            datasets: DatasetCatalogue::from_pairs([("a", 0), ("b", 0)]).unwrap(),
        };
        let wire = read_wire(&footer.to_msgpack().unwrap(), Budget::new(1 << 20)).unwrap();
        assert_eq!(wire.dtype_pool, footer.dtype_pool);
        assert_eq!(wire.schema_pool, footer.schema_pool);
        assert_eq!(wire.variables, footer.variables);
        assert_eq!(
            (wire.version, wire.codec, wire.created_unix_ms),
            (8, Codec::Lz4, -5)
        );
        assert_eq!(wire.string_pool, footer.string_pool);
        assert_eq!(wire.datasets, footer.datasets);
        assert_eq!(
            wire.datasets.names().collect::<Vec<_>>(),
            vec!["a", "b"],
            "in ordinal order"
        );
    }
}
