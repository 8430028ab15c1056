//! The collections under `fixtures/` (compiled into the wasm tests, so that
//! `wasm-pack test` needs no environment) are what the reference writers
//! make today: each `expected.json` is atlas-rust's dump of the collection
//! beside it, and equals the dump of the same fixture written afresh in
//! everything but the creation time. `fixtures/regenerate.sh` rewrites them.
//! Native only; the python fixtures need atlas-python (skipped without it
//! unless ATLAS_REQUIRE_PYTHON is set, as in CI).
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

use serde_json::Value;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The names in `fixtures/LIST`, each directory present.
fn committed() -> Vec<String> {
    let list = std::fs::read_to_string(fixtures_dir().join("LIST")).expect("fixtures/LIST");
    let names: Vec<String> = list
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    assert!(
        names.len() >= 10,
        "fixtures/LIST names {} fixtures",
        names.len()
    );
    for name in &names {
        assert!(
            fixtures_dir().join(name).join("data.atlas").is_file(),
            "{name} is listed but not committed"
        );
    }
    names
}

fn stored(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("expected.json")).expect("expected.json");
    serde_json::from_str(&text).expect("expected.json parses")
}

/// A dump without the one field that differs between two runs of a writer.
fn timeless(mut dump: Value) -> Value {
    dump.as_object_mut()
        .expect("a dump is an object")
        .remove("created_unix_ms");
    dump
}

#[test]
fn each_expected_json_is_atlas_rust_s_dump_of_the_collection_beside_it() {
    for name in committed() {
        let dir = fixtures_dir().join(&name);
        let dumped = atlas_interop::dump(&dir).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        assert!(
            dumped == stored(&dir),
            "{name}: expected.json is not atlas-rust's dump of data.atlas"
        );
    }
}

#[test]
fn the_committed_fixtures_are_what_the_writers_make_today() {
    let fresh = tempfile::tempdir().unwrap();
    let python = atlas_interop::python::write_python_fixtures(fresh.path());
    if let Err(e) = &python {
        assert!(
            std::env::var_os("ATLAS_REQUIRE_PYTHON").is_none(),
            "atlas-python fixtures could not be written: {e:#}"
        );
        eprintln!("skipping the python fixtures: {e:#}");
    }
    let python = python.unwrap_or_default();
    let mut compared = 0;
    for name in committed() {
        if !python.contains(&name) {
            if name.starts_with("python_") {
                continue; // written by atlas-python, which is missing here
            }
            atlas_interop::write_fixture(fresh.path(), &name)
                .unwrap_or_else(|e| panic!("{name}: {e:#}"));
        }
        let now = timeless(stored(&fresh.path().join(&name)));
        let committed = timeless(stored(&fixtures_dir().join(&name)));
        assert!(now == committed, "{name}: the writers make another collection today; run wasm-tests/fixtures/regenerate.sh");
        assert_eq!(
            fresh.path().join(&name).join("deleted.mask").exists(),
            fixtures_dir().join(&name).join("deleted.mask").exists(),
            "{name}: deleted.mask"
        );
        compared += 1;
    }
    assert!(compared >= 10, "compared {compared} fixtures");
}
