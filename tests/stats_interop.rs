//! Collection-level statistics against the published tools.
//!
//! - `Atlas::array_stats` gives atlas-rust 0.17.2's answer, value for value,
//!   on the collections built to tell merge rules apart (one name at several
//!   dtypes, no bounds, deleted extremes, nothing live).
//! - Our `atlas info` prints what atlas-python 0.17.2's prints, text and
//!   `--json`, on atlas-python's own collection of the NetCDF corpus (TEMP
//!   float32 and float64, CYCLE_NUMBER int16 and int32) after `atlas rm`
//!   of some of its datasets, and on the atlas-rust fixtures above.
//!
//! The atlas-python half is skipped (with a message) when atlas-python is
//! not installed; CI sets ATLAS_REQUIRE_PYTHON, where a skip is a failure.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use atlas_wasm::{ArrayStats, Atlas, StatValue};
use common::{block_on, suite};

fn stats_of(dir: &Path, array: &str) -> Option<ArrayStats> {
    let atlas = block_on(Atlas::open_path(dir)).unwrap();
    block_on(atlas.array_stats(array)).unwrap()
}

fn bounds(s: &ArrayStats) -> (Option<StatValue>, Option<StatValue>, u64, u64) {
    (s.min.clone(), s.max.clone(), s.row_count, s.null_count)
}

/// The names of `stats_across_dtypes`, each with the answer atlas-rust
/// 0.17.2 gives (its `expected.json` holds the same; this names the rule
/// each one shows).
#[test]
fn collection_stats_follow_atlas_rust_across_dtypes_and_deletions() {
    let dir = suite().join("stats_across_dtypes");
    let s = |array| stats_of(&dir, array).unwrap();
    // int32 [-7, 12], then float64 [0.25, 1000]: Float takes the minimum
    // and Int keeps the maximum; then int64 [-100, 5] takes the minimum back.
    // d7's empty float64 adds no row and no bound.
    assert_eq!(
        bounds(&s("int_float")),
        (Some(StatValue::Int(-100)), Some(StatValue::Int(12)), 7, 0)
    );
    assert_eq!(s("int_float").name, "int_float");
    // uint16, int8, uint64, int16: each new variant takes the minimum, and
    // only a UInt can raise the UInt maximum.
    assert_eq!(
        bounds(&s("int_uint")),
        (
            Some(StatValue::Int(-30_000)),
            Some(StatValue::UInt(u64::MAX)),
            8,
            0
        )
    );
    // All Float: total order, so NaN (d0, no fill) is the maximum, -inf the
    // minimum, and the NaN under d3's NaN fill is a null.
    let f = s("f32_f64");
    assert_eq!(f.min, Some(StatValue::Float(f64::NEG_INFINITY)));
    assert!(matches!(f.max, Some(StatValue::Float(v)) if v.is_nan()));
    assert_eq!((f.row_count, f.null_count), (10, 1));
    // Strings and binary are all Bytes: "" is least, 0xff greatest.
    assert_eq!(
        bounds(&s("text")),
        (
            Some(StatValue::Bytes(vec![])),
            Some(StatValue::Bytes(vec![0xff])),
            7,
            0
        )
    );
    // TimestampNs, then Int (int64), then TimestampNs.
    assert_eq!(
        bounds(&s("time")),
        (
            Some(StatValue::TimestampNs(i64::MIN + 1)),
            Some(StatValue::TimestampNs(1_700_000_000_000_000_000)),
            6,
            0
        )
    );
    // No dataset records a bound; every row still counts.
    assert_eq!(bounds(&s("all_null")), (None, None, 12, 12));
    assert_eq!(
        bounds(&s("late_bound")),
        (
            Some(StatValue::Float(-7.5)),
            Some(StatValue::Float(7.5)),
            4,
            2
        )
    );
    // The deleted datasets' +-1e9 stay out.
    assert_eq!(
        bounds(&s("wide_deleted")),
        (
            Some(StatValue::Float(1.0)),
            Some(StatValue::Float(2.0)),
            2,
            0
        )
    );
    assert_eq!(stats_of(&dir, "gone"), None);
    assert_eq!(stats_of(&suite().join("all_deleted"), "x"), None);
    assert_eq!(stats_of(&suite().join("empty_collection"), "x"), None);
}

fn python_atlas() -> Option<Command> {
    let probe = Command::new("atlas").arg("--version").output().ok()?;
    if String::from_utf8_lossy(&probe.stdout).contains("0.17") {
        return Some(Command::new("atlas"));
    }
    assert!(
        std::env::var_os("ATLAS_REQUIRE_PYTHON").is_none(),
        "atlas-python 0.17.2 is required"
    );
    eprintln!("atlas-python 0.17 is not installed; skipped (pip install atlas-python==0.17.2)");
    None
}

#[cfg(feature = "cli")]
fn ours() -> Command {
    Command::new(env!("CARGO_BIN_EXE_atlas"))
}

fn output(mut cmd: Command, args: &[&str]) -> String {
    let out = cmd.args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `atlas info` and `atlas info --json`, ours against atlas-python's.
#[cfg(feature = "cli")]
fn same_info(dir: &Path) {
    let path = dir.to_str().unwrap();
    for flags in [&["info", path][..], &["info", "--json", path]] {
        let theirs = output(python_atlas().unwrap(), flags);
        let mine = output(ours(), flags);
        assert_eq!(mine, theirs, "{flags:?} differs");
    }
}

/// Names whose dtype differs between the live datasets of `dir`.
fn mixed_dtype_names(dir: &Path) -> Vec<String> {
    let atlas = block_on(Atlas::open_path(dir)).unwrap();
    atlas
        .list_arrays()
        .into_iter()
        .filter(|array| {
            let dtypes: BTreeSet<String> = atlas
                .list_datasets()
                .iter()
                .filter_map(|d| Some(atlas.dataset(d).ok()?.array_meta(array)?.dtype().name()))
                .collect();
            dtypes.len() > 1
        })
        .collect()
}

#[cfg(feature = "cli")]
#[test]
fn atlas_info_prints_what_atlas_python_prints_on_the_rust_fixtures() {
    if python_atlas().is_none() {
        return;
    }
    for name in [
        "stats_across_dtypes",
        "one_name_many_dtypes",
        "deleted_datasets",
        "all_deleted",
        "empty_collection",
    ] {
        same_info(&suite().join(name));
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("stats-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The first live dataset (in ordinal order) that declares `array` with
/// another dtype than the first one declaring it does.
fn first_of_another_dtype(atlas: &Atlas, array: &str) -> String {
    let dtype_in = |d: &String| Some(atlas.dataset(d).ok()?.array_meta(array)?.dtype().name());
    let live = atlas.list_datasets();
    let first = live.iter().find_map(dtype_in).unwrap();
    live.iter()
        .find(|d| dtype_in(d).is_some_and(|t| t != first))
        .unwrap_or_else(|| panic!("{array} has one dtype"))
        .clone()
}

#[cfg(feature = "cli")]
#[test]
fn atlas_info_prints_what_atlas_python_prints_after_atlas_rm_on_mixed_dtypes() {
    if python_atlas().is_none() {
        return;
    }
    let work = scratch("python-rm");
    let netcdf = work.join("netcdf");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("interop/python/make_corpus.py");
    let made = Command::new("python3")
        .arg(script)
        .arg("main")
        .arg(&netcdf)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "make_corpus.py: {}",
        String::from_utf8_lossy(&made.stderr)
    );
    let collection = work.join("collection");
    let path = collection.to_str().unwrap();
    output(
        python_atlas().unwrap(),
        &["create", netcdf.to_str().unwrap(), path, "--quiet"],
    );
    // TEMP is float32 and float64; CYCLE_NUMBER, int16 and int32 on disk, is
    // float32 and float64 once xarray masks its fill.
    let mixed = mixed_dtype_names(&collection);
    assert!(
        mixed.contains(&"TEMP".to_string()) && mixed.contains(&"CYCLE_NUMBER".to_string()),
        "the corpus declares TEMP and CYCLE_NUMBER at two dtypes each: {mixed:?}"
    );
    same_info(&collection);

    // Remove the first dataset (its dtypes started the old merge) and the
    // first TEMP and CYCLE_NUMBER of the other dtype, with atlas-python.
    let atlas = block_on(Atlas::open_path(&collection)).unwrap();
    let doomed: BTreeSet<String> = [
        atlas.list_datasets()[0].clone(),
        first_of_another_dtype(&atlas, "TEMP"),
        first_of_another_dtype(&atlas, "CYCLE_NUMBER"),
    ]
    .into();
    let mut args = vec!["rm", path];
    args.extend(doomed.iter().map(String::as_str));
    output(python_atlas().unwrap(), &args);
    let atlas = block_on(Atlas::open_path(&collection)).unwrap();
    assert_eq!(atlas.deleted_count(), doomed.len());
    assert!(mixed_dtype_names(&collection).contains(&"TEMP".to_string()));
    same_info(&collection);
    std::fs::remove_dir_all(&work).unwrap();
}

/// Replaces every occurrence of `from` in `bytes` by `to`, of equal length;
/// returns how many there were.
fn patch(bytes: &mut [u8], from: &[u8], to: &[u8]) -> usize {
    assert_eq!(from.len(), to.len());
    let mut count = 0;
    let mut at = 0;
    while let Some(i) = bytes[at..].windows(from.len()).position(|w| w == from) {
        bytes[at + i..at + i + to.len()].copy_from_slice(to);
        at += i + to.len();
        count += 1;
    }
    count
}

/// A segment entry whose dataset the footer does not have (an abandoned
/// dataset's array, in atlas-rust's files) counts in the collection
/// statistics, in atlas-rust and in ours alike: both leave out only the names
/// the mask hides (docs/read-path.md). The segments store dataset names raw,
/// the footer compressed, so renaming `item_07` in the raw bytes renames it
/// in the segments only.
#[test]
fn an_entry_naming_no_dataset_counts_as_in_atlas_rust() {
    let dir = scratch("phantom");
    let source = suite().join("deleted_datasets");
    for file in ["data.atlas", "deleted.mask"] {
        std::fs::copy(source.join(file), dir.join(file)).unwrap();
    }
    let mut bytes = std::fs::read(dir.join("data.atlas")).unwrap();
    assert!(patch(&mut bytes, b"item_07", b"item_7x") > 0);
    std::fs::write(dir.join("data.atlas"), bytes).unwrap();

    let ours = block_on(Atlas::open_path(&dir)).unwrap();
    assert!(
        ours.dataset_exists("item_07"),
        "the footer still names item_07"
    );
    assert!(!ours.dataset_exists("item_7x"));
    let mine = block_on(ours.array_stats("x")).unwrap().unwrap();
    let mine_rows: Vec<String> = block_on(ours.array_stats_by_dataset("x"))
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .collect();

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (theirs, their_rows) = rt.block_on(async {
        let atlas = atlas::Atlas::open_path(&dir).await.unwrap();
        let merged = atlas.array_stats("x").await.unwrap().unwrap();
        let rows: Vec<String> = atlas
            .array_stats_by_dataset("x")
            .await
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect();
        (merged, rows)
    });
    // Seven live datasets of three rows each, and item_07's renamed entry.
    assert_eq!(theirs.row_count, 24);
    assert!(their_rows.contains(&"item_7x".to_string()));
    assert_eq!(mine.row_count, theirs.row_count);
    // The datasets the mask hides stay out of both.
    assert_eq!(mine_rows, their_rows);
    std::fs::remove_dir_all(&dir).unwrap();
}
