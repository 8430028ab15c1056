//! The NetCDF corpora of interop/python/make_corpus.py (needs python3 with
//! numpy and netCDF4), generated once per test binary.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The directory of corpus `kind` (`main`, `edges`, `big`, ...).
pub fn corpus(kind: &str) -> PathBuf {
    static MADE: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("corpus-{}-{kind}", env!("CARGO_CRATE_NAME")));
    let mut made = MADE.get_or_init(Default::default).lock().unwrap();
    if !made.iter().any(|k| k == kind) {
        let _ = std::fs::remove_dir_all(&dir);
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("interop/python/make_corpus.py");
        let mut cmd = Command::new("python3");
        cmd.arg(script).arg(kind).arg(&dir);
        if kind == "big" {
            cmd.args(["--files", "1", "--mb", "24"]);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "make_corpus.py {kind}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        made.push(kind.to_string());
    }
    dir
}
