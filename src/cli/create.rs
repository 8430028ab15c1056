//! `atlas create DIR DST`: atlas-python's command, its flags, its output.

use std::collections::BTreeMap;
use std::path::Path;

use atlas_wasm::ingest::{self, CreateOptions, CreateSummary, Event};
use atlas_wasm::write::Codec;

use super::log::{self, Level};
use super::py::Py;
use super::CliError;

/// The flags of `atlas create`, already parsed.
pub struct Flags {
    pub no_recursive: bool,
    pub codec: Codec,
    pub chunks: Option<String>,
    pub chunk_size: u64,
    pub skip_errors: bool,
    pub skip_unsupported: bool,
    pub workers: usize,
    pub no_decode_times: bool,
    pub quiet: bool,
    pub json: bool,
}

/// Runs the ingest; `Ok(false)` when files were skipped (exit status 1 in
/// text mode, as atlas-python).
pub fn run(directory: &str, destination: &str, flags: &Flags) -> Result<bool, CliError> {
    let options = CreateOptions {
        recursive: !flags.no_recursive,
        codec: flags.codec,
        chunks: parse_chunks(flags.chunks.as_deref())?,
        chunk_budget: flags.chunk_size,
        decode_times: !flags.no_decode_times,
        skip_errors: flags.skip_errors,
        skip_unsupported: flags.skip_unsupported,
        workers: flags.workers,
    };
    let mut width = 1;
    let mut on_event = |event: Event<'_>| match event {
        Event::Started { total } => {
            width = total.to_string().len();
            log::record(
                Level::Info,
                "create",
                &format!("ingesting {total} file(s) into {destination}"),
            );
            if !flags.quiet {
                eprintln!("Writing {destination} from {total} file(s)");
            }
        }
        Event::Written { name, done, total } => {
            log::record(
                Level::Info,
                "create",
                &format!("[{done}/{total}] wrote {name}"),
            );
            if !flags.quiet {
                eprintln!("  [{done:>width$}/{total}] {name}  ({} left)", total - done);
            }
        }
        Event::SkippedFile(s) => log::record(
            Level::Warning,
            "create",
            &format!("skipping {}: {}", s.file.display(), s.error),
        ),
        Event::SkippedArray(s) => log::record(
            Level::Warning,
            "create",
            &format!(
                "{}: skipped array '{}' of dtype {}: {}",
                s.dataset, s.array, s.dtype, s.error
            ),
        ),
    };
    let summary = ingest::create(
        Path::new(directory),
        Path::new(destination),
        &options,
        &mut on_event,
    )
    .map_err(|e| CliError::new(e.to_string()))?;
    log::record(
        Level::Info,
        "create",
        &format!(
            "wrote {} dataset(s); skipped {} file(s) and {} array(s)",
            summary.written.len(),
            summary.skipped.len(),
            summary.skipped_arrays.len()
        ),
    );
    if flags.json {
        super::print(&(to_py(&summary, destination).json() + "\n"))?;
        return Ok(true);
    }
    super::print(&format!(
        "{} dataset(s) written to {destination}\n",
        summary.written.len()
    ))?;
    for s in &summary.skipped_arrays {
        eprintln!("  skipped array {}/{} ({})", s.dataset, s.array, s.dtype);
    }
    for s in &summary.skipped {
        eprintln!("  skipped {}: {}", s.file.display(), s.error);
    }
    Ok(summary.skipped.is_empty())
}

/// `--chunks '{"t2m": [1, 90, 180]}'`.
fn parse_chunks(text: Option<&str>) -> Result<BTreeMap<String, Vec<u64>>, CliError> {
    let Some(text) = text else {
        return Ok(BTreeMap::new());
    };
    let bad = |why: String| {
        CliError::new(format!("--chunks must be a JSON object of integer lists, e.g. '{{\"t2m\": [1, 90, 180]}}': {why}"))
    };
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    let object = value
        .as_object()
        .ok_or_else(|| bad("not an object".into()))?;
    object
        .iter()
        .map(|(name, shape)| {
            let shape = shape
                .as_array()
                .ok_or_else(|| bad(format!("{name:?} is not a list")))?
                .iter()
                .map(|n| {
                    n.as_u64().ok_or_else(|| {
                        bad(format!("{name:?} holds {n}, not a non-negative integer"))
                    })
                })
                .collect::<Result<Vec<u64>, _>>()?;
            Ok((name.clone(), shape))
        })
        .collect()
}

/// The summary in atlas-python's JSON shape.
fn to_py(summary: &CreateSummary, destination: &str) -> Py {
    Py::dict([
        ("destination", Py::str(destination)),
        (
            "written",
            Py::List(
                summary
                    .written
                    .iter()
                    .map(|n| Py::str(n.as_str()))
                    .collect(),
            ),
        ),
        (
            "skipped",
            Py::List(
                summary
                    .skipped
                    .iter()
                    .map(|s| {
                        Py::dict([
                            ("file", Py::str(s.file.display().to_string())),
                            ("error", Py::str(s.error.as_str())),
                        ])
                    })
                    .collect(),
            ),
        ),
        (
            "skipped_arrays",
            Py::List(
                summary
                    .skipped_arrays
                    .iter()
                    .map(|s| {
                        Py::dict([
                            ("array", Py::str(s.array.as_str())),
                            ("dtype", Py::str(s.dtype.as_str())),
                            ("error", Py::str(s.error.as_str())),
                            ("dataset", Py::str(s.dataset.as_str())),
                        ])
                    })
                    .collect(),
            ),
        ),
        ("dataset_count", Py::int(summary.written.len() as i64)),
    ])
}
