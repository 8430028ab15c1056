//! One chunk's elements while they are patched, and the bytes a chunk is stored as.
//!
//! Fixed-width chunks are little-endian elements in C order. String and
//! binary chunks are `N + 1` u32 LE offsets, then the concatenated bytes.

use crate::error::{Error, Result};
use crate::format::chunk::{encode_offsets, fill_element, split_offsets_lenient};
use crate::format::dtype::DType;
use crate::format::value::FillValue;
use crate::write::element::Cells;

/// A chunk's elements, owned, ready to patch.
pub(crate) enum ChunkBuf {
    Fixed { width: usize, bytes: Vec<u8> },
    Var(Vec<Vec<u8>>),
}

impl ChunkBuf {
    /// A chunk of `len` unwritten elements, as array-format materializes one:
    /// the fill converted to the element type, and empty for strings and
    /// binary whatever the fill.
    pub(crate) fn filled(dtype: &DType, fill: Option<&FillValue>, len: usize) -> ChunkBuf {
        match fill_element(dtype, fill) {
            Some(element) => ChunkBuf::Fixed {
                width: element.len(),
                bytes: element.repeat(len),
            },
            None => ChunkBuf::Var(vec![Vec::new(); len]),
        }
    }

    /// Decodes stored chunk bytes of `dtype` holding `len` elements.
    pub(crate) fn decode(dtype: &DType, bytes: &[u8], len: usize) -> Result<ChunkBuf> {
        let buf = match dtype.element_size() {
            Some(width) if is_scalar(dtype) => ChunkBuf::Fixed {
                width,
                bytes: bytes.to_vec(),
            },
            _ => ChunkBuf::Var(
                split_offsets_lenient(bytes)
                    .into_iter()
                    .map(<[u8]>::to_vec)
                    .collect(),
            ),
        };
        if buf.len() != len {
            return Err(Error::corrupt_collection(format!(
                "a chunk being patched holds {} elements, its shape says {len}",
                buf.len()
            )));
        }
        Ok(buf)
    }

    /// An empty chunk that will receive elements of `dtype`.
    pub(crate) fn with_capacity(dtype: &DType, len: usize) -> ChunkBuf {
        match dtype.element_size() {
            Some(width) if is_scalar(dtype) => ChunkBuf::Fixed {
                width,
                bytes: Vec::with_capacity(width * len),
            },
            _ => ChunkBuf::Var(Vec::with_capacity(len)),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            ChunkBuf::Fixed { width, bytes } => bytes.len() / (*width).max(1),
            ChunkBuf::Var(items) => items.len(),
        }
    }

    /// Appends `run` elements of `src` from element `from`.
    pub(crate) fn push_run(&mut self, src: &Cells<'_>, from: usize, run: usize) {
        match (self, src) {
            (ChunkBuf::Fixed { width, bytes }, Cells::Fixed(input)) => {
                bytes.extend_from_slice(&input[from * *width..(from + run) * *width])
            }
            (ChunkBuf::Var(items), Cells::Var(input)) => {
                items.extend(input[from..from + run].iter().map(|s| s.to_vec()))
            }
            _ => unreachable!("the dtype check matched the cell kinds"),
        }
    }

    /// Overwrites `run` elements at `at` with those of `src` from `from`.
    pub(crate) fn put_run(&mut self, at: usize, src: &Cells<'_>, from: usize, run: usize) {
        match (self, src) {
            (ChunkBuf::Fixed { width, bytes }, Cells::Fixed(input)) => {
                let w = *width;
                bytes[at * w..(at + run) * w].copy_from_slice(&input[from * w..(from + run) * w])
            }
            (ChunkBuf::Var(items), Cells::Var(input)) => {
                for (slot, value) in items[at..at + run].iter_mut().zip(&input[from..from + run]) {
                    slot.clear();
                    slot.extend_from_slice(value);
                }
            }
            _ => unreachable!("the dtype check matched the cell kinds"),
        }
    }

    /// The stored form.
    pub(crate) fn encode(self) -> Vec<u8> {
        match self {
            ChunkBuf::Fixed { bytes, .. } => bytes,
            ChunkBuf::Var(items) => encode_offsets(items.iter().map(Vec::as_slice)),
        }
    }
}

/// Scalar fixed-width dtypes; lists are copied raw, never patched.
fn is_scalar(dtype: &DType) -> bool {
    !matches!(dtype, DType::FixedSizeList { .. } | DType::List { .. })
}
