//! The core, compiled to wasm32, reads every small interop fixture exactly as
//! atlas-rust dumped it: the same dump and diff as the native
//! `tests/reader_interop.rs`, so the two targets are held to one standard.
#![cfg(target_arch = "wasm32")]

use std::sync::Arc;

use atlas_wasm::{Atlas, ByteSource, MemorySource};
use serde_json::Value;
use wasm_bindgen_test::wasm_bindgen_test;

#[allow(dead_code)]
#[path = "../../tests/common/diff.rs"]
mod diff;
#[allow(dead_code)]
#[path = "../../tests/common/dump.rs"]
mod dump;

macro_rules! fixture {
    ($name:literal) => {
        (
            $name,
            include_bytes!(concat!("../fixtures/", $name, "/data.atlas")).as_slice(),
            include_str!(concat!("../fixtures/", $name, "/expected.json")),
        )
    };
}

/// Every fixture small enough to compile in (the 1.6 and 6 MB ones stay out;
/// the Node suite reads those over HTTP). Those with a mask have tests of
/// their own below.
const FIXTURES: &[(&str, &[u8], &str)] = &[
    fixture!("every_dtype_zstd"),
    fixture!("every_dtype_lz4"),
    fixture!("every_dtype_uncompressed"),
    fixture!("float_specials"),
    fixture!("unicode_names"),
    fixture!("ranks_and_shapes"),
    fixture!("fill_values"),
    fixture!("never_written_chunks"),
    fixture!("attributes_every_variant"),
    fixture!("one_name_many_dtypes"),
    fixture!("small_blocks"),
    fixture!("empty_collection"),
    fixture!("python_netcdf"),
    fixture!("python_netcdf_lz4"),
];

fn memory(bytes: &[u8]) -> Arc<dyn ByteSource> {
    Arc::new(MemorySource::new(bytes.to_vec()))
}

fn assert_same(name: &str, ours: &Value, expected: &str) {
    let theirs: Value = serde_json::from_str(expected).expect("expected.json parses");
    let found = diff::differences(ours, &theirs);
    assert!(
        found.is_empty(),
        "{name} differs from atlas-rust:\n{}",
        found.join("\n")
    );
}

#[wasm_bindgen_test]
async fn every_small_fixture_reads_as_atlas_rust_wrote_it() {
    for &(name, data, expected) in FIXTURES {
        let atlas = Atlas::open(memory(data), None)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let ours = dump::dump(&atlas)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_same(name, &ours, expected);
    }
}

#[wasm_bindgen_test]
async fn the_mask_hides_what_it_lists() {
    let data = include_bytes!("../fixtures/deleted_datasets/data.atlas");
    let mask = include_bytes!("../fixtures/deleted_datasets/deleted.mask");
    let expected = include_str!("../fixtures/deleted_datasets/expected.json");
    let atlas = Atlas::open(memory(data), Some(memory(mask)))
        .await
        .expect("deleted_datasets opens");
    assert!(atlas.deleted_count() > 0);
    assert_same(
        "deleted_datasets",
        &dump::dump(&atlas).await.unwrap(),
        expected,
    );
}

/// Collection statistics of names at several dtypes, with deleted datasets
/// holding the extremes, merged as atlas-rust merges them.
#[wasm_bindgen_test]
async fn collection_stats_across_dtypes_are_atlas_rust_s() {
    let data = include_bytes!("../fixtures/stats_across_dtypes/data.atlas");
    let mask = include_bytes!("../fixtures/stats_across_dtypes/deleted.mask");
    let expected = include_str!("../fixtures/stats_across_dtypes/expected.json");
    let atlas = Atlas::open(memory(data), Some(memory(mask))).await.unwrap();
    assert_same(
        "stats_across_dtypes",
        &dump::dump(&atlas).await.unwrap(),
        expected,
    );
}

#[wasm_bindgen_test]
async fn windows_read_the_elements_they_cover() {
    // small_blocks: a float64 [3000] over 4 KiB blocks
    let (_, data, _) = FIXTURES.iter().find(|f| f.0 == "small_blocks").unwrap();
    let atlas = Atlas::open(memory(data), None).await.unwrap();
    let ds = atlas.dataset(&atlas.list_datasets()[1]).unwrap();
    let whole = ds.read_array_as::<f64>("signal", &[], &[]).await.unwrap();
    let part = ds
        .read_array_as::<f64>("signal", &[1234], &[567])
        .await
        .unwrap();
    assert_eq!(part.shape, vec![567]);
    assert_eq!(part.data, whole.data[1234..1234 + 567].to_vec());
}
