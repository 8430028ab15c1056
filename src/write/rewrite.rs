//! Rewriting a collection: every live dataset copied into a new container,
//! value for value, with the writer's codec and block size.
//!
//! Chunks travel as stored bytes, decompressed and packed again, never
//! decoded: layouts, fills, never-written chunks and attributes come across
//! unchanged, and the statistics, recomputed from the same bytes, come out
//! as the source's writer computed them. Hidden datasets are left behind.

use std::path::Path;

use crate::error::Result;
use crate::read::Atlas;
use crate::write::{AtlasWriter, WriterConfig};

/// What a rewrite copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewriteSummary {
    /// Datasets written.
    pub datasets: usize,
    /// Hidden datasets dropped.
    pub dropped: usize,
    /// Chunks copied.
    pub chunks: u64,
    /// Size of the new `data.atlas`.
    pub container_bytes: u64,
}

/// Copies the live datasets of `source` into a new collection in `dest`.
/// `progress(done, total)` is called after each dataset.
///
/// Memory stays bounded: chunks are copied one at a time through the
/// source's block cache (open it with a modest `cache_bytes`), and the
/// writer spills blocks as it goes.
pub async fn rewrite(
    source: &Atlas,
    dest: impl AsRef<Path>,
    config: WriterConfig,
    mut progress: impl FnMut(usize, usize),
) -> Result<RewriteSummary> {
    let dest = dest.as_ref();
    let writer = AtlasWriter::create(dest, config)?;
    let names = source.list_datasets();
    let mut chunks = 0u64;
    for (done, name) in names.iter().enumerate() {
        let view = source.dataset(name)?;
        let mut out = writer.add_dataset(name)?;
        for array in view.list_arrays() {
            // The array is declared, so a segment without it is damage.
            let stored = view.stored_array(&array).await.map_err(|e| match e {
                crate::Error::ArrayNotFound { .. } => missing(name, &array),
                other => other,
            })?;
            let meta = stored.meta();
            let shape: Vec<u64> = meta.shape.iter().map(|&s| s as u64).collect();
            let chunk_shape: Vec<u64> = meta.chunk_shape.iter().map(|&s| s as u64).collect();
            out.define_dtype(
                &array,
                meta.dtype.clone(),
                meta.dimension_names.clone(),
                &shape,
                Some(&chunk_shape),
                meta.fill_value.clone(),
            )?;
            for entry in &meta.chunks {
                let bytes = stored.chunk(&entry.address).await?;
                out.write_raw_chunk(&array, entry.coord.clone(), &bytes)?;
                chunks += 1;
            }
            for (key, value) in view.array_attributes(&array).await? {
                out.set_array_attribute(&array, &key, value)?;
            }
        }
        for (key, value) in view.attributes().await? {
            out.set_attribute(&key, value);
        }
        out.finish()?;
        progress(done + 1, names.len());
    }
    writer.finish()?;
    let container_bytes = std::fs::metadata(dest.join(super::DATA_FILE))?.len();
    Ok(RewriteSummary {
        datasets: names.len(),
        dropped: source.deleted_count(),
        chunks,
        container_bytes,
    })
}

fn missing(dataset: &str, array: &str) -> crate::Error {
    crate::Error::corrupt_collection(format!(
        "dataset '{dataset}' declares '{array}', but its segment does not hold it"
    ))
}
