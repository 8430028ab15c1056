//! The parquet files of a Delta table (its data files and checkpoints), as
//! rows of [`Value`]s: the seam to the crate's parquet reader.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::source::ByteSource;

use super::super::value::Value;

/// One parquet file, its footer read.
pub(crate) struct DataFile {
    never: std::convert::Infallible,
}

impl DataFile {
    /// Opens `source` (reads the footer).
    pub(crate) async fn open(source: Arc<dyn ByteSource>) -> Result<DataFile> {
        Err(Error::UnsupportedProtocol(format!(
            "{}: this build reads no parquet yet (the parquet reader is not merged)",
            source.describe()
        )))
    }

    /// Rows in each row group, in order.
    pub(crate) fn row_group_rows(&self) -> Vec<u64> {
        match self.never {}
    }

    /// Row group `index` as maps from column name to value, only `columns`
    /// (top-level names) when given.
    pub(crate) async fn read_row_group(
        &self,
        index: usize,
        columns: Option<&[&str]>,
    ) -> Result<Vec<Value>> {
        let _ = (index, columns);
        match self.never {}
    }
}
