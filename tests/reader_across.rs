//! `Atlas::read_stacked`: one array across datasets, stacked, against the
//! values atlas-rust 0.17.2 dumped for each dataset (expected.json).

mod common;

use atlas_wasm::{AcrossRequest, Skipped};
use atlas_wasm::{Atlas, DType, Error};
use common::{block_on, dump::values, suite};
use serde_json::Value;

fn open(fixture: &str) -> (Atlas, Value) {
    let dir = suite().join(fixture);
    let atlas = block_on(Atlas::open_path(&dir)).unwrap();
    let expected = serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap());
    (atlas, expected.unwrap())
}

/// The dumped array `array` of dataset `dataset`.
fn dumped<'v>(expected: &'v Value, dataset: &str, array: &str) -> &'v Value {
    let ds = expected["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == dataset)
        .unwrap_or_else(|| panic!("no dataset {dataset}"));
    ds["arrays"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == array)
        .unwrap_or_else(|| panic!("{dataset} has no {array}"))
}

/// The dumped values of `array` in `datasets`, one after another.
fn concatenated(expected: &Value, datasets: &[&str], array: &str) -> Value {
    Value::Array(
        datasets
            .iter()
            .flat_map(|d| {
                dumped(expected, d, array)["values"]
                    .as_array()
                    .unwrap()
                    .clone()
            })
            .collect(),
    )
}

fn listed(names: &[&str]) -> Option<Vec<String>> {
    Some(names.iter().map(|n| n.to_string()).collect())
}

const DTYPES: [&str; 13] = [
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "string",
    "binary",
    "timestamp_ns",
];

#[test]
fn every_dtype_stacks_value_for_value_under_every_codec() {
    for fixture in [
        "every_dtype_zstd",
        "every_dtype_lz4",
        "every_dtype_uncompressed",
    ] {
        let (atlas, expected) = open(fixture);
        for array in DTYPES {
            let at = format!("{fixture}/{array}");
            // The two datasets hold [10] and [2, 3]: each stacks alone, and
            // twice over, in the order listed.
            for names in [&["unchunked"][..], &["chunked", "chunked"]] {
                let request = AcrossRequest {
                    datasets: listed(names),
                    ..Default::default()
                };
                let stacked = block_on(atlas.read_stacked(array, &request)).unwrap();
                let part = dumped(&expected, names[0], array);
                let mut shape = vec![names.len() as u64];
                shape.extend(
                    part["shape"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|s| s.as_u64().unwrap()),
                );
                assert_eq!(stacked.array.shape, shape, "{at}");
                assert_eq!(stacked.array.dtype.name(), part["dtype"], "{at}");
                assert_eq!(stacked.datasets, names, "{at}");
                assert_eq!(
                    values(&stacked.array.data),
                    concatenated(&expected, names, array),
                    "{at}"
                );
            }

            // Across both, the shapes differ: an error naming the other one, or a skip.
            let all = AcrossRequest::default();
            let error = block_on(atlas.read_stacked(array, &all)).unwrap_err();
            assert_eq!(error.code(), "InvalidArgument", "{at}: {error}");
            assert!(
                error.to_string().contains("'unchunked' holds"),
                "{at}: {error}"
            );
            let skip = AcrossRequest {
                skip_mismatched: true,
                ..Default::default()
            };
            let stacked = block_on(atlas.read_stacked(array, &skip)).unwrap();
            assert_eq!(stacked.datasets, ["chunked"], "{at}");
            assert_eq!(stacked.array.shape, [1, 10], "{at}");
            assert_eq!(
                stacked.skipped,
                [Skipped {
                    dataset: "unchunked".into(),
                    dtype: stacked.array.dtype.clone(),
                    shape: vec![2, 3],
                }],
                "{at}"
            );
            assert_eq!(
                values(&stacked.array.data),
                concatenated(&expected, &["chunked"], array),
                "{at}"
            );
        }
    }
}

#[test]
fn a_window_stacks_the_same_window_of_each_dataset() {
    // small_blocks spreads one variable over many 4 KiB blocks.
    let (atlas, expected) = open("small_blocks");
    let names = atlas.list_datasets();
    let array = "signal";
    let request = AcrossRequest {
        start: vec![1510],
        shape: vec![180],
        ..Default::default()
    };
    let stacked = block_on(atlas.read_stacked(array, &request)).unwrap();
    assert_eq!(stacked.datasets, names);
    assert_eq!(stacked.array.shape, [names.len() as u64, 180]);
    let want: Vec<Value> = names
        .iter()
        .flat_map(|d| {
            dumped(&expected, d, array)["values"].as_array().unwrap()[1510..1690].to_vec()
        })
        .collect();
    assert_eq!(values(&stacked.array.data), Value::Array(want));
}

#[test]
fn deleted_datasets_stay_out_and_a_listed_one_is_not_found() {
    let (atlas, expected) = open("deleted_datasets");
    let live: Vec<String> = expected["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect();
    for array in atlas.list_arrays() {
        let declaring: Vec<&str> = live
            .iter()
            .map(String::as_str)
            .filter(|d| atlas.dataset(d).unwrap().array_meta(&array).is_some())
            .collect();
        let skip = AcrossRequest {
            skip_mismatched: true,
            ..Default::default()
        };
        let stacked = block_on(atlas.read_stacked(&array, &skip)).unwrap();
        let skipped: Vec<&str> = stacked.skipped.iter().map(|s| s.dataset.as_str()).collect();
        let mut both: Vec<&str> = stacked.datasets.iter().map(String::as_str).collect();
        both.extend(&skipped);
        both.sort();
        let mut want = declaring.clone();
        want.sort();
        assert_eq!(
            both, want,
            "{array}: every live declaring dataset, stacked or skipped"
        );
        let names: Vec<&str> = stacked.datasets.iter().map(String::as_str).collect();
        assert_eq!(
            values(&stacked.array.data),
            concatenated(&expected, &names, &array),
            "{array}"
        );
    }
    let deleted = atlas
        .footer()
        .datasets
        .names()
        .find(|n| !atlas.dataset_exists(n))
        .unwrap()
        .to_string();
    let array = atlas.list_arrays().remove(0);
    let request = AcrossRequest {
        datasets: Some(vec![deleted.clone()]),
        ..Default::default()
    };
    assert_eq!(
        block_on(atlas.read_stacked(&array, &request)).unwrap_err(),
        Error::DatasetNotFound(deleted)
    );
}

#[test]
fn mismatched_dtypes_are_named_or_skipped() {
    let (atlas, expected) = open("one_name_many_dtypes");
    let error = block_on(atlas.read_stacked("value", &AcrossRequest::default())).unwrap_err();
    let message = error.to_string();
    assert_eq!(error.code(), "InvalidArgument");
    for other in ["as_int64", "as_string", "as_uint8", "as_float64"] {
        assert!(message.contains(&format!("'{other}' holds")), "{message}");
    }
    let skip = AcrossRequest {
        skip_mismatched: true,
        ..Default::default()
    };
    let stacked = block_on(atlas.read_stacked("value", &skip)).unwrap();
    assert_eq!(stacked.datasets, ["as_float32"]);
    assert_eq!(stacked.array.dtype, DType::Float32);
    assert_eq!(
        values(&stacked.array.data),
        concatenated(&expected, &["as_float32"], "value")
    );
    let dtypes: Vec<(String, String)> = stacked
        .skipped
        .iter()
        .map(|s| (s.dataset.clone(), s.dtype.name()))
        .collect();
    assert_eq!(
        dtypes,
        [
            ("as_int64".to_string(), "int64".to_string()),
            ("as_string".into(), "string".into()),
            ("as_uint8".into(), "uint8".into()),
            ("as_float64".into(), "float64".into()),
        ]
    );
    // `partial` is [2] in one dataset and [3] in another: stackable only as a window.
    let window = AcrossRequest {
        start: vec![0],
        shape: vec![2],
        ..Default::default()
    };
    let stacked = block_on(atlas.read_stacked("partial", &window)).unwrap();
    assert_eq!(stacked.datasets, ["as_float32", "as_string"]);
    assert_eq!(
        values(&stacked.array.data),
        serde_json::json!([1, 2, -1, 0])
    );
    // A window that fits only the second is an error naming the first dataset.
    let past = AcrossRequest {
        start: vec![2],
        shape: vec![1],
        ..Default::default()
    };
    let error = block_on(atlas.read_stacked("partial", &past)).unwrap_err();
    assert_eq!(error.code(), "OutOfBounds");
    assert!(error.to_string().contains("'as_float32'"), "{error}");
}

#[test]
fn bad_requests_are_typed_errors() {
    let (atlas, _) = open("every_dtype_zstd");
    let read = |array: &str, datasets: Option<Vec<String>>| {
        let request = AcrossRequest {
            datasets,
            ..Default::default()
        };
        block_on(atlas.read_stacked(array, &request)).unwrap_err()
    };
    assert_eq!(
        read("int8", listed(&["nope"])),
        Error::DatasetNotFound("nope".into())
    );
    assert_eq!(read("nothing", None).code(), "ArrayNotFound");
    assert_eq!(
        read("nothing", listed(&["chunked"])),
        Error::ArrayNotFound {
            dataset: "chunked".into(),
            array: "nothing".into()
        }
    );
    assert_eq!(read("int8", Some(Vec::new())).code(), "InvalidArgument");
    let huge = AcrossRequest {
        start: vec![0],
        shape: vec![11],
        datasets: listed(&["chunked"]),
        ..Default::default()
    };
    assert_eq!(
        block_on(atlas.read_stacked("int8", &huge))
            .unwrap_err()
            .code(),
        "OutOfBounds"
    );
}
