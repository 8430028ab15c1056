//! atlas-python's `atlas ls/show/info` and ours print the same characters,
//! text and `--json`, on collections our writer wrote: atlas-rust fixtures
//! and atlas-python's own NetCDF collections, each rewritten by `atlas
//! rewrite`. Skipped (with a message) when atlas-python is not installed.

#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::Command;

fn ours() -> Command {
    Command::new(env!("CARGO_BIN_EXE_atlas"))
}

fn python_atlas() -> Option<Command> {
    let probe = Command::new("atlas").arg("--version").output().ok()?;
    String::from_utf8_lossy(&probe.stdout)
        .contains("0.17")
        .then(|| Command::new("atlas"))
}

fn run(mut cmd: Command, args: &[&str], dir: &Path) -> (bool, String) {
    let out = cmd.args(args).current_dir(dir).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("atlas-wasm-cli-py-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Compares every command on collection `name` inside `dir`; returns how many agreed.
fn compare(dir: &Path, name: &str) -> usize {
    let mut agreed = 0;
    let mut check = |args: &[&str]| {
        let (ok, theirs) = run(python_atlas().unwrap(), args, dir);
        if !ok {
            // atlas-python fails `show` on a collection without dataset
            // attributes ("array not found: _datasets"); ours does not.
            assert!(
                theirs.contains("_datasets"),
                "atlas-python failed on {args:?}: {theirs}"
            );
            return;
        }
        let (ok, mine) = run(ours(), args, dir);
        assert!(ok, "ours failed on {args:?}: {mine}");
        assert_eq!(mine, theirs, "{args:?} differs");
        agreed += 1;
    };
    for json in [false, true] {
        let flag: &[&str] = if json { &["--json"] } else { &[] };
        check(&[&["ls", name], flag].concat());
        check(&[&["info", name], flag].concat());
    }
    let (_, listing) = run(ours(), &["ls", name], dir);
    for dataset in listing.lines().take(4) {
        check(&["show", name, dataset]);
        check(&["show", "--json", name, dataset]);
    }
    agreed
}

#[test]
fn atlas_python_and_ours_print_the_same_for_collections_we_wrote() {
    if python_atlas().is_none() {
        // CI installs it and sets ATLAS_REQUIRE_PYTHON: there a skip is a failure.
        assert!(
            std::env::var_os("ATLAS_REQUIRE_PYTHON").is_none(),
            "atlas-python 0.17.2 is required"
        );
        eprintln!("atlas-python 0.17 is not installed; skipped (pip install atlas-python==0.17.2)");
        return;
    }
    let sources = scratch("sources");
    let out = scratch("ours");
    let mut names = Vec::new();
    let suite = sources.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    for fixture in atlas_interop::write_suite(&suite).unwrap() {
        names.push((suite.join(&fixture), fixture));
    }
    for fixture in atlas_interop::python::write_python_fixtures(&sources).unwrap() {
        names.push((sources.join(&fixture), fixture));
    }
    let mut agreed = 0;
    for (src, name) in &names {
        let (ok, text) = run(
            ours(),
            &[
                "rewrite",
                src.to_str().unwrap(),
                out.join(name).to_str().unwrap(),
            ],
            &out,
        );
        assert!(ok, "rewrite {name}: {text}");
        agreed += compare(&out, name);
    }
    assert!(agreed > 50, "only {agreed} comparisons ran");
    std::fs::remove_dir_all(&sources).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}

/// Floats whose exact value lies halfway between two shortest decimals
/// (Python's repr takes the even one), seeded random bit patterns, and the
/// extremes: as attributes, a `json:` list and array values (so statistics).
fn awkward_floats() -> Vec<f64> {
    let mut out = Vec::new();
    for exponent in 44..=52 {
        let base = 2f64.powi(exponent);
        let ulp = 2f64.powi(exponent - 52);
        for m in (1..40).step_by(2) {
            out.push(base + m as f64 * ulp);
            out.push(-(base + m as f64 * ulp));
        }
    }
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    while out.len() < 600 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let v = f64::from_bits(state);
        if v.is_finite() {
            out.push(v);
        }
    }
    out.extend([f64::MAX, f64::MIN_POSITIVE, 5e-324, 1e16, 1e-5, 0.1, 1e23]);
    out
}

#[test]
fn floats_print_as_python_repr_prints_them_ties_included() {
    use atlas_wasm::write::{AtlasWriter, WriterConfig};
    use atlas_wasm::Attr;
    if python_atlas().is_none() {
        assert!(
            std::env::var_os("ATLAS_REQUIRE_PYTHON").is_none(),
            "atlas-python 0.17.2 is required"
        );
        return;
    }
    let dir = scratch("floats");
    let floats = awkward_floats();
    let writer = AtlasWriter::create(dir.join("floats"), WriterConfig::default()).unwrap();
    for (i, chunk) in floats.chunks(100).enumerate() {
        let mut ds = writer.add_dataset(&format!("d{i}")).unwrap();
        ds.define_array::<f64>("v", vec!["x".into()], &[chunk.len() as u64], None, None)
            .unwrap();
        ds.write_array("v", &[0], &[chunk.len() as u64], chunk)
            .unwrap();
        for (k, v) in chunk.iter().take(40).enumerate() {
            ds.set_array_attribute("v", &format!("a{k:02}"), Attr::Float64(*v))
                .unwrap();
            ds.set_array_attribute("v", &format!("f{k:02}"), Attr::Float32(*v as f32))
                .unwrap();
        }
        let listed: Vec<String> = chunk.iter().map(|v| format!("{v:e}")).collect();
        ds.set_attribute(
            "listed",
            Attr::String(format!("json:[{}, NaN]", listed.join(", "))),
        );
        ds.set_attribute(
            "list",
            Attr::Float64List(chunk[..chunk.len().min(10)].to_vec()),
        );
        ds.finish().unwrap();
    }
    writer.finish().unwrap();
    let mut agreed = 0;
    for args in [&["info", "floats"][..], &["info", "--json", "floats"]] {
        let (ok, theirs) = run(python_atlas().unwrap(), args, &dir);
        assert!(ok, "{theirs}");
        let (ok, mine) = run(ours(), args, &dir);
        assert!(ok, "{mine}");
        assert_eq!(mine, theirs, "{args:?}");
        agreed += 1;
    }
    for i in 0..floats.len().div_ceil(100) {
        let name = format!("d{i}");
        for json in [false, true] {
            let mut args = vec!["show"];
            if json {
                args.push("--json");
            }
            args.extend(["floats", name.as_str()]);
            let (ok, theirs) = run(python_atlas().unwrap(), &args, &dir);
            assert!(ok, "{theirs}");
            let (ok, mine) = run(ours(), &args, &dir);
            assert!(ok, "{mine}");
            for (m, t) in mine.lines().zip(theirs.lines()) {
                assert_eq!(m, t, "{args:?}");
            }
            assert_eq!(mine, theirs, "{args:?}");
            agreed += 1;
        }
    }
    assert_eq!(agreed, 2 + 2 * floats.len().div_ceil(100));
    std::fs::remove_dir_all(&dir).unwrap();
}
