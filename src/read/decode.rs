//! Where blocks are decompressed.
//!
//! By default a block is decoded inline, on the task that polls the read:
//! the core has no threads. Decoding is most of the cost of a sweep across a
//! collection, so a host that has threads (native) or workers (a browser) can
//! take it over with a [`BlockDecoder`] and decode several blocks at once.

use std::ops::Range;
use std::sync::Arc;

use crate::error::Result;
use crate::format::codec::decompress_prefix;
use crate::format::segment::CodecId;
use crate::source::{MaybeSendSync, SourceFuture};

/// One block as fetched, ready to decompress anywhere: it owns its bytes.
#[derive(Debug, Clone)]
pub struct CompressedBlock {
    /// The block's own codec.
    pub codec: CodecId,
    /// The bytes of the request that brought the block (neighbours may share it).
    pub bytes: Arc<Vec<u8>>,
    /// The block's bytes within `bytes`.
    pub range: Range<usize>,
    /// The size the block table declares.
    pub uncompressed_size: u64,
    /// How many bytes from the block's start the read needs (at most
    /// `uncompressed_size`): decoding stops there, and the output must be
    /// exactly this long.
    pub wanted: u64,
    /// Whether no other block of the collection is loading as this one is
    /// decoded, for this read or another: with nothing to decode beside it,
    /// moving it off the polling task buys no parallelism, only a copy each
    /// way (the npm package's pool decodes such a block in place).
    pub alone: bool,
}

impl CompressedBlock {
    /// Decompresses the wanted bytes and checks their length: what every
    /// decoder ends up calling.
    pub fn decompress(&self) -> Result<Vec<u8>> {
        decompress_prefix(
            &self.codec,
            &self.bytes[self.range.clone()],
            self.uncompressed_size,
            self.wanted,
        )
    }

    /// This block alone, its compressed bytes copied out of the request
    /// they came with (which may hold its neighbours too).
    pub(crate) fn detached(&self) -> CompressedBlock {
        let bytes = self.bytes[self.range.clone()].to_vec();
        CompressedBlock {
            codec: self.codec.clone(),
            range: 0..bytes.len(),
            bytes: Arc::new(bytes),
            uncompressed_size: self.uncompressed_size,
            wanted: self.wanted,
            alone: self.alone,
        }
    }
}

/// Decompresses blocks somewhere other than the polling task.
pub trait BlockDecoder: MaybeSendSync {
    /// Decompresses `block` (with [`CompressedBlock::decompress`]: its
    /// `wanted` bytes) and answers when done.
    fn decode(&self, block: CompressedBlock) -> SourceFuture<'static, Vec<u8>>;
}
