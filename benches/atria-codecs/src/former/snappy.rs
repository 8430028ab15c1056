//! The raw snappy decoder `atria::parquet` had until it took the `snap`
//! crate (at commit 9dc3fac), kept unchanged as this benchmark's peer: a
//! length and a list of literals and back-copies, copied byte by byte.

use crate::error::{Error, Result};

fn corrupt(why: &str) -> Error {
    Error::Corrupt(format!("parquet snappy data: {why}"))
}

/// Decompresses a snappy block that must come to exactly `expected` bytes.
pub(crate) fn decompress(input: &[u8], expected: usize) -> Result<Vec<u8>> {
    let mut pos = 0;
    let mut declared = 0u64;
    for shift in (0..35).step_by(7) {
        let b = *input.get(pos).ok_or_else(|| corrupt("no length"))?;
        pos += 1;
        declared |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            break;
        }
    }
    if declared != expected as u64 {
        return Err(corrupt(&format!(
            "it declares {declared} bytes, the page header {expected}"
        )));
    }
    let mut out: Vec<u8> = Vec::with_capacity(expected);
    while pos < input.len() {
        let tag = input[pos];
        pos += 1;
        let (len, offset) = match tag & 3 {
            0 => {
                let mut len = (tag >> 2) as usize;
                if len >= 60 {
                    let extra = len - 59;
                    let raw = input
                        .get(pos..pos + extra)
                        .ok_or_else(|| corrupt("a literal length runs past the end"))?;
                    len = raw
                        .iter()
                        .rev()
                        .fold(0usize, |acc, &b| (acc << 8) | b as usize);
                    pos += extra;
                }
                let len = len + 1;
                let literal = input
                    .get(pos..pos.saturating_add(len))
                    .ok_or_else(|| corrupt("a literal runs past the end"))?;
                if out.len() + len > expected {
                    return Err(corrupt("output past the declared length"));
                }
                out.extend_from_slice(literal);
                pos += len;
                continue;
            }
            1 => {
                let low = *input
                    .get(pos)
                    .ok_or_else(|| corrupt("a copy runs past the end"))?;
                pos += 1;
                (
                    4 + ((tag >> 2) & 7) as usize,
                    ((tag as usize >> 5) << 8) | low as usize,
                )
            }
            2 => {
                let raw = input
                    .get(pos..pos + 2)
                    .ok_or_else(|| corrupt("a copy runs past the end"))?;
                pos += 2;
                (
                    (tag >> 2) as usize + 1,
                    u16::from_le_bytes([raw[0], raw[1]]) as usize,
                )
            }
            _ => {
                let raw = input
                    .get(pos..pos + 4)
                    .ok_or_else(|| corrupt("a copy runs past the end"))?;
                pos += 4;
                let offset = u32::from_le_bytes(raw.try_into().expect("4 bytes")) as usize;
                ((tag >> 2) as usize + 1, offset)
            }
        };
        if offset == 0 || offset > out.len() {
            return Err(corrupt(&format!(
                "a copy from {offset} bytes back, {} written",
                out.len()
            )));
        }
        if out.len() + len > expected {
            return Err(corrupt("output past the declared length"));
        }
        // Byte by byte: a copy may overlap what it writes (a run).
        let start = out.len() - offset;
        for i in 0..len {
            let b = out[start + i];
            out.push(b);
        }
    }
    if out.len() != expected {
        return Err(corrupt(&format!(
            "{} bytes, {expected} declared",
            out.len()
        )));
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
    }
}
