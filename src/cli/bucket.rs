//! Buckets (feature `cloud`): `s3://`, `gs://`, `az://` collections through
//! object_store, configured the object_store way, from the environment
//! (`AWS_ENDPOINT`, `AWS_REGION`, `AWS_ALLOW_HTTP`, `GOOGLE_…`, `AZURE_…`).
//!
//! Reads go through [`ObjectStoreSource`] on one tokio runtime for the
//! process; `rm` and `rewrite` write here, with one request per object so
//! that each appears whole.

use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, OnceLock};

use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

use crate::format::mask::encode_bound_mask;
use crate::source::ObjectStoreSource;
use crate::write::durable::crash_point;
use crate::write::mask::binding_of;
use crate::write::{Deletion, DATA_FILE, MASK_FILE};
use crate::{Atlas, ByteSource, Error, Result};

use super::interrupt;

/// URL schemes object_store resolves to a bucket.
const SCHEMES: &[&str] = &[
    "s3://", "s3a://", "gs://", "gcs://", "az://", "azure://", "abfs://", "abfss://",
];

pub(crate) fn is_bucket(location: &str) -> bool {
    SCHEMES.iter().any(|s| location.starts_with(s))
}

/// The process's runtime for bucket requests, built on first use.
fn runtime() -> Result<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    if let Some(runtime) = RUNTIME.get() {
        return Ok(runtime);
    }
    let built = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::Io(format!("cannot start the bucket runtime: {e}")))?;
    Ok(RUNTIME.get_or_init(|| built))
}

/// A collection prefix in a bucket.
pub(crate) struct Bucket {
    store: Arc<dyn ObjectStore>,
    prefix: Path,
    url: String,
    runtime: &'static tokio::runtime::Runtime,
}

impl Bucket {
    pub(crate) fn open(location: &str) -> Result<Bucket> {
        let url = url::Url::parse(location)
            .map_err(|e| Error::InvalidArgument(format!("{location}: {e}")))?;
        let options = std::env::vars().map(|(k, v)| (k.to_ascii_lowercase(), v));
        let (store, prefix) =
            object_store::parse_url_opts(&url, options).map_err(|e| store_error(e, location))?;
        Ok(Bucket {
            store: Arc::from(store),
            prefix,
            url: location.trim_end_matches('/').to_string(),
            runtime: runtime()?,
        })
    }

    pub(crate) fn path(&self, name: &str) -> Path {
        self.prefix.clone().join(name)
    }

    /// The object `name` under the prefix, as a byte source.
    pub(crate) fn source(&self, name: &str) -> Arc<dyn ByteSource> {
        Arc::new(self.object(name))
    }

    pub(crate) fn object(&self, name: &str) -> ObjectStoreSource {
        ObjectStoreSource::new(self.store.clone(), self.path(name))
            .with_runtime(self.runtime.handle().clone())
            .with_name(format!("{}/{name}", self.url))
    }

    /// The prefix as given, without a trailing slash.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    pub(crate) fn runtime(&self) -> &'static tokio::runtime::Runtime {
        self.runtime
    }

    /// The collection at the prefix, its mask applied as a reader applies it.
    /// On the bucket runtime: `rewrite` uploads from inside an executor.
    fn open_collection(&self) -> Result<Atlas> {
        self.runtime.block_on(Atlas::open(
            self.source(DATA_FILE),
            Some(self.source(MASK_FILE)),
        ))
    }

    /// Whether `data.atlas` opens on its own (without the mask).
    fn container_opens(&self) -> bool {
        self.runtime
            .block_on(Atlas::open(self.source(DATA_FILE), None))
            .is_ok()
    }

    /// Writes a small object in one request (atomic in every store).
    fn put(&self, name: &str, bytes: Vec<u8>) -> Result<()> {
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
    fn upload(&self, name: &str, file: &std::path::Path) -> Result<()> {
        use tokio::io::AsyncWriteExt;
        let path = self.path(name);
        let mut local = std::fs::File::open(file)?;
        let _uploading = interrupt::Uploading::start();
        // Parts of one size (R2 takes no other); a container under it goes
        // in one PUT.
        const PART: usize = 8 << 20;
        self.runtime.block_on(async {
            let mut out =
                object_store::buffered::BufWriter::with_capacity(self.store.clone(), path, PART);
            let mut buf = vec![0u8; PART];
            let sent = async {
                loop {
                    interrupt::check()?;
                    let n = std::io::Read::read(&mut local, &mut buf)?;
                    if n == 0 {
                        break;
                    }
                    out.put(bytes::Bytes::copy_from_slice(&buf[..n]))
                        .await
                        .map_err(|e| store_error(e, &self.url))?;
                    interrupt::pause_point("bucket-upload-sent");
                }
                out.shutdown().await?;
                Ok(())
            }
            .await;
            if sent.is_err() {
                // The parts sent so far would stay in the store, unseen
                // but billed, until a lifecycle rule ends the upload.
                let _ = out.abort().await;
            }
            sent
        })
    }

    /// Removes `name` if present.
    fn remove(&self, name: &str) -> Result<()> {
        let path = self.path(name);
        match self.runtime.block_on(self.store.delete(&path)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(store_error(e, &self.url)),
        }
    }
}

fn store_error(e: object_store::Error, what: &str) -> Error {
    match e {
        object_store::Error::NotFound { .. } => Error::NotFound(format!("{what}: {e}")),
        e => Error::Io(format!("{what}: {e}")),
    }
}

/// `rm` on a bucket: the same rule as [`crate::write::delete_datasets`],
/// and one PUT of the whole mask (atomic in every object store), bound to
/// the container it was computed against, so that it hides nothing in a
/// container uploaded meanwhile.
pub(crate) fn delete_datasets(
    location: &str,
    wanted: &[String],
    missing_ok: bool,
) -> Result<Deletion> {
    let bucket = Bucket::open(location)?;
    let atlas = bucket.open_collection()?;
    let live: HashSet<String> = atlas.list_datasets().into_iter().collect();
    let all = &atlas.footer().datasets;
    let mut ordinals: BTreeSet<u32> = (0..all.len() as u32)
        .filter(|&i| !live.contains(all.name(i).unwrap_or("")))
        .collect();
    let (mut removed, mut missing) = (Vec::new(), Vec::new());
    let mut seen = HashSet::new();
    for name in wanted.iter().filter(|n| seen.insert(n.as_str())) {
        match all.ordinal_of(name) {
            Some(i) if live.contains(name) => {
                ordinals.insert(i);
                removed.push(name.clone());
            }
            _ => missing.push(name.clone()),
        }
    }
    if !missing.is_empty() && !missing_ok {
        return Err(Error::DatasetNotFound(missing.join(", ")));
    }
    if !removed.is_empty() {
        bucket.put(MASK_FILE, encode_bound_mask(&ordinals, &binding_of(&atlas)))?;
    }
    Ok(Deletion {
        removed,
        missing,
        remaining: all.len() - ordinals.len(),
    })
}

/// Puts a finished local collection at a bucket prefix with the promise
/// a local `finish` keeps (docs/write-path.md, "Crash safety"): a reader
/// sees the old collection or the new one, never the old container with its
/// deletions undone. Steps (each a kill point for tests/cli_cloud.rs):
///
/// 1. `bucket-mask-bound`: the old mask put again, bound to the old
///    container, hiding what it hides now;
/// 2. `bucket-container-uploaded`: the new container, in one upload that
///    appears whole; the bound mask hides nothing in it;
/// 3. `bucket-mask-removed`: the mask deleted.
///
/// When the old container does not open, no reader sees a collection with or
/// without its mask: the mask goes first. When only the mask fails, readers
/// fail on it until it goes, after the upload.
pub(crate) fn upload_collection(location: &str, dir: &std::path::Path) -> Result<()> {
    let bucket = Bucket::open(location)?;
    replace_container(&bucket, || bucket.upload(DATA_FILE, &dir.join(DATA_FILE)))
}

/// The steps of [`upload_collection`] around `upload`, which puts the new
/// container in one request that appears whole or not at all.
pub(crate) fn replace_container(
    bucket: &Bucket,
    upload: impl FnOnce() -> Result<()>,
) -> Result<()> {
    match bucket.open_collection() {
        Ok(old) if old.deleted_count() > 0 => {
            bucket.put(
                MASK_FILE,
                encode_bound_mask(old.deleted_ordinals(), &binding_of(&old)),
            )?;
            crash_point("bucket-mask-bound");
        }
        Ok(_) => {}
        Err(_) if bucket.container_opens() => {}
        Err(_) => bucket.remove(MASK_FILE)?,
    }
    upload()?;
    crash_point("bucket-container-uploaded");
    bucket.remove(MASK_FILE)?;
    crash_point("bucket-mask-removed");
    Ok(())
}
