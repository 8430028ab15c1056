//! How a cache's relative paths become byte sources.

use std::sync::Arc;

use crate::error::Result;
use crate::source::{ByteSource, MaybeSendSync};

/// Opens the objects of one cache by their path relative to the cache's
/// directory (`shards/train/000000-000000.tar`). A missing object is
/// [`Error::NotFound`](crate::Error::NotFound).
pub trait Store: MaybeSendSync {
    /// The source for `path`.
    fn open(&self, path: &str) -> Result<Arc<dyn ByteSource>>;
}

impl<F> Store for F
where
    F: Fn(&str) -> Result<Arc<dyn ByteSource>> + MaybeSendSync,
{
    fn open(&self, path: &str) -> Result<Arc<dyn ByteSource>> {
        self(path)
    }
}

impl<S: Store + ?Sized> Store for Arc<S> {
    fn open(&self, path: &str) -> Result<Arc<dyn ByteSource>> {
        (**self).open(path)
    }
}

/// Checks that `path` stays inside the cache: relative, no `..`, no empty
/// or `.` components. A pointer comes from a table someone else wrote.
pub(crate) fn check_relative(path: &str) -> Result<()> {
    let bad = path.is_empty()
        || path.starts_with('/')
        || path.contains('\\')
        || path
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..");
    if bad {
        return Err(crate::Error::InvalidArgument(format!(
            "'{path}' is not a relative path inside the cache"
        )));
    }
    Ok(())
}

#[cfg(not(target_arch = "wasm32"))]
mod dir {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::{check_relative, Store};
    use crate::error::Result;
    use crate::source::{ByteSource, FileSource};

    /// A cache in a local directory.
    #[derive(Debug, Clone)]
    pub struct DirStore {
        root: PathBuf,
    }

    impl DirStore {
        /// The cache whose config directory is `root`.
        pub fn new(root: impl Into<PathBuf>) -> Self {
            Self { root: root.into() }
        }
    }

    impl Store for DirStore {
        fn open(&self, path: &str) -> Result<Arc<dyn ByteSource>> {
            check_relative(path)?;
            Ok(Arc::new(FileSource::open(self.root.join(path))?))
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub use dir::DirStore;

#[cfg(test)]
mod tests {
    use super::check_relative;

    #[test]
    fn paths_that_leave_the_cache_are_refused() {
        check_relative("shards/train/000000-000000.tar").unwrap();
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../b",
            "a//b",
            "./a",
            "a\\b",
        ] {
            assert_eq!(check_relative(bad).unwrap_err().code(), "InvalidArgument");
        }
    }
}
