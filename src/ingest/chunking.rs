//! Stored chunk shapes, and the boxes a variable is read in.
//!
//! atlas-python stores a variable whole when its file is small (at most a
//! quarter of the chunk budget) and otherwise takes dask's "auto" chunks,
//! which leave a variable within the budget whole and grow the file's own
//! chunking up to the budget for a larger one. We store a variable whole
//! when its decoded size is within the budget, which gives the same answer
//! except for a small file that decompresses past the budget (read whole,
//! such a file could claim any amount of memory), and replace dask's
//! heuristic with a simpler one of the same intent (docs/write-path.md):
//! the file's chunking, grown along its last axes first. Each stored chunk is
//! then read as one box, so a write never patches a chunk and memory holds
//! one chunk per variable in flight.

use std::collections::BTreeMap;

use crate::ingest::plan::VariablePlan;
use crate::nd::c_order;

/// How a file's variables are read, as atlas-python's `--open-chunks` (the
/// `chunks=` it passes to `xarray.open_dataset`). The read's chunks are also
/// the stored chunk shape, unless `--chunks` names one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum OpenChunks {
    /// dask's `"auto"`: whole up to the chunk budget, else the file's
    /// chunking grown towards it (the default).
    #[default]
    Auto,
    /// The file's own chunking (`chunks={}`); a contiguous variable whole.
    Native,
    /// Each variable whole, in one read (no dask).
    Whole,
    /// Per-dimension sizes; a dimension left out keeps the file's chunking.
    Dims(BTreeMap<String, DimChunk>),
}

/// One dimension's entry in `--open-chunks '{"time": 100}'`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DimChunk {
    /// At most this many along the dimension.
    Size(u64),
    /// The whole dimension (`-1`).
    Full,
    /// The file's chunking (`null`), or the whole dimension without one.
    Native,
}

/// The chunk shape to store, `None` for the whole array.
pub(crate) fn stored_chunks(
    plan: &VariablePlan,
    explicit: Option<&[u64]>,
    open: &OpenChunks,
    budget: u64,
) -> Result<Option<Vec<u64>>, String> {
    let rank = plan.shape.len();
    if let Some(chunks) = explicit {
        if chunks.len() != rank {
            return Err(format!(
                "--chunks gives {:?} {} axes, but it has {rank}",
                plan.name,
                chunks.len()
            ));
        }
        return Ok(Some(chunks.to_vec()));
    }
    // xarray keeps an index coordinate (named after its one dimension) in
    // memory, never in dask chunks: atlas-python stores it whole.
    if rank == 1 && plan.dims[0] == plan.name {
        return Ok(None);
    }
    let native = |axis: usize| {
        let whole = plan.shape[axis];
        match &plan.chunking {
            Some(c) if c.len() == rank => c[axis].clamp(1, whole.max(1)),
            _ => whole,
        }
    };
    let first_chunks = |per_axis: Vec<u64>| {
        // dask's first chunk along each axis; a shape of whole axes is the
        // array itself.
        let whole = per_axis.iter().zip(&plan.shape).all(|(c, s)| c >= s);
        Ok((!whole).then_some(per_axis))
    };
    match open {
        OpenChunks::Auto => {}
        OpenChunks::Whole => return Ok(None),
        OpenChunks::Native => return first_chunks((0..rank).map(native).collect()),
        OpenChunks::Dims(sizes) => {
            let per_axis = (0..rank)
                .map(|axis| match sizes.get(&plan.dims[axis]) {
                    Some(DimChunk::Size(n)) => (*n).clamp(1, plan.shape[axis].max(1)),
                    Some(DimChunk::Full) => plan.shape[axis],
                    Some(DimChunk::Native) | None => native(axis),
                })
                .collect();
            return first_chunks(per_axis);
        }
    }
    // Saturating: a declared shape can overflow u64 (the writer refuses it).
    let elements = plan.shape.iter().fold(1u64, |a, &s| a.saturating_mul(s));
    if elements.saturating_mul(plan.width) <= budget || rank == 0 {
        return Ok(None);
    }
    let base: Vec<u64> = match &plan.chunking {
        Some(c) if c.len() == rank => c
            .iter()
            .zip(&plan.shape)
            .map(|(&c, &s)| c.clamp(1, s.max(1)))
            .collect(),
        _ => vec![1; rank],
    };
    let mut chunk = base.clone();
    let bytes = |c: &[u64]| c.iter().product::<u64>().saturating_mul(plan.width);
    if bytes(&chunk) > budget {
        // The file's own chunk is over budget: shrink its leading axes
        // first, so each stored chunk stays a run of whole rows.
        for axis in 0..rank {
            let others = bytes(&chunk) / chunk[axis];
            chunk[axis] = (budget / others.max(1)).clamp(1, chunk[axis]);
            if bytes(&chunk) <= budget {
                break;
            }
        }
        return Ok(Some(chunk));
    }
    for axis in (0..rank).rev() {
        // Whole multiples of the file's chunk, so each read meets whole file chunks.
        let others = bytes(&chunk) / chunk[axis];
        let fit = (budget / others.max(1)).max(1);
        let step = base[axis];
        let grown = (fit / step).max(1) * step;
        chunk[axis] = grown.min(plan.shape[axis].max(1));
        if chunk[axis] < plan.shape[axis] {
            break;
        }
    }
    Ok(Some(chunk))
}

/// The boxes (start, count) covering an array chunk by chunk, in C order;
/// made as they are taken, since a grid can have billions of cells.
pub(crate) fn boxes(
    shape: &[u64],
    chunk: Option<&[u64]>,
) -> impl Iterator<Item = (Vec<u64>, Vec<u64>)> + use<> {
    let shape = shape.to_vec();
    let chunk: Vec<u64> = chunk.map_or_else(|| shape.clone(), <[u64]>::to_vec);
    let grid: Vec<u64> = shape
        .iter()
        .zip(&chunk)
        .map(|(&s, &c)| s.div_ceil(c.max(1)))
        .collect();
    // An empty axis has an empty grid: no boxes.
    c_order(&grid).map(move |cell| {
        let start: Vec<u64> = cell
            .iter()
            .zip(&chunk)
            .map(|(&g, &c)| g * c.max(1))
            .collect();
        let count = start
            .iter()
            .zip(&chunk)
            .zip(&shape)
            .map(|((&s, &c), &n)| c.max(1).min(n - s))
            .collect();
        (start, count)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::dtype::DType;
    use crate::ingest::plan::Decode;

    fn plan(shape: &[u64], chunking: Option<Vec<u64>>) -> VariablePlan {
        VariablePlan {
            name: "v".into(),
            dims: vec![],
            shape: shape.to_vec(),
            dtype: DType::Float32,
            fill: None,
            decode: Decode::Chars {
                width: None,
                fills: vec![],
            },
            attrs: vec![],
            chunking,
            width: 4,
            warnings: vec![],
        }
    }

    #[test]
    fn small_arrays_stay_whole_and_large_ones_grow_the_files_chunks() {
        let p = plan(&[100, 721, 1440], Some(vec![1, 721, 1440]));
        assert_eq!(
            stored_chunks(&p, None, &OpenChunks::Auto, 1 << 30).unwrap(),
            None
        );
        // 4 MB per time step: 16 of them fit 64 MiB.
        assert_eq!(
            stored_chunks(&p, None, &OpenChunks::Auto, 64 << 20).unwrap(),
            Some(vec![16, 721, 1440])
        );
        // Contiguous: rows of the last axes.
        let p = plan(&[100, 721, 1440], None);
        assert_eq!(
            stored_chunks(&p, None, &OpenChunks::Auto, 1 << 20).unwrap(),
            Some(vec![1, 182, 1440])
        );
        // A file chunk over budget is cut along its leading axes.
        let p = plan(&[100, 721, 1440], Some(vec![1, 721, 1440]));
        assert_eq!(
            stored_chunks(&p, None, &OpenChunks::Auto, 2 << 20).unwrap(),
            Some(vec![1, 364, 1440])
        );
        assert_eq!(
            stored_chunks(&p, Some(&[10, 10, 10]), &OpenChunks::Auto, 1).unwrap(),
            Some(vec![10, 10, 10])
        );
        assert!(stored_chunks(&p, Some(&[10]), &OpenChunks::Auto, 1).is_err());
    }

    #[test]
    fn open_chunks_modes_set_the_stored_chunks_as_xarray_reads_them() {
        let mut p = plan(&[100, 721, 1440], Some(vec![1, 721, 1440]));
        p.dims = vec!["time".into(), "lat".into(), "lon".into()];
        let chunks =
            |p: &VariablePlan, open: OpenChunks| stored_chunks(p, None, &open, 1 << 30).unwrap();
        assert_eq!(chunks(&p, OpenChunks::Native), Some(vec![1, 721, 1440]));
        assert_eq!(chunks(&p, OpenChunks::Whole), None);
        let dims = |pairs: &[(&str, DimChunk)]| {
            OpenChunks::Dims(pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect())
        };
        // A dimension left out keeps the file's chunking.
        assert_eq!(
            chunks(&p, dims(&[("time", DimChunk::Size(10))])),
            Some(vec![10, 721, 1440])
        );
        assert_eq!(
            chunks(
                &p,
                dims(&[("time", DimChunk::Full), ("lon", DimChunk::Size(5000))])
            ),
            None
        );
        assert_eq!(
            chunks(&p, dims(&[("lat", DimChunk::Size(100))])),
            Some(vec![1, 100, 1440])
        );
        // Contiguous: native is the whole array, and so is a missing dimension.
        p.chunking = None;
        assert_eq!(chunks(&p, OpenChunks::Native), None);
        assert_eq!(
            chunks(&p, dims(&[("lat", DimChunk::Size(100))])),
            Some(vec![100, 100, 1440])
        );
        // A file chunk longer than its (unlimited) axis is the axis.
        let mut q = plan(&[3], Some(vec![1024]));
        q.dims = vec!["t".into()];
        assert_eq!(chunks(&q, OpenChunks::Native), None);
        // An index coordinate is never chunked.
        let mut x = plan(&[500], Some(vec![100]));
        (x.name, x.dims) = ("x".into(), vec!["x".into()]);
        assert_eq!(chunks(&x, OpenChunks::Native), None);
        assert_eq!(chunks(&x, dims(&[("x", DimChunk::Size(10))])), None);
    }

    #[test]
    fn boxes_tile_the_array_with_clipped_edges() {
        let all = |shape: &[u64], chunk: Option<&[u64]>| boxes(shape, chunk).collect::<Vec<_>>();
        assert_eq!(all(&[5], Some(&[2])).len(), 3);
        assert_eq!(all(&[5], Some(&[2]))[2], (vec![4], vec![1]));
        assert_eq!(all(&[2, 3], None), vec![(vec![0, 0], vec![2, 3])]);
        assert!(all(&[0, 3], None).is_empty());
        assert_eq!(all(&[], None), vec![(vec![], vec![])]);
        // Lazily: a grid of 10^12 cells costs nothing until walked.
        assert_eq!(
            boxes(&[1 << 40, 1 << 40], Some(&[1 << 20, 1])).nth(3),
            Some((vec![0, 3], vec![1 << 20, 1]))
        );
    }
}
