//! An opened segment: its footer, decoded once, and block loading through the cache.

use std::collections::{HashMap, VecDeque};
use std::ops::Range;
use std::sync::Arc;

use futures_util::future::{FutureExt, Shared};
use futures_util::stream::{Stream, StreamExt};

use crate::error::{Error, Result};
use crate::format::budget::check;
use crate::format::segment::{ArrayMeta, BlockMeta, OpenedSegment, SegmentFooter, SegmentOpen};
use crate::format::value::Attr;
use crate::read::ahead::{InOrder, Prefetch};
use crate::read::cache::{Block, BlockKey, Lookup};
use crate::read::decode::CompressedBlock;
use crate::read::open::drive_holding;
use crate::read::Shared as Inner;
use crate::source::SourceFuture;

/// Segments up to this size are read whole at open: one request then also
/// brings every block, and the round trip saved is worth more than the bytes.
const READ_WHOLE_BELOW: u64 = 256 * 1024;
/// The first read of a segment's tail is sized to hold a footer of this many
/// bytes per dataset, so a segment opens in one request.
const FOOTER_BYTES_PER_DATASET: u64 = 384;
const MIN_PROBE: u64 = 64 * 1024;
const MAX_PROBE: u64 = 8 * 1024 * 1024;

/// One variable across the collection, ready to serve reads.
pub(crate) struct Segment {
    /// Index of the variable in the collection footer (the cache key).
    pub(crate) variable: u32,
    /// Where the segment starts in the container.
    offset: u64,
    blocks: Vec<BlockMeta>,
    strings: Vec<String>,
    values: Vec<Attr>,
    arrays: Vec<ArrayMeta>,
    by_name: HashMap<String, usize>,
    /// The bytes the open already read, when they reach into the data region.
    probe: Option<(u64, Block)>,
}

impl Segment {
    /// Reads and decodes a segment in one request where the probe covers the footer.
    /// The future holds the data source but not `inner`: it is kept in
    /// `inner.segments` while it runs, and one there that held `inner` would
    /// keep a handle dropped mid-open alive in a cycle.
    pub(crate) fn open(
        inner: &Inner,
        variable: u32,
        datasets: u64,
    ) -> impl std::future::Future<Output = Result<Segment>> + 'static {
        let entry = &inner.footer.variables[variable as usize];
        let (offset, len) = (entry.seg_offset, entry.seg_len);
        // A segment inside the open's tail read costs nothing to take whole.
        let held = offset >= inner.held.from;
        let probe_len = if len <= READ_WHOLE_BELOW || held {
            len
        } else {
            (MIN_PROBE + datasets.saturating_mul(FOOTER_BYTES_PER_DATASET))
                .min(MAX_PROBE)
                .min(len)
        };
        let data = inner.data.clone();
        let held = inner.held.clone();
        let decoder = SegmentOpen::new(offset, len, probe_len, inner.options.memory_budget);
        async move {
            let OpenedSegment { footer, probe } =
                drive_holding(data.as_ref(), Some(&held), decoder).await?;
            let probe = probe.map(|(start, bytes)| (start, Arc::new(bytes)));
            Self::from_footer(variable, offset, footer, probe)
        }
    }

    fn from_footer(
        variable: u32,
        offset: u64,
        footer: SegmentFooter,
        probe: Option<(u64, Block)>,
    ) -> Result<Self> {
        let values = footer
            .values
            .iter()
            .map(|v| v.decode(&footer.strings))
            .collect::<Result<Vec<_>>>()?;
        let by_name = footer
            .arrays
            .iter()
            .enumerate()
            .map(|(i, a)| (a.name.clone(), i))
            .collect();
        Ok(Segment {
            variable,
            offset,
            blocks: footer.blocks,
            strings: footer.strings,
            values,
            arrays: footer.arrays,
            by_name,
            probe,
        })
    }

    /// The array a dataset stores in this segment.
    pub(crate) fn array(&self, dataset: &str) -> Option<&ArrayMeta> {
        self.index_of(dataset).map(|i| &self.arrays[i])
    }

    /// Where a dataset's array sits in [`arrays`](Self::arrays): one hash.
    pub(crate) fn index_of(&self, dataset: &str) -> Option<usize> {
        self.by_name.get(dataset).copied()
    }

    /// Every array, in the order the segment stores them (write order).
    pub(crate) fn arrays(&self) -> &[ArrayMeta] {
        &self.arrays
    }

    /// One attribute of one array, decoded.
    pub(crate) fn attribute(&self, array: &ArrayMeta, key: &str) -> Option<Attr> {
        array
            .attributes
            .iter()
            .find(|&&(k, _)| self.strings[k as usize] == key)
            .map(|&(_, v)| self.values[v as usize].clone())
    }

    /// The decompressed blocks of `wants` (`(block id, bytes needed from its
    /// start)`), from the cache, from a load already under way, or fetched
    /// now: adjacent blocks in one range read, up to `concurrency` reads at a
    /// time. A block comes back at least as long as wanted.
    pub(crate) async fn load_blocks(
        self: &Arc<Self>,
        inner: &Arc<Inner>,
        wants: &[(u32, u64)],
    ) -> Result<HashMap<u32, Block>> {
        // Every load runs to its end, even after one fails: a load removes
        // itself from `inner.loading` only when it finishes, and it holds
        // `inner`, so one dropped unfinished (as `try_collect` did on the
        // first error) kept the whole collection alive in a cycle (found by
        // fuzz target `open_and_read`: the heap grew by each input read).
        let loaded: Vec<Result<(u32, Block)>> = self.blocks_in_order(inner, wants).collect().await;
        loaded.into_iter().collect()
    }

    /// The blocks of `wants` as [`load_blocks`](Self::load_blocks) loads them,
    /// yielded in the order of `wants` as each arrives, so a caller can use
    /// and drop a block before the last one is in. A caller must drain the
    /// stream even after an error (see `load_blocks`).
    pub(crate) fn blocks_in_order(
        self: &Arc<Self>,
        inner: &Arc<Inner>,
        wants: &[(u32, u64)],
    ) -> impl Stream<Item = Result<(u32, Block)>> + 'static {
        let mut waits: HashMap<u32, SharedBlock> = HashMap::with_capacity(wants.len());
        let mut ready: HashMap<u32, Block> = HashMap::new();
        let mut planned: Vec<Range<u64>> = Vec::new();
        let mut prefetch = VecDeque::new();
        {
            let mut loading = inner.loading.lock().unwrap_or_else(|p| p.into_inner());
            // Each with where `wants` lists it.
            let mut missing: Vec<(&BlockMeta, u64, usize)> = Vec::new();
            for (at, &(id, wanted)) in wants.iter().enumerate() {
                let key: BlockKey = (self.variable, id);
                let wanted = wanted.min(self.blocks[id as usize].uncompressed_size);
                let pending = loading.get(&key).cloned();
                match (inner.cache.get(key, wanted), pending) {
                    (Lookup::Hit(bytes), _) => {
                        ready.insert(id, bytes);
                    }
                    (_, Some((loads, shared))) if loads >= wanted => {
                        waits.insert(id, shared);
                    }
                    (_, Some((_, shorter))) => {
                        waits.insert(id, self.load_after(inner, shorter, id));
                    }
                    // The second read into a block decodes it whole, so
                    // reading a block's chunks one by one decodes it at
                    // most twice, not once per chunk.
                    (Lookup::Partial(compressed), None) => {
                        let whole = compressed.uncompressed_size;
                        let fetch: SourceFuture<'static, GroupBytes> =
                            Box::pin(ready_group(compressed));
                        let shared = self.load_one(inner, fetch.shared(), 0, id, whole);
                        loading.insert(key, (whole, shared.clone()));
                        waits.insert(id, shared);
                    }
                    (Lookup::Miss, None) => missing.push((&self.blocks[id as usize], wanted, at)),
                }
            }
            // Callers list blocks by id or in first use, which is file
            // order in the files writers make; any other order only
            // coalesces less.
            let metas: Vec<&BlockMeta> = missing.iter().map(|(b, _, _)| *b).collect();
            let mut wanted = missing.iter().map(|&(_, w, at)| (w, at));
            for group in coalesce(&metas, inner.options.coalesce_bytes) {
                let (start, end) = span(&group);
                let fetch = self.fetch_group(inner, &group).shared();
                let mut last = 0;
                for (position, block) in group.iter().enumerate() {
                    let (want, at) = wanted.next().unwrap_or_default();
                    let id = block.id.0;
                    let shared = self.load_one(inner, fetch.clone(), position, id, want);
                    loading.insert((self.variable, id), (want, shared.clone()));
                    waits.insert(id, shared);
                    last = last.max(at);
                }
                if !self.in_probe(start) {
                    planned.push(self.offset + start..self.offset + end);
                    let bytes = end - start;
                    prefetch.push_back(Prefetch { fetch, bytes, last });
                }
            }
        }
        if let Some(tell) = &inner.options.planned {
            tell(&planned);
        }
        let concurrency = inner.options.max_concurrency.max(1);
        let each: Vec<SourceFuture<'static, (u32, Block)>> = wants
            .iter()
            .map(|&(id, _)| -> SourceFuture<'static, (u32, Block)> {
                match ready.get(&id) {
                    Some(bytes) => {
                        let bytes = bytes.clone();
                        Box::pin(async move { Ok((id, bytes)) })
                    }
                    None => {
                        let wait = waits[&id].clone();
                        Box::pin(async move { wait.await.map(|bytes| (id, bytes)) })
                    }
                }
            })
            .collect();
        // Compressed bytes fetched ahead of the decoder: what keeps the
        // requests in flight busy, not the whole read (`iterate` reads a
        // million datasets through this).
        let ahead = inner.options.memory_budget / 2;
        InOrder::new(each, prefetch, concurrency, ahead)
    }

    /// Block `id` whole, once `shorter` (a load of less of it) has ended:
    /// from the compressed bytes that load kept, with no request of its own.
    fn load_after(
        self: &Arc<Self>,
        inner: &Arc<Inner>,
        shorter: SharedBlock,
        id: u32,
    ) -> SharedBlock {
        let this = self.clone();
        let weak = Arc::downgrade(inner);
        let after: SourceFuture<'static, Block> = Box::pin(async move {
            let _ = shorter.await;
            let inner = weak.upgrade().ok_or(Error::Aborted)?;
            let whole = this.blocks[id as usize].uncompressed_size;
            let mut blocks = this.load_blocks(&inner, &[(id, whole)]).await?;
            blocks.remove(&id).ok_or(Error::Aborted)
        });
        after.shared()
    }

    /// The load of the first `wanted` bytes of block `id`, at `position` in
    /// the group `fetch` brings: decompressed, checked, cached.
    fn load_one(
        self: &Arc<Self>,
        inner: &Arc<Inner>,
        fetch: Shared<SourceFuture<'static, GroupBytes>>,
        position: usize,
        id: u32,
        wanted: u64,
    ) -> SharedBlock {
        let this = self.clone();
        // Weak: the load lives in `inner.loading` until it ends; a strong
        // reference there would keep a handle whose read was dropped
        // mid-load alive in a cycle.
        let weak = Arc::downgrade(inner);
        let load: SourceFuture<'static, Block> = Box::pin(async move {
            let result = async {
                let (bytes, slices) = fetch.await?;
                let inner = weak.upgrade().ok_or(Error::Aborted)?;
                let (start, end) = slices[position];
                let meta = &this.blocks[id as usize];
                // This load stays in `loading` until it ends: alone, it is the only one.
                let alone = inner.loading.lock().unwrap_or_else(|p| p.into_inner()).len() <= 1;
                let block = CompressedBlock {
                    codec: meta.codec.clone(),
                    bytes,
                    range: start..end,
                    uncompressed_size: meta.uncompressed_size,
                    wanted,
                    alone,
                };
                // Checked before inflating: the size comes from the file. The
                // whole block, though a read may need less: a block past the
                // budget is refused whatever part of it is asked for.
                check(
                    meta.uncompressed_size,
                    inner.options.memory_budget,
                    "a decompressed block",
                )?;
                let host = inner.options.decoder.clone();
                drop(inner); // not held across the host decoder's await
                let decoded = match host {
                    Some(decoder) => decoder.decode(block.clone()).await?,
                    None => block.decompress()?,
                };
                // A host decoder is code we did not write: hold it to the table.
                if decoded.len() as u64 != wanted {
                    return Err(Error::corrupt(format!(
                        "block {id} decoded to {} bytes, {wanted} were asked (the block table says {})",
                        decoded.len(),
                        meta.uncompressed_size
                    )));
                }
                let rest = (wanted < meta.uncompressed_size).then(|| block.detached());
                Ok::<_, Error>((Arc::new(decoded), rest))
            }
            .await;
            let key = (this.variable, id);
            if let Some(inner) = weak.upgrade() {
                let mut loading = inner.loading.lock().unwrap_or_else(|p| p.into_inner());
                // A longer load of the same block may have taken the slot.
                if loading.get(&key).is_some_and(|(w, _)| *w == wanted) {
                    loading.remove(&key);
                }
                drop(loading);
                if let Ok((bytes, rest)) = &result {
                    inner.cache.insert(key, bytes.clone(), rest.clone());
                }
            }
            result.map(|(bytes, _)| bytes)
        });
        load.shared()
    }

    /// One range read covering `group`, served from the open's probe when it covers it.
    fn fetch_group(
        self: &Arc<Self>,
        inner: &Arc<Inner>,
        group: &[&BlockMeta],
    ) -> SourceFuture<'static, GroupBytes> {
        let (start, end) = span(group);
        let slices: Vec<(usize, usize)> = group
            .iter()
            .map(|b| {
                (
                    (b.file_offset - start) as usize,
                    (b.file_offset - start + b.compressed_size) as usize,
                )
            })
            .collect();
        let this = self.clone();
        let data = inner.data.clone(); // the source, not `inner`: see `load_blocks`
        Box::pin(async move {
            if let Some((probe_start, bytes)) = &this.probe {
                // `in_probe` (which plans no request for it) says the same.
                if start >= *probe_start {
                    let from = (start - probe_start) as usize;
                    // Serve the group from the probe's bytes, in place.
                    let shifted = slices.iter().map(|&(a, b)| (a + from, b + from)).collect();
                    return Ok((bytes.clone(), shifted));
                }
            }
            let bytes = data
                .read_range(this.offset + start..this.offset + end)
                .await?;
            Ok((Arc::new(bytes), slices))
        })
    }
}

impl Segment {
    /// Whether the bytes from `start` (in the segment) to its end came with the open.
    fn in_probe(&self, start: u64) -> bool {
        self.probe.as_ref().is_some_and(|(from, _)| start >= *from)
    }
}

/// Where a group of adjacent blocks starts and ends in the segment.
fn span(group: &[&BlockMeta]) -> (u64, u64) {
    let start = group[0].file_offset;
    let end = group
        .last()
        .map_or(start, |b| b.file_offset + b.compressed_size);
    (start, end)
}

type SharedBlock = Shared<SourceFuture<'static, Block>>;

/// A block already in hand, as the group a fetch would bring.
async fn ready_group(block: CompressedBlock) -> Result<GroupBytes> {
    Ok((block.bytes, vec![(block.range.start, block.range.end)]))
}

/// The compressed bytes of a group of adjacent blocks, and each block's slice of them.
type GroupBytes = (Block, Vec<(usize, usize)>);

/// The loads under way, keyed like the cache, so that two reads that need one
/// block share one request.
/// Each with the bytes it decodes (a read that needs more starts its own).
pub(crate) type Loading = std::sync::Mutex<HashMap<BlockKey, (u64, SharedBlock)>>;

/// Groups blocks (sorted by offset) whose bytes touch, up to `limit` bytes a
/// group; a block larger than the limit travels alone.
fn coalesce<'a>(blocks: &[&'a BlockMeta], limit: u64) -> Vec<Vec<&'a BlockMeta>> {
    let mut groups: Vec<Vec<&BlockMeta>> = Vec::new();
    let mut size = 0u64;
    for &block in blocks {
        if let Some(group) = groups.last_mut() {
            let last = group[group.len() - 1];
            if last.file_offset + last.compressed_size == block.file_offset
                && size + block.compressed_size <= limit
            {
                group.push(block);
                size += block.compressed_size;
                continue;
            }
        }
        groups.push(vec![block]);
        size = block.compressed_size;
    }
    groups
}
