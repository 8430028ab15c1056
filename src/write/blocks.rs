//! Packs one variable's chunks into blocks, and spills full blocks to a
//! scratch file as soon as they are compressed.
//!
//! Chunks append to the open block in arrival order. Once the open block
//! reaches the target size it is closed: compressed (on the writer's
//! [`Pool`] when it has room) and appended to the scratch file in closing
//! order, so memory holds one open block per variable plus a few in flight,
//! whatever the collection's size. A chunk larger than the target shares the
//! open block with what came before it and closes it (array-format's rule;
//! it keeps blocks identical).

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::format::codec::decompress_block;
use crate::format::footer::Codec;
use crate::format::segment::{BlockId, BlockMeta, ChunkAddress, CodecId};
use crate::write::pool::{compress, Pending, Pool};

/// Where a chunk's bytes went: block, offset and size in the decompressed block.
pub(crate) type Placement = ChunkAddress;

pub(crate) struct BlockPacker {
    codec: Codec,
    target: usize,
    scratch: PathBuf,
    pool: Arc<Pool>,
    open: Vec<u8>,
    /// Closed blocks already in the scratch file; `file_offset` is relative
    /// to the segment start, which is also where the block sits in the file.
    closed: Vec<BlockMeta>,
    /// Closed blocks still being compressed, oldest first.
    compressing: VecDeque<Pending>,
    spilled: u64,
}

impl BlockPacker {
    pub(crate) fn new(codec: Codec, target: usize, scratch: PathBuf, pool: Arc<Pool>) -> Self {
        Self {
            codec,
            target,
            scratch,
            pool,
            open: Vec::new(),
            closed: Vec::new(),
            compressing: VecDeque::new(),
            spilled: 0,
        }
    }

    /// Appends a chunk's bytes and returns where they landed.
    pub(crate) fn push(&mut self, bytes: Cow<'_, [u8]>) -> Result<Placement> {
        let id = (self.closed.len() + self.compressing.len()) as u32;
        let offset = self.open.len();
        if offset + bytes.len() > u32::MAX as usize {
            return Err(Error::TooLarge(format!(
                "a block of {} bytes (chunk addresses are 32-bit); use a smaller block size or chunk",
                offset + bytes.len()
            )));
        }
        let size = bytes.len() as u32;
        match bytes {
            // A chunk that fills a block on its own moves in whole.
            Cow::Owned(owned) if self.open.is_empty() && owned.len() >= self.target => {
                self.open = owned;
            }
            bytes => self.open.extend_from_slice(&bytes),
        }
        if self.open.len() >= self.target {
            self.close()?;
        }
        Ok(ChunkAddress {
            block_id: BlockId(id),
            offset: offset as u32,
            size,
        })
    }

    /// The decompressed bytes of a chunk placed earlier.
    pub(crate) fn fetch(&mut self, at: &Placement) -> Result<Vec<u8>> {
        let (from, to) = (at.offset as usize, at.offset as usize + at.size as usize);
        Ok(self.block(at.block_id.0)?[from..to].to_vec())
    }

    /// The decompressed bytes of block `id`, the open one included.
    pub(crate) fn block(&mut self, id: u32) -> Result<Cow<'_, [u8]>> {
        let id = id as usize;
        if id == self.closed.len() + self.compressing.len() {
            return Ok(Cow::Borrowed(&self.open));
        }
        while id >= self.closed.len() {
            self.collect(true)?;
        }
        let block = &self.closed[id];
        let mut compressed = vec![0u8; block.compressed_size as usize];
        read_at(
            &File::open(&self.scratch)?,
            &mut compressed,
            block.file_offset,
        )?;
        let bytes = decompress_block(&block.codec, &compressed, block.uncompressed_size)?;
        Ok(Cow::Owned(bytes))
    }

    /// Removes the scratch file (a staged dataset's, once copied or dropped).
    pub(crate) fn discard(self) {
        let _ = std::fs::remove_file(&self.scratch);
    }

    fn close(&mut self) -> Result<()> {
        if self.open.is_empty() {
            return Ok(());
        }
        let raw = std::mem::take(&mut self.open);
        match self.pool.submit(self.codec, raw) {
            Ok(pending) => self.compressing.push_back(pending),
            Err(raw) => {
                // Compressed here while the queued blocks finish, and
                // appended after them to keep the order.
                let (codec, packed) = compress(self.codec, &raw)?;
                while !self.compressing.is_empty() {
                    self.collect(true)?;
                }
                self.append(codec, &packed, raw.len() as u64)?;
            }
        }
        // Write whatever is ready, so finished blocks do not wait in memory.
        while self.collect(false)? {}
        Ok(())
    }

    /// Writes the oldest compressing block if it is ready (or once it is,
    /// with `wait`); false when there was nothing to write.
    fn collect(&mut self, wait: bool) -> Result<bool> {
        let Some(front) = self.compressing.front() else {
            return Ok(false);
        };
        let Some(answer) = front.take(wait) else {
            return Ok(false);
        };
        self.compressing.pop_front();
        let (codec, packed, raw) = answer?;
        self.append(codec, &packed, raw.len() as u64)?;
        Ok(true)
    }

    fn append(&mut self, codec: CodecId, packed: &[u8], raw_len: u64) -> Result<()> {
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.scratch)?;
        file.write_all(packed)?;
        self.closed.push(BlockMeta {
            id: BlockId(self.closed.len() as u32),
            file_offset: self.spilled,
            compressed_size: packed.len() as u64,
            uncompressed_size: raw_len,
            codec,
        });
        self.spilled += packed.len() as u64;
        Ok(())
    }

    /// Closes the open block and waits for every block; the scratch file
    /// then holds the segment's data region, and the returned table
    /// describes it.
    pub(crate) fn finish(mut self) -> Result<(PathBuf, u64, Vec<BlockMeta>)> {
        self.close()?;
        while !self.compressing.is_empty() {
            self.collect(true)?;
        }
        Ok((self.scratch, self.spilled, self.closed))
    }

    /// Bytes held in memory: the open block.
    pub(crate) fn open_bytes(&self) -> usize {
        self.open.capacity()
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(not(unix))]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = file;
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("atlas-wasm-blocks-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        dir
    }

    #[test]
    fn blocks_close_at_the_target_and_chunks_read_back() {
        for codec in [Codec::Zstd, Codec::Lz4, Codec::Uncompressed] {
            let path = scratch(codec.name());
            let mut packer = BlockPacker::new(codec, 8, path.clone(), Pool::new(1));
            let a = packer.push(Cow::Borrowed(&[1; 5])).unwrap();
            let b = packer.push(Cow::Borrowed(&[2; 5])).unwrap(); // closes block 0 at 10 bytes
            let c = packer.push(Cow::Borrowed(&[3; 2])).unwrap();
            assert_eq!(
                (a.block_id.0, b.block_id.0, b.offset, c.block_id.0),
                (0, 0, 5, 1)
            );
            assert_eq!(packer.fetch(&b).unwrap(), vec![2; 5]);
            assert_eq!(packer.fetch(&c).unwrap(), vec![3; 2]);
            let (_, len, blocks) = packer.finish().unwrap();
            assert_eq!(blocks.len(), 2);
            assert_eq!(blocks[1].file_offset, blocks[0].compressed_size);
            assert_eq!(len, blocks[0].compressed_size + blocks[1].compressed_size);
            std::fs::remove_file(path).unwrap();
        }
    }
}
