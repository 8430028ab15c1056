//! How a cache's relative paths become byte sources.

use std::sync::Arc;

use crate::error::Result;
use crate::source::{ByteSource, MaybeSendSync, SourceFuture};

/// Opens the objects of one cache by their path relative to the cache's
/// directory (`shards/train/000000-000000.tar`). A missing object is
/// [`Error::NotFound`](crate::Error::NotFound).
pub trait Store: MaybeSendSync {
    /// The source for `path`.
    fn open(&self, path: &str) -> Result<Arc<dyn ByteSource>>;

    /// The names of the entries (objects and directories) directly under
    /// `dir` (`""` is the cache's own directory), sorted; `None` when this
    /// store cannot list, and readers then probe for the names they expect.
    /// A directory that does not exist lists as empty.
    fn list<'a>(&'a self, dir: &'a str) -> SourceFuture<'a, Option<Vec<String>>> {
        let _ = dir;
        Box::pin(async { Ok(None) })
    }
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

    fn list<'a>(&'a self, dir: &'a str) -> SourceFuture<'a, Option<Vec<String>>> {
        (**self).list(dir)
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
    use crate::error::{Error, Result};
    use crate::source::{ByteSource, FileSource, SourceFuture};

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

        fn list<'a>(&'a self, dir: &'a str) -> SourceFuture<'a, Option<Vec<String>>> {
            Box::pin(async move {
                if !dir.is_empty() {
                    check_relative(dir)?;
                }
                let entries = match std::fs::read_dir(self.root.join(dir)) {
                    Ok(entries) => entries,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Some(vec![])),
                    Err(e) => return Err(Error::Io(format!("listing {dir}: {e}"))),
                };
                let mut names = Vec::new();
                for entry in entries {
                    let entry = entry.map_err(|e| Error::Io(format!("listing {dir}: {e}")))?;
                    // A name that is not UTF-8 cannot be a path in a table.
                    if let Ok(name) = entry.file_name().into_string() {
                        names.push(name);
                    }
                }
                names.sort();
                Ok(Some(names))
            })
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
