//! Every collection atlas-rust 0.17.2 and atlas-python 0.17.2 write reads back
//! through our core value for value: datasets, schemas, layouts, fill values,
//! attributes, statistics and every element, whole and in windows; and every
//! collection-level answer (merged statistics for every name, per-dataset
//! statistics, attributes by dataset, listings, counts) is atlas-rust's.

mod common;

use atlas_wasm::{ArrayData, Atlas};
use common::{block_on, collection_dirs, diff::differences, dump::dump, suite};
use serde_json::Value;

fn expected(dir: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap()
}

fn check_collection(dir: &std::path::Path) {
    let atlas =
        block_on(Atlas::open_path(dir)).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let ours = block_on(dump(&atlas)).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let diffs = differences(&ours, &expected(dir));
    assert!(
        diffs.is_empty(),
        "{} differs:\n{}",
        dir.display(),
        diffs.join("\n")
    );
}

#[test]
fn every_atlas_rust_fixture_reads_back_value_for_value() {
    let dirs = collection_dirs(suite());
    assert!(dirs.len() >= 10, "the suite holds {} fixtures", dirs.len());
    for dir in dirs {
        check_collection(&dir);
    }
}

#[test]
fn windows_agree_with_the_whole_array_everywhere() {
    for dir in collection_dirs(suite()) {
        let atlas = block_on(Atlas::open_path(&dir)).unwrap();
        for name in atlas.list_datasets().into_iter().take(20) {
            let ds = atlas.dataset(&name).unwrap();
            for array in ds.list_arrays() {
                let whole = block_on(ds.read_array(&array, &[], &[])).unwrap();
                for (start, shape) in windows_of(&whole.shape) {
                    let part = block_on(ds.read_array(&array, &start, &shape))
                        .unwrap_or_else(|e| panic!("{name}/{array} {start:?}+{shape:?}: {e}"));
                    assert_eq!(part.shape, shape);
                    let want = slice(&whole.data, &whole.shape, &start, &shape);
                    assert_eq!(
                        common::dump::values(&part.data),
                        common::dump::values(&want),
                        "{}: {name}/{array} window {start:?}+{shape:?}",
                        dir.display()
                    );
                }
            }
        }
    }
}

/// A few windows per array: a corner, the middle, the far edge, a single element.
fn windows_of(shape: &[u64]) -> Vec<(Vec<u64>, Vec<u64>)> {
    if shape.contains(&0) {
        return vec![(vec![0; shape.len()], shape.to_vec())];
    }
    let corner = (
        vec![0; shape.len()],
        shape.iter().map(|&s| s.div_ceil(2)).collect(),
    );
    let middle = (
        shape.iter().map(|&s| s / 3).collect(),
        shape.iter().map(|&s| (s / 2).max(1)).collect(),
    );
    let edge = (
        shape.iter().map(|&s| s - s.div_ceil(3)).collect(),
        shape.iter().map(|&s| s.div_ceil(3)).collect(),
    );
    let one = (shape.iter().map(|&s| s - 1).collect(), vec![1; shape.len()]);
    vec![corner, middle, edge, one]
}

/// Cuts a window out of a whole array's elements, in C order.
fn slice(data: &ArrayData, shape: &[u64], start: &[u64], window: &[u64]) -> ArrayData {
    let rank = shape.len();
    let count: u64 = window.iter().product();
    let mut picks = Vec::with_capacity(count as usize);
    for flat in 0..count {
        let (mut rest, mut src, mut stride) = (flat, 0u64, 1u64);
        let mut index = vec![0u64; rank];
        for a in (0..rank).rev() {
            index[a] = rest % window[a];
            rest /= window[a];
        }
        for a in (0..rank).rev() {
            src += (start[a] + index[a]) * stride;
            stride *= shape[a];
        }
        picks.push(src as usize);
    }
    macro_rules! pick {
        ($($v:ident),*) => {
            match data {
                $(ArrayData::$v(x) => ArrayData::$v(picks.iter().map(|&i| x[i].clone()).collect()),)*
            }
        };
    }
    pick!(
        Bool,
        Int8,
        Int16,
        Int32,
        Int64,
        UInt8,
        UInt16,
        UInt32,
        UInt64,
        Float32,
        Float64,
        String,
        Binary,
        TimestampNs
    )
}

/// Collections atlas-python builds from NetCDF. They need python3 with
/// atlas-python; CI sets ATLAS_REQUIRE_PYTHON=1 so that a missing tool fails
/// instead of skipping.
#[test]
fn atlas_python_collections_read_back_value_for_value() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-fixtures");
    let _ = std::fs::remove_dir_all(&dir);
    match atlas_interop::python::write_python_fixtures(&dir) {
        Ok(_) => {}
        Err(e) if std::env::var_os("ATLAS_REQUIRE_PYTHON").is_none() => {
            eprintln!("skipping atlas-python fixtures: {e:#}");
            return;
        }
        Err(e) => panic!("atlas-python fixtures: {e:#}"),
    }
    let dirs = collection_dirs(&dir);
    assert!(!dirs.is_empty());
    for dir in dirs {
        check_collection(&dir);
    }
}
