//! Sans-IO open decoders: the "read the tail, find the footer, fetch what is
//! missing" logic of every structure that is found from the end of an object.
//!
//! A decoder never reads. It is asked what it needs next ([`OpenDecoder::next`])
//! and answers [`Step::Need`] with one byte request, or [`Step::Done`] with its
//! value; the bytes of each request are handed back with
//! [`OpenDecoder::push`]. One short async loop (`read::open::drive`) feeds any
//! decoder from any [`ByteSource`](crate::ByteSource), so the logic here is
//! tested with plain byte slices, and other drivers (a cache, a test, another
//! format's reader) reuse it unchanged.
//!
//! ```
//! use atlas_wasm::format::container_open::ContainerOpen;
//! use atlas_wasm::format::open::{Fetched, Need, OpenDecoder, Step};
//! # fn demo(file: &[u8]) -> atlas_wasm::Result<()> {
//! let mut open = ContainerOpen::new(64 * 1024, 64 << 20);
//! let footer = loop {
//!     match open.next()? {
//!         Step::Done(footer) => break footer,
//!         Step::Need(Need::Tail(n)) => {
//!             let from = file.len().saturating_sub(n as usize);
//!             open.push(Fetched::tail(file[from..].to_vec(), file.len() as u64))?;
//!         }
//!         Step::Need(Need::Range(r)) => {
//!             open.push(Fetched::range(r.start, file[r.start as usize..r.end as usize].to_vec()))?;
//!         }
//!     }
//! };
//! # let _ = footer; Ok(()) }
//! ```
//!
//! Each decoder is a small state machine that only moves forward, so a drive
//! ends after at most a few requests whatever the bytes say.

use std::ops::Range;

use crate::error::{Error, Result};

/// One byte request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Need {
    /// The last `n` bytes of the object (fewer when it is smaller), and its size.
    Tail(u64),
    /// Exactly these bytes of the object.
    Range(Range<u64>),
}

/// The answer to a [`Need`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// The answer to [`Need::Tail`].
    Tail {
        /// The final bytes of the object.
        bytes: Vec<u8>,
        /// The size of the whole object.
        object_size: u64,
    },
    /// The answer to [`Need::Range`]: `bytes` start at `start`.
    Range {
        /// Where `bytes` begin in the object.
        start: u64,
        /// The bytes.
        bytes: Vec<u8>,
    },
}

impl Fetched {
    /// A tail answer.
    pub fn tail(bytes: Vec<u8>, object_size: u64) -> Fetched {
        Fetched::Tail { bytes, object_size }
    }

    /// A range answer.
    pub fn range(start: u64, bytes: Vec<u8>) -> Fetched {
        Fetched::Range { start, bytes }
    }
}

/// What a decoder answers when asked to go on.
#[derive(Debug)]
pub enum Step<T> {
    /// Fetch this, then [`push`](OpenDecoder::push) it.
    Need(Need),
    /// The decoded value; the decoder is spent.
    Done(T),
}

/// A structure found from the end of an object, decoded without I/O.
pub trait OpenDecoder {
    /// What the decoder produces.
    type Output;

    /// What is needed next, or the value. Calling it again without a
    /// [`push`](Self::push) in between asks for the same bytes again.
    fn next(&mut self) -> Result<Step<Self::Output>>;

    /// Hands over the answer to the last [`Need`]. An answer of the wrong kind
    /// or length is an error, never a panic.
    fn push(&mut self, fetched: Fetched) -> Result<()>;
}

/// The bytes of `range` out of a buffer that holds the object from `held_from`,
/// when it holds all of them.
pub(crate) fn slice_of(held: &[u8], held_from: u64, range: &Range<u64>) -> Option<Vec<u8>> {
    held_part(held, held_from, range).map(<[u8]>::to_vec)
}

/// [`slice_of`] without the copy.
pub(crate) fn held_part<'a>(
    held: &'a [u8],
    held_from: u64,
    range: &Range<u64>,
) -> Option<&'a [u8]> {
    let from = range.start.checked_sub(held_from)?;
    let to = range.end.checked_sub(held_from)?;
    let (from, to) = (usize::try_from(from).ok()?, usize::try_from(to).ok()?);
    held.get(from..to)
}

/// Joins a head that was fetched (`head`, covering `range.start..held_from`)
/// with the start of what was held, into the bytes of `range`.
pub(crate) fn join_head(
    mut head: Vec<u8>,
    held: &[u8],
    held_from: u64,
    range: &Range<u64>,
) -> Result<Vec<u8>> {
    let wanted = range.end.saturating_sub(held_from);
    let rest = usize::try_from(wanted)
        .ok()
        .and_then(|n| held.get(..n))
        .ok_or_else(|| Error::corrupt_collection("a footer reaches past the bytes read"))?;
    // Exactly: growing by doubling would take twice a large footer's size.
    head.reserve_exact(rest.len());
    head.extend_from_slice(rest);
    Ok(head)
}

/// Checks that an answer is the [`Fetched::Range`] asked for, and returns its bytes.
pub(crate) fn expect_range(fetched: Fetched, asked: &Range<u64>) -> Result<Vec<u8>> {
    match fetched {
        Fetched::Range { start, bytes }
            if start == asked.start && bytes.len() as u64 == asked.end - asked.start =>
        {
            Ok(bytes)
        }
        Fetched::Range { start, bytes } => Err(Error::Io(format!(
            "asked for bytes {}..{}, got {} bytes at {start}",
            asked.start,
            asked.end,
            bytes.len()
        ))),
        Fetched::Tail { .. } => Err(Error::Io(format!(
            "asked for bytes {}..{}, got a tail",
            asked.start, asked.end
        ))),
    }
}

/// Checks that an answer is a [`Fetched::Tail`] of at most `asked` bytes.
pub(crate) fn expect_tail(fetched: Fetched, asked: u64) -> Result<(Vec<u8>, u64)> {
    match fetched {
        Fetched::Tail { bytes, object_size } if bytes.len() as u64 == asked.min(object_size) => {
            Ok((bytes, object_size))
        }
        Fetched::Tail { bytes, object_size } => Err(Error::Io(format!(
            "asked for the last {asked} bytes of an object of {object_size}, got {}",
            bytes.len()
        ))),
        Fetched::Range { .. } => Err(Error::Io(format!(
            "asked for the last {asked} bytes, got a range"
        ))),
    }
}

pub(crate) fn spent() -> Error {
    Error::InvalidArgument("an open decoder was driven past its end".into())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Drives a decoder over an in-memory object, counting requests.
    pub(crate) fn run<D: OpenDecoder>(mut decoder: D, file: &[u8]) -> Result<(D::Output, usize)> {
        let mut requests = 0;
        loop {
            match decoder.next()? {
                Step::Done(value) => return Ok((value, requests)),
                Step::Need(Need::Tail(n)) => {
                    let from = file.len().saturating_sub(n as usize);
                    decoder.push(Fetched::tail(file[from..].to_vec(), file.len() as u64))?;
                }
                Step::Need(Need::Range(r)) => {
                    let bytes = file[r.start as usize..r.end as usize].to_vec();
                    decoder.push(Fetched::range(r.start, bytes))?;
                }
            }
            requests += 1;
            assert!(requests < 10, "a decoder must finish in a few requests");
        }
    }
}
