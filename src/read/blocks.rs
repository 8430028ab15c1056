//! Loading blocks. [`BlockPlan`] decides, from what the cache holds and what
//! is loading already, what one read must do for each block it needs: take
//! it, join a load under way, decode bytes at hand again, or fetch it with
//! its neighbours in one request. It is pure, and tested at the foot of this
//! file. [`Loader::start`] carries a plan out: it registers the new loads so
//! that concurrent reads share them, and yields the blocks in the order the
//! read asked for them.
//!
//! A load in flight is listed by a weak reference and removes itself when it
//! ends or when the last read awaiting it is dropped (its [`Listed`] guard),
//! so a read dropped half-way leaves nothing behind and no caller has to
//! drain anything.

use std::collections::{HashMap, VecDeque};
use std::ops::Range;
use std::sync::{Arc, Mutex, MutexGuard};

use futures_util::future::{FutureExt, Shared, WeakShared};
use futures_util::stream::StreamExt;

use crate::error::{Error, Result};
use crate::format::budget::check;
use crate::format::segment::BlockMeta;
use crate::read::ahead::{InOrder, Prefetch};
use crate::read::cache::{Block, BlockCache, BlockKey, Lookup};
use crate::read::decode::{BlockDecoder, CompressedBlock};
use crate::source::{ByteSource, SourceFuture};

/// One block a read needs, and how many bytes from its start.
#[derive(Debug, Clone)]
pub(crate) struct Want {
    pub(crate) block: BlockMeta,
    /// At most the block's decompressed size.
    pub(crate) bytes: u64,
}

impl Want {
    pub(crate) fn new(block: BlockMeta, bytes: u64) -> Want {
        let bytes = bytes.min(block.uncompressed_size);
        Want { block, bytes }
    }

    fn id(&self) -> u32 {
        self.block.id.0
    }
}

/// Where one segment's blocks lie in the container.
#[derive(Clone)]
pub(crate) struct Region {
    /// The variable's index: with the block id, the key of the cache.
    pub(crate) variable: u32,
    /// Where the segment starts in the container.
    pub(crate) offset: u64,
    /// Bytes of the segment already read, from a position (in the segment)
    /// to its end: blocks inside them need no request.
    pub(crate) probe: Option<(u64, Block)>,
}

impl Region {
    fn in_probe(&self, start: u64) -> bool {
        self.probe.as_ref().is_some_and(|(from, _)| start >= *from)
    }
}

/// What the cache and the loads in flight have of one wanted block; `J`
/// stands for a load one can await.
pub(crate) enum Found<J> {
    /// Decompressed, at least as far as wanted.
    Cached(Block),
    /// Decompressed less far, with the compressed block kept beside it.
    Partial(CompressedBlock),
    /// A load in flight, of this many bytes.
    Loading(u64, J),
    /// Nothing.
    Missing,
}

/// What a read does for one block.
pub(crate) enum Step<J> {
    /// Take it from the cache.
    Ready(Block),
    /// Await a load that decodes at least the bytes wanted.
    Join(J),
    /// Await a load of fewer bytes, then decode the block whole from the
    /// compressed bytes it kept, with no request.
    After(J),
    /// Decode the block whole from the compressed bytes the cache kept: a
    /// second read into a block decodes it whole, so reading a block chunk
    /// by chunk decodes it at most twice, not once per chunk.
    Redecode(CompressedBlock),
    /// Fetch it as item `position` of `groups[group]`.
    Fetch { group: usize, position: usize },
}

/// Blocks whose bytes touch, fetched in one request.
#[derive(Debug, PartialEq)]
pub(crate) struct Group {
    /// The bytes, in the segment.
    pub(crate) span: Range<u64>,
    /// Its blocks, as indices into the read's wants.
    pub(crate) members: Vec<usize>,
    /// Whether the segment bytes already read hold it.
    pub(crate) in_probe: bool,
}

/// What one read does for each block it needs, in the order it needs them.
pub(crate) struct BlockPlan<J> {
    pub(crate) steps: Vec<Step<J>>,
    pub(crate) groups: Vec<Group>,
}

impl<J> BlockPlan<J> {
    /// Plans `wants` (listed in the order the read uses them): blocks that
    /// are missing and adjacent in the file travel together, up to
    /// `coalesce` bytes a request (a larger block travels alone). Callers
    /// list blocks by id or by first use, which is file order in the files
    /// writers make; another order only coalesces less.
    pub(crate) fn new(
        wants: &[Want],
        region: &Region,
        coalesce: u64,
        mut found: impl FnMut(&Want) -> Found<J>,
    ) -> BlockPlan<J> {
        let mut steps = Vec::with_capacity(wants.len());
        let mut groups: Vec<Group> = Vec::new();
        let mut size = 0;
        for (at, want) in wants.iter().enumerate() {
            let step = match found(want) {
                Found::Cached(bytes) => Step::Ready(bytes),
                Found::Loading(bytes, load) if bytes >= want.bytes => Step::Join(load),
                Found::Loading(_, shorter) => Step::After(shorter),
                Found::Partial(compressed) => Step::Redecode(compressed),
                Found::Missing => {
                    let (start, len) = (want.block.file_offset, want.block.compressed_size);
                    let joins = groups
                        .last()
                        .is_some_and(|g| g.span.end == start && size + len <= coalesce);
                    if joins {
                        let group = groups.last_mut().expect("checked above");
                        group.span.end += len;
                        group.members.push(at);
                        size += len;
                    } else {
                        groups.push(Group {
                            span: start..start + len,
                            members: vec![at],
                            in_probe: false,
                        });
                        size = len;
                    }
                    let group = groups.len() - 1;
                    let position = groups[group].members.len() - 1;
                    Step::Fetch { group, position }
                }
            };
            steps.push(step);
        }
        for group in &mut groups {
            group.in_probe = region.in_probe(group.span.start);
        }
        BlockPlan { steps, groups }
    }

    /// The ranges of the segment the plan requests (the probe serves the rest).
    pub(crate) fn requests(&self) -> impl Iterator<Item = Range<u64>> + '_ {
        self.groups
            .iter()
            .filter(|g| !g.in_probe)
            .map(|g| g.span.clone())
    }
}

type SharedBlock = Shared<SourceFuture<'static, Block>>;
type SharedGroup = Shared<SourceFuture<'static, GroupBytes>>;
/// The compressed bytes of a group, and each member's slice of them.
type GroupBytes = (Block, Vec<Range<usize>>);

/// One load in flight: the bytes it decodes, the load, and which listing it is.
struct Listing {
    bytes: u64,
    load: WeakShared<SourceFuture<'static, Block>>,
    token: u64,
}

#[derive(Default)]
struct InFlight {
    loads: HashMap<BlockKey, Listing>,
    next_token: u64,
}

/// Held by a load; unlists it when the load ends or is dropped unfinished.
struct Listed {
    in_flight: Arc<Mutex<InFlight>>,
    key: BlockKey,
    token: u64,
}

impl Drop for Listed {
    fn drop(&mut self) {
        let mut in_flight = lock(&self.in_flight);
        // A longer load of the same block may have taken the slot since.
        if in_flight
            .loads
            .get(&self.key)
            .is_some_and(|l| l.token == self.token)
        {
            in_flight.loads.remove(&self.key);
        }
    }
}

/// Blocks for every segment of a handle: the cache, the loads in flight,
/// and what a load needs (the source, the decoder, the limits).
#[derive(Clone)]
pub(crate) struct Loader {
    state: Arc<State>,
}

struct State {
    source: Arc<dyn ByteSource>,
    cache: BlockCache,
    in_flight: Arc<Mutex<InFlight>>,
    decoder: Option<Arc<dyn BlockDecoder>>,
    budget: u64,
    coalesce: u64,
    concurrency: usize,
}

/// The limits a loader works within.
pub(crate) struct Limits {
    pub(crate) cache_bytes: u64,
    pub(crate) budget: u64,
    pub(crate) coalesce: u64,
    pub(crate) concurrency: usize,
}

/// A plan under way: the container ranges it requests, and its blocks.
pub(crate) struct Started {
    /// Container byte ranges about to be requested, before the first is sent.
    pub(crate) requests: Vec<Range<u64>>,
    /// `(block id, block)` in the order of the wants, as each arrives.
    pub(crate) blocks: InOrder<SourceFuture<'static, (u32, Block)>, SharedGroup>,
}

impl Loader {
    pub(crate) fn new(
        source: Arc<dyn ByteSource>,
        decoder: Option<Arc<dyn BlockDecoder>>,
        limits: Limits,
    ) -> Loader {
        Loader {
            state: Arc::new(State {
                source,
                cache: BlockCache::new(limits.cache_bytes.min(limits.budget)),
                in_flight: Arc::default(),
                decoder,
                budget: limits.budget,
                coalesce: limits.coalesce,
                concurrency: limits.concurrency.max(1),
            }),
        }
    }

    /// Decompressed bytes the cache holds.
    pub(crate) fn cached_bytes(&self) -> u64 {
        self.state.cache.held()
    }

    /// Every block of `wants` at once (at least as long as wanted), keyed by id.
    pub(crate) async fn load(
        &self,
        region: &Region,
        wants: &[Want],
    ) -> Result<HashMap<u32, Block>> {
        let started = self.start(region, wants);
        started.blocks.collect_blocks().await
    }

    /// Plans `wants` and starts the plan: loads it adds are listed at once,
    /// so a read that starts next shares them. Up to `concurrency` requests
    /// in flight, fetched ahead of decoding within half the budget
    /// (`read/ahead.rs`).
    pub(crate) fn start(&self, region: &Region, wants: &[Want]) -> Started {
        let state = &self.state;
        let mut in_flight = lock(&state.in_flight);
        let plan = BlockPlan::new(wants, region, state.coalesce, |want| {
            let key = (region.variable, want.id());
            match state.cache.get(key, want.bytes) {
                Lookup::Hit(bytes) => Found::Cached(bytes),
                Lookup::Partial(compressed) => match listed(&in_flight, key) {
                    Some((bytes, load)) => Found::Loading(bytes, load),
                    None => Found::Partial(compressed),
                },
                Lookup::Miss => match listed(&in_flight, key) {
                    Some((bytes, load)) => Found::Loading(bytes, load),
                    None => Found::Missing,
                },
            }
        });
        let fetches: Vec<SharedGroup> = plan
            .groups
            .iter()
            .map(|group| self.fetch(region, group, wants).shared())
            .collect();
        let mut each: Vec<SourceFuture<'static, (u32, Block)>> = Vec::with_capacity(wants.len());
        for (want, step) in wants.iter().zip(plan.steps.iter()) {
            let id = want.id();
            let load: SharedBlock = match step {
                Step::Ready(bytes) => {
                    let bytes = bytes.clone();
                    each.push(Box::pin(async move { Ok((id, bytes)) }));
                    continue;
                }
                Step::Join(load) => load.clone(),
                Step::After(shorter) => self.after(region, shorter.clone(), want),
                Step::Redecode(compressed) => {
                    let whole = Want::new(want.block.clone(), u64::MAX);
                    let at_hand: SourceFuture<'static, GroupBytes> =
                        Box::pin(at_hand(compressed.clone()));
                    self.listed_load(&mut in_flight, region, at_hand.shared(), 0, whole)
                }
                Step::Fetch { group, position } => self.listed_load(
                    &mut in_flight,
                    region,
                    fetches[*group].clone(),
                    *position,
                    want.clone(),
                ),
            };
            each.push(Box::pin(async move { load.await.map(|bytes| (id, bytes)) }));
        }
        drop(in_flight);
        let prefetch: VecDeque<Prefetch<SharedGroup>> = plan
            .groups
            .iter()
            .zip(fetches)
            .filter(|(group, _)| !group.in_probe)
            .map(|(group, fetch)| Prefetch {
                fetch,
                bytes: group.span.end - group.span.start,
                last: group.members.iter().copied().max().unwrap_or(0),
            })
            .collect();
        let requests = plan
            .requests()
            .map(|r| region.offset + r.start..region.offset + r.end)
            .collect();
        // Compressed bytes fetched ahead of the decoder: what keeps the
        // requests in flight busy, not the whole read (`iterate` reads a
        // million datasets through this).
        let ahead = state.budget / 2;
        Started {
            requests,
            blocks: InOrder::new(each, prefetch, state.concurrency, ahead),
        }
    }

    /// A load of `want` from item `position` of `fetch`, listed as in flight.
    fn listed_load(
        &self,
        in_flight: &mut InFlight,
        region: &Region,
        fetch: SharedGroup,
        position: usize,
        want: Want,
    ) -> SharedBlock {
        let key = (region.variable, want.id());
        in_flight.next_token += 1;
        let token = in_flight.next_token;
        let listed = Listed {
            in_flight: self.state.in_flight.clone(),
            key,
            token,
        };
        let load = self
            .decode(fetch, position, want.clone(), key, listed)
            .shared();
        if let Some(weak) = load.downgrade() {
            in_flight.loads.insert(
                key,
                Listing {
                    bytes: want.bytes,
                    load: weak,
                    token,
                },
            );
        }
        load
    }

    /// Decodes `want` once its group is in: checked, then cached.
    fn decode(
        &self,
        fetch: SharedGroup,
        position: usize,
        want: Want,
        key: BlockKey,
        listed: Listed,
    ) -> SourceFuture<'static, Block> {
        let state = self.state.clone();
        Box::pin(async move {
            let _listed = listed; // unlisted when this future ends or is dropped
            let (bytes, slices) = fetch.await?;
            let meta = &want.block;
            // This load is listed until it ends: alone, it is the only one.
            let alone = lock(&state.in_flight).loads.len() <= 1;
            let block = CompressedBlock {
                codec: meta.codec.clone(),
                bytes,
                range: slices[position].clone(),
                uncompressed_size: meta.uncompressed_size,
                wanted: want.bytes,
                alone,
            };
            // Checked before inflating: the size comes from the file. The
            // whole block, though a read may need less: a block past the
            // budget is refused whatever part of it is asked for.
            check(meta.uncompressed_size, state.budget, "a decompressed block")?;
            let decoded = match &state.decoder {
                Some(decoder) => decoder.decode(block.clone()).await?,
                None => block.decompress()?,
            };
            // A host decoder is code we did not write: hold it to the table.
            if decoded.len() as u64 != want.bytes {
                return Err(Error::corrupt_collection(format!(
                    "block {} decoded to {} bytes, {} were asked (the block table says {})",
                    meta.id.0,
                    decoded.len(),
                    want.bytes,
                    meta.uncompressed_size
                )));
            }
            let rest = (want.bytes < meta.uncompressed_size).then(|| block.detached());
            let decoded = Arc::new(decoded);
            state.cache.insert(key, decoded.clone(), rest);
            Ok(decoded)
        })
    }

    /// The whole of `want`'s block once `shorter` (a load of less of it)
    /// has ended: from the compressed bytes that load kept, with no request.
    fn after(&self, region: &Region, shorter: SharedBlock, want: &Want) -> SharedBlock {
        let (loader, region) = (self.clone(), region.clone());
        let whole = Want::new(want.block.clone(), u64::MAX);
        let after: SourceFuture<'static, Block> = Box::pin(async move {
            let _ = shorter.await;
            let id = whole.id();
            let mut blocks = loader.load(&region, &[whole]).await?;
            blocks
                .remove(&id)
                .ok_or_else(|| Error::Internal(format!("block {id} was loaded but not yielded")))
        });
        after.shared()
    }

    /// One request covering `group`, or its bytes from the probe.
    fn fetch(
        &self,
        region: &Region,
        group: &Group,
        wants: &[Want],
    ) -> SourceFuture<'static, GroupBytes> {
        let span = group.span.clone();
        let slices: Vec<Range<usize>> = group
            .members
            .iter()
            .map(|&at| {
                let block = &wants[at].block;
                let from = (block.file_offset - span.start) as usize;
                from..from + block.compressed_size as usize
            })
            .collect();
        let source = self.state.source.clone();
        let (offset, probe) = (region.offset, region.probe.clone());
        Box::pin(async move {
            if let Some((probe_start, bytes)) = probe.filter(|(from, _)| span.start >= *from) {
                // Served in place: the members' slices, shifted into the probe.
                let from = (span.start - probe_start) as usize;
                let shifted = slices
                    .iter()
                    .map(|r| r.start + from..r.end + from)
                    .collect();
                return Ok((bytes, shifted));
            }
            let bytes = source
                .read_range(offset + span.start..offset + span.end)
                .await?;
            Ok((Arc::new(bytes), slices))
        })
    }
}

impl InOrder<SourceFuture<'static, (u32, Block)>, SharedGroup> {
    /// Every block, keyed by id; the first error ends the read (dropping the
    /// loads only it awaited).
    pub(crate) async fn collect_blocks(mut self) -> Result<HashMap<u32, Block>> {
        let mut blocks = HashMap::new();
        while let Some(next) = self.next().await {
            let (id, block) = next?;
            blocks.insert(id, block);
        }
        Ok(blocks)
    }
}

/// A block already in hand, as the group a fetch would bring.
async fn at_hand(block: CompressedBlock) -> Result<GroupBytes> {
    Ok((block.bytes, vec![block.range]))
}

/// The load in flight for `key`, if one is listed and alive.
fn listed(in_flight: &InFlight, key: BlockKey) -> Option<(u64, SharedBlock)> {
    let listing = in_flight.loads.get(&key)?;
    Some((listing.bytes, listing.load.upgrade()?))
}

fn lock(in_flight: &Mutex<InFlight>) -> MutexGuard<'_, InFlight> {
    in_flight.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::segment::{BlockId, CodecId};

    fn block(id: u32, at: u64, len: u64) -> BlockMeta {
        BlockMeta {
            id: BlockId(id),
            file_offset: at,
            compressed_size: len,
            uncompressed_size: 2 * len,
            codec: CodecId::None,
        }
    }

    fn region(probe_from: Option<u64>) -> Region {
        Region {
            variable: 0,
            offset: 1000,
            probe: probe_from.map(|p| (p, Arc::new(Vec::new()))),
        }
    }

    /// A plan where nothing is cached or loading.
    fn cold(wants: &[Want], coalesce: u64, probe_from: Option<u64>) -> BlockPlan<()> {
        BlockPlan::new(wants, &region(probe_from), coalesce, |_| Found::Missing)
    }

    fn all(blocks: &[BlockMeta]) -> Vec<Want> {
        blocks
            .iter()
            .map(|b| Want::new(b.clone(), u64::MAX))
            .collect()
    }

    #[test]
    fn adjacent_missing_blocks_travel_together_up_to_the_limit() {
        let blocks = [
            block(0, 0, 10),
            block(1, 10, 10),
            block(2, 20, 10),
            block(3, 40, 5),
        ];
        let plan = cold(&all(&blocks), 20, None);
        let spans: Vec<_> = plan.groups.iter().map(|g| g.span.clone()).collect();
        // 0 and 1 fill the limit, 2 starts anew, 3 does not touch 2.
        assert_eq!(spans, [0..20, 20..30, 40..45]);
        assert_eq!(plan.groups[0].members, [0, 1]);
        assert!(matches!(
            plan.steps[1],
            Step::Fetch {
                group: 0,
                position: 1
            }
        ));
        assert!(matches!(
            plan.steps[3],
            Step::Fetch {
                group: 2,
                position: 0
            }
        ));
        let requests: Vec<_> = plan.requests().collect();
        assert_eq!(requests, [0..20, 20..30, 40..45]);
    }

    #[test]
    fn a_block_larger_than_the_limit_travels_alone() {
        let blocks = [block(0, 0, 50), block(1, 50, 5), block(2, 55, 5)];
        let plan = cold(&all(&blocks), 20, None);
        let spans: Vec<_> = plan.groups.iter().map(|g| g.span.clone()).collect();
        assert_eq!(spans, [0..50, 50..60]);
    }

    #[test]
    fn blocks_listed_out_of_file_order_coalesce_less_but_all_load() {
        let blocks = [block(1, 10, 10), block(0, 0, 10)];
        let plan = cold(&all(&blocks), 100, None);
        assert_eq!(plan.groups.len(), 2);
    }

    #[test]
    fn cached_loading_and_partial_blocks_are_not_fetched() {
        let blocks = [
            block(0, 0, 10),
            block(1, 10, 10),
            block(2, 20, 10),
            block(3, 30, 10),
        ];
        let mut wants = all(&blocks);
        wants[3].bytes = 4; // a short read of block 3
        let partial = CompressedBlock {
            codec: CodecId::None,
            bytes: Arc::new(vec![0; 10]),
            range: 0..10,
            uncompressed_size: 20,
            wanted: 5,
            alone: true,
        };
        let plan = BlockPlan::new(&wants, &region(None), 100, |want| match want.block.id.0 {
            0 => Found::Cached(Arc::new(vec![1; 20])),
            1 => Found::Loading(20, "whole"),
            2 => Found::Partial(partial.clone()),
            _ => Found::Loading(2, "short"),
        });
        assert!(plan.groups.is_empty(), "nothing to request");
        assert!(matches!(plan.steps[0], Step::Ready(_)));
        assert!(matches!(plan.steps[1], Step::Join("whole")));
        assert!(matches!(plan.steps[2], Step::Redecode(_)));
        assert!(
            matches!(plan.steps[3], Step::After("short")),
            "a shorter load is waited for"
        );
    }

    #[test]
    fn a_join_needs_a_load_of_at_least_the_wanted_bytes() {
        let wants = [Want::new(block(0, 0, 10), 6)];
        let plan = BlockPlan::new(&wants, &region(None), 100, |_| Found::Loading(6, ()));
        assert!(matches!(plan.steps[0], Step::Join(())));
        let plan = BlockPlan::new(&wants, &region(None), 100, |_| Found::Loading(5, ()));
        assert!(matches!(plan.steps[0], Step::After(())));
    }

    #[test]
    fn the_probe_serves_groups_that_start_inside_it() {
        let blocks = [block(0, 0, 10), block(1, 30, 10)];
        let plan = cold(&all(&blocks), 100, Some(25));
        assert!(!plan.groups[0].in_probe && plan.groups[1].in_probe);
        let requests: Vec<Range<u64>> = plan.requests().collect();
        assert_eq!(requests, vec![0..10]);
    }

    #[test]
    fn a_want_never_exceeds_its_block() {
        assert_eq!(Want::new(block(0, 0, 10), u64::MAX).bytes, 20);
        assert_eq!(Want::new(block(0, 0, 10), 3).bytes, 3);
    }
}
