//! A large segment read by ranges: for each array asked, its row of the
//! footer's array table, its run of out-of-line bytes, and the rows of the
//! blocks and pools it names, each checked as a whole footer is checked.
//!
//! The file stores no name index. A dataset's row is found from its rank
//! among the datasets declaring the variable (writers store one row per
//! dataset, in dataset order), its stored name compared, and on a mismatch
//! a window of neighbours searched; past that the caller reads the whole
//! footer. What a ranged read no longer checks, and why that is safe, is in
//! docs/format.md.

use std::collections::HashMap;
use std::ops::Range;

use futures_util::future::try_join;

use crate::error::{Error, Result};
use crate::format::rows::{
    array_name, run_among, Decoded, FooterRoot, RowName, Site, Table, ROOT_SIZE,
};
use crate::format::segment::{check_array, ArrayMeta, BlockMeta, DiskValue};
use crate::format::value::Attr;
use crate::read::pages::{Pages, PAGE};

/// Rows searched on each side of the one a rank points at.
const NEIGHBOURS: u64 = 32;
/// Pools (strings and attribute values) of at most this are read whole
/// with the first row asked: attributes then cost no request.
const SMALL_TABLES: u64 = 16 * 1024;

pub(crate) struct Ranged {
    pages: Pages,
    root: FooterRoot,
    /// Where the footer starts in the segment: no block reaches past it.
    data_end: u64,
    /// Most bytes one row's run may take.
    run_limit: u64,
}

impl Ranged {
    /// The footer at `footer` (segment-relative `data_end..`, container
    /// `pages`), whose root is the end of `tail`.
    pub(crate) fn new(pages: Pages, data_end: u64, tail: &[u8], budget: u64) -> Result<Ranged> {
        let len = pages.len();
        let root_bytes = tail
            .get(tail.len().saturating_sub(ROOT_SIZE as usize)..)
            .filter(|r| r.len() as u64 == ROOT_SIZE)
            .ok_or_else(|| {
                Error::corrupt_collection("a segment footer's first read holds no root")
            })?;
        let root = FooterRoot::decode(root_bytes, len)?;
        Ok(Ranged {
            pages,
            root,
            data_end,
            run_limit: (budget / 4).max(PAGE),
        })
    }

    /// The arrays named (with each one's rank among the datasets declaring
    /// the variable); `None` when one is not found near its rank, which the
    /// caller then looks up in the whole footer.
    pub(crate) async fn entries(&self, asked: &[(&str, u64)]) -> Result<Option<Fetched>> {
        let Some(rows) = self.locate(asked).await? else {
            return Ok(None);
        };
        let mut metas = self.rows::<ArrayMeta>(&self.root.arrays, &rows).await?;
        let (mut ids, mut keys, mut values) = (Vec::new(), Vec::new(), Vec::new());
        for ((name, _), k) in asked.iter().zip(&rows) {
            let meta = metas.get(*k).expect("fetched above");
            if meta.name != *name {
                return Err(Error::corrupt_collection(format!(
                    "segment row {k} names '{}' where its name read '{name}'",
                    meta.name
                )));
            }
            ids.extend(meta.chunks.iter().map(|c| c.address.block_id.0 as u64));
            keys.extend(meta.attributes.iter().map(|&(k, _)| k as u64));
            values.extend(meta.attributes.iter().map(|&(_, v)| v as u64));
        }
        let (blocks, values) = try_join(
            self.rows::<BlockMeta>(&self.root.blocks, &ids),
            self.rows::<DiskValue>(&self.root.values, &values),
        )
        .await?;
        for (id, block) in &blocks.0 {
            self.check_block(*id, block.as_ref().expect("not taken"))?;
        }
        let mut arrays = Vec::with_capacity(rows.len());
        for k in &rows {
            let Some(meta) = metas.take(*k) else {
                continue; // asked twice
            };
            check_array(&meta, |id| blocks.get(id as u64))?;
            arrays.push(meta);
        }
        let attributes = self.attributes_of(&arrays, keys, values).await?;
        let blocks = blocks.0.into_iter().filter_map(|(_, b)| b).collect();
        Ok(Some(Fetched::new(arrays, attributes, blocks)))
    }

    /// Rows `rows` of the array table, with their attributes, for the calls
    /// that go through every entry: no block is read, so none is fetched.
    pub(crate) async fn scan(&self, rows: Range<u64>) -> Result<Fetched> {
        let ks: Vec<u64> = (rows.start..rows.end.min(self.root.arrays.rows)).collect();
        let mut metas = self.rows::<ArrayMeta>(&self.root.arrays, &ks).await?;
        let arrays: Vec<ArrayMeta> = ks.iter().filter_map(|&k| metas.take(k)).collect();
        let pairs = || arrays.iter().flat_map(|m| m.attributes.iter());
        let keys = pairs().map(|&(k, _)| k as u64).collect();
        let values: Vec<u64> = pairs().map(|&(_, v)| v as u64).collect();
        let values = self.rows::<DiskValue>(&self.root.values, &values).await?;
        let attributes = self.attributes_of(&arrays, keys, values).await?;
        Ok(Fetched::new(arrays, attributes, Vec::new()))
    }

    /// How many rows the array table holds.
    pub(crate) fn len(&self) -> u64 {
        self.root.arrays.rows
    }

    /// Each array's attributes, decoded: its values (fetched) name strings,
    /// fetched with the keys.
    async fn attributes_of(
        &self,
        arrays: &[ArrayMeta],
        mut keys: Vec<u64>,
        values: Rows<DiskValue>,
    ) -> Result<Vec<Vec<(String, Attr)>>> {
        keys.extend(values.values().flat_map(strings_named));
        let strings = self.rows::<String>(&self.root.strings, &keys).await?;
        let string = |i: u32| strings.get(i as u64).cloned();
        arrays
            .iter()
            .map(|meta| {
                meta.attributes
                    .iter()
                    .map(|&(k, v)| {
                        let key = string(k).expect("fetched above");
                        let value = values.get(v as u64).expect("fetched above");
                        Ok((key, value.decode_by(string)?))
                    })
                    .collect::<Result<Vec<_>>>()
            })
            .collect()
    }

    fn check_block(&self, id: u64, block: &BlockMeta) -> Result<()> {
        let end = block.file_offset.checked_add(block.compressed_size);
        if block.id.0 as u64 != id || end.is_none_or(|end| end > self.data_end) {
            return Err(Error::corrupt_collection(format!(
                "block row {id} (id {}, {} bytes at {}) is not inside the data region of {} bytes",
                block.id.0, block.compressed_size, block.file_offset, self.data_end
            )));
        }
        Ok(())
    }

    /// The row of each name: first where its rank points, then among the
    /// neighbours of that row; `None` when one is in neither.
    async fn locate(&self, asked: &[(&str, u64)]) -> Result<Option<Vec<u64>>> {
        let table = self.root.arrays;
        if table.rows == 0 {
            return Ok(None);
        }
        let guesses: Vec<u64> = asked
            .iter()
            .map(|&(_, rank)| rank.min(table.rows - 1))
            .collect();
        let names = self.names(&guesses, &self.prefetch(&guesses)).await?;
        let mut rows: Vec<Option<u64>> = asked
            .iter()
            .zip(&guesses)
            .zip(&names)
            .map(|(((name, _), &k), stored)| (stored == name.as_bytes()).then_some(k))
            .collect();
        let missed: Vec<usize> = (0..asked.len()).filter(|&i| rows[i].is_none()).collect();
        if !missed.is_empty() {
            let windows: Vec<Range<u64>> = missed
                .iter()
                .map(|&i| {
                    guesses[i].saturating_sub(NEIGHBOURS)
                        ..(guesses[i] + NEIGHBOURS + 1).min(table.rows)
                })
                .collect();
            let near: Vec<u64> = windows.iter().flat_map(|w| w.clone()).collect();
            let names = self.names(&near, &[]).await?;
            let mut at = 0;
            for (&i, window) in missed.iter().zip(windows) {
                let width = (window.end - window.start) as usize;
                let hit = names[at..at + width]
                    .iter()
                    .position(|stored| stored == asked[i].0.as_bytes());
                rows[i] = hit.map(|h| window.start + h as u64);
                at += width;
            }
        }
        Ok(rows.into_iter().collect())
    }

    /// Ranges worth fetching with the first rows, guessed so a read costs
    /// no round trip more: where the runs of rows `ks` likely lie and the
    /// rows of the blocks they likely name (writers store both in dataset
    /// order, so each sits near its share of its table), and the pools whole
    /// when they are small.
    fn prefetch(&self, ks: &[u64]) -> Vec<Range<u64>> {
        let root = &self.root;
        let mut ranges = Vec::new();
        let pools = root.strings.floor..root.arrays.floor;
        if pools.end - pools.start <= SMALL_TABLES {
            ranges.push(pools);
        }
        let (Some(&first), Some(&last)) = (ks.iter().min(), ks.iter().max()) else {
            return ranges;
        };
        let rows = root.arrays.rows.max(1);
        // `at + (end - at) · k / rows`, widened by `slack` on each side.
        let share = |span: Range<u64>, slack: u64| {
            let at = |k: u64| {
                let width = span.end - span.start;
                span.start + width / rows * k + (width % rows).saturating_mul(k) / rows
            };
            at(first).saturating_sub(slack).max(span.start)..(at(last + 1) + slack).min(span.end)
        };
        let runs = root.arrays.floor..root.arrays.at;
        let run = (runs.end - runs.start) / rows;
        let blocks = root.blocks.at..root.blocks.end();
        for guess in [
            share(runs, 2 * run + 64),
            share(blocks, 2 * root.blocks.row_size),
        ] {
            if guess.end - guess.start <= self.run_limit {
                ranges.push(guess);
            }
        }
        ranges
    }

    /// The stored names of array rows `ks`, fetched with `also`.
    async fn names(&self, ks: &[u64], also: &[Range<u64>]) -> Result<Vec<Vec<u8>>> {
        let table = self.root.arrays;
        let mut ranges: Vec<Range<u64>> =
            ks.iter().map(|&k| with_previous(&table, k, true)).collect();
        ranges.extend_from_slice(also);
        let bytes = self.pages.read(&ranges).await?;
        let mut names = Vec::with_capacity(ks.len());
        let mut outside = Vec::new();
        for (&k, row) in ks.iter().zip(&bytes) {
            let row = &row[row.len() - table.row_size as usize..];
            match array_name(table.at + k * table.row_size, row)? {
                RowName::Inline(name) => names.push(name),
                RowName::At(range) => {
                    if range.start < table.floor
                        || range.end > table.at
                        || range.end - range.start > PAGE
                    {
                        return Err(Error::corrupt_collection(format!(
                            "segment row {k} keeps its name at {}..{}, outside its runs",
                            range.start, range.end
                        )));
                    }
                    outside.push((names.len(), range));
                    names.push(Vec::new());
                }
            }
        }
        if !outside.is_empty() {
            let ranges: Vec<Range<u64>> = outside.iter().map(|(_, r)| r.clone()).collect();
            for ((i, _), name) in outside.iter().zip(self.pages.read(&ranges).await?) {
                names[*i] = name;
            }
        }
        Ok(names)
    }

    /// Rows `ks` of `table`, each decoded from its row and its run.
    async fn rows<T: Decoded>(&self, table: &Table, ks: &[u64]) -> Result<Rows<T>> {
        let fetched = self.row_bytes(table, ks, T::NESTS, T::sites).await?;
        let mut decoded = Vec::with_capacity(fetched.len());
        for (k, row, run_at, run) in fetched {
            let row_at = table.at + k * table.row_size;
            decoded.push((k, Some(T::decode(row_at, &row, run_at, &run)?)));
        }
        Ok(Rows(decoded))
    }

    /// The bytes of rows `ks` of `table` (sorted, once each) and of their
    /// runs: `(k, row, run start, run)`. Not generic, so one copy of it
    /// serves every row type.
    async fn row_bytes(
        &self,
        table: &Table,
        ks: &[u64],
        nests: bool,
        sites: fn(&[u8]) -> Vec<Site>,
    ) -> Result<Vec<(u64, Vec<u8>, u64, Vec<u8>)>> {
        let mut ks = ks.to_vec();
        ks.sort_unstable();
        ks.dedup();
        if let Some(&k) = ks.iter().find(|&&k| k >= table.rows) {
            return Err(Error::corrupt_collection(format!(
                "a segment names row {k} of a footer table of {} rows",
                table.rows
            )));
        }
        let spans: Vec<Range<u64>> = ks.iter().map(|&k| with_previous(table, k, nests)).collect();
        let mut bytes = self.pages.read(&spans).await?;
        let size = table.row_size as usize;
        let mut runs = Vec::with_capacity(ks.len());
        for (&k, span) in ks.iter().zip(&bytes) {
            let row_at = table.at + k * table.row_size;
            let row = &span[span.len() - size..];
            let floor = if nests && k > 0 {
                let previous = &span[..size];
                let sites = sites(previous);
                run_among(
                    &sites,
                    nests,
                    row_at - table.row_size,
                    previous,
                    table.floor,
                    table.at,
                )?
                .end
            } else {
                table.floor
            };
            let run = run_among(&sites(row), nests, row_at, row, floor, table.at)?;
            if run.end - run.start > self.run_limit {
                return Err(Error::TooLarge(format!(
                    "segment row {k} keeps {} bytes of entries, past the {} a row may take under this memory budget",
                    run.end - run.start,
                    self.run_limit
                )));
            }
            runs.push(run);
        }
        let run_bytes = self.pages.read(&runs).await?;
        Ok(ks
            .into_iter()
            .zip(bytes.iter_mut())
            .zip(runs)
            .zip(run_bytes)
            .map(|(((k, span), run), run_bytes)| {
                let row = span.split_off(span.len() - size);
                (k, row, run.start, run_bytes)
            })
            .collect())
    }
}

/// Rows decoded, by row number (sorted, each once).
struct Rows<T>(Vec<(u64, Option<T>)>);

impl<T> Rows<T> {
    fn at(&self, k: u64) -> Option<usize> {
        self.0.binary_search_by_key(&k, |(k, _)| *k).ok()
    }

    fn get(&self, k: u64) -> Option<&T> {
        self.at(k).and_then(|i| self.0[i].1.as_ref())
    }

    /// Row `k`, handed over: a second take of it is `None`.
    fn take(&mut self, k: u64) -> Option<T> {
        self.at(k).and_then(|i| self.0[i].1.take())
    }

    fn values(&self) -> impl Iterator<Item = &T> {
        self.0.iter().filter_map(|(_, v)| v.as_ref())
    }
}

/// Row `k`, with the row before it when the rows nest (its run's end is
/// where row `k`'s starts).
fn with_previous(table: &Table, k: u64, nests: bool) -> Range<u64> {
    let row = table.row(k).expect("checked by the caller");
    if nests && k > 0 {
        row.start - table.row_size..row.end
    } else {
        row
    }
}

/// The string pool indices a value names.
fn strings_named(value: &DiskValue) -> Vec<u64> {
    match value {
        DiskValue::String(i) => vec![*i as u64],
        DiskValue::StringList(list) => list.iter().map(|&i| i as u64).collect(),
        _ => Vec::new(),
    }
}

/// Arrays read by ranges, with the attributes and blocks they name.
pub(crate) struct Fetched {
    arrays: Vec<ArrayMeta>,
    attributes: Vec<Vec<(String, Attr)>>,
    by_name: HashMap<String, usize>,
    /// Sorted by id.
    blocks: Vec<BlockMeta>,
}

impl Fetched {
    fn new(
        arrays: Vec<ArrayMeta>,
        attributes: Vec<Vec<(String, Attr)>>,
        blocks: Vec<BlockMeta>,
    ) -> Fetched {
        let by_name = arrays
            .iter()
            .enumerate()
            .map(|(i, a)| (a.name.clone(), i))
            .collect();
        Fetched {
            arrays,
            attributes,
            by_name,
            blocks,
        }
    }

    /// The array a dataset stores in this segment, if it was fetched.
    pub(crate) fn array(&self, dataset: &str) -> Option<&ArrayMeta> {
        self.by_name.get(dataset).map(|&i| &self.arrays[i])
    }

    /// The arrays fetched, in the order the segment stores them.
    pub(crate) fn arrays(&self) -> &[ArrayMeta] {
        &self.arrays
    }

    /// One attribute of one array fetched.
    pub(crate) fn attribute(&self, array: &ArrayMeta, key: &str) -> Option<Attr> {
        let index = *self.by_name.get(&array.name)?;
        self.attributes[index]
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }

    /// A block the fetched arrays name, by id.
    pub(crate) fn block(&self, id: u32) -> Option<&BlockMeta> {
        self.blocks
            .binary_search_by_key(&id, |b| b.id.0)
            .ok()
            .map(|i| &self.blocks[i])
    }
}
