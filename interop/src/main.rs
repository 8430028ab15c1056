//! `atlas-interop`: writes the golden collections and dumps any collection
//! as canonical JSON.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

const USAGE: &str = "\
usage:
  atlas-interop suite OUT_DIR     write the atlas-rust fixtures, each with expected.json
  atlas-interop python OUT_DIR    have atlas-python build collections from NetCDF files
  atlas-interop dump COLL_DIR     print a collection's canonical JSON";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [cmd, dir] if cmd == "suite" => report(Path::new(dir), atlas_interop::write_suite),
        [cmd, dir] if cmd == "python" => {
            report(Path::new(dir), atlas_interop::python::write_python_fixtures)
        }
        [cmd, dir] if cmd == "dump" => dump(Path::new(dir)),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("atlas-interop: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `write` into `out` and prints each fixture with its size on disk.
fn report(out: &Path, write: fn(&Path) -> anyhow::Result<Vec<String>>) -> anyhow::Result<()> {
    for name in write(out)? {
        let dir = out.join(&name);
        let data = file_size(&dir.join("data.atlas"))?;
        let expected = file_size(&dir.join("expected.json"))?;
        let mask = if dir.join("deleted.mask").exists() {
            "  + deleted.mask"
        } else {
            ""
        };
        println!("{name:<28} data.atlas {data:>10} B  expected.json {expected:>10} B{mask}");
    }
    Ok(())
}

fn dump(dir: &Path) -> anyhow::Result<()> {
    let json = atlas_interop::dump(dir)?;
    println!("{}", serde_json::to_string_pretty(&json)?);
    Ok(())
}

fn file_size(path: &Path) -> anyhow::Result<u64> {
    Ok(std::fs::metadata(path)
        .with_context(|| format!("reading {}", path.display()))?
        .len())
}
