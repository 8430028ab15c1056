//! A window of one array, planned: which written chunks it touches, which
//! blocks hold them and how far into each, and how their elements land in C
//! order in the answer once the blocks are in. No I/O: the unit tests at the
//! foot of this file drive it with blocks made in memory.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use crate::error::{Error, Result};
use crate::format::budget::over_budget;
use crate::format::chunk::{fill_element, split_offsets_exact};
use crate::format::dtype::DType;
use crate::format::segment::{ArrayMeta, ChunkAddress};
use crate::nd::for_each_run;
use crate::read::array::{ArrayData, NdArray};
use crate::read::cache::Block;
use crate::read::sink::StackSink;

/// The schema is recorded twice, in the collection footer and in the segment;
/// a read trusts neither alone.
pub(crate) fn check_declared_dtype(meta: &ArrayMeta, declared: &DType, array: &str) -> Result<()> {
    if meta.dtype != *declared {
        return Err(Error::corrupt_collection(format!(
            "the footer declares '{array}' of '{}' as {declared}, its segment stores {}",
            meta.name, meta.dtype
        )));
    }
    Ok(())
}

/// Which written chunks a window touches; `assemble` turns their blocks into the answer.
pub(crate) struct Plan {
    window: Window,
    count: u64,
    chunks: Vec<(Vec<u32>, ChunkAddress)>,
}

impl Plan {
    /// Refuses answers over `limit` bytes: shapes come from the file, and a
    /// forged one must not claim all of memory.
    pub(crate) fn new(meta: &ArrayMeta, start: &[u64], shape: &[u64], limit: u64) -> Result<Plan> {
        if element_width(meta).is_none() && !matches!(meta.dtype, DType::String | DType::Binary) {
            return Err(unreadable(meta));
        }
        let window = Window::new(meta, start, shape)?;
        let count = window.element_count()?;
        // Variable-length items cost at least a slice header each while assembling.
        let per_element = meta.dtype.element_size().unwrap_or(24) as u64;
        let bytes = count.saturating_mul(per_element);
        if bytes > limit {
            // Formatted only here: a stacked read plans thousands of windows.
            let what = format!(
                "a window of shape {:?} of '{}' ({count} elements of {}; read smaller windows)",
                window.shape, meta.name, meta.dtype
            );
            return Err(over_budget(&what, bytes, limit));
        }
        let chunks = window
            .chunks(meta)
            .into_iter()
            .map(|(c, a)| (c, a.clone()))
            .collect();
        Ok(Plan {
            window,
            count,
            chunks,
        })
    }

    /// The window's extent on each axis.
    pub(crate) fn shape(&self) -> &[u64] {
        &self.window.shape
    }

    /// The blocks holding the touched chunks, each once, with how many bytes
    /// of each the chunks reach into: decoding a block stops there.
    pub(crate) fn blocks_wanted(&self) -> Vec<(u32, u64)> {
        let mut wanted: BTreeMap<u32, u64> = BTreeMap::new();
        for (_, a) in &self.chunks {
            let end = wanted.entry(a.block_id.0).or_default();
            *end = (*end).max(u64::from(a.offset) + u64::from(a.size));
        }
        wanted.into_iter().collect()
    }

    /// Builds the answer from decompressed blocks (which must include `block_ids`).
    pub(crate) fn assemble(
        &self,
        meta: &ArrayMeta,
        blocks: &HashMap<u32, Block>,
    ) -> Result<NdArray> {
        let (window, count, chunks) = (&self.window, self.count, &self.chunks);
        let chunk_bytes = |address: &ChunkAddress| {
            let block = &blocks[&address.block_id.0];
            let from = address.offset as usize;
            &block[from..from + address.size as usize]
        };
        let data = match element_width(meta) {
            Some(_) => ArrayData::from_le_bytes(&meta.dtype, &self.assemble_le(meta, blocks)?)?,
            None if matches!(meta.dtype, DType::String | DType::Binary) => {
                let count = usize::try_from(count).map_err(|_| too_large(window))?;
                let mut out: Vec<&[u8]> = Vec::new();
                out.try_reserve_exact(count)
                    .map_err(|_| too_large(window))?;
                // array-format reads an unwritten string or binary cell as empty, whatever the fill.
                out.resize(count, &[]);
                for (coord, address) in chunks {
                    let bytes = chunk_bytes(address);
                    let (stored, items) = window.stored_items(meta, coord, bytes)?;
                    window.for_each_run(meta, coord, &stored, |src, dst, run| {
                        out[dst..dst + run].copy_from_slice(&items[src..src + run]);
                    });
                }
                if meta.dtype == DType::String {
                    ArrayData::String(
                        out.into_iter()
                            .map(|b| String::from_utf8_lossy(b).into_owned())
                            .collect(),
                    )
                } else {
                    ArrayData::Binary(out.into_iter().map(<[u8]>::to_vec).collect())
                }
            }
            _ => return Err(unreadable(meta)),
        };
        Ok(NdArray {
            dtype: meta.dtype.clone(),
            shape: window.shape.clone(),
            data,
        })
    }
}

impl Plan {
    /// Hands the answer to `sink` as one part: fixed-width elements as
    /// their little-endian bytes ([`assemble_le`](Self::assemble_le)).
    pub(crate) fn assemble_into(
        &self,
        meta: &ArrayMeta,
        blocks: &HashMap<u32, Block>,
        sink: &mut impl StackSink,
    ) -> Result<()> {
        if element_width(meta).is_none() {
            return sink.append(self.assemble(meta, blocks)?.data);
        }
        sink.append_le(&meta.dtype, &self.assemble_le(meta, blocks)?)
    }

    /// A fixed-width answer as its little-endian bytes: borrowed from the
    /// block when one chunk holds the window, else built by whole runs (one
    /// `memory.copy` each in wasm), the fill written only when some cell has
    /// no chunk.
    pub(crate) fn assemble_le<'b>(
        &self,
        meta: &ArrayMeta,
        blocks: &'b HashMap<u32, Block>,
    ) -> Result<Cow<'b, [u8]>> {
        let window = &self.window;
        let size = element_width(meta)
            .ok_or_else(|| Error::InvalidArgument(format!("{} is not fixed-width", meta.dtype)))?;
        let total = self
            .count
            .checked_mul(size as u64)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| too_large(window))?;
        if let Some(bytes) = self.whole_chunk(meta, blocks)? {
            return Ok(Cow::Borrowed(bytes));
        }
        let mut out: Vec<u8> = Vec::new();
        out.try_reserve_exact(total)
            .map_err(|_| too_large(window))?;
        out.resize(total, 0);
        if self.copy_runs(meta, blocks, size, &mut out)? < total {
            let fill = fill_element(&meta.dtype, meta.fill_value.as_ref()).unwrap_or_default();
            if fill.iter().any(|&b| b != 0) {
                // Chunks never overlap, so fewer bytes than the answer means
                // cells no chunk holds: fill everything, then the chunks again.
                fill_with(&mut out, &fill);
                self.copy_runs(meta, blocks, size, &mut out)?;
            }
        }
        Ok(Cow::Owned(out))
    }

    /// The answer's bytes as they lie in their block, when one chunk holds
    /// exactly the window (a whole array stored as one chunk, as atlas-python
    /// writes small arrays): nothing to assemble, a caller copies them once
    /// to where they go. `None` for anything else, fixed-width or not.
    pub(crate) fn whole_chunk<'b>(
        &self,
        meta: &ArrayMeta,
        blocks: &'b HashMap<u32, Block>,
    ) -> Result<Option<&'b [u8]>> {
        let ([(coord, address)], Some(size)) = (self.chunks.as_slice(), element_width(meta)) else {
            return Ok(None);
        };
        if coord.iter().any(|&c| c != 0) || self.window.start.iter().any(|&s| s != 0) {
            return Ok(None);
        }
        let from = address.offset as usize;
        let bytes = &blocks[&address.block_id.0][from..from + address.size as usize];
        let stored = self
            .window
            .stored_dims(meta, coord, bytes.len() as u64, |n| {
                n.checked_mul(size as u64)
            })?;
        // Same origin, same shape: the chunk's C order is the answer's.
        Ok((stored == self.window.shape).then_some(bytes))
    }

    /// Copies every chunk's runs of `size`-byte elements into `out`; answers
    /// the bytes written.
    fn copy_runs(
        &self,
        meta: &ArrayMeta,
        blocks: &HashMap<u32, Block>,
        size: usize,
        out: &mut [u8],
    ) -> Result<usize> {
        let mut written = 0;
        for (coord, address) in &self.chunks {
            let block = &blocks[&address.block_id.0];
            let from = address.offset as usize;
            let bytes = &block[from..from + address.size as usize];
            let stored = self
                .window
                .stored_dims(meta, coord, bytes.len() as u64, |n| {
                    n.checked_mul(size as u64)
                })?;
            self.window
                .for_each_run(meta, coord, &stored, |src, dst, run| {
                    let (src, dst, run) = (src * size, dst * size, run * size);
                    out[dst..dst + run].copy_from_slice(&bytes[src..src + run]);
                    written += run;
                });
        }
        Ok(written)
    }
}

/// What a read of an array of a dtype no answer can hold is.
fn unreadable(meta: &ArrayMeta) -> Error {
    Error::InvalidArgument(format!("reading {} arrays is not supported", meta.dtype))
}

/// Bytes per element when `meta`'s answer is fixed-width elements.
pub(crate) fn element_width(meta: &ArrayMeta) -> Option<usize> {
    match meta.dtype {
        DType::FixedSizeList { .. } => None,
        ref dtype => dtype.element_size(),
    }
}

/// Repeats `pattern` over `out` by doubling copies (a few large copies, not
/// one per element).
fn fill_with(out: &mut [u8], pattern: &[u8]) {
    let first = pattern.len().min(out.len());
    out[..first].copy_from_slice(&pattern[..first]);
    let mut done = first;
    while done > 0 && done < out.len() {
        let n = done.min(out.len() - done);
        out.copy_within(..n, done);
        done += n;
    }
}

struct Window {
    start: Vec<u64>,
    shape: Vec<u64>,
}

impl Window {
    fn new(meta: &ArrayMeta, start: &[u64], shape: &[u64]) -> Result<Window> {
        let full: Vec<u64> = meta.shape.iter().map(|&s| s as u64).collect();
        if start.is_empty() && shape.is_empty() {
            return Ok(Window {
                start: vec![0; full.len()],
                shape: full,
            });
        }
        if start.len() != full.len() || shape.len() != full.len() {
            return Err(Error::OutOfBounds(format!(
                "a window of start {start:?} and shape {shape:?} does not match an array of rank {} (shape {full:?})",
                full.len()
            )));
        }
        for axis in 0..full.len() {
            if start[axis]
                .checked_add(shape[axis])
                .is_none_or(|end| end > full[axis])
            {
                return Err(Error::OutOfBounds(format!(
                    "a window of start {start:?} and shape {shape:?} reaches past an array of shape {full:?} on axis {axis}"
                )));
            }
        }
        Ok(Window {
            start: start.to_vec(),
            shape: shape.to_vec(),
        })
    }

    fn element_count(&self) -> Result<u64> {
        self.shape
            .iter()
            .try_fold(1u64, |n, &s| n.checked_mul(s))
            .ok_or_else(|| too_large(self))
    }

    /// Written chunks that overlap the window, with their addresses.
    fn chunks<'m>(&self, meta: &'m ArrayMeta) -> Vec<(Vec<u32>, &'m ChunkAddress)> {
        if self.shape.contains(&0) {
            return Vec::new();
        }
        let ranges: Vec<(u32, u32)> = (0..self.shape.len())
            .map(|axis| {
                let c = meta.chunk_shape[axis] as u64;
                let first = self.start[axis] / c;
                let last = (self.start[axis] + self.shape[axis] - 1) / c;
                (first as u32, last as u32)
            })
            .collect();
        // Walk the chunk table rather than the grid when the grid is larger,
        // so a huge sparse array costs its written chunks, not its extent.
        let grid = ranges
            .iter()
            .try_fold(1u64, |n, &(a, b)| n.checked_mul((b - a) as u64 + 1))
            .unwrap_or(u64::MAX);
        let inside = |coord: &[u32]| {
            coord
                .iter()
                .zip(&ranges)
                .all(|(&c, &(a, b))| a <= c && c <= b)
        };
        // Compared as u64: `as usize` would truncate a 2^48-cell grid on wasm32.
        if grid > meta.chunks.len() as u64 {
            return meta
                .chunks
                .iter()
                .filter(|e| inside(&e.coord))
                .map(|e| (e.coord.clone(), &e.address))
                .collect();
        }
        let mut found = Vec::new();
        let mut coord: Vec<u32> = ranges.iter().map(|&(a, _)| a).collect();
        loop {
            if let Ok(i) = meta
                .chunks
                .binary_search_by(|e| e.coord.as_slice().cmp(&coord))
            {
                found.push((coord.clone(), &meta.chunks[i].address));
            }
            let mut axis = coord.len();
            loop {
                if axis == 0 {
                    return found;
                }
                axis -= 1;
                if coord[axis] < ranges[axis].1 {
                    coord[axis] += 1;
                    break;
                }
                coord[axis] = ranges[axis].0;
            }
        }
    }

    /// The dims a chunk's bytes are laid out in: clipped to the array at its
    /// edges (how array-format writes) or, leniently, the full chunk shape.
    fn stored_dims(
        &self,
        meta: &ArrayMeta,
        coord: &[u32],
        stored: u64,
        bytes_of: impl Fn(u64) -> Option<u64>,
    ) -> Result<Vec<u64>> {
        let clipped = clipped_dims(meta, coord);
        let padded: Vec<u64> = meta.chunk_shape.iter().map(|&c| c as u64).collect();
        for dims in [clipped, padded] {
            let count = dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
            if count.and_then(&bytes_of) == Some(stored) {
                return Ok(dims);
            }
        }
        Err(Error::corrupt_collection(format!(
            "chunk {coord:?} of '{}' holds {stored} bytes, which fits neither its clipped nor its full shape",
            meta.name
        )))
    }

    /// Splits a variable-length chunk into its items: `(N + 1)` u32 offsets, then the bytes.
    fn stored_items<'b>(
        &self,
        meta: &ArrayMeta,
        coord: &[u32],
        bytes: &'b [u8],
    ) -> Result<(Vec<u64>, Vec<&'b [u8]>)> {
        let clipped = clipped_dims(meta, coord);
        let padded: Vec<u64> = meta.chunk_shape.iter().map(|&c| c as u64).collect();
        for dims in [clipped, padded] {
            let count = dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
            if let Some(items) = count.and_then(|n| split_offsets_exact(bytes, n)) {
                return Ok((dims, items));
            }
        }
        Err(Error::corrupt_collection(format!(
            "chunk {coord:?} of '{}' has a broken offset table",
            meta.name
        )))
    }

    /// Calls `copy(src, dst, run)` for each contiguous run of elements that
    /// the chunk at `coord` (laid out in `stored` dims) gives the window.
    fn for_each_run(
        &self,
        meta: &ArrayMeta,
        coord: &[u32],
        stored: &[u64],
        copy: impl FnMut(usize, usize, usize),
    ) {
        let rank = self.shape.len();
        let origin: Vec<u64> = (0..rank)
            .map(|a| coord[a] as u64 * meta.chunk_shape[a] as u64)
            .collect();
        let lo: Vec<u64> = (0..rank).map(|a| origin[a].max(self.start[a])).collect();
        let hi: Vec<u64> = (0..rank)
            .map(|a| {
                (origin[a] + stored[a])
                    .min(self.start[a] + self.shape[a])
                    .min(meta.shape[a] as u64)
            })
            .collect();
        if (0..rank).any(|a| lo[a] >= hi[a]) {
            return;
        }
        let usizes =
            |f: &dyn Fn(usize) -> u64| (0..rank).map(|a| f(a) as usize).collect::<Vec<_>>();
        let extent = usizes(&|a| hi[a] - lo[a]);
        let (src_shape, src_origin) = (usizes(&|a| stored[a]), usizes(&|a| lo[a] - origin[a]));
        let (dst_shape, dst_origin) = (
            usizes(&|a| self.shape[a]),
            usizes(&|a| lo[a] - self.start[a]),
        );
        for_each_run(
            &extent,
            (&src_shape, &src_origin),
            (&dst_shape, &dst_origin),
            copy,
        );
    }
}

fn clipped_dims(meta: &ArrayMeta, coord: &[u32]) -> Vec<u64> {
    (0..coord.len())
        .map(|a| {
            let c = meta.chunk_shape[a] as u64;
            c.min((meta.shape[a] as u64).saturating_sub(coord[a] as u64 * c))
        })
        .collect()
}

fn too_large(window: &Window) -> Error {
    Error::TooLarge(format!(
        "a window of shape {:?} does not fit in memory",
        window.shape
    ))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::format::segment::{BlockId, ChunkEntry};
    use crate::format::value::FillValue;

    /// An int32 array of `shape` chunked by `chunk`, each cell `10 * row + col`
    /// (rank 2), every chunk stored clipped; chunks listed in `in_block_1` go
    /// to block 1, the rest to block 0, and `unwritten` ones are left out.
    fn grid(
        shape: [u32; 2],
        chunk: [u32; 2],
        in_block_1: &[[u32; 2]],
        unwritten: &[[u32; 2]],
    ) -> (ArrayMeta, HashMap<u32, Block>) {
        let mut blocks: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
        let mut chunks = Vec::new();
        for ci in 0..shape[0].div_ceil(chunk[0]) {
            for cj in 0..shape[1].div_ceil(chunk[1]) {
                if unwritten.contains(&[ci, cj]) {
                    continue;
                }
                let block = usize::from(in_block_1.contains(&[ci, cj]));
                let offset = blocks[block].len() as u32;
                for i in ci * chunk[0]..((ci + 1) * chunk[0]).min(shape[0]) {
                    for j in cj * chunk[1]..((cj + 1) * chunk[1]).min(shape[1]) {
                        let value = (10 * i + j) as i32;
                        blocks[block].extend_from_slice(&value.to_le_bytes());
                    }
                }
                chunks.push(ChunkEntry {
                    coord: vec![ci, cj],
                    address: ChunkAddress {
                        block_id: BlockId(block as u32),
                        offset,
                        size: blocks[block].len() as u32 - offset,
                    },
                });
            }
        }
        let meta = ArrayMeta {
            name: "ds".into(),
            dtype: DType::Int32,
            shape: shape.to_vec(),
            dimension_names: Vec::new(),
            chunk_shape: chunk.to_vec(),
            chunks,
            fill_value: Some(FillValue::Int(-7)),
            attributes: Vec::new(),
            stats: None,
        };
        let [b0, b1] = blocks;
        (meta, HashMap::from([(0, Arc::new(b0)), (1, Arc::new(b1))]))
    }

    fn int32s(answer: NdArray) -> Vec<i32> {
        match answer.data {
            ArrayData::Int32(v) => v,
            other => panic!("not int32: {other:?}"),
        }
    }

    #[test]
    fn a_window_reads_the_chunks_it_touches_clipped_at_the_edges() {
        let (meta, blocks) = grid([5, 3], [2, 2], &[[2, 0], [2, 1]], &[]);
        let plan = Plan::new(&meta, &[1, 1], &[4, 2], u64::MAX).unwrap();
        // Rows 1..5 touch chunk rows 0, 1 and 2; columns 1..3 both chunk columns.
        assert_eq!(plan.chunks.len(), 6);
        let answer = plan.assemble(&meta, &blocks).unwrap();
        assert_eq!(answer.shape, vec![4, 2]);
        assert_eq!(int32s(answer), [11, 12, 21, 22, 31, 32, 41, 42]);
    }

    #[test]
    fn a_block_is_wanted_as_far_as_the_touched_chunks_reach() {
        let (meta, _) = grid([5, 3], [2, 2], &[[2, 0], [2, 1]], &[]);
        // Row 0 only: chunks (0, 0) and (0, 1), the first 16 + 8 bytes of block 0.
        let plan = Plan::new(&meta, &[0, 0], &[1, 3], u64::MAX).unwrap();
        assert_eq!(plan.blocks_wanted(), [(0, 24)]);
        let plan = Plan::new(&meta, &[4, 0], &[1, 3], u64::MAX).unwrap();
        assert_eq!(plan.blocks_wanted(), [(1, 12)]);
    }

    #[test]
    fn unwritten_chunks_read_as_the_fill_and_cost_no_block() {
        let (meta, blocks) = grid([4, 4], [2, 2], &[], &[[1, 1]]);
        let plan = Plan::new(&meta, &[1, 1], &[2, 2], u64::MAX).unwrap();
        assert_eq!(
            int32s(plan.assemble(&meta, &blocks).unwrap()),
            [11, 12, 21, -7]
        );
        let plan = Plan::new(&meta, &[2, 2], &[2, 2], u64::MAX).unwrap();
        assert!(plan.blocks_wanted().is_empty());
        assert_eq!(
            int32s(plan.assemble(&meta, &HashMap::new()).unwrap()),
            [-7; 4]
        );
    }

    #[test]
    fn a_window_one_chunk_holds_is_taken_from_its_block_as_it_lies() {
        let (meta, blocks) = grid([2, 3], [2, 3], &[], &[]);
        let plan = Plan::new(&meta, &[], &[], u64::MAX).unwrap();
        assert!(matches!(
            plan.assemble_le(&meta, &blocks).unwrap(),
            Cow::Borrowed(_)
        ));
        // A window inside that chunk is assembled.
        let plan = Plan::new(&meta, &[0, 1], &[2, 2], u64::MAX).unwrap();
        assert!(matches!(
            plan.assemble_le(&meta, &blocks).unwrap(),
            Cow::Owned(_)
        ));
        assert_eq!(
            int32s(plan.assemble(&meta, &blocks).unwrap()),
            [1, 2, 11, 12]
        );
    }

    #[test]
    fn a_padded_edge_chunk_reads_as_well_as_a_clipped_one() {
        let (mut meta, _) = grid([3, 1], [2, 1], &[], &[]);
        // Chunk (1, 0) padded to the full chunk shape: row 2, then a pad row.
        let bytes: Vec<u8> = [0i32, 10, 20, 99]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        meta.chunks[1].address = ChunkAddress {
            block_id: BlockId(0),
            offset: 8,
            size: 8,
        };
        let blocks = HashMap::from([(0, Arc::new(bytes))]);
        let plan = Plan::new(&meta, &[], &[], u64::MAX).unwrap();
        assert_eq!(int32s(plan.assemble(&meta, &blocks).unwrap()), [0, 10, 20]);
    }

    #[test]
    fn a_chunk_of_neither_shape_is_corruption() {
        let (mut meta, blocks) = grid([4, 4], [2, 2], &[], &[]);
        meta.chunks[0].address.size = 12;
        let plan = Plan::new(&meta, &[0, 0], &[1, 1], u64::MAX).unwrap();
        let error = plan.assemble(&meta, &blocks).unwrap_err();
        assert_eq!(error.code(), "CorruptCollection");
    }

    #[test]
    fn string_chunks_split_by_their_offsets_and_unwritten_cells_read_empty() {
        // ["a", "bc", "", "def"] in one chunk of a [6] array chunked [4].
        let mut chunk: Vec<u8> = [0u32, 1, 3, 3, 6]
            .iter()
            .flat_map(|o| o.to_le_bytes())
            .collect();
        chunk.extend_from_slice(b"abcdef");
        let meta = ArrayMeta {
            name: "ds".into(),
            dtype: DType::String,
            shape: vec![6],
            dimension_names: Vec::new(),
            chunk_shape: vec![4],
            chunks: vec![ChunkEntry {
                coord: vec![0],
                address: ChunkAddress {
                    block_id: BlockId(0),
                    offset: 0,
                    size: chunk.len() as u32,
                },
            }],
            fill_value: Some(FillValue::String("x".into())),
            attributes: Vec::new(),
            stats: None,
        };
        let blocks = HashMap::from([(0, Arc::new(chunk))]);
        let plan = Plan::new(&meta, &[1], &[5], u64::MAX).unwrap();
        let answer = plan.assemble(&meta, &blocks).unwrap();
        let strings: Vec<String> = ["bc", "", "def", "", ""].map(String::from).to_vec();
        assert_eq!(answer.data, ArrayData::String(strings));
    }

    #[test]
    fn windows_that_do_not_fit_and_answers_over_the_limit_are_refused() {
        let (meta, _) = grid([4, 4], [2, 2], &[], &[]);
        for (start, shape) in [(&[0, 0][..], &[5, 1][..]), (&[3, 0], &[2, 1]), (&[0], &[1])] {
            let error = Plan::new(&meta, start, shape, u64::MAX).err().unwrap();
            assert_eq!(error.code(), "OutOfBounds", "{start:?} {shape:?}");
        }
        let error = Plan::new(&meta, &[u64::MAX, 0], &[2, 1], u64::MAX)
            .err()
            .unwrap();
        assert_eq!(error.code(), "OutOfBounds");
        // 16 int32 elements are 64 bytes.
        assert!(Plan::new(&meta, &[], &[], 64).is_ok());
        assert_eq!(
            Plan::new(&meta, &[], &[], 63).err().unwrap().code(),
            "TooLarge"
        );
    }
}
