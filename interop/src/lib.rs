//! Golden ATLAS collections for atlas-wasm's interop tests.
//!
//! Every fixture here is written by the published `atlas-rust` 0.17.2 writer,
//! and every `expected.json` is read back by the published reader. atlas-wasm
//! reads the same directories and must produce the same JSON.
//!
//! - [`write_suite`] writes the Rust-made fixtures ([`write_fixture`] one
//!   of them).
//! - [`python::write_python_fixtures`] has `atlas-python` build collections
//!   from NetCDF files.
//! - [`dump`] turns any collection into the canonical JSON.
//! - [`differential`] writes random collections with atlas-rust and with
//!   atlas-wasm's writer and holds both readers to each other.
//!
//! This crate is a native dev tool. The shipped crate never depends on it.

pub mod differential;
mod dump;
pub mod encode;
mod fixtures;
pub mod python;

use std::path::Path;

use anyhow::Context;

pub use dump::{dump, dump_async};
pub use fixtures::{Fixture, FIXTURES};

/// A document above this size is written compact, so a 600,000-value grid
/// does not grow by a line of indentation per value.
const PRETTY_LIMIT: usize = 1 << 20;

/// Writes every fixture into `out/<name>/`, each with its `expected.json`,
/// and returns the names in suite order.
pub fn write_suite(out: &Path) -> anyhow::Result<Vec<String>> {
    let rt = runtime()?;
    let mut names = Vec::with_capacity(FIXTURES.len());
    for fixture in FIXTURES {
        rt.block_on(write_fixture_async(out, fixture.name))?;
        names.push(fixture.name.to_string());
    }
    Ok(names)
}

/// Writes the one fixture called `name` into `out/<name>/`, with its
/// `expected.json`. The names are those of [`FIXTURES`].
///
/// A fixture directory that already exists is removed first, so a stale
/// `deleted.mask` cannot outlive its container.
pub fn write_fixture(out: &Path, name: &str) -> anyhow::Result<()> {
    runtime()?.block_on(write_fixture_async(out, name))
}

async fn write_fixture_async(out: &Path, name: &str) -> anyhow::Result<()> {
    let dir = out.join(name);
    fresh_dir(&dir)?;
    fixtures::build(name, &dir)
        .await
        .with_context(|| format!("writing fixture {name}"))?;
    let expected = dump_async(&dir)
        .await
        .with_context(|| format!("dumping fixture {name}"))?;
    write_expected(&dir, &expected)
}

/// Writes `dir/expected.json`: pretty when small, compact when large.
pub fn write_expected(dir: &Path, expected: &serde_json::Value) -> anyhow::Result<()> {
    let compact = serde_json::to_string(expected)?;
    let text = if compact.len() > PRETTY_LIMIT {
        compact
    } else {
        serde_json::to_string_pretty(expected)?
    };
    let path = dir.join("expected.json");
    std::fs::write(&path, text + "\n").with_context(|| format!("writing {}", path.display()))
}

/// Removes `dir` if present and creates it empty.
fn fresh_dir(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("clearing {}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))
}

/// The current-thread runtime every synchronous entry point blocks on.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}
