//! One bounded cursor over untrusted bytes, for the decoders that read a
//! format byte by byte: the collection footer's msgpack (`msgpack.rs`) and,
//! in `atria/`, msgpack records, parquet's thrift and Delta's JSON.
//!
//! Every read is checked against the bytes left and fails with the
//! decoder's own typed error, which names what was being decoded and the
//! byte it stopped at. A count of items is bounded by the bytes left (each
//! item takes at least one), so no count read from a file sizes anything
//! before the bytes can back it.

use crate::error::Error;

/// How a decoder words a failure, from what it decodes, why it stopped and
/// the byte it stopped at; it picks the error's type and kind (the core's
/// for the footer, Atria's own for its decoders).
pub(crate) type Failure<E> = fn(what: &str, why: &str, at: usize) -> E;

/// A position in `bytes` that only moves forward and never past the end.
pub(crate) struct Cursor<'a, 'w, E = Error> {
    bytes: &'a [u8],
    at: usize,
    what: &'w str,
    failure: Failure<E>,
}

impl<'a, 'w, E> Cursor<'a, 'w, E> {
    /// A cursor at the start of `bytes`, which hold `what`.
    pub(crate) fn new(bytes: &'a [u8], what: &'w str, failure: Failure<E>) -> Self {
        Self {
            bytes,
            at: 0,
            what,
            failure,
        }
    }

    /// The decoder's error for `why`, at the current byte.
    #[cold]
    pub(crate) fn fail(&self, why: &str) -> E {
        (self.failure)(self.what, why, self.at)
    }

    /// Bytes not yet read.
    #[inline]
    pub(crate) fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// True when every byte was read.
    #[inline]
    pub(crate) fn is_done(&self) -> bool {
        self.at == self.bytes.len()
    }

    /// The next byte, not read.
    #[inline]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// The next byte.
    #[inline]
    pub(crate) fn byte(&mut self) -> Result<u8, E> {
        let b = self.peek().ok_or_else(|| self.fail("the bytes end"))?;
        self.at += 1;
        Ok(b)
    }

    /// The next `n` bytes.
    #[inline]
    pub(crate) fn take(&mut self, n: u64) -> Result<&'a [u8], E> {
        let left = self.left();
        if n > left as u64 {
            return Err(self.fail(&format!("{n} bytes claimed with {left} left")));
        }
        let out = &self.bytes[self.at..self.at + n as usize];
        self.at += n as usize;
        Ok(out)
    }

    /// A big-endian unsigned integer of `n` bytes (at most 8).
    #[inline]
    pub(crate) fn be(&mut self, n: u64) -> Result<u64, E> {
        debug_assert!(n <= 8, "a u64 has 8 bytes");
        Ok(self
            .take(n)?
            .iter()
            .fold(0u64, |acc, &b| (acc << 8) | b as u64))
    }

    /// `n`, a count of items of at least a byte each, when the bytes left
    /// can hold that many.
    #[inline]
    pub(crate) fn count(&self, n: u64) -> Result<usize, E> {
        let left = self.left();
        if n > left as u64 {
            return Err(self.fail(&format!("{n} items claimed with {left} bytes left")));
        }
        Ok(n as usize)
    }
}

/// Reads only the Atria decoders use.
#[cfg_attr(not(feature = "atria"), allow(dead_code))]
impl<'a, 'w, E> Cursor<'a, 'w, E> {
    /// What the bytes hold, as the cursor was given it.
    pub(crate) fn what(&self) -> &'w str {
        self.what
    }

    /// The offset of the next byte.
    #[inline]
    pub(crate) fn at(&self) -> usize {
        self.at
    }

    /// The next byte, or `None` at the end (the caller words the error).
    #[inline]
    pub(crate) fn next_byte(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    /// The next `n` bytes, not read; `None` when fewer are left.
    #[inline]
    pub(crate) fn ahead(&self, n: usize) -> Option<&'a [u8]> {
        self.bytes.get(self.at..self.at.checked_add(n)?)
    }

    /// Moves past `n` bytes, or to the end when fewer are left.
    #[inline]
    pub(crate) fn skip(&mut self, n: usize) {
        self.at = self.at.saturating_add(n).min(self.bytes.len());
    }

    /// Reads `literal` when it comes next.
    #[inline]
    pub(crate) fn eat(&mut self, literal: &[u8]) -> bool {
        let found = self.bytes[self.at..].starts_with(literal);
        if found {
            self.at += literal.len();
        }
        found
    }

    /// The next `N` bytes, as an array.
    #[inline]
    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], E> {
        let bytes = self.take(N as u64)?;
        let mut out = [0; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// The bytes from offset `start` (where the cursor was) to the cursor.
    #[inline]
    pub(crate) fn since(&self, start: usize) -> &'a [u8] {
        &self.bytes[start.min(self.at)..self.at]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(what: &str, why: &str, at: usize) -> Error {
        Error::CorruptCollection(format!("{what}: {why} at byte {at}"))
    }

    fn cursor(bytes: &[u8]) -> Cursor<'_, 'static> {
        Cursor::new(bytes, "a test", failure)
    }

    #[test]
    fn reads_move_forward_and_stop_at_the_end() {
        let mut c = cursor(&[1, 2, 3, 4, 5]);
        assert_eq!(c.byte().unwrap(), 1);
        assert_eq!(c.be(2).unwrap(), 0x0203);
        assert_eq!(c.left(), 2);
        assert_eq!(c.count(2).unwrap(), 2);
        assert_eq!(c.take(2).unwrap(), [4, 5]);
        assert!(c.is_done());
        assert_eq!(c.peek(), None);
    }

    #[test]
    fn a_read_past_the_end_is_the_decoders_error_where_it_stopped() {
        let mut c = cursor(&[1, 2, 3]);
        c.byte().unwrap();
        let e = c.take(u64::MAX).unwrap_err();
        assert_eq!(
            e,
            Error::CorruptCollection(format!(
                "a test: {} bytes claimed with 2 left at byte 1",
                u64::MAX
            ))
        );
        assert_eq!(c.count(3).unwrap_err().code(), "CorruptCollection");
        assert_eq!(c.be(4).unwrap_err().code(), "CorruptCollection");
        assert_eq!(c.left(), 2, "a failed read moves nothing");
        c.take(2).unwrap();
        assert_eq!(
            c.byte().unwrap_err(),
            Error::CorruptCollection("a test: the bytes end at byte 3".into())
        );
    }

    #[test]
    fn lookahead_and_literals_stay_in_bounds() {
        let mut c = cursor(b"null,");
        assert_eq!(c.ahead(4), Some(&b"null"[..]));
        assert_eq!(c.ahead(6), None);
        assert_eq!(c.ahead(usize::MAX), None);
        assert!(!c.eat(b"true"));
        assert!(c.eat(b"null"));
        assert_eq!(c.since(0), b"null");
        assert_eq!(c.next_byte(), Some(b','));
        assert_eq!(c.next_byte(), None);
        c.skip(usize::MAX);
        assert!(c.is_done());
        assert!(!c.eat(b"x"));
        assert_eq!(c.array::<1>().unwrap_err().code(), "CorruptCollection");
        let mut d = cursor(&[0, 0, 0, 0, 0, 0, 0xf0, 0x3f]);
        assert_eq!(f64::from_le_bytes(d.array().unwrap()), 1.0);
    }
}
