//! Shared by the reader's integration tests: the canonical JSON of a
//! collection as *our* reader sees it (the same contract `atlas_interop::dump`
//! fills from atlas-rust), and helpers to build fixtures once per run.

#![allow(dead_code)]

pub mod corpus;
pub mod diff;
pub mod dump;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

/// The atlas-rust fixture suite, written once per test binary.
pub fn suite() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // One directory per test binary, under target/: reruns replace it.
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("suite-{}", env!("CARGO_CRATE_NAME")));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        atlas_interop::write_suite(&dir).expect("atlas-rust writes the fixture suite");
        dir
    })
}

/// An empty directory `name` for fixtures the npm package's tests read:
/// under `$ATLAS_FIXTURES` (js/scripts/test.sh sets it), else
/// target/atlas-fixtures. What was there is removed first.
pub fn js_fixture_dir(name: &str) -> PathBuf {
    let dir = std::env::var_os("ATLAS_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/atlas-fixtures"))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The collection directories (those holding a `data.atlas`) under `root`, sorted.
pub fn collection_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("data.atlas").exists())
        .collect();
    dirs.sort();
    dirs
}

/// Runs a future to completion on this thread: the core needs no runtime.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    futures_executor::block_on(f)
}

/// What a copy of a collection's live datasets (a rewrite, a merge) must
/// keep: everything but the creation time, the count of hidden datasets,
/// ordinals (hidden datasets leave gaps that close) and declarations only
/// hidden datasets made.
pub fn live_contents(mut doc: Value) -> Value {
    let obj = doc.as_object_mut().unwrap();
    obj.remove("created_unix_ms");
    obj.remove("total_datasets");
    // The sweep walks every name the footer holds, deleted ones included; a
    // copy drops those from the footer by design.
    obj.remove("sweep");
    let mut live_arrays = std::collections::BTreeSet::new();
    for ds in obj["datasets"].as_array_mut().unwrap() {
        ds.as_object_mut().unwrap().remove("ordinal");
        for a in ds["arrays"].as_array().unwrap() {
            live_arrays.insert(a["name"].as_str().unwrap().to_string());
        }
    }
    obj["arrays"]
        .as_array_mut()
        .unwrap()
        .retain(|a| live_arrays.contains(a.as_str().unwrap()));
    for key in ["array_stats", "array_stats_by_dataset"] {
        obj[key]
            .as_object_mut()
            .unwrap()
            .retain(|k, _| live_arrays.contains(k));
    }
    obj["attributes_by_dataset"]
        .as_array_mut()
        .unwrap()
        .retain(|e| e["values"] != serde_json::json!([]));
    doc
}

/// atlas-rust's canonical JSON of the collection in `dir`, without the
/// creation time: what two builds of the same datasets must agree on.
pub fn atlas_rust_view(dir: &Path) -> Value {
    let mut doc = atlas_interop::dump(dir).unwrap_or_else(|e| panic!("{}: {e:#}", dir.display()));
    doc.as_object_mut().unwrap().remove("created_unix_ms");
    doc
}

/// Fails with the first paths where `a` and `b` differ, under `what`.
pub fn assert_same(a: &Value, b: &Value, what: &str) {
    let diffs = diff::differences(a, b);
    assert!(diffs.is_empty(), "{what}:\n{}", diffs.join("\n"));
}

/// Our reader's canonical JSON of the collection in `dir`, without the
/// creation time.
pub fn our_view(dir: &Path) -> Value {
    let atlas = block_on(atlas_wasm::Atlas::open_path(dir))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut doc = block_on(dump::dump(&atlas)).unwrap();
    doc.as_object_mut().unwrap().remove("created_unix_ms");
    doc
}

/// Whether atlas-python 0.17 is on PATH; where `ATLAS_REQUIRE_PYTHON` is set
/// (CI), its absence fails the test instead of skipping it.
pub fn python_ready() -> bool {
    let found = std::process::Command::new("atlas")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("0.17"));
    if !found {
        assert!(
            std::env::var_os("ATLAS_REQUIRE_PYTHON").is_none(),
            "atlas-python 0.17.2 is required"
        );
        eprintln!("atlas-python 0.17 is not installed; skipped (pip install atlas-python==0.17.2)");
    }
    found
}

/// `PROGRAM create SOURCE DESTINATION FLAGS...`, ours or atlas-python's.
pub fn atlas_create(
    program: &str,
    source: &Path,
    destination: &Path,
    flags: &[&str],
) -> std::process::Output {
    std::process::Command::new(program)
        .arg("create")
        .arg(source)
        .arg(destination)
        .args(flags)
        .output()
        .unwrap()
}
