//! Where a collection lives: a local directory, an `http(s)://` URL of
//! one, or (feature `cloud`) a bucket prefix; and how a name on the
//! command line names a dataset.

use std::path::PathBuf;
use std::sync::Arc;

use crate::source::{FileSource, HttpSource};
use crate::write::{DATA_FILE, MASK_FILE};
use crate::{Atlas, ByteSource, Error, ReadOptions};

use super::CliError;

/// The container and, when there may be one, the mask.
type Sources = (Arc<dyn ByteSource>, Option<Arc<dyn ByteSource>>);

/// Opens a local directory, an http(s) URL of one, or a bucket prefix.
pub(crate) async fn open(location: &str, options: ReadOptions) -> Result<Atlas, CliError> {
    let (data, mask): Sources = if is_url(location) {
        let base = location.trim_end_matches('/');
        (
            Arc::new(HttpSource::new(format!("{base}/{DATA_FILE}"))),
            Some(Arc::new(HttpSource::new(format!("{base}/{MASK_FILE}")))),
        )
    } else if is_bucket(location) {
        bucket_sources(location)?
    } else {
        let dir = PathBuf::from(location);
        let data = FileSource::open(dir.join(DATA_FILE))
            .map_err(|e| CliError::new(format!("{location} is not a collection ({e})")))?;
        let mask: Option<Arc<dyn ByteSource>> = match FileSource::open(dir.join(MASK_FILE)) {
            Ok(m) => Some(Arc::new(m)),
            Err(Error::NotFound(_)) => None,
            Err(e) => return Err(e.into()),
        };
        (Arc::new(data), mask)
    };
    Ok(Atlas::open_with(data, mask, options).await?)
}

pub(crate) fn is_url(location: &str) -> bool {
    location.starts_with("http://") || location.starts_with("https://")
}

#[cfg(feature = "cloud")]
pub(crate) fn is_bucket(location: &str) -> bool {
    super::bucket::is_bucket(location)
}

#[cfg(not(feature = "cloud"))]
pub(crate) fn is_bucket(location: &str) -> bool {
    ["s3://", "gs://", "az://"]
        .iter()
        .any(|s| location.starts_with(s))
}

/// The error of a bucket command in a build without buckets.
#[cfg(not(feature = "cloud"))]
pub(crate) fn no_buckets(location: &str) -> Error {
    Error::InvalidArgument(format!(
        "{location}: this atlas was built without bucket support (cargo feature `cloud`)"
    ))
}

#[cfg(feature = "cloud")]
fn bucket_sources(location: &str) -> Result<Sources, CliError> {
    let bucket = super::bucket::Bucket::open(location)?;
    Ok((bucket.source(DATA_FILE), Some(bucket.source(MASK_FILE))))
}

#[cfg(not(feature = "cloud"))]
fn bucket_sources(location: &str) -> Result<Sources, CliError> {
    Err(CliError::new(format!(
        "{location}: this atlas was built without bucket support (cargo feature `cloud`)"
    )))
}

/// `location` as a local path, or an error naming `command` for a URL.
pub(crate) fn local(location: &str, command: &str) -> Result<PathBuf, CliError> {
    if is_url(location) {
        return Err(CliError::new(format!(
            "{command} writes, and {location} is read-only over HTTP; use a local path"
        )));
    }
    Ok(PathBuf::from(location))
}

/// atlas-python's `dataset_name`: a NetCDF path names the dataset of its file name.
pub(crate) fn dataset_name(name: &str) -> String {
    std::path::Path::new(name)
        .file_name()
        .map_or_else(|| name.to_string(), |f| f.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_locations() {
        assert_eq!(dataset_name("/data/2024/jan.nc"), "jan.nc");
        assert_eq!(dataset_name("jan.nc"), "jan.nc");
        assert!(is_url("https://x/y") && !is_url("s3://b/p"));
        assert!(is_bucket("s3://b/p") && !is_bucket("/tmp/s3:"));
    }
}
