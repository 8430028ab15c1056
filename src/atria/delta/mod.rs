//! Delta Lake tables (Atria's DELTALAKE layout keeps a split's metadata rows
//! in `delta/{split}/`): the log replayed into the live data files, then the
//! files' row groups read by range into rows.

mod data;
mod deletion;
mod log;
mod partition;
mod protocol;
mod rows;
mod schema;

pub use deletion::DeletionVector;
pub use rows::DeltaRows;
pub use schema::Field;

use crate::atria::error::Result;

use super::store::Store;

/// A Delta table at one version: its schema and live data files.
#[derive(Debug, Clone)]
pub struct DeltaTable {
    dir: String,
    version: u64,
    fields: Vec<Field>,
    partition_columns: Vec<String>,
    configuration: Vec<(String, String)>,
    files: Vec<DeltaFile>,
}

/// One live data file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeltaFile {
    /// Its path relative to the cache (the table's directory, then the
    /// `add` path %-decoded).
    pub path: String,
    /// The path as the log writes it (relative to the table, %-encoded).
    pub log_path: String,
    /// Its size in bytes, as the log says.
    pub size: u64,
    /// Its row count, from the `add` action's statistics when it has them.
    pub num_records: Option<u64>,
    /// Its partition values (column, value as text or null).
    pub partition_values: Vec<(String, Option<String>)>,
    /// The rows deleted from it, when the `add` has a deletion vector: its
    /// rows are then `num_records` less the vector's cardinality.
    pub deletion_vector: Option<DeletionVector>,
}

impl DeltaTable {
    /// Replays the log of the table in `dir` (relative to the store, e.g.
    /// `delta/train`): from `_last_checkpoint`'s checkpoint, then every later
    /// JSON commit. Reads no data file. A table that asks for a reader
    /// feature this reader cannot honour is
    /// [`Error::UnsupportedProtocol`](crate::atria::Error::UnsupportedProtocol).
    pub async fn open(store: &dyn Store, dir: &str) -> Result<DeltaTable> {
        Self::open_with_budget(store, dir, super::default_memory_budget()).await
    }

    /// [`open`](Self::open) with `budget` bytes for any one log file.
    pub async fn open_with_budget(store: &dyn Store, dir: &str, budget: u64) -> Result<DeltaTable> {
        super::store::check_relative(dir)?;
        log::replay(store, dir, budget).await
    }

    /// The table's directory.
    pub fn dir(&self) -> &str {
        &self.dir
    }

    /// The version replayed to.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The top-level columns, in schema order.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The partition columns.
    pub fn partition_columns(&self) -> &[String] {
        &self.partition_columns
    }

    /// The table's configuration (`metaData.configuration`).
    pub fn configuration(&self) -> &[(String, String)] {
        &self.configuration
    }

    /// The live data files, in the order the log added them.
    pub fn files(&self) -> &[DeltaFile] {
        &self.files
    }
}
