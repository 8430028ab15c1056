//! An opened segment: its footer, decoded once and validated, and where its
//! blocks lie for the loader.

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::Result;
use crate::format::footer::VariableEntry;
use crate::format::segment::{ArrayMeta, BlockMeta, OpenedSegment, SegmentFooter, SegmentOpen};
use crate::format::value::Attr;
use crate::read::blocks::{Region, Want};
use crate::read::open::{drive_holding, Held};
use crate::source::ByteSource;

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
    blocks: Vec<BlockMeta>,
    strings: Vec<String>,
    values: Vec<Attr>,
    arrays: Vec<ArrayMeta>,
    by_name: HashMap<String, usize>,
    region: Region,
}

impl Segment {
    /// Reads and decodes the segment of variable `variable` (`entry` in the
    /// collection footer), in one request where the probe covers the footer;
    /// `held` answers what the open's tail read holds.
    pub(crate) fn open(
        source: Arc<dyn ByteSource>,
        held: Arc<Held>,
        entry: &VariableEntry,
        variable: u32,
        datasets: u64,
        budget: u64,
    ) -> impl std::future::Future<Output = Result<Segment>> + 'static {
        let (offset, len) = (entry.seg_offset, entry.seg_len);
        // A segment inside the open's tail read costs nothing to take whole.
        let probe_len = if len <= READ_WHOLE_BELOW || offset >= held.from {
            len
        } else {
            (MIN_PROBE + datasets.saturating_mul(FOOTER_BYTES_PER_DATASET))
                .min(MAX_PROBE)
                .min(len)
        };
        let decoder = SegmentOpen::new(offset, len, probe_len, budget);
        async move {
            let OpenedSegment { footer, probe } =
                drive_holding(source.as_ref(), Some(&held), decoder).await?;
            let region = Region {
                variable,
                offset,
                probe: probe.map(|(start, bytes)| (start, Arc::new(bytes))),
            };
            Self::from_footer(footer, region)
        }
    }

    fn from_footer(footer: SegmentFooter, region: Region) -> Result<Self> {
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
            blocks: footer.blocks,
            strings: footer.strings,
            values,
            arrays: footer.arrays,
            by_name,
            region,
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

    /// The wants of `(block id, bytes from its start)`: one segment's
    /// blocks as the loader takes them. Ids come from chunk addresses,
    /// which the open checked against the block table.
    pub(crate) fn wants(&self, ids: &[(u32, u64)]) -> Vec<Want> {
        ids.iter()
            .map(|&(id, bytes)| Want::new(self.blocks[id as usize].clone(), bytes))
            .collect()
    }

    /// Where this segment's blocks lie, for the loader.
    pub(crate) fn region(&self) -> &Region {
        &self.region
    }
}
