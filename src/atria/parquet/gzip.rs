//! gzip (RFC 1952) members, for parquet's GZIP codec: the framing and each
//! member's CRC-32 and length are checked here, the DEFLATE (RFC 1951) body
//! is inflated by `miniz_oxide`, which in wasm is several times faster than
//! the bit-at-a-time decoder this file held before (docs/atria.md, "Snappy
//! and gzip: crates, measured").

use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

use crate::atria::crc32::crc32;
use crate::atria::error::{Error, Result};

fn corrupt(why: &str) -> Error {
    Error::Corrupt(format!("parquet gzip data: {why}"))
}

/// Decompresses gzip members that come to exactly `size` bytes.
pub(crate) fn gunzip(input: &[u8], size: usize) -> Result<Vec<u8>> {
    // `size` is the page header's, charged to the budget by the caller; no
    // member writes past it.
    let mut out = vec![0u8; size];
    let mut filled = 0;
    let mut inflater = Box::<DecompressorOxide>::default();
    let mut pos = 0;
    while pos < input.len() {
        pos += header_len(&input[pos..])?;
        inflater.init();
        // A fresh slice per member, so that no member copies from another.
        let (status, taken, written) = decompress(
            &mut inflater,
            &input[pos..],
            &mut out[filled..],
            0,
            inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
        );
        match status {
            TINFLStatus::Done => {}
            TINFLStatus::HasMoreOutput => {
                return Err(corrupt(&format!(
                    "output past the page header's {size} bytes"
                )))
            }
            TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                return Err(corrupt("the stream ends inside a block"))
            }
            other => return Err(corrupt(&format!("bad DEFLATE data ({other:?})"))),
        }
        pos += taken;
        let trailer = input
            .get(pos..pos + 8)
            .ok_or_else(|| corrupt("a member without its trailer"))?;
        let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
        let isize = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
        if crc != crc32(&out[filled..filled + written]) || isize != written as u32 {
            return Err(corrupt("a member's CRC-32 or length does not match"));
        }
        filled += written;
        pos += 8;
    }
    if filled != size {
        return Err(corrupt(&format!(
            "{filled} bytes, the page header says {size}"
        )));
    }
    Ok(out)
}

/// The length of the member header at the start of `input`: ten bytes,
/// then the optional extra field, name, comment and header CRC its flags
/// announce.
fn header_len(input: &[u8]) -> Result<usize> {
    let header = input
        .get(..10)
        .ok_or_else(|| corrupt("a member shorter than its header"))?;
    if header[..3] != [0x1f, 0x8b, 8] {
        return Err(corrupt("no gzip magic"));
    }
    let flags = header[3];
    let mut pos = 10;
    if flags & 4 != 0 {
        let extra = input
            .get(pos..pos + 2)
            .ok_or_else(|| corrupt("the extra field runs past the end"))?;
        pos += 2 + u16::from_le_bytes([extra[0], extra[1]]) as usize;
    }
    for flag in [8u8, 16] {
        if flags & flag != 0 {
            let rest = input.get(pos..).unwrap_or(&[]);
            let end = rest
                .iter()
                .position(|&b| b == 0)
                .ok_or_else(|| corrupt("a name or comment without its end"))?;
            pos += end + 1;
        }
    }
    if flags & 2 != 0 {
        pos += 2;
    }
    if pos > input.len() {
        return Err(corrupt("the header runs past the end"));
    }
    Ok(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    // gzip of b"hello hello hello" (fixed Huffman, one back-reference), as
    // Python's gzip.compress(data, mtime=0) writes it.
    const MEMBER: [u8; 28] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9,
        0x57, 0xc8, 0x40, 0x90, 0x00, 0x80, 0x88, 0xf9, 0xe5, 0x11, 0x00, 0x00, 0x00,
    ];

    #[test]
    fn a_member_inflates_and_its_trailer_is_checked() {
        assert_eq!(gunzip(&MEMBER[..], 17).unwrap(), b"hello hello hello");
        assert!(gunzip(&MEMBER[..], 16).is_err());
        assert!(gunzip(&MEMBER[..], 18).is_err());
        assert!(gunzip(&MEMBER[..20], 17).is_err());
        assert!(gunzip(&MEMBER[..27], 17).is_err());
        // A flipped bit in the body, in the CRC, in the length.
        for at in [12, 22, 25] {
            let mut flipped = MEMBER;
            flipped[at] ^= 0x10;
            assert!(gunzip(&flipped, 17).is_err(), "byte {at}");
        }
    }

    #[test]
    fn members_follow_one_another() {
        let two = [MEMBER, MEMBER].concat();
        assert_eq!(
            gunzip(&two, 34).unwrap(),
            b"hello hello hellohello hello hello"
        );
        assert!(gunzip(&two, 17).is_err());
        // Trailing bytes that are not a member.
        assert!(gunzip(&[&MEMBER[..], &[0; 9]].concat(), 17).is_err());
    }
}
