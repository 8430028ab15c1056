//! [`AtlasWriter`] and [`DatasetWriter`]: a collection built one dataset at a
//! time, and nothing at the destination until [`AtlasWriter::finish`].

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use indexmap::IndexMap;

use crate::error::{Error, Result};
use crate::format::catalogue::DatasetCatalogue;
use crate::format::container::{encode_header, FORMAT_VERSION, HEADER_SIZE};
use crate::format::dtype::DType;
use crate::format::footer::{CollectionFooter, VariableEntry, DATASET_ATTRS_VARIABLE};
use crate::format::value::{Attr, FillValue};
use crate::write::durable::{io_at, Writeback};
use crate::write::element::{Cells, WriteElement};
use crate::write::install::{install, now_ms, write_footer, WorkDir};
use crate::write::interner::Interner;
use crate::write::pool::Pool;
use crate::write::variable::Variable;
use crate::write::{validate_name, WriterConfig};

/// Everything the datasets of one writer share.
struct State {
    /// The container under construction and one scratch file per variable;
    /// before `finish` it holds everything, so a writer dropped unfinished
    /// leaves the destination as it was.
    work: WorkDir,
    config: WriterConfig,
    /// Compresses closed blocks while the caller packs the next ones.
    pool: Arc<Pool>,
    interner: Interner,
    /// One per array name, created when a dataset first declares it; this
    /// order is the segment order.
    variables: IndexMap<String, Variable>,
    /// Committed datasets: (`add_dataset` call number, name, schema).
    entries: Vec<(u64, String, u32)>,
    names: HashSet<String>,
    calls: u64,
    done: bool,
}

impl State {
    fn variable(&mut self, name: &str) -> &mut Variable {
        if !self.variables.contains_key(name) {
            let scratch = self.work.path.join(format!("v{}", self.variables.len()));
            self.variables.insert(
                name.to_string(),
                Variable::new(&self.config, scratch, self.pool.clone()),
            );
        }
        self.variables.get_mut(name).expect("inserted above")
    }

    fn check_open(&self) -> Result<()> {
        if self.done {
            return Err(Error::InvalidArgument(
                "the collection writer has already finished".into(),
            ));
        }
        Ok(())
    }
}

/// Builds one collection in a local directory. Nothing there changes until
/// [`finish`](Self::finish), which renames the container into place; a
/// writer dropped before that leaves the destination as it found it.
///
/// ```no_run
/// use atlas_wasm::write::{AtlasWriter, WriterConfig};
/// # fn run() -> atlas_wasm::Result<()> {
/// let writer = AtlasWriter::create("my_collection", WriterConfig::default())?;
/// let mut ds = writer.add_dataset("jan")?;
/// ds.define_array::<f32>("t2m", vec!["y".into(), "x".into()], &[2, 3], None, None)?;
/// ds.write_array("t2m", &[0, 0], &[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// ds.finish()?;
/// writer.finish()?;
/// # Ok(()) }
/// ```
pub struct AtlasWriter {
    state: Arc<Mutex<State>>,
}

impl AtlasWriter {
    /// Starts a collection in directory `dir`, creating it when absent.
    pub fn create(dir: impl AsRef<Path>, config: WriterConfig) -> Result<AtlasWriter> {
        let state = State {
            work: WorkDir::create(dir.as_ref())?,
            config,
            pool: Pool::for_this_machine(),
            interner: Interner::default(),
            variables: IndexMap::new(),
            entries: Vec::new(),
            names: HashSet::new(),
            calls: 0,
            done: false,
        };
        Ok(AtlasWriter {
            state: Arc::new(Mutex::new(state)),
        })
    }

    /// Begins a dataset; it enters the collection at [`DatasetWriter::finish`].
    ///
    /// Its ordinal is fixed here: datasets land in the order of these calls,
    /// whatever order they finish in. A name is taken from this call on, even
    /// if the dataset is then dropped unfinished.
    pub fn add_dataset(&self, name: &str) -> Result<DatasetWriter> {
        self.begin(name, false)
    }

    /// [`add_dataset`](Self::add_dataset), but the dataset's chunks are held
    /// apart (in memory, full blocks in a scratch file of their own) until
    /// [`DatasetWriter::finish`] moves them in: dropped unfinished, it leaves
    /// no byte in the collection, which comes out as if it had never been
    /// added. Costs one more copy of each chunk; `atlas create
    /// --skip-errors` builds each file this way.
    pub fn add_staged_dataset(&self, name: &str) -> Result<DatasetWriter> {
        self.begin(name, true)
    }

    fn begin(&self, name: &str, staged: bool) -> Result<DatasetWriter> {
        validate_name(name)?;
        let mut state = lock(&self.state);
        state.check_open()?;
        if !state.names.insert(name.to_string()) {
            return Err(Error::InvalidArgument(format!(
                "a dataset named '{name}' was already added"
            )));
        }
        state.calls += 1;
        Ok(DatasetWriter {
            state: self.state.clone(),
            name: name.to_string(),
            call: state.calls,
            arrays: IndexMap::new(),
            attrs: Vec::new(),
            array_attrs: IndexMap::new(),
            staged: staged.then(IndexMap::new),
        })
    }

    /// Datasets committed so far.
    pub fn dataset_count(&self) -> usize {
        lock(&self.state).entries.len()
    }

    /// Bytes of open blocks held in memory now (one per variable at most).
    pub fn buffered_bytes(&self) -> usize {
        lock(&self.state)
            .variables
            .values()
            .map(Variable::open_bytes)
            .sum()
    }

    /// Writes the segments, the footer and the trailer, then renames the
    /// container to `data.atlas`. A `deleted.mask` left by an earlier
    /// collection in the directory is bound to the old container first, so
    /// it never hides datasets of the new one; killed at any step, the
    /// directory reads as the old collection or the new one
    /// (docs/write-path.md, "Crash safety").
    pub fn finish(self) -> Result<()> {
        let mut state = lock(&self.state);
        state.check_open()?;
        state.done = true;
        let state = &mut *state;
        if state.variables.contains_key(DATASET_ATTRS_VARIABLE) {
            state.interner.string(DATASET_ATTRS_VARIABLE);
        }
        let interner = std::mem::take(&mut state.interner);
        let mut entries = std::mem::take(&mut state.entries);
        entries.sort_by_key(|(call, _, _)| *call);

        let staging = state.work.staging();
        let file = File::create(&staging).map_err(|e| io_at(e, &staging))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(&encode_header())?;
        let mut offset = HEADER_SIZE;
        let mut variables = Vec::with_capacity(state.variables.len());
        let mut writeback = Writeback::default();
        for (name, variable) in std::mem::take(&mut state.variables) {
            // Only datasets dropped unfinished declared this one: nothing
            // can reach it, so it is left out (atlas-rust fails here).
            let Some(&index) = interner.string_index.get(&name) else {
                continue;
            };
            out.flush()?;
            let len = variable.finish(out.get_mut())?;
            writeback.wrote(out.get_ref(), len);
            variables.push(VariableEntry {
                name: index,
                seg_offset: offset,
                seg_len: len,
            });
            offset += len;
        }
        let footer = CollectionFooter {
            version: FORMAT_VERSION,
            codec: state.config.codec,
            created_unix_ms: now_ms(),
            string_pool: interner.strings,
            dtype_pool: interner.dtypes,
            schema_pool: interner.schemas,
            variables,
            datasets: DatasetCatalogue::from_pairs(
                entries.into_iter().map(|(_, name, schema)| (name, schema)),
            )?,
        };
        write_footer(&mut out, &footer)?;
        let file = out.into_inner().map_err(|e| Error::Io(e.to_string()))?;
        file.sync_all()?;
        drop(file);
        install(&state.work)
    }
}

/// Builds one dataset. Arrays go straight into the shared variables (or,
/// staged, into its own until then); the dataset itself (its name, schema
/// and attributes) commits at [`finish`](Self::finish). Dropped unfinished,
/// it never appears.
pub struct DatasetWriter {
    state: Arc<Mutex<State>>,
    name: String,
    call: u64,
    arrays: IndexMap<String, DType>,
    attrs: Vec<(String, Attr)>,
    array_attrs: IndexMap<String, Vec<(String, Attr)>>,
    /// A staged dataset's own variables, one per array, uncompressed; moved
    /// into the shared ones at `finish`.
    staged: Option<IndexMap<String, Variable>>,
}

impl DatasetWriter {
    /// The dataset's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Declares an array of `T`. `chunk_shape` `None` stores it as one
    /// chunk; `fill` is what unwritten elements read as.
    pub fn define_array<T: WriteElement>(
        &mut self,
        array: &str,
        dimension_names: Vec<String>,
        shape: &[u64],
        chunk_shape: Option<&[u64]>,
        fill: Option<FillValue>,
    ) -> Result<()> {
        self.define_dtype(array, T::DTYPE, dimension_names, shape, chunk_shape, fill)
    }

    /// [`define_array`](Self::define_array) with a run-time element type.
    pub fn define_dtype(
        &mut self,
        array: &str,
        dtype: DType,
        dimension_names: Vec<String>,
        shape: &[u64],
        chunk_shape: Option<&[u64]>,
        fill: Option<FillValue>,
    ) -> Result<()> {
        validate_name(array)?;
        if self.arrays.contains_key(array) {
            return Err(Error::InvalidArgument(format!(
                "dataset '{}' already defines '{array}'",
                self.name
            )));
        }
        let mut state = lock(&self.state);
        state.check_open()?;
        // A staged dataset's array goes into a variable of its own,
        // uncompressed, until `finish` moves it into the shared one.
        let mut private = self.staged.as_ref().map(|staged| {
            let config = WriterConfig {
                codec: crate::format::footer::Codec::Uncompressed,
                ..state.config
            };
            let scratch = state
                .work
                .path
                .join(format!("s{}-{}", self.call, staged.len()));
            Variable::new(&config, scratch, state.pool.clone())
        });
        let variable = match private.as_mut() {
            Some(own) => own,
            None => state.variable(array),
        };
        variable.define(
            &self.name,
            self.call,
            dtype.clone(),
            dimension_names,
            shape,
            chunk_shape,
            fill,
        )?;
        drop(state);
        if let (Some(staged), Some(own)) = (self.staged.as_mut(), private) {
            staged.insert(array.to_string(), own);
        }
        self.arrays.insert(array.to_string(), dtype);
        Ok(())
    }

    /// Writes `data` (C order, `shape` elements) into `array` at `start`.
    /// The box may span chunks and need not align with them.
    pub fn write_array<T: WriteElement>(
        &mut self,
        array: &str,
        start: &[u64],
        shape: &[u64],
        data: &[T],
    ) -> Result<()> {
        self.check_dtype(array, &T::DTYPE)?;
        self.write_cells(array, start, shape, T::cells(data))
    }

    pub(crate) fn write_cells(
        &mut self,
        array: &str,
        start: &[u64],
        shape: &[u64],
        cells: Cells<'_>,
    ) -> Result<()> {
        let mut state = lock(&self.state);
        state.check_open()?;
        match &mut self.staged {
            Some(staged) => {
                drop(state);
                let private = staged.get_mut(array).ok_or_else(|| Error::ArrayNotFound {
                    dataset: self.name.clone(),
                    array: array.to_string(),
                })?;
                private.write(&self.name, start, shape, cells)
            }
            None => state.variable(array).write(&self.name, start, shape, cells),
        }
    }

    /// Stores one chunk's encoded bytes as they are (a rewrite's copy path).
    pub(crate) fn write_raw_chunk(
        &mut self,
        array: &str,
        coord: Vec<u32>,
        bytes: &[u8],
    ) -> Result<()> {
        if !self.arrays.contains_key(array) {
            return Err(self.not_found(array));
        }
        let mut state = lock(&self.state);
        state.check_open()?;
        let bytes = std::borrow::Cow::Borrowed(bytes);
        match self
            .staged
            .as_mut()
            .and_then(|staged| staged.get_mut(array))
        {
            Some(private) => {
                drop(state);
                private.store(&self.name, coord, bytes)
            }
            None => state.variable(array).store(&self.name, coord, bytes),
        }
    }

    fn check_dtype(&self, array: &str, wanted: &DType) -> Result<()> {
        let stored = self
            .arrays
            .get(array)
            .ok_or_else(|| self.not_found(array))?;
        if stored != wanted {
            return Err(Error::DTypeMismatch {
                array: array.to_string(),
                stored: stored.name(),
                requested: wanted.name(),
            });
        }
        Ok(())
    }

    fn not_found(&self, array: &str) -> Error {
        Error::ArrayNotFound {
            dataset: self.name.clone(),
            array: array.to_string(),
        }
    }

    /// Sets a dataset-level attribute; a repeated key replaces its value and keeps its place.
    pub fn set_attribute(&mut self, key: &str, value: Attr) {
        upsert(&mut self.attrs, key, value);
    }

    /// Sets an attribute of one defined array.
    pub fn set_array_attribute(&mut self, array: &str, key: &str, value: Attr) -> Result<()> {
        if !self.arrays.contains_key(array) {
            return Err(self.not_found(array));
        }
        upsert(
            self.array_attrs.entry(array.to_string()).or_default(),
            key,
            value,
        );
        Ok(())
    }

    /// Commits the dataset. Dataset-level attributes land on a rank-0 array
    /// named after the dataset in the reserved `_datasets` segment; array
    /// attributes on the dataset's array in each variable's segment.
    pub fn finish(mut self) -> Result<()> {
        let arrays = std::mem::take(&mut self.arrays);
        let attrs = std::mem::take(&mut self.attrs);
        let mut array_attrs: Vec<(u32, Vec<(String, Attr)>)> =
            std::mem::take(&mut self.array_attrs)
                .into_iter()
                .filter_map(|(array, keyed)| Some((arrays.get_index_of(&array)? as u32, keyed)))
                .collect();
        array_attrs.sort_by_key(|(position, _)| *position);

        let staged = self.staged.take();
        let mut state = lock(&self.state);
        state.check_open()?;
        let mut drained: Vec<String> = Vec::new();
        for (array, private) in staged.into_iter().flatten() {
            if let Err(e) = private.drain_into(&self.name, self.call, state.variable(&array)) {
                // What moved in already must not stay listed in a segment.
                for array in drained {
                    state.variable(&array).forget(&self.name);
                }
                return Err(e);
            }
            drained.push(array);
        }
        if !attrs.is_empty() {
            let marker = state.variable(DATASET_ATTRS_VARIABLE);
            marker.define(
                &self.name,
                self.call,
                DType::UInt8,
                Vec::new(),
                &[],
                None,
                None,
            )?;
            for (key, value) in &attrs {
                marker.set_attribute(&self.name, key, value.clone())?;
            }
        }
        for (position, keyed) in &array_attrs {
            let (array, _) = arrays
                .get_index(*position as usize)
                .expect("positions come from this map");
            let variable = state.variable(array);
            for (key, value) in keyed {
                variable.set_attribute(&self.name, key, value.clone())?;
            }
        }
        let schema = state.interner.schema(&arrays, &attrs, &array_attrs);
        let call = self.call;
        state
            .entries
            .push((call, std::mem::take(&mut self.name), schema));
        Ok(())
    }
}

impl Drop for DatasetWriter {
    /// A dataset dropped unfinished leaves no array behind in any segment
    /// (its chunks stay in their blocks, unreferenced); its name stays taken.
    fn drop(&mut self) {
        if let Some(staged) = self.staged.take() {
            staged.into_values().for_each(Variable::discard);
            return;
        }
        if self.arrays.is_empty() {
            return;
        }
        let mut state = lock(&self.state);
        for array in self.arrays.keys() {
            if let Some(variable) = state.variables.get_mut(array) {
                variable.forget(&self.name);
            }
        }
    }
}

fn upsert(list: &mut Vec<(String, Attr)>, key: &str, value: Attr) {
    match list.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value,
        None => list.push((key.to_string(), value)),
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A panic mid-write leaves the state unusable for a collection, but Drop
    // must still clean up, so a poisoned lock is taken as it is.
    state.lock().unwrap_or_else(|p| p.into_inner())
}
