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

use crate::ingest::plan::VariablePlan;
use crate::nd::c_order;

/// The chunk shape to store, `None` for the whole array.
pub(crate) fn stored_chunks(
    plan: &VariablePlan,
    explicit: Option<&[u64]>,
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
        }
    }

    #[test]
    fn small_arrays_stay_whole_and_large_ones_grow_the_files_chunks() {
        let p = plan(&[100, 721, 1440], Some(vec![1, 721, 1440]));
        assert_eq!(stored_chunks(&p, None, 1 << 30).unwrap(), None);
        // 4 MB per time step: 16 of them fit 64 MiB.
        assert_eq!(
            stored_chunks(&p, None, 64 << 20).unwrap(),
            Some(vec![16, 721, 1440])
        );
        // Contiguous: rows of the last axes.
        let p = plan(&[100, 721, 1440], None);
        assert_eq!(
            stored_chunks(&p, None, 1 << 20).unwrap(),
            Some(vec![1, 182, 1440])
        );
        // A file chunk over budget is cut along its leading axes.
        let p = plan(&[100, 721, 1440], Some(vec![1, 721, 1440]));
        assert_eq!(
            stored_chunks(&p, None, 2 << 20).unwrap(),
            Some(vec![1, 364, 1440])
        );
        assert_eq!(
            stored_chunks(&p, Some(&[10, 10, 10]), 1).unwrap(),
            Some(vec![10, 10, 10])
        );
        assert!(stored_chunks(&p, Some(&[10]), 1).is_err());
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
