//! [`Atlas`]: one open collection.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use indexmap::IndexMap;

use crate::error::{Error, Result};
use crate::format::container::TAIL_PROBE_SIZE;
use crate::format::container_open::{ContainerOpen, OpenedContainer};
use crate::format::footer::{Codec, CollectionFooter, DATASET_ATTRS_VARIABLE};
use crate::format::mask::{MaskBinding, MaskOpen};
use crate::format::value::{ArrayStats, Attr};
use crate::read::across::{self, AcrossRequest};
use crate::read::array::NdArray;
use crate::read::dataset::DatasetView;
use crate::read::handle::Handle;
use crate::read::open::{drive, Held};
use crate::read::options::ReadOptions;
use crate::read::sink::{InMemory, StackSink, Stacked, StackedLayout};
use crate::read::stats::{self, CollectionStats};
use crate::source::ByteSource;

/// A mask longer than this is refused: it would hide 16 M datasets.
const MAX_MASK_BYTES: u64 = 12 + 4 * (16 << 20);

/// An open collection. Cloning is cheap and clones share caches.
///
/// Opening reads the container's tail and the deletion mask, concurrently;
/// every catalogue question is then answered from memory. Segments open on
/// first use, once per handle, and blocks are cached under a byte budget.
#[derive(Clone)]
pub struct Atlas {
    handle: Arc<Handle>,
}

impl std::fmt::Debug for Atlas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Atlas")
            .field("source", &self.handle.source().describe())
            .field("datasets", &self.dataset_count())
            .finish()
    }
}

impl Atlas {
    /// Opens the collection in `data` (`data.atlas`), hiding what `mask`
    /// (`deleted.mask`) lists. `None`, or a mask source that answers
    /// [`Error::NotFound`], means nothing is deleted.
    pub async fn open(
        data: Arc<dyn ByteSource>,
        mask: Option<Arc<dyn ByteSource>>,
    ) -> Result<Atlas> {
        Self::open_with(data, mask, ReadOptions::default()).await
    }

    /// [`open`](Self::open) with options.
    pub async fn open_with(
        data: Arc<dyn ByteSource>,
        mask: Option<Arc<dyn ByteSource>>,
        options: ReadOptions,
    ) -> Result<Atlas> {
        // The container and the mask are independent: their requests travel together.
        let (container, mask) = futures_util::future::join(
            drive(
                data.as_ref(),
                ContainerOpen::new(options.tail_probe_bytes, options.memory_budget),
            ),
            async {
                match &mask {
                    Some(m) => drive(
                        m.as_ref(),
                        MaskOpen::new(TAIL_PROBE_SIZE, options.memory_budget.min(MAX_MASK_BYTES)),
                    )
                    .await
                    .map(Some),
                    None => Ok(None),
                }
            },
        )
        .await;
        let OpenedContainer {
            footer,
            object_size,
            held,
            held_from,
        } = container?;
        let deleted = match mask {
            Ok(Some(mask)) => mask.hidden_in(&MaskBinding {
                container_bytes: object_size,
                created_unix_ms: footer.created_unix_ms,
                dataset_count: footer.datasets.len() as u32,
            }),
            Ok(None) | Err(Error::NotFound(_)) => BTreeSet::new(),
            Err(e) => return Err(e),
        };
        Ok(Atlas {
            handle: Arc::new(Handle::new(
                data,
                object_size,
                footer,
                deleted,
                Held {
                    from: held_from,
                    bytes: held,
                },
                options,
            )),
        })
    }

    /// Opens `dir/data.atlas` and `dir/deleted.mask` from the local file system.
    #[cfg(not(target_arch = "wasm32"))]
    pub async fn open_path(dir: impl AsRef<std::path::Path>) -> Result<Atlas> {
        let dir = dir.as_ref();
        let data = Arc::new(crate::source::FileSource::open(dir.join("data.atlas"))?);
        let mask: Option<Arc<dyn ByteSource>> =
            match crate::source::FileSource::open(dir.join("deleted.mask")) {
                Ok(m) => Some(Arc::new(m)),
                Err(Error::NotFound(_)) => None,
                Err(e) => return Err(e),
            };
        Self::open(data, mask).await
    }

    /// Names of the live datasets, in ordinal order.
    pub fn list_datasets(&self) -> Vec<String> {
        self.handle
            .live()
            .map(|(_, name, _)| name.to_string())
            .collect()
    }

    /// Live datasets.
    pub fn dataset_count(&self) -> usize {
        self.total_datasets() - self.deleted_count()
    }

    /// Datasets in the container, hidden ones included.
    pub fn total_datasets(&self) -> usize {
        self.handle.footer().datasets.len()
    }

    /// Datasets the mask hides.
    pub fn deleted_count(&self) -> usize {
        self.handle.deleted().len()
    }

    /// Ordinals of the datasets the mask hides, ascending.
    pub fn deleted_ordinals(&self) -> &BTreeSet<u32> {
        self.handle.deleted()
    }

    /// True when a live dataset has this name.
    pub fn dataset_exists(&self, name: &str) -> bool {
        self.handle.ordinal_of(name).is_some()
    }

    /// Every array name some live dataset declares, sorted.
    pub fn list_arrays(&self) -> Vec<String> {
        let footer = self.handle.footer();
        let schemas: BTreeSet<u32> = self.handle.live().map(|(_, _, schema)| schema).collect();
        let names: BTreeSet<&str> = schemas
            .iter()
            .flat_map(|&s| {
                footer.schema_pool[s as usize]
                    .arrays
                    .iter()
                    .map(|&(n, _)| footer.string(n))
            })
            .collect();
        names.into_iter().map(str::to_string).collect()
    }

    /// A dataset by name: one hash lookup, no I/O.
    pub fn dataset(&self, name: &str) -> Result<DatasetView> {
        let ordinal = self
            .handle
            .ordinal_of(name)
            .ok_or_else(|| Error::DatasetNotFound(name.to_string()))?;
        Ok(DatasetView::new(self.handle.clone(), ordinal))
    }

    /// When the collection was written, in milliseconds since the Unix epoch.
    pub fn created_unix_ms(&self) -> i64 {
        self.handle.footer().created_unix_ms
    }

    /// The codec the writer chose (each block records its own).
    pub fn codec(&self) -> Codec {
        self.handle.footer().codec
    }

    /// The container version (8).
    pub fn format_version(&self) -> u32 {
        self.handle.footer().version
    }

    /// Size of `data.atlas` in bytes.
    pub fn container_bytes(&self) -> u64 {
        self.handle.size()
    }

    /// Distinct schemas in the collection.
    pub fn interned_schemas(&self) -> usize {
        self.handle.footer().schema_pool.len()
    }

    /// The decoded footer, for tools that inspect a container.
    pub fn footer(&self) -> &CollectionFooter {
        self.handle.footer()
    }

    /// Decompressed bytes the block cache holds now.
    pub fn cached_bytes(&self) -> u64 {
        self.handle.loader().cached_bytes()
    }

    /// One array's statistics over every live dataset that recorded them,
    /// whatever its dtype, merged as atlas-rust 0.17.2 merges them (see
    /// docs/read-path.md, "Collection statistics"). `None` when no live
    /// dataset holds the array.
    pub async fn array_stats(&self, array: &str) -> Result<Option<ArrayStats>> {
        Ok(self
            .collection_stats(array)
            .await?
            .map(|merged| merged.stats))
    }

    /// [`array_stats`](Self::array_stats) with the dtype each bound came
    /// from, for hosts that show a bound by its type (JavaScript).
    pub async fn collection_stats(&self, array: &str) -> Result<Option<CollectionStats>> {
        stats::merge(&self.handle, array).await
    }

    /// Each live dataset's statistics for one array, in write order; every
    /// entry's `name` is its dataset. As in atlas-rust, only what the mask
    /// hides is left out: the orphan entry of a dataset atlas-rust's writer
    /// dropped unfinished is listed.
    pub async fn array_stats_by_dataset(&self, array: &str) -> Result<Vec<ArrayStats>> {
        let Some(segment) = self.handle.segment_named(array).await? else {
            return Ok(Vec::new());
        };
        let mut all = Vec::new();
        segment
            .each(|entries| {
                let live = entries
                    .arrays()
                    .iter()
                    .filter(|m| !self.handle.hides(&m.name));
                all.extend(live.filter_map(|m| m.stats.clone()));
                Ok(())
            })
            .await?;
        Ok(all)
    }

    /// One attribute over every live dataset that carries it, keyed by
    /// dataset name in ordinal order. `array` names the annotated array;
    /// `None` reads dataset-level attributes. One segment open for all.
    pub async fn attributes_by_dataset(
        &self,
        array: Option<&str>,
        key: &str,
    ) -> Result<IndexMap<String, Attr>> {
        let variable = array.unwrap_or(DATASET_ATTRS_VARIABLE);
        let Some(segment) = self.handle.segment_named(variable).await? else {
            return Ok(IndexMap::new());
        };
        let mut found: HashMap<String, Attr> = HashMap::new();
        segment
            .each(|entries| {
                for meta in entries.arrays() {
                    if let Some(value) = entries.attribute(meta, key) {
                        found.insert(meta.name.clone(), value);
                    }
                }
                Ok(())
            })
            .await?;
        Ok(self
            .handle
            .live()
            .filter_map(|(_, name, _)| Some((name.to_string(), found.remove(name)?)))
            .collect())
    }

    /// Reads one window (`start`, `shape`; both empty: whole arrays) of one
    /// array from every live dataset that declares it, as one plan: a block
    /// that neighbouring datasets share is fetched once, adjacent blocks in
    /// one request, several requests at a time. Answers in ordinal order.
    pub async fn read_across(
        &self,
        array: &str,
        start: &[u64],
        shape: &[u64],
    ) -> Result<Vec<(String, NdArray)>> {
        across::read_apart(&self.handle, array, (start, shape)).await
    }

    /// Reads one array (or one window of it) from many datasets and stacks
    /// the parts along a new first axis. See [`AcrossRequest`] for the choice
    /// of datasets; the first dataset chosen sets the dtype (and, for whole
    /// arrays, the shape) the others must match.
    ///
    /// Errors: [`Error::DatasetNotFound`] for a listed name that is not a
    /// live dataset, [`Error::ArrayNotFound`] for a listed dataset without
    /// the array or when no live dataset declares it,
    /// [`Error::InvalidArgument`] naming the datasets that do not stack
    /// (unless `skip_mismatched`), [`Error::TooLarge`] for an answer over
    /// `ReadOptions::memory_budget`.
    pub async fn read_stacked(&self, array: &str, request: &AcrossRequest) -> Result<Stacked> {
        let mut sink = InMemory::default();
        let layout = self.read_stacked_into(array, request, &mut sink).await?;
        let (datasets, skipped) = (layout.datasets.clone(), layout.skipped.clone());
        Ok(Stacked {
            datasets,
            skipped,
            array: sink.into_array(layout, array)?,
        })
    }

    /// [`read_stacked`](Self::read_stacked), handing the parts to `sink` as
    /// they are built; answers the frame it gave `sink.begin`. The future is
    /// `Send` when the sink is.
    pub async fn read_stacked_into<S: StackSink>(
        &self,
        array: &str,
        request: &AcrossRequest,
        sink: &mut S,
    ) -> Result<StackedLayout> {
        across::read_stacked_into(&self.handle, array, request, sink).await
    }
}
