//! An opened segment: its footer decoded whole when it is small, read by
//! ranges when it is large, and where its blocks lie for the loader.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use futures_util::future::{FutureExt, Shared};

use crate::error::{Error, Result};
use crate::format::budget::check;
use crate::format::footer::VariableEntry;
use crate::format::segment::{
    decode_segment_footer, ArrayMeta, BlockMeta, OpenedSegment, SegmentFooter, SegmentOpen,
    SEGMENT_TRAILER_SIZE,
};
use crate::format::value::Attr;
use crate::read::blocks::{Region, Want};
use crate::read::open::{drive_holding, Held};
use crate::read::pages::Pages;
use crate::read::ranged::{Fetched, Ranged};
use crate::source::{ByteSource, SourceFuture};

/// Segments up to this size are read whole at open: one request then also
/// brings every block, and the round trip saved is worth more than the bytes.
const READ_WHOLE_BELOW: u64 = 256 * 1024;
/// The first read of a segment's tail is sized to hold a footer of this many
/// bytes per dataset, so a segment opens in one request.
const FOOTER_BYTES_PER_DATASET: u64 = 384;
const MIN_PROBE: u64 = 64 * 1024;
/// Footers past this (about 12,000 datasets) are read by ranges. Below it a
/// whole read costs at most a few round trips of transfer (4 MiB is 80 ms at
/// 50 MB/s) and 16 MiB decoded, and keeps every entry for later calls: a
/// read across every dataset then needs no footer request at all. Above it
/// a call's one entry is worth far less than the footer's transfer.
const RANGED_ABOVE: u64 = 4 * 1024 * 1024;
/// Rows a scan of a large segment reads at a time: about 2 MB of rows
/// and runs for small arrays.
const SCAN_ROWS: u64 = 8192;
/// The first read of a segment expected to be read by ranges: its root and
/// the last rows of its array table.
const RANGED_PROBE: u64 = 16 * 1024;

/// One variable across the collection, ready to serve reads.
pub(crate) struct Segment {
    store: Store,
    region: Region,
}

enum Store {
    Whole(Arc<Whole>),
    Ranged(Box<RangedStore>),
}

struct RangedStore {
    ranged: Ranged,
    /// The whole footer, for the calls that need every entry.
    whole: Mutex<Option<Shared<SourceFuture<'static, Arc<Whole>>>>>,
    source: Arc<dyn ByteSource>,
    /// The footer, in the container.
    footer: std::ops::Range<u64>,
    /// Where the footer starts in the segment: the end of its blocks.
    data_end: u64,
    budget: u64,
}

/// A footer decoded whole.
pub(crate) struct Whole {
    blocks: Vec<BlockMeta>,
    strings: Vec<String>,
    values: Vec<Attr>,
    arrays: Vec<ArrayMeta>,
    by_name: HashMap<String, usize>,
}

impl Whole {
    fn new(footer: SegmentFooter) -> Result<Whole> {
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
        Ok(Whole {
            blocks: footer.blocks,
            strings: footer.strings,
            values,
            arrays: footer.arrays,
            by_name,
        })
    }
}

/// Arrays of a segment with the blocks and attributes they name: every
/// array of a whole footer, or those a call fetched by ranges.
pub(crate) enum Entries {
    All(Arc<Whole>),
    Fetched(Fetched),
}

impl Entries {
    /// The array a dataset stores in this segment.
    pub(crate) fn array(&self, dataset: &str) -> Option<&ArrayMeta> {
        let (arrays, index) = match self {
            Entries::All(whole) => (&whole.arrays, whole.by_name.get(dataset)),
            Entries::Fetched(some) => return some.array(dataset),
        };
        index.map(|&i| &arrays[i])
    }

    /// The arrays held, in the order the segment stores them.
    pub(crate) fn arrays(&self) -> &[ArrayMeta] {
        match self {
            Entries::All(whole) => &whole.arrays,
            Entries::Fetched(some) => some.arrays(),
        }
    }

    /// One attribute of one array held, decoded.
    pub(crate) fn attribute(&self, array: &ArrayMeta, key: &str) -> Option<Attr> {
        match self {
            Entries::All(whole) => array
                .attributes
                .iter()
                .find(|&&(k, _)| whole.strings[k as usize] == key)
                .map(|&(_, v)| whole.values[v as usize].clone()),
            Entries::Fetched(some) => some.attribute(array, key),
        }
    }

    /// The wants of `(block id, bytes from its start)`: one segment's
    /// blocks as the loader takes them. Ids come from chunk addresses of
    /// arrays held, which were checked against the block table.
    pub(crate) fn wants(&self, ids: &[(u32, u64)]) -> Result<Vec<Want>> {
        ids.iter()
            .map(|&(id, bytes)| {
                let block = match self {
                    Entries::All(whole) => whole.blocks.get(id as usize),
                    Entries::Fetched(some) => some.block(id),
                };
                let block = block.ok_or_else(|| {
                    Error::Internal(format!("block {id} was asked of arrays that name none"))
                })?;
                Ok(Want::new(block.clone(), bytes))
            })
            .collect()
    }
}

impl Segment {
    /// Reads the segment of variable `variable` (`entry` in the collection
    /// footer): its footer whole, in one request where the probe covers it,
    /// or, past [`RANGED_ABOVE`], its root, leaving the rest to be read by
    /// ranges. `held` answers what the open's tail read holds.
    pub(crate) fn open(
        source: Arc<dyn ByteSource>,
        held: Arc<Held>,
        entry: &VariableEntry,
        variable: u32,
        datasets: u64,
        budget: u64,
    ) -> impl Future<Output = Result<Segment>> + 'static {
        let (offset, len) = (entry.seg_offset, entry.seg_len);
        let expected = MIN_PROBE + datasets.saturating_mul(FOOTER_BYTES_PER_DATASET);
        // A segment inside the open's tail read costs nothing to take whole.
        let probe_len = if len <= READ_WHOLE_BELOW || offset >= held.from {
            len
        } else if expected > RANGED_ABOVE {
            RANGED_PROBE.min(len)
        } else {
            expected.min(len)
        };
        let decoder = SegmentOpen::new(offset, len, probe_len, budget).ranged_above(RANGED_ABOVE);
        async move {
            let opened = drive_holding(source.as_ref(), Some(&held), decoder).await?;
            Ok(match opened {
                OpenedSegment::Whole { footer, probe } => Segment {
                    store: Store::Whole(Arc::new(Whole::new(footer)?)),
                    region: Region {
                        variable,
                        offset,
                        probe: probe.map(|(start, bytes)| (start, Arc::new(bytes))),
                    },
                },
                OpenedSegment::Ranged { footer, probe } => {
                    let (start, mut bytes) = probe;
                    bytes.truncate(bytes.len() - SEGMENT_TRAILER_SIZE as usize);
                    let absolute = offset + footer.start..offset + footer.end;
                    let tail_from = start.max(footer.start) - footer.start;
                    let tail = bytes[(footer.start.saturating_sub(start)) as usize..].to_vec();
                    let root_bytes = tail.clone();
                    let pages = Pages::new(
                        source.clone(),
                        absolute.clone(),
                        budget / 8,
                        (tail_from, tail),
                    );
                    let ranged = Ranged::new(pages, footer.start, &root_bytes, budget)?;
                    Segment {
                        store: Store::Ranged(Box::new(RangedStore {
                            ranged,
                            whole: Mutex::new(None),
                            source,
                            footer: absolute,
                            data_end: footer.start,
                            budget,
                        })),
                        region: Region {
                            variable,
                            offset,
                            probe: None,
                        },
                    }
                }
            })
        }
    }

    /// The arrays of the named datasets (each with its rank among the
    /// datasets that declare the variable, where a writer puts its row).
    pub(crate) async fn entries(&self, asked: &[(&str, u64)]) -> Result<Entries> {
        let store = match &self.store {
            Store::Whole(whole) => return Ok(Entries::All(whole.clone())),
            Store::Ranged(store) => store,
        };
        match store.ranged.entries(asked).await? {
            Some(fetched) => Ok(Entries::Fetched(fetched)),
            // A row not where its rank says: the whole footer knows.
            None => self.all().await,
        }
    }

    /// Calls `f` with every array of the segment, in the order it stores
    /// them: at once from a whole footer, in batches of [`SCAN_ROWS`] read
    /// by ranges from a large one (so memory holds one batch).
    pub(crate) async fn each(&self, mut f: impl FnMut(&Entries) -> Result<()>) -> Result<()> {
        let store = match &self.store {
            Store::Whole(whole) => return f(&Entries::All(whole.clone())),
            Store::Ranged(store) => store,
        };
        let rows = store.ranged.len();
        for from in (0..rows).step_by(SCAN_ROWS as usize) {
            let batch = store.ranged.scan(from..from + SCAN_ROWS).await?;
            f(&Entries::Fetched(batch))?;
        }
        Ok(())
    }

    /// Every array of the segment: the whole footer, read now if it was left
    /// to ranges (within the memory budget, once per segment).
    pub(crate) async fn all(&self) -> Result<Entries> {
        let store = match &self.store {
            Store::Whole(whole) => return Ok(Entries::All(whole.clone())),
            Store::Ranged(store) => store,
        };
        let slot = {
            let mut whole = store.whole.lock().unwrap_or_else(|p| p.into_inner());
            whole
                .get_or_insert_with(|| {
                    let source = store.source.clone();
                    let (footer, budget) = (store.footer.clone(), store.budget);
                    let data_end = store.data_end;
                    let read: SourceFuture<'static, Arc<Whole>> = Box::pin(async move {
                        check(
                            (footer.end - footer.start).saturating_mul(4),
                            budget,
                            "a segment footer, decoded,",
                        )?;
                        let bytes = source.read_range(footer).await?;
                        let decoded = decode_segment_footer(&bytes)?;
                        drop(bytes);
                        decoded.validate(data_end)?;
                        Whole::new(decoded).map(Arc::new)
                    });
                    read.shared()
                })
                .clone()
        };
        slot.await.map(Entries::All)
    }

    /// Where this segment's blocks lie, for the loader.
    pub(crate) fn region(&self) -> &Region {
        &self.region
    }
}
