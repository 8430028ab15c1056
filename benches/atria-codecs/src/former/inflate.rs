//! The gzip/DEFLATE decoder `atria::parquet` had until it took
//! `miniz_oxide` (at commit 9dc3fac), kept unchanged as this benchmark's
//! peer: a canonical-Huffman decoder read one bit at a time, and a CRC-32
//! computed bit by bit.

use crate::error::{Error, Result};

fn corrupt(why: &str) -> Error {
    Error::Corrupt(format!("parquet gzip data: {why}"))
}

struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    bit: u32,
    bits: u32,
}

impl Bits<'_> {
    fn need(&mut self, n: u32) -> Result<u32> {
        while self.bits < n {
            let b = *self
                .data
                .get(self.pos)
                .ok_or_else(|| corrupt("the stream ends inside a block"))?;
            self.pos += 1;
            self.bit |= (b as u32) << self.bits;
            self.bits += 8;
        }
        let v = self.bit & ((1u32 << n) - 1);
        self.bit = self.bit.checked_shr(n).unwrap_or(0);
        self.bits -= n;
        Ok(v)
    }

    fn align(&mut self) {
        self.bit = 0;
        self.bits = 0;
    }
}

/// A canonical Huffman code: how many codes of each length, and the
/// symbols in code order.
struct Huffman {
    counts: [u16; 16],
    symbols: Vec<u16>,
}

impl Huffman {
    fn new(lengths: &[u8]) -> Result<Huffman> {
        let mut counts = [0u16; 16];
        for &l in lengths {
            counts[l as usize] += 1;
        }
        counts[0] = 0;
        let mut left = 1i32;
        for &c in &counts[1..] {
            left = left * 2 - c as i32;
            if left < 0 {
                return Err(corrupt("an over-subscribed Huffman code"));
            }
        }
        let mut offsets = [0u16; 16];
        for len in 1..15 {
            offsets[len + 1] = offsets[len] + counts[len];
        }
        let mut symbols = vec![0u16; lengths.len()];
        for (symbol, &l) in lengths.iter().enumerate() {
            if l != 0 {
                symbols[offsets[l as usize] as usize] = symbol as u16;
                offsets[l as usize] += 1;
            }
        }
        Ok(Huffman { counts, symbols })
    }

    fn decode(&self, bits: &mut Bits<'_>) -> Result<u16> {
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        for len in 1..16 {
            code |= bits.need(1)? as i32;
            let count = self.counts[len] as i32;
            if code - first < count {
                return Ok(self.symbols[(index + code - first) as usize]);
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        Err(corrupt("a code that is not in the Huffman table"))
    }
}

const LENGTH_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LENGTH_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
const CODE_LENGTH_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// Inflates one DEFLATE stream onto `out`, never past `limit` bytes;
/// returns the input bytes taken.
fn inflate(data: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<usize> {
    let mut bits = Bits {
        data,
        pos: 0,
        bit: 0,
        bits: 0,
    };
    loop {
        let last = bits.need(1)? == 1;
        match bits.need(2)? {
            0 => {
                bits.align();
                let header = data
                    .get(bits.pos..bits.pos + 4)
                    .ok_or_else(|| corrupt("a stored block without its length"))?;
                let len = u16::from_le_bytes([header[0], header[1]]);
                if len != !u16::from_le_bytes([header[2], header[3]]) {
                    return Err(corrupt("a stored block's length check fails"));
                }
                let start = bits.pos + 4;
                let body = data
                    .get(start..start + len as usize)
                    .ok_or_else(|| corrupt("a stored block runs past the end"))?;
                if out.len() + body.len() > limit {
                    return Err(corrupt("output past the declared size"));
                }
                out.extend_from_slice(body);
                bits.pos = start + len as usize;
            }
            1 => {
                let mut lengths = [0u8; 288];
                lengths[..144].fill(8);
                lengths[144..256].fill(9);
                lengths[256..280].fill(7);
                lengths[280..].fill(8);
                let lit = Huffman::new(&lengths)?;
                let dist = Huffman::new(&[5u8; 30])?;
                codes(&mut bits, &lit, &dist, out, limit)?;
            }
            2 => {
                let (lit, dist) = dynamic_tables(&mut bits)?;
                codes(&mut bits, &lit, &dist, out, limit)?;
            }
            _ => return Err(corrupt("block type 3")),
        }
        if last {
            return Ok(bits.pos);
        }
    }
}

fn dynamic_tables(bits: &mut Bits<'_>) -> Result<(Huffman, Huffman)> {
    let nlen = bits.need(5)? as usize + 257;
    let ndist = bits.need(5)? as usize + 1;
    let ncode = bits.need(4)? as usize + 4;
    if nlen > 286 || ndist > 30 {
        return Err(corrupt("too many length or distance codes"));
    }
    let mut code_lengths = [0u8; 19];
    for &i in &CODE_LENGTH_ORDER[..ncode] {
        code_lengths[i] = bits.need(3)? as u8;
    }
    let code = Huffman::new(&code_lengths)?;
    let mut lengths = vec![0u8; nlen + ndist];
    let mut i = 0;
    while i < lengths.len() {
        let symbol = code.decode(bits)?;
        let (value, repeat) = match symbol {
            0..=15 => (symbol as u8, 1),
            16 => {
                let previous = *lengths[..i]
                    .last()
                    .ok_or_else(|| corrupt("a repeat with nothing before it"))?;
                (previous, 3 + bits.need(2)? as usize)
            }
            17 => (0, 3 + bits.need(3)? as usize),
            _ => (0, 11 + bits.need(7)? as usize),
        };
        if i + repeat > lengths.len() {
            return Err(corrupt("code lengths past the table"));
        }
        lengths[i..i + repeat].fill(value);
        i += repeat;
    }
    if lengths[256] == 0 {
        return Err(corrupt("no end-of-block code"));
    }
    Ok((
        Huffman::new(&lengths[..nlen])?,
        Huffman::new(&lengths[nlen..])?,
    ))
}

fn codes(
    bits: &mut Bits<'_>,
    lit: &Huffman,
    dist: &Huffman,
    out: &mut Vec<u8>,
    limit: usize,
) -> Result<()> {
    loop {
        let symbol = lit.decode(bits)? as usize;
        match symbol {
            0..=255 => {
                if out.len() >= limit {
                    return Err(corrupt("output past the declared size"));
                }
                out.push(symbol as u8);
            }
            256 => return Ok(()),
            _ => {
                let i = symbol - 257;
                if i >= 29 {
                    return Err(corrupt("a length code past 285"));
                }
                let len = LENGTH_BASE[i] as usize + bits.need(LENGTH_EXTRA[i] as u32)? as usize;
                let d = dist.decode(bits)? as usize;
                if d >= 30 {
                    return Err(corrupt("a distance code past 29"));
                }
                let back = DIST_BASE[d] as usize + bits.need(DIST_EXTRA[d] as u32)? as usize;
                if back > out.len() {
                    return Err(corrupt("a distance before the start of the output"));
                }
                if out.len() + len > limit {
                    return Err(corrupt("output past the declared size"));
                }
                let start = out.len() - back;
                for k in 0..len {
                    let b = out[start + k];
                    out.push(b);
                }
            }
        }
    }
}

pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// Decompresses gzip members that come to exactly `size` bytes.
pub(crate) fn gunzip(input: &[u8], size: usize) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(size);
    let mut pos = 0;
    while pos < input.len() {
        let header = input
            .get(pos..pos + 10)
            .ok_or_else(|| corrupt("a member shorter than its header"))?;
        if header[..3] != [0x1f, 0x8b, 8] {
            return Err(corrupt("no gzip magic"));
        }
        let flags = header[3];
        pos += 10;
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
        let body = input
            .get(pos..)
            .ok_or_else(|| corrupt("the header runs past the end"))?;
        let start = out.len();
        pos += inflate(body, &mut out, size)?;
        let trailer = input
            .get(pos..pos + 8)
            .ok_or_else(|| corrupt("a member without its trailer"))?;
        let crc = u32::from_le_bytes(trailer[..4].try_into().expect("4 bytes"));
        let isize = u32::from_le_bytes(trailer[4..].try_into().expect("4 bytes"));
        if crc != crc32(&out[start..]) || isize != (out.len() - start) as u32 {
            return Err(corrupt("a member's CRC-32 or length does not match"));
        }
        pos += 8;
    }
    if out.len() != size {
        return Err(corrupt(&format!(
            "{} bytes, the page header says {size}",
            out.len()
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_and_fixed_blocks_inflate() {
        // gzip of b"hello hello hello" (fixed Huffman, one back-reference),
        // as Python's gzip.compress(data, mtime=0) writes it.
        let member = [
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9,
            0xc9, 0x57, 0xc8, 0x40, 0x90, 0x00, 0x80, 0x88, 0xf9, 0xe5, 0x11, 0x00, 0x00, 0x00,
        ];
        assert_eq!(gunzip(&member, 17).unwrap(), b"hello hello hello");
        assert!(gunzip(&member, 16).is_err());
        assert!(gunzip(&member[..20], 17).is_err());
        let mut flipped = member;
        flipped[12] ^= 0x10;
        assert!(gunzip(&flipped, 17).is_err());
    }
}
