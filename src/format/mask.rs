//! `deleted.mask`: the ordinals of hidden datasets.
//!
//! ```text
//! "ATLM"  u32 LE version = 1  u32 LE count  count × u32 LE ordinals (ascending)
//! ```
//!
//! The reader is forgiving where forgiveness is safe: an ordinal past the end
//! of the collection is dropped (a mask copied from another collection cannot
//! block an open), and a truncated body keeps the entries that survived. A
//! wrong magic is an error: a foreign file at that path is a mistake.

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::format::budget::check;
use crate::format::open::{expect_range, expect_tail, spent, Fetched, Need, OpenDecoder, Step};

/// Magic of the mask file.
pub const MASK_MAGIC: [u8; 4] = *b"ATLM";
/// The mask version this crate reads and writes.
pub const MASK_VERSION: u32 = 1;
const HEADER: usize = 12;

/// Decodes a mask for a collection of `dataset_count` datasets.
pub fn decode_mask(bytes: &[u8], dataset_count: usize) -> Result<BTreeSet<u32>> {
    if bytes.is_empty() {
        return Ok(BTreeSet::new());
    }
    if bytes.len() < HEADER || bytes[..4] != MASK_MAGIC {
        return Err(Error::CorruptMask(
            "the file does not begin with \"ATLM\"".into(),
        ));
    }
    let version = u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes"));
    if version != MASK_VERSION {
        return Err(Error::CorruptMask(format!(
            "mask version {version} is not supported (this reader speaks {MASK_VERSION})"
        )));
    }
    let count = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize;
    Ok(bytes[HEADER..]
        .chunks_exact(4)
        .take(count)
        .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
        .filter(|&ordinal| (ordinal as usize) < dataset_count)
        .collect())
}

/// Reads a mask from its end: the first request is a tail of `probe` bytes,
/// which holds any mask of fewer than `(probe - 12) / 4` deletions; a longer
/// one is read whole in a second request, up to `max_bytes`. Yields the
/// ordinals as stored; [`hidden_of`] keeps those of a collection.
#[derive(Debug)]
pub struct MaskOpen {
    probe: u64,
    max_bytes: u64,
    state: MaskState,
}

#[derive(Debug)]
enum MaskState {
    Start,
    Whole(u64),
    Done(Vec<u8>),
    Spent,
}

impl MaskOpen {
    /// A decoder that reads at most `max_bytes` of mask.
    pub fn new(probe: u64, max_bytes: u64) -> MaskOpen {
        MaskOpen {
            probe: probe.max(HEADER as u64),
            max_bytes,
            state: MaskState::Start,
        }
    }
}

impl OpenDecoder for MaskOpen {
    /// The mask's bytes, checked to be a mask.
    type Output = MaskBytes;

    fn next(&mut self) -> Result<Step<MaskBytes>> {
        match &mut self.state {
            MaskState::Start => Ok(Step::Need(Need::Tail(self.probe))),
            MaskState::Whole(size) => Ok(Step::Need(Need::Range(0..*size))),
            MaskState::Done(bytes) => {
                let bytes = std::mem::take(bytes);
                self.state = MaskState::Spent;
                decode_mask(&bytes, usize::MAX)?;
                Ok(Step::Done(MaskBytes(bytes)))
            }
            MaskState::Spent => Err(spent()),
        }
    }

    fn push(&mut self, fetched: Fetched) -> Result<()> {
        self.state = match std::mem::replace(&mut self.state, MaskState::Spent) {
            MaskState::Start => {
                let (tail, size) = expect_tail(fetched, self.probe)?;
                if tail.len() as u64 == size {
                    MaskState::Done(tail)
                } else {
                    check(size, self.max_bytes, "the deletion mask")?;
                    MaskState::Whole(size)
                }
            }
            MaskState::Whole(size) => MaskState::Done(expect_range(fetched, &(0..size))?),
            MaskState::Done(_) | MaskState::Spent => return Err(spent()),
        };
        Ok(())
    }
}

/// The bytes of a mask that [`MaskOpen`] checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaskBytes(Vec<u8>);

impl MaskBytes {
    /// The ordinals this mask hides in a collection of `dataset_count` datasets.
    pub fn hidden_of(&self, dataset_count: usize) -> BTreeSet<u32> {
        // `MaskOpen` checked the header; the body cannot fail.
        decode_mask(&self.0, dataset_count).unwrap_or_default()
    }
}

/// Encodes a mask; a set is ordered, so the file always lists ordinals ascending.
pub fn encode_mask(ordinals: &BTreeSet<u32>) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + 4 * ordinals.len());
    out.extend_from_slice(&MASK_MAGIC);
    out.extend_from_slice(&MASK_VERSION.to_le_bytes());
    out.extend_from_slice(&(ordinals.len() as u32).to_le_bytes());
    for ordinal in ordinals {
        out.extend_from_slice(&ordinal.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_round_trip_and_tolerate_what_is_safe_to_tolerate() {
        let set: BTreeSet<u32> = [0, 3, 9].into_iter().collect();
        let bytes = encode_mask(&set);
        assert_eq!(decode_mask(&bytes, 10).unwrap(), set);
        // An ordinal past the end is dropped.
        assert_eq!(
            decode_mask(&bytes, 5).unwrap(),
            [0, 3].into_iter().collect()
        );
        // A truncated body keeps what survived.
        assert_eq!(
            decode_mask(&bytes[..18], 10).unwrap(),
            [0].into_iter().collect()
        );
        assert!(decode_mask(&[], 10).unwrap().is_empty());
    }

    #[test]
    fn the_open_decoder_reads_a_short_mask_in_one_request_and_a_long_one_in_two() {
        use crate::format::open::tests::run;
        let small: BTreeSet<u32> = [1, 4].into_iter().collect();
        let (mask, requests) = run(MaskOpen::new(1024, 1 << 20), &encode_mask(&small)).unwrap();
        assert_eq!((mask.hidden_of(10), requests), (small, 1));
        let large: BTreeSet<u32> = (0..1000).collect();
        let (mask, requests) = run(MaskOpen::new(1024, 1 << 20), &encode_mask(&large)).unwrap();
        assert_eq!((mask.hidden_of(500).len(), requests), (500, 2));
        let err = run(MaskOpen::new(1024, 2000), &encode_mask(&large)).unwrap_err();
        assert_eq!(err.code(), "TooLarge");
        let err = run(MaskOpen::new(1024, 1 << 20), b"PK\x03\x04 zip").unwrap_err();
        assert_eq!(err.code(), "CorruptMask");
        assert!(run(MaskOpen::new(1024, 1 << 20), b"")
            .unwrap()
            .0
            .hidden_of(3)
            .is_empty());
    }

    #[test]
    fn a_foreign_file_is_an_error() {
        assert_eq!(
            decode_mask(b"PK\x03\x04 not a mask", 3).unwrap_err().code(),
            "CorruptMask"
        );
        assert_eq!(decode_mask(b"ATL", 3).unwrap_err().code(), "CorruptMask");
        let mut v2 = encode_mask(&BTreeSet::new());
        v2[4] = 2;
        assert_eq!(decode_mask(&v2, 3).unwrap_err().code(), "CorruptMask");
    }
}
