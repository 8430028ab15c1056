//! One variable under construction: the arrays every dataset stores under
//! its own name, and the blocks that hold their chunks. Finishing it gives
//! one array-format v6 segment.

use std::borrow::Cow;
use std::io::Write;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::error::{Error, Result};
use crate::format::dtype::DType;
use crate::format::segment::{ArrayMeta, ChunkEntry, SegmentFooter, SEGMENT_VERSION};
use crate::format::value::{Attr, FillValue};
use crate::nd::{c_order, for_each_run};
use crate::write::blocks::{BlockPacker, Placement};
use crate::write::chunk::ChunkBuf;
use crate::write::element::Cells;
use crate::write::install::write_segment_footer;
use crate::write::pool::Pool;
use crate::write::pools::Pools;
use crate::write::stats::{self, Partial};
use crate::write::WriterConfig;

struct Written {
    at: Placement,
    partial: Partial,
}

struct PendingArray {
    /// The dataset's `add_dataset` call number: the segment lists arrays in
    /// dataset order, whichever thread defined them first.
    order: u64,
    dtype: DType,
    shape: Vec<u32>,
    dimension_names: Vec<String>,
    chunk_shape: Vec<u32>,
    fill: Option<FillValue>,
    /// A chunk written twice keeps its last bytes (the first stay in their
    /// block, unused).
    chunks: Chunks,
    attributes: IndexMap<String, Attr>,
}

/// Written chunks sorted by coordinate, as the chunk table must be. A sorted
/// list, not a `BTreeMap`: most arrays of a large collection have one chunk,
/// and a B-tree's first leaf costs ~1 KB (at a million datasets, over a
/// gigabyte). Chunks nearly always arrive in C order, so an insert is a push.
#[derive(Default)]
struct Chunks(Vec<(Vec<u32>, Written)>);

impl Chunks {
    fn get(&self, coord: &[u32]) -> Option<&Written> {
        self.find(coord).ok().map(|i| &self.0[i].1)
    }

    fn insert(&mut self, coord: Vec<u32>, written: Written) {
        match self.find(&coord) {
            Ok(i) => self.0[i].1 = written,
            Err(i) => {
                if self.0.is_empty() {
                    self.0.reserve_exact(1);
                }
                self.0.insert(i, (coord, written));
            }
        }
    }

    fn values(&self) -> impl Iterator<Item = &Written> {
        self.0.iter().map(|(_, w)| w)
    }

    fn find(&self, coord: &[u32]) -> Result<usize, usize> {
        match self.0.last() {
            None => Err(0),
            Some((last, _)) if last.as_slice() < coord => Err(self.0.len()),
            _ => self.0.binary_search_by(|(c, _)| c.as_slice().cmp(coord)),
        }
    }
}

impl PendingArray {
    /// The chunk at `coord` clipped to the array: array-format stores edge
    /// chunks at their clipped extent, not padded.
    fn chunk_box(&self, coord: &[u32]) -> Vec<Range<u64>> {
        coord
            .iter()
            .zip(self.chunk_shape.iter().zip(&self.shape))
            .map(|(&c, (&cs, &s))| {
                let start = c as u64 * cs as u64;
                start..(start + cs as u64).min(s as u64)
            })
            .collect()
    }
}

pub(crate) struct Variable {
    blocks: BlockPacker,
    /// Definition order is segment order.
    arrays: IndexMap<String, PendingArray>,
}

impl Variable {
    pub(crate) fn new(config: &WriterConfig, scratch: PathBuf, pool: Arc<Pool>) -> Self {
        Self {
            blocks: BlockPacker::new(config.codec, config.block_target_size, scratch, pool),
            arrays: IndexMap::new(),
        }
    }

    /// Declares dataset `name`'s array. A missing chunk shape stores the
    /// array as one chunk; a zero chunk extent is allowed on an empty axis
    /// only, and stored as 1.
    #[allow(clippy::too_many_arguments)] // one per field of the array's metadata
    pub(crate) fn define(
        &mut self,
        name: &str,
        order: u64,
        dtype: DType,
        dimension_names: Vec<String>,
        shape: &[u64],
        chunk_shape: Option<&[u64]>,
        fill: Option<FillValue>,
    ) -> Result<()> {
        if self.arrays.contains_key(name) {
            return Err(Error::InvalidArgument(format!(
                "'{name}' is already defined in this variable"
            )));
        }
        let rank = shape.len();
        let to_u32 = |v: u64, what: &str| {
            u32::try_from(v).map_err(|_| {
                Error::InvalidArgument(format!("{what} {v} exceeds the format's 32-bit limit"))
            })
        };
        let shape: Vec<u32> = shape
            .iter()
            .map(|&s| to_u32(s, "axis length"))
            .collect::<Result<_>>()?;
        if shape
            .iter()
            .try_fold(1u64, |a, &s| a.checked_mul(s as u64))
            .is_none()
        {
            return Err(Error::TooLarge(format!(
                "an array of shape {shape:?} has more elements than a 64-bit count holds"
            )));
        }
        let chunk: Vec<u64> = chunk_shape.map_or_else(
            || shape.iter().map(|&s| s as u64).collect(),
            <[u64]>::to_vec,
        );
        if chunk.len() != rank {
            return Err(Error::InvalidArgument(format!(
                "chunk shape {chunk:?} has {} axes, but the shape {shape:?} has {rank}",
                chunk.len()
            )));
        }
        let mut chunk_shape = Vec::with_capacity(rank);
        for (axis, (&c, &s)) in chunk.iter().zip(&shape).enumerate() {
            if c == 0 && s != 0 {
                return Err(Error::InvalidArgument(format!(
                    "chunk extent 0 on axis {axis}, whose length is {s}"
                )));
            }
            chunk_shape.push(to_u32(c, "chunk extent")?.max(1));
        }
        let dimension_names = if dimension_names.len() == rank {
            dimension_names
        } else {
            (0..rank).map(|i| format!("dim{i}")).collect()
        };
        let pending = PendingArray {
            order,
            dtype,
            shape,
            dimension_names,
            chunk_shape,
            fill,
            chunks: Chunks::default(),
            attributes: IndexMap::new(),
        };
        self.arrays.insert(name.to_string(), pending);
        Ok(())
    }

    fn array(&self, name: &str) -> Result<&PendingArray> {
        self.arrays
            .get(name)
            .ok_or_else(|| Error::InvalidArgument(format!("'{name}' is not defined")))
    }

    /// Moves dataset `name`'s array, chunks and statistics, from this
    /// private variable (a staged dataset's) into `shared`, in the order the
    /// chunks arrived, so the shared blocks come out as if the dataset had
    /// written there directly. Chunks written over are left behind. Each
    /// block here is read once.
    pub(crate) fn drain_into(
        mut self,
        name: &str,
        order: u64,
        shared: &mut Variable,
    ) -> Result<()> {
        let Some(mut array) = self.arrays.shift_remove(name) else {
            return Err(Error::InvalidArgument(format!("'{name}' is not defined")));
        };
        if shared.arrays.contains_key(name) {
            return Err(Error::InvalidArgument(format!(
                "'{name}' is already defined in this variable"
            )));
        }
        let mut staged = std::mem::take(&mut array.chunks.0);
        staged.sort_by_key(|(_, w)| (w.at.block_id.0, w.at.offset));
        array.order = order;
        shared.arrays.insert(name.to_string(), array);
        let mut current: Option<(u32, Vec<u8>)> = None;
        for (coord, written) in staged {
            let id = written.at.block_id.0;
            if current.as_ref().is_none_or(|(held, _)| *held != id) {
                current = Some((id, self.blocks.block(id)?.into_owned()));
            }
            let (_, block) = current.as_ref().expect("loaded above");
            let (from, to) = (
                written.at.offset as usize,
                (written.at.offset + written.at.size) as usize,
            );
            let at = shared.blocks.push(Cow::Borrowed(&block[from..to]))?;
            let array = shared.arrays.get_mut(name).expect("inserted above");
            array.chunks.insert(
                coord,
                Written {
                    at,
                    partial: written.partial,
                },
            );
        }
        self.blocks.discard();
        Ok(())
    }

    /// Removes what this private variable spilled to disk.
    pub(crate) fn discard(self) {
        self.blocks.discard();
    }

    /// Drops dataset `name`'s array, keeping the others' order.
    pub(crate) fn forget(&mut self, name: &str) {
        self.arrays.shift_remove(name);
    }

    pub(crate) fn set_attribute(&mut self, name: &str, key: &str, value: Attr) -> Result<()> {
        let array = self
            .arrays
            .get_mut(name)
            .ok_or_else(|| Error::InvalidArgument(format!("'{name}' is not defined")))?;
        array.attributes.insert(key.to_string(), value);
        Ok(())
    }

    /// Writes a box of `shape` elements at `start`. Chunks it covers fully
    /// are encoded from `cells`; chunks it covers in part are read back
    /// (or made from the fill), patched and stored again.
    pub(crate) fn write(
        &mut self,
        name: &str,
        start: &[u64],
        shape: &[u64],
        cells: Cells<'_>,
    ) -> Result<()> {
        let array = self.array(name)?;
        let rank = array.shape.len();
        if start.len() != rank || shape.len() != rank {
            return Err(Error::OutOfBounds(format!(
                "a write at {start:?} of shape {shape:?} into an array of rank {rank}"
            )));
        }
        for axis in 0..rank {
            let end = start[axis].checked_add(shape[axis]);
            if end.is_none_or(|end| end > array.shape[axis] as u64) {
                return Err(Error::OutOfBounds(format!(
                    "a write at {start:?} of shape {shape:?} reaches past axis {axis} of length {}",
                    array.shape[axis]
                )));
            }
        }
        let width = array.dtype.element_size().unwrap_or(0);
        let count: u64 = shape.iter().product();
        if cells.len(width) as u64 != count {
            return Err(Error::InvalidArgument(format!(
                "a write of shape {shape:?} needs {count} elements, {} were given",
                cells.len(width)
            )));
        }
        if count == 0 {
            return Ok(());
        }
        let grid: Vec<Range<u32>> = (0..rank)
            .map(|a| {
                let cs = array.chunk_shape[a] as u64;
                (start[a] / cs) as u32..(start[a] + shape[a]).div_ceil(cs) as u32
            })
            .collect();
        let input: Vec<usize> = shape.iter().map(|&s| s as usize).collect();
        // The box is exactly one chunk: its bytes are the chunk's bytes, and
        // owned ones move into the block without a copy (an ingest writes
        // chunk by chunk this way).
        let single = grid.iter().all(|r| r.end - r.start == 1);
        if let (true, Cells::Fixed(bytes)) = (single, &cells) {
            let coord: Vec<u32> = grid.iter().map(|r| r.start).collect();
            let chunk = array.chunk_box(&coord);
            if (0..rank).all(|a| chunk[a] == (start[a]..start[a] + shape[a])) {
                let Cells::Fixed(bytes) = cells else {
                    unreachable!("matched above")
                };
                return self.store(name, coord, bytes);
            }
            let _ = bytes;
        }
        for coord in coords(&grid) {
            // The field alone, so the packer can be borrowed beside it.
            let array = self.arrays.get(name).expect("checked above");
            let chunk = array.chunk_box(&coord);
            let extent: Vec<u64> = chunk.iter().map(|r| r.end - r.start).collect();
            let overlap: Vec<Range<u64>> = (0..rank)
                .map(|a| start[a].max(chunk[a].start)..(start[a] + shape[a]).min(chunk[a].end))
                .collect();
            let box_extent: Vec<usize> =
                overlap.iter().map(|r| (r.end - r.start) as usize).collect();
            let from: Vec<usize> = (0..rank)
                .map(|a| (overlap[a].start - start[a]) as usize)
                .collect();
            let len = extent.iter().product::<u64>() as usize;
            let buf = if overlap == chunk {
                let mut buf = ChunkBuf::with_capacity(&array.dtype, len);
                let own: Vec<usize> = extent.iter().map(|&e| e as usize).collect();
                for_each_run(
                    &box_extent,
                    (&input, &from),
                    (&own, &vec![0; rank]),
                    |src, _, run| buf.push_run(&cells, src, run),
                );
                buf
            } else {
                let mut buf = match array.chunks.get(&coord) {
                    Some(written) => {
                        ChunkBuf::decode(&array.dtype, &self.blocks.fetch(&written.at)?, len)?
                    }
                    None => ChunkBuf::filled(&array.dtype, array.fill.as_ref(), len),
                };
                let own: Vec<usize> = extent.iter().map(|&e| e as usize).collect();
                let at: Vec<usize> = (0..rank)
                    .map(|a| (overlap[a].start - chunk[a].start) as usize)
                    .collect();
                for_each_run(
                    &box_extent,
                    (&input, &from),
                    (&own, &at),
                    |src, dst, run| buf.put_run(dst, &cells, src, run),
                );
                buf
            };
            self.store(name, coord, Cow::Owned(buf.encode()))?;
        }
        Ok(())
    }

    /// Stores one chunk's encoded bytes, as they are; its statistics come
    /// from the bytes.
    pub(crate) fn store(
        &mut self,
        name: &str,
        coord: Vec<u32>,
        bytes: Cow<'_, [u8]>,
    ) -> Result<()> {
        let array = self.array(name)?;
        let partial = stats::chunk_partial(&bytes, &array.dtype, array.fill.as_ref());
        let at = self.blocks.push(bytes)?;
        let array = self.arrays.get_mut(name).expect("checked above");
        array.chunks.insert(coord, Written { at, partial });
        Ok(())
    }

    /// Appends the finished segment to `out` and returns its length.
    pub(crate) fn finish(self, out: &mut impl Write) -> Result<u64> {
        let Variable { blocks, arrays } = self;
        let mut arrays: Vec<(String, PendingArray)> = arrays.into_iter().collect();
        arrays.sort_by_key(|(_, a)| a.order);
        let (scratch, data_len, blocks) = blocks.finish()?;
        let mut pools = Pools::default();
        let mut metas = Vec::with_capacity(arrays.len());
        for (name, array) in arrays {
            let elements: u64 = array.shape.iter().map(|&s| s as u64).product();
            let stats = stats::finish(&name, elements, array.chunks.values().map(|w| &w.partial));
            let mut keys: Vec<(String, Attr)> = array.attributes.into_iter().collect();
            keys.sort_by(|a, b| a.0.cmp(&b.0));
            let attributes = keys
                .iter()
                .map(|(k, v)| (pools.string(k), pools.value(v)))
                .collect();
            metas.push(ArrayMeta {
                name,
                dtype: array.dtype,
                shape: array.shape,
                dimension_names: array.dimension_names,
                chunk_shape: array.chunk_shape,
                chunks: array
                    .chunks
                    .0
                    .into_iter()
                    .map(|(coord, w)| ChunkEntry {
                        coord,
                        address: w.at,
                    })
                    .collect(),
                fill_value: array.fill,
                attributes,
                stats: Some(stats),
            });
        }
        let (strings, values) = pools.finish();
        let footer = SegmentFooter {
            version: SEGMENT_VERSION,
            blocks,
            strings,
            values,
            arrays: metas,
        };
        if data_len > 0 {
            let mut data = std::fs::File::open(&scratch)?;
            let copied = std::io::copy(&mut data, out)?;
            if copied != data_len {
                return Err(Error::Io(format!(
                    "scratch {} holds {copied} bytes, {data_len} expected",
                    scratch.display()
                )));
            }
            drop(data);
            // Reclaim the scratch copy now, not at the end.
            let _ = std::fs::remove_file(&scratch);
        }
        Ok(data_len + write_segment_footer(out, &footer)?)
    }

    /// Bytes this variable holds in memory (the open block).
    pub(crate) fn open_bytes(&self) -> usize {
        self.blocks.open_bytes()
    }
}

/// Every coordinate in a box of the chunk grid, in C order.
fn coords(grid: &[Range<u32>]) -> impl Iterator<Item = Vec<u32>> + '_ {
    let counts: Vec<u64> = grid.iter().map(|r| (r.end - r.start) as u64).collect();
    c_order(&counts).map(move |offset| {
        offset
            .iter()
            .zip(grid)
            .map(|(&o, r)| r.start + o as u32)
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::footer::Codec;
    use crate::format::segment::{decode_segment_footer, decode_segment_trailer};
    use crate::write::element::WriteElement;

    fn variable(name: &str) -> Variable {
        let path =
            std::env::temp_dir().join(format!("atlas-wasm-var-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        Variable::new(
            &WriterConfig {
                codec: Codec::Uncompressed,
                block_target_size: 16,
            },
            path,
            Pool::new(0),
        )
    }

    fn footer(v: Variable) -> (Vec<u8>, SegmentFooter) {
        let mut out = Vec::new();
        let len = v.finish(&mut out).unwrap();
        assert_eq!(len, out.len() as u64);
        let range = decode_segment_trailer(&out, len).unwrap();
        let footer = decode_segment_footer(&out[range.start as usize..range.end as usize]).unwrap();
        footer.validate(range.start).unwrap();
        (out, footer)
    }

    #[test]
    fn chunks_stay_sorted_whatever_order_they_come_in() {
        let written = |size| Written {
            at: crate::format::segment::ChunkAddress {
                block_id: crate::format::segment::BlockId(0),
                offset: 0,
                size,
            },
            partial: stats::chunk_partial(&[], &DType::UInt8, None),
        };
        let mut chunks = Chunks::default();
        for (coord, size) in [
            ([1, 0], 1),
            ([0, 2], 2),
            ([1, 1], 3),
            ([0, 0], 4),
            ([0, 2], 5),
        ] {
            chunks.insert(coord.to_vec(), written(size));
        }
        let order: Vec<(Vec<u32>, u32)> = chunks
            .0
            .iter()
            .map(|(c, w)| (c.clone(), w.at.size))
            .collect();
        assert_eq!(
            order,
            vec![
                (vec![0, 0], 4),
                (vec![0, 2], 5),
                (vec![1, 0], 1),
                (vec![1, 1], 3)
            ]
        );
        assert_eq!(chunks.get(&[1, 1]).map(|w| w.at.size), Some(3));
        assert!(chunks.get(&[2, 0]).is_none());
    }

    #[test]
    fn unaligned_writes_patch_partly_covered_chunks() {
        let mut v = variable("patch");
        v.define(
            "d",
            0,
            DType::Int32,
            vec![],
            &[5],
            Some(&[2]),
            Some(FillValue::Int(-1)),
        )
        .unwrap();
        v.write("d", &[1], &[3], i32::cells(&[10, 11, 12])).unwrap();
        v.write("d", &[0], &[1], i32::cells(&[9])).unwrap();
        let (raw, f) = footer(v);
        let a = &f.arrays[0];
        let chunk = |i: usize| {
            let at = &a.chunks[i].address;
            let block = &f.blocks[at.block_id.0 as usize];
            let start = (block.file_offset + at.offset as u64) as usize;
            raw[start..start + at.size as usize]
                .chunks(4)
                .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
                .collect::<Vec<_>>()
        };
        assert_eq!((chunk(0), chunk(1)), (vec![9, 10], vec![11, 12]));
        // Two chunks written, one (the clipped edge) never: one null.
        let stats = a.stats.as_ref().unwrap();
        assert_eq!((stats.row_count, stats.null_count), (5, 1));
        assert_eq!(a.chunks.len(), 2);
    }

    #[test]
    fn strings_patch_and_rank_zero_is_one_element() {
        let mut v = variable("strings");
        v.define(
            "d",
            0,
            DType::String,
            vec!["x".into(), "y".into()],
            &[2, 3],
            Some(&[2, 2]),
            None,
        )
        .unwrap();
        v.write(
            "d",
            &[1, 1],
            &[1, 2],
            String::cells(&["a".into(), "bc".into()]),
        )
        .unwrap();
        v.define("s", 0, DType::Float64, vec![], &[], None, None)
            .unwrap();
        v.write("s", &[], &[], f64::cells(&[2.5])).unwrap();
        let (_, f) = footer(v);
        assert_eq!(f.arrays[0].chunks.len(), 2);
        assert_eq!(f.arrays[1].chunk_shape, Vec::<u32>::new());
        assert_eq!(f.arrays[1].chunks[0].coord, Vec::<u32>::new());
        assert!(v_errors().is_ok());
    }

    fn v_errors() -> Result<()> {
        let mut v = variable("errors");
        let huge = v.define(
            "h",
            0,
            DType::Int8,
            vec![],
            &[1 << 31, 1 << 31, 1 << 31],
            None,
            None,
        );
        assert_eq!(huge.unwrap_err().code(), "TooLarge");
        v.define("d", 0, DType::Int8, vec![], &[4], Some(&[0]), None)
            .unwrap_err();
        v.define("d", 0, DType::Int8, vec![], &[0, 3], Some(&[0, 3]), None)?;
        v.write("d", &[0, 0], &[0, 3], i8::cells(&[]))?;
        v.write("d", &[0, 1], &[0, 3], i8::cells(&[])).unwrap_err();
        let (_, f) = footer(v);
        assert_eq!(f.arrays[0].chunk_shape, vec![1, 3]);
        Ok(())
    }
}
