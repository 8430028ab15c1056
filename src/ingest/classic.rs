//! The size a classic NetCDF file (CDF-1, CDF-2, CDF-5) must have, from its
//! header. libnetcdf reads the missing tail of a truncated classic file as
//! zeros without a word (atlas-python then stores them); walking the header
//! ourselves turns that into an error. NetCDF-4 files are HDF5, which
//! notices truncation on its own.

use std::io::{self, Read};
use std::path::Path;

/// Fails a classic file shorter than its header says it is.
pub(crate) fn check_complete(path: &Path) -> Result<(), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open: {e}"))?;
    let size = file
        .metadata()
        .map_err(|e| format!("cannot stat: {e}"))?
        .len();
    match declared_size(io::BufReader::new(file))? {
        Some(need) if need > size => Err(format!(
            "truncated: its header places data up to byte {need}, but the file has {size} bytes"
        )),
        _ => Ok(()),
    }
}

/// `Some(bytes)` the header's variables reach, `None` for a file that is not
/// classic or that declares streaming record counts.
pub(crate) fn declared_size(file: impl Read) -> Result<Option<u64>, String> {
    let mut r = Header {
        input: file,
        wide: false,
    };
    let mut magic = [0u8; 4];
    if r.input.read_exact(&mut magic).is_err() || &magic[..3] != b"CDF" {
        return Ok(None);
    }
    let version = magic[3];
    if !matches!(version, 1 | 2 | 5) {
        return Ok(None);
    }
    // CDF-5 widens counts, lengths and sizes to 64 bits.
    r.wide = version == 5;
    let numrecs = r.count()?;
    let streaming = numrecs == if r.wide { u64::MAX } else { u32::MAX as u64 };
    let mut dims = Vec::new();
    for _ in 0..r.list(TAG_DIMENSION)? {
        r.name()?;
        dims.push(r.count()?);
    }
    r.attributes()?;
    let mut variables = Vec::new();
    for _ in 0..r.list(TAG_VARIABLE)? {
        r.name()?;
        let rank = r.count()?;
        let mut ids = Vec::new();
        for _ in 0..rank {
            ids.push(r.count()?);
        }
        r.attributes()?;
        let width = type_width(r.u32()?)?;
        let vsize = r.count()?;
        let begin = if version == 1 {
            r.u32()? as u64
        } else {
            r.u64()?
        };
        let lens: Vec<u64> = ids
            .iter()
            .map(|&id| {
                dims.get(id as usize)
                    .copied()
                    .ok_or("a variable names an undeclared dimension")
            })
            .collect::<Result<_, _>>()?;
        // A record variable's first dimension has length 0 in the header.
        let record = lens.first() == Some(&0);
        let cells = lens
            .iter()
            .skip(usize::from(record))
            .try_fold(width, |a, &n| a.checked_mul(n))
            .ok_or("a variable's size overflows 64 bits")?;
        variables.push((record, begin, vsize, cells));
    }
    if streaming {
        return Ok(None);
    }
    let records: Vec<_> = variables.iter().filter(|v| v.0).collect();
    // One record variable is stored unpadded; several use their padded vsize.
    let recsize = match records.as_slice() {
        [only] => only.3,
        many => many.iter().map(|v| v.2).sum(),
    };
    let mut end = 0u64;
    for &(record, begin, vsize, cells) in &variables {
        let reach = if !record {
            begin.checked_add(cells.min(vsize))
        } else if numrecs == 0 {
            Some(0)
        } else {
            (numrecs - 1)
                .checked_mul(recsize)
                .and_then(|r| r.checked_add(begin))
                .and_then(|r| r.checked_add(cells))
        };
        end = end.max(reach.ok_or("the declared size overflows 64 bits")?);
    }
    Ok(Some(end))
}

const TAG_DIMENSION: u32 = 0x0A;
const TAG_VARIABLE: u32 = 0x0B;
const TAG_ATTRIBUTE: u32 = 0x0C;

struct Header<R> {
    input: R,
    wide: bool,
}

impl<R: Read> Header<R> {
    fn u32(&mut self) -> Result<u32, String> {
        let mut b = [0u8; 4];
        self.input.read_exact(&mut b).map_err(truncated)?;
        Ok(u32::from_be_bytes(b))
    }

    fn u64(&mut self) -> Result<u64, String> {
        let mut b = [0u8; 8];
        self.input.read_exact(&mut b).map_err(truncated)?;
        Ok(u64::from_be_bytes(b))
    }

    /// A count or length: 32 bits, 64 in CDF-5.
    fn count(&mut self) -> Result<u64, String> {
        if self.wide {
            self.u64()
        } else {
            self.u32().map(u64::from)
        }
    }

    /// A list's element count, or 0 when it is absent.
    fn list(&mut self, tag: u32) -> Result<u64, String> {
        let found = self.u32()?;
        let n = self.count()?;
        if found != tag && !(found == 0 && n == 0) {
            return Err(format!(
                "the header has tag {found:#x} where {tag:#x} belongs"
            ));
        }
        Ok(n)
    }

    /// Skips `n` bytes padded to 4, never buffering more than the reads need.
    fn skip(&mut self, n: u64) -> Result<(), String> {
        let padded = n.checked_add(3).ok_or("a length overflows")? & !3;
        let copied =
            io::copy(&mut (&mut self.input).take(padded), &mut io::sink()).map_err(truncated)?;
        if copied < padded {
            return Err(truncated(io::ErrorKind::UnexpectedEof.into()));
        }
        Ok(())
    }

    fn name(&mut self) -> Result<(), String> {
        let n = self.count()?;
        self.skip(n)
    }

    fn attributes(&mut self) -> Result<(), String> {
        for _ in 0..self.list(TAG_ATTRIBUTE)? {
            self.name()?;
            let width = type_width(self.u32()?)?;
            let n = self.count()?;
            self.skip(
                n.checked_mul(width)
                    .ok_or("an attribute's size overflows")?,
            )?;
        }
        Ok(())
    }
}

fn truncated(e: io::Error) -> String {
    format!("the classic header ends early ({e})")
}

fn type_width(code: u32) -> Result<u64, String> {
    Ok(match code {
        1 | 2 | 7 => 1,
        3 | 8 => 2,
        4 | 5 | 9 => 4,
        6 | 10 | 11 => 8,
        other => return Err(format!("the header names an unknown type {other}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CDF-1 header: dims x=3 and a record dim; a float `a(x)` at 100 and
    /// a short record variable `r(time)` at 112, with 5 records.
    fn header(numrecs: u32) -> Vec<u8> {
        let mut h = b"CDF\x01".to_vec();
        let be = |h: &mut Vec<u8>, v: u32| h.extend_from_slice(&v.to_be_bytes());
        let name = |h: &mut Vec<u8>, s: &str| {
            h.extend_from_slice(&(s.len() as u32).to_be_bytes());
            h.extend_from_slice(s.as_bytes());
            h.resize(h.len().div_ceil(4) * 4, 0);
        };
        be(&mut h, numrecs);
        be(&mut h, TAG_DIMENSION);
        be(&mut h, 2);
        name(&mut h, "x");
        be(&mut h, 3);
        name(&mut h, "time");
        be(&mut h, 0);
        be(&mut h, TAG_ATTRIBUTE);
        be(&mut h, 1);
        name(&mut h, "title");
        be(&mut h, 2); // char
        be(&mut h, 5);
        h.extend_from_slice(b"hello\0\0\0");
        be(&mut h, TAG_VARIABLE);
        be(&mut h, 2);
        for (var, dim, ty, vsize, begin) in [("a", 0, 5, 12, 100), ("r", 1, 3, 4, 112)] {
            name(&mut h, var);
            be(&mut h, 1);
            be(&mut h, dim);
            be(&mut h, 0);
            be(&mut h, 0);
            be(&mut h, ty);
            be(&mut h, vsize);
            be(&mut h, begin);
        }
        h
    }

    #[test]
    fn the_header_gives_the_size_its_variables_reach() {
        // One record variable: 5 unpadded 2-byte records from 112.
        assert_eq!(declared_size(header(5).as_slice()).unwrap(), Some(122));
        assert_eq!(declared_size(header(0).as_slice()).unwrap(), Some(112));
        assert_eq!(declared_size(header(u32::MAX).as_slice()).unwrap(), None);
        assert_eq!(declared_size(&b"\x89HDF\r\n"[..]).unwrap(), None);
        let cut = header(5);
        for n in [4, 9, 20, cut.len() - 1] {
            assert!(declared_size(&cut[..n]).is_err(), "{n}");
        }
    }
}
