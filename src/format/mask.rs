//! `deleted.mask`: the ordinals of hidden datasets.
//!
//! ```text
//! "ATLM"  u32 LE version = 1  u32 LE count  count × u32 LE ordinals (ascending)
//! ```
//!
//! The reader is forgiving where forgiveness is safe: an ordinal past the end
//! of the collection is dropped (a mask copied from another collection cannot
//! block an open), and a truncated body keeps the entries that survived. A
//! wrong magic is an error: a foreign file at that path is a mistake.

use std::collections::BTreeSet;

use crate::error::{Error, Result};

/// Magic of the mask file.
pub const MASK_MAGIC: [u8; 4] = *b"ATLM";
/// The mask version this crate reads and writes.
pub const MASK_VERSION: u32 = 1;
const HEADER: usize = 12;

/// Decodes a mask for a collection of `dataset_count` datasets.
pub fn decode_mask(bytes: &[u8], dataset_count: usize) -> Result<BTreeSet<u32>> {
    if bytes.is_empty() {
        return Ok(BTreeSet::new());
    }
    if bytes.len() < HEADER || bytes[..4] != MASK_MAGIC {
        return Err(Error::CorruptMask(
            "the file does not begin with \"ATLM\"".into(),
        ));
    }
    let version = u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes"));
    if version != MASK_VERSION {
        return Err(Error::CorruptMask(format!(
            "mask version {version} is not supported (this reader speaks {MASK_VERSION})"
        )));
    }
    let count = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize;
    Ok(bytes[HEADER..]
        .chunks_exact(4)
        .take(count)
        .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
        .filter(|&ordinal| (ordinal as usize) < dataset_count)
        .collect())
}

/// Encodes a mask; a set is ordered, so the file always lists ordinals ascending.
pub fn encode_mask(ordinals: &BTreeSet<u32>) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + 4 * ordinals.len());
    out.extend_from_slice(&MASK_MAGIC);
    out.extend_from_slice(&MASK_VERSION.to_le_bytes());
    out.extend_from_slice(&(ordinals.len() as u32).to_le_bytes());
    for ordinal in ordinals {
        out.extend_from_slice(&ordinal.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_round_trip_and_tolerate_what_is_safe_to_tolerate() {
        let set: BTreeSet<u32> = [0, 3, 9].into_iter().collect();
        let bytes = encode_mask(&set);
        assert_eq!(decode_mask(&bytes, 10).unwrap(), set);
        // An ordinal past the end is dropped.
        assert_eq!(
            decode_mask(&bytes, 5).unwrap(),
            [0, 3].into_iter().collect()
        );
        // A truncated body keeps what survived.
        assert_eq!(
            decode_mask(&bytes[..18], 10).unwrap(),
            [0].into_iter().collect()
        );
        assert!(decode_mask(&[], 10).unwrap().is_empty());
    }

    #[test]
    fn a_foreign_file_is_an_error() {
        assert_eq!(
            decode_mask(b"PK\x03\x04 not a mask", 3).unwrap_err().code(),
            "CorruptMask"
        );
        assert_eq!(decode_mask(b"ATL", 3).unwrap_err().code(), "CorruptMask");
        let mut v2 = encode_mask(&BTreeSet::new());
        v2[4] = 2;
        assert_eq!(decode_mask(&v2, 3).unwrap_err().code(), "CorruptMask");
    }
}
