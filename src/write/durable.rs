//! What makes the writers' files survive a crash: durable directories, the
//! points where tests kill a writer, and I/O errors that name their path.

use std::path::Path;

use crate::error::{Error, Result};

/// Syncs the directory holding `path`, which makes renames and removals in
/// it durable. Platforms that cannot open a directory skip this.
pub(crate) fn sync_dir(path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    #[cfg(unix)]
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_at(e, dir))?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Test-only: with debug assertions, a process whose
/// `ATLAS_WRITER_PAUSE_AT` names `step` announces it on stderr and waits
/// there for ever, to be killed by `tests/writer_kill.rs`. Release builds
/// compile this to nothing.
#[inline]
pub(crate) fn crash_point(step: &str) {
    #[cfg(debug_assertions)]
    if std::env::var("ATLAS_WRITER_PAUSE_AT").is_ok_and(|at| at == step) {
        eprintln!("ATLAS_WRITER_PAUSED_AT {step}");
        loop {
            std::thread::park();
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = step;
}

/// An I/O error at `path`: `NotFound` when it is missing, else `Io`.
pub(crate) fn io_at(e: std::io::Error, path: &Path) -> Error {
    let message = format!("{}: {e}", path.display());
    match e.kind() {
        std::io::ErrorKind::NotFound => Error::NotFound(message),
        _ => Error::Io(message),
    }
}
