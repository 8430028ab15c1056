//! A merged container put in an S3-compatible bucket (S3, MinIO; not R2) as
//! one multipart upload in which the store copies the parts' long runs of
//! blocks itself (UploadPartCopy), so only footers pass through the merger.
//!
//! Every part of a multipart upload but the last must be at least 5 MiB,
//! and the merger's new bytes (segment and collection footers) sit between
//! runs of copied blocks. So a run is held back until what follows it is
//! known: followed by another run it is copied as it is; followed by new
//! bytes, the store first joins the two into a temporary object (a
//! multipart upload whose small last part is those bytes), which is then
//! copied as one part. Runs shorter than 5 MiB are read and sent. The
//! container's header is found in front of the first part's first run and
//! copied with it. object_store has no UploadPartCopy with a range, so that
//! one request is signed here with its [`AwsAuthorizer`]; the rest goes
//! through its [`MultipartStore`].

use std::io::Write;
use std::sync::Arc;

use object_store::aws::{AmazonS3, AmazonS3Builder, AmazonS3ConfigKey, AwsAuthorizer};
use object_store::client::{HttpClient, HttpConnector, HttpRequestBody, ReqwestConnector};
use object_store::multipart::{MultipartStore, PartId};
use object_store::path::Path;
use object_store::{ClientOptions, MultipartId, ObjectStoreExt, PutPayload};

use crate::write::merge::{Container, MergePart};
use crate::{Error, Result};

use super::interrupt::{self, Uploading};

/// The least size of every part of a multipart upload but the last.
pub(crate) const MIN_PART: u64 = 5 << 20;
/// The most one UploadPartCopy copies.
const MAX_COPY: u64 = 5 << 30;

/// One S3-compatible bucket, as object_store's environment configures it.
pub(crate) struct S3Bucket {
    store: Arc<AmazonS3>,
    client: HttpClient,
    name: String,
    /// `https://host/bucket` or `https://bucket.host`, as object_store's.
    endpoint: String,
    region: String,
}

impl S3Bucket {
    /// The bucket of `location` (`s3://bucket/...`), or `None` where the
    /// store cannot take a container made of copies (S3 Express, R2: see
    /// [`copies_ranges`]).
    pub(crate) fn open(location: &str) -> Result<Option<S3Bucket>> {
        let config = |e: object_store::Error| Error::InvalidArgument(format!("{location}: {e}"));
        let mut builder = AmazonS3Builder::new().with_url(location);
        let mut client = ClientOptions::new();
        for (key, value) in std::env::vars() {
            match key.to_ascii_lowercase().parse::<AmazonS3ConfigKey>() {
                Ok(AmazonS3ConfigKey::Client(key)) => client = client.with_config(key, &value),
                Ok(key) => builder = builder.with_config(key, value),
                Err(_) => {}
            }
        }
        let get = |key| builder.get_config_value(&key);
        if get(AmazonS3ConfigKey::S3Express).is_some_and(|v| v == "true") {
            return Ok(None);
        }
        // `s3://bucket/prefix`; the builder reads its URL only when it builds.
        let name = url::Url::parse(location)
            .ok()
            .and_then(|url| url.host_str().map(String::from))
            .ok_or_else(|| Error::InvalidArgument(format!("{location} names no bucket")))?;
        let region = get(AmazonS3ConfigKey::Region).unwrap_or_else(|| "us-east-1".into());
        let virtual_hosted =
            get(AmazonS3ConfigKey::VirtualHostedStyleRequest).is_some_and(|v| v == "true");
        let endpoint = get(AmazonS3ConfigKey::S3Endpoint).or(get(AmazonS3ConfigKey::Endpoint));
        // The same choice as object_store's builder makes.
        let endpoint = match (endpoint, virtual_hosted) {
            (Some(endpoint), true) => endpoint,
            (Some(endpoint), false) => format!("{}/{name}", endpoint.trim_end_matches('/')),
            (None, true) => format!("https://{name}.s3.{region}.amazonaws.com"),
            (None, false) => format!("https://s3.{region}.amazonaws.com/{name}"),
        };
        if !copies_ranges(&endpoint) {
            return Ok(None);
        }
        let store = builder
            .with_client_options(client.clone())
            .build()
            .map_err(config)?;
        let client = ReqwestConnector::default()
            .connect(&client)
            .map_err(config)?;
        Ok(Some(S3Bucket {
            store: Arc::new(store),
            client,
            name,
            endpoint,
            region,
        }))
    }

    /// `path` in this bucket as a URL, each segment percent-encoded.
    fn url(&self, path: &Path) -> Result<url::Url> {
        let mut url = url::Url::parse(&self.endpoint)
            .map_err(|e| Error::InvalidArgument(format!("{}: {e}", self.endpoint)))?;
        url.path_segments_mut()
            .map_err(|()| Error::InvalidArgument(format!("{} is no base URL", self.endpoint)))?
            .pop_if_empty()
            .extend(path.parts().map(|p| p.as_ref().to_string()));
        Ok(url)
    }

    /// UploadPartCopy: part `part_idx` (from 0) of upload `id` at `to` is
    /// `range` of `from`, copied by the store.
    async fn copy_part(
        &self,
        to: &Path,
        id: &MultipartId,
        part_idx: usize,
        from: &Source,
    ) -> Result<PartId> {
        let failed = |what: String| Error::Io(format!("copying into {}: {what}", self.name));
        let mut url = self.url(to)?;
        url.query_pairs_mut()
            .append_pair("partNumber", &(part_idx + 1).to_string())
            .append_pair("uploadId", id);
        let mut request = copy_request(url.as_str(), from).map_err(|e| failed(e.to_string()))?;
        let credential = self
            .store
            .credentials()
            .get_credential()
            .await
            .map_err(|e| failed(e.to_string()))?;
        AwsAuthorizer::new(&credential, "s3", &self.region).authorize(&mut request, None);
        let response = self
            .client
            .execute(request)
            .await
            .map_err(|e| failed(e.to_string()))?;
        let status = response.status();
        let body = response
            .into_body()
            .bytes()
            .await
            .map_err(|e| failed(e.to_string()))?;
        let body = String::from_utf8_lossy(&body);
        if status == http::StatusCode::PRECONDITION_FAILED {
            return Err(Error::ObjectChanged(format!(
                "{}/{} is not the object this merge read (ETag {}): it changed during the merge",
                from.bucket,
                from.path,
                from.etag.as_deref().unwrap_or("?")
            )));
        }
        // S3 may answer 200 and put the error in the body.
        match copied_etag(&body) {
            Some(etag) if status.is_success() => Ok(PartId { content_id: etag }),
            _ => Err(failed(format!("{status}: {body}"))),
        }
    }
}

/// The unsigned UploadPartCopy of `from` to `url` (a part of an upload):
/// the source as `bucket/key`, percent-encoded as a path, its byte range,
/// and its ETag as the copy's precondition when known.
fn copy_request(url: &str, from: &Source) -> http::Result<http::Request<HttpRequestBody>> {
    let mut source = url::Url::parse("http://source/").expect("a valid URL");
    source
        .path_segments_mut()
        .expect("a base URL")
        .pop_if_empty()
        .push(&from.bucket)
        .extend(from.path.parts().map(|p| p.as_ref().to_string()));
    let last = from.offset + from.len - 1;
    let mut request = http::Request::builder()
        .method(http::Method::PUT)
        .uri(url)
        .header("x-amz-copy-source", &source.path()[1..])
        .header(
            "x-amz-copy-source-range",
            format!("bytes={}-{last}", from.offset),
        );
    if let Some(etag) = &from.etag {
        request = request.header("x-amz-copy-source-if-match", etag);
    }
    request.body(HttpRequestBody::from(Vec::new()))
}

/// The ETag of a `CopyPartResult`, its XML escapes undone.
fn copied_etag(body: &str) -> Option<String> {
    if body.contains("<Error>") {
        return None;
    }
    let start = body.find("<ETag>")? + "<ETag>".len();
    let end = start + body[start..].find("</ETag>")?;
    Some(
        body[start..end]
            .replace("&quot;", "\"")
            .replace("&#34;", "\"")
            .replace("&amp;", "&"),
    )
}

/// A merge part's container in an S3 bucket, which the store can copy from.
#[derive(Clone)]
pub(crate) struct PartObject {
    pub(crate) bucket: String,
    pub(crate) path: Path,
    /// The ETag the merge read the part at: a copy from an object that has
    /// changed since is refused by the store, not made.
    pub(crate) etag: Option<String>,
}

/// A byte range of an object in an S3 bucket the store can copy from.
#[derive(Clone)]
struct Source {
    bucket: String,
    path: Path,
    offset: u64,
    len: u64,
    /// The object's ETag, when known: the copy's precondition.
    etag: Option<String>,
}

/// The container being uploaded: see the module's comment.
pub(crate) struct S3Container<'a> {
    bucket: &'a S3Bucket,
    runtime: &'a tokio::runtime::Runtime,
    path: Path,
    id: MultipartId,
    parts: Vec<PartId>,
    /// Each merge part's container, where the store can copy from it.
    sources: Vec<Option<PartObject>>,
    /// A run of at least [`MIN_PART`] bytes not yet placed.
    held: Option<Source>,
    /// New bytes after `held`, fewer than [`MIN_PART`].
    pending: Vec<u8>,
    /// The joined objects made so far, removed at the end.
    joined: Vec<Path>,
    /// New bytes sent.
    uploaded: u64,
    /// Makes a signal wait for this upload to give itself up.
    _uploading: Uploading,
}

impl<'a> S3Container<'a> {
    /// Starts the upload of `path` in `bucket`. `sources[i]` is merge part
    /// `i`'s container when it is in this store.
    pub(crate) fn start(
        bucket: &'a S3Bucket,
        runtime: &'a tokio::runtime::Runtime,
        path: Path,
        sources: Vec<Option<PartObject>>,
    ) -> Result<S3Container<'a>> {
        // Before the upload exists: a signal from here on waits for it.
        let uploading = Uploading::start();
        let id = runtime
            .block_on(bucket.store.create_multipart(&path))
            .map_err(|e| store_error(e, &path))?;
        Ok(S3Container {
            bucket,
            runtime,
            path,
            id,
            parts: Vec::new(),
            sources,
            held: None,
            pending: Vec::new(),
            joined: Vec::new(),
            uploaded: 0,
            _uploading: uploading,
        })
    }

    /// Places what is held and pending, and makes the object appear; the
    /// bytes sent in all.
    pub(crate) fn finish(mut self) -> Result<u64> {
        let done = (|| {
            if let Some(held) = self.held.take() {
                self.place_run(held)?;
            }
            if !self.pending.is_empty() || self.parts.is_empty() {
                self.place_pending()?;
            }
            let parts = std::mem::take(&mut self.parts);
            self.runtime
                .block_on(
                    self.bucket
                        .store
                        .complete_multipart(&self.path, &self.id, parts),
                )
                .map(|_| ())
                .map_err(|e| store_error(e, &self.path))
        })();
        if done.is_err() {
            self.abort();
        }
        self.remove_joined();
        done.map(|()| self.uploaded)
    }

    /// Gives the upload up: nothing appears at the destination.
    pub(crate) fn abort(&self) {
        let _ = self
            .runtime
            .block_on(self.bucket.store.abort_multipart(&self.path, &self.id));
        self.remove_joined();
    }

    fn remove_joined(&self) {
        for path in &self.joined {
            let _ = self.runtime.block_on(self.bucket.store.delete(path));
        }
    }

    /// Sends `pending` as the next part.
    fn place_pending(&mut self) -> Result<()> {
        interrupt::check()?;
        let bytes = std::mem::take(&mut self.pending);
        self.uploaded += bytes.len() as u64;
        let idx = self.parts.len();
        let part = self
            .runtime
            .block_on(self.bucket.store.put_part(
                &self.path,
                &self.id,
                idx,
                PutPayload::from(bytes),
            ))
            .map_err(|e| store_error(e, &self.path))?;
        self.parts.push(part);
        Ok(())
    }

    /// Copies `run` as the next parts, none over the 5 GiB a copy allows
    /// and, `run` being at least [`MIN_PART`], none under the least.
    fn place_run(&mut self, run: Source) -> Result<()> {
        for piece in split(&run) {
            interrupt::check()?;
            let idx = self.parts.len();
            let part = self
                .runtime
                .block_on(self.bucket.copy_part(&self.path, &self.id, idx, &piece))?;
            self.parts.push(part);
            interrupt::pause_point("bucket-part-placed");
        }
        Ok(())
    }

    /// The store joins `held` and `pending` into a new object, which is
    /// held in their place.
    fn join_held(&mut self, held: Source) -> Result<()> {
        let (bucket, runtime) = (self.bucket, self.runtime);
        let store = &bucket.store;
        let path = Path::from(format!(
            "{}.join-{}-{}",
            self.path,
            std::process::id(),
            self.joined.len()
        ));
        let id = runtime
            .block_on(store.create_multipart(&path))
            .map_err(|e| store_error(e, &path))?;
        self.joined.push(path.clone());
        let bytes = std::mem::take(&mut self.pending);
        self.uploaded += bytes.len() as u64;
        let len = held.len + bytes.len() as u64;
        let joined = runtime.block_on(async {
            let mut parts = Vec::new();
            for piece in split(&held) {
                parts.push(bucket.copy_part(&path, &id, parts.len(), &piece).await?);
            }
            let last = store
                .put_part(&path, &id, parts.len(), PutPayload::from(bytes))
                .await
                .map_err(|e| store_error(e, &path))?;
            parts.push(last);
            store
                .complete_multipart(&path, &id, parts)
                .await
                .map_err(|e| store_error(e, &path))
        });
        let joined = match joined {
            Ok(joined) => joined,
            Err(e) => {
                let _ = runtime.block_on(store.abort_multipart(&path, &id));
                return Err(e);
            }
        };
        self.held = Some(Source {
            bucket: bucket.name.clone(),
            path,
            offset: 0,
            len,
            etag: joined.e_tag,
        });
        Ok(())
    }

    /// A run the store can copy: placed after what is held and pending.
    fn copy_run(&mut self, part: &MergePart, mut run: Source) -> Result<()> {
        if !self.pending.is_empty() {
            if let Some(held) = self.held.take() {
                self.join_held(held)?;
            } else if self.found_before(part, &run)? {
                // The pending bytes are the part's own, just before the run.
                let back = self.pending.len() as u64;
                self.pending.clear();
                run.offset -= back;
                run.len += back;
            } else {
                // Topped up to a part's least size from the run's head.
                let need = MIN_PART - self.pending.len() as u64;
                if run.len < need + MIN_PART {
                    return part.copy_through(run.offset, run.len, self);
                }
                part.copy_through(run.offset, need, &mut self.pending)?;
                self.place_pending()?;
                run.offset += need;
                run.len -= need;
            }
        }
        if let Some(held) = self.held.replace(run) {
            self.place_run(held)?;
        }
        Ok(())
    }

    /// Whether the pending bytes (a few, as the header is) are the ones in
    /// front of `run` in its object.
    fn found_before(&self, part: &MergePart, run: &Source) -> Result<bool> {
        let n = self.pending.len() as u64;
        if n > 4096 || n > run.offset {
            return Ok(false);
        }
        let mut before = vec![0u8; n as usize];
        part.read_at(run.offset - n, &mut before)?;
        Ok(before == self.pending)
    }
}

impl Write for S3Container<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        if self.pending.len() as u64 >= MIN_PART {
            let placed = match self.held.take() {
                Some(held) => self.place_run(held),
                None => Ok(()),
            };
            placed
                .and_then(|()| self.place_pending())
                .map_err(std::io::Error::other)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Container for S3Container<'_> {
    fn copy_from(&mut self, part: &MergePart, offset: u64, len: u64) -> Result<()> {
        match self.sources.get(part.index).cloned().flatten() {
            Some(object) if len >= MIN_PART => {
                let run = Source {
                    bucket: object.bucket,
                    path: object.path,
                    offset,
                    len,
                    etag: object.etag,
                };
                self.copy_run(part, run)
            }
            _ => part.copy_through(offset, len, self),
        }
    }
}

/// `run` in equal pieces of at most [`MAX_COPY`] bytes.
fn split(run: &Source) -> Vec<Source> {
    let pieces = run.len.div_ceil(MAX_COPY).max(1);
    let size = run.len.div_ceil(pieces);
    (0..pieces)
        .map(|i| {
            let offset = i * size;
            Source {
                offset: run.offset + offset,
                len: size.min(run.len - offset),
                ..run.clone()
            }
        })
        .collect()
}

fn store_error(e: object_store::Error, path: &Path) -> Error {
    Error::Io(format!("{path}: {e}"))
}

/// Whether the store at `endpoint` takes a multipart upload whose parts
/// differ in size, as a container of copied runs and new bytes has them.
/// R2 does not: every part but the last must be the same size there
/// (developers.cloudflare.com/r2/objects/multipart-objects), so a merge
/// into R2 is written as one into GCS or Azure is (every byte through the
/// merger, uploaded in equal parts).
fn copies_ranges(endpoint: &str) -> bool {
    let host = url::Url::parse(endpoint)
        .ok()
        .and_then(|url| url.host_str().map(str::to_ascii_lowercase));
    !host.is_some_and(|host| {
        host == "r2.cloudflarestorage.com" || host.ends_with(".r2.cloudflarestorage.com")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r2_is_merged_without_copies_and_other_stores_with() {
        for r2 in [
            "https://0123abcd.r2.cloudflarestorage.com/bucket",
            "https://0123abcd.eu.r2.cloudflarestorage.com/bucket",
            "https://bucket.0123abcd.R2.cloudflarestorage.com",
        ] {
            assert!(!copies_ranges(r2), "{r2}");
        }
        for other in [
            "https://s3.us-east-1.amazonaws.com/bucket",
            "http://127.0.0.1:9000/bucket",
            "https://r2.cloudflarestorage.com.example.org/bucket",
            "not a url",
        ] {
            assert!(copies_ranges(other), "{other}");
        }
    }

    #[test]
    fn a_copy_answer_gives_its_etag_or_nothing() {
        let ok = "<CopyPartResult><LastModified>x</LastModified><ETag>&quot;ab&quot;</ETag></CopyPartResult>";
        assert_eq!(copied_etag(ok).as_deref(), Some("\"ab\""));
        let failed = "<Error><Code>InternalError</Code><ETag>x</ETag></Error>";
        assert_eq!(copied_etag(failed), None);
        assert_eq!(copied_etag("<CopyPartResult/>"), None);
    }

    #[test]
    fn runs_split_into_copies_of_at_most_5_gib() {
        let run = |len| Source {
            bucket: "b".into(),
            path: Path::from("p"),
            offset: 7,
            len,
            etag: None,
        };
        let lens = |len| -> Vec<(u64, u64)> {
            split(&run(len)).iter().map(|s| (s.offset, s.len)).collect()
        };
        assert_eq!(lens(MIN_PART), vec![(7, MIN_PART)]);
        assert_eq!(lens(MAX_COPY), vec![(7, MAX_COPY)]);
        let half = (MAX_COPY + 2) / 2;
        assert_eq!(
            lens(MAX_COPY + 1),
            vec![(7, half), (7 + half, MAX_COPY + 1 - half)]
        );
    }

    #[test]
    fn a_copy_insists_on_the_etag_the_merge_read() {
        let from = Source {
            bucket: "parts".into(),
            path: Path::from("run 1/data.atlas"),
            offset: 100,
            len: 50,
            etag: Some("\"e1\"".into()),
        };
        let request = copy_request("http://s3/dst/data.atlas?partNumber=1", &from).unwrap();
        let header = |name: &str| request.headers().get(name).unwrap().to_str().unwrap();
        assert_eq!(header("x-amz-copy-source"), "parts/run%201/data.atlas");
        assert_eq!(header("x-amz-copy-source-range"), "bytes=100-149");
        assert_eq!(header("x-amz-copy-source-if-match"), "\"e1\"");
        let unknown = Source { etag: None, ..from };
        let request = copy_request("http://s3/dst/data.atlas", &unknown).unwrap();
        assert!(request
            .headers()
            .get("x-amz-copy-source-if-match")
            .is_none());
    }
}
