//! The Atria corpus, written once per test binary by tests/atria/make_corpus.sh
//! (the real webdataset and datadings writers, pinned, in a venv under
//! target/). Without python3 or PyPI the tests skip, unless
//! ATLAS_REQUIRE_PYTHON is set (CI), where a skip is a failure.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use atlas_wasm::atria::{Store, Value};
use atlas_wasm::source::{CountingSource, FileSource, RequestLog};
use atlas_wasm::{ArrayData, ByteSource};
use serde_json::{json, Value as Json};

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

/// The config directory the stores open paths under: the MSGPACK layout,
/// beside bare TAR shards and their JSON pointer table.
pub fn config(dir: &Path) -> PathBuf {
    dir.join("docs")
}

/// The DELTALAKE layout's config directory.
pub fn delta_config(dir: &Path) -> PathBuf {
    dir.join("docs_delta")
}

/// A record as the JSON make_corpus.py writes for it: bytes as
/// `{"$bin": hex}`, numpy values as `{"$nd": {dtype, shape, data}}`.
pub fn canonical(value: &Value) -> Json {
    match value {
        Value::Nil => Json::Null,
        Value::Bool(b) => json!(b),
        Value::Int(i) => json!(i),
        Value::UInt(u) => json!(u),
        Value::Float(f) => json!(f),
        Value::Str(s) => json!(s),
        Value::Bin(b) => json!({ "$bin": hex(b) }),
        Value::List(items) => Json::Array(items.iter().map(canonical).collect()),
        Value::Map(entries) => Json::Object(
            entries
                .iter()
                .map(|(k, v)| match k {
                    Value::Str(k) => (k.clone(), canonical(v)),
                    other => panic!("a map key that is not a string: {other:?}"),
                })
                .collect(),
        ),
        Value::Ext(tag, _) => panic!("an ext value ({tag}) in the corpus"),
        Value::Array(a) => {
            let data = match &a.data {
                ArrayData::Bool(v) => json!(v),
                ArrayData::Int8(v) => json!(v),
                ArrayData::Int16(v) => json!(v),
                ArrayData::Int32(v) => json!(v),
                ArrayData::Int64(v) => json!(v),
                ArrayData::UInt8(v) => json!(v),
                ArrayData::UInt16(v) => json!(v),
                ArrayData::UInt32(v) => json!(v),
                ArrayData::UInt64(v) => json!(v),
                ArrayData::Float32(v) => json!(v.iter().map(|&x| x as f64).collect::<Vec<_>>()),
                ArrayData::Float64(v) => json!(v),
                ArrayData::String(v) => json!(v),
                other => panic!("an array kind the corpus does not write: {other:?}"),
            };
            json!({ "$nd": { "dtype": a.dtype.name(), "shape": a.shape, "data": data } })
        }
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A store over a directory that counts every request of every object it opens.
#[derive(Clone)]
pub struct CountingStore {
    root: PathBuf,
    logs: Arc<Mutex<Vec<(String, RequestLog)>>>,
    lists: bool,
}

impl CountingStore {
    /// A store that cannot list (as HTTP).
    pub fn new(root: PathBuf) -> Self {
        Self {
            root,
            logs: Arc::default(),
            lists: false,
        }
    }

    /// A store that lists directories (as R2 or object_store).
    pub fn listing(root: PathBuf) -> Self {
        Self {
            lists: true,
            ..Self::new(root)
        }
    }

    /// The paths that were read (at least one request), in order of opening.
    pub fn paths_read(&self) -> Vec<String> {
        self.logs
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, log)| log.requests() > 0)
            .map(|(path, _)| path.clone())
            .collect()
    }

    /// Requests so far, over every object.
    pub fn requests(&self) -> usize {
        self.logs
            .lock()
            .unwrap()
            .iter()
            .map(|(_, log)| log.requests())
            .sum()
    }

    /// Bytes read so far, over every object.
    pub fn bytes(&self) -> u64 {
        self.logs
            .lock()
            .unwrap()
            .iter()
            .map(|(_, log)| log.bytes())
            .sum()
    }
}

impl Store for CountingStore {
    fn open(&self, path: &str) -> atlas_wasm::Result<Arc<dyn ByteSource>> {
        let source = CountingSource::new(FileSource::open(self.root.join(path))?);
        self.logs
            .lock()
            .unwrap()
            .push((path.to_string(), source.log()));
        Ok(Arc::new(source))
    }

    fn list<'a>(
        &'a self,
        dir: &'a str,
    ) -> atlas_wasm::source::SourceFuture<'a, Option<Vec<String>>> {
        Box::pin(async move {
            if !self.lists {
                return Ok(None);
            }
            let Ok(entries) = std::fs::read_dir(self.root.join(dir)) else {
                return Ok(Some(vec![]));
            };
            let mut names: Vec<String> = entries
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            names.sort();
            Ok(Some(names))
        })
    }
}

/// Runs a future to completion on this thread.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    futures_executor::block_on(f)
}
