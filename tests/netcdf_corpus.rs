//! `atlas create` against atlas-python 0.17.2's `atlas create` on NetCDF
//! files nobody here made: test and example data taken unchanged from other
//! projects' packages (tests/netcdf-corpus/PROVENANCE.md; re-fetched by
//! tests/netcdf-corpus/fetch.sh). Each producer's directory is built by both
//! in three modes; every file must then land in both or be skipped by both,
//! and every dataset that landed must read the same through atlas-rust
//! 0.17.2 (the differential oracle), value for value, with our reader
//! agreeing with atlas-rust on our collection. A file counts as identical
//! when it agrees in every mode; the test prints `N of M files identical`
//! and fails below M.

#![cfg(feature = "cli")]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// (name, flags) of each mode both tools run in.
const MODES: [(&str, &[&str]); 3] = [
    ("default", &[]),
    ("skip-errors", &["--skip-errors"]),
    ("no-decode-times", &["--skip-errors", "--no-decode-times"]),
];

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/netcdf-corpus/files")
}

fn producers() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus_root())
        .expect("tests/netcdf-corpus/files (run tests/netcdf-corpus/fetch.sh)")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if atlas_wasm::ingest::NETCDF_SUFFIXES
                .iter()
                .any(|s| path.to_string_lossy().ends_with(s))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn create(program: &str, source: &Path, destination: &Path, flags: &[&str]) -> Output {
    common::atlas_create(
        program,
        source,
        destination,
        &[flags, &["--quiet"]].concat(),
    )
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// atlas-rust's reading of a collection: each dataset's document by name,
/// and the rest of the collection (creation time left out).
struct Reading {
    datasets: BTreeMap<String, Value>,
    rest: Value,
}

fn read_with_atlas_rust(dir: &Path) -> Reading {
    let mut doc = atlas_interop::dump(dir).expect("atlas-rust reads the collection");
    let object = doc.as_object_mut().unwrap();
    object.remove("created_unix_ms");
    let datasets = object
        .remove("datasets")
        .and_then(|d| match d {
            Value::Array(items) => Some(items),
            _ => None,
        })
        .unwrap_or_default()
        .into_iter()
        .map(|d| (d["name"].as_str().unwrap().to_string(), d))
        .collect();
    Reading {
        datasets,
        rest: doc,
    }
}

/// Our reader and atlas-rust read our collection alike.
fn assert_our_reader_agrees(dir: &Path) {
    let theirs = {
        let mut doc = atlas_interop::dump(dir).unwrap();
        doc.as_object_mut().unwrap().remove("created_unix_ms");
        doc
    };
    let ours = common::block_on(async {
        let atlas = atlas_wasm::Atlas::open_path(dir).await.unwrap();
        let mut doc = common::dump::dump(&atlas).await.unwrap();
        doc.as_object_mut().unwrap().remove("created_unix_ms");
        doc
    });
    let diffs = common::diff::differences(&ours, &theirs);
    assert!(
        diffs.is_empty(),
        "{}: our reader and atlas-rust differ:\n{}",
        dir.display(),
        diffs.join("\n")
    );
}

/// Records `why` for each of `names` that has no disagreement yet.
fn blame(differing: &mut BTreeMap<String, String>, names: &[String], why: String) {
    for n in names {
        differing.entry(n.clone()).or_insert_with(|| why.clone());
    }
}

/// The file names `atlas create` reported as skipped on stderr.
fn skipped(stderr: &str) -> BTreeSet<String> {
    stderr
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("skipped "))
        .filter(|l| !l.starts_with("array "))
        .filter_map(|l| l.split_once(": ").map(|(file, _)| file_name(file)))
        .collect()
}

fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}

/// Builds `dir` with both tools in every mode and records, under
/// `{label}/{file}`, the first disagreement of each file it holds; returns
/// those names.
fn compare_directory(
    dir: &Path,
    label: &str,
    out: &Path,
    differing: &mut BTreeMap<String, String>,
) -> Vec<String> {
    let files = files_under(dir);
    let names: Vec<String> = files
        .iter()
        .map(|f| format!("{label}/{}", file_name(&f.to_string_lossy())))
        .collect();
    for (mode, flags) in MODES {
        let (mine, python) = (
            out.join(label).join(mode).join("ours"),
            out.join(label).join(mode).join("theirs"),
        );
        let a = create(env!("CARGO_BIN_EXE_atlas"), dir, &mine, flags);
        let b = create("atlas", dir, &python, flags);
        if a.status.success() != b.status.success() || a.status.code() != b.status.code() {
            blame(
                differing,
                &names,
                format!(
                    "{mode}: exit {:?} here, {:?} in atlas-python\n  ours: {}\n  theirs: {}",
                    a.status.code(),
                    b.status.code(),
                    text(&a.stderr).trim(),
                    text(&b.stderr).trim()
                ),
            );
            continue;
        }
        if !mine.join("data.atlas").exists() || !python.join("data.atlas").exists() {
            // Both refused the directory (default mode stops at a bad file).
            assert!(
                !mine.exists(),
                "{label} {mode}: a refused build left {}",
                mine.display()
            );
            continue;
        }
        let (skipped_here, skipped_there) = (skipped(&text(&a.stderr)), skipped(&text(&b.stderr)));
        assert_our_reader_agrees(&mine);
        let (ours, theirs) = (read_with_atlas_rust(&mine), read_with_atlas_rust(&python));
        for (file, name) in files.iter().zip(&names) {
            let base = file_name(&file.to_string_lossy());
            let (here, there) = (skipped_here.contains(&base), skipped_there.contains(&base));
            if here != there {
                differing.entry(name.clone()).or_insert_with(|| {
                    format!("{mode}: skipped here {here}, in atlas-python {there}\n  ours: {}\n  theirs: {}", text(&a.stderr).trim(), text(&b.stderr).trim())
                });
                continue;
            }
            let (x, y) = (ours.datasets.get(&base), theirs.datasets.get(&base));
            if let (Some(x), Some(y)) = (x, y) {
                let diffs = common::diff::differences(x, y);
                if !diffs.is_empty() {
                    differing
                        .entry(name.clone())
                        .or_insert_with(|| format!("{mode}:\n  {}", diffs.join("\n  ")));
                }
            } else if x.is_some() != y.is_some() {
                differing.entry(name.clone()).or_insert_with(|| {
                    format!(
                        "{mode}: landed here {}, in atlas-python {}",
                        x.is_some(),
                        y.is_some()
                    )
                });
            }
        }
        // Collection statistics and attribute columns, once every
        // dataset agrees.
        let diffs = common::diff::differences(&ours.rest, &theirs.rest);
        if !diffs.is_empty() && !names.iter().any(|n| differing.contains_key(n)) {
            blame(
                differing,
                &names,
                format!(
                    "{mode}: the collections differ beyond their datasets:\n  {}",
                    diffs.join("\n  ")
                ),
            );
        }
    }
    names
}

#[test]
fn real_files_from_other_packages_ingest_as_atlas_python_ingests_them() {
    if !common::python_ready() {
        return;
    }
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("netcdf-corpus");
    let _ = std::fs::remove_dir_all(&out);
    // file -> the first disagreement found for it
    let mut differing: BTreeMap<String, String> = BTreeMap::new();
    let mut all_files = Vec::new();
    for producer in producers() {
        let label = producer.file_name().unwrap().to_string_lossy().into_owned();
        all_files.extend(compare_directory(&producer, &label, &out, &mut differing));
    }
    let identical = all_files.len() - differing.len();
    println!("{identical} of {} files identical", all_files.len());
    for (file, why) in ATLAS_PYTHON_WRONG {
        assert!(
            differing.remove(file).is_some(),
            "{file} is listed as one atlas-python gets wrong, but it agrees now"
        );
        println!("atlas-python is wrong on {file}: {why}");
    }
    for (file, why) in &differing {
        println!("DIFFERS {file}: {why}");
    }
    assert!(
        all_files.len() >= 100,
        "the corpus holds {} files",
        all_files.len()
    );
    assert!(
        differing.is_empty(),
        "{} files differ (listed above)",
        differing.len()
    );
    assert_eq!(identical + ATLAS_PYTHON_WRONG.len(), all_files.len());
}

/// Files where atlas-python stores what the file does not hold, each with
/// what we store instead; the corpus test requires them to differ, and
/// `a_variable_over_one_dimension_twice_reads_as_ncdump_prints_it` pins how.
const ATLAS_PYTHON_WRONG: [(&str, &str); 1] = [(
    "compliance-checker/bad_missing_data.nc",
    "temp(time, time) repeats a dimension: libnetcdf answers the one hyperslab \
     atlas-python reads with an uninitialised cell (2685476833 where ncdump prints \
     the fill); we read it a row at a time, as ncdump does",
)];

/// One corpus file built alone by both tools with `flags`: (exit codes,
/// stderr texts, each side's dataset document as atlas-rust reads it).
struct Both {
    codes: (Option<i32>, Option<i32>),
    stderr: (String, String),
    ours: Option<Value>,
    theirs: Option<Value>,
}

fn both(file: &str, flags: &[&str]) -> Both {
    // A directory per call: tests running at once may build the same file.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let label: String = format!("{call}-{file}{}", flags.join(""))
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("netcdf-one")
        .join(label);
    let _ = std::fs::remove_dir_all(&out);
    let source = out.join("source");
    std::fs::create_dir_all(&source).unwrap();
    let name = file_name(file);
    std::fs::copy(corpus_root().join(file), source.join(&name)).unwrap();
    let (mine, python) = (out.join("ours"), out.join("theirs"));
    let a = create(env!("CARGO_BIN_EXE_atlas"), &source, &mine, flags);
    let b = create("atlas", &source, &python, flags);
    let read = |dir: &Path| {
        dir.join("data.atlas")
            .exists()
            .then(|| read_with_atlas_rust(dir).datasets.remove(&name))
            .flatten()
    };
    if mine.join("data.atlas").exists() {
        assert_our_reader_agrees(&mine);
    }
    Both {
        codes: (a.status.code(), b.status.code()),
        stderr: (text(&a.stderr), text(&b.stderr)),
        ours: read(&mine),
        theirs: read(&python),
    }
}

impl Both {
    /// Both landed the file, and atlas-rust reads the two alike; ours.
    fn same(&self) -> &Value {
        let (Some(ours), Some(theirs)) = (&self.ours, &self.theirs) else {
            panic!(
                "landed here {}, in atlas-python {}:\n{}\n{}",
                self.ours.is_some(),
                self.theirs.is_some(),
                self.stderr.0,
                self.stderr.1
            );
        };
        let diffs = common::diff::differences(ours, theirs);
        assert!(diffs.is_empty(), "{}", diffs.join("\n"));
        ours
    }
}

fn array<'a>(dataset: &'a Value, name: &str) -> &'a Value {
    dataset["arrays"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == name)
        .unwrap_or_else(|| panic!("no array {name}"))
}

fn dataset_attr(dataset: &Value, key: &str) -> Value {
    dataset["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|pair| pair[0] == key)
        .map(|pair| pair[1]["value"].clone())
        .unwrap_or(Value::Null)
}

#[test]
fn time_units_with_a_second_clock_decode_as_pandas_reads_them() {
    if !common::python_ready() {
        return;
    }
    // `seconds since 2011-05-20 00:00:00 0:00`, as ARM writes it.
    let run = both("arm-pyart/example_arm_sonde.cdf", &[]);
    let ours = run.same();
    assert_eq!(array(ours, "time")["dtype"], "timestamp_ns");
}

#[test]
fn a_year_written_last_reads_month_first_as_dateutil_does() {
    if !common::python_ready() {
        return;
    }
    // `seconds since 1-1-1970`.
    let run = both("netcdfjs/madis-sao.nc", &[]);
    let ours = run.same();
    assert_eq!(array(ours, "timeObs")["dtype"], "timestamp_ns");
}

#[test]
fn enum_variables_store_their_base_integers_as_xarray_decodes_them() {
    if !common::python_ready() {
        return;
    }
    for file in ["pyfive/enum_variable.nc", "pyfive/enums_from_netcdf.nc"] {
        let run = both(file, &[]);
        assert_eq!(run.codes, (Some(0), Some(0)), "{file}: {}", run.stderr.0);
        run.same();
    }
    // A masked uint8 enum: float32 with a NaN fill, as the issue saw it.
    let run = both("pyfive/enum_variable.nc", &[]);
    let masked = run.same()["arrays"].as_array().unwrap().iter().any(|a| {
        a["dtype"] == "float32"
            && a["fill"]["value"]
                .as_str()
                .is_some_and(|v| v.starts_with("NaN"))
    });
    assert!(masked, "{}", run.same());
}

#[test]
fn a_text_missing_value_promotes_like_any_fill() {
    if !common::python_ready() {
        return;
    }
    let run = both("netcdf4-python/issue1152.nc", &[]);
    let ours = run.same();
    let promoted = ours["arrays"].as_array().unwrap().iter().any(|a| {
        a["dtype"] == "float64"
            && a["fill"]["value"]
                .as_str()
                .is_some_and(|v| v.starts_with("NaN"))
    });
    assert!(promoted, "{ours}");
}

#[test]
fn variables_named_after_a_dimension_are_coordinates_whatever_their_rank() {
    if !common::python_ready() {
        return;
    }
    let run = both("compliance-checker/bad_cf_role.nc", &[]);
    let ours = run.same();
    assert_eq!(array(ours, "depth")["shape"], serde_json::json!([1, 1]));
    let coords = dataset_attr(ours, "_pyatlas_coords");
    assert_eq!(coords, "[\"depth\", \"lat\", \"lon\"]");
}

#[test]
fn a_variable_over_one_dimension_twice_reads_as_ncdump_prints_it() {
    if !common::python_ready() {
        return;
    }
    let run = both("compliance-checker/bad_missing_data.nc", &[]);
    let (ours, theirs) = (run.ours.as_ref().unwrap(), run.theirs.as_ref().unwrap());
    let values = |d: &Value| array(d, "temp")["values"].as_array().unwrap().clone();
    // ncdump: {1, 0, 1}, {1, 1, 0}, {_, _, _} with _FillValue -999.
    let nan = |v: &Value| v.as_str().is_some_and(|s| s.starts_with("NaN"));
    let ours = values(ours);
    assert_eq!(
        ours[..6],
        ["1.0", "0.0", "1.0", "1.0", "1.0", "0.0"].map(Value::from)
    );
    assert!(ours[6..].iter().all(nan), "{ours:?}");
    // atlas-python: an uninitialised cell (ATLAS_PYTHON_WRONG).
    assert_eq!(values(theirs)[7], "2685476833.0");
}

#[test]
fn convert_calendar_gives_the_instants_atlas_python_gives() {
    if !common::python_ready() {
        return;
    }
    let julian = "esmvaltool-sample-data/ta_Amon_IITM-ESM_historical_r1i1p1f1_gn_201001-201412.nc";
    // Refused without the flag (cftime objects), by both.
    let run = both(julian, &["--skip-errors"]);
    assert_eq!(
        run.codes,
        (Some(1), Some(1)),
        "{}\n{}",
        run.stderr.0,
        run.stderr.1
    );
    let run = both(julian, &["--convert-calendar"]);
    let ours = run.same();
    assert_eq!(array(ours, "time")["dtype"], "timestamp_ns");
    // A calendar without real instants fails the file in both.
    let run = both(
        "cf-python/test_file2.nc",
        &["--convert-calendar", "--skip-errors"],
    );
    assert_eq!(
        run.codes,
        (Some(1), Some(1)),
        "{}\n{}",
        run.stderr.0,
        run.stderr.1
    );
    assert!(
        run.stderr.0.contains("names no real instant"),
        "{}",
        run.stderr.0
    );
}

#[test]
fn open_chunks_modes_store_the_chunks_atlas_python_stores() {
    if !common::python_ready() {
        return;
    }
    let file = "netcdf4-python/20171025_2056.Cloud_Top_Height.nc";
    let mut shapes = BTreeSet::new();
    for mode in ["native", "none", "{\"x\": 100}", "{\"y\": -1, \"x\": 37}"] {
        let run = both(file, &["--open-chunks", mode]);
        let ours = run.same();
        let chunks: Vec<String> = ours["arrays"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["chunk_shape"].to_string())
            .collect();
        shapes.insert(chunks.join(" "));
    }
    assert!(
        shapes.len() >= 3,
        "the modes stored too few distinct chunkings: {shapes:?}"
    );
    let bad = create(
        env!("CARGO_BIN_EXE_atlas"),
        &corpus_root().join("netcdf4-python"),
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join("netcdf-one/bad-open-chunks"),
        &["--open-chunks", "sometimes"],
    );
    assert!(
        text(&bad.stderr)
            .contains("--open-chunks must be auto, native, none, or a JSON dict; got 'sometimes'"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn atlas_pythons_warnings_reach_stderr_in_its_words() {
    if !common::python_ready() {
        return;
    }
    let run = both("netcdfjs/madis-sao.nc", &[]);
    run.same();
    let wanted = "'staticIds': replaced 205 missing string cell(s) (None/NaN) with ''. Atlas cannot store a missing string as null";
    assert!(
        run.stderr.1.contains(wanted),
        "atlas-python: {}",
        run.stderr.1
    );
    assert!(run.stderr.0.contains(wanted), "ours: {}", run.stderr.0);
    // xarray's warning: the same words, but the fills print as Python
    // floats here and as numpy scalars there (`{np.int32(1), np.int32(2)}`).
    let run = both("scipy/example_3_maskedvals.nc", &[]);
    run.same();
    for said in [&run.stderr.0, &run.stderr.1] {
        assert!(
            said.contains("variable 'var3_fillvalAndMissingValue' has multiple fill values {")
                && said.contains("} defined, decoding all values to NaN."),
            "{said}"
        );
    }
}

/// Runs `script` (Python, with `netCDF4` imported and `out` the directory to
/// write into) in a new directory under target/: (that test's directory,
/// the files' directory).
fn made_with_netcdf4(name: &str, script: &str) -> (PathBuf, PathBuf) {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&out);
    let source = out.join("source");
    std::fs::create_dir_all(&source).unwrap();
    let made = Command::new("python3")
        .arg("-c")
        .arg(format!("import sys, netCDF4\nout = sys.argv[1]\n{script}"))
        .arg(&source)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", text(&made.stderr));
    (out, source)
}

/// No package here ships a file whose packing attribute is text, so this
/// one is made with netCDF4-python: atlas-python fails it (numpy has no
/// loop for a number and a str), and so must we.
#[test]
fn a_text_add_offset_fails_its_file_as_in_atlas_python() {
    if !common::python_ready() {
        return;
    }
    let (out, source) = made_with_netcdf4(
        "netcdf-text-packing",
        r#"
for key in ("add_offset", "scale_factor"):
    with netCDF4.Dataset(f"{out}/text_{key}.nc", "w") as nc:
        nc.createDimension("t", 4)
        v = nc.createVariable("x", "i2", ("t",))
        v[:] = [1, 2, 3, 4]
        v.setncattr_string(key, "1.5")
"#,
    );
    let a = create(
        env!("CARGO_BIN_EXE_atlas"),
        &source,
        &out.join("ours"),
        &["--skip-errors"],
    );
    let b = create("atlas", &source, &out.join("theirs"), &["--skip-errors"]);
    let (mine, python) = (text(&a.stderr), text(&b.stderr));
    assert_eq!(
        (a.status.code(), b.status.code()),
        (Some(1), Some(1)),
        "{mine}\n{python}"
    );
    let expected: BTreeSet<String> = ["text_add_offset.nc", "text_scale_factor.nc"]
        .map(String::from)
        .into();
    assert_eq!(skipped(&mine), expected, "{mine}");
    assert_eq!(skipped(&python), expected, "{python}");
}

#[test]
fn random_netcdf_files_ingest_as_atlas_python_ingests_them() {
    if !common::python_ready() {
        return;
    }
    // interop/python/make_random_netcdf.py: every format, type, fill,
    // packing, calendar and attribute kind, drawn from a seed.
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("netcdf-random");
    let _ = std::fs::remove_dir_all(&out);
    let seed = std::env::var("ATLAS_RANDOM_NETCDF_SEED").unwrap_or_else(|_| "1".into());
    let source = out.join("source");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("interop/python/make_random_netcdf.py");
    let made = Command::new("python3")
        .arg(script)
        .arg(&source)
        .args(["--seed", &seed, "--files", "40"])
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", text(&made.stderr));
    let mut differing = BTreeMap::new();
    let names = compare_directory(&source, "random", &out, &mut differing);
    println!(
        "seed {seed}: {} of {} random files identical",
        names.len() - differing.len(),
        names.len()
    );
    for (file, why) in &differing {
        println!("DIFFERS {file}: {why}");
    }
    assert_eq!(names.len(), 40);
    assert!(
        differing.is_empty(),
        "{} files differ (listed above)",
        differing.len()
    );
}

/// No package here ships a file on the mixed Gregorian calendar before its
/// reform, so this one is made with netCDF4-python: `--convert-calendar`
/// gives the instants atlas-python gives, across 1582 too.
#[test]
fn convert_calendar_moves_dates_before_the_reform_as_atlas_python_does() {
    if !common::python_ready() {
        return;
    }
    let (out, source) = made_with_netcdf4(
        "netcdf-mixed-calendar",
        r#"
with netCDF4.Dataset(f"{out}/mixed.nc", "w") as nc:
    nc.createDimension("t", 5)
    v = nc.createVariable("time", "f8", ("t",))
    v.units = "days since 1500-01-01 06:00"
    v.calendar = "standard"
    v[:] = [65000.0, 65000.5, 66000.25, 70000.0, 73000.125]
"#,
    );
    let flags = ["--convert-calendar"];
    let (mine, python) = (out.join("ours"), out.join("theirs"));
    let a = create(env!("CARGO_BIN_EXE_atlas"), &source, &mine, &flags);
    let b = create("atlas", &source, &python, &flags);
    assert!(a.status.success(), "{}", text(&a.stderr));
    assert!(b.status.success(), "{}", text(&b.stderr));
    let (ours, theirs) = (read_with_atlas_rust(&mine), read_with_atlas_rust(&python));
    let diffs = common::diff::differences(&ours.datasets["mixed.nc"], &theirs.datasets["mixed.nc"]);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    assert_eq!(
        array(&ours.datasets["mixed.nc"], "time")["dtype"],
        "timestamp_ns"
    );
}
