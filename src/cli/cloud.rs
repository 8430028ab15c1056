//! Buckets (feature `cloud`): `s3://`, `gs://`, `az://` collections through
//! object_store, configured the object_store way, from the environment
//! (`AWS_ENDPOINT`, `AWS_REGION`, `AWS_ALLOW_HTTP`, `GOOGLE_…`, `AZURE_…`).
//!
//! A ranged GET is one object_store call run to completion on a small
//! tokio runtime: the core's futures are polled by `block_on` on this
//! thread, which is no tokio context, so the blocking call is safe.

use std::ops::Range;
use std::sync::Arc;

use atlas_wasm::source::{ByteSource, SourceFuture, Tail};
use atlas_wasm::{Error, Result};
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt, PutPayload};

/// URL schemes object_store resolves to a bucket.
pub const SCHEMES: &[&str] = &[
    "s3://", "s3a://", "gs://", "gcs://", "az://", "azure://", "abfs://", "abfss://",
];

pub fn is_bucket(location: &str) -> bool {
    SCHEMES.iter().any(|s| location.starts_with(s))
}

/// A collection prefix in a bucket.
pub struct Bucket {
    store: Arc<dyn ObjectStore>,
    prefix: Path,
    url: String,
    runtime: Arc<tokio::runtime::Runtime>,
}

impl Bucket {
    pub fn open(location: &str) -> Result<Bucket> {
        let url = url_of(location)?;
        let options = std::env::vars().map(|(k, v)| (k.to_ascii_lowercase(), v));
        let (store, prefix) =
            object_store::parse_url_opts(&url, options).map_err(|e| store_error(e, location))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| Error::Io(e.to_string()))?;
        Ok(Bucket {
            store: Arc::from(store),
            prefix,
            url: location.trim_end_matches('/').to_string(),
            runtime: Arc::new(runtime),
        })
    }

    fn path(&self, name: &str) -> Path {
        self.prefix.clone().join(name)
    }

    /// The object `name` under the prefix, as a byte source.
    pub fn source(&self, name: &str) -> Arc<dyn ByteSource> {
        Arc::new(ObjectSource {
            store: self.store.clone(),
            path: self.path(name),
            url: format!("{}/{name}", self.url),
            runtime: self.runtime.clone(),
        })
    }

    /// Writes a small object in one request (atomic in every store).
    pub fn put(&self, name: &str, bytes: Vec<u8>) -> Result<()> {
        let path = self.path(name);
        self.runtime
            .block_on(
                self.store
                    .put_opts(&path, PutPayload::from(bytes), Default::default()),
            )
            .map(|_| ())
            .map_err(|e| store_error(e, &self.url))
    }

    /// Uploads a local file as `name`; the object appears whole when the
    /// upload completes, or not at all.
    pub fn upload(&self, name: &str, file: &std::path::Path) -> Result<()> {
        use tokio::io::AsyncWriteExt;
        let path = self.path(name);
        let mut local = std::fs::File::open(file)?;
        self.runtime.block_on(async {
            let mut out = object_store::buffered::BufWriter::new(self.store.clone(), path);
            let mut buf = vec![0u8; 8 << 20];
            loop {
                let n = std::io::Read::read(&mut local, &mut buf)?;
                if n == 0 {
                    break;
                }
                out.put(bytes::Bytes::copy_from_slice(&buf[..n]))
                    .await
                    .map_err(|e| store_error(e, &self.url))?;
            }
            out.shutdown().await?;
            Ok(())
        })
    }

    /// Removes `name` if present.
    pub fn remove(&self, name: &str) -> Result<()> {
        let path = self.path(name);
        match self.runtime.block_on(self.store.delete(&path)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(store_error(e, &self.url)),
        }
    }
}

fn url_of(location: &str) -> Result<url::Url> {
    url::Url::parse(location).map_err(|e| Error::InvalidArgument(format!("{location}: {e}")))
}

fn store_error(e: object_store::Error, what: &str) -> Error {
    match e {
        object_store::Error::NotFound { .. } => Error::NotFound(format!("{what}: {e}")),
        e => Error::Io(format!("{what}: {e}")),
    }
}

struct ObjectSource {
    store: Arc<dyn ObjectStore>,
    path: Path,
    url: String,
    runtime: Arc<tokio::runtime::Runtime>,
}

impl ObjectSource {
    fn get(&self, range: GetRange) -> Result<(Vec<u8>, u64)> {
        let options = GetOptions {
            range: Some(range),
            ..Default::default()
        };
        self.runtime.block_on(async {
            let result = self
                .store
                .get_opts(&self.path, options)
                .await
                .map_err(|e| store_error(e, &self.url))?;
            let size = result.meta.size;
            let bytes = result
                .bytes()
                .await
                .map_err(|e| store_error(e, &self.url))?;
            Ok((bytes.to_vec(), size))
        })
    }
}

impl ByteSource for ObjectSource {
    fn read_range(&self, range: Range<u64>) -> SourceFuture<'_, Vec<u8>> {
        let want = range.end - range.start;
        let result = if want == 0 {
            Ok(Vec::new())
        } else {
            self.get(GetRange::Bounded(range.clone()))
                .and_then(|(bytes, _)| {
                    if bytes.len() as u64 == want {
                        Ok(bytes)
                    } else {
                        Err(Error::Io(format!(
                            "{} returned {} bytes for {range:?}",
                            self.url,
                            bytes.len()
                        )))
                    }
                })
        };
        Box::pin(async move { result })
    }

    fn read_tail(&self, len: u64) -> SourceFuture<'_, Tail> {
        let result = self
            .get(GetRange::Suffix(len))
            .map(|(bytes, object_size)| Tail { bytes, object_size });
        Box::pin(async move { result })
    }

    fn describe(&self) -> String {
        self.url.clone()
    }
}
