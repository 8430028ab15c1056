//! The Atria corpus, written once per test binary by tests/atria/make_corpus.sh
//! (the real webdataset and datadings writers, pinned, in a venv under
//! target/). Without python3 or PyPI the tests skip, unless
//! ATLAS_REQUIRE_PYTHON is set (CI), where a skip is a failure.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use atlas_wasm::atria::Store;
use atlas_wasm::source::{CountingSource, FileSource, RequestLog};
use atlas_wasm::ByteSource;

/// The corpus directory (holding `expected.json` and the `docs` config), or
/// `None` when it cannot be written and skipping is allowed.
pub fn corpus() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("atria-corpus-{}", env!("CARGO_CRATE_NAME")));
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/atria/make_corpus.sh");
        let run = Command::new("bash").arg(&script).arg(&dir).output();
        let failure = match run {
            Ok(out) if out.status.success() => return Some(dir),
            Ok(out) => format!(
                "{} failed: {}{}",
                script.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(e) => format!("cannot run bash: {e}"),
        };
        if std::env::var_os("ATLAS_REQUIRE_PYTHON").is_some() {
            panic!("the Atria corpus: {failure}");
        }
        eprintln!("skipping the Atria corpus tests: {failure}");
        None
    })
    .as_deref()
}

/// `expected.json`.
pub fn expected(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("expected.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The config directory the stores open paths under.
pub fn config(dir: &Path) -> PathBuf {
    dir.join("docs")
}

/// A store over a directory that counts every request of every object it opens.
#[derive(Clone)]
pub struct CountingStore {
    root: PathBuf,
    logs: Arc<Mutex<Vec<RequestLog>>>,
}

impl CountingStore {
    pub fn new(root: PathBuf) -> Self {
        Self {
            root,
            logs: Arc::default(),
        }
    }

    /// Requests so far, over every object.
    pub fn requests(&self) -> usize {
        self.logs
            .lock()
            .unwrap()
            .iter()
            .map(RequestLog::requests)
            .sum()
    }

    /// Bytes read so far, over every object.
    pub fn bytes(&self) -> u64 {
        self.logs
            .lock()
            .unwrap()
            .iter()
            .map(RequestLog::bytes)
            .sum()
    }
}

impl Store for CountingStore {
    fn open(&self, path: &str) -> atlas_wasm::Result<Arc<dyn ByteSource>> {
        let source = CountingSource::new(FileSource::open(self.root.join(path))?);
        self.logs.lock().unwrap().push(source.log());
        Ok(Arc::new(source))
    }
}

/// Runs a future to completion on this thread.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    futures_executor::block_on(f)
}
