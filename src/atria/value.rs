//! Any msgpack value, as a datadings record holds them.
//!
//! The footer reader (`format::msgpack`) decodes one fixed shape; records
//! are free-form, so this is a small generic decoder under the same rules:
//! every length is bounded by the bytes left, every allocation is charged to
//! a [`Budget`] first, and nesting is bounded so that a forged record cannot
//! overflow the stack.

use crate::atria::error::{Error, Result};
use crate::format::budget::Budget;
use crate::format::cursor::Cursor;
use crate::NdArray;

use super::numpy;

/// Nesting deeper than this is refused: real records nest a few levels.
const MAX_DEPTH: usize = 128;

/// A decoded msgpack value; msgpack-numpy maps become [`Value::Array`].
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `nil` (Python `None`).
    Nil,
    /// A boolean.
    Bool(bool),
    /// An integer that fits `i64`.
    Int(i64),
    /// An integer above `i64::MAX`.
    UInt(u64),
    /// A float (float 32 widened exactly).
    Float(f64),
    /// A UTF-8 string.
    Str(String),
    /// Raw bytes (Python `bytes`).
    Bin(Vec<u8>),
    /// A list.
    List(Vec<Value>),
    /// A map, in stored order.
    Map(Vec<(Value, Value)>),
    /// An extension type (tag, bytes).
    Ext(i8, Vec<u8>),
    /// A numpy array or scalar (a scalar has an empty shape).
    Array(NdArray),
}

impl Value {
    /// The value under string key `key`, for a map.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| matches!(k, Value::Str(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Decodes exactly one value filling `bytes`, charging `budget`.
pub(crate) fn decode(bytes: &[u8], budget: &mut Budget, what: &str) -> Result<Value> {
    let mut reader = Reader {
        c: Cursor::new(bytes, what, failure),
        budget,
    };
    let value = reader.value(0)?;
    if !reader.c.is_done() {
        return Err(reader.fail(&format!("{} bytes after the value", reader.c.left())));
    }
    Ok(value)
}

fn failure(what: &str, why: &str, at: usize) -> Error {
    Error::Corrupt(format!("{what} does not decode: {why} at byte {at}"))
}

struct Reader<'a, 'b> {
    c: Cursor<'a, 'b, Error>,
    budget: &'b mut Budget,
}

impl<'a> Reader<'a, '_> {
    fn fail(&self, why: &str) -> Error {
        self.c.fail(why)
    }

    fn be(&mut self, n: u64) -> Result<u64> {
        self.c.be(n)
    }

    /// A count of items, each at least one byte: no more than the bytes left.
    fn count(&mut self, n: u64, item_bytes: usize) -> Result<usize> {
        let n = self.c.count(n)?;
        let what = format!("a list in {}", self.c.what());
        self.budget.charge_items(n as u64, item_bytes, &what)?;
        Ok(n)
    }

    fn owned(&mut self, n: u64) -> Result<Vec<u8>> {
        let bytes = self.c.take(n)?;
        self.budget
            .charge(n, &format!("bytes in {}", self.c.what()))?;
        Ok(bytes.to_vec())
    }

    fn value(&mut self, depth: usize) -> Result<Value> {
        if depth > MAX_DEPTH {
            return Err(self.fail(&format!("nesting deeper than {MAX_DEPTH}")));
        }
        let marker = self.c.byte()?;
        Ok(match marker {
            0x00..=0x7f => Value::Int(marker as i64),
            0xe0..=0xff => Value::Int(marker as i8 as i64),
            0xc0 => Value::Nil,
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xcc => Value::Int(self.be(1)? as i64),
            0xcd => Value::Int(self.be(2)? as i64),
            0xce => Value::Int(self.be(4)? as i64),
            0xcf => match self.be(8)? {
                v if v <= i64::MAX as u64 => Value::Int(v as i64),
                v => Value::UInt(v),
            },
            0xd0 => Value::Int(self.be(1)? as u8 as i8 as i64),
            0xd1 => Value::Int(self.be(2)? as u16 as i16 as i64),
            0xd2 => Value::Int(self.be(4)? as u32 as i32 as i64),
            0xd3 => Value::Int(self.be(8)? as i64),
            0xca => Value::Float(f32::from_bits(self.be(4)? as u32) as f64),
            0xcb => Value::Float(f64::from_bits(self.be(8)?)),
            0xa0..=0xbf => self.str((marker & 0x1f) as u64)?,
            0xd9 => {
                let n = self.be(1)?;
                self.str(n)?
            }
            0xda => {
                let n = self.be(2)?;
                self.str(n)?
            }
            0xdb => {
                let n = self.be(4)?;
                self.str(n)?
            }
            0xc4..=0xc6 => {
                let n = self.be(1 << (marker - 0xc4))?;
                Value::Bin(self.owned(n)?)
            }
            0x90..=0x9f => self.list((marker & 0x0f) as u64, depth)?,
            0xdc => {
                let n = self.be(2)?;
                self.list(n, depth)?
            }
            0xdd => {
                let n = self.be(4)?;
                self.list(n, depth)?
            }
            0x80..=0x8f => self.map((marker & 0x0f) as u64, depth)?,
            0xde => {
                let n = self.be(2)?;
                self.map(n, depth)?
            }
            0xdf => {
                let n = self.be(4)?;
                self.map(n, depth)?
            }
            0xd4..=0xd8 => {
                let tag = self.c.byte()? as i8;
                Value::Ext(tag, self.owned(1 << (marker - 0xd4))?)
            }
            0xc7..=0xc9 => {
                let n = self.be(1 << (marker - 0xc7))?;
                let tag = self.c.byte()? as i8;
                Value::Ext(tag, self.owned(n)?)
            }
            0xc1 => return Err(self.fail("the never-used marker 0xc1")),
        })
    }

    fn str(&mut self, n: u64) -> Result<Value> {
        let bytes = self.owned(n)?;
        String::from_utf8(bytes)
            .map(Value::Str)
            .map_err(|_| self.fail("a string that is not UTF-8"))
    }

    fn list(&mut self, n: u64, depth: usize) -> Result<Value> {
        let n = self.count(n, std::mem::size_of::<Value>())?;
        // Grown as items prove themselves, not reserved on the count's word.
        let mut items = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            items.push(self.value(depth + 1)?);
        }
        Ok(Value::List(items))
    }

    fn map(&mut self, n: u64, depth: usize) -> Result<Value> {
        let n = self.count(n, 2 * std::mem::size_of::<Value>())?;
        let mut entries = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            let key = self.value(depth + 1)?;
            let value = self.value(depth + 1)?;
            entries.push((key, value));
        }
        match numpy::from_map(&entries, self.budget, self.c.what()) {
            Some(array) => Ok(Value::Array(array?)),
            None => Ok(Value::Map(entries)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(bytes: &[u8]) -> Result<Value> {
        decode(bytes, &mut Budget::new(1 << 20), "a test record")
    }

    #[test]
    fn scalars_and_containers_decode() {
        // {"a": [1, -1, 300, nil, true, 1.5], "b": b"\x01"}
        let bytes = [
            0x82, 0xa1, b'a', 0x96, 0x01, 0xff, 0xcd, 0x01, 0x2c, 0xc0, 0xc3, 0xcb, 0x3f, 0xf8, 0,
            0, 0, 0, 0, 0, 0xa1, b'b', 0xc4, 0x01, 0x01,
        ];
        let v = decode_all(&bytes).unwrap();
        assert_eq!(
            v.get("a"),
            Some(&Value::List(vec![
                Value::Int(1),
                Value::Int(-1),
                Value::Int(300),
                Value::Nil,
                Value::Bool(true),
                Value::Float(1.5)
            ]))
        );
        assert_eq!(v.get("b"), Some(&Value::Bin(vec![1])));
        let big = [0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
        assert_eq!(decode_all(&big).unwrap(), Value::UInt(u64::MAX));
    }

    #[test]
    fn forged_records_are_typed_errors() {
        let cases: [&[u8]; 7] = [
            &[0xdd, 0xff, 0xff, 0xff, 0xff],       // 4 billion items in 5 bytes
            &[0xdb, 0x7f, 0xff, 0xff, 0xff, b'a'], // a 2 GB string
            &[0xa2, 0xff, 0xfe],                   // not UTF-8
            &[0xc1],                               // never used
            &[],                                   // nothing
            &[0x01, 0x02],                         // trailing bytes
            &[0x91; 300],                          // deep nesting
        ];
        for bytes in cases {
            assert_eq!(
                decode_all(bytes).unwrap_err().code(),
                "Corrupt",
                "{bytes:?}"
            );
        }
        // 100,000 nils in a list claim 3.2 MB decoded: past a 1 MB budget.
        let mut pool = vec![0xdd];
        pool.extend_from_slice(&100_000u32.to_be_bytes());
        pool.extend(std::iter::repeat_n(0xc0, 100_000));
        assert_eq!(decode_all(&pool).unwrap_err().code(), "TooLarge");
    }
}
