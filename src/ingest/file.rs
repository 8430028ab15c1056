//! One NetCDF file into one dataset: plan it, then define and stream each
//! array chunk by chunk, then the attributes and the coordinate marker.

use std::path::Path;

use crate::format::value::Attr;
use crate::ingest::attrs::json_string_list;
use crate::ingest::chunking::{boxes, stored_chunks};
use crate::ingest::plan::{plan_dataset, Unsupported};
use crate::ingest::source::NcFile;
use crate::ingest::{CreateOptions, COORDS_ATTR};
use crate::write::DatasetWriter;

/// Atlas-python's rule for a small file: read whole when the file is at most
/// a quarter of the budget (room for it to grow as it decompresses).
const WHOLE_FILE_DIVISOR: u64 = 4;

/// Fills `dataset` from the file at `path` and commits it. Returns the
/// arrays left out under `skip_unsupported`; an error leaves the dataset
/// uncommitted (the writer forgets it when it is dropped).
pub(crate) fn ingest_file(
    path: &Path,
    mut dataset: DatasetWriter,
    options: &CreateOptions,
) -> Result<Vec<Unsupported>, String> {
    let file = NcFile::open(path)?;
    let plan = plan_dataset(&file.variables()?, &file.globals()?, options.decode_times)?;
    let mut skipped = Vec::new();
    let mut arrays = Vec::new();
    for variable in plan.variables {
        match variable {
            Ok(v) => arrays.push(v),
            Err(u) if options.skip_unsupported => skipped.push(u),
            Err(u) => return Err(u.reason),
        }
    }
    let size = std::fs::metadata(path).map_or(u64::MAX, |m| m.len());
    let small_file = size.saturating_mul(WHOLE_FILE_DIVISOR) <= options.chunk_budget;
    let write_error = |e: crate::Error| e.to_string();
    for array in &arrays {
        let explicit = options.chunks.get(&array.name).map(Vec::as_slice);
        let chunks = stored_chunks(array, explicit, small_file, options.chunk_budget)?;
        dataset
            .define_dtype(
                &array.name,
                array.dtype.clone(),
                array.dims.clone(),
                &array.shape,
                chunks.as_deref(),
                array.fill.clone(),
            )
            .map_err(write_error)?;
        for (start, count) in boxes(&array.shape, chunks.as_deref()) {
            let values = file.read(array, &start, &count)?;
            dataset
                .write_cells(&array.name, &start, &count, &values.cells())
                .map_err(write_error)?;
        }
        for (key, value) in &array.attrs {
            dataset
                .set_array_attribute(&array.name, key, value.clone())
                .map_err(write_error)?;
        }
    }
    for (key, value) in plan.attrs {
        dataset.set_attribute(&key, value);
    }
    let kept: Vec<&String> = plan
        .coords
        .iter()
        .filter(|c| arrays.iter().any(|a| &a.name == *c))
        .collect();
    dataset.set_attribute(COORDS_ATTR, Attr::String(json_string_list(&kept)));
    dataset.finish().map_err(write_error)?;
    Ok(skipped)
}
