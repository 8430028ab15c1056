//! Compression off the writing thread: a few workers compress closed blocks
//! while the caller goes on packing the next ones.
//!
//! Each job answers on its own channel and each variable writes the answers
//! in the order it closed its blocks, so the bytes are those of inline
//! compression; only the wall time changes. Blocks in flight are capped
//! across the whole writer, so memory stays bounded however many variables
//! there are: past the cap, a block is compressed inline.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::format::footer::Codec;
use crate::format::segment::CodecId;

/// The codec id, the compressed bytes, and the raw buffer handed back for reuse.
pub(crate) type Packed = Result<(CodecId, Vec<u8>, Vec<u8>)>;

type Job = (Codec, Vec<u8>, SyncSender<Packed>);

pub(crate) struct Pool {
    jobs: Mutex<Option<Sender<Job>>>,
    limit: usize,
    in_flight: AtomicUsize,
    /// Raw bytes queued or compressing: past `byte_limit` a block waits
    /// inline, so large chunks (an ingest's whole-chunk blocks) do not pile up.
    in_flight_bytes: AtomicUsize,
    byte_limit: usize,
}

/// A block being compressed; its slot in the cap is freed when it is taken.
pub(crate) struct Pending {
    answer: Receiver<Packed>,
    pool: Arc<Pool>,
    bytes: usize,
}

impl Pending {
    /// The result if ready (`block` false) or once ready (`block` true).
    pub(crate) fn take(&self, block: bool) -> Option<Packed> {
        let answer = if block {
            self.answer.recv().ok()
        } else {
            self.answer.try_recv().ok()
        };
        let answer = answer.or_else(|| {
            // A worker that died without answering: report, never hang.
            block.then(|| Err(crate::Error::Io("a compression worker stopped".into())))
        });
        if answer.is_some() {
            self.pool.in_flight.fetch_sub(1, Ordering::AcqRel);
            self.pool
                .in_flight_bytes
                .fetch_sub(self.bytes, Ordering::AcqRel);
        }
        answer
    }
}

impl Pool {
    /// Starts `threads` workers, with at most `threads + 2` blocks in flight;
    /// 0 threads compresses everything inline.
    pub(crate) fn new(threads: usize) -> Arc<Pool> {
        let pool = Arc::new(Pool {
            jobs: Mutex::new(None),
            limit: threads + 2,
            in_flight: AtomicUsize::new(0),
            in_flight_bytes: AtomicUsize::new(0),
            byte_limit: (threads + 2) * crate::write::DEFAULT_BLOCK_TARGET_SIZE,
        });
        if threads == 0 {
            return pool;
        }
        let (send, receive) = channel::<Job>();
        let receive = Arc::new(Mutex::new(receive));
        for _ in 0..threads {
            let receive = receive.clone();
            std::thread::spawn(move || loop {
                let job = receive.lock().unwrap_or_else(|p| p.into_inner()).recv();
                let Ok((codec, raw, reply)) = job else { return };
                let result = compress(codec, &raw).map(|(id, packed)| (id, packed, raw));
                let _ = reply.send(result);
            });
        }
        *pool.jobs.lock().unwrap_or_else(|p| p.into_inner()) = Some(send);
        pool
    }

    /// Workers for this machine: one per core beyond the caller's, at most 4.
    pub(crate) fn for_this_machine() -> Arc<Pool> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Pool::new(cores.clamp(1, 5) - 1)
    }

    /// Queues `raw`, or hands it back when the pool is inline or full.
    pub(crate) fn submit(
        self: &Arc<Self>,
        codec: Codec,
        raw: Vec<u8>,
    ) -> std::result::Result<Pending, Vec<u8>> {
        let jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        let Some(jobs) = jobs.as_ref() else {
            return Err(raw);
        };
        let bytes = raw.len();
        let queued = self.in_flight_bytes.fetch_add(bytes, Ordering::AcqRel);
        let over_bytes = queued > 0 && queued + bytes > self.byte_limit;
        if over_bytes || self.in_flight.fetch_add(1, Ordering::AcqRel) >= self.limit {
            if !over_bytes {
                self.in_flight.fetch_sub(1, Ordering::AcqRel);
            }
            self.in_flight_bytes.fetch_sub(bytes, Ordering::AcqRel);
            return Err(raw);
        }
        let (reply, answer) = sync_channel(1);
        match jobs.send((codec, raw, reply)) {
            Ok(()) => Ok(Pending {
                answer,
                pool: self.clone(),
                bytes,
            }),
            Err(e) => {
                self.in_flight.fetch_sub(1, Ordering::AcqRel);
                self.in_flight_bytes.fetch_sub(bytes, Ordering::AcqRel);
                Err(e.0 .1)
            }
        }
    }

    /// Stops the workers once they are idle (dropping the pool does too).
    #[cfg(test)]
    pub(crate) fn close(&self) {
        self.jobs.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

/// Compresses one block the way array-format's codecs do: a zstd frame at
/// level 3, lz4_flex's block format with a 4-byte size prefix, or raw.
pub(crate) fn compress(codec: Codec, block: &[u8]) -> Result<(CodecId, Vec<u8>)> {
    Ok(match codec {
        Codec::Zstd => (
            CodecId::Named("zstd".into()),
            zstd::bulk::compress(block, 3).map_err(|e| Error::Io(format!("zstd: {e}")))?,
        ),
        Codec::Lz4 => (
            CodecId::Named("lz4".into()),
            lz4_flex::block::compress_prepend_size(block),
        ),
        Codec::Uncompressed => (CodecId::None, block.to_vec()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_match_inline_compression_and_the_cap_holds() {
        let pool = Pool::new(2);
        let blocks: Vec<Vec<u8>> = (0..6u8).map(|i| vec![i; 10_000]).collect();
        let mut pending = Vec::new();
        let mut inline = 0;
        for b in &blocks {
            match pool.submit(Codec::Zstd, b.clone()) {
                Ok(p) => pending.push((b, p)),
                Err(_) => inline += 1,
            }
        }
        assert!(pending.len() <= 4 && inline + pending.len() == 6);
        for (raw, p) in pending {
            let (_, packed, back) = p.take(true).unwrap().unwrap();
            assert_eq!(packed, compress(Codec::Zstd, raw).unwrap().1);
            assert_eq!(&back, raw);
        }
        assert_eq!(pool.in_flight.load(Ordering::Acquire), 0);
        assert_eq!(pool.in_flight_bytes.load(Ordering::Acquire), 0);
        // A block past the byte cap goes alone, the next one waits inline.
        let huge = vec![7u8; pool.byte_limit + 1];
        let first = pool.submit(Codec::Lz4, huge.clone()).ok().unwrap();
        assert!(pool.submit(Codec::Lz4, huge).is_err());
        first.take(true).unwrap().unwrap();
        assert_eq!(pool.in_flight_bytes.load(Ordering::Acquire), 0);
        pool.close();
        assert!(pool.submit(Codec::Lz4, vec![1]).is_err());
    }
}
