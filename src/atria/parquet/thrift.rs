//! Thrift's compact protocol, as parquet's footer and page headers use it.
//!
//! The bytes are decoded into a small generic tree ([`Thrift`]) that
//! borrows strings and binaries from the input; `meta.rs` then picks the
//! fields it knows by id. Every count is bounded by the bytes left (each
//! element takes at least one byte), nesting by [`MAX_DEPTH`], and every node
//! is charged to the [`Budget`], so a forged footer is a typed error.

use crate::atria::error::{Error, Result};
use crate::format::budget::Budget;
use crate::format::cursor::Cursor;

/// Thrift structures in parquet nest a handful of levels.
const MAX_DEPTH: usize = 32;

/// One decoded compact-protocol value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Thrift<'a> {
    Bool(bool),
    Int(i64),
    Double(f64),
    Binary(&'a [u8]),
    List(Vec<Thrift<'a>>),
    /// Map entries, flattened key, value, key, value…
    Map(Vec<Thrift<'a>>),
    Struct(Vec<(i16, Thrift<'a>)>),
}

impl<'a> Thrift<'a> {
    /// The field `id` of a struct.
    pub(crate) fn field(&self, id: i16) -> Option<&Thrift<'a>> {
        match self {
            Thrift::Struct(fields) => fields.iter().find(|(i, _)| *i == id).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn int(&self, id: i16) -> Option<i64> {
        match self.field(id)? {
            Thrift::Int(v) => Some(*v),
            _ => None,
        }
    }

    pub(crate) fn bool(&self, id: i16) -> Option<bool> {
        match self.field(id)? {
            Thrift::Bool(v) => Some(*v),
            _ => None,
        }
    }

    pub(crate) fn binary(&self, id: i16) -> Option<&'a [u8]> {
        match self.field(id)? {
            Thrift::Binary(v) => Some(v),
            _ => None,
        }
    }

    pub(crate) fn list(&self, id: i16) -> Option<&[Thrift<'a>]> {
        match self.field(id)? {
            Thrift::List(v) => Some(v),
            _ => None,
        }
    }

    /// The union member set in a thrift union (a struct with one field).
    pub(crate) fn union_member(&self) -> Option<(i16, &Thrift<'a>)> {
        match self {
            Thrift::Struct(fields) => fields.first().map(|(i, v)| (*i, v)),
            _ => None,
        }
    }
}

/// Decodes one struct from the front of `bytes`; returns it and the bytes
/// it took.
pub(crate) fn decode_struct<'a>(
    bytes: &'a [u8],
    budget: &mut Budget,
    what: &str,
) -> Result<(Thrift<'a>, usize)> {
    let mut reader = Reader {
        c: Cursor::new(bytes, what, failure),
        budget,
    };
    let value = reader.structure(0)?;
    Ok((value, reader.c.at()))
}

fn failure(what: &str, why: &str, at: usize) -> Error {
    Error::Corrupt(format!("{what} is not valid thrift: {why} at byte {at}"))
}

struct Reader<'a, 'b> {
    c: Cursor<'a, 'b, Error>,
    budget: &'b mut Budget,
}

impl<'a> Reader<'a, '_> {
    fn fail(&self, why: &str) -> Error {
        self.c.fail(why)
    }

    fn byte(&mut self) -> Result<u8> {
        self.c.byte()
    }

    fn varint(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                return Err(self.fail("a varint longer than 64 bits"));
            }
            value |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.fail("a varint longer than 10 bytes"))
    }

    fn zigzag(&mut self) -> Result<i64> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn charge(&mut self, items: u64) -> Result<()> {
        let what = format!("the thrift of {}", self.c.what());
        Ok(self
            .budget
            .charge_items(items, std::mem::size_of::<Thrift>() + 8, &what)?)
    }

    /// A count of elements, each at least one byte.
    fn count(&mut self, n: u64) -> Result<usize> {
        let n = self.c.count(n)?;
        self.charge(n as u64)?;
        Ok(n)
    }

    fn value(&mut self, kind: u8, depth: usize) -> Result<Thrift<'a>> {
        if depth > MAX_DEPTH {
            return Err(self.fail(&format!("nesting deeper than {MAX_DEPTH}")));
        }
        Ok(match kind {
            1 => Thrift::Bool(true),
            2 => Thrift::Bool(false),
            3 => Thrift::Int(self.byte()? as i8 as i64),
            4..=6 => Thrift::Int(self.zigzag()?),
            7 => Thrift::Double(f64::from_le_bytes(self.c.array()?)),
            8 => {
                let n = self.varint()?;
                Thrift::Binary(self.c.take(n)?)
            }
            9 | 10 => {
                let header = self.byte()?;
                let size = match header >> 4 {
                    15 => self.varint()?,
                    n => n as u64,
                };
                let element = header & 0x0f;
                let n = self.count(size)?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.element(element, depth + 1)?);
                }
                Thrift::List(items)
            }
            11 => {
                let size = self.varint()?;
                let n = self.count(size.saturating_mul(2))?;
                let mut items = Vec::with_capacity(n);
                if n > 0 {
                    let kinds = self.byte()?;
                    for _ in 0..n / 2 {
                        items.push(self.element(kinds >> 4, depth + 1)?);
                        items.push(self.element(kinds & 0x0f, depth + 1)?);
                    }
                }
                Thrift::Map(items)
            }
            12 => self.structure(depth + 1)?,
            other => return Err(self.fail(&format!("unknown type {other}"))),
        })
    }

    /// A collection element: booleans take a byte each here.
    fn element(&mut self, kind: u8, depth: usize) -> Result<Thrift<'a>> {
        if kind == 1 || kind == 2 {
            return Ok(Thrift::Bool(self.byte()? == 1));
        }
        self.value(kind, depth)
    }

    fn structure(&mut self, depth: usize) -> Result<Thrift<'a>> {
        if depth > MAX_DEPTH {
            return Err(self.fail(&format!("nesting deeper than {MAX_DEPTH}")));
        }
        let mut fields = Vec::new();
        let mut last_id: i16 = 0;
        loop {
            let header = self.byte()?;
            if header == 0 {
                return Ok(Thrift::Struct(fields));
            }
            let delta = header >> 4;
            let id = if delta == 0 {
                let id = self.zigzag()?;
                i16::try_from(id).map_err(|_| self.fail("a field id out of range"))?
            } else {
                last_id.wrapping_add(delta as i16)
            };
            last_id = id;
            self.charge(1)?;
            let value = self.value(header & 0x0f, depth)?;
            fields.push((id, value));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> Result<Thrift<'_>> {
        decode_struct(bytes, &mut Budget::new(1 << 20), "a test struct").map(|(v, _)| v)
    }

    #[test]
    fn fields_lists_and_strings_decode() {
        // {1: i32 -3, 2: "ab", 4: list<i32>[1, 2], 5: {1: true}}
        let bytes = [
            0x15, 0x05, 0x18, 0x02, b'a', b'b', 0x29, 0x25, 0x02, 0x04, 0x1c, 0x11, 0x00, 0x00,
        ];
        let v = decode(&bytes).unwrap();
        assert_eq!(v.int(1), Some(-3));
        assert_eq!(v.binary(2), Some(&b"ab"[..]));
        assert_eq!(v.list(4).unwrap(), &[Thrift::Int(1), Thrift::Int(2)]);
        assert_eq!(v.field(5).unwrap().bool(1), Some(true));
    }

    #[test]
    fn forged_thrift_is_a_typed_error() {
        let cases: [&[u8]; 5] = [
            &[0x18, 0xff, 0xff, 0xff, 0x0f],       // a 4 GB string
            &[0x19, 0xf5, 0xff, 0xff, 0xff, 0x0f], // 4 billion list items
            &[0x15],                               // ends inside a field
            &[0x1d, 0x00],                         // type 13
            &[0x1c; 200],                          // deep nesting
        ];
        for bytes in cases {
            assert_eq!(decode(bytes).unwrap_err().code(), "Corrupt", "{bytes:?}");
        }
    }
}
