//! Collections that atlas-python builds from NetCDF files.
//!
//! `python/make_netcdf.py` writes a small deterministic NetCDF corpus, and
//! `atlas create` turns it into a collection once per codec. The Rust reader
//! then dumps each, exactly as for the Rust-made fixtures.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::{bail, Context};

/// The collections this writes: directory name and `atlas create --codec`.
pub const PYTHON_FIXTURES: &[(&str, &str)] =
    &[("python_netcdf", "zstd"), ("python_netcdf_lz4", "lz4")];

/// The corpus script, found from this crate's manifest so any working
/// directory works.
pub fn script_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("python/make_netcdf.py")
}

/// Writes every [`PYTHON_FIXTURES`] collection into `out/<name>/`, each with
/// its `expected.json`, and returns the names.
///
/// Needs `python3` (with numpy, xarray and netCDF4) and atlas-python's
/// `atlas` command on `PATH`.
pub fn write_python_fixtures(out: &Path) -> anyhow::Result<Vec<String>> {
    require("python3", "install Python 3 with numpy, xarray and netCDF4")?;
    require("atlas", "pip install atlas-python==0.17.2")?;

    // The NetCDF files are scratch. Keeping them out of `out` leaves every
    // directory there a collection.
    let sources = std::env::temp_dir().join(format!("atlas-interop-netcdf-{}", std::process::id()));
    let result = build_all(out, &sources);
    let _ = std::fs::remove_dir_all(&sources);
    result
}

fn build_all(out: &Path, sources: &Path) -> anyhow::Result<Vec<String>> {
    crate::fresh_dir(sources)?;
    run(Command::new("python3").arg(script_path()).arg(sources))?;

    let mut names = Vec::new();
    for &(name, codec) in PYTHON_FIXTURES {
        let dest = out.join(name);
        if dest.exists() {
            std::fs::remove_dir_all(&dest)
                .with_context(|| format!("clearing {}", dest.display()))?;
        }
        run(Command::new("atlas")
            .arg("create")
            .arg(sources)
            .arg(&dest)
            .args(["--codec", codec, "--quiet"]))?;
        let expected = crate::dump(&dest).with_context(|| format!("dumping {name}"))?;
        crate::write_expected(&dest, &expected)?;
        names.push(name.to_string());
    }
    Ok(names)
}

/// Fails with `hint` when `program` does not start.
fn require(program: &str, hint: &str) -> anyhow::Result<()> {
    match Command::new(program).arg("--version").output() {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("`{program}` is not on PATH; {hint}")
        }
        Err(e) => Err(e).with_context(|| format!("starting `{program}`")),
    }
}

/// Runs `command` and fails with its stderr when it exits non-zero.
fn run(command: &mut Command) -> anyhow::Result<Output> {
    let shown = describe(command);
    let output = command
        .output()
        .with_context(|| format!("starting `{shown}`"))?;
    if !output.status.success() {
        bail!(
            "`{shown}` failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(output)
}

/// The command line, for messages.
fn describe(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(OsStr::to_string_lossy)
        .collect::<Vec<_>>()
        .join(" ")
}
