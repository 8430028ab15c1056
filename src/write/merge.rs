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
use crate::write::durable::{io_at, Writeback};
use crate::write::install::{
    at_once, install, now_ms, write_footer, write_segment_footer, WorkDir,
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
    progress: impl FnMut(usize, usize),
) -> Result<MergeSummary> {
    let dest = dest.as_ref();
    let parts: Vec<MergePart> = parts
        .iter()
        .map(|p| MergePart::open(p))
        .collect::<Result<_>>()?;
    check_destination(&parts, dest)?;
    merge_parts(&parts, dest, progress)
}

/// [`merge`] of parts opened anywhere (a bucket's parts come from the
/// CLI) into the local directory `dest`.
pub(crate) fn merge_parts(
    parts: &[MergePart],
    dest: &Path,
    mut progress: impl FnMut(usize, usize),
) -> Result<MergeSummary> {
    let plan = Plan::new(parts)?;
    let existed = dest.exists();
    let written = (|| {
        let work = WorkDir::create(dest)?;
        let staging = work.staging();
        let file = File::create(&staging).map_err(|e| io_at(e, &staging))?;
        let mut out = LocalContainer(
            BufWriter::with_capacity(1 << 20, file),
            Writeback::default(),
        );
        let summary = write(parts, plan, &mut out, &mut progress)?;
        let file = out.0.into_inner().map_err(|e| Error::Io(e.to_string()))?;
        file.sync_all()?;
        drop(file);
        install(&work)?;
        Ok(summary)
    })();
    if written.is_err() && !existed {
        // Only ever empty here: the work directory removes itself.
        let _ = std::fs::remove_dir(dest);
    }
    written
}

/// Where a merged container goes: new bytes are written, a part's bytes
/// are copied (by the OS, through a buffer, or by the store itself).
pub(crate) trait Container: Write {
    /// Appends `len` bytes at `offset` of `part`'s container.
    fn copy_from(&mut self, part: &MergePart, offset: u64, len: u64) -> Result<()>;
}

/// A local file, written back to disk as the copies go.
struct LocalContainer(BufWriter<File>, Writeback);

impl Write for LocalContainer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

impl Container for LocalContainer {
    fn copy_from(&mut self, part: &MergePart, offset: u64, len: u64) -> Result<()> {
        // In pieces, so the disk writes one while the next is copied.
        let mut done = 0;
        while done < len {
            let (at, n) = (offset + done, (len - done).min(Writeback::EVERY));
            match &part.bytes {
                PartBytes::File(file) => copy_file(part, file, at, n, &mut self.0)?,
                PartBytes::Ranges(_) => part.copy_through(at, n, &mut self.0)?,
            }
            self.1.wrote(self.0.get_ref(), n);
            done += n;
        }
        Ok(())
    }
}

/// The largest read a copy through memory makes: the fixed buffer of a
/// bucket merge.
pub(crate) const COPY_BUFFER: u64 = 8 << 20;

/// Reads `len` bytes at `offset` into `buf`, whole or an error.
pub(crate) type ReadAt = Box<dyn Fn(u64, &mut [u8]) -> Result<()>>;

/// Where a part's container bytes are read.
pub(crate) enum PartBytes {
    /// A local file, which the OS copies file to file.
    File(File),
    /// Anything else, by range (a part in a bucket: feature `cloud`).
    #[cfg_attr(not(feature = "cloud"), allow(dead_code))]
    Ranges(ReadAt),
}

/// One part: its collection as the reader sees it (mask applied), and its
/// container's bytes.
pub(crate) struct MergePart {
    /// The part as named on the command line, in errors.
    pub(crate) name: String,
    /// Its place in the merge's list of parts (a bucket merge's copies
    /// find their part's source by it: feature `cloud`).
    #[cfg_attr(not(feature = "cloud"), allow(dead_code))]
    pub(crate) index: usize,
    atlas: Atlas,
    bytes: PartBytes,
    path: Option<PathBuf>,
}

impl MergePart {
    fn open(path: &Path) -> Result<MergePart> {
        let named = |e: Error| in_part(&path.display().to_string(), e);
        let atlas = at_once(Atlas::open_path(path))
            .map_err(named)?
            .map_err(named)?;
        let data = path.join(DATA_FILE);
        let file = File::open(&data).map_err(|e| named(io_at(e, &data)))?;
        Ok(MergePart {
            name: path.display().to_string(),
            index: 0,
            atlas,
            bytes: PartBytes::File(file),
            path: Some(path.to_path_buf()),
        })
    }

    /// A local directory, or a collection already opened elsewhere whose
    /// container `read_at` reads. `index` is the part's place in the merge.
    #[cfg_attr(not(feature = "cloud"), allow(dead_code))]
    pub(crate) fn new(name: String, index: usize, atlas: Atlas, bytes: PartBytes) -> MergePart {
        MergePart {
            name,
            index,
            atlas,
            bytes,
            path: None,
        }
    }

    /// A local directory (the CLI's `atlas merge`: feature `cli`).
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    pub(crate) fn local(path: &Path, index: usize) -> Result<MergePart> {
        Ok(MergePart {
            index,
            ..MergePart::open(path)?
        })
    }

    fn named(&self, e: Error) -> Error {
        in_part(&self.name, e)
    }

    pub(crate) fn codec_name(&self) -> &'static str {
        self.atlas.codec().name()
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
        let named = |e: Error| self.named(e);
        // The collection footer's validation put the segment inside the
        // container, so these lengths are bounded by the container itself.
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

    pub(crate) fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        match &self.bytes {
            PartBytes::File(file) => {
                let mut file = file;
                file.seek(SeekFrom::Start(offset))?;
                file.read_exact(buf)?;
                Ok(())
            }
            PartBytes::Ranges(read_at) => read_at(offset, buf),
        }
    }

    /// Copies `len` bytes at `offset` to `out` through one buffer of at
    /// most [`COPY_BUFFER`] bytes.
    pub(crate) fn copy_through(&self, offset: u64, len: u64, out: &mut impl Write) -> Result<()> {
        let mut buf = vec![0u8; len.min(COPY_BUFFER) as usize];
        let mut done = 0;
        while done < len {
            let n = (len - done).min(COPY_BUFFER) as usize;
            self.read_at(offset + done, &mut buf[..n])
                .map_err(|e| self.named(e))?;
            out.write_all(&buf[..n])?;
            done += n as u64;
        }
        Ok(())
    }
}

/// Copies `len` bytes at `offset` of `file` to `out`.
fn copy_file(
    part: &MergePart,
    file: &File,
    offset: u64,
    len: u64,
    out: &mut BufWriter<File>,
) -> Result<()> {
    let mut file = file;
    file.seek(SeekFrom::Start(offset))?;
    // File to file, std's copy flushes `out` and lets the kernel move
    // the bytes (copy_file_range on Linux) instead of a user buffer.
    let copied = std::io::copy(&mut file.take(len), out)?;
    if copied != len {
        return Err(part.named(Error::corrupt_collection(format!(
            "{len} bytes at {offset} were to be copied, the file held {copied}"
        ))));
    }
    Ok(())
}
/// Parts of one codec; a merge of none is refused.
fn check_parts(parts: &[MergePart]) -> Result<()> {
    let Some(first) = parts.first() else {
        return Err(Error::InvalidArgument(
            "a merge needs at least one part".into(),
        ));
    };
    for part in parts {
        if part.atlas.codec() != first.atlas.codec() {
            return Err(Error::InvalidArgument(format!(
                "part {} is compressed with {}, part {} with {}: merge parts written with one codec",
                first.name,
                first.codec_name(),
                part.name,
                part.codec_name()
            )));
        }
    }
    Ok(())
}

/// A local destination that is not one of the local parts.
pub(crate) fn check_destination(parts: &[MergePart], dest: &Path) -> Result<()> {
    if let Ok(dest) = dest.canonicalize() {
        for path in parts.iter().filter_map(|p| p.path.as_ref()) {
            if path.canonicalize().is_ok_and(|p| p == dest) {
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
    fn new(parts: &[MergePart]) -> Result<Plan> {
        check_parts(parts)?;
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
                        parts[first].name, part.name
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
fn declaring<'a>(part: &'a MergePart, variable: &str) -> HashMap<&'a str, u32> {
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

/// Writes the merged container to `out`; the caller makes it visible. A
/// local merge goes through [`merge_parts`]; a bucket merge (feature
/// `cloud`) calls this with its own `Container`.
#[cfg_attr(not(feature = "cloud"), allow(dead_code))]
pub(crate) fn write_container(
    parts: &[MergePart],
    out: &mut impl Container,
    mut progress: impl FnMut(usize, usize),
) -> Result<MergeSummary> {
    let plan = Plan::new(parts)?;
    write(parts, plan, out, &mut progress)
}

fn write(
    parts: &[MergePart],
    plan: Plan,
    out: &mut impl Container,
    progress: &mut impl FnMut(usize, usize),
) -> Result<MergeSummary> {
    let mut out = Counted { inner: out, len: 0 };
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
    out.flush()?;
    summary.container_bytes = out.len;
    Ok(summary)
}

/// A container that counts what went into it.
struct Counted<'a, C> {
    inner: &'a mut C,
    len: u64,
}

impl<C: Container> Write for Counted<'_, C> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.len += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<C: Container> Container for Counted<'_, C> {
    fn copy_from(&mut self, part: &MergePart, offset: u64, len: u64) -> Result<()> {
        self.inner.copy_from(part, offset, len)?;
        self.len += len;
        Ok(())
    }
}

/// Writes one variable's merged segment to `out`; `None` when no live
/// dataset declares it (only hidden datasets did).
fn merge_variable(
    parts: &[MergePart],
    variable: &str,
    out: &mut impl Container,
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
            out.copy_from(part, at, len)?;
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
                    .map_err(|e| part.named(e))?;
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

fn missing(part: &MergePart, dataset: &str, variable: &str) -> Error {
    part.named(Error::corrupt_collection(format!(
        "dataset '{dataset}' declares '{variable}', but its segment does not hold it"
    )))
}

/// `e` with the part's name in front of its message, its code kept.
fn in_part(name: &str, e: Error) -> Error {
    let message = format!("part {name}: {e}");
    Error::from_code(e.code(), message, e.http_status()).unwrap_or(e)
}
