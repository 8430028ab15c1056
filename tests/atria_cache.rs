//! `AtriaCache` over the MSGPACK layout of the corpus (tests/atria/make_corpus.py):
//! backend and splits found by listing and by probing, every record equal to
//! what datadings wrote, content fields as bytes, one request per row.

#![cfg(feature = "atria")]

#[path = "atria/corpus.rs"]
mod corpus;

use std::path::Path;
use std::sync::Arc;

use atlas_wasm::atria::{AtriaCache, DirStore, Value};
use atlas_wasm::source::FileSource;
use atlas_wasm::ByteSource;
use corpus::{block_on, canonical, config, corpus, expected, CountingStore};
use serde_json::Value as Json;

/// Every record of `split` in shard order, as make_corpus.py wrote them.
fn records(dir: &Path, split: &str) -> Vec<Json> {
    let all = expected(dir);
    let shards = all["msgpack"][split]["shards"].as_object().unwrap();
    let mut names: Vec<&String> = shards.keys().collect();
    names.sort();
    names
        .into_iter()
        .flat_map(|n| shards[n]["records"].as_array().unwrap().clone())
        .collect()
}

#[test]
fn a_msgpack_cache_reads_every_record_through_one_api() {
    let Some(dir) = corpus() else { return };
    let cache = block_on(AtriaCache::open(DirStore::new(config(dir)))).unwrap();
    assert_eq!(cache.backend(), "msgpack");
    assert_eq!(cache.splits(), ["train", "test"]);
    for split_name in ["train", "test"] {
        let split = block_on(cache.split(split_name)).unwrap();
        let want = records(dir, split_name);
        assert_eq!(split.num_rows(), want.len() as u64);
        let columns: Vec<(&str, &str)> = split
            .columns()
            .iter()
            .map(|c| (c.name.as_str(), c.data_type.as_str()))
            .collect();
        assert!(
            columns.contains(&("pixels", "ndarray<uint8>")),
            "{columns:?}"
        );
        assert!(columns.contains(&("image", "bin")) && columns.contains(&("key", "str")));
        let mut rows = split.rows();
        let mut i = 0;
        while let Some(row) = block_on(rows.next()) {
            let row = row.unwrap();
            assert_eq!(canonical(&row), want[i], "{split_name} row {i}");
            let Some(Value::Bin(image)) = row.get("image") else {
                panic!("no image")
            };
            let content = block_on(split.content(i as u64, "image")).unwrap();
            assert_eq!(&content, image);
            let check = block_on(split.check(i as u64, "image")).unwrap();
            assert!(
                check.ok && !check.recovered && check.member.is_none() && check.naming.is_none()
            );
            let err = block_on(split.content(i as u64, "nothing")).unwrap_err();
            assert_eq!(err.code(), "NotFound");
            i += 1;
        }
        assert_eq!(i, want.len());
        let err = block_on(split.row(want.len() as u64)).unwrap_err();
        assert_eq!(err.code(), "OutOfBounds");
    }
    assert_eq!(
        block_on(cache.split("nope")).unwrap_err().code(),
        "NotFound"
    );
}

#[test]
fn a_store_that_cannot_list_finds_the_same_splits_by_probing() {
    let Some(dir) = corpus() else { return };
    let root = config(dir);
    let store = move |path: &str| -> atlas_wasm::Result<Arc<dyn ByteSource>> {
        Ok(Arc::new(FileSource::open(root.join(path))?))
    };
    let cache = block_on(AtriaCache::open(store)).unwrap();
    assert_eq!(
        (cache.backend(), cache.splits()),
        ("msgpack", &["train".to_string(), "test".to_string()][..])
    );
    let split = block_on(cache.split("test")).unwrap();
    assert_eq!(split.num_rows(), records(dir, "test").len() as u64);
}

#[test]
fn a_record_costs_one_request() {
    let Some(dir) = corpus() else { return };
    let store = CountingStore::new(config(dir));
    let cache = block_on(AtriaCache::open(store.clone())).unwrap();
    let split = block_on(cache.split("train")).unwrap();
    let before = store.requests();
    let last = split.num_rows() - 1;
    block_on(split.row(last)).unwrap();
    assert_eq!(store.requests() - before, 1);
}

#[test]
fn a_directory_that_is_no_cache_is_not_found() {
    let Some(dir) = corpus() else { return };
    let err = block_on(AtriaCache::open(DirStore::new(dir.join("nowhere")))).unwrap_err();
    assert_eq!(err.code(), "NotFound");
}
