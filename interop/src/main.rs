//! `atlas-interop`: writes the golden collections and dumps any collection
//! as canonical JSON.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

const USAGE: &str = "\
usage:
  atlas-interop suite OUT_DIR     write the atlas-rust fixtures, each with expected.json
  atlas-interop python OUT_DIR    have atlas-python build collections from NetCDF files
  atlas-interop dump COLL_DIR     print a collection's canonical JSON
  atlas-interop diff [--seed S] [--cases N] [--fixtures DIR] [--js-out DIR] [--js-cases K] [--strict]
                                  differential run: N random collections (default 1000) from
                                  seed S (default 1), each written by atlas-rust and by
                                  atlas-wasm and read by both; minimised disagreements go to
                                  DIR (default tests/differential/ of the checkout); --strict
                                  reports the writers' known divergences too";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [cmd, dir] if cmd == "suite" => report(Path::new(dir), atlas_interop::write_suite),
        [cmd, dir] if cmd == "python" => {
            report(Path::new(dir), atlas_interop::python::write_python_fixtures)
        }
        [cmd, dir] if cmd == "dump" => dump(Path::new(dir)),
        [cmd, rest @ ..] if cmd == "diff" => match diff(rest) {
            Ok(clean) if clean => Ok(()),
            Ok(_) => return ExitCode::FAILURE,
            Err(e) => Err(e),
        },
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

/// The `diff` subcommand; true when no case disagreed.
fn diff(args: &[String]) -> anyhow::Result<bool> {
    let mut options = atlas_interop::differential::RunOptions {
        seed: 1,
        cases: 1000,
        fixtures: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/differential")),
        js_out: None,
        js_cases: 0,
        verbose: true,
        strict: false,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--strict" {
            options.strict = true;
            continue;
        }
        let value = it.next().with_context(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--seed" => options.seed = value.parse().context("--seed")?,
            "--cases" => options.cases = value.parse().context("--cases")?,
            "--fixtures" => options.fixtures = Some(value.into()),
            "--js-out" => options.js_out = Some(value.into()),
            "--js-cases" => options.js_cases = value.parse().context("--js-cases")?,
            _ => anyhow::bail!("unknown flag {flag}\n{USAGE}"),
        }
    }
    if options.js_out.is_some() && options.js_cases == 0 {
        options.js_cases = options.cases;
    }
    let summary = atlas_interop::differential::run(&options)?;
    let secs = summary.elapsed.as_secs_f64();
    println!(
        "{} cases, {} disagreements ({} refused by both writers; {secs:.1} s, {:.0} cases/s)",
        summary.cases,
        summary.disagreements,
        summary.refused_by_both,
        summary.cases as f64 / secs.max(1e-9)
    );
    Ok(summary.disagreements == 0)
}

fn file_size(path: &Path) -> anyhow::Result<u64> {
    Ok(std::fs::metadata(path)
        .with_context(|| format!("reading {}", path.display()))?
        .len())
}
