//! Parquet files read by byte ranges: Delta Lake data files and
//! checkpoints, and HuggingFace datasets behind URLs (docs/atria.md,
//! "Parquet").
//!
//! [`ParquetFile::open`] reads the footer with one tail read (a second one
//! only when the metadata is longer than the 64 KiB probe);
//! [`ParquetFile::read_row_group`] fetches only the chosen columns' chunks
//! of one row group, adjacent chunks coalesced into one read, and rebuilds
//! the rows (nesting included) as [`Value::Map`]s keyed by column name.
//!
//! Our own reader, not the `parquet` crate: that crate adds 159.5 KB gzip
//! next to atlas-wasm in wasm (this reader 44.6 KB), and panicked on 479 of
//! 42,074 damaged files where this one returns typed errors (docs/atria.md
//! has the measurements). Everything read from the
//! file is checked: lengths against the bytes there are, allocations against
//! a memory [`Budget`], nesting against a depth limit; damage is
//! [`Error::Corrupt`], what this reader does not do (encryption, LZO, Brotli,
//! the Hadoop LZ4 framing) [`Error::UnsupportedProtocol`].
//!
//! ```no_run
//! # async fn demo(source: std::sync::Arc<dyn atlas_wasm::ByteSource>) -> atlas_wasm::atria::Result<()> {
//! use atlas_wasm::atria::parquet::ParquetFile;
//!
//! let file = ParquetFile::open(source).await?;
//! println!("{} rows, columns {:?}", file.num_rows(), file.columns());
//! let first_group = file.read_row_group(0, Some(&["text", "label"])).await?;
//! let row = file.row(42).await?;
//! let mut rows = file.rows();
//! while let Some(row) = rows.next().await {
//!     println!("{:?}", row?.get("text"));
//! }
//! # let _ = (first_group, row); Ok(()) }
//! ```

mod assemble;
mod encoding;
mod gzip;
mod meta;
mod page;
mod schema;
mod snappy;
mod thrift;

use std::ops::Range;
use std::sync::{Arc, Mutex};

use crate::atria::error::{Error, Result};
use crate::atria::Value;
use crate::format::budget::{check, Budget};
use crate::ByteSource;

use assemble::Assembler;
use meta::FileMeta;
use page::LeafData;
use schema::{Node, Schema};

/// The tail read that opens a file: footers of ordinary files fit.
const FOOTER_PROBE: u64 = 64 * 1024;

/// Column chunks closer than this are fetched in one read: one request
/// costs more than reading a few KiB more.
const COALESCE_GAP: u64 = 16 * 1024;

/// A top-level column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The field's name.
    pub name: String,
    /// Its type: `bool`, `int64`, `float64`, `string`, `binary`,
    /// `timestamp[us]`, `decimal(10, 2)`, `list<string>`,
    /// `struct<x: float64, label: string>`, `map<string, int64>`, …
    pub type_name: String,
}

/// One parquet file, its footer read; row groups are read on demand.
pub struct ParquetFile {
    source: Arc<dyn ByteSource>,
    meta: FileMeta,
    schema: Schema,
    budget: u64,
    /// The last row group [`row`](Self::row) decoded, so that reading rows
    /// in order decodes each group once.
    last_group: Mutex<Option<(usize, Arc<Vec<Value>>)>>,
}

impl std::fmt::Debug for ParquetFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetFile")
            .field("source", &self.source.describe())
            .field("num_rows", &self.meta.num_rows)
            .field("row_groups", &self.meta.row_groups.len())
            .finish()
    }
}

impl ParquetFile {
    /// Opens a parquet file by reading its footer (one tail read, a second
    /// one when the metadata is longer than 64 KiB), under the default
    /// memory budget.
    pub async fn open(source: Arc<dyn ByteSource>) -> Result<ParquetFile> {
        Self::open_with_budget(source, crate::atria::default_memory_budget()).await
    }

    /// [`open`](Self::open), with `budget` bytes of memory for the footer
    /// and for each row group read later.
    pub async fn open_with_budget(source: Arc<dyn ByteSource>, budget: u64) -> Result<ParquetFile> {
        let what = source.describe();
        let tail = source.read_tail(FOOTER_PROBE).await?;
        let size = tail.object_size;
        let bytes = &tail.bytes;
        if size < 12 || bytes.len() < 8 {
            return Err(Error::Corrupt(format!(
                "{what} is {size} bytes: too short to be a parquet file"
            )));
        }
        let magic = &bytes[bytes.len() - 4..];
        if magic == b"PARE" {
            return Err(Error::UnsupportedProtocol(format!(
                "{what} is an encrypted parquet file (PARE); encrypted files are not read"
            )));
        }
        if magic != b"PAR1" || (bytes.len() as u64 == size && &bytes[..4] != b"PAR1") {
            return Err(Error::Corrupt(format!(
                "{what} is not a parquet file: it does not begin and end with PAR1"
            )));
        }
        let meta_len = u32::from_le_bytes(
            bytes[bytes.len() - 8..bytes.len() - 4]
                .try_into()
                .expect("4 bytes"),
        ) as u64;
        if meta_len + 12 > size {
            return Err(Error::Corrupt(format!(
                "{what}: the footer claims {meta_len} bytes of metadata in a file of {size} bytes"
            )));
        }
        check(meta_len, budget, &format!("the metadata of {what}"))?;
        let meta_start = size - 8 - meta_len;
        let fetched;
        let meta_bytes: &[u8] = if meta_len + 8 <= bytes.len() as u64 {
            &bytes[bytes.len() - 8 - meta_len as usize..bytes.len() - 8]
        } else {
            fetched = source.read_range(meta_start..size - 8).await?;
            &fetched
        };
        let mut charged = Budget::new(budget);
        let meta = meta::file_meta(meta_bytes, meta_start, &mut charged)?;
        let schema = Schema::build(&meta.schema)?;
        for (i, group) in meta.row_groups.iter().enumerate() {
            if group.chunks.len() != schema.leaves.len() {
                return Err(Error::Corrupt(format!(
                    "{what}: row group {i} has {} column chunks, the schema {} leaf columns",
                    group.chunks.len(),
                    schema.leaves.len()
                )));
            }
        }
        Ok(ParquetFile {
            source,
            meta,
            schema,
            budget,
            last_group: Mutex::new(None),
        })
    }

    /// The number of rows.
    pub fn num_rows(&self) -> u64 {
        self.meta.num_rows
    }

    /// The top-level columns, in schema order.
    pub fn columns(&self) -> Vec<Column> {
        self.schema
            .root
            .children
            .iter()
            .map(|field| Column {
                name: field.element.name.clone(),
                type_name: field.type_name(),
            })
            .collect()
    }

    /// The number of row groups.
    pub fn row_groups(&self) -> usize {
        self.meta.row_groups.len()
    }

    /// The number of rows in each row group.
    pub fn row_group_rows(&self) -> Vec<u64> {
        self.meta.row_groups.iter().map(|g| g.num_rows).collect()
    }

    /// The rows of row group `index`, each a [`Value::Map`] from column
    /// name to value in schema order; only `columns` (all when `None`),
    /// whose chunks are the only bytes read.
    pub async fn read_row_group(
        &self,
        index: usize,
        columns: Option<&[&str]>,
    ) -> Result<Vec<Value>> {
        let group = self.meta.row_groups.get(index).ok_or_else(|| {
            crate::Error::OutOfBounds(format!(
                "row group {index} of {} in {}",
                self.meta.row_groups.len(),
                self.source.describe()
            ))
        })?;
        let fields = self.fields(columns)?;
        let mut budget = Budget::new(self.budget);
        budget.charge_items(
            group.num_rows,
            std::mem::size_of::<Value>() * (1 + 2 * fields.len()),
            "the rows of a parquet row group",
        )?;
        let leaves: Vec<usize> = fields.iter().flat_map(|f| f.leaves.clone()).collect();
        let chunks: Vec<Range<u64>> = leaves
            .iter()
            .map(|&l| {
                let c = &group.chunks[l];
                c.start..c.start + c.length
            })
            .collect();
        let reads = coalesce(&chunks);
        for read in &reads {
            budget.charge(read.end - read.start, "parquet column chunks")?;
        }
        let fetched = futures_util::future::try_join_all(
            reads.iter().map(|r| self.source.read_range(r.clone())),
        )
        .await?;
        let mut data: Vec<LeafData> = (0..self.schema.leaves.len())
            .map(|_| LeafData::default())
            .collect();
        for (&leaf, range) in leaves.iter().zip(&chunks) {
            let (read, bytes) = reads
                .iter()
                .zip(&fetched)
                .find(|(r, _)| r.start <= range.start && range.end <= r.end)
                .expect("every chunk is inside a read");
            let at = (range.start - read.start) as usize..(range.end - read.start) as usize;
            let chunk = &group.chunks[leaf];
            data[leaf] = page::decode_chunk(
                &bytes[at],
                &self.schema.leaves[leaf],
                chunk.codec,
                chunk.num_values,
                &mut budget,
            )
            .map_err(|e| self.in_file(e))?;
        }
        let mut assembler = Assembler::new(&self.schema.leaves, data);
        let mut rows = Vec::with_capacity(group.num_rows.min(1 << 20) as usize);
        for _ in 0..group.num_rows {
            let mut row = Vec::with_capacity(fields.len());
            for field in &fields {
                let value = assembler.field(field).map_err(|e| self.in_file(e))?;
                row.push((Value::Str(field.element.name.clone()), value));
            }
            rows.push(Value::Map(row));
        }
        assembler.finish(&fields).map_err(|e| self.in_file(e))?;
        Ok(rows)
    }

    /// Row `index` of the file (its row group is read whole and kept until
    /// another group is read).
    pub async fn row(&self, index: u64) -> Result<Value> {
        let mut first = 0u64;
        for (group, meta) in self.meta.row_groups.iter().enumerate() {
            if index < first + meta.num_rows {
                let rows = self.group_rows(group).await?;
                return Ok(rows[(index - first) as usize].clone());
            }
            first += meta.num_rows;
        }
        Err(crate::Error::OutOfBounds(format!(
            "row {index} of {} in {}",
            self.meta.num_rows,
            self.source.describe()
        ))
        .into())
    }

    /// Every row in order, one row group read at a time.
    pub fn rows(&self) -> Rows<'_> {
        Rows {
            file: self,
            next_group: 0,
            pending: Vec::new().into_iter(),
        }
    }

    async fn group_rows(&self, group: usize) -> Result<Arc<Vec<Value>>> {
        if let Some((cached, rows)) = &*self.lock_cache() {
            if *cached == group {
                return Ok(rows.clone());
            }
        }
        let rows = Arc::new(self.read_row_group(group, None).await?);
        *self.lock_cache() = Some((group, rows.clone()));
        Ok(rows)
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, Option<(usize, Arc<Vec<Value>>)>> {
        // A poisoned cache only means a panic elsewhere; the data is whole.
        self.last_group.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn fields(&self, columns: Option<&[&str]>) -> Result<Vec<&Node>> {
        let all = &self.schema.root.children;
        let Some(names) = columns else {
            return Ok(all.iter().collect());
        };
        if let Some(missing) = names
            .iter()
            .find(|n| !all.iter().any(|f| f.element.name == **n))
        {
            let known: Vec<&str> = all.iter().map(|f| f.element.name.as_str()).collect();
            return Err(crate::Error::InvalidArgument(format!(
                "{} has no column '{missing}' (it has {known:?})",
                self.source.describe()
            ))
            .into());
        }
        Ok(all
            .iter()
            .filter(|f| names.contains(&f.element.name.as_str()))
            .collect())
    }

    fn in_file(&self, error: Error) -> Error {
        match error {
            Error::Corrupt(m) => Error::Corrupt(format!("{}: {m}", self.source.describe())),
            Error::UnsupportedProtocol(m) => {
                Error::UnsupportedProtocol(format!("{}: {m}", self.source.describe()))
            }
            other => other,
        }
    }
}

/// Sorted, merged byte ranges covering `chunks`: neighbours closer than
/// [`COALESCE_GAP`] become one read.
fn coalesce(chunks: &[Range<u64>]) -> Vec<Range<u64>> {
    let mut sorted = chunks.to_vec();
    sorted.sort_by_key(|r| r.start);
    let mut reads: Vec<Range<u64>> = Vec::new();
    for r in sorted {
        match reads.last_mut() {
            Some(last) if r.start <= last.end.saturating_add(COALESCE_GAP) => {
                last.end = last.end.max(r.end);
            }
            _ => reads.push(r),
        }
    }
    reads
}

/// The rows of a [`ParquetFile`], in order; see [`ParquetFile::rows`].
pub struct Rows<'a> {
    file: &'a ParquetFile,
    next_group: usize,
    pending: std::vec::IntoIter<Value>,
}

impl Rows<'_> {
    /// The next row, `None` after the last.
    #[allow(clippy::should_implement_trait)] // async: not an Iterator
    pub async fn next(&mut self) -> Option<Result<Value>> {
        loop {
            if let Some(row) = self.pending.next() {
                return Some(Ok(row));
            }
            if self.next_group >= self.file.row_groups() {
                return None;
            }
            self.next_group += 1;
            match self.file.read_row_group(self.next_group - 1, None).await {
                Ok(rows) => self.pending = rows.into_iter(),
                Err(e) => {
                    self.next_group = self.file.row_groups();
                    return Some(Err(e));
                }
            }
        }
    }
}
