//! `atlas create` against atlas-python 0.17.2's `atlas create` on the same
//! generated NetCDF corpora (interop/python/make_corpus.py): every dataset,
//! array value, shape, dimension name, fill value, attribute and statistic
//! agree through our reader, atlas-python reads ours as it reads its own,
//! and failures leave nothing behind. Skipped (with a message) when
//! atlas-python is not installed; CI sets ATLAS_REQUIRE_PYTHON, where a
//! skip is a failure.

#![cfg(feature = "cli")]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use atlas_wasm::Atlas;
use common::corpus::corpus;
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("create-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ours(source: &Path, destination: &Path, flags: &[&str]) -> Output {
    common::atlas_create(env!("CARGO_BIN_EXE_atlas"), source, destination, flags)
}

fn theirs(source: &Path, destination: &Path, flags: &[&str]) -> Output {
    common::atlas_create("atlas", source, destination, flags)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The canonical dump through our reader, without the creation time.
fn dump(dir: &Path) -> Value {
    common::block_on(async {
        let atlas = Atlas::open_path(dir).await.unwrap();
        let mut value = common::dump::dump(&atlas).await.unwrap();
        value.as_object_mut().unwrap().remove("created_unix_ms");
        value
    })
}

fn assert_same_collection(ours: &Path, theirs: &Path) {
    let (a, b) = (dump(ours), dump(theirs));
    let diffs = common::diff::differences(&a, &b);
    assert!(
        diffs.is_empty(),
        "ours and atlas-python's differ:\n{}",
        diffs.join("\n")
    );
}

/// Both sides built from the same corpus with the same flags, then compared.
fn compare(kind: &str, corpus_dir: &Path, flags: &[&str]) -> (Output, Output) {
    let out = scratch(kind);
    let (mine, python) = (out.join("ours"), out.join("theirs"));
    let a = ours(corpus_dir, &mine, flags);
    let b = theirs(corpus_dir, &python, flags);
    assert!(
        b.status.success(),
        "atlas-python {flags:?}: {}",
        text(&b.stderr)
    );
    assert!(a.status.success(), "ours {flags:?}: {}", text(&a.stderr));
    assert_same_collection(&mine, &python);
    (a, b)
}

/// atlas-python lists the same `count` datasets in `a` and `b` and
/// describes each alike.
fn assert_python_describes_alike(a: &Path, b: &Path, count: usize) {
    let script = r#"
import sys
from atlas import _ops
a, b = sys.argv[1], sys.argv[2]
names = _ops.list_datasets(a)
assert names == _ops.list_datasets(b), "names differ"
for n in names:
    x, y = _ops.describe_dataset(a, n), _ops.describe_dataset(b, n)
    if repr(x) != repr(y):
        sys.exit(f"{n}: {x!r} != {y!r}")
print(len(names))
"#;
    let read = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(a)
        .arg(b)
        .output()
        .unwrap();
    assert!(read.status.success(), "{}", text(&read.stderr));
    assert_eq!(text(&read.stdout).trim(), count.to_string());
}

#[test]
fn the_main_corpus_matches_atlas_python_value_for_value() {
    if !common::python_ready() {
        return;
    }
    let source = corpus("main");
    let out = scratch("main");
    let (mine, python) = (out.join("ours"), out.join("theirs"));
    let a = ours(&source, &mine, &[]);
    let b = theirs(&source, &python, &[]);
    assert!(
        a.status.success() && b.status.success(),
        "{}{}",
        text(&a.stderr),
        text(&b.stderr)
    );
    assert_same_collection(&mine, &python);
    assert_eq!(
        text(&a.stdout).replace(mine.to_str().unwrap(), "DST"),
        text(&b.stdout).replace(python.to_str().unwrap(), "DST")
    );
    let stderr = text(&a.stderr);
    assert!(
        stderr.starts_with(&format!("Writing {} from 206 file(s)\n", mine.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains("[206/206] R6901236_009.nc  (0 left)") || stderr.contains("(0 left)"),
        "{stderr}"
    );

    // atlas-python reads ours: every dataset described alike.
    assert_python_describes_alike(&mine, &python, 206);
}

#[test]
fn flags_behave_as_atlas_pythons() {
    if !common::python_ready() {
        return;
    }
    let source = corpus("main");
    compare("no-decode-times", &source, &["--no-decode-times", "-q"]);
    compare("lz4", &source, &["--codec", "lz4", "-q"]);
    compare(
        "chunks",
        &source,
        &[
            "--chunks",
            r#"{"t2m": [2, 9, 18], "PRES": [1, 16], "time": [5]}"#,
            "-q",
        ],
    );
    let (a, _) = compare(
        "no-recursive",
        &source.join("grids"),
        &["--no-recursive", "--json"],
    );
    let summary: Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(summary["dataset_count"], 2, "{summary}");
}

#[test]
fn workers_keep_the_scan_order() {
    if !common::python_ready() {
        return;
    }
    let source = corpus("main");
    let out = scratch("workers");
    assert!(ours(&source, &out.join("ours"), &["-j", "3", "-q"])
        .status
        .success());
    assert!(theirs(&source, &out.join("theirs"), &["-q"])
        .status
        .success());
    assert_same_collection(&out.join("ours"), &out.join("theirs"));
}

/// (dataset, array, dtype) of each skipped array in a `--json` summary.
fn skipped_arrays(summary: &Value) -> Vec<(String, String, String)> {
    summary["skipped_arrays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["dataset"].to_string(),
                s["array"].to_string(),
                s["dtype"].to_string(),
            )
        })
        .collect()
}

#[test]
fn unsupported_arrays_fail_their_file_unless_left_out() {
    if !common::python_ready() {
        return;
    }
    let source = corpus("unsupported");
    let out = scratch("unsupported-fail");
    let a = ours(&source, &out.join("ours"), &["-q"]);
    assert!(!a.status.success());
    assert!(
        text(&a.stderr).contains("flags.nc") && text(&a.stderr).contains("bool"),
        "{}",
        text(&a.stderr)
    );
    assert!(!out.join("ours").exists(), "a failed create leaves nothing");
    assert!(!theirs(&source, &out.join("theirs"), &["-q"])
        .status
        .success());

    let (a, b) = compare(
        "unsupported",
        &source,
        &["--skip-unsupported", "--json", "-q"],
    );
    let (a, b): (Value, Value) = (
        serde_json::from_slice(&a.stdout).unwrap(),
        serde_json::from_slice(&b.stdout).unwrap(),
    );
    assert_eq!(skipped_arrays(&a), skipped_arrays(&b));
    assert_eq!(skipped_arrays(&a).len(), 2);
    assert_eq!(a["written"], b["written"]);
}

#[test]
fn bad_files_abandon_the_run_unless_skipped() {
    if !common::python_ready() {
        return;
    }
    let source = corpus("broken");
    // An earlier collection at the destination survives a failed run.
    let out = scratch("broken-fail");
    let kept = out.join("ours");
    assert!(ours(&source.join("a"), &kept, &["-q"]).status.success());
    let before = std::fs::read(kept.join("data.atlas")).unwrap();
    let a = ours(&source, &kept, &["-q"]);
    assert!(!a.status.success());
    assert!(
        text(&a.stderr).starts_with("atlas: "),
        "{}",
        text(&a.stderr)
    );
    assert_eq!(std::fs::read(kept.join("data.atlas")).unwrap(), before);
    assert_eq!(
        std::fs::read_dir(&kept).unwrap().count(),
        1,
        "no work files left"
    );

    let (a, b) = compare("broken", &source, &["--skip-errors", "--json", "-q"]);
    let (a, b): (Value, Value) = (
        serde_json::from_slice(&a.stdout).unwrap(),
        serde_json::from_slice(&b.stdout).unwrap(),
    );
    assert_eq!(a["written"], b["written"]);
    let files = |v: &Value| -> Vec<String> {
        v["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["file"].to_string())
            .collect()
    };
    assert_eq!(files(&a), files(&b));
    assert_eq!(files(&a).len(), 3);
    // Text mode reports the skips and exits 1, as atlas-python does.
    let out = scratch("broken-text");
    let a = ours(&source, &out.join("ours"), &["--skip-errors", "-q"]);
    assert_eq!(a.status.code(), Some(1));
    assert!(
        text(&a.stderr).contains("  skipped ") && text(&a.stdout).contains("2 dataset(s) written"),
        "{}",
        text(&a.stderr)
    );
}

#[test]
fn large_variables_stream_in_chunks_of_the_budget() {
    if !common::python_ready() {
        return;
    }
    let source = corpus("big");
    let out = scratch("big");
    let (mine, python) = (out.join("ours"), out.join("theirs"));
    // 4 MB per time step, a 2 MiB budget: 364 of 721 rows per chunk.
    let a = ours(&source, &mine, &["--chunk-size", "2MiB", "-q"]);
    assert!(a.status.success(), "{}", text(&a.stderr));
    assert!(theirs(&source, &python, &["-q"]).status.success());
    let (mut a, mut b) = (dump(&mine), dump(&python));
    for (value, expected) in [
        (&mut a, serde_json::json!([1, 364, 1440])),
        (&mut b, Value::Null),
    ] {
        for dataset in value["datasets"].as_array_mut().unwrap() {
            for array in dataset["arrays"].as_array_mut().unwrap() {
                let chunk = array
                    .as_object_mut()
                    .unwrap()
                    .remove("chunk_shape")
                    .unwrap();
                if array["name"] == "field" && !expected.is_null() {
                    assert_eq!(chunk, expected);
                }
            }
        }
    }
    let diffs = common::diff::differences(&a, &b);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn the_log_file_records_the_run() {
    if !common::python_ready() {
        return;
    }
    let source = corpus("broken");
    let out = scratch("log");
    let log = out.join("ingest.log");
    let run = Command::new(env!("CARGO_BIN_EXE_atlas"))
        .args(["create", "--skip-errors", "-q", "--log-file"])
        .arg(&log)
        .arg(&source)
        .arg(out.join("c"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let lines = std::fs::read_to_string(&log).unwrap();
    assert!(
        lines
            .lines()
            .next()
            .unwrap()
            .contains(" INFO    atlas.cli: atlas "),
        "{lines}"
    );
    assert_eq!(
        lines.matches(" WARNING atlas.create: skipping ").count(),
        3,
        "{lines}"
    );
    assert!(
        lines.contains("wrote 2 dataset(s); skipped 3 file(s) and 0 array(s)"),
        "{lines}"
    );
}

#[test]
fn nothing_to_read_is_a_clear_error_and_leaves_nothing() {
    use atlas_wasm::ingest::{create, CreateError, CreateOptions};
    let out = scratch("no-input");
    let empty = out.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), "not NetCDF").unwrap();
    let dst = out.join("dst");
    let options = CreateOptions::default();
    let err = create(&empty, &dst, &options, &mut |_| {}).unwrap_err();
    assert!(matches!(err, CreateError::NoInput(_)), "{err}");
    assert!(
        err.to_string().starts_with("no NetCDF files under "),
        "{err}"
    );
    let err = create(&empty.join("notes.txt"), &dst, &options, &mut |_| {}).unwrap_err();
    assert!(err.to_string().starts_with("not a directory: "), "{err}");
    let zero = CreateOptions {
        workers: 0,
        ..CreateOptions::default()
    };
    assert!(matches!(
        create(&empty, &dst, &zero, &mut |_| {}),
        Err(CreateError::InvalidOption(_))
    ));
    assert!(!dst.exists());
}

#[test]
fn decoding_rules_beyond_the_main_corpus_match() {
    if !common::python_ready() {
        return;
    }
    let source = corpus("edges");
    compare("edges", &source, &["-q"]);
    compare("edges-raw-times", &source, &["--no-decode-times", "-q"]);
}

#[test]
fn a_truncated_classic_file_is_an_error_not_zeros() {
    if !common::python_ready() {
        return;
    }
    // libnetcdf reads a classic file's missing tail as zeros (atlas-python
    // stores them); the header says how long the file must be.
    let whole = corpus("main").join("grids/2024/ocean_daily.cdf");
    let out = scratch("truncated-classic");
    let bytes = std::fs::read(&whole).unwrap();
    let source = out.join("src");
    std::fs::create_dir_all(&source).unwrap();
    std::fs::write(
        source.join("ocean_daily.cdf"),
        &bytes[..bytes.len() * 3 / 4],
    )
    .unwrap();
    let run = ours(&source, &out.join("c"), &["-q"]);
    assert!(!run.status.success());
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains(&format!(
            "truncated: its header places data up to byte {}",
            bytes.len()
        )),
        "{stderr}"
    );
    assert!(!out.join("c").exists());
}

/// `create --part I/N` on the same sorted list, joined by `merge`: the
/// collection atlas-python's one `create` writes, read by both sides alike;
/// parts past the last file are empty collections that merge as nothing.
#[test]
fn parts_created_apart_merge_into_atlas_pythons_collection() {
    if !common::python_ready() {
        return;
    }
    let source = corpus("main");
    let out = scratch("parts");
    let python = out.join("theirs");
    assert!(theirs(&source, &python, &["-q"]).status.success());
    let mut parts = Vec::new();
    let mut files = Vec::new();
    for i in 1..=4 {
        let part = out.join(format!("part{i}"));
        let made = ours(
            &source,
            &part,
            &["-q", "--json", "--part", &format!("{i}/4")],
        );
        assert!(made.status.success(), "part {i}: {}", text(&made.stderr));
        let summary: Value = serde_json::from_slice(&made.stdout).unwrap();
        assert_eq!(summary["part"]["index"], i);
        assert_eq!(summary["part"]["count"], 4);
        let listed = summary["part"]["files"].as_array().unwrap();
        // 206 files in four contiguous shares of ⌊206·k/4⌋.
        assert_eq!(listed.len(), [51, 52, 51, 52][i - 1], "part {i}");
        assert_eq!(summary["dataset_count"], listed.len());
        files.extend(listed.iter().cloned());
        parts.push(part);
    }
    let mut sorted = files.clone();
    sorted.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    assert_eq!(
        (files.len(), &files),
        (206, &sorted),
        "shares are contiguous and cover all"
    );
    let empty = out.join("empty");
    // Share 1 of 300 of 206 files starts and ends at 0.
    let made = ours(&source, &empty, &["-q", "--json", "--part", "1/300"]);
    assert!(made.status.success(), "{}", text(&made.stderr));
    let summary: Value = serde_json::from_slice(&made.stdout).unwrap();
    assert_eq!(summary["dataset_count"], 0, "{summary}");
    let list = out.join("parts.txt");
    let mut lines: Vec<String> = parts.iter().map(|p| p.display().to_string()).collect();
    lines.insert(2, empty.display().to_string());
    lines.insert(0, "# the four parts, and an empty one between".into());
    std::fs::write(&list, lines.join("\n") + "\n").unwrap();
    let merged = out.join("merged");
    let joined = Command::new(env!("CARGO_BIN_EXE_atlas"))
        .args(["merge", "--json", "--list"])
        .arg(&list)
        .arg(&merged)
        .output()
        .unwrap();
    assert!(joined.status.success(), "{}", text(&joined.stderr));
    let summary: Value = serde_json::from_slice(&joined.stdout).unwrap();
    assert_eq!(
        (summary["parts"].as_u64(), summary["datasets"].as_u64()),
        (Some(5), Some(206))
    );
    assert_same_collection(&merged, &python);

    assert_python_describes_alike(&merged, &python, 206);

    for bad in ["0/4", "5/4", "1/0", "x/2", "3"] {
        let refused = ours(&source, &out.join("bad"), &["--part", bad]);
        assert!(!refused.status.success(), "{bad}");
        assert!(
            text(&refused.stderr).contains("a part is I/N"),
            "{bad}: {}",
            text(&refused.stderr)
        );
        assert!(!out.join("bad").exists());
    }
}

/// Writes `dir/late_failure.nc` with netCDF4: a float array under each
/// variable name of `like` (so they land in segments the good files share)
/// before a time axis whose counts leave numpy's nanosecond range, which
/// only the decode of its values finds (atlas-python: cftime objects, so
/// the file fails; here: the count overflows).
fn write_late_failure(dir: &Path, like: &Path) {
    let script = r#"
import sys, numpy as np, netCDF4
with netCDF4.Dataset(sys.argv[2]) as good:
    names = [n for n in good.variables if n != "t"]
with netCDF4.Dataset(sys.argv[1], "w") as nc:
    nc.createDimension("x", 4000)
    for name in names:
        v = nc.createVariable(name, "f4", ("x",))
        v[:] = np.arange(4000, dtype="f4") * 0.5
    t = nc.createVariable("t", "i4", ("x",))
    t.units = "days since 2000-01-01"
    t[:] = np.full(4000, 10_000_000, dtype="i4")
"#;
    let made = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(dir.join("late_failure.nc"))
        .arg(like)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", text(&made.stderr));
}

/// Each segment's bytes, by variable name.
fn segments(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let bytes = std::fs::read(dir.join("data.atlas")).unwrap();
    let atlas = common::block_on(Atlas::open_path(dir)).unwrap();
    let footer = atlas.footer();
    footer
        .variables
        .iter()
        .map(|v| {
            let range = v.seg_offset as usize..(v.seg_offset + v.seg_len) as usize;
            (footer.string(v.name).to_string(), bytes[range].to_vec())
        })
        .collect()
}

#[test]
fn a_file_that_fails_part_way_leaves_no_byte_behind() {
    if !common::python_ready() {
        return;
    }
    let source = corpus("main");
    let out = scratch("late-failure");
    let with_bad = out.join("source");
    std::fs::create_dir_all(&with_bad).unwrap();
    let files = atlas_wasm::ingest::find_netcdf_files(&source, true).unwrap();
    for path in files.iter().take(3) {
        std::fs::copy(path, with_bad.join(path.file_name().unwrap())).unwrap();
    }
    let clean = out.join("clean");
    assert!(ours(&with_bad, &clean, &["-q"]).status.success());
    write_late_failure(&with_bad, &files[0]);
    let (mine, python) = (out.join("ours"), out.join("theirs"));
    for workers in ["1", "2"] {
        let _ = std::fs::remove_dir_all(&mine);
        let a = ours(&with_bad, &mine, &["--skip-errors", "-q", "-j", workers]);
        assert_eq!(a.status.code(), Some(1), "{}", text(&a.stderr));
        assert!(
            text(&a.stderr).contains("late_failure.nc"),
            "{}",
            text(&a.stderr)
        );
        assert_same_collection(&mine, &clean);
        if workers == "1" {
            // In scan order, the segments of a build without the file, byte
            // for byte: nothing of it reached a block.
            let (x, y) = (segments(&mine), segments(&clean));
            let sizes = |s: &[(String, Vec<u8>)]| -> Vec<(String, usize)> {
                s.iter().map(|(n, b)| (n.clone(), b.len())).collect()
            };
            assert!(
                x == y,
                "the failed file left bytes behind: segments {:?}, clean {:?}",
                sizes(&x),
                sizes(&y)
            );
        }
        assert_eq!(
            std::fs::read_dir(&mine).unwrap().count(),
            1,
            "no work files left"
        );
    }
    let b = theirs(&with_bad, &python, &["--skip-errors", "-q"]);
    assert_eq!(b.status.code(), Some(1), "{}", text(&b.stderr));
    assert_same_collection(&mine, &python);
}
