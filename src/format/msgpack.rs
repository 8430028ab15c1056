//! A small msgpack reader for the collection footer.
//!
//! The footer's shape is fixed (see `footer.rs`), so a direct reader replaces
//! a generic deserializer: it is what keeps the wasm build small (rmp-serde
//! and serde's visitors cost about 100 KB of code there). Every length is
//! bounded by the bytes that remain, and every allocation it sizes is charged
//! to a [`Budget`] first: a one-byte item can still cost 24 bytes decoded.

use crate::error::{Error, Result};
use crate::format::budget::Budget;
use crate::format::cursor::Cursor;

/// A cursor over msgpack bytes.
pub(crate) struct Reader<'a> {
    c: Cursor<'a, 'static>,
    budget: Budget,
}

/// The footer's failures are the collection's: `CorruptCollection`.
fn footer_failure(what: &str, why: &str, at: usize) -> Error {
    Error::corrupt_collection(format!("{what} does not decode: {why} at byte {at}"))
}

impl<'a> Reader<'a> {
    /// A reader whose allocations are charged to `budget`.
    pub(crate) fn with_budget(bytes: &'a [u8], budget: Budget) -> Self {
        Self {
            c: Cursor::new(bytes, "the footer", footer_failure),
            budget,
        }
    }

    #[cfg(test)]
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self::with_budget(bytes, Budget::new(u64::MAX))
    }

    fn fail(&self, what: &str) -> Error {
        self.c.fail(what)
    }

    fn byte(&mut self) -> Result<u8> {
        self.c.byte()
    }

    fn be(&mut self, n: u64) -> Result<u64> {
        self.c.be(n)
    }

    /// Bytes not yet read: no collection can hold more items than that.
    pub(crate) fn remaining(&self) -> usize {
        self.c.left()
    }

    /// True when every byte was consumed.
    pub(crate) fn is_done(&self) -> bool {
        self.c.is_done()
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.c.peek()
    }

    pub(crate) fn array_len(&mut self) -> Result<usize> {
        let n = match self.byte()? {
            m @ 0x90..=0x9f => (m & 0x0f) as u64,
            0xdc => self.be(2)?,
            0xdd => self.be(4)?,
            _ => return Err(self.fail("expected an array")),
        };
        self.bounded(n)
    }

    /// An array of exactly `n` items.
    pub(crate) fn array_of(&mut self, n: usize) -> Result<()> {
        let found = self.array_len()?;
        if found != n {
            return Err(self.fail(&format!("expected {n} fields, found {found}")));
        }
        Ok(())
    }

    pub(crate) fn map_len(&mut self) -> Result<usize> {
        let n = match self.byte()? {
            m @ 0x80..=0x8f => (m & 0x0f) as u64,
            0xde => self.be(2)?,
            0xdf => self.be(4)?,
            _ => return Err(self.fail("expected a map")),
        };
        self.bounded(n)
    }

    fn bounded(&self, n: u64) -> Result<usize> {
        self.c.count(n)
    }

    pub(crate) fn str(&mut self) -> Result<&'a str> {
        let n = match self.byte()? {
            m @ 0xa0..=0xbf => (m & 0x1f) as u64,
            0xd9 => self.be(1)?,
            0xda => self.be(2)?,
            0xdb => self.be(4)?,
            _ => return Err(self.fail("expected a string")),
        };
        let bytes = self.c.take(n)?;
        std::str::from_utf8(bytes).map_err(|_| self.fail("a string that is not UTF-8"))
    }

    /// Any msgpack integer, as i128 so both u64 and i64 fit.
    fn integer(&mut self) -> Result<i128> {
        Ok(match self.byte()? {
            m @ 0x00..=0x7f => m as i128,
            m @ 0xe0..=0xff => (m as i8) as i128,
            0xcc => self.be(1)? as i128,
            0xcd => self.be(2)? as i128,
            0xce => self.be(4)? as i128,
            0xcf => self.be(8)? as i128,
            0xd0 => self.be(1)? as u8 as i8 as i128,
            0xd1 => self.be(2)? as u16 as i16 as i128,
            0xd2 => self.be(4)? as u32 as i32 as i128,
            0xd3 => self.be(8)? as i64 as i128,
            _ => return Err(self.fail("expected an integer")),
        })
    }

    pub(crate) fn u32(&mut self) -> Result<u32> {
        let v = self.integer()?;
        u32::try_from(v).map_err(|_| self.fail(&format!("{v} is not a u32")))
    }

    pub(crate) fn u64(&mut self) -> Result<u64> {
        let v = self.integer()?;
        u64::try_from(v).map_err(|_| self.fail(&format!("{v} is not a u64")))
    }

    pub(crate) fn i64(&mut self) -> Result<i64> {
        let v = self.integer()?;
        i64::try_from(v).map_err(|_| self.fail(&format!("{v} is not an i64")))
    }

    /// A string the caller keeps, charged to the budget.
    pub(crate) fn string(&mut self) -> Result<String> {
        let s = self.str()?;
        self.budget.charge(s.len() as u64, "the footer's strings")?;
        Ok(s.to_string())
    }

    /// Charges `count` items of `item_bytes` each to the budget.
    pub(crate) fn charge_items(
        &mut self,
        count: usize,
        item_bytes: usize,
        what: &str,
    ) -> Result<()> {
        self.budget.charge_items(count as u64, item_bytes, what)
    }

    /// An array whose items `item` reads; its capacity is charged to the
    /// budget before it is reserved.
    pub(crate) fn vec<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        let n = self.array_len()?;
        self.budget
            .charge_items(n as u64, std::mem::size_of::<T>(), "a footer list")?;
        // Grown as items prove themselves, not reserved on the count's word.
        let mut out = Vec::with_capacity(n.min(4096));
        for _ in 0..n {
            out.push(item(self)?);
        }
        Ok(out)
    }

    /// A `(u32, u32)` pair.
    pub(crate) fn pair(&mut self) -> Result<(u32, u32)> {
        self.array_of(2)?;
        Ok((self.u32()?, self.u32()?))
    }

    pub(crate) fn error(&self, what: &str) -> Error {
        self.fail(what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_integer_width_reads() {
        for v in [
            0u64,
            1,
            127,
            128,
            255,
            256,
            65535,
            65536,
            u32::MAX as u64,
            u64::MAX,
        ] {
            let packed = rmp_serde::to_vec(&v).unwrap();
            assert_eq!(Reader::new(&packed).u64().unwrap(), v);
        }
        for v in [
            0i64,
            -1,
            -32,
            -33,
            -128,
            -129,
            i32::MIN as i64,
            i64::MIN,
            i64::MAX,
        ] {
            let packed = rmp_serde::to_vec(&v).unwrap();
            assert_eq!(Reader::new(&packed).i64().unwrap(), v);
        }
        let packed = rmp_serde::to_vec(&(u32::MAX as u64 + 1)).unwrap();
        assert!(Reader::new(&packed).u32().is_err());
    }

    #[test]
    fn a_pool_of_tiny_items_is_held_to_the_budget() {
        // 100,000 nils claim 2.4 MB as strings: past a 1 MB budget.
        let mut forged = vec![0xdd];
        forged.extend_from_slice(&100_000u32.to_be_bytes());
        forged.extend(std::iter::repeat_n(0xc0, 100_000));
        let err = Reader::with_budget(&forged, Budget::new(1 << 20))
            .vec(|r| r.string())
            .unwrap_err();
        assert_eq!(err.code(), "TooLarge");
    }

    #[test]
    fn forged_lengths_are_refused_before_allocating() {
        // An array claiming 4 billion items in 5 bytes.
        let forged = [0xdd, 0xff, 0xff, 0xff, 0xff];
        assert!(Reader::new(&forged).vec(|r| r.u32()).is_err());
        let long_string = [0xdb, 0x7f, 0xff, 0xff, 0xff, b'a'];
        assert!(Reader::new(&long_string).str().is_err());
        assert!(Reader::new(&[]).array_len().is_err());
    }
}
