//! Atria's DELTALAKE layout: the Delta log replayed as delta-rs replays it
//! (tests/atria/make_corpus.py writes the tables with deltalake 1.6.6 and
//! records what delta-rs reads back), protocols refused by name, forged logs
//! as typed errors.

#![cfg(feature = "atria")]

#[path = "atria/corpus.rs"]
mod corpus;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use atlas_wasm::atria::{AtriaCache, Defect, DeltaRows, DeltaTable, DirStore};
use corpus::{block_on, canonical, corpus, delta_config, expected, CountingStore};
use serde_json::Value as Json;

fn truth(dir: &Path, split: &str) -> Json {
    expected(dir)["delta"][split].clone()
}

fn log_paths(table: &DeltaTable) -> Vec<String> {
    let mut paths: Vec<String> = table.files().iter().map(|f| f.log_path.clone()).collect();
    paths.sort();
    paths
}

#[test]
fn a_json_only_log_replays_to_the_files_delta_rs_reads() {
    let Some(dir) = corpus() else { return };
    let want = truth(dir, "test");
    assert!(
        want["checkpoint"].is_null(),
        "the test table has no checkpoint"
    );
    for store in [
        CountingStore::listing(delta_config(dir)),
        CountingStore::new(delta_config(dir)),
    ] {
        let table = block_on(DeltaTable::open(&store, "delta/test")).unwrap();
        assert_eq!(table.version(), want["version"].as_u64().unwrap());
        assert_eq!(serde_json::json!(log_paths(&table)), want["files"]);
        let names: Vec<&str> = table.fields().iter().map(|f| f.name.as_str()).collect();
        let want_names: Vec<&str> = want["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c[0].as_str().unwrap())
            .collect();
        assert_eq!(names, want_names);
        let types: Vec<&str> = table
            .fields()
            .iter()
            .map(|f| f.data_type.as_str())
            .collect();
        assert_eq!(
            &types[..5],
            ["string", "long", "integer", "double", "float"]
        );
        assert!(types.contains(&"array<double>") && types.contains(&"binary"));
        // Every row count comes from the log's statistics: no data file read.
        assert!(table.files().iter().all(|f| f.num_records.is_some()));
        assert!(
            store
                .paths_read()
                .iter()
                .all(|p| p.contains("/_delta_log/")),
            "{:?}",
            store.paths_read()
        );
    }
}

#[test]
fn without_last_checkpoint_the_log_is_replayed_from_version_0() {
    let Some(dir) = corpus() else { return };
    let want = truth(dir, "train");
    let root = delta_config(dir);
    // A store that cannot list and has lost `_last_checkpoint`.
    let store =
        move |path: &str| -> atlas_wasm::Result<std::sync::Arc<dyn atlas_wasm::ByteSource>> {
            if path.ends_with("_last_checkpoint") {
                return Err(atlas_wasm::Error::NotFound(path.into()));
            }
            Ok(std::sync::Arc::new(atlas_wasm::source::FileSource::open(
                root.join(path),
            )?))
        };
    let table = block_on(DeltaTable::open(&store, "delta/train")).unwrap();
    assert_eq!(table.version(), want["version"].as_u64().unwrap());
    assert_eq!(serde_json::json!(log_paths(&table)), want["files"]);
}

/// A table of hand-written commits, `delta/train/_delta_log/{i:020}.json`.
fn hand_written(name: &str, commits: &[&str]) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("atria-delta-{name}"));
    let _ = std::fs::remove_dir_all(&root);
    let log = root.join("delta/train/_delta_log");
    std::fs::create_dir_all(&log).unwrap();
    for (i, commit) in commits.iter().enumerate() {
        std::fs::write(log.join(format!("{i:020}.json")), commit).unwrap();
    }
    root
}

const SCHEMA: &str = r#"{"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{}}}"#;

fn protocol(features: &str) -> String {
    format!(
        r#"{{"protocol":{{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":[{features}],"writerFeatures":[]}}}}"#
    )
}

fn open(root: &Path) -> atlas_wasm::atria::Result<DeltaTable> {
    block_on(DeltaTable::open(&DirStore::new(root), "delta/train"))
}

#[test]
fn reader_features_it_cannot_honour_are_refused_by_name() {
    let honoured = hand_written(
        "ntz",
        &[&format!("{}\n{SCHEMA}\n", protocol(r#""timestampNtz""#))],
    );
    let table = open(&honoured).unwrap();
    assert_eq!((table.version(), table.files().len()), (0, 0));
    for (name, features) in [
        ("v2", r#""timestampNtz","deletionVectors","v2Checkpoint""#),
        ("unknown", r#""somethingNew""#),
    ] {
        let root = hand_written(name, &[&format!("{}\n{SCHEMA}\n", protocol(features))]);
        let err = open(&root).unwrap_err();
        assert_eq!(err.code(), "UnsupportedProtocol", "{err}");
        let feature = features.rsplit('"').nth(1).unwrap();
        assert!(err.to_string().contains(feature), "{err}");
        // The same refusal through the cache, when the split is opened.
        let cache = block_on(AtriaCache::open(DirStore::new(&root))).unwrap();
        assert_eq!(cache.backend(), "deltalake");
        let err = block_on(cache.split("train")).unwrap_err();
        assert_eq!(err.code(), "UnsupportedProtocol");
    }
    let v4 = r#"{"protocol":{"minReaderVersion":4,"minWriterVersion":7}}"#;
    let err = open(&hand_written("v4", &[&format!("{v4}\n{SCHEMA}\n")])).unwrap_err();
    assert_eq!(err.code(), "UnsupportedProtocol");
    // Deletion vectors are applied (deletion_vectors_* below).
    let dv = hand_written(
        "dv",
        &[&format!("{}\n{SCHEMA}\n", protocol(r#""deletionVectors""#))],
    );
    open(&dv).unwrap();
    // A protocol raised in a later commit counts too.
    let v1 = r#"{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}"#;
    let later = hand_written(
        "later",
        &[&format!("{v1}\n{SCHEMA}\n"), &protocol(r#""v2Checkpoint""#)],
    );
    assert_eq!(open(&later).unwrap_err().code(), "UnsupportedProtocol");
}

#[test]
fn adds_and_removes_replay_in_order() {
    let v1 = r#"{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}"#;
    let add = |p: &str, n: u64| {
        format!(
            r#"{{"add":{{"path":"{p}","partitionValues":{{}},"size":10,"modificationTime":0,"dataChange":true,"stats":"{{\"numRecords\":{n}}}"}}}}"#
        )
    };
    let remove = |p: &str| format!(r#"{{"remove":{{"path":"{p}","dataChange":true}}}}"#);
    let root = hand_written(
        "replay",
        &[
            &format!(
                "{v1}\n{SCHEMA}\n{}\n{}\n",
                add("a.parquet", 1),
                add("b%20c.parquet", 2)
            ),
            &format!("{}\n{}\n", remove("a.parquet"), add("d.parquet", 3)),
            &format!("{}\r\n\r\n", add("a.parquet", 4)),
        ],
    );
    let table = open(&root).unwrap();
    assert_eq!(table.version(), 2);
    let files: Vec<(&str, &str, Option<u64>)> = table
        .files()
        .iter()
        .map(|f| (f.log_path.as_str(), f.path.as_str(), f.num_records))
        .collect();
    assert_eq!(
        files,
        [
            ("b%20c.parquet", "delta/train/b c.parquet", Some(2)),
            ("d.parquet", "delta/train/d.parquet", Some(3)),
            ("a.parquet", "delta/train/a.parquet", Some(4)),
        ]
    );
}

#[test]
fn forged_logs_are_typed_errors() {
    let v1 = r#"{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}"#;
    let base = format!("{v1}\n{SCHEMA}\n");
    let cases: Vec<(&str, Vec<String>, &str)> = vec![
        (
            "truncated",
            vec![base[..base.len() - 20].to_string()],
            "Corrupt",
        ),
        ("not-an-object", vec![format!("{base}[1, 2]\n")], "Corrupt"),
        ("no-metadata", vec![format!("{v1}\n")], "Corrupt"),
        ("no-protocol", vec![format!("{SCHEMA}\n")], "Corrupt"),
        (
            "bad-schema",
            vec![format!(
                "{v1}\n{}\n",
                SCHEMA.replace(r#"\"struct\""#, r#"\"nope\""#)
            )],
            "Corrupt",
        ),
        (
            "escaping-add",
            vec![format!(
                r#"{base}{{"add":{{"path":"..%2F..%2Fx","size":1,"partitionValues":{{}}}}}}"#
            )],
            "Corrupt",
        ),
        (
            "absolute-add",
            vec![format!(
                r#"{base}{{"add":{{"path":"s3://b/x.parquet","size":1}}}}"#
            )],
            "UnsupportedProtocol",
        ),
        (
            "sizeless-add",
            vec![format!(r#"{base}{{"add":{{"path":"x.parquet"}}}}"#)],
            "Corrupt",
        ),
        (
            "deep",
            vec![format!("{base}{}\n", "[".repeat(10_000))],
            "Corrupt",
        ),
        ("empty", vec![], "NotFound"),
    ];
    for (name, commits, code) in cases {
        let commits: Vec<&str> = commits.iter().map(String::as_str).collect();
        let root = hand_written(name, &commits);
        let err = open(&root).unwrap_err();
        assert_eq!(err.code(), code, "{name}: {err}");
        // Probing (a store that cannot list) reaches the same verdict.
        let err = block_on(DeltaTable::open(
            &CountingStore::new(root.clone()),
            "delta/train",
        ))
        .unwrap_err();
        assert_eq!(err.code(), code, "{name} probed: {err}");
    }
    // A gap in a listed log, and a _last_checkpoint that lies.
    let gap = hand_written("gap", &[&base, "", ""]);
    std::fs::remove_file(gap.join("delta/train/_delta_log/00000000000000000001.json")).unwrap();
    assert_eq!(open(&gap).unwrap_err().code(), "Corrupt");
    let log = |root: &Path| root.join("delta/train/_delta_log/_last_checkpoint");
    let lying = hand_written("lying", &[&base]);
    std::fs::write(log(&lying), r#"{"version":7,"size":3}"#).unwrap();
    let err = block_on(DeltaTable::open(
        &CountingStore::new(lying.clone()),
        "delta/train",
    ))
    .unwrap_err();
    assert_eq!(err.code(), "Corrupt", "{err}");
    std::fs::write(log(&lying), r#"{"version":"#).unwrap();
    let err = block_on(DeltaTable::open(
        &CountingStore::new(lying.clone()),
        "delta/train",
    ))
    .unwrap_err();
    assert_eq!(err.code(), "Corrupt", "{err}");
}

/// The bytes a content field's truth names, straight from the file.
fn truth_bytes(dir: &Path, member: &Json) -> Vec<u8> {
    let file = std::fs::read(delta_config(dir).join(member["shard"].as_str().unwrap())).unwrap();
    let offset = member["offset"].as_u64().unwrap() as usize;
    let size = member["size"].as_u64().unwrap() as usize;
    file[offset..offset + size].to_vec()
}

fn rows_by_key(split: &atlas_wasm::atria::Split) -> Vec<(String, u64, Json)> {
    let mut out = Vec::new();
    let mut rows = split.rows();
    let mut i = 0;
    while let Some(row) = block_on(rows.next()) {
        let row = canonical(&row.unwrap());
        out.push((row["__key__"].as_str().unwrap().to_string(), i, row));
        i += 1;
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn every_row_equals_what_delta_rs_reads() {
    let Some(dir) = corpus() else { return };
    for store in [
        CountingStore::listing(delta_config(dir)),
        CountingStore::new(delta_config(dir)),
    ] {
        let cache = block_on(AtriaCache::open(store)).unwrap();
        assert_eq!(cache.backend(), "deltalake");
        assert_eq!(cache.splits(), ["train", "test"]);
        for name in ["train", "test"] {
            let want = truth(dir, name);
            let split = block_on(cache.split(name)).unwrap();
            let table = split.delta().unwrap();
            assert_eq!(table.version(), want["version"].as_u64().unwrap());
            assert_eq!(serde_json::json!(log_paths(table)), want["files"]);
            let rows: Vec<Json> = rows_by_key(&split).into_iter().map(|r| r.2).collect();
            assert_eq!(split.num_rows(), rows.len() as u64);
            assert_eq!(&rows, want["rows"].as_array().unwrap(), "split {name}");
            // Drafts and the deleted row are gone; the later appends are there.
            let keys: Vec<&str> = rows
                .iter()
                .map(|r| r["__key__"].as_str().unwrap())
                .collect();
            assert!(!keys.iter().any(|k| k.starts_with("draft-")));
            assert!(keys.contains(&format!("late-{name}-1").as_str()));
            assert!(rows.iter().any(|r| r["bbox"] == serde_json::json!([])));
        }
    }
}

#[test]
fn partition_values_are_typed_as_delta_rs_reads_them() {
    let Some(dir) = corpus() else { return };
    let store = DirStore::new(dir);
    let table = block_on(DeltaTable::open(&store, "partitioned/delta/train")).unwrap();
    assert_eq!(table.partition_columns().len(), 14);
    let rows = block_on(DeltaRows::new(table, Arc::new(store))).unwrap();
    let mut read: Vec<Json> = (0..rows.num_rows())
        .map(|i| canonical(&block_on(rows.row(i)).unwrap()))
        .collect();
    read.sort_by_key(|r| r["n"].as_i64().unwrap());
    // Dates as days, timestamps as microseconds, decimals unscaled, an
    // empty string and missing values as null.
    assert_eq!(
        &read,
        expected(dir)["partitioned"]["rows"].as_array().unwrap()
    );
}

#[test]
fn column_mapped_tables_read_by_physical_names_under_logical_ones() {
    let Some(dir) = corpus() else { return };
    for (split, mode) in [("train", "name"), ("test", "id")] {
        let want = &expected(dir)["column_mapping"][split];
        assert_eq!(want["mode"], mode);
        let store = DirStore::new(dir.join("mapped"));
        let table = block_on(DeltaTable::open(&store, &format!("delta/{split}"))).unwrap();
        // Renamed after the first write, a column added after the checkpoint.
        let names: Vec<&str> = table.fields().iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a", "bee", "s", "l", "part", "late"], "{mode}");
        assert!(table
            .fields()
            .iter()
            .all(|f| f.physical_name.starts_with("col-")));
        assert_eq!(table.partition_columns(), ["part"]);
        let rows = block_on(DeltaRows::new(table, Arc::new(store))).unwrap();
        let mut read: Vec<Json> = (0..rows.num_rows())
            .map(|i| canonical(&block_on(rows.row(i)).unwrap()))
            .collect();
        read.sort_by_key(|r| r["a"].as_i64().unwrap());
        assert_eq!(&read, want["rows"].as_array().unwrap(), "{mode}");
    }
}

/// The kind a defect is reported as, as expected.json's `reported` names it.
fn kind(defect: &Defect) -> &'static str {
    match defect {
        Defect::PastEnd => "PastEnd",
        Defect::Misaligned => "Misaligned",
        Defect::NoHeader { .. } => "NoHeader",
        Defect::OtherMember { .. } => "OtherMember",
        Defect::NoShard => "NoShard",
        Defect::SplitMissing => "SplitMissing",
    }
}

#[test]
fn every_content_field_is_verified_recovered_or_found_under_its_split() {
    let Some(dir) = corpus() else { return };
    let cache = block_on(AtriaCache::open(DirStore::new(delta_config(dir)))).unwrap();
    // (split, naming, outcome) -> fields, over every row's three fields.
    let mut tally: BTreeMap<(&str, &str, String), usize> = BTreeMap::new();
    for name in ["train", "test"] {
        let want = truth(dir, name);
        let split = block_on(cache.split(name)).unwrap();
        for (key, i, row) in rows_by_key(&split) {
            for field in ["image", "ocr", "document"] {
                let stored = &row[format!("{field}__content")];
                let path = &row[format!("{field}__file_path")];
                if !stored.is_null() {
                    let bytes = block_on(split.content(i, field)).unwrap();
                    assert_eq!(serde_json::json!({ "$bin": corpus::hex(&bytes) }), *stored);
                    let check = block_on(split.check(i, field)).unwrap();
                    assert!(check.ok && check.naming.is_none(), "{key} {field}");
                    *tally.entry((name, "-", "inline".into())).or_default() += 1;
                    continue;
                }
                if path.is_null() {
                    let err = block_on(split.content(i, field)).unwrap_err();
                    assert_eq!(err.code(), "NotFound", "{key} {field}");
                    *tally.entry((name, "-", "absent".into())).or_default() += 1;
                    continue;
                }
                let truth = &want["content"][&key][field];
                assert_eq!(truth["pointer"], *path, "{key} {field}");
                let member = &truth["expected"];
                let bytes = block_on(split.content(i, field)).unwrap();
                assert_eq!(bytes, truth_bytes(dir, member), "{key} {field}");
                let check = block_on(split.check(i, field)).unwrap();
                assert_eq!(check.pointer, path.as_str().unwrap());
                let at = check.member.clone().unwrap();
                assert_eq!(
                    (at.shard.as_str(), at.name.as_str(), at.offset, at.size),
                    (
                        member["shard"].as_str().unwrap(),
                        member["name"].as_str().unwrap(),
                        member["offset"].as_u64().unwrap(),
                        member["size"].as_u64().unwrap()
                    ),
                    "{key} {field}"
                );
                let naming = check.naming.map(|n| n.as_str());
                assert_eq!(naming, truth["naming"].as_str(), "{key} {field}");
                let outcome = match (truth["reported"].as_str(), &check.defect) {
                    (None, None) => {
                        assert!(check.ok && !check.recovered, "{key} {field}");
                        "verified".to_string()
                    }
                    (Some(reported), Some(defect)) => {
                        assert!(!check.ok && check.recovered, "{key} {field}");
                        assert_eq!(kind(defect), reported, "{key} {field}: {defect:?}");
                        format!("recovered, {reported}")
                    }
                    other => panic!("{key} {field}: {other:?}"),
                };
                *tally
                    .entry((name, naming.unwrap_or("-"), outcome))
                    .or_default() += 1;
            }
        }
    }
    let tally: Vec<(&str, &str, &str, usize)> = tally
        .iter()
        .map(|((split, naming, outcome), n)| (*split, *naming, outcome.as_str(), *n))
        .collect();
    // Train is named as Atria names members, test as other writers do. The
    // `-` rows are data/ files (document), inline bytes and empty fields.
    assert_eq!(
        tally,
        [
            ("test", "-", "absent", 15),
            ("test", "-", "inline", 5),
            ("test", "-", "recovered, SplitMissing", 2),
            ("test", "-", "verified", 4),
            ("test", "field", "recovered, OtherMember", 6),
            ("test", "field", "recovered, PastEnd", 2),
            ("test", "field", "verified", 23),
            ("train", "-", "absent", 31),
            ("train", "-", "inline", 10),
            ("train", "-", "recovered, SplitMissing", 8),
            ("train", "-", "verified", 8),
            ("train", "content", "recovered, NoHeader", 2),
            ("train", "content", "recovered, OtherMember", 12),
            ("train", "content", "recovered, PastEnd", 6),
            ("train", "content", "verified", 58),
        ]
    );
}

#[test]
fn a_table_with_a_checkpoint_opens_without_reading_a_data_file() {
    let Some(dir) = corpus() else { return };
    let want = truth(dir, "train");
    let store = CountingStore::new(delta_config(dir));
    let cache = block_on(AtriaCache::open(store.clone())).unwrap();
    let split = block_on(cache.split("train")).unwrap();
    let read = store.paths_read();
    assert!(read.iter().all(|p| p.contains("/_delta_log/")), "{read:?}");
    let checkpoint = format!(
        "delta/train/_delta_log/{:020}.checkpoint.parquet",
        want["checkpoint"].as_u64().unwrap()
    );
    assert!(read.contains(&checkpoint), "{read:?}");
    // Commits before the checkpoint are not read.
    assert!(!read.contains(&format!("delta/train/_delta_log/{:020}.json", 0)));
    // A verified pointer costs one request once its row is in memory.
    let rows = rows_by_key(&split);
    let (key, i, _) = rows
        .iter()
        .find(|(k, _, r)| {
            !r["image__file_path"].is_null() && want["content"][k]["image"]["defect"].is_null()
        })
        .unwrap();
    block_on(split.row(*i)).unwrap();
    let before = store.requests();
    block_on(split.content(*i, "image")).unwrap();
    assert_eq!(store.requests() - before, 1, "{key}");
}

/// A table of tests/atria/delta-dv (tables with deletion vectors written by
/// Spark and Databricks; SOURCE.md beside each says whence) and the rows
/// delta-rs reads from it (expected.json, tests/atria/delta-dv/make_expected.py).
fn dv_table(name: &str) -> (PathBuf, Json) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/atria/delta-dv")
        .join(name);
    let text = std::fs::read_to_string(root.join("expected.json")).unwrap();
    (root, serde_json::from_str(&text).unwrap())
}

/// Rows equal to what delta-rs read: integers and strings exactly, floats to
/// within an ulp or so (serde_json's default float parsing may land one ulp
/// off the number Python printed).
fn same_json(read: &[Json], want: &[Json], name: &str) {
    assert_eq!(read.len(), want.len(), "{name}");
    for (i, (r, w)) in read.iter().zip(want).enumerate() {
        let (r, w) = (r.as_object().unwrap(), w.as_object().unwrap());
        assert_eq!(
            r.keys().collect::<Vec<_>>(),
            w.keys().collect::<Vec<_>>(),
            "{name} row {i}"
        );
        for (k, wv) in w {
            let rv = &r[k];
            match (rv.as_f64(), wv.as_f64()) {
                (Some(a), Some(b)) if rv.is_f64() || wv.is_f64() => {
                    assert!(
                        (a - b).abs() <= b.abs() * 1e-15,
                        "{name} row {i} {k}: {a} != {b}"
                    )
                }
                _ => assert_eq!(rv, wv, "{name} row {i} {k}"),
            }
        }
    }
}

/// The table's rows through `Split::row` and `Split::rows`, checked alike.
fn split_rows(root: &Path) -> Vec<Json> {
    let cache = block_on(AtriaCache::open(DirStore::new(root))).unwrap();
    assert_eq!(
        (cache.backend(), cache.splits()),
        ("deltalake", &["train".to_string()][..])
    );
    let split = block_on(cache.split("train")).unwrap();
    let by_index: Vec<Json> = (0..split.num_rows())
        .map(|i| canonical(&block_on(split.row(i)).unwrap()))
        .collect();
    let mut cursor = split.rows();
    let mut iterated = Vec::new();
    while let Some(row) = block_on(cursor.next()) {
        iterated.push(canonical(&row.unwrap()));
    }
    assert_eq!(by_index, iterated);
    let past = block_on(split.row(split.num_rows())).unwrap_err();
    assert_eq!(past.code(), "OutOfBounds");
    by_index
}

#[test]
fn deletion_vectors_in_files_inline_and_across_checkpoints_hide_their_rows() {
    for (name, version, rows, gone) in [
        // Spark's DELETE of value IN (0, 9): one DV file, offset 1.
        ("table-with-dv-small", 1, 8, vec![0, 9]),
        // The same bitmap inline (storageType 'i').
        ("table-with-inline-dv", 1, 8, vec![0, 9]),
        // DELETEs of id 12, then 89, replacing the first DV; checkpoints at 10 and 20.
        ("table_with_deletion_logs", 20, 98, vec![12, 89]),
        // An add of a new DV before the remove of the old one, in one commit.
        ("log-replay-dv-key-cases", 3, 47, vec![0, 7, 14]),
    ] {
        let (root, want) = dv_table(name);
        let table = open(&root).unwrap();
        assert_eq!(table.version(), version, "{name}");
        assert_eq!(want["version"], version, "{name}");
        assert_eq!(table.files().len(), 1, "{name}");
        let dv = table.files()[0].deletion_vector.clone().unwrap();
        assert_eq!(dv.cardinality, gone.len() as u64, "{name}");
        let read = split_rows(&root);
        assert_eq!(read.len(), rows, "{name}");
        same_json(&read, want["rows"].as_array().unwrap(), name);
        let key = want["columns"][if name.starts_with("table_") { 3 } else { 0 }]
            .as_str()
            .unwrap();
        for row in &read {
            let k = row[key].as_i64().unwrap();
            assert!(!gone.contains(&k), "{name}: {k} is deleted");
        }
    }
    let (root, _) = dv_table("table-with-dv-small");
    let values: Vec<i64> = split_rows(&root)
        .iter()
        .map(|r| r["value"].as_i64().unwrap())
        .collect();
    assert_eq!(values, [1, 2, 3, 4, 5, 6, 7, 8]);
}

#[test]
fn a_deletion_vector_is_one_ranged_read_of_its_bytes() {
    let (root, _) = dv_table("table-with-dv-small");
    let store = CountingStore::new(root.clone());
    let cache = block_on(AtriaCache::open(store.clone())).unwrap();
    let split = block_on(cache.split("train")).unwrap();
    // The cardinality is in the log: no data file or DV is read to count.
    assert_eq!(split.num_rows(), 8);
    assert!(store
        .paths_read()
        .iter()
        .all(|p| p.contains("/_delta_log/")));
    block_on(split.row(0)).unwrap();
    let dv = "delta/train/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin";
    assert_eq!(
        store.paths_read().iter().filter(|p| *p == dv).count(),
        1,
        "{:?}",
        store.paths_read()
    );
}

/// A copy of table-with-dv-small whose DV file or log is changed by `edit`.
fn forged_dv(name: &str, edit: impl FnOnce(&Path)) -> PathBuf {
    let (src, _) = dv_table("table-with-dv-small");
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("atria-dv-{name}"));
    let _ = std::fs::remove_dir_all(&root);
    let table = root.join("delta/train");
    std::fs::create_dir_all(table.join("_delta_log")).unwrap();
    for rel in [
        "_delta_log/00000000000000000000.json",
        "_delta_log/00000000000000000001.json",
        "part-00000-fae5310a-a37d-4e51-827b-c3d5516560ca-c000.snappy.parquet",
        "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin",
    ] {
        std::fs::copy(src.join("delta/train").join(rel), table.join(rel)).unwrap();
    }
    edit(&table);
    root
}

#[test]
fn forged_deletion_vectors_are_typed_errors() {
    let dv_file = "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin";
    let flip = |at: usize| {
        move |t: &Path| {
            let mut bytes = std::fs::read(t.join(dv_file)).unwrap();
            bytes[at] ^= 1;
            std::fs::write(t.join(dv_file), bytes).unwrap();
        }
    };
    let relog = |from: &'static str, to: &'static str| {
        move |t: &Path| {
            let p = t.join("_delta_log/00000000000000000001.json");
            let text = std::fs::read_to_string(&p).unwrap();
            assert!(text.contains(from), "{from}");
            std::fs::write(&p, text.replace(from, to)).unwrap();
        }
    };
    type Edit = Box<dyn FnOnce(&Path)>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        ("version", Box::new(flip(0)), "version"),
        ("size", Box::new(flip(4)), "bytes"),
        ("bitmap", Box::new(flip(30)), "CRC-32"),
        ("crc", Box::new(flip(44)), "CRC-32"),
        (
            "missing",
            Box::new(move |t: &Path| std::fs::remove_file(t.join(dv_file)).unwrap()),
            "missing",
        ),
        (
            "truncated",
            Box::new(move |t: &Path| {
                let bytes = std::fs::read(t.join(dv_file)).unwrap();
                std::fs::write(t.join(dv_file), &bytes[..40]).unwrap();
            }),
            "past the file",
        ),
        (
            "cardinality",
            Box::new(relog(r#""cardinality":2"#, r#""cardinality":3"#)),
            "the log says 3",
        ),
        (
            "offset",
            Box::new(relog(r#""offset":1,"#, r#""offset":2,"#)),
            "past the file",
        ),
        (
            "sizeInBytes",
            Box::new(relog(r#""sizeInBytes":36"#, r#""sizeInBytes":35"#)),
            "36 bytes",
        ),
    ];
    for (name, edit, says) in cases {
        let root = forged_dv(name, edit);
        let cache = block_on(AtriaCache::open(DirStore::new(&root))).unwrap();
        let split = block_on(cache.split("train")).unwrap();
        let err = block_on(split.row(0)).unwrap_err();
        assert_eq!(err.code(), "Corrupt", "{name}: {err}");
        assert!(err.to_string().contains(says), "{name}: {err}");
    }
    // More deleted rows than the file has, and rows past its end.
    let root = forged_dv(
        "too-many",
        relog(r#""cardinality":2"#, r#""cardinality":11"#),
    );
    let cache = block_on(AtriaCache::open(DirStore::new(&root))).unwrap();
    assert_eq!(
        block_on(cache.split("train")).unwrap_err().code(),
        "Corrupt"
    );
    let root = forged_dv(
        "absolute",
        relog(r#""storageType":"u""#, r#""storageType":"p""#),
    );
    assert_eq!(open(&root).unwrap_err().code(), "UnsupportedProtocol");
}
