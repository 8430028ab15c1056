//! A local file, read with positioned reads (native targets only).

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::{check_range, ByteSource, SourceFuture, Tail};
use crate::error::{Error, Result};

/// A local file. Its size is taken once, at open: collections are immutable,
/// and a file that changes size later is reported as changed.
#[derive(Debug)]
pub struct FileSource {
    file: File,
    path: PathBuf,
    size: u64,
}

impl FileSource {
    /// Opens `path`; a missing file is [`Error::NotFound`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = File::open(&path).map_err(|e| with_path(e, &path))?;
        let size = file.metadata().map_err(|e| with_path(e, &path))?.len();
        Ok(Self { file, path, size })
    }

    fn read_exact_at(&self, range: Range<u64>) -> Result<Vec<u8>> {
        check_range(&range, self.size, &self.path.display().to_string())?;
        let mut buf = vec![0u8; (range.end - range.start) as usize];
        read_at(&self.file, &mut buf, range.start).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                Error::ObjectChanged(format!(
                    "{} is shorter than when it was opened",
                    self.path.display()
                ))
            } else {
                with_path(e, &self.path)
            }
        })?;
        Ok(buf)
    }
}

fn with_path(e: std::io::Error, path: &Path) -> Error {
    let message = format!("{}: {e}", path.display());
    match e.kind() {
        std::io::ErrorKind::NotFound => Error::NotFound(message),
        _ => Error::Io(message),
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

impl ByteSource for FileSource {
    // Positioned reads of a local file are short and synchronous; running
    // them inline keeps the core free of any runtime.
    fn read_range(&self, range: Range<u64>) -> SourceFuture<'_, Vec<u8>> {
        let result = self.read_exact_at(range);
        Box::pin(async move { result })
    }

    fn read_tail(&self, len: u64) -> SourceFuture<'_, Tail> {
        let start = self.size - len.min(self.size);
        let result = self.read_exact_at(start..self.size).map(|bytes| Tail {
            bytes,
            object_size: self.size,
        });
        Box::pin(async move { result })
    }

    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}
