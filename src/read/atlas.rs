//! [`Atlas`]: one open collection.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use futures_util::future::{FutureExt, Shared as SharedFuture};
use indexmap::IndexMap;

use crate::error::{Error, Result};
use crate::format::container::TAIL_PROBE_SIZE;
use crate::format::footer::{Codec, CollectionFooter, DATASET_ATTRS_VARIABLE};
use crate::format::mask::{MaskBinding, MaskOpen};
use crate::format::open::{ContainerOpen, OpenedContainer};
use crate::format::value::{ArrayStats, Attr};
use crate::read::across::in_dataset;
use crate::read::array::NdArray;
use crate::read::cache::BlockCache;
use crate::read::dataset::DatasetView;
use crate::read::decode::BlockDecoder;
use crate::read::open::{drive, Held};
use crate::read::segment::{Loading, Segment};
use crate::read::window::{check_declared_dtype, Plan};
use crate::source::{ByteSource, SourceFuture};

/// A mask longer than this is refused: it would hide 16 M datasets.
const MAX_MASK_BYTES: u64 = 12 + 4 * (16 << 20);

/// How a handle reads. The defaults suit a browser or a Worker.
#[derive(Clone)]
pub struct ReadOptions {
    /// Budget of the decompressed-block cache, in bytes.
    pub cache_bytes: u64,
    /// Range reads in flight at once for one call (Workers allow 6 connections).
    pub max_concurrency: usize,
    /// Adjacent blocks are fetched in one range read up to this many bytes.
    pub coalesce_bytes: u64,
    /// The most memory one structure whose size comes from the file or the
    /// server may take: the collection footer (compressed, inflated and
    /// decoded), the mask, a segment footer, one decompressed block, one
    /// answer. Past it a call fails with `TooLarge` instead of allocating.
    /// The block cache is held to it too. 64 MiB on wasm (a Worker isolate has
    /// 128 MB for everything), 4 GiB natively.
    pub memory_budget: u64,
    /// Where blocks are decompressed; `None` decodes inline on the polling task.
    pub decoder: Option<Arc<dyn BlockDecoder>>,
    /// How many bytes of the end of `data.atlas` the open reads first. The
    /// footer and the segments written last (dataset attributes, then the
    /// last variables) that fit open without another request; a larger probe
    /// trades bytes for round trips (docs/read-path.md, "The first read").
    pub tail_probe_bytes: u64,
    /// Told, on the task of each block read, the ranges of `data.atlas` the
    /// read is about to request (blocks not cached, not already loading, not
    /// inside bytes held), before the first is sent; a host reports a read's
    /// progress against their total. Called once per read, even with none.
    #[allow(clippy::type_complexity)]
    pub planned: Option<Arc<dyn Fn(&[std::ops::Range<u64>]) + Send + Sync>>,
}

impl std::fmt::Debug for ReadOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadOptions")
            .field("cache_bytes", &self.cache_bytes)
            .field("max_concurrency", &self.max_concurrency)
            .field("coalesce_bytes", &self.coalesce_bytes)
            .field("memory_budget", &self.memory_budget)
            .field("decoder", &self.decoder.as_ref().map(|_| "custom"))
            .field("tail_probe_bytes", &self.tail_probe_bytes)
            .field("planned", &self.planned.as_ref().map(|_| "hook"))
            .finish()
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            // Workers give an isolate 128 MB; leave most of it to the caller.
            cache_bytes: if cfg!(target_arch = "wasm32") {
                32 << 20
            } else {
                256 << 20
            },
            max_concurrency: 6,
            coalesce_bytes: 4 << 20,
            decoder: None,
            tail_probe_bytes: TAIL_PROBE_SIZE,
            planned: None,
            memory_budget: if cfg!(target_arch = "wasm32") {
                64 << 20
            } else {
                4 << 30
            },
        }
    }
}

type SegmentSlot = SharedFuture<SourceFuture<'static, Arc<Segment>>>;

/// The state every clone of a handle shares.
pub(crate) struct Shared {
    pub(crate) data: Arc<dyn ByteSource>,
    pub(crate) data_size: u64,
    pub(crate) footer: CollectionFooter,
    pub(crate) deleted: BTreeSet<u32>,
    /// Array name to variable index.
    pub(crate) variables: HashMap<String, u32>,
    pub(crate) options: ReadOptions,
    pub(crate) cache: BlockCache,
    pub(crate) loading: Loading,
    segments: Mutex<HashMap<u32, SegmentSlot>>,
    /// The tail the open read; segments inside it open without a request.
    pub(crate) held: Arc<Held>,
}

/// An open collection. Cloning is cheap and clones share caches.
///
/// Opening reads the container's tail and the deletion mask, concurrently;
/// every catalogue question is then answered from memory. Segments open on
/// first use, once per handle, and blocks are cached under a byte budget.
#[derive(Clone)]
pub struct Atlas {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for Atlas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Atlas")
            .field("source", &self.shared.data.describe())
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
        let variables = footer
            .variables
            .iter()
            .enumerate()
            .map(|(i, v)| (footer.string(v.name).to_string(), i as u32))
            .collect();
        Ok(Atlas {
            shared: Arc::new(Shared {
                data,
                data_size: object_size,
                cache: BlockCache::new(options.cache_bytes.min(options.memory_budget)),
                options,
                footer,
                deleted,
                variables,
                loading: Mutex::default(),
                segments: Mutex::default(),
                held: Arc::new(Held {
                    from: held_from,
                    bytes: held,
                }),
            }),
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
        self.live().map(|(_, name, _)| name.to_string()).collect()
    }

    /// Live datasets.
    pub fn dataset_count(&self) -> usize {
        self.shared.footer.datasets.len() - self.shared.deleted.len()
    }

    /// Datasets in the container, hidden ones included.
    pub fn total_datasets(&self) -> usize {
        self.shared.footer.datasets.len()
    }

    /// Datasets the mask hides.
    pub fn deleted_count(&self) -> usize {
        self.shared.deleted.len()
    }

    /// Ordinals of the datasets the mask hides, ascending.
    pub fn deleted_ordinals(&self) -> &BTreeSet<u32> {
        &self.shared.deleted
    }

    /// True when a live dataset has this name.
    pub fn dataset_exists(&self, name: &str) -> bool {
        self.ordinal_of(name).is_some()
    }

    /// Every array name some live dataset declares, sorted.
    pub fn list_arrays(&self) -> Vec<String> {
        let footer = &self.shared.footer;
        let schemas: BTreeSet<u32> = self.live().map(|(_, _, schema)| schema).collect();
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
            .ordinal_of(name)
            .ok_or_else(|| Error::DatasetNotFound(name.to_string()))?;
        Ok(DatasetView::new(self.clone(), ordinal))
    }

    /// When the collection was written, in milliseconds since the Unix epoch.
    pub fn created_unix_ms(&self) -> i64 {
        self.shared.footer.created_unix_ms
    }

    /// The codec the writer chose (each block records its own).
    pub fn codec(&self) -> Codec {
        self.shared.footer.codec
    }

    /// The container version (8).
    pub fn format_version(&self) -> u32 {
        self.shared.footer.version
    }

    /// Size of `data.atlas` in bytes.
    pub fn container_bytes(&self) -> u64 {
        self.shared.data_size
    }

    /// Distinct schemas in the collection.
    pub fn interned_schemas(&self) -> usize {
        self.shared.footer.schema_pool.len()
    }

    /// The decoded footer, for tools that inspect a container.
    pub fn footer(&self) -> &CollectionFooter {
        &self.shared.footer
    }

    /// Decompressed bytes the block cache holds now.
    pub fn cached_bytes(&self) -> u64 {
        self.shared.cache.held()
    }

    /// One array's statistics over every live dataset that recorded them,
    /// whatever its dtype, merged as atlas-rust 0.17.2 merges them (see
    /// `collection_stats`). `None` when no live dataset holds the array.
    pub async fn array_stats(&self, array: &str) -> Result<Option<ArrayStats>> {
        Ok(crate::read::collection_stats::merge(self, array)
            .await?
            .map(|merged| merged.stats))
    }

    /// Each live dataset's statistics for one array, in write order; every
    /// entry's `name` is its dataset.
    pub async fn array_stats_by_dataset(&self, array: &str) -> Result<Vec<ArrayStats>> {
        let Some(segment) = self.segment_named(array).await? else {
            return Ok(Vec::new());
        };
        Ok(segment
            .arrays()
            .iter()
            .filter(|meta| self.is_live_name(&meta.name))
            .filter_map(|meta| meta.stats.clone())
            .collect())
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
        let Some(segment) = self.segment_named(variable).await? else {
            return Ok(IndexMap::new());
        };
        Ok(self
            .live()
            .filter_map(|(_, name, _)| {
                let meta = segment.array(name)?;
                Some((name.to_string(), segment.attribute(meta, key)?))
            })
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
        let Some(segment) = self.segment_named(array).await? else {
            return Ok(Vec::new());
        };
        // The same choice of datasets and the same checks as a stacked read.
        let chosen = self.chosen_datasets(array, None)?;
        let mut plans = Vec::with_capacity(chosen.len());
        for (name, declared) in chosen {
            let meta = segment.array(&name).ok_or_else(|| {
                Error::corrupt(format!(
                    "'{name}' declares '{array}' but its segment has no entry for it"
                ))
            })?;
            check_declared_dtype(meta, &declared, array)?;
            let plan = Plan::new(meta, start, shape, self.shared.options.memory_budget)
                .map_err(|e| in_dataset(e, &name))?;
            plans.push((name, meta, plan));
        }
        let mut wanted: BTreeMap<u32, u64> = BTreeMap::new();
        for (id, bytes) in plans.iter().flat_map(|(_, _, p)| p.blocks_wanted()) {
            let most = wanted.entry(id).or_default();
            *most = (*most).max(bytes);
        }
        let blocks = segment
            .load_blocks(&self.shared, &wanted.into_iter().collect::<Vec<_>>())
            .await?;
        plans
            .into_iter()
            .map(|(name, meta, plan)| Ok((name, plan.assemble(meta, &blocks)?)))
            .collect()
    }

    /// `(ordinal, name, schema)` of each live dataset.
    pub(crate) fn live(&self) -> impl Iterator<Item = (u32, &str, u32)> + '_ {
        let deleted = &self.shared.deleted;
        self.shared
            .footer
            .datasets
            .iter()
            .enumerate()
            .filter(move |(i, _)| !deleted.contains(&(*i as u32)))
            .map(|(i, (name, &schema))| (i as u32, name.as_str(), schema))
    }

    fn ordinal_of(&self, name: &str) -> Option<u32> {
        let ordinal = self.shared.footer.datasets.get_index_of(name)? as u32;
        (!self.shared.deleted.contains(&ordinal)).then_some(ordinal)
    }

    fn is_live_name(&self, name: &str) -> bool {
        self.ordinal_of(name).is_some()
    }

    /// The segment of the named variable, or `None` when the collection has none.
    pub(crate) async fn segment_named(&self, variable: &str) -> Result<Option<Arc<Segment>>> {
        match self.shared.variables.get(variable) {
            Some(&index) => self.segment(index).await.map(Some),
            None => Ok(None),
        }
    }

    /// Opens a segment once per handle; concurrent callers share the open.
    pub(crate) async fn segment(&self, variable: u32) -> Result<Arc<Segment>> {
        let slot = {
            let mut segments = self
                .shared
                .segments
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            segments
                .entry(variable)
                .or_insert_with(|| {
                    let datasets = self.datasets_declaring(variable);
                    let opening = Segment::open(&self.shared, variable, datasets);
                    let open: SourceFuture<'static, Arc<Segment>> =
                        Box::pin(async move { opening.await.map(Arc::new) });
                    open.shared()
                })
                .clone()
        };
        let result = slot.await;
        if result.is_err() {
            // Let a later call try again (a network error may pass).
            self.shared
                .segments
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&variable);
        }
        result
    }

    fn datasets_declaring(&self, variable: u32) -> u64 {
        let footer = &self.shared.footer;
        let name = footer.variables[variable as usize].name;
        let mut per_schema = vec![0u64; footer.schema_pool.len()];
        for &schema in footer.datasets.values() {
            per_schema[schema as usize] += 1;
        }
        footer
            .schema_pool
            .iter()
            .zip(per_schema)
            .filter(|(s, _)| s.arrays.iter().any(|&(n, _)| n == name))
            .map(|(_, count)| count)
            .sum::<u64>()
            .max(if footer.string(name) == DATASET_ATTRS_VARIABLE {
                footer.datasets.len() as u64
            } else {
                0
            })
    }
}
