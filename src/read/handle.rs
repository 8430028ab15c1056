//! [`Handle`]: what every clone of an [`Atlas`](crate::Atlas) shares — the
//! decoded footer, the deletions, the segments opened so far and the block
//! loader with its cache — and the catalogue questions answered from them.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use futures_util::future::{FutureExt, Shared};

use crate::error::{Error, Result};
use crate::format::dtype::DType;
use crate::format::footer::{CollectionFooter, DATASET_ATTRS_VARIABLE};
use crate::read::blocks::{Limits, Loader};
use crate::read::open::Held;
use crate::read::options::ReadOptions;
use crate::read::segment::{Entries, Segment};
use crate::source::{ByteSource, SourceFuture};

type SegmentSlot = Shared<SourceFuture<'static, Arc<Segment>>>;

/// One open collection, shared by its clones and its datasets.
pub(crate) struct Handle {
    source: Arc<dyn ByteSource>,
    size: u64,
    footer: CollectionFooter,
    deleted: BTreeSet<u32>,
    /// Array name to variable index.
    variables: HashMap<String, u32>,
    options: ReadOptions,
    loader: Loader,
    segments: Mutex<HashMap<u32, SegmentSlot>>,
    /// The tail the open read; segments inside it open without a request.
    held: Arc<Held>,
}

impl Handle {
    pub(crate) fn new(
        source: Arc<dyn ByteSource>,
        size: u64,
        footer: CollectionFooter,
        deleted: BTreeSet<u32>,
        held: Held,
        options: ReadOptions,
    ) -> Handle {
        let variables = footer
            .variables
            .iter()
            .enumerate()
            .map(|(i, v)| (footer.string(v.name).to_string(), i as u32))
            .collect();
        let limits = Limits {
            cache_bytes: options.cache_bytes,
            budget: options.memory_budget,
            coalesce: options.coalesce_bytes,
            concurrency: options.max_concurrency,
        };
        Handle {
            loader: Loader::new(source.clone(), options.decoder.clone(), limits),
            source,
            size,
            footer,
            deleted,
            variables,
            options,
            segments: Mutex::default(),
            held: Arc::new(held),
        }
    }

    /// `data.atlas`.
    pub(crate) fn source(&self) -> &Arc<dyn ByteSource> {
        &self.source
    }

    /// Size of `data.atlas` in bytes.
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    pub(crate) fn footer(&self) -> &CollectionFooter {
        &self.footer
    }

    /// Ordinals the mask hides.
    pub(crate) fn deleted(&self) -> &BTreeSet<u32> {
        &self.deleted
    }

    pub(crate) fn options(&self) -> &ReadOptions {
        &self.options
    }

    pub(crate) fn loader(&self) -> &Loader {
        &self.loader
    }

    /// `(ordinal, name, schema)` of each live dataset.
    pub(crate) fn live(&self) -> impl Iterator<Item = (u32, &str, u32)> + '_ {
        let deleted = &self.deleted;
        self.footer
            .datasets
            .iter()
            .enumerate()
            .filter(move |(i, _)| !deleted.contains(&(*i as u32)))
            .map(|(i, (name, schema))| (i as u32, name, schema))
    }

    /// The ordinal of the live dataset named `name`.
    pub(crate) fn ordinal_of(&self, name: &str) -> Option<u32> {
        let ordinal = self.footer.datasets.ordinal_of(name)?;
        (!self.deleted.contains(&ordinal)).then_some(ordinal)
    }

    /// True when the mask hides a dataset called `name`. A segment entry
    /// whose name the footer does not list at all (a dataset atlas-rust's
    /// writer dropped unfinished after a define leaves one) is not hidden:
    /// atlas-rust's collection statistics count it, so ours do too.
    pub(crate) fn hides(&self, name: &str) -> bool {
        self.footer
            .datasets
            .ordinal_of(name)
            .is_some_and(|ordinal| self.deleted.contains(&ordinal))
    }

    /// The name of the dataset at `ordinal` (hidden ones too).
    pub(crate) fn name_of(&self, ordinal: u32) -> &str {
        self.footer.datasets.name(ordinal).unwrap_or("")
    }

    /// `(name, declared dtype)` of each dataset a read of `array` covers, in
    /// answer order: the listed ones (each must be live and declare it), or
    /// every live dataset that declares it.
    pub(crate) fn chosen_datasets(
        &self,
        array: &str,
        listed: Option<&[String]>,
    ) -> Result<Vec<(String, DType)>> {
        let footer = &self.footer;
        let declared = |schema: u32| {
            footer.schema_pool[schema as usize]
                .arrays
                .iter()
                .find(|&&(n, _)| footer.string(n) == array)
                .map(|&(_, d)| footer.dtype(d).clone())
        };
        let Some(listed) = listed else {
            return Ok(self
                .live()
                .filter_map(|(_, name, schema)| Some((name.to_string(), declared(schema)?)))
                .collect());
        };
        if listed.is_empty() {
            return Err(Error::InvalidArgument(
                "the list of datasets is empty; leave it out to read every dataset".into(),
            ));
        }
        listed
            .iter()
            .map(|name| {
                let schema = match footer.datasets.schema_of(name) {
                    Some(schema) if self.ordinal_of(name).is_some() => schema,
                    _ => return Err(Error::DatasetNotFound(name.clone())),
                };
                let dtype = declared(schema).ok_or_else(|| Error::ArrayNotFound {
                    dataset: name.clone(),
                    array: array.to_string(),
                })?;
                Ok((name.clone(), dtype))
            })
            .collect()
    }

    /// The segment of the named variable, or `None` when the collection has none.
    pub(crate) async fn segment_named(&self, variable: &str) -> Result<Option<Arc<Segment>>> {
        match self.variables.get(variable) {
            Some(&index) => self.segment(index).await.map(Some),
            None => Ok(None),
        }
    }

    /// The segment of `variable` and its arrays of the named datasets, or
    /// `None` when the collection has no such variable.
    pub(crate) async fn entries(
        &self,
        variable: &str,
        datasets: &[&str],
    ) -> Result<Option<(Arc<Segment>, Entries)>> {
        let Some(&index) = self.variables.get(variable) else {
            return Ok(None);
        };
        let segment = self.segment(index).await?;
        let ranks = self.ranks(index, datasets);
        let asked: Vec<(&str, u64)> = datasets.iter().copied().zip(ranks).collect();
        let entries = segment.entries(&asked).await?;
        Ok(Some((segment, entries)))
    }

    /// Each dataset's rank among the datasets that declare `variable`: where
    /// a writer puts its row in the segment (our writer and atlas-rust's
    /// write one row per declaring dataset, in dataset order).
    fn ranks(&self, variable: u32, datasets: &[&str]) -> Vec<u64> {
        let footer = &self.footer;
        let declares = self.schemas_with_rows(variable);
        let ordinals: Vec<u64> = datasets
            .iter()
            .map(|d| footer.datasets.ordinal_of(d).unwrap_or(0) as u64)
            .collect();
        if declares.iter().all(|&d| d) {
            return ordinals;
        }
        // One pass over the datasets up to the last asked, counting.
        let mut order: Vec<usize> = (0..ordinals.len()).collect();
        order.sort_by_key(|&i| ordinals[i]);
        let mut ranks = vec![0; ordinals.len()];
        let (mut next, mut count) = (0, 0u64);
        for (ordinal, &schema) in footer.datasets.schemas().iter().enumerate() {
            while next < order.len() && ordinals[order[next]] == ordinal as u64 {
                ranks[order[next]] = count;
                next += 1;
            }
            if next == order.len() {
                break;
            }
            count += declares.get(schema as usize).copied().unwrap_or(false) as u64;
        }
        ranks
    }

    /// Opens a segment once per handle; concurrent callers share the open.
    /// The open holds the source, not the handle: it is kept in `segments`
    /// while it runs, and one there that held the handle would keep a handle
    /// dropped mid-open alive in a cycle.
    pub(crate) async fn segment(&self, variable: u32) -> Result<Arc<Segment>> {
        let slot = self
            .slots()
            .entry(variable)
            .or_insert_with(|| {
                let opening = Segment::open(
                    self.source.clone(),
                    self.held.clone(),
                    &self.footer.variables[variable as usize],
                    variable,
                    self.datasets_declaring(variable),
                    self.options.memory_budget,
                );
                let open: SourceFuture<'static, Arc<Segment>> =
                    Box::pin(async move { opening.await.map(Arc::new) });
                open.shared()
            })
            .clone();
        let result = slot.await;
        if result.as_ref().is_err_and(|e| !is_final(e)) {
            // Let a later call try again (a network error may pass).
            self.slots().remove(&variable);
        }
        result
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, HashMap<u32, SegmentSlot>> {
        self.segments.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many datasets declare the variable: what sizes its segment's first read.
    fn datasets_declaring(&self, variable: u32) -> u64 {
        let footer = &self.footer;
        let declares = self.schemas_with_rows(variable);
        let count = footer
            .datasets
            .schemas()
            .iter()
            .filter(|&&schema| declares.get(schema as usize).copied().unwrap_or(false))
            .count() as u64;
        let name = footer.variables[variable as usize].name;
        count.max(if footer.string(name) == DATASET_ATTRS_VARIABLE {
            footer.datasets.len() as u64
        } else {
            0
        })
    }

    /// For each schema, whether its datasets have a row in the segment of
    /// `variable`: they declare the array, or (`_datasets`) any attribute.
    fn schemas_with_rows(&self, variable: u32) -> Vec<bool> {
        let footer = &self.footer;
        let name = footer.variables[variable as usize].name;
        let attributes = footer.string(name) == DATASET_ATTRS_VARIABLE;
        footer
            .schema_pool
            .iter()
            .map(|s| match attributes {
                true => !s.attrs.is_empty(),
                false => s.arrays.iter().any(|&(n, _)| n == name),
            })
            .collect()
    }
}

/// Whether a segment's failure to open is the file's (or this handle's
/// budget's) and so the answer for good: kept, so the next call does not send
/// the same request again to be refused again. The object cannot change under
/// a handle (an ETag mismatch is `ObjectChanged`, final too).
fn is_final(error: &Error) -> bool {
    matches!(
        error,
        Error::TooLarge(_)
            | Error::CorruptCollection(_)
            | Error::UnsupportedVersion { .. }
            | Error::ObjectChanged(_)
    )
}
