//! One segment: an array-format v6 file holding one variable for every dataset.
//!
//! ```text
//! [block 0][block 1]…[rkyv footer][u64 LE footer size]["ARRF"]
//! ```
//!
//! The footer is an rkyv 0.8 archive (little-endian, aligned, 64-bit
//! lengths) of [`SegmentFooter`]. The structs below are declared in the order
//! array-format declares them, because in rkyv the declaration *is* the
//! layout. Inside a segment each array is named after its dataset.

use std::collections::HashMap;
use std::ops::Range;

use crate::error::{Error, Result};
use crate::format::budget::check;
use crate::format::dtype::{DType, MAX_DTYPE_NESTING};
use crate::format::open::{expect_range, held_part, spent, Fetched, Need, OpenDecoder, Step};
use crate::format::value::{ArrayStats, Attr, FillValue};

/// Magic at the very end of a segment.
pub const SEGMENT_MAGIC: [u8; 4] = *b"ARRF";
/// The segment footer version this crate reads and writes.
pub const SEGMENT_VERSION: u32 = 6;
/// `u64` footer size + magic.
pub const SEGMENT_TRAILER_SIZE: u64 = 12;

/// The segment footer, as archived.
#[derive(Debug, Clone, PartialEq, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
pub struct SegmentFooter {
    /// The segment footer version (6).
    pub version: u32,
    /// Dense: `blocks[id]` has id `id`.
    pub blocks: Vec<BlockMeta>,
    /// Attribute keys and string values.
    pub strings: Vec<String>,
    /// Distinct attribute values.
    pub values: Vec<DiskValue>,
    /// One array per dataset, in write order.
    pub arrays: Vec<ArrayMeta>,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize,
)]
/// A block's index in the block table.
pub struct BlockId(pub u32);

/// The codec of one block.
#[derive(Debug, Clone, PartialEq, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
pub enum CodecId {
    /// Stored as is.
    None,
    /// A named codec: `zstd` or `lz4`.
    Named(String),
}

/// One compressed block of consecutive chunks.
#[derive(Debug, Clone, PartialEq, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
pub struct BlockMeta {
    /// Its index in the block table.
    pub id: BlockId,
    /// Offset of the compressed block from the start of the segment.
    pub file_offset: u64,
    /// Bytes on disk.
    pub compressed_size: u64,
    /// Bytes once decompressed.
    pub uncompressed_size: u64,
    /// How the block is compressed.
    pub codec: CodecId,
}

/// One dataset's array: type, geometry, chunk table, attributes, statistics.
#[derive(Debug, Clone, PartialEq, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
pub struct ArrayMeta {
    /// The dataset this array belongs to.
    pub name: String,
    /// The element type.
    pub dtype: DType,
    /// Extent of each axis.
    pub shape: Vec<u32>,
    /// One name per axis, or none.
    pub dimension_names: Vec<String>,
    /// Extent of each axis of one chunk.
    pub chunk_shape: Vec<u32>,
    /// Written chunks, sorted by coordinate.
    pub chunks: Vec<ChunkEntry>,
    /// What unwritten elements read as.
    pub fill_value: Option<FillValue>,
    /// `(key, value)` indices into `strings` and `values`, sorted by key.
    pub attributes: Vec<(u32, u32)>,
    /// What the writer recorded about the values.
    pub stats: Option<ArrayStats>,
}

/// Where one written chunk lives.
#[derive(Debug, Clone, PartialEq, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
pub struct ChunkEntry {
    /// The chunk's position in the chunk grid.
    pub coord: Vec<u32>,
    /// Its bytes.
    pub address: ChunkAddress,
}

/// A chunk's bytes: `size` bytes at `offset` of the *decompressed* block.
#[derive(Debug, Clone, PartialEq, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
pub struct ChunkAddress {
    /// The block holding the chunk.
    pub block_id: BlockId,
    /// Where the chunk starts in the decompressed block.
    pub offset: u32,
    /// The chunk's length in bytes.
    pub size: u32,
}

/// An attribute value as stored: strings are indices into the string pool.
#[derive(Debug, Clone, PartialEq, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
pub enum DiskValue {
    /// A boolean.
    Bool(bool),
    /// A signed 8-bit integer.
    Int8(i8),
    /// A signed 16-bit integer.
    Int16(i16),
    /// A signed 32-bit integer.
    Int32(i32),
    /// A signed 64-bit integer.
    Int64(i64),
    /// An unsigned 8-bit integer.
    UInt8(u8),
    /// An unsigned 16-bit integer.
    UInt16(u16),
    /// An unsigned 32-bit integer.
    UInt32(u32),
    /// An unsigned 64-bit integer.
    UInt64(u64),
    /// A single-precision float.
    Float32(f32),
    /// A double-precision float.
    Float64(f64),
    /// A string, as an index into the segment's `strings`.
    String(u32),
    /// Bytes.
    Binary(Box<[u8]>),
    /// A list of booleans.
    BoolList(Box<[bool]>),
    /// A list of `i8`.
    Int8List(Box<[i8]>),
    /// A list of `i16`.
    Int16List(Box<[i16]>),
    /// A list of `i32`.
    Int32List(Box<[i32]>),
    /// A list of `i64`.
    Int64List(Box<[i64]>),
    /// A list of `u8`.
    UInt8List(Box<[u8]>),
    /// A list of `u16`.
    UInt16List(Box<[u16]>),
    /// A list of `u32`.
    UInt32List(Box<[u32]>),
    /// A list of `u64`.
    UInt64List(Box<[u64]>),
    /// A list of `f32`.
    Float32List(Box<[f32]>),
    /// A list of `f64`.
    Float64List(Box<[f64]>),
    /// A list of strings, as indices into `strings`.
    StringList(Box<[u32]>),
    /// A list of byte strings.
    BinaryList(Box<[Box<[u8]>]>),
}

impl DiskValue {
    /// Resolves string indices against `strings`.
    pub fn decode(&self, strings: &[String]) -> Result<Attr> {
        self.decode_by(|i| strings.get(i as usize).cloned())
    }

    /// [`decode`](Self::decode), looking each string index up in `pool`
    /// (which may hold only the strings a call fetched).
    pub fn decode_by(&self, pool: impl Fn(u32) -> Option<String>) -> Result<Attr> {
        let string = |i: u32| {
            pool(i).ok_or_else(|| {
                Error::corrupt_collection(format!(
                    "attribute string {i} is past the segment's string pool"
                ))
            })
        };
        Ok(match self {
            DiskValue::Bool(v) => Attr::Bool(*v),
            DiskValue::Int8(v) => Attr::Int8(*v),
            DiskValue::Int16(v) => Attr::Int16(*v),
            DiskValue::Int32(v) => Attr::Int32(*v),
            DiskValue::Int64(v) => Attr::Int64(*v),
            DiskValue::UInt8(v) => Attr::UInt8(*v),
            DiskValue::UInt16(v) => Attr::UInt16(*v),
            DiskValue::UInt32(v) => Attr::UInt32(*v),
            DiskValue::UInt64(v) => Attr::UInt64(*v),
            DiskValue::Float32(v) => Attr::Float32(*v),
            DiskValue::Float64(v) => Attr::Float64(*v),
            DiskValue::String(i) => Attr::String(string(*i)?),
            DiskValue::Binary(v) => Attr::Binary(v.to_vec()),
            DiskValue::BoolList(v) => Attr::BoolList(v.to_vec()),
            DiskValue::Int8List(v) => Attr::Int8List(v.to_vec()),
            DiskValue::Int16List(v) => Attr::Int16List(v.to_vec()),
            DiskValue::Int32List(v) => Attr::Int32List(v.to_vec()),
            DiskValue::Int64List(v) => Attr::Int64List(v.to_vec()),
            DiskValue::UInt8List(v) => Attr::UInt8List(v.to_vec()),
            DiskValue::UInt16List(v) => Attr::UInt16List(v.to_vec()),
            DiskValue::UInt32List(v) => Attr::UInt32List(v.to_vec()),
            DiskValue::UInt64List(v) => Attr::UInt64List(v.to_vec()),
            DiskValue::Float32List(v) => Attr::Float32List(v.to_vec()),
            DiskValue::Float64List(v) => Attr::Float64List(v.to_vec()),
            DiskValue::StringList(v) => {
                Attr::StringList(v.iter().map(|&i| string(i)).collect::<Result<_>>()?)
            }
            DiskValue::BinaryList(v) => Attr::BinaryList(v.iter().map(|b| b.to_vec()).collect()),
        })
    }
}

/// Where the footer sits, read off the last 12 bytes of a segment of `segment_len` bytes.
/// Returns the footer's range relative to the segment start.
pub fn decode_segment_trailer(tail: &[u8], segment_len: u64) -> Result<std::ops::Range<u64>> {
    if segment_len < SEGMENT_TRAILER_SIZE || (tail.len() as u64) < SEGMENT_TRAILER_SIZE {
        return Err(Error::corrupt_collection(format!(
            "a segment of {segment_len} bytes has no room for its trailer"
        )));
    }
    let trailer = &tail[tail.len() - SEGMENT_TRAILER_SIZE as usize..];
    if trailer[8..] != SEGMENT_MAGIC {
        return Err(Error::corrupt_collection(
            "a segment does not end with \"ARRF\"",
        ));
    }
    let footer_size = u64::from_le_bytes(trailer[..8].try_into().expect("8 bytes"));
    let room = segment_len - SEGMENT_TRAILER_SIZE;
    if footer_size > room {
        return Err(Error::corrupt_collection(format!(
            "a segment footer of {footer_size} bytes cannot fit in {room} bytes"
        )));
    }
    Ok(room - footer_size..room)
}

/// Levels of the footer's own structure (the root, the array table) above
/// a dtype's. rkyv validates and decodes nested values by recursion, so it
/// is told the most levels a footer may have: [`MAX_DTYPE_NESTING`] list
/// dtypes and these. Past it the validation stops before the stack runs out.
const FOOTER_OWN_NESTING: usize = 2;

/// The alignment the archived footer needs (its widest fields are 8-byte
/// integers and offsets); rkyv's validator checks every pointer against it.
const ARCHIVE_ALIGN: usize = 8;

/// A footer's bytes, at the alignment the archive needs. Footers of a
/// million arrays are hundreds of MB, and every copy of them stays in a
/// wasm instance's memory for good: bytes that arrive aligned are kept as
/// they are, others are copied once.
#[derive(Debug)]
enum FooterBytes {
    Received(Vec<u8>),
    Aligned(rkyv::util::AlignedVec<16>),
}

impl FooterBytes {
    fn new(bytes: Vec<u8>) -> FooterBytes {
        if bytes.as_ptr() as usize % ARCHIVE_ALIGN == 0 {
            FooterBytes::Received(bytes)
        } else {
            FooterBytes::copied(&bytes)
        }
    }

    fn copied(bytes: &[u8]) -> FooterBytes {
        let mut aligned = rkyv::util::AlignedVec::with_capacity(bytes.len());
        aligned.extend_from_slice(bytes);
        FooterBytes::Aligned(aligned)
    }

    fn bytes(&self) -> &[u8] {
        match self {
            FooterBytes::Received(bytes) => bytes,
            FooterBytes::Aligned(bytes) => bytes,
        }
    }
}

/// Validates and decodes the rkyv footer bytes (without the trailer).
pub fn decode_segment_footer(bytes: &[u8]) -> Result<SegmentFooter> {
    // Bytes off the wire have no alignment; the copy is of bytes in hand.
    decode_aligned_footer(FooterBytes::copied(bytes).bytes())
}

fn decode_aligned_footer(aligned: &[u8]) -> Result<SegmentFooter> {
    debug_assert!(std::mem::align_of::<ArchivedSegmentFooter>() <= ARCHIVE_ALIGN);
    use rkyv::validation::{archive::ArchiveValidator, shared::SharedValidator, Validator};
    // rkyv fails the push that would reach the limit, hence the one more.
    let levels = MAX_DTYPE_NESTING + FOOTER_OWN_NESTING + 1;
    let mut validator = Validator::new(
        ArchiveValidator::with_max_depth(aligned, std::num::NonZeroUsize::new(levels)),
        SharedValidator::new(),
    );
    let archived = rkyv::api::access_with_context::<ArchivedSegmentFooter, _, rkyv::rancor::Error>(
        aligned,
        &mut validator,
    )
    .map_err(does_not_decode)?;
    let footer = rkyv::deserialize::<SegmentFooter, rkyv::rancor::Error>(archived)
        .map_err(does_not_decode)?;
    if footer.version != SEGMENT_VERSION {
        return Err(Error::corrupt_collection(format!(
            "segment footer version {} is not {SEGMENT_VERSION}",
            footer.version
        )));
    }
    Ok(footer)
}

/// Why rkyv refused a footer, as far as release builds can tell: rkyv keeps
/// its reasons (the nesting limit among them) only with debug assertions, and
/// asking its `Debug` form for them cost the wasm module 5 KB gzipped.
fn does_not_decode(e: rkyv::rancor::Error) -> Error {
    Error::corrupt_collection(format!(
        "segment footer does not decode (or nests list dtypes deeper than {MAX_DTYPE_NESTING}): {e}"
    ))
}

/// Opens one segment of a container from its end: one range read of the
/// last `probe` bytes (the whole segment when it is small), then the rest of
/// the footer if the probe did not hold it all. Offsets are the container's.
#[derive(Debug)]
pub struct SegmentOpen {
    offset: u64,
    len: u64,
    budget: u64,
    probe_start: u64,
    ranged_above: u64,
    state: SegmentState,
}

#[derive(Debug)]
enum SegmentState {
    Start,
    Head {
        footer: Range<u64>,
        held: Vec<u8>,
    },
    Footer {
        footer: Range<u64>,
        bytes: FooterBytes,
        held: Vec<u8>,
    },
    Ranged {
        footer: Range<u64>,
        held: Vec<u8>,
    },
    Spent,
}

/// What opening a segment yields.
#[derive(Debug)]
pub enum OpenedSegment {
    /// The footer, decoded whole and validated against the data region.
    Whole {
        /// The decoded footer.
        footer: SegmentFooter,
        /// The probe's bytes and where they start in the segment, when they
        /// reach into the data region (blocks there need no request).
        probe: Option<(u64, Vec<u8>)>,
    },
    /// A footer past the decoder's limit for whole reads, left to be read by
    /// ranges: where it lies in the segment, and the probe, which ends with it.
    Ranged {
        /// The footer's range in the segment.
        footer: Range<u64>,
        /// Where the probe starts in the segment, and its bytes.
        probe: (u64, Vec<u8>),
    },
}

impl SegmentOpen {
    /// A decoder for the segment of `len` bytes at `offset` in the container,
    /// whose first request is its last `probe` bytes. A footer is held to a
    /// quarter of `budget`: decoded, it takes up to about four times its bytes.
    pub fn new(offset: u64, len: u64, probe: u64, budget: u64) -> SegmentOpen {
        let probe = probe.clamp(SEGMENT_TRAILER_SIZE.min(len), len);
        SegmentOpen {
            offset,
            len,
            budget,
            probe_start: len - probe,
            ranged_above: u64::MAX,
            state: SegmentState::Start,
        }
    }

    /// Leaves a footer of more than `bytes` to be read by ranges.
    pub fn ranged_above(mut self, bytes: u64) -> SegmentOpen {
        self.ranged_above = bytes;
        self
    }

    fn absolute(&self, range: Range<u64>) -> Range<u64> {
        self.offset + range.start..self.offset + range.end
    }
}

impl OpenDecoder for SegmentOpen {
    type Output = OpenedSegment;

    fn next(&mut self) -> Result<Step<OpenedSegment>> {
        match &self.state {
            SegmentState::Start => Ok(Step::Need(Need::Range(
                self.absolute(self.probe_start..self.len),
            ))),
            // The whole footer again, though the probe holds its end: one
            // buffer as received, with no join (see `FooterBytes`).
            SegmentState::Head { footer, .. } => {
                Ok(Step::Need(Need::Range(self.absolute(footer.clone()))))
            }
            SegmentState::Footer { .. } => {
                let SegmentState::Footer {
                    footer,
                    bytes,
                    held,
                } = std::mem::replace(&mut self.state, SegmentState::Spent)
                else {
                    return Err(spent());
                };
                let decoded = decode_aligned_footer(bytes.bytes())?;
                drop(bytes);
                decoded.validate(footer.start)?;
                let probe = (self.probe_start < footer.start).then_some((self.probe_start, held));
                Ok(Step::Done(OpenedSegment::Whole {
                    footer: decoded,
                    probe,
                }))
            }
            SegmentState::Ranged { .. } => {
                let SegmentState::Ranged { footer, held } =
                    std::mem::replace(&mut self.state, SegmentState::Spent)
                else {
                    return Err(spent());
                };
                Ok(Step::Done(OpenedSegment::Ranged {
                    footer,
                    probe: (self.probe_start, held),
                }))
            }
            SegmentState::Spent => Err(spent()),
        }
    }

    fn push(&mut self, fetched: Fetched) -> Result<()> {
        self.state = match std::mem::replace(&mut self.state, SegmentState::Spent) {
            SegmentState::Start => {
                let held = expect_range(fetched, &self.absolute(self.probe_start..self.len))?;
                let footer = decode_segment_trailer(&held, self.len)?;
                if footer.end - footer.start > self.ranged_above {
                    self.state = SegmentState::Ranged { footer, held };
                    return Ok(());
                }
                check(
                    (footer.end - footer.start).saturating_mul(4),
                    self.budget,
                    "a segment footer, decoded,",
                )?;
                match held_part(&held, self.probe_start, &footer) {
                    Some(part) => SegmentState::Footer {
                        bytes: FooterBytes::copied(part),
                        footer,
                        held,
                    },
                    None => SegmentState::Head { footer, held },
                }
            }
            SegmentState::Head { footer, held } => {
                let asked = self.absolute(footer.clone());
                let bytes = FooterBytes::new(expect_range(fetched, &asked)?);
                SegmentState::Footer {
                    footer,
                    bytes,
                    held,
                }
            }
            SegmentState::Footer { .. } | SegmentState::Ranged { .. } | SegmentState::Spent => {
                return Err(spent())
            }
        };
        Ok(())
    }
}

/// Serializes a footer and appends the trailer.
pub fn encode_segment_footer(footer: &SegmentFooter) -> Result<Vec<u8>> {
    let archived = rkyv::to_bytes::<rkyv::rancor::Error>(footer)
        .map_err(|e| Error::InvalidArgument(format!("segment footer does not serialize: {e}")))?;
    let mut out = Vec::with_capacity(archived.len() + SEGMENT_TRAILER_SIZE as usize);
    out.extend_from_slice(&archived);
    out.extend_from_slice(&(archived.len() as u64).to_le_bytes());
    out.extend_from_slice(&SEGMENT_MAGIC);
    Ok(out)
}

impl SegmentFooter {
    /// Checks every index and extent against the segment, so reads can trust them.
    /// `data_end` is where the footer starts, relative to the segment.
    pub fn validate(&self, data_end: u64) -> Result<()> {
        for (i, block) in self.blocks.iter().enumerate() {
            if block.id.0 as usize != i {
                return Err(Error::corrupt_collection(format!(
                    "block {i} carries id {}",
                    block.id.0
                )));
            }
            let end = block.file_offset.checked_add(block.compressed_size);
            if end.is_none_or(|end| end > data_end) {
                return Err(Error::corrupt_collection(format!(
                    "block {i} ({} bytes at {}) reaches past the data region of {data_end} bytes",
                    block.compressed_size, block.file_offset
                )));
            }
        }
        let mut names = HashMap::with_capacity(self.arrays.len());
        for array in &self.arrays {
            if names.insert(array.name.as_str(), ()).is_some() {
                return Err(Error::corrupt_collection(format!(
                    "array '{}' appears twice in a segment",
                    array.name
                )));
            }
            self.validate_array(array)?;
        }
        for &(key, value) in self.arrays.iter().flat_map(|a| &a.attributes) {
            if key as usize >= self.strings.len() || value as usize >= self.values.len() {
                return Err(Error::corrupt_collection(format!(
                    "attribute ({key}, {value}) is past the pools of {} strings and {} values",
                    self.strings.len(),
                    self.values.len()
                )));
            }
        }
        Ok(())
    }

    fn validate_array(&self, array: &ArrayMeta) -> Result<()> {
        check_array(array, |id| self.blocks.get(id as usize))
    }
}

/// Checks one array's geometry and chunk table, each chunk against the
/// block `block(id)` answers (`None`: no such block).
pub fn check_array<'a>(
    array: &ArrayMeta,
    block: impl Fn(u32) -> Option<&'a BlockMeta>,
) -> Result<()> {
    let rank = array.shape.len();
    let bad = |what: String| Error::corrupt_collection(format!("array '{}': {what}", array.name));
    if array.chunk_shape.len() != rank
        || !(array.dimension_names.is_empty() || array.dimension_names.len() == rank)
    {
        return Err(bad(format!(
            "shape {:?}, chunk shape {:?} and {} dimension names disagree on the rank",
            array.shape,
            array.chunk_shape,
            array.dimension_names.len()
        )));
    }
    if array.chunk_shape.contains(&0) {
        return Err(bad(format!(
            "chunk shape {:?} has a zero extent",
            array.chunk_shape
        )));
    }
    let grid: Vec<u32> = array
        .shape
        .iter()
        .zip(&array.chunk_shape)
        .map(|(&s, &c)| s.div_ceil(c))
        .collect();
    let mut previous: Option<&[u32]> = None;
    for chunk in &array.chunks {
        if chunk.coord.len() != rank || chunk.coord.iter().zip(&grid).any(|(&c, &g)| c >= g) {
            return Err(bad(format!(
                "chunk {:?} is outside the chunk grid {grid:?}",
                chunk.coord
            )));
        }
        if previous.is_some_and(|p| p >= chunk.coord.as_slice()) {
            return Err(bad("the chunk table is not sorted".into()));
        }
        previous = Some(&chunk.coord);
        let address = &chunk.address;
        let block = block(address.block_id.0).ok_or_else(|| {
            bad(format!(
                "chunk {:?} names missing block {}",
                chunk.coord, address.block_id.0
            ))
        })?;
        if address.offset as u64 + address.size as u64 > block.uncompressed_size {
            return Err(bad(format!(
                "chunk {:?} ends at {} past block {} of {} bytes",
                chunk.coord,
                address.offset as u64 + address.size as u64,
                address.block_id.0,
                block.uncompressed_size
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> SegmentFooter {
        SegmentFooter {
            version: SEGMENT_VERSION,
            blocks: vec![BlockMeta {
                id: BlockId(0),
                file_offset: 0,
                compressed_size: 16,
                uncompressed_size: 16,
                codec: CodecId::None,
            }],
            strings: vec!["units".into(), "K".into()],
            values: vec![
                DiskValue::String(1),
                DiskValue::Float64List(vec![1.0, 2.5].into()),
            ],
            arrays: vec![ArrayMeta {
                name: "jan".into(),
                dtype: DType::Float32,
                shape: vec![2, 2],
                dimension_names: vec!["y".into(), "x".into()],
                chunk_shape: vec![2, 2],
                chunks: vec![ChunkEntry {
                    coord: vec![0, 0],
                    address: ChunkAddress {
                        block_id: BlockId(0),
                        offset: 0,
                        size: 16,
                    },
                }],
                fill_value: Some(FillValue::Float(f64::NAN)),
                attributes: vec![(0, 0)],
                stats: None,
            }],
        }
    }

    fn lists(depth: usize) -> DType {
        (0..depth).fold(DType::Int8, |child, _| DType::List {
            child: Box::new(child),
        })
    }

    #[test]
    fn list_dtypes_nest_to_the_limit_and_no_deeper() {
        let with = |dtype: DType| {
            let mut footer = sample();
            footer.arrays[0].dtype = dtype;
            let bytes = encode_segment_footer(&footer).unwrap();
            let range = decode_segment_trailer(&bytes, bytes.len() as u64).unwrap();
            decode_segment_footer(&bytes[range.start as usize..range.end as usize])
        };
        let deepest = with(lists(MAX_DTYPE_NESTING)).unwrap();
        assert_eq!(deepest.arrays[0].dtype, lists(MAX_DTYPE_NESTING));
        for depth in [MAX_DTYPE_NESTING + 1, 10_000] {
            let error = with(lists(depth)).unwrap_err();
            assert_eq!(error.code(), "CorruptCollection");
            assert!(error.to_string().contains("deeper than 16"), "{error}");
        }
    }

    #[test]
    fn a_footer_round_trips_through_its_trailer() {
        let footer = sample();
        let bytes = encode_segment_footer(&footer).unwrap();
        let range = decode_segment_trailer(&bytes, bytes.len() as u64).unwrap();
        let back = decode_segment_footer(&bytes[range.start as usize..range.end as usize]).unwrap();
        assert_eq!(back, footer);
        back.validate(16).unwrap();
        assert_eq!(
            back.values[0].decode(&back.strings).unwrap(),
            Attr::String("K".into())
        );
    }

    #[test]
    fn damage_is_reported_not_panicked() {
        let bytes = encode_segment_footer(&sample()).unwrap();
        let range = decode_segment_trailer(&bytes, bytes.len() as u64).unwrap();
        let body = &bytes[range.start as usize..range.end as usize];
        for i in 0..body.len() {
            let mut damaged = body.to_vec();
            damaged[i] ^= 0xA5;
            if let Ok(f) = decode_segment_footer(&damaged) {
                let _ = f.validate(16);
            }
        }
        let mut footer = sample();
        footer.arrays[0].chunks[0].address.size = 17;
        assert_eq!(footer.validate(16).unwrap_err().code(), "CorruptCollection");
        assert_eq!(
            sample().validate(15).unwrap_err().code(),
            "CorruptCollection"
        );
    }

    #[test]
    fn the_open_decoder_needs_one_request_when_the_probe_holds_the_footer() {
        use crate::format::open::tests::run;
        // A container prefix of 100 bytes, then the segment: 16 data bytes and its footer.
        let mut file = vec![0u8; 100];
        file.extend_from_slice(&[7u8; 16]);
        let footer = encode_segment_footer(&sample()).unwrap();
        file.extend_from_slice(&footer);
        let len = 16 + footer.len() as u64;
        let whole = |opened| match opened {
            OpenedSegment::Whole { footer, probe } => (footer, probe),
            OpenedSegment::Ranged { .. } => panic!("read by ranges"),
        };
        let (opened, requests) = run(SegmentOpen::new(100, len, len, 1 << 20), &file).unwrap();
        let (footer, probe) = whole(opened);
        assert_eq!((footer, requests), (sample(), 1));
        assert_eq!(probe, Some((0, file[100..].to_vec())));
        let (short, requests) = run(SegmentOpen::new(100, len, 20, 1 << 20), &file).unwrap();
        assert_eq!((whole(short), requests), ((sample(), None), 2));
        // Past the limit for whole reads: the probe, and where the footer lies.
        let opener = SegmentOpen::new(100, len, 20, 1 << 20).ranged_above(16);
        let (ranged, requests) = run(opener, &file).unwrap();
        let OpenedSegment::Ranged { footer, probe } = ranged else {
            panic!("read whole");
        };
        assert_eq!(
            (footer, probe, requests),
            (
                16..len - 12,
                (len - 20, file[file.len() - 20..].to_vec()),
                1
            )
        );
        // A segment that does not end with its magic.
        let mut foreign = file.clone();
        let end = foreign.len();
        foreign[end - 1] = b'X';
        let err = run(SegmentOpen::new(100, len, 20, 1 << 20), &foreign).unwrap_err();
        assert_eq!(err.code(), "CorruptCollection");
    }
}
