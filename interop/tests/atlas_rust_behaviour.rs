//! What atlas-rust 0.17.2 does where a reader could reasonably do otherwise.
//!
//! The fixtures' `expected.json` records these behaviours, and atlas-wasm is
//! compared against it. Each one is asserted here as well, so a bump of the
//! pinned crates that changes one fails with a name instead of a diff of a
//! large document.

use serde_json::{json, Value};

/// Writes one fixture into a fresh temporary directory and returns its
/// expected JSON with the directory that holds it.
fn fixture(name: &str) -> (tempfile::TempDir, Value) {
    let out = tempfile::tempdir().unwrap();
    atlas_interop::write_fixture(out.path(), name).unwrap();
    let text = std::fs::read_to_string(out.path().join(name).join("expected.json")).unwrap();
    (out, serde_json::from_str(&text).unwrap())
}

/// The array called `array` of the dataset called `dataset`.
fn array<'a>(doc: &'a Value, dataset: &str, array: &str) -> &'a Value {
    let ds = doc["datasets"]
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
        .unwrap_or_else(|| panic!("no array {array} in {dataset}"))
}

#[test]
fn the_expected_json_is_what_dump_returns_for_the_directory() {
    let (out, doc) = fixture("one_name_many_dtypes");
    let again = atlas_interop::dump(&out.path().join("one_name_many_dtypes")).unwrap();
    assert_eq!(doc, again);
}

#[test]
fn a_string_fill_is_ignored_on_read_but_counted_by_statistics() {
    let (_out, doc) = fixture("fill_values");
    let a = array(&doc, "own_kind", "string_fill");
    assert_eq!(a["fill"], json!({"type": "String", "value": "missing"}));
    // Unwritten cells read "", not the fill.
    assert_eq!(a["values"], json!(["", "x", "missing", "", "", ""]));
    // Two cells never written, plus the written "missing" that equals the
    // fill. The padding "" of the part-written chunk counts as a value.
    assert_eq!(a["stats"]["null_count"], 3);
    assert_eq!(a["stats"]["min"], json!({"type": "Bytes", "value": ""}));
}

#[test]
fn a_fill_of_a_foreign_kind_is_cast_on_read_and_ignored_by_statistics() {
    let (_out, doc) = fixture("fill_values");
    let a = array(&doc, "foreign_kind", "i32_float_fill");
    assert_eq!(a["values"], json!([-1, -1, 2, -1, -1, -1]));
    // Only the two never-written cells are null; the -1s written or padded
    // are values, because a Float fill means nothing to an int's statistics.
    assert_eq!(a["stats"]["null_count"], 2);
    assert_eq!(a["stats"]["min"], json!({"type": "Int", "value": -1}));
}

#[test]
fn collection_statistics_merge_datasets_of_different_dtypes() {
    let (_out, doc) = fixture("one_name_many_dtypes");
    // Five datasets declare `value` at five dtypes. The docs say the merge
    // leaves the odd ones out; 0.17.2 adds every row and lets the bound of a
    // different variant win, so the result depends on write order.
    let merged = &doc["array_stats"]["value"];
    assert_eq!(merged["row_count"], 15);
    assert_eq!(
        merged["min"],
        json!({"type": "Float", "value": "-659376.7211908957"})
    );
}

#[test]
fn deleted_datasets_still_contribute_declared_keys_but_no_values() {
    let (out, doc) = fixture("deleted_datasets");
    assert!(out.path().join("deleted_datasets/deleted.mask").exists());
    assert_eq!(doc["total_datasets"], 12);
    assert_eq!(doc["dataset_count"], 8);
    assert_eq!(doc["arrays"], json!(["mixed", "x"]));
    let doomed = doc["attributes_by_dataset"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == "doomed")
        .unwrap();
    assert_eq!(doomed["values"], json!([]));
}

#[test]
fn nan_reaches_float_bounds_unless_the_fill_is_nan() {
    let (_out, doc) = fixture("float_specials");
    let bounds = |dataset: &str| {
        let s = &array(&doc, dataset, "f64")["stats"];
        (s["min"]["value"].clone(), s["max"]["value"].clone())
    };
    let (min, max) = bounds("no_fill");
    for bound in [min, max] {
        assert!(
            bound.as_str().is_some_and(|b| b.starts_with("NaN:")),
            "{bound}"
        );
    }
    assert_eq!(bounds("nan_fill"), (json!("-inf"), json!("inf")));
    // -0.0 as a fill also makes +0.0 a null.
    assert_eq!(
        array(&doc, "neg_zero_fill", "f64")["stats"]["null_count"],
        2
    );
}
