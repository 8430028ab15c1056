//! [`DatasetView`]: one dataset of an open collection, and views of its schema.

use std::sync::Arc;

use indexmap::IndexMap;

use crate::error::{Error, Result};
use crate::format::dtype::DType;
use crate::format::footer::{CollectionFooter, InternedSchema, DATASET_ATTRS_VARIABLE};
use crate::format::segment::ArrayMeta;
#[cfg(feature = "writer")]
use crate::format::segment::ChunkAddress;
use crate::format::value::{ArrayStats, Attr, FillValue};
use crate::read::across::read_window_into;
use crate::read::array::{Element, NdArray, TypedArray};
#[cfg(feature = "writer")]
use crate::read::blocks::Want;
use crate::read::handle::Handle;
use crate::read::plan::check_declared_dtype;
use crate::read::segment::{Entries, Segment};
use crate::read::sink::{InMemory, StackSink, StackedLayout};

/// One live dataset. Holding it keeps the collection handle alive.
#[derive(Clone)]
pub struct DatasetView {
    handle: Arc<Handle>,
    ordinal: u32,
}

impl std::fmt::Debug for DatasetView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatasetView")
            .field("name", &self.name())
            .field("ordinal", &self.ordinal)
            .finish()
    }
}

/// Shape, chunking, dimension names and fill value of one array, as its segment records them.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayLayout {
    /// Extent of each axis; empty for a scalar.
    pub shape: Vec<u64>,
    /// Extent of each axis of one chunk.
    pub chunk_shape: Vec<u64>,
    /// One name per axis, or none.
    pub dimension_names: Vec<String>,
    /// What unwritten elements read as.
    pub fill_value: Option<FillValue>,
}

impl ArrayLayout {
    /// Elements in the array; `None` when the shape's product overflows 64
    /// bits (shapes come from the file).
    pub fn element_count(&self) -> Option<u64> {
        self.shape.iter().try_fold(1u64, |n, &s| n.checked_mul(s))
    }
}

/// What a dataset declares: arrays with their dtypes, attribute keys with theirs. No I/O.
#[derive(Clone, Copy)]
pub struct SchemaView<'a> {
    footer: &'a CollectionFooter,
    schema: &'a InternedSchema,
}

/// One declared array of a schema.
#[derive(Clone, Copy)]
pub struct ArrayMetaView<'a> {
    footer: &'a CollectionFooter,
    schema: &'a InternedSchema,
    position: usize,
}

impl<'a> SchemaView<'a> {
    /// Number of arrays.
    pub fn len(&self) -> usize {
        self.schema.arrays.len()
    }

    /// True when the dataset declares no array.
    pub fn is_empty(&self) -> bool {
        self.schema.arrays.is_empty()
    }

    /// Arrays in definition order.
    pub fn arrays(&self) -> impl ExactSizeIterator<Item = ArrayMetaView<'a>> + 'a {
        let (footer, schema) = (self.footer, self.schema);
        (0..schema.arrays.len()).map(move |position| ArrayMetaView {
            footer,
            schema,
            position,
        })
    }

    /// Array names in definition order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &'a str> + 'a {
        let footer = self.footer;
        self.schema
            .arrays
            .iter()
            .map(move |&(n, _)| footer.string(n))
    }

    /// One array by name.
    pub fn get(&self, array: &str) -> Option<ArrayMetaView<'a>> {
        let position = self
            .schema
            .arrays
            .iter()
            .position(|&(n, _)| self.footer.string(n) == array)?;
        Some(ArrayMetaView {
            footer: self.footer,
            schema: self.schema,
            position,
        })
    }

    /// Dataset-level attribute keys with their types, in the order they were set.
    pub fn attributes(&self) -> Vec<(&'a str, &'a DType)> {
        let footer = self.footer;
        self.schema
            .attrs
            .iter()
            .map(|&(k, d)| (footer.string(k), footer.dtype(d)))
            .collect()
    }

    /// Dataset-level attribute keys.
    pub fn attribute_names(&self) -> Vec<&'a str> {
        self.attributes().into_iter().map(|(k, _)| k).collect()
    }

    /// The declared type of a dataset-level attribute.
    pub fn attribute_dtype(&self, key: &str) -> Option<&'a DType> {
        self.attributes()
            .into_iter()
            .find(|(k, _)| *k == key)
            .map(|(_, d)| d)
    }
}

impl PartialEq for SchemaView<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.schema, other.schema) || self.schema == other.schema
    }
}

impl<'a> ArrayMetaView<'a> {
    /// The array's name.
    pub fn name(&self) -> &'a str {
        self.footer.string(self.schema.arrays[self.position].0)
    }

    /// The element type the collection footer declares.
    pub fn dtype(&self) -> &'a DType {
        self.footer.dtype(self.schema.arrays[self.position].1)
    }

    /// Position in the schema's definition order.
    pub fn position(&self) -> usize {
        self.position
    }

    /// This array's attribute keys with their types, in the order they were set.
    pub fn attributes(&self) -> Vec<(&'a str, &'a DType)> {
        let footer = self.footer;
        self.schema
            .array_attrs
            .iter()
            .filter(|(p, _)| *p as usize == self.position)
            .flat_map(|(_, keys)| {
                keys.iter()
                    .map(|&(k, d)| (footer.string(k), footer.dtype(d)))
            })
            .collect()
    }

    /// This array's attribute keys.
    pub fn attribute_names(&self) -> Vec<&'a str> {
        self.attributes().into_iter().map(|(k, _)| k).collect()
    }
}

impl DatasetView {
    pub(crate) fn new(handle: Arc<Handle>, ordinal: u32) -> Self {
        Self { handle, ordinal }
    }

    /// The dataset's name.
    pub fn name(&self) -> &str {
        self.handle.name_of(self.ordinal)
    }

    /// Its position in the container, stable for the container's life.
    pub fn ordinal(&self) -> u32 {
        self.ordinal
    }

    /// What it declares. No I/O.
    pub fn schema(&self) -> SchemaView<'_> {
        let footer = self.handle.footer();
        let schema_index = footer.datasets.schema(self.ordinal).unwrap_or(0);
        SchemaView {
            footer,
            schema: &footer.schema_pool[schema_index as usize],
        }
    }

    /// Array names in definition order.
    pub fn list_arrays(&self) -> Vec<String> {
        self.schema().names().map(str::to_string).collect()
    }

    /// One declared array. No I/O.
    pub fn array_meta(&self, array: &str) -> Option<ArrayMetaView<'_>> {
        self.schema().get(array)
    }

    /// Shape, chunking, dimension names and fill value (opens the variable's segment).
    pub async fn array_layout(&self, array: &str) -> Result<ArrayLayout> {
        let (_, entries) = self.stored(array).await?;
        let meta = self.entry(&entries, array)?;
        Ok(ArrayLayout {
            shape: meta.shape.iter().map(|&s| s as u64).collect(),
            chunk_shape: meta.chunk_shape.iter().map(|&s| s as u64).collect(),
            dimension_names: meta.dimension_names.clone(),
            fill_value: meta.fill_value.clone(),
        })
    }

    /// What the writer recorded about one array; `name` is the array.
    /// `None` for an array this dataset does not declare or nobody wrote.
    pub async fn array_stats(&self, array: &str) -> Result<Option<ArrayStats>> {
        if self.array_meta(array).is_none() {
            return Ok(None);
        }
        let (_, entries) = self.stored(array).await?;
        Ok(self
            .entry(&entries, array)?
            .stats
            .clone()
            .map(|s| ArrayStats {
                name: array.to_string(),
                ..s
            }))
    }

    /// Dataset-level attributes in the order they were set. Costs nothing when the schema declares none.
    pub async fn attributes(&self) -> Result<IndexMap<String, Attr>> {
        let keys = self.schema().attribute_names();
        if keys.is_empty() {
            return Ok(IndexMap::new());
        }
        self.resolve(DATASET_ATTRS_VARIABLE, &keys).await
    }

    /// One dataset-level attribute.
    pub async fn get_attribute(&self, key: &str) -> Result<Option<Attr>> {
        if self.schema().attribute_dtype(key).is_none() {
            return Ok(None);
        }
        Ok(self
            .resolve(DATASET_ATTRS_VARIABLE, &[key])
            .await?
            .shift_remove(key))
    }

    /// One array's attributes in the order they were set; empty for an undeclared array.
    pub async fn array_attributes(&self, array: &str) -> Result<IndexMap<String, Attr>> {
        let Some(meta) = self.array_meta(array) else {
            return Ok(IndexMap::new());
        };
        let keys = meta.attribute_names();
        if keys.is_empty() {
            return Ok(IndexMap::new());
        }
        self.resolve(array, &keys).await
    }

    /// One attribute of one array.
    pub async fn get_array_attribute(&self, array: &str, key: &str) -> Result<Option<Attr>> {
        let declared = self
            .array_meta(array)
            .is_some_and(|m| m.attribute_names().contains(&key));
        if !declared {
            return Ok(None);
        }
        Ok(self.resolve(array, &[key]).await?.shift_remove(key))
    }

    /// Reads a window (`start`, `shape`; both empty for the whole array) of any dtype.
    ///
    /// Only the blocks the window overlaps are fetched; unwritten chunks come
    /// from the fill value with no I/O.
    pub async fn read_array(&self, array: &str, start: &[u64], shape: &[u64]) -> Result<NdArray> {
        let mut sink = InMemory::default();
        let layout = self.read_array_into(array, start, shape, &mut sink).await?;
        let mut answer = sink.into_array(layout, array)?;
        answer.shape.remove(0); // the stack of one's first axis
        Ok(answer)
    }

    /// [`read_array`](Self::read_array) into `sink`, as a stack of one part
    /// (`[1, window...]`): the collection module fills a JavaScript typed
    /// array this way, with no copy of the answer in between. Answers the
    /// frame it gave `sink`.
    pub async fn read_array_into<S: StackSink>(
        &self,
        array: &str,
        start: &[u64],
        shape: &[u64],
        sink: &mut S,
    ) -> Result<StackedLayout> {
        let declared = self
            .array_meta(array)
            .ok_or_else(|| self.not_found(array))?
            .dtype()
            .clone();
        let (segment, entries) = self.stored(array).await?;
        let meta = self.entry(&entries, array)?;
        check_declared_dtype(meta, &declared, array)?;
        read_window_into(&self.handle, &segment, &entries, meta, (start, shape), sink).await
    }

    /// [`read_array`](Self::read_array) for a caller who knows the type.
    pub async fn read_array_as<T: Element>(
        &self,
        array: &str,
        start: &[u64],
        shape: &[u64],
    ) -> Result<TypedArray<T>> {
        let declared = self
            .array_meta(array)
            .ok_or_else(|| self.not_found(array))?
            .dtype()
            .clone();
        if declared != T::DTYPE {
            return Err(Error::DTypeMismatch {
                array: array.to_string(),
                stored: declared.name(),
                requested: T::DTYPE.name(),
            });
        }
        self.read_array(array, start, shape).await?.into_typed()
    }

    /// This dataset's array as its segment stores it, for tools that copy
    /// chunks without decoding them into values (the rewriter).
    #[cfg(feature = "writer")]
    pub(crate) async fn stored_array(&self, array: &str) -> Result<StoredArray> {
        let (segment, entries) = self.stored(array).await?;
        let meta = self.entry(&entries, array)?.clone();
        Ok(StoredArray {
            handle: self.handle.clone(),
            segment,
            entries,
            meta,
        })
    }

    /// The segment holding `variable` and its entry of this dataset.
    async fn stored(&self, variable: &str) -> Result<(Arc<Segment>, Entries)> {
        self.handle
            .entries(variable, &[self.name()])
            .await?
            .ok_or_else(|| self.not_found(variable))
    }

    /// This dataset's array among `entries`.
    fn entry<'e>(&self, entries: &'e Entries, variable: &str) -> Result<&'e ArrayMeta> {
        entries
            .array(self.name())
            .ok_or_else(|| self.not_found(variable))
    }

    async fn resolve(&self, variable: &str, keys: &[&str]) -> Result<IndexMap<String, Attr>> {
        let Some((_, entries)) = self.handle.entries(variable, &[self.name()]).await? else {
            return Ok(IndexMap::new());
        };
        let Some(meta) = entries.array(self.name()) else {
            return Ok(IndexMap::new());
        };
        Ok(keys
            .iter()
            .filter_map(|&k| Some((k.to_string(), entries.attribute(meta, k)?)))
            .collect())
    }

    fn not_found(&self, array: &str) -> Error {
        Error::ArrayNotFound {
            dataset: self.name().to_string(),
            array: array.to_string(),
        }
    }
}

/// One dataset's array as its segment stores it: its entry, and its chunks'
/// decompressed bytes.
#[cfg(feature = "writer")]
pub(crate) struct StoredArray {
    handle: Arc<Handle>,
    segment: Arc<Segment>,
    entries: Entries,
    meta: ArrayMeta,
}

#[cfg(feature = "writer")]
impl StoredArray {
    /// The segment's entry for the array.
    pub(crate) fn meta(&self) -> &ArrayMeta {
        &self.meta
    }

    /// The bytes of the chunk at `address` (whose block stays cached, so
    /// the next chunk in it costs no request).
    pub(crate) async fn chunk(&self, address: &ChunkAddress) -> Result<Vec<u8>> {
        let id = address.block_id.0;
        let wants: Vec<Want> = self.entries.wants(&[(id, u64::MAX)])?;
        let blocks = self
            .handle
            .loader()
            .load(self.segment.region(), &wants)
            .await?;
        let block = blocks
            .get(&id)
            .ok_or_else(|| Error::Internal(format!("block {id} was loaded but not kept")))?;
        let from = address.offset as usize;
        Ok(block[from..from + address.size as usize].to_vec())
    }
}
