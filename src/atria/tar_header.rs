//! TAR header blocks: ustar, GNU and PAX, as Python's `tarfile` writes them.
//!
//! No I/O here. A block is 512 bytes; a member is a header block, then its
//! data padded to whole blocks. A long or non-ASCII name lives only in the
//! PAX extended header (typeflag `x`) just before the member's own header,
//! as a `path` record; the ustar `name` field then holds a mangled copy.

use crate::atria::error::{Error, Result};

/// The TAR block size.
pub(crate) const BLOCK: u64 = 512;

/// The largest PAX (or GNU long-name) record block we read: names and
/// attributes, never data. Python writes a few hundred bytes.
pub(crate) const MAX_EXTENDED: u64 = 64 << 10;

/// What one 512-byte block holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Block {
    /// A header whose checksum holds.
    Header(Header),
    /// All zeros: the end-of-archive marker (or padding after it).
    Zeros,
    /// Anything else: member data, or damage.
    NotAHeader,
}

/// The fields of a header block this reader uses.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Header {
    /// `prefix/name` for ustar, `name` otherwise; raw bytes.
    pub name: Vec<u8>,
    /// The data size in bytes.
    pub size: u64,
    /// `0` (or NUL) regular file, `x` PAX, `g` PAX global, `L` GNU long name, …
    pub typeflag: u8,
}

impl Header {
    /// True for the headers that describe the next header, not a member.
    pub fn is_extended(&self) -> bool {
        matches!(self.typeflag, b'x' | b'L' | b'g' | b'K')
    }

    /// True for a regular file (the only members WebDataset writes).
    pub fn is_file(&self) -> bool {
        matches!(self.typeflag, b'0' | 0 | b'7')
    }
}

/// Blocks the data of `size` bytes takes. Saturates: a base-256 size field
/// can hold nearly `u64::MAX`, which then fails the caller's bounds check.
pub(crate) fn padded(size: u64) -> u64 {
    size.div_ceil(BLOCK).saturating_mul(BLOCK)
}

/// Reads one block.
pub(crate) fn parse_block(block: &[u8]) -> Block {
    let Ok(block) = <&[u8; 512]>::try_from(block) else {
        return Block::NotAHeader;
    };
    if block.iter().all(|&b| b == 0) {
        return Block::Zeros;
    }
    let Some(stored) = octal(&block[148..156]) else {
        return Block::NotAHeader;
    };
    // The checksum counts its own field as eight spaces; old writers summed
    // signed bytes, so either sum is accepted.
    let field = 148..156;
    let unsigned: u64 = block
        .iter()
        .enumerate()
        .map(|(i, &b)| if field.contains(&i) { 32 } else { b as u64 })
        .sum();
    let signed: i64 = block
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if field.contains(&i) {
                32
            } else {
                b as i8 as i64
            }
        })
        .sum();
    if stored != unsigned && stored as i64 != signed {
        return Block::NotAHeader;
    }
    let Some(size) = number(&block[124..136]) else {
        return Block::NotAHeader;
    };
    let mut name = until_nul(&block[0..100]).to_vec();
    // POSIX ustar splits long names into prefix/name (GNU's magic has no prefix).
    if &block[257..263] == b"ustar\0" {
        let prefix = until_nul(&block[345..500]);
        if !prefix.is_empty() {
            let mut full = prefix.to_vec();
            full.push(b'/');
            full.extend_from_slice(&name);
            name = full;
        }
    }
    Block::Header(Header {
        name,
        size,
        typeflag: block[156],
    })
}

fn until_nul(field: &[u8]) -> &[u8] {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    &field[..end]
}

/// An octal field: optional spaces, digits, then NUL or space.
fn octal(field: &[u8]) -> Option<u64> {
    let text = until_nul(field);
    let text = std::str::from_utf8(text).ok()?.trim_matches(' ');
    if text.is_empty() {
        return Some(0);
    }
    // Digits only: from_str_radix would also take a leading '+'.
    if !text.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return None;
    }
    u64::from_str_radix(text, 8).ok()
}

/// A numeric field: octal, or GNU base-256 (high bit of the first byte set).
fn number(field: &[u8]) -> Option<u64> {
    match field.first() {
        Some(&first) if first & 0x80 != 0 => {
            if first & 0x40 != 0 {
                return None; // negative
            }
            let rest = &field[1..];
            if rest.len() > 8 && rest[..rest.len() - 8].iter().any(|&b| b != 0) {
                return None;
            }
            let value = rest.iter().fold(first as u64 & 0x3f, |acc, &b| {
                acc.checked_shl(8).map_or(u64::MAX, |a| a | b as u64)
            });
            Some(value)
        }
        _ => octal(field),
    }
}

/// What an extended header says about the member after it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Extended {
    /// The member's full name (PAX `path`, or a GNU long name).
    pub path: Option<Vec<u8>>,
    /// The member's size, when it does not fit the ustar field.
    pub size: Option<u64>,
}

/// Applies the data of extended header `header` to `into`.
pub(crate) fn parse_extended(header: &Header, data: &[u8], into: &mut Extended) -> Result<()> {
    match header.typeflag {
        b'x' => parse_pax(data, into),
        b'L' => {
            into.path = Some(until_nul(data).to_vec());
            Ok(())
        }
        // Global PAX headers and GNU long link names say nothing about
        // the member's name or size that this reader needs.
        _ => Ok(()),
    }
}

/// PAX records: `"<len> <key>=<value>\n"`, `len` counting the whole record.
fn parse_pax(mut data: &[u8], into: &mut Extended) -> Result<()> {
    let bad = |what: &str| Error::Corrupt(format!("a PAX header does not decode: {what}"));
    while !data.is_empty() {
        if data.iter().all(|&b| b == 0) {
            break; // padding
        }
        let space = data
            .iter()
            .position(|&b| b == b' ')
            .ok_or_else(|| bad("a record without a length"))?;
        let len: usize = std::str::from_utf8(&data[..space])
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad("a record length that is not a number"))?;
        if len <= space + 1 || len > data.len() || data[len - 1] != b'\n' {
            return Err(bad("a record length past its record"));
        }
        let record = &data[space + 1..len - 1];
        let eq = record
            .iter()
            .position(|&b| b == b'=')
            .ok_or_else(|| bad("a record without '='"))?;
        let (key, value) = (&record[..eq], &record[eq + 1..]);
        match key {
            b"path" => into.path = Some(value.to_vec()),
            b"size" => {
                let size = std::str::from_utf8(value)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| bad("a size that is not a number"))?;
                into.size = Some(size);
            }
            _ => {}
        }
        data = &data[len..];
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A ustar header block as Python writes one.
    pub(crate) fn header_block(name: &[u8], size: u64, typeflag: u8) -> Vec<u8> {
        let mut b = vec![0u8; 512];
        b[..name.len()].copy_from_slice(name);
        b[100..108].copy_from_slice(b"0000444\0");
        b[124..136].copy_from_slice(format!("{size:011o}\0").as_bytes());
        b[136..148].copy_from_slice(b"14524770400\0");
        b[156] = typeflag;
        b[257..265].copy_from_slice(b"ustar\x0000");
        b[148..156].copy_from_slice(b"        ");
        let sum: u64 = b.iter().map(|&x| x as u64).sum();
        b[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        b
    }

    #[test]
    fn a_header_reads_and_a_flipped_byte_does_not() {
        let block = header_block(b"a.png", 1234, b'0');
        let Block::Header(h) = parse_block(&block) else {
            panic!("not a header")
        };
        assert_eq!(
            (h.name.as_slice(), h.size, h.typeflag),
            (&b"a.png"[..], 1234, b'0')
        );
        let mut broken = block.clone();
        broken[3] ^= 1;
        assert_eq!(parse_block(&broken), Block::NotAHeader);
        assert_eq!(parse_block(&[0u8; 512]), Block::Zeros);
        assert_eq!(parse_block(&[b'x'; 512]), Block::NotAHeader);
        assert_eq!(parse_block(&[0u8; 100]), Block::NotAHeader);
    }

    #[test]
    fn pax_records_give_path_and_size() {
        let name = "dir/é-日本.png";
        let record = format!(" path={name}\n");
        let record = format!("{}{record}", record.len() + 2);
        let data = format!("{record}20 size=99999999999\n");
        let mut ext = Extended::default();
        parse_pax(data.as_bytes(), &mut ext).unwrap();
        assert_eq!(ext.path.as_deref(), Some(name.as_bytes()));
        assert_eq!(ext.size, Some(99_999_999_999));
    }

    #[test]
    fn garbage_pax_records_are_typed_errors() {
        for bad in [
            &b"zz path=a\n"[..],
            b"99 path=a\n",
            b"5 path=a\n",
            b"3 \n",
            b"7 patha\n",
        ] {
            let err = parse_pax(bad, &mut Extended::default()).unwrap_err();
            assert_eq!(err.code(), "Corrupt", "{bad:?}");
        }
    }

    #[test]
    fn octal_fields_are_digits_only() {
        assert_eq!(octal(b" 0001234\0"), Some(0o1234));
        assert_eq!(octal(b"        "), Some(0));
        for bad in [&b"+0001234\0"[..], b"-1", b"0008", b"12 34"] {
            assert_eq!(octal(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn base256_sizes_read() {
        let mut field = [0u8; 12];
        field[0] = 0x80;
        field[4..].copy_from_slice(&(10u64 << 33).to_be_bytes());
        assert_eq!(number(&field), Some(10 << 33));
        field[0] = 0xc0;
        assert_eq!(number(&field), None);
    }
}
