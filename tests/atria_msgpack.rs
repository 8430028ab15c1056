//! datadings msgpack shards over the corpus datadings and msgpack-numpy
//! wrote (tests/atria/make_corpus.py): every record and every array value
//! equal to what Python wrote, and one request per record.

#![cfg(feature = "atria")]

#[path = "atria/corpus.rs"]
mod corpus;

use std::path::Path;

use atlas_wasm::atria::{DirStore, MsgpackShard, MsgpackSplit, Value};
use corpus::{block_on, canonical, config, corpus, expected, CountingStore};
use serde_json::{json, Value as Json};

const SPLITS: [&str; 2] = ["train", "test"];

fn shards(dir: &Path, split: &str) -> Vec<(String, Json)> {
    let all = expected(dir);
    let mut shards: Vec<(String, Json)> = all["msgpack"][split]["shards"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    shards.sort_by(|a, b| a.0.cmp(&b.0));
    shards
}

#[test]
fn every_record_and_array_equals_what_python_wrote() {
    let Some(dir) = corpus() else { return };
    let store = DirStore::new(config(dir));
    let (mut records, mut arrays, mut empty, mut scalars) = (0, 0, 0, 0);
    for split in SPLITS {
        for (path, want) in shards(dir, split) {
            let shard = block_on(MsgpackShard::open(&store, &path)).unwrap();
            assert_eq!(shard.count(), want["count"].as_u64().unwrap(), "{path}");
            let keys = block_on(shard.keys()).unwrap();
            assert_eq!(json!(keys), want["keys"], "{path}");
            for (i, want) in want["records"].as_array().unwrap().iter().enumerate() {
                let record = block_on(shard.record(i as u64)).unwrap();
                assert_eq!(canonical(&record), *want, "{path} record {i}");
                let by_key = block_on(shard.record_by_key(&keys[i])).unwrap();
                assert_eq!(by_key, record);
                records += 1;
                let Value::Map(entries) = &record else {
                    panic!("not a map")
                };
                for (_, v) in entries {
                    if let Value::Array(a) = v {
                        arrays += 1;
                        empty += usize::from(a.shape.contains(&0));
                        scalars += usize::from(a.shape.is_empty());
                    }
                }
            }
            let err = block_on(shard.record(shard.count())).unwrap_err();
            assert_eq!(err.code(), "OutOfBounds");
            let err = block_on(shard.record_by_key("nobody")).unwrap_err();
            assert_eq!(err.code(), "NotFound");
        }
    }
    assert!(records > 50 && arrays > 500 && empty > 0 && scalars > 0);
}

#[test]
fn a_record_costs_one_request_after_the_offsets() {
    let Some(dir) = corpus() else { return };
    let store = CountingStore::new(config(dir));
    let (path, _) = &shards(dir, "train")[0];
    let shard = block_on(MsgpackShard::open(&store, path)).unwrap();
    // The `.offsets` sidecar, and the data file's size to check them against.
    assert_eq!(store.requests(), 2);
    for i in 0..shard.count() {
        let before = store.requests();
        block_on(shard.record(i)).unwrap();
        assert_eq!(store.requests() - before, 1);
    }
    let before = store.requests();
    let keys = block_on(shard.keys()).unwrap();
    assert_eq!(store.requests() - before, 1, "the .keys sidecar, once");
    block_on(shard.record_by_key(&keys[1])).unwrap();
    assert_eq!(store.requests() - before, 2);
}

#[test]
fn a_split_reads_its_shards_in_order() {
    let Some(dir) = corpus() else { return };
    let store = DirStore::new(config(dir));
    for split in SPLITS {
        let want: Vec<Json> = shards(dir, split)
            .into_iter()
            .flat_map(|(_, s)| s["records"].as_array().unwrap().clone())
            .collect();
        let probed = block_on(MsgpackSplit::probe(&store, &format!("msgpack/{split}"))).unwrap();
        let paths: Vec<String> = shards(dir, split).into_iter().map(|(p, _)| p).collect();
        let found: Vec<&str> = probed.shards().iter().map(|s| s.path()).collect();
        assert_eq!(found, paths);
        assert_eq!(probed.num_rows(), want.len() as u64);
        let mut rows = probed.rows();
        let mut got = Vec::new();
        while let Some(row) = block_on(rows.next()) {
            got.push(canonical(&row.unwrap()));
        }
        assert_eq!(got, want, "{split}");
        let opened = block_on(MsgpackSplit::open(&store, &paths)).unwrap();
        let last = opened.num_rows() - 1;
        assert_eq!(
            canonical(&block_on(opened.record(last)).unwrap()),
            want[last as usize]
        );
    }
}

#[test]
fn damaged_sidecars_and_records_are_typed_errors() {
    let Some(dir) = corpus() else { return };
    let (path, _) = &shards(dir, "train")[0];
    let source = config(dir).join(path);
    let data = std::fs::read(&source).unwrap();
    let offsets = std::fs::read(format!("{}.offsets", source.display())).unwrap();
    let keys = std::fs::read(format!("{}.keys", source.display())).unwrap();
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("atria-damaged-msgpack");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let write = |name: &str, data: &[u8], offsets: &[u8], keys: &[u8]| {
        std::fs::write(work.join(name), data).unwrap();
        std::fs::write(work.join(format!("{name}.offsets")), offsets).unwrap();
        std::fs::write(work.join(format!("{name}.keys")), keys).unwrap();
    };
    let store = DirStore::new(&work);
    let open = |name: &str| block_on(MsgpackShard::open(&store, name));
    // Offsets that are not whole u64s; that do not end at the data's size;
    // that go backwards.
    write("odd.msgpack", &data, &offsets[..offsets.len() - 3], &keys);
    assert_eq!(open("odd.msgpack").err().unwrap().code(), "Corrupt");
    write("short.msgpack", &data[..data.len() - 1], &offsets, &keys);
    assert_eq!(open("short.msgpack").err().unwrap().code(), "Corrupt");
    let mut backwards = offsets.clone();
    backwards[8..16].copy_from_slice(&u64::MAX.to_be_bytes());
    write("backwards.msgpack", &data, &backwards, &keys);
    assert_eq!(open("backwards.msgpack").err().unwrap().code(), "Corrupt");
    // A record whose bytes are not msgpack.
    let mut garbled = data.clone();
    garbled[0] = 0xc1;
    write("garbled.msgpack", &garbled, &offsets, &keys);
    let shard = open("garbled.msgpack").unwrap();
    assert_eq!(block_on(shard.record(0)).unwrap_err().code(), "Corrupt");
    block_on(shard.record(1)).unwrap();
    // Keys that do not match the count.
    write("keys.msgpack", &data, &offsets, &[0x91, 0xa1, b'k']);
    let shard = open("keys.msgpack").unwrap();
    assert_eq!(block_on(shard.keys()).unwrap_err().code(), "Corrupt");
    // A budget smaller than a record: refused before the read.
    let shard = block_on(MsgpackShard::open_with_budget(
        &store,
        "garbled.msgpack",
        256,
    ))
    .unwrap();
    assert_eq!(block_on(shard.record(1)).unwrap_err().code(), "TooLarge");
    // A missing shard.
    assert_eq!(open("absent.msgpack").err().unwrap().code(), "NotFound");
}
