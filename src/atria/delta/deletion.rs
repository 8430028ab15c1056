//! Deletion vectors: the `deletionVector` of an `add`, where its bitmap is
//! kept, and the framing of a deletion vector file.
//!
//! A descriptor's `storageType` says where the bitmap is: `u` in a file of
//! the table's directory whose name comes from a UUID (the last 20 Z85
//! characters of `pathOrInlineDv`; any characters before them are a
//! directory prefix), `i` inline (`pathOrInlineDv` is the bitmap in Z85), `p`
//! at an absolute path (refused, as absolute data file paths are). A file
//! holds a version byte (1), then at each deletion vector's `offset` its size
//! (4 bytes big-endian, `sizeInBytes`), the bitmap, and the bitmap's CRC-32
//! (4 bytes big-endian). Only those `sizeInBytes + 8` bytes are read (and
//! the version byte with them when the vector is the file's first).

use crate::atria::error::{Error, Result};
use crate::format::budget::check;

use super::super::crc32::crc32;
use super::super::roaring::RowSet;
use super::super::store::Store;
use super::super::value::Value;
use super::super::z85;

/// An `add`'s deletion vector, as the log describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeletionVector {
    /// `u` (a file named by a UUID) or `i` (inline).
    pub storage_type: char,
    /// The UUID (with its prefix) or the inline bitmap, in Z85.
    pub path_or_inline_dv: String,
    /// Where the vector starts in its file (none inline).
    pub offset: Option<u64>,
    /// The serialized bitmap's size.
    pub size_in_bytes: u64,
    /// How many rows it deletes.
    pub cardinality: u64,
    /// For `u`, the file's path relative to the cache (the table's
    /// directory, then `[prefix/]deletion_vector_{uuid}.bin`).
    pub path: Option<String>,
}

impl DeletionVector {
    /// What tells one deletion vector of a data file from another: the
    /// storage type, the path or inline bitmap, and the offset.
    pub(crate) fn unique_id(&self) -> String {
        match self.offset {
            Some(offset) => format!("{}{}@{offset}", self.storage_type, self.path_or_inline_dv),
            None => format!("{}{}", self.storage_type, self.path_or_inline_dv),
        }
    }
}

/// The `deletionVector` of an action, none when it has none. `path` is
/// relative to the table.
pub(crate) fn descriptor(action: &Value, what: &str) -> Result<Option<DeletionVector>> {
    let dv = match action.get("deletionVector") {
        None | Some(Value::Nil) => return Ok(None),
        Some(dv @ Value::Map(_)) => dv,
        Some(_) => {
            return Err(Error::Corrupt(format!(
                "{what}: a deletionVector that is not an object"
            )))
        }
    };
    let text = |key: &str| match dv.get(key) {
        Some(Value::Str(s)) => Ok(s.as_str()),
        _ => Err(Error::Corrupt(format!(
            "{what}: a deletionVector without a string '{key}'"
        ))),
    };
    let count = |key: &str| match dv.get(key) {
        Some(Value::Int(n)) if *n >= 0 => Ok(Some(*n as u64)),
        None | Some(Value::Nil) => Ok(None),
        Some(other) => Err(Error::Corrupt(format!(
            "{what}: a deletionVector's '{key}' is {other:?}"
        ))),
    };
    let required = |key: &str| {
        count(key)?
            .ok_or_else(|| Error::Corrupt(format!("{what}: a deletionVector without '{key}'")))
    };
    let storage = text("storageType")?;
    let path_or_inline_dv = text("pathOrInlineDv")?.to_string();
    let size_in_bytes = required("sizeInBytes")?;
    let cardinality = required("cardinality")?;
    let offset = count("offset")?;
    let (storage_type, path) = match storage {
        "u" => {
            let split = path_or_inline_dv
                .len()
                .checked_sub(20)
                .filter(|&at| path_or_inline_dv.is_char_boundary(at))
                .ok_or_else(|| {
                    Error::Corrupt(format!(
                        "{what}: deletion vector '{path_or_inline_dv}' is shorter than a Z85 UUID"
                    ))
                })?;
            let (prefix, uuid) = path_or_inline_dv.split_at(split);
            let uuid = uuid_text(&z85::decode(uuid, what)?);
            let name = format!("deletion_vector_{uuid}.bin");
            let path = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            if offset.is_none() {
                return Err(Error::Corrupt(format!(
                    "{what}: deletion vector {path} has no offset"
                )));
            }
            ('u', Some(path))
        }
        "i" => ('i', None),
        "p" => {
            return Err(Error::UnsupportedProtocol(format!(
                "{what}: the deletion vector at '{path_or_inline_dv}' is outside the table \
                 (absolute paths are not read)"
            )))
        }
        other => {
            return Err(Error::UnsupportedProtocol(format!(
                "{what}: deletion vector storage type '{other}' is not supported (u and i are)"
            )))
        }
    };
    Ok(Some(DeletionVector {
        storage_type,
        path_or_inline_dv,
        offset,
        size_in_bytes,
        cardinality,
        path,
    }))
}

/// 16 bytes as a UUID's text, `8-4-4-4-12` lowercase hex digits.
fn uuid_text(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(36);
    for (i, b) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The rows `dv` deletes, read from its file through `store` (one ranged
/// read) or decoded inline, checked against its size, checksum and
/// cardinality. `budget` bounds the bytes read.
pub(crate) async fn load(
    dv: &DeletionVector,
    store: &dyn Store,
    budget: u64,
    what: &str,
) -> Result<RowSet> {
    check(dv.size_in_bytes, budget, what)?;
    let size = usize::try_from(dv.size_in_bytes)
        .map_err(|_| Error::Corrupt(format!("{what}: a deletion vector too large to read")))?;
    let set = match &dv.path {
        None => {
            // Z85 pads the bitmap to whole 4-byte words (the budget bounds the size).
            if dv.path_or_inline_dv.len() as u64 > dv.size_in_bytes.div_ceil(4) * 5 {
                return Err(Error::Corrupt(format!(
                    "{what}: an inline deletion vector longer than its {} bytes",
                    dv.size_in_bytes
                )));
            }
            let bytes = z85::decode(&dv.path_or_inline_dv, what)?;
            let bitmap = bytes.get(..size).ok_or_else(|| {
                Error::Corrupt(format!(
                    "{what}: an inline deletion vector of {} bytes, said to be {size}",
                    bytes.len()
                ))
            })?;
            RowSet::decode_portable(bitmap, what)?
        }
        Some(path) => {
            let offset = dv.offset.unwrap_or(1);
            let bytes = read_framed(store, path, offset, dv.size_in_bytes).await?;
            let what = format!("{what}: {path} at {offset}");
            RowSet::decode_portable(unframe(&bytes, offset, size, &what)?, &what)?
        }
    };
    if set.len() != dv.cardinality {
        return Err(Error::Corrupt(format!(
            "{what}: the deletion vector holds {} rows, the log says {}",
            set.len(),
            dv.cardinality
        )));
    }
    Ok(set)
}

/// The bytes of one framed vector (the version byte first when it starts at 1).
async fn read_framed(store: &dyn Store, path: &str, offset: u64, size: u64) -> Result<Vec<u8>> {
    let from = if offset == 1 { 0 } else { offset };
    let end = offset
        .checked_add(size)
        .and_then(|e| e.checked_add(8))
        .ok_or_else(|| Error::Corrupt(format!("{path}: a deletion vector past 2^64 bytes")))?;
    let read = match store.open(path) {
        Ok(source) => source.read_range(from..end).await,
        Err(e) => Err(e),
    };
    read.map_err(|e| match e {
        crate::Error::NotFound(_) => {
            Error::Corrupt(format!("the deletion vector file {path} is missing"))
        }
        crate::Error::OutOfBounds(_) => Error::Corrupt(format!(
            "{path}: the deletion vector at {offset} ({size} bytes) reaches past the file"
        )),
        e => e.into(),
    })
}

/// The bitmap inside `bytes` (read from `offset`, or from 0 when `offset`
/// is 1): the version byte, size and checksum checked.
pub(crate) fn unframe<'a>(
    bytes: &'a [u8],
    offset: u64,
    size: usize,
    what: &str,
) -> Result<&'a [u8]> {
    let corrupt = |why: String| Error::Corrupt(format!("{what}: {why}"));
    let body = if offset == 1 {
        match bytes.first() {
            Some(1) => &bytes[1..],
            Some(v) => {
                return Err(corrupt(format!(
                    "deletion vector file version {v} (1 is read)"
                )))
            }
            None => return Err(corrupt("an empty deletion vector file".into())),
        }
    } else {
        bytes
    };
    if body.len() < 8 || body.len() - 8 != size {
        return Err(corrupt(format!(
            "{} bytes for a deletion vector of {size}",
            body.len()
        )));
    }
    let stated = u32::from_be_bytes([body[0], body[1], body[2], body[3]]);
    if u64::from(stated) != size as u64 {
        return Err(corrupt(format!(
            "the file says the deletion vector has {stated} bytes, the log {size}"
        )));
    }
    let bitmap = &body[4..4 + size];
    let tail = &body[4 + size..];
    let stored = u32::from_be_bytes([tail[0], tail[1], tail[2], tail[3]]);
    let computed = crc32(bitmap);
    if stored != computed {
        return Err(corrupt(format!(
            "the deletion vector's CRC-32 is {computed:08x}, the file says {stored:08x}"
        )));
    }
    Ok(bitmap)
}

#[cfg(test)]
mod tests {
    use super::super::super::json;
    use super::super::super::roaring::tests::{bitmap32, portable, Container};
    use super::*;
    use crate::format::budget::Budget;

    fn action(dv: &str) -> Value {
        let text = format!(r#"{{"path":"a.parquet","deletionVector":{dv}}}"#);
        json::parse(&text, &mut Budget::new(1 << 20), "t").unwrap()
    }

    #[test]
    fn descriptors_name_their_files() {
        // The UUID of delta-rs's table-with-dv-small, with and without a prefix.
        let dv = descriptor(
            &action(r#"{"storageType":"u","pathOrInlineDv":"vBn[lx{q8@P<9BNH/isA","offset":1,"sizeInBytes":36,"cardinality":2}"#),
            "t",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            dv.path.as_deref(),
            Some("deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin")
        );
        assert_eq!(dv.unique_id(), "uvBn[lx{q8@P<9BNH/isA@1");
        let prefixed = descriptor(
            &action(r#"{"storageType":"u","pathOrInlineDv":"ab7vBn[lx{q8@P<9BNH/isA","offset":5,"sizeInBytes":36,"cardinality":2}"#),
            "t",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            prefixed.path.as_deref(),
            Some("ab7/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin")
        );
        assert_eq!(descriptor(&action("null"), "t").unwrap(), None);
        let inline = descriptor(
            &action(
                r#"{"storageType":"i","pathOrInlineDv":"00000","sizeInBytes":4,"cardinality":0}"#,
            ),
            "t",
        )
        .unwrap()
        .unwrap();
        assert_eq!((inline.path, inline.offset), (None, None));
        for (dv, code) in [
            (
                r#"{"storageType":"p","pathOrInlineDv":"s3://x/y.bin","offset":1,"sizeInBytes":1,"cardinality":1}"#,
                "UnsupportedProtocol",
            ),
            (
                r#"{"storageType":"q","pathOrInlineDv":"x","sizeInBytes":1,"cardinality":1}"#,
                "UnsupportedProtocol",
            ),
            (
                r#"{"storageType":"u","pathOrInlineDv":"short","offset":1,"sizeInBytes":1,"cardinality":1}"#,
                "Corrupt",
            ),
            (
                r#"{"storageType":"u","pathOrInlineDv":"vBn[lx{q8@P<9BNH/is ","offset":1,"sizeInBytes":1,"cardinality":1}"#,
                "Corrupt",
            ),
            (
                r#"{"storageType":"u","pathOrInlineDv":"vBn[lx{q8@P<9BNH/isA","sizeInBytes":1,"cardinality":1}"#,
                "Corrupt",
            ),
            (
                r#"{"storageType":"u","pathOrInlineDv":"vBn[lx{q8@P<9BNH/isA","offset":1,"cardinality":1}"#,
                "Corrupt",
            ),
            (
                r#"{"storageType":"i","pathOrInlineDv":"00000","sizeInBytes":-1,"cardinality":1}"#,
                "Corrupt",
            ),
            (
                r#"{"storageType":"i","pathOrInlineDv":"00000","sizeInBytes":4}"#,
                "Corrupt",
            ),
            (
                r#"{"pathOrInlineDv":"00000","sizeInBytes":4,"cardinality":1}"#,
                "Corrupt",
            ),
            (r#"[1]"#, "Corrupt"),
        ] {
            let e = descriptor(&action(dv), "t").unwrap_err();
            assert_eq!(e.code(), code, "{dv}: {e}");
        }
    }

    fn framed(bitmap: &[u8]) -> Vec<u8> {
        let mut out = vec![1u8];
        out.extend((bitmap.len() as u32).to_be_bytes());
        out.extend(bitmap);
        out.extend(crc32(bitmap).to_be_bytes());
        out
    }

    #[test]
    fn framing_is_checked() {
        let bitmap = portable(&[(0, bitmap32(&[Container::Array(0, vec![0, 9])]))]);
        let file = framed(&bitmap);
        let size = bitmap.len();
        assert_eq!(unframe(&file, 1, size, "t").unwrap(), &bitmap[..]);
        // Not the file's first: read from its offset, without the version.
        assert_eq!(unframe(&file[1..], 7, size, "t").unwrap(), &bitmap[..]);
        let mut version = file.clone();
        version[0] = 2;
        let mut stated = file.clone();
        stated[4] ^= 1;
        let mut crc = file.clone();
        *crc.last_mut().unwrap() ^= 1;
        let mut flipped = file.clone();
        flipped[10] ^= 0x40;
        for (i, bad) in [version, stated, crc, flipped].iter().enumerate() {
            let e = unframe(bad, 1, size, "t").unwrap_err();
            assert_eq!(e.code(), "Corrupt", "case {i}: {e}");
        }
        for len in 0..file.len() {
            assert!(unframe(&file[..len], 1, size, "t").is_err(), "{len}");
        }
        assert!(unframe(&file, 1, size - 1, "t").is_err());
        assert!(unframe(&file, 1, size + 1, "t").is_err());
    }
}
