//! The last steps every writer of a whole container shares: a hidden work
//! directory beside the destination, the collection footer and trailer, and
//! the rename that makes the new container the collection.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::{Error, Result};
use crate::format::container::encode_trailer;
use crate::format::footer::CollectionFooter;
use crate::format::mask::encode_bound_mask;
use crate::format::segment::{SegmentFooter, SEGMENT_MAGIC, SEGMENT_TRAILER_SIZE};
use crate::read::Atlas;
use crate::write::durable::{crash_point, io_at, sync_dir};
use crate::write::mask::{binding_of, write_atomically};
use crate::write::{DATA_FILE, MASK_FILE};

/// A hidden directory inside the destination that holds everything under
/// construction. Same file system as the destination, so the final rename
/// is atomic; removed when dropped, finished or not.
pub(crate) struct WorkDir {
    /// The collection directory.
    pub(crate) dir: PathBuf,
    /// The hidden directory inside it.
    pub(crate) path: PathBuf,
}

static WORK_DIRS: AtomicU64 = AtomicU64::new(0);

/// The work directories open in this process, each with its destination
/// when the writer created that: what [`abandon_unfinished`] removes.
static OPEN: Mutex<Vec<(PathBuf, Option<PathBuf>)>> = Mutex::new(Vec::new());

fn open_work() -> MutexGuard<'static, Vec<(PathBuf, Option<PathBuf>)>> {
    // A writer that panicked holding the lock left the list whole.
    OPEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl WorkDir {
    /// Creates `dir` when absent, and a fresh work directory inside it.
    pub(crate) fn create(dir: &Path) -> Result<WorkDir> {
        let created = (!dir.exists()).then(|| dir.to_path_buf());
        std::fs::create_dir_all(dir).map_err(|e| io_at(e, dir))?;
        let path = dir.join(format!(
            ".atlas-write-{}-{}",
            std::process::id(),
            WORK_DIRS.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&path).map_err(|e| io_at(e, &path))?;
        open_work().push((path.clone(), created));
        Ok(WorkDir {
            dir: dir.to_path_buf(),
            path,
        })
    }

    /// Where the container is staged.
    pub(crate) fn staging(&self) -> PathBuf {
        self.path.join(DATA_FILE)
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        open_work().retain(|(path, _)| *path != self.path);
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Removes what the unfinished writers of this process have staged: their
/// hidden work directories (the container so far, the scratch files), and
/// a destination directory a writer created, when that is left empty. For
/// a program about to exit on a signal (the `atlas` binary on Ctrl-C), which
/// would otherwise leave them: exiting runs no destructors. The writers
/// fail from then on; collections already installed are untouched. Returns
/// how many work directories went.
pub fn abandon_unfinished() -> usize {
    let open = std::mem::take(&mut *open_work());
    for (path, created) in &open {
        let _ = std::fs::remove_dir_all(path);
        if let Some(dir) = created {
            // Fails, and so keeps it, unless nothing else is in it.
            let _ = std::fs::remove_dir(dir);
        }
    }
    open.len()
}

/// Appends the collection footer (msgpack, zstd) and the container trailer.
pub(crate) fn write_footer(out: &mut impl Write, footer: &CollectionFooter) -> Result<()> {
    let packed = footer.to_msgpack()?;
    let compressed = zstd::stream::encode_all(packed.as_slice(), 0)?;
    out.write_all(&compressed)?;
    out.write_all(&encode_trailer(compressed.len() as u64))?;
    Ok(())
}

/// Appends a segment footer and its trailer, serialized straight into
/// `out`: a footer of a million arrays is ~330 MB, which is then never held
/// as bytes beside the decoded footer. Returns the bytes written.
pub(crate) fn write_segment_footer(out: &mut impl Write, footer: &SegmentFooter) -> Result<u64> {
    // rkyv writes field by field: buffered, whatever `out` is.
    let buffered = std::io::BufWriter::with_capacity(1 << 18, &mut *out);
    let writer = rkyv::api::high::to_bytes_in::<_, rkyv::rancor::Error>(
        footer,
        rkyv::ser::writer::IoWriter::new(buffered),
    )
    .map_err(|e| Error::Io(format!("a segment footer did not serialize: {e}")))?;
    let len = rkyv::ser::Positional::pos(&writer) as u64;
    let mut buffered = writer.into_inner();
    buffered.write_all(&len.to_le_bytes())?;
    buffered.write_all(&SEGMENT_MAGIC)?;
    buffered.flush()?;
    Ok(len + SEGMENT_TRAILER_SIZE)
}

/// Renames the synced container staged in `work` to `data.atlas`. A
/// `deleted.mask` left by an earlier collection in the directory names
/// datasets of that collection, not of this one: it is first bound to the
/// old container (which then still reads as before), so that next to the
/// new one it hides nothing, and removed once the new container is in
/// place. Killed at any step, the directory reads as the old collection or
/// the new one (docs/write-path.md, "Crash safety").
pub(crate) fn install(work: &WorkDir) -> Result<()> {
    crash_point("container-synced");
    let mask = work.dir.join(MASK_FILE);
    let had_mask = mask.exists();
    if had_mask {
        bind_old_mask(&work.dir)?;
    }
    let target = work.dir.join(DATA_FILE);
    let staging = work.staging();
    std::fs::rename(&staging, &target).map_err(|e| io_at(e, &target))?;
    crash_point("container-renamed");
    if had_mask {
        std::fs::remove_file(&mask).map_err(|e| io_at(e, &mask))?;
        crash_point("mask-removed");
    }
    sync_dir(&target)
}

/// Readies the old mask in `dir` for the container rename. When the old
/// collection opens, its mask is rewritten bound to the old container,
/// hiding what it hides now. When the container alone does not open, no
/// reader sees a collection with or without the mask: it goes now. When only
/// the mask fails, readers fail on it until it goes, after the rename.
fn bind_old_mask(dir: &Path) -> Result<()> {
    let mask = dir.join(MASK_FILE);
    if let Ok(old) = at_once(Atlas::open_path(dir))? {
        let bound = encode_bound_mask(old.deleted_ordinals(), &binding_of(&old));
        return write_atomically(&mask, &bound);
    }
    let container_opens = match crate::source::FileSource::open(dir.join(DATA_FILE)) {
        Ok(data) => at_once(Atlas::open(Arc::new(data), None))?.is_ok(),
        Err(_) => false,
    };
    if container_opens {
        return Ok(());
    }
    std::fs::remove_file(&mask).map_err(|e| io_at(e, &mask))
}

/// The answer of a future over local files, which is ready at its first
/// poll. No executor: writers also run inside one (an async `rewrite`).
pub(crate) fn at_once<T>(future: impl std::future::Future<Output = T>) -> Result<T> {
    use futures_util::FutureExt;
    future
        .now_or_never()
        .ok_or_else(|| Error::Internal("a local file read did not complete at once".into()))
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
