//! A Delta table's rows: data file by data file, row group by row group.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::atria::error::{Error, Result};

use super::super::roaring::RowSet;
use super::super::store::Store;
use super::super::value::Value;
use super::data::DataFile;
use super::deletion;
use super::partition;
use super::DeltaTable;

/// The rows of a table, addressed by a global index (the files in log
/// order). Opened files and the last row group read are kept, so reading
/// rows in order reads each row group once. A file's rows its deletion
/// vector names are not there: its live rows are numbered in file order,
/// and the vector is read (one ranged read) when the file is first opened.
pub struct DeltaRows {
    table: DeltaTable,
    store: Arc<dyn Store>,
    /// Each file's first row, and the total last.
    starts: Vec<u64>,
    opened: Mutex<HashMap<usize, Arc<OpenFile>>>,
    last_group: Mutex<Option<LastGroup>>,
}

/// The last row group read: (file, group) and its rows.
type LastGroup = ((usize, usize), Arc<Vec<Value>>);

struct OpenFile {
    file: DataFile,
    /// Each row group's first row, and the file's total last.
    group_starts: Vec<u64>,
    /// The rows its deletion vector deletes.
    deleted: Option<RowSet>,
}

impl DeltaRows {
    /// The rows of `table`. Files whose `add` gives no row count have their
    /// footers read now; the others are not read until a row needs them.
    pub async fn new(table: DeltaTable, store: Arc<dyn Store>) -> Result<DeltaRows> {
        let rows = DeltaRows {
            table,
            store,
            starts: Vec::new(),
            opened: Mutex::new(HashMap::new()),
            last_group: Mutex::new(None),
        };
        let mut starts = vec![0u64];
        for (i, f) in rows.table.files().iter().enumerate() {
            let physical = match f.num_records {
                Some(n) => n,
                None => *rows
                    .open_file(i)
                    .await?
                    .group_starts
                    .last()
                    .expect("a total"),
            };
            let deleted = f.deletion_vector.as_ref().map_or(0, |dv| dv.cardinality);
            let count = physical.checked_sub(deleted).ok_or_else(|| {
                Error::Corrupt(format!(
                    "{}: a deletion vector of {deleted} rows for a file of {physical}",
                    f.path
                ))
            })?;
            let next = starts
                .last()
                .expect("a start")
                .checked_add(count)
                .ok_or_else(|| {
                    Error::Corrupt(format!("{}: the row counts overflow", rows.table.dir()))
                })?;
            starts.push(next);
        }
        Ok(DeltaRows { starts, ..rows })
    }

    /// The table.
    pub fn table(&self) -> &DeltaTable {
        &self.table
    }

    /// Live rows in all live files (those no deletion vector deletes).
    pub fn num_rows(&self) -> u64 {
        *self.starts.last().expect("a total")
    }

    /// Row `index` as a map in schema order (partition values included).
    pub async fn row(&self, index: u64) -> Result<Value> {
        if index >= self.num_rows() {
            return Err(crate::Error::OutOfBounds(format!(
                "row {index} of {}, which has {}",
                self.table.dir(),
                self.num_rows()
            ))
            .into());
        }
        let f = self.starts.partition_point(|&s| s <= index) - 1;
        let live = index - self.starts[f];
        let open = self.open_file(f).await?;
        let local = open.deleted.as_ref().map_or(live, |d| d.nth_absent(live));
        let file_rows = *open.group_starts.last().expect("a total");
        if local >= file_rows {
            return Err(Error::Corrupt(format!(
                "{}: the log says {} rows, the file has {file_rows}",
                self.table.files()[f].path,
                self.starts[f + 1] - self.starts[f]
            )));
        }
        let g = open.group_starts.partition_point(|&s| s <= local) - 1;
        let group = self.group(f, g, &open).await?;
        let at = (local - open.group_starts[g]) as usize;
        let row = group.get(at).ok_or_else(|| {
            Error::Corrupt(format!(
                "{}: row group {g} has {} rows, its footer says more",
                self.table.files()[f].path,
                group.len()
            ))
        })?;
        self.assemble(row, f)
    }

    async fn group(&self, f: usize, g: usize, open: &OpenFile) -> Result<Arc<Vec<Value>>> {
        if let Some((at, rows)) = lock(&self.last_group).as_ref() {
            if *at == (f, g) {
                return Ok(rows.clone());
            }
        }
        let rows = Arc::new(open.file.read_row_group(g, None).await?);
        *lock(&self.last_group) = Some(((f, g), rows.clone()));
        Ok(rows)
    }

    async fn open_file(&self, f: usize) -> Result<Arc<OpenFile>> {
        if let Some(open) = lock(&self.opened).get(&f) {
            return Ok(open.clone());
        }
        let entry = &self.table.files()[f];
        let source = self.store.open(&entry.path)?;
        let file = DataFile::open(source).await?;
        let mut group_starts = vec![0u64];
        for n in file.row_group_rows() {
            group_starts.push(group_starts.last().expect("a start").saturating_add(n));
        }
        let deleted = match &entry.deletion_vector {
            Some(dv) => {
                let what = format!("the deletion vector of {}", entry.path);
                let budget = super::super::default_memory_budget();
                let set = deletion::load(dv, self.store.as_ref(), budget, &what).await?;
                let file_rows = *group_starts.last().expect("a total");
                if let Some(max) = set.max().filter(|&m| m >= file_rows) {
                    return Err(Error::Corrupt(format!(
                        "{what} deletes row {max}, the file has {file_rows}"
                    )));
                }
                Some(set)
            }
            None => None,
        };
        let open = Arc::new(OpenFile {
            file,
            group_starts,
            deleted,
        });
        lock(&self.opened).insert(f, open.clone());
        Ok(open)
    }

    /// The schema's columns in order: from the file's row, or the file's
    /// partition values, or null where the file predates the column.
    fn assemble(&self, row: &Value, f: usize) -> Result<Value> {
        let file = &self.table.files()[f];
        let entries = self
            .table
            .fields()
            .iter()
            .map(|field| {
                // Partition values and data files name columns physically.
                let value = if self.table.partition_columns().contains(&field.name) {
                    let text = file
                        .partition_values
                        .iter()
                        .find(|(k, _)| *k == field.physical_name)
                        .and_then(|(_, v)| v.as_deref());
                    partition::typed(text, &field.data_type).map_err(|why| {
                        Error::Corrupt(format!(
                            "{}: partition value of {}: {why}",
                            file.path, field.name
                        ))
                    })?
                } else {
                    match row.get(&field.physical_name) {
                        Some(value) => field.nested.apply(value.clone()),
                        None => Value::Nil,
                    }
                };
                Ok((Value::Str(field.name.clone()), value))
            })
            .collect::<Result<_>>()?;
        Ok(Value::Map(entries))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Only whole values are ever stored: a poisoned lock is still sound.
    m.lock().unwrap_or_else(|p| p.into_inner())
}
