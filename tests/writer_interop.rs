//! Collections our writer builds open in atlas-rust 0.17.2 with the values,
//! layouts, attributes and statistics we wrote: every dtype under every
//! codec, unaligned and overlapping writes, fills, ranks 0 to 4, empty axes,
//! many blocks, every attribute variant, ten thousand datasets and masks.
//!
//! Each collection is read twice, by atlas-rust (`atlas_interop::dump`) and
//! by our reader, and the two canonical JSON documents must be equal; the
//! values in them must equal what a plain in-memory model of the writes says.

#![cfg(feature = "writer")]

mod common;

use std::path::{Path, PathBuf};

use atlas_wasm::write::{
    delete_datasets, AtlasWriter, Codec, DatasetWriter, WriteElement, WriterConfig,
};
use atlas_wasm::{ArrayData, Atlas, Attr, FillValue, TimestampNs};
use common::{block_on, diff::differences, dump::dump};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("atlas-wasm-writer-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Reads `dir` with atlas-rust and with our reader, asserts they agree, and
/// returns atlas-rust's document.
fn read_both(dir: &Path) -> Value {
    let theirs = atlas_interop::dump(dir)
        .unwrap_or_else(|e| panic!("atlas-rust cannot read {}: {e:#}", dir.display()));
    let atlas = block_on(Atlas::open_path(dir)).unwrap();
    let ours = block_on(dump(&atlas)).unwrap();
    let diffs = differences(&ours, &theirs);
    assert!(
        diffs.is_empty(),
        "{}: our reader and atlas-rust disagree:\n{}",
        dir.display(),
        diffs.join("\n")
    );
    theirs
}

fn dataset<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("no dataset {name}"))
}

fn array<'a>(doc: &'a Value, ds: &str, name: &str) -> &'a Value {
    dataset(doc, ds)["arrays"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == name)
        .unwrap_or_else(|| panic!("no {ds}/{name}"))
}

fn config(codec: Codec, block_target_size: usize) -> WriterConfig {
    WriterConfig {
        codec,
        block_target_size,
    }
}

/// Declares `name` and writes `values` over all of it.
fn put<T: WriteElement>(
    ds: &mut DatasetWriter,
    name: &str,
    shape: &[u64],
    chunk: Option<&[u64]>,
    values: &[T],
) {
    let dims = (0..shape.len()).map(|i| format!("d{i}")).collect();
    ds.define_array::<T>(name, dims, shape, chunk, None)
        .unwrap();
    ds.write_array(name, &vec![0; shape.len()], shape, values)
        .unwrap();
}

/// One generated column of every writable dtype, `n` values from `seed`.
fn columns(n: usize, seed: i64) -> Vec<(&'static str, ArrayData)> {
    let i = |k: usize| seed + k as i64;
    vec![
        (
            "i8",
            ArrayData::Int8((0..n).map(|k| (i(k) * 37 - 100) as i8).collect()),
        ),
        (
            "i16",
            ArrayData::Int16((0..n).map(|k| (i(k) * 3001 - 20000) as i16).collect()),
        ),
        (
            "i32",
            ArrayData::Int32((0..n).map(|k| (i(k) * 1_000_003 - 7) as i32).collect()),
        ),
        (
            "i64",
            ArrayData::Int64((0..n).map(|k| i(k) * -9_000_000_000_001).collect()),
        ),
        (
            "u8",
            ArrayData::UInt8((0..n).map(|k| (i(k) * 29) as u8).collect()),
        ),
        (
            "u16",
            ArrayData::UInt16((0..n).map(|k| (i(k) * 6007) as u16).collect()),
        ),
        (
            "u32",
            ArrayData::UInt32((0..n).map(|k| (i(k) * 400_000_007) as u32).collect()),
        ),
        (
            "u64",
            ArrayData::UInt64(
                (0..n)
                    .map(|k| (i(k) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
                    .collect(),
            ),
        ),
        (
            "f32",
            ArrayData::Float32((0..n).map(|k| i(k) as f32 * 0.25 - 1.0).collect()),
        ),
        (
            "f64",
            ArrayData::Float64((0..n).map(|k| (i(k) as f64).sqrt() * -3.5).collect()),
        ),
        (
            "string",
            ArrayData::String(
                (0..n)
                    .map(|k| "é".repeat(k % 3) + &format!("s{}", i(k)))
                    .collect(),
            ),
        ),
        (
            "binary",
            ArrayData::Binary((0..n).map(|k| vec![(i(k) % 256) as u8; k % 4]).collect()),
        ),
        (
            "time",
            ArrayData::TimestampNs(
                (0..n)
                    .map(|k| 1_700_000_000_000_000_000 + i(k) * 3_600_000_000_000)
                    .collect(),
            ),
        ),
    ]
}

/// Defines `name` for `data` and writes `data` at `start` with `shape`.
fn put_data(
    ds: &mut DatasetWriter,
    name: &str,
    shape: &[u64],
    chunk: Option<&[u64]>,
    data: &ArrayData,
) {
    match data {
        ArrayData::Int8(v) => put(ds, name, shape, chunk, v),
        ArrayData::Int16(v) => put(ds, name, shape, chunk, v),
        ArrayData::Int32(v) => put(ds, name, shape, chunk, v),
        ArrayData::Int64(v) => put(ds, name, shape, chunk, v),
        ArrayData::UInt8(v) => put(ds, name, shape, chunk, v),
        ArrayData::UInt16(v) => put(ds, name, shape, chunk, v),
        ArrayData::UInt32(v) => put(ds, name, shape, chunk, v),
        ArrayData::UInt64(v) => put(ds, name, shape, chunk, v),
        ArrayData::Float32(v) => put(ds, name, shape, chunk, v),
        ArrayData::Float64(v) => put(ds, name, shape, chunk, v),
        ArrayData::String(v) => put(ds, name, shape, chunk, v),
        ArrayData::Binary(v) => put(ds, name, shape, chunk, v),
        ArrayData::TimestampNs(v) => put(
            ds,
            name,
            shape,
            chunk,
            &v.iter().map(|&t| TimestampNs(t)).collect::<Vec<_>>(),
        ),
        ArrayData::Bool(_) => unreachable!("not writable"),
    }
}

#[test]
fn every_dtype_under_every_codec_reads_back_in_atlas_rust() {
    for codec in [Codec::Zstd, Codec::Lz4, Codec::Uncompressed] {
        let dir = scratch(&format!("dtypes-{}", codec.name()));
        let w = AtlasWriter::create(
            &dir,
            WriterConfig {
                codec,
                ..WriterConfig::default()
            },
        )
        .unwrap();
        for (seed, name) in [(0, "first"), (100, "second")] {
            let mut ds = w.add_dataset(name).unwrap();
            for (array, data) in columns(10, seed) {
                // Chunks of 4 over 10 elements: the last chunk is clipped to 2.
                put_data(&mut ds, array, &[10], Some(&[4]), &data);
            }
            for (array, data) in columns(15, seed + 7) {
                put_data(
                    &mut ds,
                    &format!("{array}_2d"),
                    &[3, 5],
                    Some(&[2, 2]),
                    &data,
                );
            }
            ds.finish().unwrap();
        }
        w.finish().unwrap();
        let doc = read_both(&dir);
        assert_eq!(doc["codec"], format!("{codec:?}"));
        for (seed, name) in [(0, "first"), (100, "second")] {
            for (array, data) in columns(10, seed) {
                assert_eq!(
                    array_of(&doc, name, array)["values"],
                    common::dump::values(&data),
                    "{name}/{array}"
                );
                assert_eq!(
                    array_of(&doc, name, array)["chunk_shape"],
                    serde_json::json!([4])
                );
            }
            for (array, data) in columns(15, seed + 7) {
                let a = array_of(&doc, name, &format!("{array}_2d"));
                assert_eq!(
                    a["values"],
                    common::dump::values(&data),
                    "{name}/{array}_2d"
                );
                assert_eq!(a["dimensions"], serde_json::json!(["d0", "d1"]));
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

fn array_of<'a>(doc: &'a Value, ds: &str, name: &str) -> &'a Value {
    array(doc, ds, name)
}

/// A flat C-order model of one array: the fill, then every write applied.
struct Model<T> {
    shape: Vec<u64>,
    cells: Vec<T>,
}

impl<T: Clone> Model<T> {
    fn new(shape: &[u64], fill: T) -> Self {
        Self {
            shape: shape.to_vec(),
            cells: vec![fill; shape.iter().product::<u64>() as usize],
        }
    }

    fn write(&mut self, start: &[u64], shape: &[u64], values: &[T]) {
        let count: u64 = shape.iter().product();
        for flat in 0..count {
            let (mut rest, mut at) = (flat, 0u64);
            let mut index = vec![0u64; shape.len()];
            for a in (0..shape.len()).rev() {
                index[a] = rest % shape[a];
                rest /= shape[a];
            }
            for a in 0..shape.len() {
                at = at * self.shape[a] + start[a] + index[a];
            }
            self.cells[at as usize] = values[flat as usize].clone();
        }
    }
}

/// Deterministic boxes inside `shape`, some overlapping, some unaligned.
fn boxes(shape: &[u64], n: usize) -> Vec<(Vec<u64>, Vec<u64>)> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |m: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % m
    };
    (0..n)
        .map(|_| {
            let start: Vec<u64> = shape.iter().map(|&s| next(s)).collect();
            let extent: Vec<u64> = shape
                .iter()
                .zip(&start)
                .map(|(&s, &b)| 1 + next(s - b))
                .collect();
            (start, extent)
        })
        .collect()
}

#[test]
fn unaligned_and_overlapping_writes_patch_chunks_as_array_format_does() {
    // Tiny zstd blocks, so patches also read chunks back from spilled blocks.
    let dir = scratch("patches");
    let w = AtlasWriter::create(&dir, config(Codec::Zstd, 48)).unwrap();
    let mut ds = w.add_dataset("grid").unwrap();
    let shape = [7u64, 9, 3];
    let chunk = [3u64, 4, 2];
    let dims = vec!["z".into(), "y".into(), "x".into()];
    ds.define_array::<i32>(
        "ints",
        dims.clone(),
        &shape,
        Some(&chunk),
        Some(FillValue::Int(-5)),
    )
    .unwrap();
    ds.define_array::<f32>(
        "floats",
        dims.clone(),
        &shape,
        Some(&chunk),
        Some(FillValue::Float(f64::NAN)),
    )
    .unwrap();
    ds.define_array::<String>(
        "words",
        dims.clone(),
        &shape,
        Some(&chunk),
        Some(FillValue::String("?".into())),
    )
    .unwrap();
    ds.define_array::<u16>("plain", dims, &shape, Some(&chunk), None)
        .unwrap();
    let mut ints = Model::new(&shape, -5i32);
    let mut floats = Model::new(&shape, f32::NAN);
    // array-format reads an unwritten string cell as "", whatever the fill.
    let mut words = Model::new(&shape, String::new());
    let mut plain = Model::new(&shape, 0u16);
    for (k, (start, extent)) in boxes(&shape, 12).into_iter().enumerate() {
        let n = extent.iter().product::<u64>() as i32;
        let iv: Vec<i32> = (0..n).map(|i| i * 10 + k as i32).collect();
        let fv: Vec<f32> = iv
            .iter()
            .map(|&i| if i % 7 == 0 { f32::NAN } else { i as f32 / 3.0 })
            .collect();
        let sv: Vec<String> = iv.iter().map(|i| format!("w{i}")).collect();
        let pv: Vec<u16> = iv.iter().map(|&i| i as u16).collect();
        ds.write_array("ints", &start, &extent, &iv).unwrap();
        ds.write_array("floats", &start, &extent, &fv).unwrap();
        ds.write_array("words", &start, &extent, &sv).unwrap();
        if k % 2 == 0 {
            ds.write_array("plain", &start, &extent, &pv).unwrap();
            plain.write(&start, &extent, &pv);
        }
        ints.write(&start, &extent, &iv);
        floats.write(&start, &extent, &fv);
        words.write(&start, &extent, &sv);
    }
    ds.finish().unwrap();
    w.finish().unwrap();
    let doc = read_both(&dir);
    let values = |name: &str| array(&doc, "grid", name)["values"].clone();
    assert_eq!(
        values("ints"),
        common::dump::values(&ArrayData::Int32(ints.cells))
    );
    assert_eq!(
        values("floats"),
        common::dump::values(&ArrayData::Float32(floats.cells))
    );
    assert_eq!(
        values("words"),
        common::dump::values(&ArrayData::String(words.cells))
    );
    assert_eq!(
        values("plain"),
        common::dump::values(&ArrayData::UInt16(plain.cells))
    );
    // A NaN fill keeps NaNs out of min/max and counts them as nulls.
    let stats = &array(&doc, "grid", "floats")["stats"];
    assert!(stats["null_count"].as_u64().unwrap() > 0);
    assert!(!stats["max"].to_string().contains("NaN"), "{stats}");
}

#[test]
fn ranks_empty_axes_fills_and_unwritten_arrays_read_back() {
    let dir = scratch("shapes");
    let w = AtlasWriter::create(&dir, WriterConfig::default()).unwrap();
    let mut ds = w.add_dataset("shapes").unwrap();
    ds.define_array::<f64>("scalar", vec![], &[], None, Some(FillValue::Float(1.5)))
        .unwrap();
    ds.write_array("scalar", &[], &[], &[42.0f64]).unwrap();
    ds.define_array::<f64>(
        "scalar_unwritten",
        vec![],
        &[],
        None,
        Some(FillValue::Float(1.5)),
    )
    .unwrap();
    ds.define_array::<i32>(
        "empty_axis",
        vec!["n".into(), "x".into()],
        &[0, 3],
        Some(&[0, 3]),
        None,
    )
    .unwrap();
    ds.write_array::<i32>("empty_axis", &[0, 0], &[0, 3], &[])
        .unwrap();
    ds.define_array::<u8>(
        "bigger_chunk",
        vec![],
        &[5],
        Some(&[64]),
        Some(FillValue::UInt(9)),
    )
    .unwrap();
    ds.write_array("bigger_chunk", &[1], &[2], &[1u8, 2])
        .unwrap();
    ds.define_array::<i64>(
        "rank4",
        vec!["a".into(), "b".into(), "c".into(), "d".into()],
        &[2, 3, 2, 3],
        Some(&[1, 2, 2, 2]),
        None,
    )
    .unwrap();
    let r4: Vec<i64> = (0..36).collect();
    ds.write_array("rank4", &[0, 0, 0, 0], &[2, 3, 2, 3], &r4)
        .unwrap();
    for (name, fill) in [
        ("never_i16", Some(FillValue::Int(-3))),
        ("never_u64", Some(FillValue::UInt(u64::MAX))),
        ("never_f32", Some(FillValue::Float(-0.0))),
        ("never_time", Some(FillValue::TimestampNs(i64::MIN))),
        ("never_plain", None),
    ] {
        let dtype = match name {
            "never_i16" => atlas_wasm::DType::Int16,
            "never_u64" => atlas_wasm::DType::UInt64,
            "never_f32" => atlas_wasm::DType::Float32,
            "never_time" => atlas_wasm::DType::TimestampNs,
            _ => atlas_wasm::DType::String,
        };
        ds.define_dtype(name, dtype, vec![], &[4, 2], Some(&[3, 1]), fill)
            .unwrap();
    }
    ds.finish().unwrap();
    w.add_dataset("no_arrays").unwrap().finish().unwrap();
    w.finish().unwrap();
    let doc = read_both(&dir);
    assert_eq!(
        array(&doc, "shapes", "scalar")["values"],
        serde_json::json!(["42.0"])
    );
    assert_eq!(
        array(&doc, "shapes", "scalar_unwritten")["values"],
        serde_json::json!(["1.5"])
    );
    assert_eq!(
        array(&doc, "shapes", "empty_axis")["chunk_shape"],
        serde_json::json!([1, 3])
    );
    assert_eq!(
        array(&doc, "shapes", "bigger_chunk")["values"],
        serde_json::json!([9, 1, 2, 9, 9])
    );
    assert_eq!(
        array(&doc, "shapes", "rank4")["values"],
        serde_json::json!(r4)
    );
    assert_eq!(
        array(&doc, "shapes", "rank4")["dimensions"],
        serde_json::json!(["a", "b", "c", "d"])
    );
    let never = &array(&doc, "shapes", "never_i16")["stats"];
    assert_eq!(
        (never["null_count"].as_u64(), never["row_count"].as_u64()),
        (Some(8), Some(8))
    );
    assert_eq!(dataset(&doc, "no_arrays")["arrays"], serde_json::json!([]));
}

/// One of each attribute variant, with values that test bit-exactness.
fn every_attr() -> Vec<(&'static str, Attr)> {
    vec![
        ("bool", Attr::Bool(true)),
        ("i8", Attr::Int8(-8)),
        ("i16", Attr::Int16(-16_000)),
        ("i32", Attr::Int32(i32::MIN)),
        ("i64", Attr::Int64(i64::MAX)),
        ("u8", Attr::UInt8(255)),
        ("u16", Attr::UInt16(65_535)),
        ("u32", Attr::UInt32(u32::MAX)),
        ("u64", Attr::UInt64(u64::MAX)),
        ("f32", Attr::Float32(f32::NAN)),
        ("f64", Attr::Float64(-0.0)),
        ("string", Attr::String("Grüße, 世界".into())),
        ("binary", Attr::Binary(vec![0, 255, 7])),
        ("bool_list", Attr::BoolList(vec![true, false])),
        ("i8_list", Attr::Int8List(vec![-1, 1])),
        ("i16_list", Attr::Int16List(vec![])),
        ("i32_list", Attr::Int32List(vec![1, 2, 3])),
        ("i64_list", Attr::Int64List(vec![i64::MIN])),
        ("u8_list", Attr::UInt8List(vec![1, 2])),
        ("u16_list", Attr::UInt16List(vec![9])),
        ("u32_list", Attr::UInt32List(vec![7, 7])),
        ("u64_list", Attr::UInt64List(vec![u64::MAX, 0])),
        ("f32_list", Attr::Float32List(vec![1.5, f32::INFINITY])),
        ("f64_list", Attr::Float64List(vec![f64::NAN, -0.0, 1e300])),
        (
            "string_list",
            Attr::StringList(vec!["units".into(), "".into(), "ü".into()]),
        ),
        ("binary_list", Attr::BinaryList(vec![vec![], vec![1]])),
    ]
}

#[test]
fn every_attribute_variant_at_both_levels_reads_back() {
    let dir = scratch("attrs");
    let w = AtlasWriter::create(&dir, config(Codec::Lz4, 1 << 20)).unwrap();
    for name in ["one", "two"] {
        let mut ds = w.add_dataset(name).unwrap();
        put(&mut ds, "x", &[3], None, &[1.0f32, 2.0, 3.0]);
        put(&mut ds, "y", &[2], None, &[1u8, 2]);
        for (key, value) in every_attr() {
            ds.set_attribute(key, value.clone());
            ds.set_array_attribute("y", key, value).unwrap();
        }
        // A repeated key keeps its place and takes the last value.
        ds.set_attribute("i8", Attr::Int8(8));
        ds.set_array_attribute("x", "units", Attr::String("K".into()))
            .unwrap();
        ds.finish().unwrap();
    }
    // One key at another type in a third dataset: a second schema.
    let mut ds = w.add_dataset("three").unwrap();
    put(&mut ds, "x", &[1], None, &[0.5f32]);
    ds.set_array_attribute("x", "units", Attr::Float64(1.0))
        .unwrap();
    ds.finish().unwrap();
    w.finish().unwrap();
    let doc = read_both(&dir);
    let attrs = &dataset(&doc, "one")["attributes"];
    assert_eq!(attrs.as_array().unwrap().len(), every_attr().len());
    assert_eq!(
        attrs[1],
        serde_json::json!(["i8", {"type": "Int8", "value": 8}])
    );
    let y_attrs = &array(&doc, "two", "y")["attributes"];
    assert_eq!(y_attrs.as_array().unwrap().len(), every_attr().len());
    let ours = block_on(Atlas::open_path(&dir)).unwrap();
    let ds = ours.dataset("two").unwrap();
    let got = block_on(ds.array_attributes("y")).unwrap();
    for (key, value) in every_attr() {
        let back = &got[key];
        assert_eq!(format!("{back:?}"), format!("{value:?}"), "{key}");
    }
    assert_eq!(ours.interned_schemas(), 2);
}

#[test]
fn many_small_blocks_and_large_chunks_read_back() {
    let dir = scratch("blocks");
    let w = AtlasWriter::create(&dir, config(Codec::Zstd, 1000)).unwrap();
    for d in 0..5 {
        let mut ds = w.add_dataset(&format!("d{d}")).unwrap();
        let values: Vec<f64> = (0..3000).map(|i| (i * (d + 1)) as f64).collect();
        // 120-element chunks of 960 bytes: about one chunk per block, and a
        // whole-array chunk of 24,000 bytes that outgrows any block.
        put(&mut ds, "chunked", &[3000], Some(&[120]), &values);
        put(&mut ds, "whole", &[3000], None, &values);
        ds.finish().unwrap();
    }
    w.finish().unwrap();
    let doc = read_both(&dir);
    let values: Vec<f64> = (0..3000).map(|i| (i * 3) as f64).collect();
    assert_eq!(
        array(&doc, "d2", "chunked")["values"],
        common::dump::values(&ArrayData::Float64(values.clone()))
    );
    assert_eq!(
        array(&doc, "d2", "whole")["values"],
        common::dump::values(&ArrayData::Float64(values))
    );
}

#[test]
fn ten_thousand_datasets_keep_their_ordinals_and_schemas() {
    let dir = scratch("10k");
    let w = AtlasWriter::create(&dir, WriterConfig::default()).unwrap();
    for i in 0..10_000u32 {
        let mut ds = w.add_dataset(&format!("ds{i:05}")).unwrap();
        put(&mut ds, "t", &[4], None, &[i as f32, 1.0, 2.0, 3.0]);
        if i % 2 == 1 {
            put(&mut ds, "q", &[2], None, &[i as i64, -(i as i64)]);
        }
        ds.set_attribute("index", Attr::UInt32(i));
        ds.finish().unwrap();
    }
    w.finish().unwrap();
    let doc = read_both(&dir);
    assert_eq!(doc["dataset_count"], 10_000);
    let last = dataset(&doc, "ds09999");
    assert_eq!(last["ordinal"], 9999);
    assert_eq!(
        last["attributes"],
        serde_json::json!([["index", {"type": "UInt32", "value": 9999}]])
    );
    assert_eq!(
        doc["array_stats"]["t"]["max"],
        serde_json::json!({"type": "Float", "value": "9999.0"})
    );
    let atlas = block_on(Atlas::open_path(&dir)).unwrap();
    assert_eq!(atlas.interned_schemas(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ordinals_follow_add_order_not_finish_order() {
    let dir = scratch("order");
    let w = AtlasWriter::create(&dir, WriterConfig::default()).unwrap();
    let mut a = w.add_dataset("a").unwrap();
    let mut b = w.add_dataset("b").unwrap();
    let dropped = w.add_dataset("dropped").unwrap();
    put(&mut b, "x", &[1], None, &[2u8]);
    put(&mut a, "x", &[1], None, &[1u8]);
    b.finish().unwrap();
    a.finish().unwrap();
    drop(dropped);
    assert!(
        w.add_dataset("a").is_err(),
        "a name is taken from add_dataset on"
    );
    assert!(w.add_dataset("dropped").is_err());
    for bad in ["", "_x", "a/b", ".", ".."] {
        assert!(w.add_dataset(bad).is_err(), "{bad:?}");
    }
    w.finish().unwrap();
    let doc = read_both(&dir);
    assert_eq!(dataset(&doc, "a")["ordinal"], 0);
    assert_eq!(dataset(&doc, "b")["ordinal"], 1);
    assert_eq!(doc["dataset_count"], 2);
}

#[test]
fn deleting_datasets_writes_one_mask_that_atlas_rust_honours() {
    let dir = scratch("mask");
    let w = AtlasWriter::create(&dir, WriterConfig::default()).unwrap();
    for i in 0..6u8 {
        let mut ds = w.add_dataset(&format!("n{i}")).unwrap();
        put(&mut ds, "v", &[1], None, &[i]);
        ds.finish().unwrap();
    }
    w.finish().unwrap();
    let gone = delete_datasets(&dir, &["n1", "n4", "n1"], false).unwrap();
    assert_eq!((gone.removed.len(), gone.remaining), (2, 4));
    // An absent or already removed name fails the call and writes nothing.
    let before = std::fs::read(dir.join("deleted.mask")).unwrap();
    assert_eq!(
        delete_datasets(&dir, &["n0", "n4"], false)
            .unwrap_err()
            .code(),
        "DatasetNotFound"
    );
    assert_eq!(std::fs::read(dir.join("deleted.mask")).unwrap(), before);
    // Unless asked to tolerate it; the existing mask is merged, not replaced.
    let more = delete_datasets(&dir, &["n0", "n4", "zz"], true).unwrap();
    assert_eq!(
        (more.removed, more.missing),
        (
            vec!["n0".to_string()],
            vec!["n4".to_string(), "zz".to_string()]
        )
    );
    let doc = read_both(&dir);
    let live: Vec<&str> = doc["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(live, ["n2", "n3", "n5"]);
    assert_eq!(doc["total_datasets"], 6);
    assert_eq!(
        doc["array_stats"]["v"]["min"],
        serde_json::json!({"type": "UInt", "value": 2})
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 2, "{leftovers:?}");
}

#[test]
fn a_new_collection_replaces_the_old_and_its_mask() {
    let dir = scratch("replace");
    for round in 0..2u8 {
        let w = AtlasWriter::create(&dir, WriterConfig::default()).unwrap();
        for i in 0..3u8 {
            let mut ds = w.add_dataset(&format!("r{round}_{i}")).unwrap();
            put(&mut ds, "v", &[1], None, &[i]);
            ds.finish().unwrap();
        }
        w.finish().unwrap();
        if round == 0 {
            delete_datasets(&dir, &["r0_0"], false).unwrap();
        }
    }
    let doc = read_both(&dir);
    assert_eq!(
        doc["dataset_count"], 3,
        "the old mask does not hide the new datasets"
    );
}

#[test]
fn datasets_written_from_several_threads_land_in_add_order() {
    let dir = scratch("threads");
    let w = AtlasWriter::create(&dir, config(Codec::Lz4, 4096)).unwrap();
    let opened: Vec<DatasetWriter> = (0..8)
        .map(|i| w.add_dataset(&format!("t{i}")).unwrap())
        .collect();
    std::thread::scope(|scope| {
        for (i, mut ds) in opened.into_iter().enumerate() {
            scope.spawn(move || {
                let values: Vec<i32> = (0..1000).map(|k| k * 8 + i as i32).collect();
                put(&mut ds, "v", &[1000], Some(&[64]), &values);
                ds.set_attribute("thread", Attr::Int64(i as i64));
                ds.finish().unwrap();
            });
        }
    });
    w.finish().unwrap();
    let doc = read_both(&dir);
    for i in 0..8i32 {
        let ds = dataset(&doc, &format!("t{i}"));
        assert_eq!(ds["ordinal"], i);
        let values: Vec<i32> = (0..1000).map(|k| k * 8 + i).collect();
        assert_eq!(
            array(&doc, &format!("t{i}"), "v")["values"],
            serde_json::json!(values)
        );
    }
}
