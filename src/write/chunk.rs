//! One chunk's elements while they are patched, and the bytes a chunk is stored as.
//!
//! Fixed-width chunks are little-endian elements in C order. String and
//! binary chunks are `N + 1` u32 LE offsets, then the concatenated bytes.

use crate::error::{Error, Result};
use crate::format::dtype::DType;
use crate::format::value::FillValue;
use crate::nd::fill_element;
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
                split_offsets(bytes)
                    .into_iter()
                    .map(<[u8]>::to_vec)
                    .collect(),
            ),
        };
        if buf.len() != len {
            return Err(Error::corrupt(format!(
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

/// `N + 1` offsets, then the bytes.
pub(crate) fn encode_offsets<'a>(
    items: impl ExactSizeIterator<Item = &'a [u8]> + Clone,
) -> Vec<u8> {
    let total: usize = items.clone().map(<[u8]>::len).sum();
    let mut out = Vec::with_capacity(4 * (items.len() + 1) + total);
    let mut end = 0u32;
    out.extend_from_slice(&end.to_le_bytes());
    for item in items.clone() {
        end += item.len() as u32;
        out.extend_from_slice(&end.to_le_bytes());
    }
    for item in items {
        out.extend_from_slice(item);
    }
    out
}

/// How many elements an offsets chunk holds, found the way array-format finds
/// it: the first `n` whose offset `n` ends exactly at the end of the bytes.
/// Statistics depend on this count, so it must agree with array-format even
/// on bytes it did not write.
pub(crate) fn vlen_count(bytes: &[u8]) -> usize {
    let mut n = 0usize;
    while (n + 1) * 4 + 4 <= bytes.len() {
        let at = (n + 1) * 4;
        let offset = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
        n += 1;
        if at + 4 + offset == bytes.len() {
            break;
        }
    }
    n
}

/// The elements of an offsets chunk. Offsets that do not fit the bytes give
/// empty elements instead of a panic.
pub(crate) fn split_offsets(bytes: &[u8]) -> Vec<&[u8]> {
    let n = vlen_count(bytes);
    let base = (n + 1) * 4;
    let offset = |i: usize| {
        u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().expect("4 bytes")) as usize
    };
    (0..n)
        .map(|i| {
            let (start, end) = (base + offset(i), base + offset(i + 1));
            bytes.get(start..end).unwrap_or(&[])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_round_trip_and_count_like_array_format() {
        let bytes = encode_offsets([&b"ab"[..], b"", b"xyz"].into_iter());
        assert_eq!(vlen_count(&bytes), 3);
        assert_eq!(split_offsets(&bytes), vec![&b"ab"[..], b"", b"xyz"]);
        let empties = encode_offsets([&b""[..], b""].into_iter());
        assert_eq!(vlen_count(&empties), 2);
        assert_eq!(vlen_count(&0u32.to_le_bytes()), 0);
        // Garbage offsets do not panic.
        assert_eq!(split_offsets(&[0, 0, 0, 0, 9, 9, 9, 9, 1]).len(), 1);
    }
}
