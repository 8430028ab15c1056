//! Joining collections built apart (`atlas create --part I/N` on many
//! machines) into one, without decompressing anything.
//!
//! Per variable, each part's blocks that hold a live dataset's chunks are
//! copied verbatim (the OS copies file to file where it can), and one new
//! segment footer lists the parts' arrays in dataset order, with block ids
//! and offsets moved and the string and value pools merged. The collection
//! footer interns the parts' schemas again in the same order, so it comes
//! out as one writer would have written it for the same datasets. Memory
//! holds one part's segment footer and the merged one, never the data.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use crate::error::{Error, Result};
use crate::format::catalogue::DatasetCatalogue;
use crate::format::container::{encode_header, FORMAT_VERSION, HEADER_SIZE};
use crate::format::footer::{CollectionFooter, VariableEntry, DATASET_ATTRS_VARIABLE};
use crate::format::segment::{
    decode_segment_footer, decode_segment_trailer, ArrayMeta, BlockId, BlockMeta, SegmentFooter,
    SEGMENT_TRAILER_SIZE, SEGMENT_VERSION,
};
use crate::read::Atlas;
use crate::write::install::{
    at_once, install, io_at, now_ms, write_footer, write_segment_footer, WorkDir,
};
use crate::write::interner::Interner;
use crate::write::pools::Pools;
use crate::write::DATA_FILE;

/// What a merge joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeSummary {
    /// Parts read.
    pub parts: usize,
    /// Live datasets written.
    pub datasets: usize,
    /// Hidden datasets of the parts, left out.
    pub dropped: usize,
    /// Segments written.
    pub variables: usize,
    /// Blocks copied.
    pub blocks_copied: u64,
    /// Compressed bytes copied.
    pub bytes_copied: u64,
    /// Blocks left behind: only hidden datasets' chunks were in them.
    pub blocks_left: u64,
    /// Decompressed bytes of hidden datasets' chunks inside copied blocks:
    /// what dropping a dataset without recompressing costs.
    pub dead_bytes: u64,
    /// Size of the new `data.atlas`.
    pub container_bytes: u64,
}

/// Joins the collections in `parts` (local directories, in order) into a
/// new collection in `dest`: their live datasets in part order. Fails,
/// leaving `dest` as it was, on a part that does not open, parts of
/// different codecs, a dataset name in two parts, or `dest` being a part.
/// `progress(done, total)` is called after each variable.
pub fn merge(
    parts: &[PathBuf],
    dest: impl AsRef<Path>,
    mut progress: impl FnMut(usize, usize),
) -> Result<MergeSummary> {
    let dest = dest.as_ref();
    if parts.is_empty() {
        return Err(Error::InvalidArgument(
            "a merge needs at least one part".into(),
        ));
    }
    let parts: Vec<Part> = parts.iter().map(|p| Part::open(p)).collect::<Result<_>>()?;
    check_parts(&parts, dest)?;
    let plan = Plan::new(&parts)?;
    let existed = dest.exists();
    let written = write(&parts, plan, dest, &mut progress);
    if written.is_err() && !existed {
        // Only ever empty here: the work directory removes itself.
        let _ = std::fs::remove_dir(dest);
    }
    written
}

/// One part: its collection as the reader sees it (mask applied), and its
/// container file for the bytes.
struct Part {
    path: PathBuf,
    atlas: Atlas,
    file: File,
}

impl Part {
    fn open(path: &Path) -> Result<Part> {
        let named = |e: Error| in_part(path, e);
        let atlas = at_once(Atlas::open_path(path))
            .map_err(named)?
            .map_err(named)?;
        let data = path.join(DATA_FILE);
        let file = File::open(&data).map_err(|e| named(io_at(e, &data)))?;
        Ok(Part {
            path: path.to_path_buf(),
            atlas,
            file,
        })
    }

    fn footer(&self) -> &CollectionFooter {
        self.atlas.footer()
    }

    /// Live datasets: (ordinal, name, schema index).
    fn live(&self) -> impl Iterator<Item = (u32, &str, u32)> + '_ {
        let deleted = self.atlas.deleted_ordinals();
        self.footer()
            .datasets
            .iter()
            .enumerate()
            .map(|(i, (name, schema))| (i as u32, name, schema))
            .filter(move |(i, _, _)| !deleted.contains(i))
    }

    /// The segment footer of `variable`, read whole and checked as the
    /// reader checks it; `None` when the part has no such segment.
    fn segment(&self, variable: &str) -> Result<Option<(VariableEntry, SegmentFooter)>> {
        let footer = self.atlas.footer();
        let Some(entry) = footer
            .variables
            .iter()
            .find(|v| footer.string(v.name) == variable)
            .cloned()
        else {
            return Ok(None);
        };
        let named = |e: Error| in_part(&self.path, e);
        // The collection footer's validation put the segment inside the
        // container, so these lengths are bounded by the file itself.
        let mut tail = [0u8; SEGMENT_TRAILER_SIZE as usize];
        let tail_at = entry.seg_offset + entry.seg_len.saturating_sub(SEGMENT_TRAILER_SIZE);
        self.read_at(tail_at, &mut tail).map_err(named)?;
        let range = decode_segment_trailer(&tail, entry.seg_len).map_err(named)?;
        let mut bytes = vec![0u8; (range.end - range.start) as usize];
        self.read_at(entry.seg_offset + range.start, &mut bytes)
            .map_err(named)?;
        let segment = decode_segment_footer(&bytes).map_err(named)?;
        segment.validate(range.start).map_err(named)?;
        Ok(Some((entry, segment)))
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let mut file = &self.file;
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(buf)?;
        Ok(())
    }

    /// Copies `len` bytes at `offset` of the container to `out`.
    fn copy(&self, offset: u64, len: u64, out: &mut BufWriter<File>) -> Result<()> {
        let mut file = &self.file;
        file.seek(SeekFrom::Start(offset))?;
        // File to file, std's copy flushes `out` and lets the kernel move
        // the bytes (copy_file_range on Linux) instead of a user buffer.
        let copied = std::io::copy(&mut file.take(len), out)?;
        if copied != len {
            return Err(in_part(
                &self.path,
                Error::corrupt(format!(
                    "{len} bytes at {offset} were to be copied, the file held {copied}"
                )),
            ));
        }
        Ok(())
    }
}

fn check_parts(parts: &[Part], dest: &Path) -> Result<()> {
    let codec = parts[0].atlas.codec();
    for part in parts {
        if part.atlas.codec() != codec {
            return Err(Error::InvalidArgument(format!(
                "part {} is compressed with {}, part {} with {}: merge parts written with one codec",
                parts[0].path.display(),
                codec.name(),
                part.path.display(),
                part.atlas.codec().name()
            )));
        }
    }
    if let Ok(dest) = dest.canonicalize() {
        for part in parts {
            if part.path.canonicalize().is_ok_and(|p| p == dest) {
                return Err(Error::InvalidArgument(format!(
                    "the destination {} is one of the parts",
                    dest.display()
                )));
            }
        }
    }
    Ok(())
}

/// What the merged collection holds, decided before a byte is written.
struct Plan {
    interner: Interner,
    /// Merged order; the value is the schema in `interner`.
    datasets: IndexMap<String, u32>,
    /// First-seen order across the parts: a single writer's segment order.
    variables: Vec<String>,
    dropped: usize,
}

impl Plan {
    fn new(parts: &[Part]) -> Result<Plan> {
        let mut interner = Interner::default();
        let mut datasets = IndexMap::new();
        let mut owner: HashMap<&str, usize> = HashMap::new();
        let mut dropped = 0;
        for (index, part) in parts.iter().enumerate() {
            let footer = part.footer();
            for (_, name, schema) in part.live() {
                if let Some(first) = owner.insert(name, index) {
                    return Err(Error::InvalidArgument(format!(
                        "dataset '{name}' is in part {} and in part {}",
                        parts[first].path.display(),
                        part.path.display()
                    )));
                }
                let schema = interner.schema_of(footer, &footer.schema_pool[schema as usize]);
                datasets.insert(name.to_string(), schema);
            }
            dropped += part.atlas.deleted_count();
        }
        let mut variables = IndexMap::new();
        for part in parts {
            let footer = part.footer();
            for variable in &footer.variables {
                variables.insert(footer.string(variable.name).to_string(), ());
            }
        }
        Ok(Plan {
            interner,
            datasets,
            variables: variables.into_keys().collect(),
            dropped,
        })
    }
}

/// The live datasets of `part` whose schema declares `variable` (for
/// `_datasets`: that have dataset attributes), by name, with their ordinals.
fn declaring<'a>(part: &'a Part, variable: &str) -> HashMap<&'a str, u32> {
    let footer = part.footer();
    let declares: Vec<bool> = footer
        .schema_pool
        .iter()
        .map(|schema| {
            if variable == DATASET_ATTRS_VARIABLE {
                !schema.attrs.is_empty()
            } else {
                schema
                    .arrays
                    .iter()
                    .any(|&(name, _)| footer.string(name) == variable)
            }
        })
        .collect();
    part.live()
        .filter(|&(_, _, schema)| declares[schema as usize])
        .map(|(ordinal, name, _)| (name, ordinal))
        .collect()
}

fn write(
    parts: &[Part],
    plan: Plan,
    dest: &Path,
    progress: &mut impl FnMut(usize, usize),
) -> Result<MergeSummary> {
    let work = WorkDir::create(dest)?;
    let staging = work.staging();
    let file = File::create(&staging).map_err(|e| io_at(e, &staging))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(&encode_header())?;
    let Plan {
        mut interner,
        datasets,
        variables: names,
        dropped,
    } = plan;
    let mut summary = MergeSummary {
        parts: parts.len(),
        datasets: datasets.len(),
        dropped,
        variables: 0,
        blocks_copied: 0,
        bytes_copied: 0,
        blocks_left: 0,
        dead_bytes: 0,
        container_bytes: 0,
    };
    let mut offset = HEADER_SIZE;
    let mut variables = Vec::new();
    // The collection footer names `_datasets` after every schema, as a
    // single writer does.
    for (done, variable) in names.iter().enumerate() {
        let len = merge_variable(parts, variable, &mut out, &mut summary)?;
        if let Some(len) = len {
            variables.push(VariableEntry {
                name: interner.string(variable),
                seg_offset: offset,
                seg_len: len,
            });
            offset += len;
            summary.variables += 1;
        }
        progress(done + 1, names.len());
    }
    let footer = CollectionFooter {
        version: FORMAT_VERSION,
        codec: parts[0].atlas.codec(),
        created_unix_ms: now_ms(),
        string_pool: interner.strings,
        dtype_pool: interner.dtypes,
        schema_pool: interner.schemas,
        variables,
        datasets: DatasetCatalogue::from_pairs(datasets)?,
    };
    write_footer(&mut out, &footer)?;
    let file = out.into_inner().map_err(|e| Error::Io(e.to_string()))?;
    file.sync_all()?;
    summary.container_bytes = file.metadata()?.len();
    drop(file);
    install(&work)?;
    Ok(summary)
}

/// Writes one variable's merged segment to `out`; `None` when no live
/// dataset declares it (only hidden datasets did).
fn merge_variable(
    parts: &[Part],
    variable: &str,
    out: &mut BufWriter<File>,
    summary: &mut MergeSummary,
) -> Result<Option<u64>> {
    let mut merged = SegmentFooter {
        version: SEGMENT_VERSION,
        blocks: Vec::new(),
        strings: Vec::new(),
        values: Vec::new(),
        arrays: Vec::new(),
    };
    let mut pools = Pools::default();
    let mut data_len = 0u64;
    for part in parts {
        let wanted = declaring(part, variable);
        if wanted.is_empty() {
            continue;
        }
        let Some((entry, segment)) = part.segment(variable)? else {
            let name = wanted.keys().next().expect("not empty");
            return Err(missing(part, name, variable));
        };
        let SegmentFooter {
            blocks,
            strings,
            values,
            arrays,
            ..
        } = segment;
        let mut kept: Vec<(u32, ArrayMeta)> = arrays
            .into_iter()
            .filter_map(|a| Some((*wanted.get(a.name.as_str())?, a)))
            .collect();
        if kept.len() != wanted.len() {
            let held: HashSet<&str> = kept.iter().map(|(_, a)| a.name.as_str()).collect();
            let name = wanted
                .keys()
                .find(|n| !held.contains(*n))
                .expect("one short");
            return Err(missing(part, name, variable));
        }
        kept.sort_by_key(|(ordinal, _)| *ordinal);

        // Blocks some kept chunk lives in, in their order, renumbered.
        let mut live_bytes = vec![0u64; blocks.len()];
        let mut used = vec![false; blocks.len()];
        for chunk in kept.iter().flat_map(|(_, a)| &a.chunks) {
            let id = chunk.address.block_id.0 as usize;
            used[id] = true;
            live_bytes[id] += chunk.address.size as u64;
        }
        let mut renumbered = vec![0u32; blocks.len()];
        let mut runs: Vec<(u64, u64)> = Vec::new();
        for (id, block) in blocks.into_iter().enumerate() {
            if !used[id] {
                summary.blocks_left += 1;
                continue;
            }
            renumbered[id] = merged.blocks.len() as u32;
            let at = entry.seg_offset + block.file_offset;
            match runs.last_mut() {
                Some((start, len)) if *start + *len == at => *len += block.compressed_size,
                _ => runs.push((at, block.compressed_size)),
            }
            summary.blocks_copied += 1;
            summary.bytes_copied += block.compressed_size;
            summary.dead_bytes += block.uncompressed_size.saturating_sub(live_bytes[id]);
            merged.blocks.push(BlockMeta {
                id: BlockId(merged.blocks.len() as u32),
                file_offset: data_len,
                ..block
            });
            data_len += merged.blocks.last().expect("pushed").compressed_size;
        }
        for (at, len) in runs {
            part.copy(at, len, out)?;
        }
        for (_, mut array) in kept {
            for chunk in &mut array.chunks {
                chunk.address.block_id = BlockId(renumbered[chunk.address.block_id.0 as usize]);
            }
            let mut attributes = Vec::with_capacity(array.attributes.len());
            for &(key, value) in &array.attributes {
                // `validate` checked both indices against these pools.
                let key = pools.string(&strings[key as usize]);
                let value = values[value as usize]
                    .decode(&strings)
                    .map_err(|e| in_part(&part.path, e))?;
                attributes.push((key, pools.value(&value)));
            }
            array.attributes = attributes;
            merged.arrays.push(array);
        }
    }
    if merged.arrays.is_empty() {
        return Ok(None);
    }
    (merged.strings, merged.values) = pools.finish();
    Ok(Some(data_len + write_segment_footer(out, &merged)?))
}

fn missing(part: &Part, dataset: &str, variable: &str) -> Error {
    in_part(
        &part.path,
        Error::corrupt(format!(
            "dataset '{dataset}' declares '{variable}', but its segment does not hold it"
        )),
    )
}

/// `e` with the part's path in front of its message, its code kept.
fn in_part(path: &Path, e: Error) -> Error {
    let message = format!("part {}: {e}", path.display());
    Error::from_code(e.code(), message, e.http_status()).unwrap_or(e)
}
