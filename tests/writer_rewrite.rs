//! `rewrite` copies collections made by atlas-rust and by atlas-python into
//! our writer with identical contents as atlas-rust reads them; with the
//! source's codec and block size, the segments come out byte for byte as
//! atlas-rust wrote them, which is the strongest evidence that blocks,
//! statistics, pools and footers follow array-format exactly.

#![cfg(feature = "writer")]

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use atlas_wasm::source::FileSource;
use atlas_wasm::write::{rewrite, WriterConfig, DEFAULT_BLOCK_TARGET_SIZE};
use atlas_wasm::{Atlas, ByteSource, ReadOptions};
use common::{block_on, diff::differences, live_contents, suite};
use serde_json::Value;

fn open(dir: &Path) -> Atlas {
    block_on(Atlas::open_path(dir)).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

fn expected(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap()
}

fn block_size_of(fixture: &str) -> usize {
    // The interop suite's one non-default block size.
    if fixture == "small_blocks" {
        4096
    } else {
        DEFAULT_BLOCK_TARGET_SIZE
    }
}

fn rewrite_into(src: &Path, dst: &Path, block_target_size: usize) {
    let data = Arc::new(FileSource::open(src.join("data.atlas")).unwrap());
    let mask: Option<Arc<dyn ByteSource>> = match FileSource::open(src.join("deleted.mask")) {
        Ok(m) => Some(Arc::new(m)),
        Err(_) => None,
    };
    let options = ReadOptions {
        cache_bytes: 16 << 20,
        ..ReadOptions::default()
    };
    let source = block_on(Atlas::open_with(data, mask, options)).unwrap();
    let config = WriterConfig {
        codec: source.codec(),
        block_target_size,
    };
    let _ = std::fs::remove_dir_all(dst);
    let mut calls = 0;
    let summary = block_on(rewrite(&source, dst, config, |done, total| {
        calls += 1;
        assert!(done <= total);
    }))
    .unwrap();
    assert_eq!(summary.datasets, source.dataset_count());
    assert_eq!(calls, source.dataset_count());
}

/// Names of the variables whose segments differ between two containers.
fn differing_segments(a: &Path, b: &Path) -> Vec<String> {
    let (fa, fb) = (open(a), open(b));
    let (ba, bb) = (
        std::fs::read(a.join("data.atlas")).unwrap(),
        std::fs::read(b.join("data.atlas")).unwrap(),
    );
    let segments = |atlas: &Atlas, bytes: &[u8]| -> Vec<(String, Vec<u8>)> {
        let f = atlas.footer();
        f.variables
            .iter()
            .map(|v| {
                let range = v.seg_offset as usize..(v.seg_offset + v.seg_len) as usize;
                (f.string(v.name).to_string(), bytes[range].to_vec())
            })
            .collect()
    };
    let (sa, sb) = (segments(&fa, &ba), segments(&fb, &bb));
    let names: BTreeSet<&String> = sa.iter().chain(&sb).map(|(n, _)| n).collect();
    names
        .into_iter()
        .filter(|n| {
            sa.iter().find(|(m, _)| m == *n).map(|s| &s.1)
                != sb.iter().find(|(m, _)| m == *n).map(|s| &s.1)
        })
        .cloned()
        .collect()
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("atlas-wasm-rewrite-{}-{name}", std::process::id()))
}

#[test]
fn rewriting_every_atlas_rust_fixture_keeps_its_contents_and_its_segment_bytes() {
    let dirs = common::collection_dirs(suite());
    assert!(dirs.len() >= 10);
    let mut identical = Vec::new();
    for src in dirs {
        let name = src.file_name().unwrap().to_str().unwrap().to_string();
        let dst = scratch(&name);
        rewrite_into(&src, &dst, block_size_of(&name));
        let theirs = live_contents(expected(&src));
        let ours = live_contents(atlas_interop::dump(&dst).unwrap());
        let diffs = differences(&ours, &theirs);
        assert!(
            diffs.is_empty(),
            "{name}: the rewrite differs as atlas-rust reads it:\n{}",
            diffs.join("\n")
        );
        let differing = differing_segments(&src, &dst);
        let masked = src.join("deleted.mask").exists();
        if !masked {
            // Every dataset and every declaration survives, so the footer
            // must agree too, creation time aside.
            let (a, b) = (open(&src), open(&dst));
            let mut fa = a.footer().clone();
            fa.created_unix_ms = b.footer().created_unix_ms;
            assert_eq!(&fa, b.footer(), "{name}: the collection footer differs");
        }
        if differing.is_empty() {
            identical.push(name.clone());
        } else {
            eprintln!("{name}: segments {differing:?} differ in bytes (contents agree)");
        }
        std::fs::remove_dir_all(&dst).unwrap();
    }
    eprintln!("byte-identical segments: {identical:?}");
    // Without a mask nothing is dropped, and every fixture repacks into the
    // very same blocks.
    let unmasked = common::collection_dirs(suite())
        .into_iter()
        .filter(|d| !d.join("deleted.mask").exists())
        .count();
    assert_eq!(identical.len(), unmasked, "identical: {identical:?}");
}

#[test]
fn rewriting_atlas_python_collections_keeps_their_contents() {
    if std::process::Command::new("atlas")
        .arg("--version")
        .output()
        .is_err()
    {
        // CI installs it and sets ATLAS_REQUIRE_PYTHON: there a skip is a failure.
        assert!(
            std::env::var_os("ATLAS_REQUIRE_PYTHON").is_none(),
            "atlas-python 0.17.2 is required"
        );
        eprintln!("atlas-python is not installed; skipped (pip install atlas-python==0.17.2)");
        return;
    }
    let root = scratch("python");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let names = atlas_interop::python::write_python_fixtures(&root).unwrap();
    assert!(!names.is_empty());
    for name in names {
        let src = root.join(&name);
        let dst = scratch(&format!("python-out-{name}"));
        rewrite_into(&src, &dst, DEFAULT_BLOCK_TARGET_SIZE);
        let diffs = differences(
            &live_contents(atlas_interop::dump(&dst).unwrap()),
            &live_contents(expected(&src)),
        );
        assert!(
            diffs.is_empty(),
            "{name}: the rewrite differs:\n{}",
            diffs.join("\n")
        );
        assert_eq!(
            differing_segments(&src, &dst),
            Vec::<String>::new(),
            "{name}: segments differ in bytes"
        );
        std::fs::remove_dir_all(&dst).unwrap();
    }
    std::fs::remove_dir_all(&root).unwrap();
}
