//! datadings msgpack shards: `X.msgpack` holds the records back to back;
//! `X.msgpack.offsets` holds `count + 1` big-endian u64 offsets (0 first,
//! the data file's size last); `X.msgpack.keys` is a msgpack list of the
//! records' keys. (`.key_hashes`, `.filter` and `.md5` are not needed to
//! read.)

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::atria::error::{Error, Result};
use crate::format::budget::{check, Budget};
use crate::source::ByteSource;

use super::store::{check_relative, Store};
use super::value::{decode, Value};

/// One shard, its offsets in memory.
pub struct MsgpackShard {
    path: String,
    data: Arc<dyn ByteSource>,
    keys_source: Arc<dyn Store>,
    offsets: Vec<u64>,
    budget: u64,
    keys: Mutex<Option<Arc<KeyIndex>>>,
}

struct KeyIndex {
    keys: Vec<String>,
    by_key: HashMap<String, u64>,
}

impl MsgpackShard {
    /// Opens `path` (the `.msgpack` file): reads its `.offsets` sidecar and
    /// the data file's size (two requests), under the default memory budget.
    pub async fn open(store: &(impl Store + Clone + 'static), path: &str) -> Result<Self> {
        Self::open_with_budget(store, path, super::default_memory_budget()).await
    }

    /// [`open`](Self::open) with `budget` bytes of memory for the offsets,
    /// the keys and any one record.
    pub async fn open_with_budget(
        store: &(impl Store + Clone + 'static),
        path: &str,
        budget: u64,
    ) -> Result<Self> {
        check_relative(path)?;
        let corrupt = |why: String| Error::Corrupt(format!("{path}.offsets: {why}"));
        let sidecar = store.open(&format!("{path}.offsets"))?;
        // One request for the whole sidecar: a tail read of the budget gets
        // all of any offsets file the budget allows.
        let tail = sidecar.read_tail(budget.saturating_add(1)).await?;
        check(tail.object_size, budget, &format!("{path}.offsets"))?;
        let raw = tail.bytes;
        if raw.len() < 8 || raw.len() % 8 != 0 {
            return Err(corrupt(format!(
                "{} bytes is not a whole number of (at least one) u64",
                raw.len()
            )));
        }
        let offsets: Vec<u64> = raw
            .chunks_exact(8)
            .map(|c| u64::from_be_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let data = store.open(path)?;
        let data_size = data.read_tail(1).await?.object_size;
        if offsets[0] != 0 {
            return Err(corrupt(format!(
                "the first offset is {}, not 0",
                offsets[0]
            )));
        }
        if let Some(w) = offsets.windows(2).position(|w| w[1] < w[0]) {
            return Err(corrupt(format!(
                "offset {} ({}) is before offset {w} ({})",
                w + 1,
                offsets[w + 1],
                offsets[w]
            )));
        }
        let last = *offsets.last().expect("at least one offset");
        if last != data_size {
            return Err(corrupt(format!(
                "the offsets end at byte {last}, but {path} has {data_size} bytes"
            )));
        }
        Ok(Self {
            path: path.to_string(),
            data,
            keys_source: Arc::new(store.clone()),
            offsets,
            budget,
            keys: Mutex::new(None),
        })
    }

    /// The shard's path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Number of records.
    pub fn count(&self) -> u64 {
        self.offsets.len() as u64 - 1
    }

    /// The record at `index`: one range read.
    pub async fn record(&self, index: u64) -> Result<Value> {
        let bytes = self.raw_record(index).await?;
        let mut budget = Budget::new(self.budget);
        let what = format!("record {index} of {}", self.path);
        decode(&bytes, &mut budget, &what)
    }

    /// The record's msgpack bytes, undecoded: one range read.
    pub async fn raw_record(&self, index: u64) -> Result<Vec<u8>> {
        if index >= self.count() {
            return Err(crate::Error::OutOfBounds(format!(
                "record {index} of {}, which has {}",
                self.path,
                self.count()
            ))
            .into());
        }
        let (start, end) = (
            self.offsets[index as usize],
            self.offsets[index as usize + 1],
        );
        check(
            end - start,
            self.budget,
            &format!("record {index} of {}", self.path),
        )?;
        Ok(self.data.read_range(start..end).await?)
    }

    /// The records' keys, in order: the `.keys` sidecar, read once.
    pub async fn keys(&self) -> Result<Vec<String>> {
        Ok(self.key_index().await?.keys.clone())
    }

    /// The record whose key is `key`: the keys (read once), then one range read.
    pub async fn record_by_key(&self, key: &str) -> Result<Value> {
        let index = self.key_index().await?;
        let i = *index.by_key.get(key).ok_or_else(|| {
            crate::Error::NotFound(format!("no record with key '{key}' in {}", self.path))
        })?;
        self.record(i).await
    }

    async fn key_index(&self) -> Result<Arc<KeyIndex>> {
        if let Some(index) = self.lock().as_ref() {
            return Ok(index.clone());
        }
        let path = format!("{}.keys", self.path);
        let tail = self
            .keys_source
            .open(&path)?
            .read_tail(self.budget.saturating_add(1))
            .await?;
        check(tail.object_size, self.budget, &path)?;
        let mut budget = Budget::new(self.budget);
        let keys = match decode(&tail.bytes, &mut budget, &path)? {
            Value::List(items) => items
                .into_iter()
                .map(|k| match k {
                    Value::Str(s) => Ok(s),
                    other => Err(Error::Corrupt(format!(
                        "{path}: a key that is not a string: {other:?}"
                    ))),
                })
                .collect::<Result<Vec<_>>>()?,
            _ => return Err(Error::Corrupt(format!("{path} is not a list of keys"))),
        };
        if keys.len() as u64 != self.count() {
            return Err(Error::Corrupt(format!(
                "{path} has {} keys for {} records",
                keys.len(),
                self.count()
            )));
        }
        let by_key = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.clone(), i as u64))
            .collect();
        let index = Arc::new(KeyIndex { keys, by_key });
        *self.lock() = Some(index.clone());
        Ok(index)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Arc<KeyIndex>>> {
        // Only a whole index is ever stored: a poisoned slot is still sound.
        self.keys.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A split's shards, read in order as one sequence of records.
pub struct MsgpackSplit {
    shards: Vec<MsgpackShard>,
    /// The global index of each shard's first record, and the total last.
    starts: Vec<u64>,
}

impl MsgpackSplit {
    /// Opens `paths` in order (each as [`MsgpackShard::open`]).
    pub async fn open(store: &(impl Store + Clone + 'static), paths: &[String]) -> Result<Self> {
        let mut shards = Vec::with_capacity(paths.len());
        for path in paths {
            shards.push(MsgpackShard::open(store, path).await?);
        }
        Ok(Self::from_shards(shards))
    }

    /// Opens `{dir}/{worker:06d}-{shard:06d}.msgpack` for workers 0, 1, …
    /// and, for each, shards 0, 1, … until one is missing: for sources that
    /// cannot list. Each probe past the last costs one request.
    pub async fn probe(store: &(impl Store + Clone + 'static), dir: &str) -> Result<Self> {
        let mut shards = Vec::new();
        for worker in 0u64.. {
            let before = shards.len();
            for shard in 0u64.. {
                let path = format!("{dir}/{worker:06}-{shard:06}.msgpack");
                match MsgpackShard::open(store, &path).await {
                    Ok(s) => shards.push(s),
                    Err(Error::Core(crate::Error::NotFound(_))) => break,
                    Err(e) => return Err(e),
                }
            }
            if shards.len() == before {
                break;
            }
        }
        Ok(Self::from_shards(shards))
    }

    fn from_shards(shards: Vec<MsgpackShard>) -> Self {
        let mut starts = vec![0];
        for s in &shards {
            starts.push(starts.last().expect("one start") + s.count());
        }
        Self { shards, starts }
    }

    /// The shards, in order.
    pub fn shards(&self) -> &[MsgpackShard] {
        &self.shards
    }

    /// Records in all shards.
    pub fn num_rows(&self) -> u64 {
        *self.starts.last().expect("one start")
    }

    /// Record `index` of the split: one range read.
    pub async fn record(&self, index: u64) -> Result<Value> {
        if index >= self.num_rows() {
            return Err(crate::Error::OutOfBounds(format!(
                "record {index} of a split of {}",
                self.num_rows()
            ))
            .into());
        }
        let shard = self.starts.partition_point(|&s| s <= index) - 1;
        self.shards[shard].record(index - self.starts[shard]).await
    }

    /// Every record in order, one range read each.
    pub fn rows(&self) -> SplitRows<'_> {
        SplitRows {
            split: self,
            next: 0,
        }
    }
}

/// An async cursor over a split's records: `while let Some(row) = rows.next().await`.
pub struct SplitRows<'a> {
    split: &'a MsgpackSplit,
    next: u64,
}

impl SplitRows<'_> {
    /// The next record, `None` after the last.
    #[allow(clippy::should_implement_trait)] // async: not an Iterator
    pub async fn next(&mut self) -> Option<Result<Value>> {
        if self.next >= self.split.num_rows() {
            return None;
        }
        self.next += 1;
        Some(self.split.record(self.next - 1).await)
    }
}
