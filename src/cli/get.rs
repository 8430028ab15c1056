//! `atlas get`: one window of one array as `.npy`, JSON or raw bytes.
//!
//! - npy: format 1.0, C order, little-endian; strings as `<U{n}` (UTF-32)
//!   and binary as `|S{n}`, `n` the longest element, so `numpy.load` reads
//!   it as is. Timestamps are `<M8[ns]`.
//! - raw: the elements little-endian in C order; strings and binary each
//!   followed by a NUL.
//! - json: shape, dtype and the elements flat in C order.

use std::path::PathBuf;

use crate::{ArrayData, NdArray, ReadOptions};

use super::output::print_bytes;
use super::py::Py;
use super::values::dtype_name;
use super::{sources, CliError};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// a local directory, or an http(s):// URL of one
    collection: String,
    /// dataset name
    dataset: String,
    /// array name
    array: String,
    /// first element of the window, e.g. 0,10 (default: the origin)
    #[arg(long, value_delimiter = ',')]
    start: Vec<u64>,
    /// extent of the window, e.g. 2,5 (default: to the end)
    #[arg(long, value_delimiter = ',')]
    shape: Vec<u64>,
    /// npy (NumPy), json, or raw little-endian bytes
    #[arg(long, value_enum, default_value = "npy")]
    format: Format,
    /// write here instead of standard output
    #[arg(long, short)]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Npy,
    Json,
    Raw,
}

pub(crate) async fn run(args: Args) -> Result<(), CliError> {
    let Args {
        collection,
        dataset,
        array,
        start,
        shape,
        format,
        output,
    } = args;
    let atlas = sources::open(&collection, ReadOptions::default()).await?;
    let view = atlas.dataset(&dataset).map_err(|_| {
        CliError::new(format!(
            "no dataset '{dataset}' in the collection (it may have been removed)"
        ))
    })?;
    let full = view.array_layout(&array).await?.shape;
    let start = if start.is_empty() {
        vec![0; full.len()]
    } else {
        start
    };
    let shape = if shape.is_empty() {
        full.iter()
            .zip(&start)
            .map(|(&f, &s)| f.saturating_sub(s))
            .collect()
    } else {
        shape
    };
    let window = view.read_array(&array, &start, &shape).await?;
    let bytes = match format {
        Format::Npy => npy(&window),
        Format::Raw => raw(&window.data),
        Format::Json => (json(&window, &dataset, &array, &start).json() + "\n").into_bytes(),
    };
    match output {
        Some(path) => std::fs::write(&path, bytes)
            .map_err(|e| CliError::new(format!("{}: {e}", path.display()))),
        None => print_bytes(&bytes),
    }
}

fn npy(array: &NdArray) -> Vec<u8> {
    let (descr, body) = npy_body(&array.data);
    let shape = match array.shape.as_slice() {
        [] => "()".to_string(),
        [n] => format!("({n},)"),
        dims => format!(
            "({})",
            dims.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // Magic (6) + version (2) + length (2) + header + '\n', padded to 64.
    let used = 10 + header.len() + 1;
    header.push_str(&" ".repeat((64 - used % 64) % 64));
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&body);
    out
}

fn npy_body(data: &ArrayData) -> (String, Vec<u8>) {
    fn le<T, const N: usize>(values: &[T], f: impl Fn(&T) -> [u8; N]) -> Vec<u8> {
        values.iter().flat_map(f).collect()
    }
    match data {
        ArrayData::Bool(v) => ("|b1".into(), v.iter().map(|&b| b as u8).collect()),
        ArrayData::Int8(v) => ("|i1".into(), v.iter().map(|&x| x as u8).collect()),
        ArrayData::UInt8(v) => ("|u1".into(), v.clone()),
        ArrayData::Int16(v) => ("<i2".into(), le(v, |x| x.to_le_bytes())),
        ArrayData::UInt16(v) => ("<u2".into(), le(v, |x| x.to_le_bytes())),
        ArrayData::Int32(v) => ("<i4".into(), le(v, |x| x.to_le_bytes())),
        ArrayData::UInt32(v) => ("<u4".into(), le(v, |x| x.to_le_bytes())),
        ArrayData::Int64(v) => ("<i8".into(), le(v, |x| x.to_le_bytes())),
        ArrayData::UInt64(v) => ("<u8".into(), le(v, |x| x.to_le_bytes())),
        ArrayData::Float32(v) => ("<f4".into(), le(v, |x| x.to_le_bytes())),
        ArrayData::Float64(v) => ("<f8".into(), le(v, |x| x.to_le_bytes())),
        ArrayData::TimestampNs(v) => ("<M8[ns]".into(), le(v, |x| x.to_le_bytes())),
        ArrayData::String(v) => {
            let width = v
                .iter()
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
                .max(1);
            let mut body = Vec::with_capacity(width * 4 * v.len());
            for s in v {
                let n = s.chars().count();
                body.extend(s.chars().flat_map(|c| (c as u32).to_le_bytes()));
                body.extend(std::iter::repeat_n(0u8, (width - n) * 4));
            }
            (format!("<U{width}"), body)
        }
        ArrayData::Binary(v) => {
            let width = v.iter().map(Vec::len).max().unwrap_or(0).max(1);
            let mut body = Vec::with_capacity(width * v.len());
            for b in v {
                body.extend_from_slice(b);
                body.extend(std::iter::repeat_n(0u8, width - b.len()));
            }
            (format!("|S{width}"), body)
        }
    }
}

fn raw(data: &ArrayData) -> Vec<u8> {
    match data {
        ArrayData::String(v) => v.iter().flat_map(|s| s.bytes().chain([0])).collect(),
        ArrayData::Binary(v) => v
            .iter()
            .flat_map(|b| b.iter().copied().chain([0]))
            .collect(),
        other => npy_body(other).1,
    }
}

fn json(array: &NdArray, dataset: &str, name: &str, start: &[u64]) -> Py {
    let values = match &array.data {
        ArrayData::Bool(v) => v.iter().map(|&x| Py::Bool(x)).collect(),
        ArrayData::Int8(v) => v.iter().map(|&x| Py::int(x)).collect(),
        ArrayData::Int16(v) => v.iter().map(|&x| Py::int(x)).collect(),
        ArrayData::Int32(v) => v.iter().map(|&x| Py::int(x)).collect(),
        ArrayData::Int64(v) | ArrayData::TimestampNs(v) => v.iter().map(|&x| Py::int(x)).collect(),
        ArrayData::UInt8(v) => v.iter().map(|&x| Py::int(x)).collect(),
        ArrayData::UInt16(v) => v.iter().map(|&x| Py::int(x)).collect(),
        ArrayData::UInt32(v) => v.iter().map(|&x| Py::int(x)).collect(),
        ArrayData::UInt64(v) => v.iter().map(|&x| Py::int(x)).collect(),
        ArrayData::Float32(v) => v.iter().map(|&x| Py::Float(x as f64)).collect(),
        ArrayData::Float64(v) => v.iter().map(|&x| Py::Float(x)).collect(),
        ArrayData::String(v) => v.iter().map(|x| Py::str(x.as_str())).collect(),
        ArrayData::Binary(v) => v.iter().map(|x| Py::Bytes(x.clone())).collect(),
    };
    let ints = |v: &[u64]| Py::List(v.iter().map(|&x| Py::int(x)).collect());
    Py::dict([
        ("dataset", Py::str(dataset)),
        ("array", Py::str(name)),
        ("dtype", Py::str(dtype_name(&array.dtype))),
        ("start", ints(start)),
        ("shape", ints(&array.shape)),
        ("values", Py::List(values)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DType;

    #[test]
    fn npy_headers_align_to_64_bytes() {
        let a = NdArray {
            dtype: DType::Float32,
            shape: vec![2, 3],
            data: ArrayData::Float32(vec![0.0; 6]),
        };
        let bytes = npy(&a);
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0);
        assert!(std::str::from_utf8(&bytes[10..10 + header_len])
            .unwrap()
            .contains("'shape': (2, 3)"));
        assert_eq!(bytes.len(), 10 + header_len + 24);
        let s = NdArray {
            dtype: DType::String,
            shape: vec![2],
            data: ArrayData::String(vec!["é".into(), "ab".into()]),
        };
        assert!(String::from_utf8_lossy(&npy(&s)).contains("<U2"));
        assert_eq!(raw(&s.data), b"\xc3\xa9\0ab\0");
    }
}
