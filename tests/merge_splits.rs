//! One collection built in N = 1, 2, 3 and 7 contiguous parts and joined by
//! `merge` reads, through atlas-rust 0.17.2, as the same collection built
//! whole: names in order, every value, statistics, attributes and layouts
//! (the canonical JSON of interop/ holds all of them). The inputs are the
//! Argo-like profiles and the gridded climate files of make_corpus.py's main
//! corpus (parts by `create --part`), every atlas-rust fixture (a part is the
//! fixture with the other parts' datasets hidden), and our own writer's
//! parts that hold one array name at different dtypes, hidden datasets and
//! no dataset at all.

#![cfg(feature = "writer")]

mod common;

use std::ops::Range;
use std::path::{Path, PathBuf};

use atlas_wasm::write::{delete_datasets, merge, AtlasWriter, WriterConfig};
use atlas_wasm::{Atlas, Attr};
use common::{assert_same, atlas_rust_view, block_on, live_contents, our_view, suite};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("splits-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Part `index` (from 1) of `count` of `0..len`: the share `create --part`
/// takes of a sorted file list.
fn share(index: usize, count: usize, len: usize) -> Range<usize> {
    (index - 1) * len / count..index * len / count
}

#[cfg(feature = "netcdf")]
#[test]
fn netcdf_corpora_created_in_parts_merge_into_the_whole_create() {
    use atlas_wasm::ingest::{create, CreateOptions, Part};

    let main = common::corpus::corpus("main");
    for (label, source, files) in [
        ("argo", main.join("argo"), 200),
        ("grids", main.join("grids"), 6),
    ] {
        let root = scratch(label);
        let whole = root.join("whole");
        create(&source, &whole, &CreateOptions::default(), &mut |_| {}).unwrap();
        let expected = atlas_rust_view(&whole);
        assert_eq!(expected["datasets"].as_array().unwrap().len(), files);
        for count in [1, 2, 3, 7] {
            let mut empty_parts = 0;
            let parts: Vec<PathBuf> = (1..=count)
                .map(|index| {
                    let dir = root.join(format!("{count}-{index}"));
                    let options = CreateOptions {
                        part: Some(Part { index, count }),
                        ..CreateOptions::default()
                    };
                    let made = create(&source, &dir, &options, &mut |_| {}).unwrap();
                    assert_eq!(made.written.len(), share(index, count, files).len());
                    empty_parts += usize::from(made.written.is_empty());
                    dir
                })
                .collect();
            // Six grid files in seven parts: the first part holds none.
            assert_eq!(empty_parts, usize::from(files < count), "{label}");
            let merged = root.join(format!("{count}-merged"));
            let summary = merge(&parts, &merged, |_, _| {}).unwrap();
            assert_eq!(
                (summary.parts, summary.datasets, summary.dropped),
                (count, files, 0)
            );
            assert_same(
                &atlas_rust_view(&merged),
                &expected,
                &format!("{label} in {count} parts, as atlas-rust reads it"),
            );
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
}

/// A copy of the collection `src` at `dir`, mask included.
fn copy_collection(src: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for file in ["data.atlas", "deleted.mask"] {
        if src.join(file).exists() {
            std::fs::copy(src.join(file), dir.join(file)).unwrap();
        }
    }
}

#[test]
fn atlas_rust_fixtures_split_any_way_merge_into_their_live_contents() {
    // One part of each is tests/writer_merge.rs's
    // every_atlas_rust_fixture_merges_alone_into_its_live_contents.
    let root = scratch("fixtures");
    let mut split = 0;
    for src in common::collection_dirs(suite()) {
        let name = src.file_name().unwrap().to_str().unwrap().to_string();
        let live = block_on(Atlas::open_path(&src)).unwrap().list_datasets();
        if live.len() < 2 {
            continue;
        }
        split += 1;
        let expected: Value =
            serde_json::from_slice(&std::fs::read(src.join("expected.json")).unwrap()).unwrap();
        let expected = live_contents(expected);
        for count in [2, 3, 7] {
            let parts: Vec<PathBuf> = (1..=count)
                .map(|index| {
                    let dir = root.join(format!("{name}-{count}-{index}"));
                    copy_collection(&src, &dir);
                    let mine = share(index, count, live.len());
                    let others: Vec<&String> = (0..live.len())
                        .filter(|i| !mine.contains(i))
                        .map(|i| &live[i])
                        .collect();
                    delete_datasets(&dir, &others, false).unwrap();
                    dir
                })
                .collect();
            let merged = root.join(format!("{name}-{count}-merged"));
            let summary =
                merge(&parts, &merged, |_, _| {}).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(summary.datasets, live.len(), "{name}");
            assert_same(
                &live_contents(atlas_rust_view(&merged)),
                &expected,
                &format!("{name} in {count} parts, as atlas-rust reads it"),
            );
            for dir in parts.iter().chain([&merged]) {
                std::fs::remove_dir_all(dir).unwrap();
            }
        }
    }
    // Every fixture but large_window (one dataset), the empty one and the
    // one with nothing live.
    assert!(split >= 14, "{split}");
}

/// Dataset `cast_{i}` for each `i` of `indices`: its `temp` is float32 for
/// i < 4, float64 for i < 8 and int16 from 8 on, and its `units` a string,
/// a float and an integer likewise, so parts over 0..4, 4..8 and 8..12
/// each hold one dtype of the name.
fn write_casts(dir: &Path, indices: Range<usize>) {
    let writer = AtlasWriter::create(dir, WriterConfig::default()).unwrap();
    for i in indices {
        let mut ds = writer.add_dataset(&format!("cast_{i:02}")).unwrap();
        let dims = vec!["level".to_string()];
        let len = 3 + i as u64 % 3;
        let units = match i / 4 {
            0 => {
                let v: Vec<f32> = (0..len).map(|k| i as f32 + k as f32 / 8.0).collect();
                ds.define_array::<f32>("temp", dims, &[len], None, None)
                    .unwrap();
                ds.write_array("temp", &[0], &[len], &v).unwrap();
                Attr::String("K".into())
            }
            1 => {
                let v: Vec<f64> = (0..len).map(|k| -(i as f64) - k as f64 / 3.0).collect();
                ds.define_array::<f64>("temp", dims, &[len], Some(&[2]), None)
                    .unwrap();
                ds.write_array("temp", &[0], &[len], &v).unwrap();
                Attr::Float64(0.01 * i as f64)
            }
            _ => {
                let v: Vec<i16> = (0..len).map(|k| (i * 100 + k as usize) as i16).collect();
                ds.define_array::<i16>("temp", dims, &[len], None, None)
                    .unwrap();
                ds.write_array("temp", &[0], &[len], &v).unwrap();
                Attr::Int64(i as i64)
            }
        };
        ds.set_array_attribute("temp", "units", units).unwrap();
        ds.set_attribute("cast", Attr::Int64(i as i64));
        ds.finish().unwrap();
    }
    writer.finish().unwrap();
}

#[test]
fn parts_of_one_name_at_other_dtypes_empty_parts_and_hidden_datasets_merge_as_one() {
    let root = scratch("casts");
    let whole = root.join("whole");
    write_casts(&whole, 0..12);
    // Empty parts first, between and last.
    let shares = [0..0, 0..4, 4..4, 4..8, 8..12, 12..12];
    let parts: Vec<PathBuf> = shares
        .iter()
        .enumerate()
        .map(|(k, range)| {
            let dir = root.join(format!("part-{k}"));
            write_casts(&dir, range.clone());
            dir
        })
        .collect();
    let merged = root.join("merged");
    let summary = merge(&parts, &merged, |_, _| {}).unwrap();
    assert_eq!(
        (summary.parts, summary.datasets, summary.dropped),
        (6, 12, 0)
    );
    assert_same(
        &atlas_rust_view(&merged),
        &atlas_rust_view(&whole),
        "atlas-rust reads the merge otherwise",
    );
    assert_same(
        &our_view(&merged),
        &our_view(&whole),
        "we read the merge otherwise",
    );
    let dtypes: Vec<Value> = atlas_rust_view(&merged)["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["arrays"][0]["dtype"].clone())
        .collect();
    assert_eq!(
        (&dtypes[0], &dtypes[4], &dtypes[11]),
        (&"float32".into(), &"float64".into(), &"int16".into())
    );
    let (a, b) = (
        block_on(Atlas::open_path(&merged)).unwrap(),
        block_on(Atlas::open_path(&whole)).unwrap(),
    );
    assert_eq!(a.footer().dtype_pool, b.footer().dtype_pool);
    assert_eq!(a.footer().schema_pool, b.footer().schema_pool);

    // Hide one float64 cast and every int16 one: the int16 part is then
    // live in nothing, and its name at that dtype in no live dataset.
    let hidden: Vec<String> = [5, 8, 9, 10, 11]
        .iter()
        .map(|i| format!("cast_{i:02}"))
        .collect();
    delete_datasets(&whole, &hidden, false).unwrap();
    delete_datasets(&parts[3], &hidden[..1], false).unwrap();
    delete_datasets(&parts[4], &hidden[1..], false).unwrap();
    std::fs::remove_dir_all(&merged).unwrap();
    let summary = merge(&parts, &merged, |_, _| {}).unwrap();
    assert_eq!((summary.datasets, summary.dropped), (7, 5));
    assert_same(
        &live_contents(atlas_rust_view(&merged)),
        &live_contents(atlas_rust_view(&whole)),
        "the merge's live datasets, as atlas-rust reads them",
    );
}
