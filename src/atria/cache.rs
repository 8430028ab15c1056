//! One API over both of Atria's layouts: [`AtriaCache`] opens a config
//! directory, tells its backend and splits, and opens a [`Split`] whose rows,
//! columns and binary content read the same way whichever layout holds them
//! (the Rust twin of the JS `AtriaCache` of `atlas-wasm/atria`).
//!
//! ```no_run
//! # async fn demo() -> atlas_wasm::atria::Result<()> {
//! use atlas_wasm::atria::{AtriaCache, DirStore, Value};
//!
//! let cache = AtriaCache::open(DirStore::new("storage/docimg_delta")).await?;
//! println!("{} {:?}", cache.backend(), cache.splits()); // deltalake ["train", "test"]
//! let split = cache.split("train").await?;
//! for column in split.columns() {
//!     println!("{}: {}", column.name, column.data_type); // bbox: array<double>
//! }
//! let row = split.row(0).await?;
//! if let Some(Value::Str(key)) = row.get("__key__") {
//!     let image = split.content(0, "image").await?; // verified, recovered, or a data/ file
//!     let check = split.check(0, "image").await?;
//!     println!("{key}: {} bytes, ok {}, recovered {}", image.len(), check.ok, check.recovered);
//!     println!("found as {:?}", check.naming); // Some(Content): {key}.image__content
//! }
//! let mut rows = split.rows();
//! while let Some(row) = rows.next().await {
//!     let _ = row?;
//! }
//! # Ok(()) }
//! ```

use std::sync::Arc;

use crate::atria::error::{Error, Result};

use super::delta::{DeltaRows, DeltaTable};
use super::msgpack::MsgpackSplit;
use super::pointer::{Check, Defect, KeyConvention, MemberRef, Naming};
use super::store::{check_relative, Store};
use super::tar::TarShards;
use super::value::Value;

/// The split names probed, in this order, where the store cannot list.
const KNOWN_SPLITS: &[&str] = &["train", "validation", "val", "test"];

/// The columns that name a row's sample, tried in order: TAR members are
/// `{key}.{field}__content` or `{key}.{field}` ([`Naming`]).
const KEY_COLUMNS: &[&str] = &["__key__", "key", "sample_id"];

/// The sample key of a row: the first of its key columns that holds a string.
pub fn sample_key(row: &Value) -> Option<&str> {
    KEY_COLUMNS.iter().find_map(|k| match row.get(k) {
        Some(Value::Str(key)) => Some(key.as_str()),
        _ => None,
    })
}

/// The member names a row's `field` may be under, in the order they are
/// tried, each with its key convention and naming; a name two conventions
/// give is listed once, under the first. `__key__` and `key` hold the
/// WebDataset key itself; from `sample_id` every convention Atria has used
/// is tried ([`KeyConvention`]). `None`: the row has no key column.
fn member_candidates(row: &Value, field: &str) -> Option<Vec<(KeyConvention, Naming, String)>> {
    let (column, key) = KEY_COLUMNS.iter().find_map(|k| match row.get(k) {
        Some(Value::Str(key)) => Some((*k, key.as_str())),
        _ => None,
    })?;
    let conventions: &[KeyConvention] = if column == "sample_id" {
        &KeyConvention::ALL
    } else {
        &[KeyConvention::Verbatim]
    };
    let mut out: Vec<(KeyConvention, Naming, String)> = Vec::new();
    for &convention in conventions {
        let key = convention.key(key);
        for naming in Naming::ALL {
            let name = naming.member(&key, field);
            if !out.iter().any(|c| c.2 == name) {
                out.push((convention, naming, name));
            }
        }
    }
    Some(out)
}

/// Which layout a cache is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// `delta/{split}/` Delta Lake tables, content in TAR shards or `data/`.
    DeltaLake,
    /// `msgpack/{split}/` datadings shards.
    Msgpack,
}

impl Backend {
    /// `"deltalake"` or `"msgpack"`, as the JS API says it.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::DeltaLake => "deltalake",
            Backend::Msgpack => "msgpack",
        }
    }

    fn dir(self) -> &'static str {
        match self {
            Backend::DeltaLake => "delta",
            Backend::Msgpack => "msgpack",
        }
    }
}

/// One column of a split: its name and type (`type` in JS). Delta columns
/// have Delta's type names (`long`, `string`, `array<double>`); msgpack
/// columns the kind of value the first record holds (`int`, `str`, `bin`,
/// `ndarray<uint8>`, …), since records have no schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The column's name.
    pub name: String,
    /// Its type.
    pub data_type: String,
}

/// An Atria cache: one config directory.
pub struct AtriaCache {
    store: Arc<dyn Store>,
    backend: Backend,
    splits: Vec<String>,
    shards: Arc<TarShards>,
}

impl AtriaCache {
    /// Opens the config directory `store` serves: lists `delta/` or
    /// `msgpack/` where the store can list, else probes the usual split names
    /// (train, validation, val, test) for a Delta log or a first msgpack
    /// shard, one small read each.
    pub async fn open(store: impl Store + 'static) -> Result<AtriaCache> {
        let store: Arc<dyn Store> = Arc::new(store);
        let (backend, splits) = match store.list("").await? {
            Some(top) => {
                let backend = if top.iter().any(|n| n == "delta") {
                    Backend::DeltaLake
                } else if top.iter().any(|n| n == "msgpack") {
                    Backend::Msgpack
                } else {
                    return Err(crate::Error::NotFound(
                        "no delta/ or msgpack/ directory in the cache".into(),
                    )
                    .into());
                };
                let names = store.list(backend.dir()).await?.unwrap_or_default();
                (backend, names)
            }
            None => probe(store.as_ref()).await?,
        };
        let mut splits = splits;
        splits.sort_by_key(|s| {
            let known = KNOWN_SPLITS.iter().position(|k| k == s);
            (known.unwrap_or(KNOWN_SPLITS.len()), s.clone())
        });
        Ok(AtriaCache {
            shards: Arc::new(TarShards::new(store.clone())),
            store,
            backend,
            splits,
        })
    }

    /// The cache's TAR shards, for pointers that come from elsewhere than a
    /// split's rows; they share one header index with the splits.
    pub fn shards(&self) -> &Arc<TarShards> {
        &self.shards
    }

    /// `"deltalake"` or `"msgpack"`.
    pub fn backend(&self) -> &'static str {
        self.backend.as_str()
    }

    /// The layout.
    pub fn backend_kind(&self) -> Backend {
        self.backend
    }

    /// The splits, the usual ones first (train, validation, test).
    pub fn splits(&self) -> &[String] {
        &self.splits
    }

    /// Opens split `name`: replays its Delta log (reading no data file when
    /// the rows counts are in the log), or opens its msgpack shards' offsets
    /// and reads its first record for the columns.
    pub async fn split(&self, name: &str) -> Result<Split> {
        if !self.splits.iter().any(|s| s == name) {
            return Err(crate::Error::NotFound(format!(
                "no split '{name}' (the cache has {:?})",
                self.splits
            ))
            .into());
        }
        let dir = format!("{}/{name}", self.backend.dir());
        check_relative(&dir)?;
        let (rows, columns) = match self.backend {
            Backend::DeltaLake => {
                let table = DeltaTable::open(self.store.as_ref(), &dir).await?;
                let columns = table
                    .fields()
                    .iter()
                    .map(|f| Column {
                        name: f.name.clone(),
                        data_type: f.data_type.clone(),
                    })
                    .collect();
                let rows = DeltaRows::new(table, self.store.clone()).await?;
                (Rows::Delta(Box::new(rows)), columns)
            }
            Backend::Msgpack => {
                let split = match self.store.list(&dir).await? {
                    Some(names) => {
                        let paths: Vec<String> = names
                            .iter()
                            .filter(|n| n.ends_with(".msgpack"))
                            .map(|n| format!("{dir}/{n}"))
                            .collect();
                        MsgpackSplit::open(&self.store, &paths).await?
                    }
                    None => MsgpackSplit::probe(&self.store, &dir).await?,
                };
                let columns = match split.num_rows() {
                    0 => Vec::new(),
                    _ => record_columns(&split.record(0).await?),
                };
                (Rows::Msgpack(split), columns)
            }
        };
        Ok(Split {
            name: name.to_string(),
            rows,
            columns,
            store: self.store.clone(),
            shards: self.shards.clone(),
        })
    }
}

impl std::fmt::Debug for AtriaCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtriaCache")
            .field("backend", &self.backend)
            .field("splits", &self.splits)
            .finish()
    }
}

async fn exists(store: &dyn Store, path: &str) -> crate::Result<bool> {
    let found = match store.open(path) {
        Ok(source) => source.read_tail(1).await.map(|_| ()),
        Err(e) => Err(e),
    };
    match found {
        Ok(()) => Ok(true),
        Err(crate::Error::NotFound(_)) => Ok(false),
        Err(e) => Err(e),
    }
}

async fn probe(store: &dyn Store) -> Result<(Backend, Vec<String>)> {
    let mut delta = Vec::new();
    for split in KNOWN_SPLITS {
        let log = format!("delta/{split}/_delta_log");
        if exists(store, &format!("{log}/_last_checkpoint")).await?
            || exists(store, &format!("{log}/{:020}.json", 0)).await?
        {
            delta.push(split.to_string());
        }
    }
    if !delta.is_empty() {
        return Ok((Backend::DeltaLake, delta));
    }
    let mut msgpack = Vec::new();
    for split in KNOWN_SPLITS {
        if exists(
            store,
            &format!("msgpack/{split}/000000-000000.msgpack.offsets"),
        )
        .await?
        {
            msgpack.push(split.to_string());
        }
    }
    if msgpack.is_empty() {
        return Err(crate::Error::NotFound(format!(
            "no Delta table or msgpack shard for any of the splits {KNOWN_SPLITS:?}"
        ))
        .into());
    }
    Ok((Backend::Msgpack, msgpack))
}

fn record_columns(record: &Value) -> Vec<Column> {
    let Value::Map(entries) = record else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|(k, v)| match k {
            Value::Str(name) => Some(Column {
                name: name.clone(),
                data_type: value_type(v),
            }),
            _ => None,
        })
        .collect()
}

fn value_type(v: &Value) -> String {
    match v {
        Value::Nil => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::Int(_) | Value::UInt(_) => "int".into(),
        Value::Float(_) => "float".into(),
        Value::Str(_) => "str".into(),
        Value::Bin(_) => "bin".into(),
        Value::List(_) => "list".into(),
        Value::Map(_) => "map".into(),
        Value::Ext(..) => "ext".into(),
        Value::Array(a) => format!("ndarray<{}>", a.dtype.name()),
    }
}

enum Rows {
    Delta(Box<DeltaRows>),
    Msgpack(MsgpackSplit),
}

/// One split of a cache.
pub struct Split {
    name: String,
    rows: Rows,
    columns: Vec<Column>,
    store: Arc<dyn Store>,
    shards: Arc<TarShards>,
}

impl std::fmt::Debug for Split {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Split")
            .field("name", &self.name)
            .field("num_rows", &self.num_rows())
            .field("columns", &self.columns)
            .finish()
    }
}

/// A field's bytes and how they were found.
struct Found {
    bytes: Option<Vec<u8>>,
    check: Check,
    /// The member names looked for, for the error when nothing was found.
    names: Vec<String>,
}

impl Split {
    /// The split's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Rows (Delta) or records (msgpack).
    pub fn num_rows(&self) -> u64 {
        match &self.rows {
            Rows::Delta(d) => d.num_rows(),
            Rows::Msgpack(m) => m.num_rows(),
        }
    }

    /// The columns: the Delta schema, or the first msgpack record's keys.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The Delta table, for the DELTALAKE layout.
    pub fn delta(&self) -> Option<&DeltaTable> {
        match &self.rows {
            Rows::Delta(d) => Some(d.table()),
            Rows::Msgpack(_) => None,
        }
    }

    /// Row `index`: a map of column to value; numpy values (msgpack) as
    /// [`Value::Array`]. `{field}__file_path` columns come back as written;
    /// [`content`](Self::content) resolves them.
    pub async fn row(&self, index: u64) -> Result<Value> {
        match &self.rows {
            Rows::Delta(d) => d.row(index).await,
            Rows::Msgpack(m) => m.record(index).await,
        }
    }

    /// The bytes of `field` in row `index`: `{field}__content` when the row
    /// holds them, else what `{field}__file_path` names (a TAR pointer,
    /// verified or recovered; or a file under `data/`, where a path missing
    /// its split directory is tolerated); for msgpack, the record's own
    /// bytes. A pointer neither verified nor recovered is
    /// [`Error::BadPointer`]; a row without the field is
    /// [`NotFound`](crate::Error::NotFound).
    pub async fn content(&self, index: u64, field: &str) -> Result<Vec<u8>> {
        let row = self.row(index).await?;
        self.bytes_of(self.find(&row, index, field).await?, index, field)
    }

    /// [`content`](Self::content) of `row` (row `index`, already read) and
    /// its [`Check`], from one resolution: for a caller that wants both, as
    /// `atlas import-atria` does.
    pub async fn content_and_check(
        &self,
        row: &Value,
        index: u64,
        field: &str,
    ) -> Result<(Vec<u8>, Check)> {
        let found = self.find(row, index, field).await?;
        let check = found.check.clone();
        Ok((self.bytes_of(found, index, field)?, check))
    }

    fn bytes_of(&self, found: Found, index: u64, field: &str) -> Result<Vec<u8>> {
        let Some(bytes) = found.bytes else {
            let names: Vec<String> = found.names.iter().map(|n| format!("'{n}'")).collect();
            return Err(Error::BadPointer(format!(
                "row {index} of split '{}', field '{field}': {} {}; no member named {} of that \
                 size is in the shard or the next one",
                self.name,
                found.check.pointer,
                found
                    .check
                    .defect
                    .map_or_else(String::new, |d| d.to_string()),
                names.join(" or ")
            )));
        };
        Ok(bytes)
    }

    /// What [`content`](Self::content) would find, without failing on a
    /// pointer that is neither verified nor recovered.
    pub async fn check(&self, index: u64, field: &str) -> Result<Check> {
        let row = self.row(index).await?;
        Ok(self.find(&row, index, field).await?.check)
    }

    /// Every row in order (each row group read once).
    pub fn rows(&self) -> RowCursor<'_> {
        RowCursor {
            split: self,
            next: 0,
        }
    }

    async fn find(&self, row: &Value, index: u64, field: &str) -> Result<Found> {
        let inline = |bytes: Vec<u8>| Found {
            bytes: Some(bytes),
            check: Check {
                pointer: String::new(),
                ok: true,
                defect: None,
                recovered: false,
                member: None,
                naming: None,
                key_convention: None,
            },
            names: Vec::new(),
        };
        let not_found = || {
            Error::from(crate::Error::NotFound(format!(
                "row {index} of split '{}' has no content for field '{field}'",
                self.name
            )))
        };
        match row.get(&format!("{field}__content")) {
            Some(Value::Bin(bytes)) => return Ok(inline(bytes.clone())),
            Some(Value::Nil) | None => {}
            Some(other) => {
                return Err(Error::Corrupt(format!(
                    "row {index}: {field}__content is not bytes: {other:?}"
                )))
            }
        }
        let path = match row.get(&format!("{field}__file_path")) {
            Some(Value::Str(path)) => path.clone(),
            Some(Value::Nil) => return Err(not_found()),
            Some(other) => {
                return Err(Error::Corrupt(format!(
                    "row {index}: {field}__file_path is not a string: {other:?}"
                )))
            }
            None => match row.get(field) {
                Some(Value::Bin(bytes)) => return Ok(inline(bytes.clone())),
                _ => return Err(not_found()),
            },
        };
        if path.contains('?') {
            let candidates = member_candidates(row, field).ok_or_else(|| {
                Error::Corrupt(format!(
                    "row {index} has a pointer but no key column ({KEY_COLUMNS:?}) to name its member"
                ))
            })?;
            let names: Vec<&str> = candidates.iter().map(|c| c.2.as_str()).collect();
            let (bytes, mut check) = self.shards.resolve(&path, &names).await?;
            let found = check
                .member
                .as_ref()
                .and_then(|m| candidates.iter().find(|c| c.2 == m.name));
            check.naming = found.map(|c| c.1);
            check.key_convention = found.map(|c| c.0);
            return Ok(Found {
                bytes,
                check,
                names: candidates.into_iter().map(|c| c.2).collect(),
            });
        }
        self.data_file(&path).await
    }

    /// A `data/` copy: at its path, or where the path lacks the split
    /// directory (Atria's writer drops it for some files), under it.
    async fn data_file(&self, path: &str) -> Result<Found> {
        let read = |p: String| async move {
            check_relative(&p)?;
            let budget = super::default_memory_budget();
            let tail = self
                .store
                .open(&p)?
                .read_tail(budget.saturating_add(1))
                .await?;
            crate::format::budget::check(tail.object_size, budget, &p)?;
            Ok::<_, crate::Error>((p, tail.bytes))
        };
        let mut check = Check {
            pointer: path.to_string(),
            ok: true,
            defect: None,
            recovered: false,
            member: None,
            naming: None,
            key_convention: None,
        };
        let (at, bytes) = match read(path.to_string()).await {
            Ok(found) => found,
            Err(crate::Error::NotFound(e)) => {
                let Some(rest) = path.strip_prefix("data/") else {
                    return Err(crate::Error::NotFound(e).into());
                };
                if rest.starts_with(&format!("{}/", self.name)) {
                    return Err(crate::Error::NotFound(e).into());
                }
                let found = read(format!("data/{}/{rest}", self.name)).await?;
                check.ok = false;
                check.defect = Some(Defect::SplitMissing);
                check.recovered = true;
                found
            }
            Err(e) => return Err(e.into()),
        };
        check.member = Some(MemberRef {
            name: at.rsplit('/').next().unwrap_or(&at).to_string(),
            shard: at,
            offset: 0,
            size: bytes.len() as u64,
        });
        Ok(Found {
            bytes: Some(bytes),
            check,
            names: Vec::new(),
        })
    }
}

/// An async cursor over a split's rows: `while let Some(row) = rows.next().await`.
pub struct RowCursor<'a> {
    split: &'a Split,
    next: u64,
}

impl RowCursor<'_> {
    /// The next row, `None` after the last.
    #[allow(clippy::should_implement_trait)] // async: not an Iterator
    pub async fn next(&mut self) -> Option<Result<Value>> {
        if self.next >= self.split.num_rows() {
            return None;
        }
        self.next += 1;
        Some(self.split.row(self.next - 1).await)
    }
}
