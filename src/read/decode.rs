//! Where blocks are decompressed.
//!
//! By default a block is decoded inline, on the task that polls the read:
//! the core has no threads. Decoding is most of the cost of a sweep across a
//! collection, so a host that has threads (native) or workers (a browser) can
//! take it over with a [`BlockDecoder`] and decode several blocks at once.

use std::ops::Range;
use std::sync::Arc;

use crate::error::Result;
use crate::format::codec::decompress_block;
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
    /// The size the block table declares; the output must match it.
    pub uncompressed_size: u64,
}

impl CompressedBlock {
    /// Decompresses and checks the size: what every decoder ends up calling.
    pub fn decompress(&self) -> Result<Vec<u8>> {
        decompress_block(
            &self.codec,
            &self.bytes[self.range.clone()],
            self.uncompressed_size,
        )
    }
}

/// Decompresses blocks somewhere other than the polling task.
pub trait BlockDecoder: MaybeSendSync {
    /// Decompresses `block` (with [`CompressedBlock::decompress`]) and answers when done.
    fn decode(&self, block: CompressedBlock) -> SourceFuture<'static, Vec<u8>>;
}
