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
//!
//! Masks this crate writes carry a binding after the ordinals, which
//! atlas-rust (it reads `count` ordinals and no further) ignores:
//!
//! ```text
//! "ATLB"  u64 LE container bytes  i64 LE created_unix_ms  u32 LE dataset count
//! ```
//!
//! A bound mask hides nothing next to any other container: a writer killed
//! between replacing `data.atlas` and removing the old mask leaves the new
//! collection whole (docs/write-path.md, "Crash safety").

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::format::budget::check;
use crate::format::open::{expect_range, expect_tail, spent, Fetched, Need, OpenDecoder, Step};

/// Magic of the mask file.
pub const MASK_MAGIC: [u8; 4] = *b"ATLM";
/// The mask version this crate reads and writes.
pub const MASK_VERSION: u32 = 1;
const HEADER: usize = 12;
/// Magic of the binding that follows the ordinals.
pub const BINDING_MAGIC: [u8; 4] = *b"ATLB";
const BINDING_SIZE: usize = 24;

/// The container a mask was written for, as a reader sees it at open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaskBinding {
    /// Size of `data.atlas` in bytes.
    pub container_bytes: u64,
    /// The footer's creation time.
    pub created_unix_ms: i64,
    /// Datasets in the footer.
    pub dataset_count: u32,
}

impl MaskBinding {
    fn encode(&self) -> [u8; BINDING_SIZE] {
        let mut out = [0u8; BINDING_SIZE];
        out[..4].copy_from_slice(&BINDING_MAGIC);
        out[4..12].copy_from_slice(&self.container_bytes.to_le_bytes());
        out[12..20].copy_from_slice(&self.created_unix_ms.to_le_bytes());
        out[20..].copy_from_slice(&self.dataset_count.to_le_bytes());
        out
    }

    /// The binding a mask carries, if it carries one whole: exactly
    /// [`BINDING_SIZE`] bytes right after its `count` ordinals.
    fn of_mask(bytes: &[u8]) -> Option<MaskBinding> {
        let count = u32::from_le_bytes(bytes.get(8..HEADER)?.try_into().ok()?) as u64;
        let start = usize::try_from(HEADER as u64 + 4 * count).ok()?;
        let trailer = bytes.get(start..)?;
        if trailer.len() != BINDING_SIZE || trailer[..4] != BINDING_MAGIC {
            return None;
        }
        let field =
            |r: std::ops::Range<usize>| -> [u8; 8] { trailer[r].try_into().expect("8 bytes") };
        Some(MaskBinding {
            container_bytes: u64::from_le_bytes(field(4..12)),
            created_unix_ms: i64::from_le_bytes(field(12..20)),
            dataset_count: u32::from_le_bytes(trailer[20..].try_into().expect("4 bytes")),
        })
    }
}

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
/// ordinals as stored; [`MaskBytes::hidden_of`] keeps those of a collection.
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

    /// The ordinals this mask hides in the container `binding` describes:
    /// none when the mask is bound to another container (it is stale).
    pub fn hidden_in(&self, container: &MaskBinding) -> BTreeSet<u32> {
        match MaskBinding::of_mask(&self.0) {
            Some(bound) if bound != *container => BTreeSet::new(),
            _ => self.hidden_of(container.dataset_count as usize),
        }
    }
}

/// Encodes a mask bound to `container`.
pub fn encode_bound_mask(ordinals: &BTreeSet<u32>, container: &MaskBinding) -> Vec<u8> {
    let mut out = encode_mask(ordinals);
    out.extend_from_slice(&container.encode());
    out
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
    fn a_bound_mask_hides_only_in_its_own_container() {
        let set: BTreeSet<u32> = [1, 2].into_iter().collect();
        let own = MaskBinding {
            container_bytes: 4096,
            created_unix_ms: 1_700_000_000_000,
            dataset_count: 4,
        };
        let bytes = encode_bound_mask(&set, &own);
        // atlas-rust's reading: `count` ordinals, the rest ignored.
        assert_eq!(decode_mask(&bytes, 4).unwrap(), set);
        let mask = MaskBytes(bytes.clone());
        assert_eq!(mask.hidden_in(&own), set);
        for other in [
            MaskBinding {
                container_bytes: 4097,
                ..own
            },
            MaskBinding {
                created_unix_ms: 1,
                ..own
            },
            MaskBinding {
                dataset_count: 5,
                ..own
            },
        ] {
            assert!(mask.hidden_in(&other).is_empty(), "{other:?}");
        }
        // An unbound mask (atlas-rust's) hides in any container.
        assert_eq!(MaskBytes(encode_mask(&set)).hidden_in(&own), set);
        // A cut binding is no binding: the ordinals still count.
        let cut = MaskBytes(bytes[..bytes.len() - 1].to_vec());
        assert_eq!(cut.hidden_in(&own), set);
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
