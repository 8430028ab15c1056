//! The collection footer: zstd of msgpack in compact (positional) form.
//!
//! ```text
//! [version, codec, created_unix_ms, string_pool, dtype_pool, schema_pool, variables, datasets]
//! ```
//!
//! Field order is the format. `datasets` is a sequence of `[name, schema]`
//! pairs whose position is the dataset's ordinal; a repeated name is
//! corruption, because a lookup by name could never reach the second one.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::format::container::FORMAT_VERSION;
use crate::format::dtype::DType;

/// The reserved variable whose segment carries dataset-level attributes.
pub const DATASET_ATTRS_VARIABLE: &str = "_datasets";

/// The compression the writer chose (informational: blocks name their own).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Codec {
    #[default]
    Zstd,
    Lz4,
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct InternedSchema {
    /// `(name, dtype)` indices into the string and dtype pools.
    pub arrays: Vec<(u32, u32)>,
    /// Dataset-level `(key, dtype)`.
    pub attrs: Vec<(u32, u32)>,
    /// `(array position, [(key, dtype)])`.
    pub array_attrs: Vec<(u32, Vec<(u32, u32)>)>,
}

/// Where one variable's segment lies in the container.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariableEntry {
    pub name: u32,
    pub seg_offset: u64,
    pub seg_len: u64,
}

#[derive(Serialize, Deserialize)]
struct WireFooter {
    version: u32,
    codec: Codec,
    created_unix_ms: i64,
    string_pool: Vec<String>,
    dtype_pool: Vec<DType>,
    schema_pool: Vec<InternedSchema>,
    variables: Vec<VariableEntry>,
    datasets: Vec<(String, u32)>,
}

/// The decoded, validated footer.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectionFooter {
    pub version: u32,
    pub codec: Codec,
    pub created_unix_ms: i64,
    pub string_pool: Vec<String>,
    pub dtype_pool: Vec<DType>,
    pub schema_pool: Vec<InternedSchema>,
    pub variables: Vec<VariableEntry>,
    /// Name to schema index; the position is the ordinal.
    pub datasets: IndexMap<String, u32>,
}

impl CollectionFooter {
    /// Decompresses, decodes and validates footer bytes from a container of
    /// `container_size` bytes (segments must lie inside it).
    pub fn decode(bytes: &[u8], container_size: u64) -> Result<Self> {
        let packed = crate::format::codec::zstd_decompress(bytes, MAX_FOOTER_BYTES)
            .map_err(|e| Error::corrupt(format!("the footer is not valid zstd: {e}")))?;
        let wire: WireFooter = rmp_serde::from_slice(&packed)
            .map_err(|e| Error::corrupt(format!("the footer does not decode: {e}")))?;
        let mut datasets = IndexMap::with_capacity(wire.datasets.len());
        for (ordinal, (name, schema)) in wire.datasets.into_iter().enumerate() {
            if let Some(first) = datasets.get_index_of(&name) {
                return Err(Error::corrupt(format!(
                    "dataset '{name}' appears twice, at ordinals {first} and {ordinal}"
                )));
            }
            datasets.insert(name, schema);
        }
        let footer = CollectionFooter {
            version: wire.version,
            codec: wire.codec,
            created_unix_ms: wire.created_unix_ms,
            string_pool: wire.string_pool,
            dtype_pool: wire.dtype_pool,
            schema_pool: wire.schema_pool,
            variables: wire.variables,
            datasets,
        };
        footer.validate(container_size)?;
        Ok(footer)
    }

    /// Encodes to msgpack and compresses with `compress` (the writer's zstd).
    pub fn to_msgpack(&self) -> Result<Vec<u8>> {
        let wire = WireFooter {
            version: self.version,
            codec: self.codec,
            created_unix_ms: self.created_unix_ms,
            string_pool: self.string_pool.clone(),
            dtype_pool: self.dtype_pool.clone(),
            schema_pool: self.schema_pool.clone(),
            variables: self.variables.clone(),
            datasets: self.datasets.iter().map(|(n, s)| (n.clone(), *s)).collect(),
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
                Err(Error::corrupt(format!(
                    "{what} names string {i} of a pool of {strings}"
                )))
            }
        };
        let dtype_ok = |i: u32, what: &str| -> Result<()> {
            if (i as usize) < dtypes {
                Ok(())
            } else {
                Err(Error::corrupt(format!(
                    "{what} names dtype {i} of a pool of {dtypes}"
                )))
            }
        };
        let mut segment_of = std::collections::HashSet::with_capacity(self.variables.len());
        let data_end = container_size.saturating_sub(crate::format::container::TRAILER_SIZE);
        for v in &self.variables {
            string_ok(v.name, "a variable")?;
            if !segment_of.insert(v.name) {
                return Err(Error::corrupt(format!(
                    "variable '{}' has two segments",
                    self.string(v.name)
                )));
            }
            let end = v.seg_offset.checked_add(v.seg_len);
            if v.seg_len == 0
                || v.seg_offset < crate::format::container::HEADER_SIZE
                || end.is_none_or(|end| end > data_end)
            {
                return Err(Error::corrupt(format!(
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
                    return Err(Error::corrupt(format!(
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
                    return Err(Error::corrupt(format!(
                        "schema {i} annotates array {position} of {}",
                        schema.arrays.len()
                    )));
                }
            }
        }
        for (name, &schema) in &self.datasets {
            if schema as usize >= self.schema_pool.len() {
                return Err(Error::corrupt(format!(
                    "dataset '{name}' names schema {schema} of {}",
                    self.schema_pool.len()
                )));
            }
        }
        Ok(())
    }
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
        let wire = WireFooter {
            version: 8,
            codec: Codec::Zstd,
            created_unix_ms: 1,
            string_pool: vec![],
            dtype_pool: vec![],
            schema_pool: vec![InternedSchema::default()],
            variables: vec![],
            datasets: vec![("a".into(), 0), ("a".into(), 0)],
        };
        let packed = rmp_serde::to_vec(&wire).unwrap();
        let zst = crate::format::codec::tests::zstd_frame_of(&packed);
        let err = CollectionFooter::decode(&zst, 1000).unwrap_err();
        assert!(err.to_string().contains("appears twice"), "{err}");
    }
}
