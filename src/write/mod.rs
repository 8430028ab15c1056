//! The native writer (feature `writer`): build a collection that atlas-rust
//! 0.17.2 would have built from the same calls, byte for byte in every
//! segment, with bounded memory and nothing visible until it is finished.
//!
//! - [`AtlasWriter`] / [`DatasetWriter`]: build a collection in a directory.
//! - [`delete_datasets`]: hide datasets through `deleted.mask`, atomically.
//! - [`rewrite`]: copy a collection's live datasets into a new one.
//! - [`merge`]: join collections built apart into one, blocks copied as they are.
//!
//! All bytes come from [`crate::format`]; this module decides what to put
//! in them: chunk placement, block packing, statistics, pools and order.

mod blocks;
mod chunk;
mod collection;
pub(crate) mod durable;
mod element;
mod install;
mod interner;
pub(crate) mod mask;
pub(crate) mod merge;
mod pool;
mod pools;
mod rewrite;
mod stats;
mod variable;

pub use collection::{AtlasWriter, DatasetWriter};
pub use element::{Cells, WriteElement};
pub use install::abandon_unfinished;
pub use mask::{delete_datasets, Deletion};
pub use merge::{merge, MergeSummary};
pub use rewrite::{rewrite, RewriteSummary};

use crate::error::{Error, Result};
pub use crate::format::footer::Codec;

/// The container's name inside a collection directory.
pub const DATA_FILE: &str = "data.atlas";
/// The deletion mask's name inside a collection directory.
pub const MASK_FILE: &str = "deleted.mask";
/// array-format's and atlas-rust's default block size (8 MiB).
pub const DEFAULT_BLOCK_TARGET_SIZE: usize = 8 * 1024 * 1024;

/// How blocks are packed and compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterConfig {
    /// Block codec; the footer records it too.
    pub codec: Codec,
    /// Raw bytes of consecutive chunks packed into one block before it is
    /// compressed. Smaller blocks waste fewer bytes per ranged read.
    pub block_target_size: usize,
}

impl Default for WriterConfig {
    fn default() -> Self {
        Self {
            codec: Codec::Zstd,
            block_target_size: DEFAULT_BLOCK_TARGET_SIZE,
        }
    }
}

/// atlas-rust's name rule for datasets and arrays: not empty, no `/`, no
/// leading `_` (reserved, e.g. `_datasets`), not `.` or `..`.
pub fn validate_name(name: &str) -> Result<()> {
    if name.is_empty() || name.starts_with('_') || name.contains('/') || name == "." || name == ".."
    {
        return Err(Error::InvalidArgument(format!(
            "invalid name '{name}': a name is not empty, has no '/', does not start with '_', and is not '.' or '..'"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_atlas_rust() {
        for ok in ["t2m", "a.b", "jan.nc", "é"] {
            validate_name(ok).unwrap();
        }
        for bad in ["", "_datasets", "a/b", ".", ".."] {
            assert_eq!(
                validate_name(bad).unwrap_err().code(),
                "InvalidArgument",
                "{bad}"
            );
        }
    }
}
