//! The same calls give the same bytes: two fixtures of the interop suite,
//! replayed call for call through our writer, come out with every segment
//! byte-identical to what atlas-rust 0.17.2 wrote and an equal collection
//! footer (creation time aside).
//!
//! These two exercise the write path that a rewrite never takes: chunks
//! partly covered and materialized from the fill, sparse writes across chunk
//! edges, arrays nobody writes, and statistics over all of them. The calls
//! mirror `interop/src/fixtures/layout.rs`; if a fixture there changes, this
//! file must follow.

#![cfg(feature = "writer")]

mod common;

use std::path::{Path, PathBuf};

use atlas_wasm::write::{AtlasWriter, DatasetWriter, WriteElement, WriterConfig};
use atlas_wasm::{Atlas, DType, FillValue, TimestampNs};
use common::{block_on, suite};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("atlas-wasm-bytes-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Asserts two collections have equal footers (but the time) and equal segments.
fn assert_same_bytes(theirs: &Path, ours: &Path) {
    let (a, b) = (
        block_on(Atlas::open_path(theirs)).unwrap(),
        block_on(Atlas::open_path(ours)).unwrap(),
    );
    let mut fa = a.footer().clone();
    fa.created_unix_ms = b.footer().created_unix_ms;
    assert_eq!(&fa, b.footer(), "collection footers differ");
    let (da, db) = (
        std::fs::read(theirs.join("data.atlas")).unwrap(),
        std::fs::read(ours.join("data.atlas")).unwrap(),
    );
    for (va, vb) in fa.variables.iter().zip(&b.footer().variables) {
        let sa = &da[va.seg_offset as usize..(va.seg_offset + va.seg_len) as usize];
        let sb = &db[vb.seg_offset as usize..(vb.seg_offset + vb.seg_len) as usize];
        assert!(
            sa == sb,
            "segment '{}' differs in bytes",
            fa.string(va.name)
        );
    }
}

fn define<T: WriteElement>(
    ds: &mut DatasetWriter,
    name: &str,
    dims: &[&str],
    shape: &[u64],
    chunk: &[u64],
    fill: Option<FillValue>,
) {
    let dims = dims.iter().map(|d| d.to_string()).collect();
    ds.define_array::<T>(name, dims, shape, Some(chunk), fill)
        .unwrap();
}

/// `fill_values`: each fill kind on an array of 6 in chunks of 4, elements 1..3 written.
fn fill_values(dir: &Path) {
    fn one<T: WriteElement>(
        ds: &mut DatasetWriter,
        name: &str,
        fill: Option<FillValue>,
        values: &[T],
    ) {
        define::<T>(ds, name, &["i"], &[6], &[4], fill);
        ds.write_array(name, &[1], &[2], values).unwrap();
    }
    let w = AtlasWriter::create(dir, WriterConfig::default()).unwrap();
    let mut ds = w.add_dataset("own_kind").unwrap();
    one(
        &mut ds,
        "f32_nan",
        Some(FillValue::Float(f64::NAN)),
        &[1.5f32, f32::NAN],
    );
    one(
        &mut ds,
        "f64_finite",
        Some(FillValue::Float(-999.5)),
        &[2.25f64, -999.5],
    );
    one(&mut ds, "i16_int", Some(FillValue::Int(-1)), &[300i16, -1]);
    one(
        &mut ds,
        "u32_uint",
        Some(FillValue::UInt(7)),
        &[7u32, 4_000_000_000],
    );
    one(
        &mut ds,
        "string_fill",
        Some(FillValue::String("missing".into())),
        &["x".to_string(), "missing".into()],
    );
    one(
        &mut ds,
        "time_nat",
        Some(FillValue::TimestampNs(i64::MIN)),
        &[TimestampNs(0), TimestampNs(i64::MIN)],
    );
    one(&mut ds, "u8_bool", Some(FillValue::Bool(true)), &[1u8, 9]);
    one(&mut ds, "i32_none", None, &[0i32, 5]);
    one(&mut ds, "string_none", None, &[String::new(), "y".into()]);
    one(&mut ds, "binary_none", None, &[vec![], vec![0u8, 255]]);
    ds.finish().unwrap();

    let mut ds = w.add_dataset("foreign_kind").unwrap();
    one(
        &mut ds,
        "i32_float_fill",
        Some(FillValue::Float(-1.5)),
        &[-1i32, 2],
    );
    one(
        &mut ds,
        "f32_int_fill",
        Some(FillValue::Int(-9)),
        &[-9.0f32, 0.5],
    );
    one(
        &mut ds,
        "u16_negative_int_fill",
        Some(FillValue::Int(-1)),
        &[65535u16, 1],
    );
    one(
        &mut ds,
        "i64_uint_fill",
        Some(FillValue::UInt(u64::MAX)),
        &[-1i64, 1],
    );
    one(
        &mut ds,
        "time_int_fill",
        Some(FillValue::Int(5)),
        &[TimestampNs(5), TimestampNs(6)],
    );
    one(
        &mut ds,
        "binary_string_fill",
        Some(FillValue::String("zz".into())),
        &[b"zz".to_vec(), b"a".to_vec()],
    );
    ds.finish().unwrap();
    w.finish().unwrap();
}

/// The suite's SplitMix64 sample integers: MIN first, MAX last, mixed bits between.
fn sample_i32(n: usize) -> Vec<i32> {
    let mix = |i: u64| {
        let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    (0..n)
        .map(|i| match i {
            0 => i32::MIN,
            _ if i + 1 == n => i32::MAX,
            _ => mix(i as u64) as i32,
        })
        .collect()
}

/// `never_written_chunks`: sparse writes over chunk edges, and arrays never written.
fn never_written_chunks(dir: &Path) {
    let w = AtlasWriter::create(dir, WriterConfig::default()).unwrap();
    let mut ds = w.add_dataset("sparse").unwrap();
    define::<f32>(
        &mut ds,
        "grid",
        &["y", "x"],
        &[7, 9],
        &[3, 4],
        Some(FillValue::Float(f64::NAN)),
    );
    let patch: Vec<f32> = (0..9).map(|i| 100.0 + i as f32).collect();
    ds.write_array("grid", &[2, 3], &[3, 3], &patch).unwrap();
    ds.write_array("grid", &[6, 8], &[1, 1], &[-1.0f32])
        .unwrap();
    define::<i32>(
        &mut ds,
        "cube",
        &["t", "y", "x"],
        &[4, 4, 4],
        &[2, 2, 2],
        Some(FillValue::Int(-5)),
    );
    ds.write_array("cube", &[2, 0, 2], &[2, 2, 2], &sample_i32(8))
        .unwrap();
    define::<u64>(&mut ds, "plain_u64", &["i"], &[10], &[3], None);
    ds.write_array("plain_u64", &[4], &[2], &[11u64, 12])
        .unwrap();
    ds.finish().unwrap();

    let mut ds = w.add_dataset("untouched").unwrap();
    let never = |ds: &mut DatasetWriter, name: &str, dtype: DType, fill: Option<FillValue>| {
        ds.define_dtype(name, dtype, vec!["i".into()], &[5], Some(&[2]), fill)
            .unwrap();
    };
    for (name, dtype) in [
        ("int8", DType::Int8),
        ("int16", DType::Int16),
        ("int32", DType::Int32),
        ("int64", DType::Int64),
        ("uint8", DType::UInt8),
        ("uint16", DType::UInt16),
        ("uint32", DType::UInt32),
        ("uint64", DType::UInt64),
        ("float32", DType::Float32),
        ("float64", DType::Float64),
        ("string", DType::String),
        ("binary", DType::Binary),
        ("timestamp_ns", DType::TimestampNs),
    ] {
        never(&mut ds, name, dtype, None);
    }
    never(
        &mut ds,
        "float64_nan_fill",
        DType::Float64,
        Some(FillValue::Float(f64::NAN)),
    );
    never(
        &mut ds,
        "string_with_fill",
        DType::String,
        Some(FillValue::String("never".into())),
    );
    never(
        &mut ds,
        "timestamp_nat_fill",
        DType::TimestampNs,
        Some(FillValue::TimestampNs(i64::MIN)),
    );
    ds.finish().unwrap();
    w.finish().unwrap();
}

#[test]
fn partly_written_chunks_and_fills_match_atlas_rust_byte_for_byte() {
    let dir = scratch("fill_values");
    fill_values(&dir);
    assert_same_bytes(&suite().join("fill_values"), &dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sparse_writes_and_unwritten_arrays_match_atlas_rust_byte_for_byte() {
    let dir = scratch("never_written_chunks");
    never_written_chunks(&dir);
    assert_same_bytes(&suite().join("never_written_chunks"), &dir);
    std::fs::remove_dir_all(&dir).unwrap();
}
