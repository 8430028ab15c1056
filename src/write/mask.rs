//! Hiding datasets: one atomic rewrite of `deleted.mask`, bound to the
//! container it was computed against.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};
use crate::format::mask::{encode_bound_mask, MaskBinding};
use crate::read::Atlas;
use crate::write::durable::{crash_point, io_at, sync_dir};
use crate::write::MASK_FILE;

/// What a deletion did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deletion {
    /// Names now hidden, in the order given (a repeat counts once).
    pub removed: Vec<String>,
    /// Names that were absent or already hidden (only with `missing_ok`).
    pub missing: Vec<String>,
    /// Live datasets after the deletion.
    pub remaining: usize,
}

/// Hides `names` in the collection in `dir` by writing `deleted.mask` once:
/// the mask as it is now, plus the new ordinals, written to a temporary file
/// and renamed over the old one, so a reader sees the old mask or the new one.
/// The mask is bound to the container it was computed against: should that
/// container be replaced meanwhile, the mask hides nothing in the new one.
///
/// A name that is absent or already hidden fails the whole call, unless
/// `missing_ok`, which reports it instead. The container never changes, so
/// no ordinal moves and no space comes back; [`rewrite`](super::rewrite) does that.
pub fn delete_datasets<S: AsRef<str>>(
    dir: impl AsRef<Path>,
    names: &[S],
    missing_ok: bool,
) -> Result<Deletion> {
    let dir = dir.as_ref();
    let mut seen = BTreeSet::new();
    let wanted: Vec<&str> = names
        .iter()
        .map(AsRef::as_ref)
        .filter(|n| seen.insert(*n))
        .collect();
    // The open reads the mask fresh, so deletes made since are kept.
    let atlas = futures_executor::block_on(Atlas::open_path(dir))?;
    let footer = atlas.footer();
    let mut ordinals: BTreeSet<u32> = atlas.deleted_ordinals().clone();
    let (mut removed, mut missing) = (Vec::new(), Vec::new());
    for name in wanted {
        match footer.datasets.ordinal_of(name) {
            Some(ordinal) if !ordinals.contains(&ordinal) => {
                ordinals.insert(ordinal);
                removed.push(name.to_string());
            }
            _ => missing.push(name.to_string()),
        }
    }
    if !missing.is_empty() && !missing_ok {
        return Err(Error::DatasetNotFound(missing.join(", ")));
    }
    if !removed.is_empty() {
        let mask = encode_bound_mask(&ordinals, &binding_of(&atlas));
        write_atomically(&dir.join(MASK_FILE), &mask)?;
    }
    Ok(Deletion {
        removed,
        missing,
        remaining: footer.datasets.len() - ordinals.len(),
    })
}

/// The container an open collection read, as a mask binds to it.
pub(crate) fn binding_of(atlas: &Atlas) -> MaskBinding {
    MaskBinding {
        container_bytes: atlas.container_bytes(),
        created_unix_ms: atlas.created_unix_ms(),
        dataset_count: atlas.footer().datasets.len() as u32,
    }
}

/// Writes `bytes` to a temporary sibling of `path`, syncs it, renames it
/// into place and syncs the directory, so the rename survives a power cut.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let staging = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&staging)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        crash_point("mask-staged");
        std::fs::rename(&staging, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&staging);
        return Err(io_at(e, path));
    }
    crash_point("mask-renamed");
    sync_dir(path)
}
