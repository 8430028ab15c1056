//! `atlas merge` with parts or the destination in buckets (feature
//! `cloud`). A part in a bucket is read by range through the same
//! [`ObjectStoreSource`](crate::source::ObjectStoreSource) as every bucket
//! read; a destination in a bucket gets its container the way
//! [`upload_collection`] puts one, whole in one upload or not at all.
//!
//! Where the parts and the destination are in one S3-compatible bucket,
//! the container is a multipart upload whose long runs of blocks the store
//! copies itself ([`super::s3_copy`]); elsewhere it is merged into a local
//! temporary file and uploaded.

use std::sync::Arc;

use crate::source::{CountingSource, ObjectStoreSource, RequestLog};
use crate::write::merge::{merge_parts, write_container, MergePart, MergeSummary, PartBytes};
use crate::write::DATA_FILE;
use crate::write::MASK_FILE;
use crate::{Atlas, ByteSource, Error, Result};

use super::bucket::{replace_container, upload_collection, Bucket};
use super::interrupt::TempDir;
use super::s3_copy::{PartObject, S3Bucket, S3Container};

/// What a merge keeps of the buckets it reads: the requests to its parts
/// (the bytes that went through this process) and their containers (the
/// ETags their reads pinned, which the store's copies must match).
#[derive(Default)]
pub(crate) struct Traffic {
    logs: Vec<RequestLog>,
    /// Each part in a bucket's container by part index, for the ETag its
    /// reads pinned.
    containers: Vec<(usize, ObjectStoreSource)>,
    /// Bytes sent to the destination bucket.
    pub(crate) uploaded: u64,
}

impl Traffic {
    /// Bytes read from the parts in buckets (footers, masks, blocks).
    pub(crate) fn downloaded(&self) -> u64 {
        self.logs.iter().map(RequestLog::bytes).sum()
    }
}

/// The collection at bucket prefix `location` as part `index` of a merge,
/// every byte read from it counted in `traffic`.
pub(crate) fn open_part(location: &str, index: usize, traffic: &mut Traffic) -> Result<MergePart> {
    let bucket = Bucket::open(location)?;
    let container = bucket.object(DATA_FILE);
    traffic.containers.push((index, container.clone()));
    let data = CountingSource::new(container);
    let mask = CountingSource::new(bucket.object(MASK_FILE));
    traffic.logs.extend([data.log(), mask.log()]);
    let data: Arc<dyn ByteSource> = Arc::new(data);
    let runtime = bucket.runtime();
    let named = |e: Error| {
        Error::from_code(e.code(), format!("part {location}: {e}"), e.http_status()).unwrap_or(e)
    };
    let atlas = runtime
        .block_on(Atlas::open(data.clone(), Some(Arc::new(mask))))
        .map_err(named)?;
    let read_at = move |offset: u64, buf: &mut [u8]| -> Result<()> {
        let bytes = runtime.block_on(data.read_range(offset..offset + buf.len() as u64))?;
        if bytes.len() != buf.len() {
            return Err(Error::Io(format!(
                "{}: {} bytes at {offset} were asked for, {} came",
                data.describe(),
                buf.len(),
                bytes.len()
            )));
        }
        buf.copy_from_slice(&bytes);
        Ok(())
    };
    Ok(MergePart::new(
        bucket.url().to_string(),
        index,
        atlas,
        PartBytes::Ranges(Box::new(read_at)),
    ))
}

/// Merges `parts` into the collection at bucket prefix `location`.
pub(crate) fn merge_into_bucket(
    location: &str,
    parts: &[MergePart],
    traffic: &mut Traffic,
    progress: impl FnMut(usize, usize),
) -> Result<MergeSummary> {
    let url = location.trim_end_matches('/');
    if let Some(part) = parts.iter().find(|p| p.name == url) {
        return Err(Error::InvalidArgument(format!(
            "the destination {} is one of the parts",
            part.name
        )));
    }
    let s3 = match is_s3(location) {
        true => S3Bucket::open(location)?,
        false => None,
    };
    if let Some(s3) = s3 {
        return merge_by_copies(location, &s3, parts, traffic, progress);
    }
    let staging = TempDir::new("atlas-merge");
    let summary = merge_parts(parts, staging.path(), progress)?;
    upload_collection(location, staging.path())?;
    traffic.uploaded += summary.container_bytes;
    Ok(summary)
}

fn is_s3(location: &str) -> bool {
    url::Url::parse(location).is_ok_and(|url| {
        matches!(
            object_store::ObjectStoreScheme::parse(&url),
            Ok((object_store::ObjectStoreScheme::AmazonS3, _))
        )
    })
}

/// A part's container when it is in an S3 bucket, with the ETag its reads
/// pinned.
fn s3_object(part: &MergePart, traffic: &Traffic) -> Option<PartObject> {
    let url = url::Url::parse(&part.name).ok()?;
    match object_store::ObjectStoreScheme::parse(&url).ok()? {
        (object_store::ObjectStoreScheme::AmazonS3, prefix) => Some(PartObject {
            bucket: url.host_str()?.to_string(),
            path: prefix.join(DATA_FILE),
            etag: traffic
                .containers
                .iter()
                .find(|(index, _)| *index == part.index)
                .and_then(|(_, container)| container.etag()),
        }),
        _ => None,
    }
}

/// The container as a multipart upload of the store's own copies of the
/// parts' runs of blocks, in [`replace_container`]'s steps.
fn merge_by_copies(
    location: &str,
    s3: &S3Bucket,
    parts: &[MergePart],
    traffic: &mut Traffic,
    progress: impl FnMut(usize, usize),
) -> Result<MergeSummary> {
    let bucket = Bucket::open(location)?;
    let sources = parts.iter().map(|p| s3_object(p, traffic)).collect();
    let mut merged = None;
    replace_container(&bucket, || {
        let path = bucket.path(DATA_FILE);
        let mut out = S3Container::start(s3, bucket.runtime(), path, sources)?;
        match write_container(parts, &mut out, progress) {
            Ok(summary) => {
                traffic.uploaded += out.finish()?;
                merged = Some(summary);
                Ok(())
            }
            Err(e) => {
                out.abort();
                Err(e)
            }
        }
    })?;
    Ok(merged.expect("set when the upload succeeded"))
}
