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
//! use atlas_wasm::format::open::{ContainerOpen, Fetched, Need, OpenDecoder, Step};
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
use crate::format::budget::check;
use crate::format::container::{check_header, decode_trailer, HEADER_SIZE};
use crate::format::footer::CollectionFooter;

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

/// A compressed footer may not exceed this: the bound keeps a forged trailer
/// from asking for a multi-gigabyte read.
const MAX_COMPRESSED_FOOTER: u64 = 256 * 1024 * 1024;

/// Opens `data.atlas`: the tail, then (when the footer is longer than the
/// probe) the rest of the footer, then the decoded footer.
#[derive(Debug)]
pub struct ContainerOpen {
    probe: u64,
    budget: u64,
    state: ContainerState,
}

#[derive(Debug)]
enum ContainerState {
    Start,
    /// The footer is longer than the tail: its head is missing.
    Head {
        object_size: u64,
        footer: Range<u64>,
        held: Vec<u8>,
        held_from: u64,
    },
    Footer {
        object_size: u64,
        bytes: Vec<u8>,
        held: Vec<u8>,
        held_from: u64,
    },
    Spent,
}

/// What opening a container yields.
#[derive(Debug)]
pub struct OpenedContainer {
    /// The decoded, validated footer.
    pub footer: CollectionFooter,
    /// The size of `data.atlas`.
    pub object_size: u64,
    /// The last bytes of the object the open read (from `held_from` to the
    /// end): segments written last often lie inside them.
    pub held: Vec<u8>,
    /// Where `held` starts in the object.
    pub held_from: u64,
}

impl ContainerOpen {
    /// A decoder whose first request is the last `probe` bytes, and which
    /// holds the footer (compressed and decoded) to `budget` bytes.
    pub fn new(probe: u64, budget: u64) -> ContainerOpen {
        ContainerOpen {
            probe: probe.max(crate::format::container::TRAILER_SIZE),
            budget,
            state: ContainerState::Start,
        }
    }
}

impl OpenDecoder for ContainerOpen {
    type Output = OpenedContainer;

    fn next(&mut self) -> Result<Step<OpenedContainer>> {
        match &self.state {
            ContainerState::Start => Ok(Step::Need(Need::Tail(self.probe))),
            ContainerState::Head {
                footer, held_from, ..
            } => Ok(Step::Need(Need::Range(footer.start..*held_from))),
            ContainerState::Footer { .. } => {
                let ContainerState::Footer {
                    object_size,
                    bytes,
                    held,
                    held_from,
                } = std::mem::replace(&mut self.state, ContainerState::Spent)
                else {
                    return Err(spent());
                };
                let footer = CollectionFooter::decode(&bytes, object_size, self.budget)?;
                Ok(Step::Done(OpenedContainer {
                    footer,
                    object_size,
                    held,
                    held_from,
                }))
            }
            ContainerState::Spent => Err(spent()),
        }
    }

    fn push(&mut self, fetched: Fetched) -> Result<()> {
        match std::mem::replace(&mut self.state, ContainerState::Spent) {
            ContainerState::Start => {
                let (tail, object_size) = expect_tail(fetched, self.probe)?;
                let footer = decode_trailer(&tail, object_size)?;
                check(
                    footer.end - footer.start,
                    self.budget.min(MAX_COMPRESSED_FOOTER),
                    "the compressed collection footer",
                )?;
                let held_from = object_size - tail.len() as u64;
                if held_from == 0 {
                    check_header(tail.get(..HEADER_SIZE as usize).unwrap_or(&[]))?;
                }
                self.state = match slice_of(&tail, held_from, &footer) {
                    Some(bytes) => ContainerState::Footer {
                        object_size,
                        bytes,
                        held: tail,
                        held_from,
                    },
                    None => ContainerState::Head {
                        object_size,
                        footer,
                        held: tail,
                        held_from,
                    },
                };
                Ok(())
            }
            ContainerState::Head {
                object_size,
                footer,
                held,
                held_from,
            } => {
                let head = expect_range(fetched, &(footer.start..held_from))?;
                let bytes = join_head(head, &held, held_from, &footer)?;
                self.state = ContainerState::Footer {
                    object_size,
                    bytes,
                    held,
                    held_from,
                };
                Ok(())
            }
            ContainerState::Footer { .. } | ContainerState::Spent => Err(spent()),
        }
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

    #[test]
    fn a_foreign_tail_is_refused_at_the_first_push() {
        let mut open = ContainerOpen::new(1024, 1 << 20);
        assert!(matches!(open.next().unwrap(), Step::Need(Need::Tail(1024))));
        let err = open.push(Fetched::tail(vec![0; 100], 100)).unwrap_err();
        assert_eq!(err.code(), "NotAnAtlasCollection");
    }

    #[test]
    fn answers_of_the_wrong_shape_are_errors() {
        let mut open = ContainerOpen::new(1024, 1 << 20);
        // Longer than asked.
        assert_eq!(
            open.push(Fetched::tail(vec![0; 2000], 5000))
                .unwrap_err()
                .code(),
            "Io"
        );
        let mut open = ContainerOpen::new(1024, 1 << 20);
        assert_eq!(
            open.push(Fetched::range(0, vec![])).unwrap_err().code(),
            "Io"
        );
        // Driven past its end.
        let mut open = ContainerOpen::new(1024, 1 << 20);
        let _ = open.push(Fetched::tail(vec![0; 100], 100));
        assert!(open.next().is_err());
    }
}
