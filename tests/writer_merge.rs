//! `merge` joins collections built apart into one that reads, through
//! atlas-rust 0.17.2 and through us, exactly as one writer's collection of
//! the same datasets: values, attributes, statistics, and a collection
//! footer equal pool for pool. Hidden datasets are left out at a cost the
//! summary states exactly; bad parts fail by name and leave nothing.

#![cfg(feature = "writer")]

mod common;

use std::ops::Range;
use std::path::{Path, PathBuf};

use atlas_wasm::write::{delete_datasets, merge, AtlasWriter, Codec, WriterConfig};
use atlas_wasm::{Atlas, Attr};
use common::{
    assert_same, atlas_rust_view as theirs, block_on, live_contents, our_view as ours, suite,
};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("merge-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn open(dir: &Path) -> Atlas {
    block_on(Atlas::open_path(dir)).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// Datasets `range` of one family: every third has a second variable,
/// every fourth dataset attributes, those from 20 on a variable of their
/// own, so parts differ in what they declare.
fn build(dir: &Path, range: Range<usize>, config: WriterConfig) {
    let writer = AtlasWriter::create(dir, config).unwrap();
    for i in range {
        let mut ds = writer.add_dataset(&format!("profile_{i:03}")).unwrap();
        let temp: Vec<f32> = (0..12).map(|k| i as f32 + k as f32 / 4.0).collect();
        ds.define_array::<f32>(
            "temp",
            vec!["z".into(), "x".into()],
            &[4, 3],
            Some(&[2, 3]),
            None,
        )
        .unwrap();
        ds.write_array("temp", &[0, 0], &[4, 3], &temp).unwrap();
        ds.set_array_attribute("temp", "units", Attr::String("K".into()))
            .unwrap();
        if i % 2 == 0 {
            ds.set_array_attribute("temp", "scale", Attr::Float64(0.5 * i as f64))
                .unwrap();
        }
        if i % 3 == 0 {
            let salt: Vec<f64> = (0..5).map(|k| 35.0 + (i * k) as f64 / 100.0).collect();
            ds.define_array::<f64>("salt", vec!["z".into()], &[5], None, None)
                .unwrap();
            ds.write_array("salt", &[0], &[5], &salt).unwrap();
        }
        if i >= 20 {
            ds.define_array::<i32>("late", vec![], &[], None, None)
                .unwrap();
            ds.write_array("late", &[], &[], &[i as i32]).unwrap();
        }
        if i % 4 == 1 {
            ds.set_attribute("index", Attr::Int64(i as i64));
            ds.set_attribute(
                "tags",
                Attr::StringList(vec!["argo".into(), format!("p{i}")]),
            );
        }
        ds.finish().unwrap();
    }
    writer.finish().unwrap();
}

const SPLIT: [Range<usize>; 3] = [0..9, 9..20, 20..30];

fn parts(root: &Path, config: WriterConfig) -> Vec<PathBuf> {
    SPLIT
        .iter()
        .enumerate()
        .map(|(i, range)| {
            let dir = root.join(format!("part{i}"));
            build(&dir, range.clone(), config);
            dir
        })
        .collect()
}

fn tiny_blocks() -> WriterConfig {
    // Each chunk closes its own block: hidden datasets' chunks never share
    // a block with a live one.
    WriterConfig {
        codec: Codec::Zstd,
        block_target_size: 1,
    }
}

#[test]
fn parts_merge_into_what_one_writer_writes() {
    let root = scratch("equal");
    for (label, config) in [
        ("default", WriterConfig::default()),
        ("tiny", tiny_blocks()),
    ] {
        let whole = root.join(format!("whole-{label}"));
        build(&whole, 0..30, config);
        let parts = parts(&root.join(label), config);
        let merged = root.join(format!("merged-{label}"));
        let mut calls = Vec::new();
        let summary = merge(&parts, &merged, |done, total| calls.push((done, total))).unwrap();
        assert_eq!(
            (summary.parts, summary.datasets, summary.dropped),
            (3, 30, 0)
        );
        // temp, salt, _datasets, late: in first-declared order.
        assert_eq!(calls, vec![(1, 4), (2, 4), (3, 4), (4, 4)]);
        assert_eq!(summary.variables, 4);
        assert_eq!((summary.blocks_left, summary.dead_bytes), (0, 0));

        assert_same(
            &theirs(&merged),
            &theirs(&whole),
            "atlas-rust reads the merge otherwise",
        );
        assert_same(&ours(&merged), &ours(&whole), "we read the merge otherwise");
        // Pools, schemas and dataset order as one writer interns them; only
        // where segments lie differs (a part's last block is its own).
        let (a, b) = (open(&merged), open(&whole));
        let (fa, fb) = (a.footer(), b.footer());
        assert_eq!(fa.string_pool, fb.string_pool);
        assert_eq!(fa.dtype_pool, fb.dtype_pool);
        assert_eq!(fa.schema_pool, fb.schema_pool);
        assert_eq!(fa.datasets, fb.datasets);
        let names = |f: &atlas_wasm::format::footer::CollectionFooter| -> Vec<String> {
            f.variables
                .iter()
                .map(|v| f.string(v.name).to_string())
                .collect()
        };
        assert_eq!(names(fa), names(fb));
        assert_eq!(summary.container_bytes, a.container_bytes());
        let copied_everything = label == "tiny";
        if copied_everything {
            // One block per chunk either way: the data regions are the same
            // bytes, so the containers differ by footers alone.
            let data =
                |atlas: &Atlas| -> u64 { atlas.footer().variables.iter().map(|v| v.seg_len).sum() };
            assert!(
                data(&a).abs_diff(data(&b)) < 4096,
                "{} vs {}",
                data(&a),
                data(&b)
            );
        }
        std::fs::remove_dir_all(&merged).unwrap();
    }
}

/// Bytes of chunks of the datasets `hidden` in `build`'s family.
fn chunk_bytes(hidden: &[usize]) -> u64 {
    hidden
        .iter()
        .map(|&i| 48 + if i % 3 == 0 { 40 } else { 0 } + if i >= 20 { 4 } else { 0 })
        .sum()
}

fn chunk_count(hidden: &[usize]) -> u64 {
    hidden
        .iter()
        .map(|&i| 2 + u64::from(i % 3 == 0) + u64::from(i >= 20))
        .sum()
}

#[test]
fn hidden_datasets_are_left_out_and_their_cost_is_stated() {
    let root = scratch("hidden");
    // 12 has salt; 13 has dataset attributes; 21 is past 20 and has them too.
    let hidden = [12usize, 13, 21];
    let names: Vec<String> = hidden.iter().map(|i| format!("profile_{i:03}")).collect();
    for (label, config) in [
        ("default", WriterConfig::default()),
        ("tiny", tiny_blocks()),
    ] {
        let whole = root.join(format!("whole-{label}"));
        build(&whole, 0..30, config);
        delete_datasets(&whole, &names, false).unwrap();
        let parts = parts(&root.join(label), config);
        delete_datasets(&parts[1], &names[..2], false).unwrap();
        delete_datasets(&parts[2], &names[2..], false).unwrap();
        let merged = root.join(format!("merged-{label}"));
        let summary = merge(&parts, &merged, |_, _| {}).unwrap();
        assert_eq!((summary.datasets, summary.dropped), (27, 3));
        assert!(!merged.join("deleted.mask").exists());
        assert_same(
            &live_contents(theirs(&merged)),
            &live_contents(theirs(&whole)),
            &format!("{label}: the merge's live datasets"),
        );
        let (left, dead) = match label {
            // Every chunk of a part's variable sits in one block with live
            // ones: nothing is left, the hidden chunks ride along.
            "default" => (0, chunk_bytes(&hidden)),
            // Their chunks had blocks of their own: none is copied.
            _ => (chunk_count(&hidden), 0),
        };
        assert_eq!(
            (summary.blocks_left, summary.dead_bytes),
            (left, dead),
            "{label}"
        );
    }
}

#[test]
fn every_atlas_rust_fixture_merges_alone_into_its_live_contents() {
    let root = scratch("fixtures");
    let dirs = common::collection_dirs(suite());
    assert!(dirs.len() >= 10);
    for src in dirs {
        let name = src.file_name().unwrap().to_str().unwrap().to_string();
        let dst = root.join(&name);
        let summary = merge(std::slice::from_ref(&src), &dst, |_, _| {})
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected: Value =
            serde_json::from_slice(&std::fs::read(src.join("expected.json")).unwrap()).unwrap();
        assert_same(
            &live_contents(atlas_interop::dump(&dst).unwrap()),
            &live_contents(expected),
            &format!("{name}: the merge as atlas-rust reads it"),
        );
        assert_eq!(summary.datasets, open(&src).dataset_count(), "{name}");
        if summary.datasets > 0 {
            // The same part twice names the dataset and both parts.
            let twice =
                merge(&[src.clone(), src.clone()], root.join("twice"), |_, _| {}).unwrap_err();
            assert_eq!(twice.code(), "InvalidArgument");
            assert!(twice.to_string().contains("is in part"), "{twice}");
        }
    }
    assert!(!root.join("twice").exists());
}

/// Everything under `dir`, with contents, to see that a failure changed nothing.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries {
            let path = entry.unwrap().path();
            out.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
        }
    }
    out.sort();
    out
}

fn refused(parts: &[PathBuf], dest: &Path) -> atlas_wasm::Error {
    let before = snapshot(dest);
    let existed = dest.exists();
    let err = merge(parts, dest, |_, _| {}).unwrap_err();
    assert_eq!(dest.exists(), existed, "{err}");
    assert_eq!(snapshot(dest), before, "{err}: the destination changed");
    err
}

#[test]
fn bad_parts_fail_by_name_and_leave_the_destination_as_it_was() {
    let root = scratch("bad");
    let good = root.join("good");
    build(&good, 0..3, WriterConfig::default());
    let other = root.join("other");
    build(&other, 3..6, WriterConfig::default());
    let lz4 = root.join("lz4");
    build(
        &lz4,
        6..9,
        WriterConfig {
            codec: Codec::Lz4,
            ..WriterConfig::default()
        },
    );
    // An existing collection at the destination must survive every failure.
    let kept = root.join("kept");
    build(&kept, 10..12, WriterConfig::default());
    for dest in [root.join("absent"), kept.clone()] {
        let e = refused(&[good.clone(), lz4.clone()], &dest);
        assert_eq!(e.code(), "InvalidArgument");
        assert!(
            e.to_string().contains("lz4") && e.to_string().contains("zstd"),
            "{e}"
        );

        let empty = root.join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        let e = refused(&[good.clone(), empty.clone()], &dest);
        assert_eq!(e.code(), "NotFound");
        assert!(
            e.to_string().contains(&format!("part {}", empty.display())),
            "{e}"
        );

        let foreign = root.join("foreign");
        std::fs::create_dir_all(&foreign).unwrap();
        std::fs::write(
            foreign.join("data.atlas"),
            b"PAR1 not a collection at all PAR1",
        )
        .unwrap();
        let e = refused(std::slice::from_ref(&foreign), &dest);
        assert_eq!(e.code(), "NotAnAtlasCollection", "{e}");
        assert!(e.to_string().contains("part "), "{e}");

        // Damage only the segment read reveals: the first segment's magic.
        let damaged = root.join("damaged");
        build(&damaged, 20..23, WriterConfig::default());
        let variable = open(&damaged).footer().variables[0].clone();
        let mut bytes = std::fs::read(damaged.join("data.atlas")).unwrap();
        let magic = (variable.seg_offset + variable.seg_len - 4) as usize;
        bytes[magic..magic + 4].copy_from_slice(b"XXXX");
        std::fs::write(damaged.join("data.atlas"), &bytes).unwrap();
        let e = refused(&[other.clone(), damaged.clone()], &dest);
        assert_eq!(e.code(), "CorruptCollection", "{e}");
        assert!(
            e.to_string()
                .contains(&format!("part {}", damaged.display())),
            "{e}"
        );

        let e = refused(&[], &dest);
        assert_eq!(e.code(), "InvalidArgument");
    }
    let e = refused(&[good.clone(), kept.clone()], &kept);
    assert!(e.to_string().contains("is one of the parts"), "{e}");
    // And a merge into the existing collection replaces it whole.
    merge(&[good.clone(), other.clone()], &kept, |_, _| {}).unwrap();
    assert_eq!(open(&kept).list_datasets().len(), 6);
    let leftovers: Vec<_> = std::fs::read_dir(&kept)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with(".atlas-write"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
