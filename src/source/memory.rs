//! An object held in memory.

use std::ops::Range;
use std::sync::Arc;

use super::{check_range, ByteSource, SourceFuture, Tail};

/// Bytes in memory, shared cheaply between clones.
#[derive(Debug, Clone)]
pub struct MemorySource {
    bytes: Arc<[u8]>,
}

impl MemorySource {
    /// Wraps `bytes` as an object.
    pub fn new(bytes: impl Into<Arc<[u8]>>) -> Self {
        Self {
            bytes: bytes.into(),
        }
    }

    /// The object's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl ByteSource for MemorySource {
    fn read_range(&self, range: Range<u64>) -> SourceFuture<'_, Vec<u8>> {
        let result = check_range(&range, self.bytes.len() as u64, "the in-memory object")
            .map(|()| self.bytes[range.start as usize..range.end as usize].to_vec());
        Box::pin(async move { result })
    }

    fn read_tail(&self, len: u64) -> SourceFuture<'_, Tail> {
        let size = self.bytes.len() as u64;
        let start = size - len.min(size);
        let tail = Tail {
            bytes: self.bytes[start as usize..].to_vec(),
            object_size: size,
        };
        Box::pin(async move { Ok(tail) })
    }

    fn describe(&self) -> String {
        format!("in-memory object of {} bytes", self.bytes.len())
    }
}
