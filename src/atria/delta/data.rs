//! The parquet files of a Delta table (its data files and checkpoints), as
//! rows of [`Value`]s: the seam to the crate's parquet reader.

use std::sync::Arc;

use crate::atria::error::Result;
use crate::source::ByteSource;

use super::super::parquet::ParquetFile;
use super::super::value::Value;

/// One parquet file, its footer read.
pub(crate) struct DataFile {
    file: ParquetFile,
}

impl DataFile {
    /// Opens `source` (reads the footer).
    pub(crate) async fn open(source: Arc<dyn ByteSource>) -> Result<DataFile> {
        Ok(DataFile {
            file: ParquetFile::open(source).await?,
        })
    }

    /// Rows in each row group, in order.
    pub(crate) fn row_group_rows(&self) -> Vec<u64> {
        self.file.row_group_rows()
    }

    /// Row group `index` as maps from column name to value, only `columns`
    /// (top-level names) when given.
    pub(crate) async fn read_row_group(
        &self,
        index: usize,
        columns: Option<&[&str]>,
    ) -> Result<Vec<Value>> {
        self.file.read_row_group(index, columns).await
    }
}
