//! Raw snappy (the block format parquet's SNAPPY codec uses), decoded by the
//! `snap` crate: in wasm it is several times faster than the byte-by-byte
//! decoder this file held before, for about a kilobyte of module
//! (docs/atria.md, "Snappy and gzip: crates, measured").

use crate::atria::error::{Error, Result};

fn corrupt(why: &str) -> Error {
    Error::Corrupt(format!("parquet snappy data: {why}"))
}

/// Decompresses a snappy block that must come to exactly `expected` bytes.
pub(crate) fn decompress(input: &[u8], expected: usize) -> Result<Vec<u8>> {
    // The block's own length is checked against the page header's before
    // anything is allocated: the budget was charged for `expected`.
    // snap's errors are named by kind, not by message: its Display impl
    // would add 1.3 KB gzip to the module (benches/atria-codecs).
    let invalid = |_| corrupt(&format!("not a snappy block ({} bytes)", input.len()));
    let declared = snap::raw::decompress_len(input).map_err(invalid)?;
    if declared != expected {
        return Err(corrupt(&format!(
            "it declares {declared} bytes, the page header {expected}"
        )));
    }
    let mut out = vec![0u8; expected];
    let written = snap::raw::Decoder::new()
        .decompress(input, &mut out)
        .map_err(invalid)?;
    if written != expected {
        return Err(corrupt(&format!("{written} bytes, {expected} declared")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_overlapping_copies_decode() {
        // "abcabcabcd": literal "abc", copy 6 from 3 back, literal "d".
        let block = [10, 0x08, b'a', b'b', b'c', 0x09, 0x03, 0x00, b'd'];
        assert_eq!(decompress(&block, 10).unwrap(), b"abcabcabcd");
        assert!(decompress(&block, 11).is_err());
        assert!(decompress(&[10, 0x09, 0x03], 10).is_err());
        assert!(decompress(&block[..7], 10).is_err());
        // A copy from further back than what was written.
        assert!(decompress(&[4, 0x00, b'a', 0x05, 0x02], 4).is_err());
    }
}
