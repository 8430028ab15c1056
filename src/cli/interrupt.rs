//! Ctrl-C (and SIGTERM, SIGHUP) while a command writes. Without a handler
//! the process dies where it stands and leaves what it staged: a writer's
//! hidden work directory in the destination, a local copy of a container
//! bound for a bucket, a multipart upload the store keeps (and bills) until
//! a lifecycle rule ends it. With this one, the first signal:
//!
//! - when no upload is in flight, removes the staged files at once and exits
//!   with status 130;
//! - during an upload, lets it notice at its next part, abort itself and
//!   fail; the command then removes the rest and exits with 130.
//!
//! A second signal removes the staged files and exits at once.
//! Collections already installed are never touched, and the steps of a
//! replacement stay the crash-safe ones of docs/write-path.md.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, Once};

#[cfg(feature = "cloud")]
use crate::{Error, Result};

/// The exit status of a command ended by a signal, as shells report one.
pub(crate) const EXIT_STATUS: i32 = 130;

static REQUESTED: AtomicBool = AtomicBool::new(false);
/// Uploads in flight, each checking [`check`] between its parts.
static UPLOADS: AtomicUsize = AtomicUsize::new(0);
/// Local directories the CLI staged outside any writer.
static TEMP_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn temp_dirs() -> MutexGuard<'static, Vec<PathBuf>> {
    TEMP_DIRS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Installs the handler (once); a platform that refuses keeps its default.
pub(crate) fn watch() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if REQUESTED.swap(true, Ordering::SeqCst) || UPLOADS.load(Ordering::SeqCst) == 0 {
                clean_and_exit();
            }
            eprintln!("atlas: interrupted; giving the upload up (again to quit at once)");
        });
    });
}

/// Whether a signal asked the command to stop.
pub(crate) fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// Removes what was staged and exits with [`EXIT_STATUS`].
pub(crate) fn clean_and_exit() -> ! {
    for dir in std::mem::take(&mut *temp_dirs()) {
        let _ = std::fs::remove_dir_all(dir);
    }
    crate::write::abandon_unfinished();
    eprintln!("atlas: interrupted");
    std::process::exit(EXIT_STATUS)
}

/// A local directory of the CLI's own (`name-<pid>` in the system's
/// temporary directory), removed when dropped or on a signal.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        temp_dirs().push(path.clone());
        TempDir(path)
    }

    pub(crate) fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        temp_dirs().retain(|p| *p != self.0);
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Held by an upload while it runs: a signal then waits for it to give
/// itself up at its next [`check`].
#[cfg(feature = "cloud")]
pub(crate) struct Uploading(());

#[cfg(feature = "cloud")]
impl Uploading {
    pub(crate) fn start() -> Uploading {
        UPLOADS.fetch_add(1, Ordering::SeqCst);
        Uploading(())
    }
}

#[cfg(feature = "cloud")]
impl Drop for Uploading {
    fn drop(&mut self) {
        UPLOADS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// An error once a signal has asked to stop: an upload calls this before
/// each part and aborts on it.
#[cfg(feature = "cloud")]
pub(crate) fn check() -> Result<()> {
    match requested() {
        true => Err(Error::Io("interrupted".into())),
        false => Ok(()),
    }
}

/// Test-only: with debug assertions, a process whose
/// `ATLAS_WRITER_PAUSE_AT` names `step` announces it on stderr and waits
/// there until a signal asks it to stop (the core's crash points wait for
/// ever, for a kill). Release builds compile this to nothing.
#[cfg(feature = "cloud")]
#[inline]
pub(crate) fn pause_point(step: &str) {
    #[cfg(debug_assertions)]
    if std::env::var("ATLAS_WRITER_PAUSE_AT").is_ok_and(|at| at == step) {
        eprintln!("ATLAS_WRITER_PAUSED_AT {step}");
        while !requested() {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = step;
}
