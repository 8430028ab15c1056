//! The container framing of `data.atlas`.
//!
//! ```text
//! 0        "ATLS"              leading magic
//! 4        u32 LE version = 8
//! 8        segments, back to back
//! …        footer (zstd of msgpack)
//! end-16   u64 LE footer size
//! end-8    u32 LE version = 8
//! end-4    "ATLS"
//! ```

use crate::error::{Error, Result};

/// Magic at both ends of the container.
pub const MAGIC: [u8; 4] = *b"ATLS";
/// The container version this crate reads and writes.
pub const FORMAT_VERSION: u32 = 8;
/// Bytes before the first segment.
pub const HEADER_SIZE: u64 = 8;
/// Bytes after the footer.
pub const TRAILER_SIZE: u64 = 16;
/// How much of the tail an open asks for first. Footers of collections up to
/// tens of thousands of datasets fit, so one request usually opens one.
pub const TAIL_PROBE_SIZE: u64 = 64 * 1024;

/// Validates the trailer at the end of `tail` (the last bytes of an object of
/// `object_size` bytes) and returns the footer's byte range in the object.
pub fn decode_trailer(tail: &[u8], object_size: u64) -> Result<std::ops::Range<u64>> {
    if object_size < HEADER_SIZE + TRAILER_SIZE || (tail.len() as u64) < TRAILER_SIZE {
        return Err(Error::NotAnAtlasCollection(format!(
            "{object_size} bytes is too short for an ATLAS container ({} at least)",
            HEADER_SIZE + TRAILER_SIZE
        )));
    }
    let trailer = &tail[tail.len() - TRAILER_SIZE as usize..];
    if trailer[12..16] != MAGIC {
        return Err(Error::NotAnAtlasCollection(format!(
            "the trailer ends with {:02x?}, not \"ATLS\"",
            &trailer[12..16]
        )));
    }
    let version = u32::from_le_bytes([trailer[8], trailer[9], trailer[10], trailer[11]]);
    if version != FORMAT_VERSION {
        return Err(Error::UnsupportedVersion {
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let footer_size = u64::from_le_bytes(trailer[..8].try_into().expect("8 bytes"));
    let room = object_size - HEADER_SIZE - TRAILER_SIZE;
    if footer_size > room {
        return Err(Error::corrupt_collection(format!(
            "the trailer declares a footer of {footer_size} bytes in a container with {room} bytes to hold it"
        )));
    }
    let end = object_size - TRAILER_SIZE;
    Ok(end - footer_size..end)
}

/// Checks the leading magic and version, when a read happened to cover them.
pub fn check_header(head: &[u8]) -> Result<()> {
    if head.len() < HEADER_SIZE as usize || head[..4] != MAGIC {
        return Err(Error::NotAnAtlasCollection(
            "the object does not begin with \"ATLS\"".into(),
        ));
    }
    let version = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
    if version != FORMAT_VERSION {
        return Err(Error::UnsupportedVersion {
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    Ok(())
}

/// Encodes the trailer for a footer of `footer_size` bytes.
pub fn encode_trailer(footer_size: u64) -> [u8; TRAILER_SIZE as usize] {
    let mut out = [0u8; TRAILER_SIZE as usize];
    out[..8].copy_from_slice(&footer_size.to_le_bytes());
    out[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    out[12..].copy_from_slice(&MAGIC);
    out
}

/// The eight bytes every container starts with.
pub fn encode_header() -> [u8; HEADER_SIZE as usize] {
    let mut out = [0u8; HEADER_SIZE as usize];
    out[..4].copy_from_slice(&MAGIC);
    out[4..].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trailer_round_trips_and_locates_the_footer() {
        let mut file = encode_header().to_vec();
        file.extend_from_slice(&[7u8; 30]);
        file.extend_from_slice(&encode_trailer(30));
        let range = decode_trailer(&file, file.len() as u64).unwrap();
        assert_eq!(range, 8..38);
        check_header(&file).unwrap();
    }

    #[test]
    fn a_footer_larger_than_the_file_is_corrupt_not_a_panic() {
        let mut file = encode_header().to_vec();
        file.extend_from_slice(&encode_trailer(u64::MAX));
        let err = decode_trailer(&file, file.len() as u64).unwrap_err();
        assert_eq!(err.code(), "CorruptCollection");
    }

    #[test]
    fn foreign_and_future_files_are_named_as_such() {
        let foreign = [0u8; 64];
        assert_eq!(
            decode_trailer(&foreign, 64).unwrap_err().code(),
            "NotAnAtlasCollection"
        );
        let mut future = encode_header().to_vec();
        let mut trailer = encode_trailer(0);
        trailer[8] = 9;
        future.extend_from_slice(&trailer);
        assert_eq!(
            decode_trailer(&future, future.len() as u64).unwrap_err(),
            Error::UnsupportedVersion {
                found: 9,
                expected: 8
            }
        );
        assert_eq!(
            decode_trailer(&[], 0).unwrap_err().code(),
            "NotAnAtlasCollection"
        );
    }
}
