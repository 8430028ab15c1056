//! An object in any [`object_store`] store: S3, GCS, Azure, a local
//! directory, memory (native targets, feature `cloud`).
//!
//! The same rules as the HTTP source, in object_store's terms: the first
//! answer pins the object's ETag and size, later reads send `if_match`, and
//! an object replaced or removed since is [`Error::ObjectChanged`]. A store
//! that answers another number of bytes than asked is [`Error::Io`]. Where a
//! store has no suffix range (Azure), the tail is its size, then a range.
//!
//! Stores that speak HTTP need a tokio runtime. Give one with
//! [`ObjectStoreSource::with_runtime`] and every request runs there, so the
//! reader's futures can be polled by any executor; without one, requests
//! run in whatever context polls them.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use ::object_store::path::Path;
use ::object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt};

use super::{ByteSource, SourceFuture, Tail};
use crate::error::{Error, Result};

/// One object in an object store.
#[derive(Clone)]
pub struct ObjectStoreSource {
    store: Arc<dyn ObjectStore>,
    path: Path,
    name: String,
    runtime: Option<tokio::runtime::Handle>,
    pinned: Arc<Mutex<Pinned>>,
}

/// What the first answer said about the object.
#[derive(Default)]
struct Pinned {
    size: Option<u64>,
    etag: Option<String>,
}

impl ObjectStoreSource {
    /// The object at `path` in `store`.
    pub fn new(store: Arc<dyn ObjectStore>, path: Path) -> Self {
        let name = format!("{store}/{path}");
        Self {
            store,
            path,
            name,
            runtime: None,
            pinned: Arc::default(),
        }
    }

    /// Runs every request on `runtime` (needed by the HTTP stores when the
    /// reader is polled outside tokio).
    pub fn with_runtime(mut self, runtime: tokio::runtime::Handle) -> Self {
        self.runtime = Some(runtime);
        self
    }

    /// The ETag the object had at its first answer, which every later read
    /// insists on (shared with this source's clones); `None` before the
    /// first read, or where the store gives none.
    pub fn etag(&self) -> Option<String> {
        lock(&self.pinned).etag.clone()
    }

    /// Names the object in error messages (default: the store and path).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// One GET: the bytes, and the range and size of the object they came from.
    async fn get(&self, range: GetRange) -> Result<(Vec<u8>, Range<u64>, u64)> {
        let if_match = lock(&self.pinned).etag.clone();
        let options = GetOptions {
            range: Some(range),
            if_match,
            ..Default::default()
        };
        let (store, path, name) = (self.store.clone(), self.path.clone(), self.name.clone());
        let pinned = self.pinned.clone();
        let request = async move {
            let answer = store
                .get_opts(&path, options)
                .await
                .map_err(|e| store_error(e, &name, &pinned))?;
            let (got, size, etag) = (
                answer.range.clone(),
                answer.meta.size,
                answer.meta.e_tag.clone(),
            );
            let bytes = answer
                .bytes()
                .await
                .map_err(|e| store_error(e, &name, &pinned))?;
            let mut pinned = lock(&pinned);
            if let Some(old) = pinned.size.filter(|&old| old != size) {
                return Err(Error::ObjectChanged(format!(
                    "{name} is {size} bytes now, {old} when opened"
                )));
            }
            if let (Some(old), Some(new)) = (&pinned.etag, &etag) {
                if old != new {
                    return Err(Error::ObjectChanged(format!(
                        "{name}: ETag {new} is not the {old} it had when opened"
                    )));
                }
            }
            pinned.size = Some(size);
            if pinned.etag.is_none() {
                pinned.etag = etag;
            }
            Ok((bytes.to_vec(), got, size))
        };
        self.run(request).await
    }

    /// Awaits `request` on the runtime given, or here without one.
    async fn run<T: Send + 'static>(
        &self,
        request: impl std::future::Future<Output = Result<T>> + Send + 'static,
    ) -> Result<T> {
        match &self.runtime {
            Some(runtime) => runtime
                .spawn(request)
                .await
                .map_err(|e| Error::Io(format!("{}: the request task failed: {e}", self.name)))?,
            None => request.await,
        }
    }

    /// The object's size, asked for on its own.
    async fn size(&self) -> Result<u64> {
        let (store, path, name) = (self.store.clone(), self.path.clone(), self.name.clone());
        let pinned = self.pinned.clone();
        self.run(async move {
            let meta = store.head(&path).await;
            meta.map(|m| m.size)
                .map_err(|e| store_error(e, &name, &pinned))
        })
        .await
    }

    async fn read(&self, range: Range<u64>) -> Result<Vec<u8>> {
        let size = lock(&self.pinned).size;
        if range.start > range.end || size.is_some_and(|s| range.end > s) {
            return Err(self.outside(&range, size));
        }
        if range.start == range.end {
            return Ok(Vec::new());
        }
        let (bytes, _, size) = match self.get(GetRange::Bounded(range.clone())).await {
            Ok(answer) => answer,
            // A range that starts past the end fails inside the store with no
            // code of its own; the object's size tells it apart.
            Err(Error::Io(message)) => match self.size().await {
                Ok(size) if range.end > size => return Err(self.outside(&range, Some(size))),
                _ => return Err(Error::Io(message)),
            },
            Err(e) => return Err(e),
        };
        if range.end > size {
            return Err(self.outside(&range, Some(size)));
        }
        let want = range.end - range.start;
        if bytes.len() as u64 != want {
            return Err(Error::Io(format!(
                "{} answered {} bytes for a read of {want} bytes at offset {}",
                self.name,
                bytes.len(),
                range.start
            )));
        }
        Ok(bytes)
    }

    async fn tail(&self, len: u64) -> Result<Tail> {
        let (bytes, got, object_size) = match self.get(GetRange::Suffix(len)).await {
            // Azure Blob Storage has no suffix range: the size first, then
            // the last bytes (one request more to open).
            Err(Error::RangeNotSupported(_)) => {
                let size = self.size().await?;
                let start = size.saturating_sub(len);
                if start == size {
                    (Vec::new(), size..size, size)
                } else {
                    self.get(GetRange::Bounded(start..size)).await?
                }
            }
            answer => answer?,
        };
        let want = len.min(object_size);
        if bytes.len() as u64 != want || got.end != object_size {
            return Err(Error::Io(format!(
                "{} answered {} bytes ({got:?}) for the last {want} of {object_size}",
                self.name,
                bytes.len()
            )));
        }
        Ok(Tail { bytes, object_size })
    }

    fn outside(&self, range: &Range<u64>, size: Option<u64>) -> Error {
        let size = size.map_or_else(|| "unknown size".into(), |s| format!("{s} bytes"));
        Error::OutOfBounds(format!(
            "range {}..{} is outside {} of {size}",
            range.start, range.end, self.name
        ))
    }
}

fn lock(pinned: &Mutex<Pinned>) -> std::sync::MutexGuard<'_, Pinned> {
    // A poisoned lock only means another read panicked; the pins are fine.
    pinned.lock().unwrap_or_else(|p| p.into_inner())
}

/// The crate's error for a store's; a missing object that was there when
/// opened has been replaced.
fn store_error(e: ::object_store::Error, name: &str, pinned: &Mutex<Pinned>) -> Error {
    let opened = lock(pinned).size.is_some();
    match e {
        ::object_store::Error::NotFound { .. } if opened => {
            Error::ObjectChanged(format!("{name} is gone since it was opened: {e}"))
        }
        ::object_store::Error::NotFound { .. } => Error::NotFound(format!("{name}: {e}")),
        ::object_store::Error::Precondition { .. } | ::object_store::Error::NotModified { .. } => {
            Error::ObjectChanged(format!("{name} changed since it was opened: {e}"))
        }
        ::object_store::Error::NotSupported { .. } => {
            Error::RangeNotSupported(format!("{name}: {e}"))
        }
        e => Error::Io(format!("{name}: {e}")),
    }
}

impl ByteSource for ObjectStoreSource {
    fn read_range(&self, range: Range<u64>) -> SourceFuture<'_, Vec<u8>> {
        Box::pin(self.read(range))
    }

    fn read_tail(&self, len: u64) -> SourceFuture<'_, Tail> {
        Box::pin(self.tail(len))
    }

    fn describe(&self) -> String {
        self.name.clone()
    }
}
