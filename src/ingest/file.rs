//! One NetCDF file into one dataset: plan it, then define and stream each
//! array chunk by chunk, then the attributes and the coordinate marker.

use std::borrow::Cow;
use std::path::Path;

use crate::format::value::Attr;
use crate::ingest::attrs::json_string_list;
use crate::ingest::chunking::{boxes, stored_chunks};
use crate::ingest::classic;
use crate::ingest::plan::{plan_dataset, Unsupported};
use crate::ingest::source::{Decoded, NetcdfThread};
use crate::ingest::{CreateOptions, COORDS_ATTR};
use crate::pytext::str_repr;
use crate::write::{Cells, DatasetWriter};

/// What a file that landed left out, and what atlas-python warns of.
#[derive(Debug, Default)]
pub(crate) struct Landed {
    /// Arrays left out under `skip_unsupported`.
    pub skipped: Vec<Unsupported>,
    /// atlas-python's warnings, in its words.
    pub warnings: Vec<String>,
}

/// Fills `dataset` from the file at `path` and commits it. An error leaves
/// the dataset uncommitted (the writer forgets it when it is dropped).
pub(crate) fn ingest_file(
    netcdf: &NetcdfThread,
    path: &Path,
    mut dataset: DatasetWriter,
    options: &CreateOptions,
) -> Result<Landed, String> {
    classic::check_complete(path)?;
    let file = netcdf.open(path)?;
    let (variables, globals) = file.describe()?;
    let plan = plan_dataset(
        &variables,
        &globals,
        options.decode_times,
        options.convert_calendar,
    )?;
    let mut skipped = Vec::new();
    let mut warnings = Vec::new();
    let mut arrays = Vec::new();
    for variable in plan.variables {
        match variable {
            Ok(v) => arrays.push(v),
            Err(u) if options.skip_unsupported => skipped.push(u),
            Err(u) => return Err(u.reason),
        }
    }
    let write_error = |e: crate::Error| e.to_string();
    for array in &arrays {
        warnings.extend(array.warnings.iter().cloned());
        let explicit = options.chunks.get(&array.name).map(Vec::as_slice);
        let chunks = stored_chunks(array, explicit, &options.open_chunks, options.chunk_budget)?;
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
        // One box read ahead: libnetcdf reads (and inflates) the next chunk
        // while this thread decodes and stores the current one.
        let mut boxes = boxes(&array.shape, chunks.as_deref()).peekable();
        let mut missing_strings = 0usize;
        let mut next = match boxes.peek() {
            Some((start, count)) => Some(file.request(array, start, count)?),
            None => None,
        };
        while let Some((start, count)) = boxes.next() {
            let (start, count) = (&start, &count);
            let current = next.take().expect("requested one box ahead");
            if let Some((s, c)) = boxes.peek() {
                next = Some(file.request(array, s, c)?);
            }
            // Fixed-width bytes move into the writer's block; strings are lent.
            match current.decode(array)? {
                Decoded::Fixed(bytes) => {
                    dataset.write_cells(&array.name, start, count, Cells::Fixed(Cow::Owned(bytes)))
                }
                Decoded::Strings(items, filled) => {
                    missing_strings += filled;
                    let cells = Cells::Var(items.iter().map(Vec::as_slice).collect());
                    dataset.write_cells(&array.name, start, count, cells)
                }
            }
            .map_err(write_error)?;
        }
        if missing_strings > 0 {
            warnings.push(format!(
                "{}: replaced {missing_strings} missing string cell(s) (None/NaN) with ''. Atlas cannot store a missing string as null",
                str_repr(&array.name)
            ));
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
    Ok(Landed { skipped, warnings })
}
