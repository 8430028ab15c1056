//! Shared by the reader's integration tests: the canonical JSON of a
//! collection as *our* reader sees it (the same contract `atlas_interop::dump`
//! fills from atlas-rust), and helpers to build fixtures once per run.

#![allow(dead_code)]

pub mod diff;
pub mod dump;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

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
