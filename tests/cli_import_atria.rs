//! `atlas import-atria` over the Atria corpus (tests/atria/make_corpus.py):
//! every sample becomes a dataset whose attributes, arrays and content equal
//! what `AtriaCache` reads, and atlas-rust 0.17.2 reads each collection as our
//! reader does; a sample whose content is gone is reported and skipped.

#![cfg(all(feature = "cli", feature = "atria"))]

mod common;
#[path = "atria/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use atlas_wasm::atria::{AtriaCache, DirStore, Value};
use atlas_wasm::{ArrayData, Atlas, Attr};
use common::{diff::differences, dump::dump};
use corpus::{block_on, config, corpus, delta_config};
use serde_json::Value as Json;

fn atlas(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_atlas"))
        .args(args)
        .output()
        .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("import-atria-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn import(source: &Path, dst: &Path) -> (Output, Json) {
    let out = atlas(&[
        "import-atria",
        source.to_str().unwrap(),
        dst.to_str().unwrap(),
        "--json",
    ]);
    let summary = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON summary ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, summary)
}

/// atlas-rust and our reader agree on the whole collection.
fn read_both(dir: &Path) -> Atlas {
    let theirs = atlas_interop::dump(dir)
        .unwrap_or_else(|e| panic!("atlas-rust cannot read {}: {e:#}", dir.display()));
    let atlas = block_on(Atlas::open_path(dir)).unwrap();
    let ours = block_on(dump(&atlas)).unwrap();
    let diffs = differences(&ours, &theirs);
    assert!(diffs.is_empty(), "{}: {}", dir.display(), diffs.join("\n"));
    atlas
}

fn array(atlas: &Atlas, dataset: &str, name: &str) -> ArrayData {
    let ds = atlas.dataset(dataset).unwrap();
    block_on(ds.read_array(name, &[], &[]))
        .unwrap_or_else(|e| panic!("{dataset}/{name}: {e}"))
        .data
}

/// Every sample of every split equals what the cache reads: scalars as
/// attributes, content and numeric values as arrays.
fn check_collections(source: &Path, dst: &Path, summary: &Json) -> usize {
    let cache = block_on(AtriaCache::open(DirStore::new(source))).unwrap();
    let mut checked = 0;
    for name in cache.splits() {
        let split = block_on(cache.split(name)).unwrap();
        let atlas = read_both(&dst.join(name));
        assert_eq!(atlas.list_datasets().len() as u64, split.num_rows());
        let fields: Vec<String> = split
            .columns()
            .iter()
            .filter_map(|c| c.name.strip_suffix("__file_path").map(String::from))
            .collect();
        for i in 0..split.num_rows() {
            let row = block_on(split.row(i)).unwrap();
            // A sample without a key column is named by its row number.
            let key = ["__key__", "key"]
                .iter()
                .find_map(|k| match row.get(k) {
                    Some(Value::Str(s)) => Some(s.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| format!("{i:06}"));
            let ds = atlas.dataset(&key).unwrap();
            let attrs = block_on(ds.attributes()).unwrap();
            let Value::Map(entries) = &row else { panic!() };
            for (column, value) in entries {
                let Value::Str(column) = column else { panic!() };
                let got = attrs.get(column);
                match value {
                    Value::Nil => assert!(got.is_none() || column.ends_with("__content")),
                    Value::Int(v) => assert_eq!(got, Some(&Attr::Int64(*v)), "{key} {column}"),
                    Value::Float(v) => {
                        assert_eq!(got, Some(&Attr::Float64(*v)), "{key} {column}")
                    }
                    Value::Bool(v) => assert_eq!(got, Some(&Attr::Bool(*v)), "{key} {column}"),
                    Value::Str(v) => {
                        assert_eq!(got, Some(&Attr::String(v.clone())), "{key} {column}")
                    }
                    Value::Bin(v) if !column.ends_with("__content") => {
                        assert_eq!(array(&atlas, &key, column), ArrayData::UInt8(v.clone()))
                    }
                    Value::List(items) if items.iter().all(|x| matches!(x, Value::Float(_))) => {
                        let floats = items
                            .iter()
                            .map(|x| if let Value::Float(f) = x { *f } else { 0.0 })
                            .collect();
                        assert_eq!(array(&atlas, &key, column), ArrayData::Float64(floats));
                    }
                    Value::Array(a) => {
                        let want = match &a.data {
                            ArrayData::Bool(v) => {
                                ArrayData::UInt8(v.iter().map(|&b| u8::from(b)).collect())
                            }
                            other => other.clone(),
                        };
                        let ds_array = array(&atlas, &key, column);
                        assert_eq!(ds_array, want, "{key} {column}");
                    }
                    _ => {}
                }
            }
            for field in &fields {
                let has_path = !matches!(row.get(&format!("{field}__file_path")), Some(Value::Nil));
                let has_inline =
                    matches!(row.get(&format!("{field}__content")), Some(Value::Bin(_)));
                if has_path || has_inline {
                    let bytes = block_on(split.content(i, field)).unwrap();
                    assert_eq!(
                        array(&atlas, &key, field),
                        ArrayData::UInt8(bytes),
                        "{key} {field}"
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(summary["splits"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["skipped"] == serde_json::json!([])));
    checked
}

#[test]
fn a_delta_cache_becomes_one_collection_per_split() {
    let Some(dir) = corpus() else { return };
    let dst = scratch("delta");
    let (out, summary) = import(&delta_config(dir), &dst);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let checked = check_collections(&delta_config(dir), &dst, &summary);
    assert_eq!(summary["dataset_count"].as_u64().unwrap() as usize, checked);
    let recovered: usize = summary["splits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["recovered"].as_array().unwrap().len())
        .sum();
    assert!(recovered > 20, "{recovered}");
}

#[test]
fn a_msgpack_cache_becomes_one_collection_per_split() {
    let Some(dir) = corpus() else { return };
    let dst = scratch("msgpack");
    let (out, summary) = import(&config(dir), &dst);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let checked = check_collections(&config(dir), &dst, &summary);
    assert!(checked > 50);
}

/// A Delta table partitioned by a column of each type (make_corpus.py's
/// `partitioned/delta/train`) imports with its partition values typed as the table's
/// schema says: dates as days, timestamps as microseconds, booleans,
/// numbers; an empty partition string is null, so no attribute.
#[test]
fn typed_partition_values_become_typed_attributes() {
    let Some(dir) = corpus() else { return };
    let source = dir.join("partitioned");
    let dst = scratch("partitioned");
    let (out, summary) = import(&source, &dst);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = corpus::expected(dir)["partitioned"]["rows"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(check_collections(&source, &dst, &summary), rows);
    let atlas = read_both(&dst.join("train"));
    let typed = atlas
        .list_datasets()
        .iter()
        .map(|name| block_on(atlas.dataset(name).unwrap().attributes()).unwrap())
        .filter(|attrs| attrs.values().any(|a| matches!(a, Attr::Int64(_))))
        .count();
    assert!(typed > 0, "no partition value came back as a number");
}

/// Column-mapped tables (modes name and id) import under their logical
/// column names: no physical `col-…` name reaches a collection.
#[test]
fn column_mapped_tables_import_under_logical_names() {
    let Some(dir) = corpus() else { return };
    let source = dir.join("mapped");
    let dst = scratch("mapped");
    let (out, summary) = import(&source, &dst);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = corpus::expected(dir);
    let mapped = expected["column_mapping"].as_object().unwrap();
    let rows: usize = mapped
        .values()
        .map(|s| s["rows"].as_array().unwrap().len())
        .sum();
    assert_eq!(check_collections(&source, &dst, &summary), rows);
    for split in mapped.keys() {
        let atlas = read_both(&dst.join(split));
        for name in atlas.list_datasets() {
            let attrs = block_on(atlas.dataset(&name).unwrap().attributes()).unwrap();
            assert!(
                attrs.keys().all(|k| !k.starts_with("col-")),
                "{split}/{name}: {:?}",
                attrs.keys().collect::<Vec<_>>()
            );
            assert!(
                attrs.contains_key("bee") && attrs.contains_key("part"),
                "{split}/{name}"
            );
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn samples_whose_content_is_gone_are_reported_and_skipped() {
    let Some(dir) = corpus() else { return };
    let source = scratch("damaged-source");
    copy_dir(&delta_config(dir), &source);
    std::fs::remove_file(source.join("shards/test/000001-000000.tar")).unwrap();
    let dst = scratch("damaged");
    let out = atlas(&[
        "import-atria",
        source.to_str().unwrap(),
        dst.to_str().unwrap(),
        "--split",
        "test",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("skipped test-1-"), "{stderr}");
    assert!(
        stderr.contains("BadPointer")
            || stderr.contains("bad pointer")
            || stderr.contains("shard does not exist"),
        "{stderr}"
    );
    let atlas = read_both(&dst.join("test"));
    assert!(!atlas.list_datasets().iter().any(|n| n == "test-1-000000"));
    assert!(atlas.list_datasets().iter().any(|n| n == "test-0-000000"));
    assert!(!dst.join("train").exists());
}

/// `import-atria --part I/N` takes contiguous shares of each split's
/// samples; merged split by split they are the whole import, value for
/// value, as atlas-rust and we read it.
#[test]
fn parts_of_an_import_merge_into_the_whole_import() {
    let Some(dir) = corpus() else { return };
    let source = delta_config(dir);
    let whole = scratch("parts-whole");
    let (out, summary) = import(&source, &whole);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let splits: Vec<String> = summary["splits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["split"].as_str().unwrap().to_string())
        .collect();
    assert!(splits.len() >= 2, "{splits:?}");
    let root = scratch("parts");
    let mut parts = Vec::new();
    for i in 1..=3 {
        let dst = root.join(format!("part{i}"));
        let out = atlas(&[
            "import-atria",
            source.to_str().unwrap(),
            dst.to_str().unwrap(),
            "--json",
            "--part",
            &format!("{i}/3"),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let summary: Json = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(summary["part"]["index"], i);
        for s in summary["splits"].as_array().unwrap() {
            let rows = s["rows"].as_array().unwrap();
            let len = rows[1].as_u64().unwrap() - rows[0].as_u64().unwrap();
            assert_eq!(s["written"].as_array().unwrap().len() as u64, len, "{s}");
        }
        parts.push(dst);
    }
    let strip = |mut v: Json| {
        v.as_object_mut().unwrap().remove("created_unix_ms");
        v
    };
    for split in &splits {
        let merged = root.join("merged").join(split);
        let mut args = vec!["merge".to_string()];
        args.extend(parts.iter().map(|p| p.join(split).display().to_string()));
        args.push(merged.display().to_string());
        let out = atlas(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (ours, theirs) = (read_both(&merged), read_both(&whole.join(split)));
        assert_eq!(ours.list_datasets(), theirs.list_datasets(), "{split}");
        let diffs = differences(
            &strip(block_on(dump(&ours)).unwrap()),
            &strip(block_on(dump(&theirs)).unwrap()),
        );
        assert!(diffs.is_empty(), "{split}: {}", diffs.join("\n"));
    }
}
