//! The fuzz targets' inputs replayed in plain `cargo test`: every crash the
//! fuzzer found (`fuzz/regressions/<target>/*.bin`) must now end in a typed
//! error, and the committed corpus (`fuzz/corpus/<target>/`) must run through
//! without a panic. The functions replayed are the fuzz targets' own
//! (`fuzz/src/targets.rs`), not copies.

#[path = "../fuzz/src/targets.rs"]
mod targets;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The files directly under `dir`, sorted; none when it does not exist.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|entries| entries.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file());
    files.sort();
    files
}

fn replay(target: &str, run: targets::Target, input: &Path) -> Result<(), targets::TargetError> {
    let bytes = std::fs::read(input).unwrap();
    catch_unwind(AssertUnwindSafe(|| run(&bytes)))
        .unwrap_or_else(|_| panic!("{target} panicked on {}", input.display()))
}

#[test]
fn every_crash_found_by_fuzzing_is_now_a_typed_error() {
    for (target, run) in targets::TARGETS {
        for input in files_in(&fuzz_dir().join("regressions").join(target)) {
            let err = replay(target, *run, &input)
                .expect_err(&format!("{target} accepted {}", input.display()));
            assert_ne!(err.code(), "Internal", "{}: {err}", input.display());
        }
    }
}

#[test]
fn the_committed_corpus_replays_without_a_panic() {
    for (target, run) in targets::TARGETS {
        let inputs = files_in(&fuzz_dir().join("corpus").join(target));
        assert!(
            inputs.len() >= 5,
            "fuzz/corpus/{target} holds {} inputs",
            inputs.len()
        );
        for input in &inputs {
            if let Err(err) = replay(target, *run, input) {
                assert_ne!(err.code(), "Internal", "{}: {err}", input.display());
            }
        }
    }
}

/// The Atria targets' seeds are the corpus's own files (`fuzz/write_seeds.py
/// --atria`): each must read through without an error, so that the fuzzer
/// starts from inputs that reach past the first checks.
#[cfg(feature = "atria")]
#[test]
fn the_atria_seeds_read_through() {
    let whole: [(&str, targets::Target, &str); 4] = [
        ("msgpack_shard", targets::msgpack_shard, "seed_"),
        ("tar_shard", targets::tar_shard, "seed_"),
        // A later commit alone is a table without its schema: only the first reads.
        ("delta_log", targets::delta_log, "00000000000000000000.json"),
        // The one DV file written for the target's table (table-with-dv-small).
        (
            "deletion_vector",
            targets::deletion_vector,
            "seed_file_61d16c75",
        ),
    ];
    for (target, run, pattern) in whole {
        let seeds: Vec<_> = files_in(&fuzz_dir().join("corpus").join(target))
            .into_iter()
            .filter(|p| p.file_name().unwrap().to_string_lossy().contains(pattern))
            .collect();
        assert!(!seeds.is_empty(), "no {target} seeds named like {pattern}");
        for seed in seeds {
            replay(target, run, &seed).unwrap_or_else(|e| panic!("{}: {e}", seed.display()));
        }
    }
}
