//! `atlas create DIR DST`: atlas-python's command, its flags, its output.

use std::collections::BTreeMap;
use std::path::Path;

use crate::ingest::{self, CreateOptions, CreateSummary, DimChunk, Event, OpenChunks, Part};

use super::args::{parse_size, CodecArg, Json};
use super::log::{self, Level};
use super::output::print;
use super::py::Py;
use super::{sources, CliError, Outcome};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// directory holding the NetCDF files
    directory: String,
    /// where to write the collection (a local directory)
    destination: String,
    /// scan the top directory alone (the scan descends by default)
    #[arg(long)]
    no_recursive: bool,
    /// block compression
    #[arg(long, value_enum, default_value = "zstd")]
    codec: CodecArg,
    /// per-variable stored chunk shape, e.g. '{"temperature": [64, 64]}'
    #[arg(long, value_name = "JSON")]
    chunks: Option<String>,
    /// how to read the source files: 'auto' (whole up to --chunk-size, else
    /// dask-like blocks), 'native' (the file's own chunking), 'none' (each
    /// variable whole), or a JSON dict of per-dimension sizes; this also sets
    /// the stored chunk shape, unless --chunks says otherwise
    #[arg(long, value_name = "MODE", default_value = "auto")]
    open_chunks: String,
    /// bytes of one variable read at a time, and the largest automatic chunk
    #[arg(long, value_name = "SIZE", default_value = "128MiB", value_parser = parse_size)]
    chunk_size: usize,
    /// skip files that fail instead of abandoning the collection
    #[arg(long)]
    skip_errors: bool,
    /// read and write N files at once (libnetcdf calls still take turns); ordinals do not move
    #[arg(short = 'j', long = "workers", value_name = "N", default_value_t = 1)]
    workers: usize,
    /// keep time axes as raw numbers with their units
    #[arg(long)]
    no_decode_times: bool,
    /// turn a time axis on a calendar numpy cannot hold (e.g. Julian) into
    /// exact Gregorian timestamps of the same instants
    #[arg(long)]
    convert_calendar: bool,
    /// leave out arrays of a type atlas cannot store instead of failing the file
    #[arg(long)]
    skip_unsupported: bool,
    /// build only the I-th of N contiguous shares of the sorted file list
    /// (e.g. 2/8), to be joined with `atlas merge`
    #[arg(long, value_name = "I/N")]
    part: Option<String>,
    /// do not list files as they are written
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    json: Json,
}

/// Runs the ingest; [`Outcome::Partial`] when files were skipped (exit
/// status 1 in text mode, as atlas-python).
pub(crate) fn run(args: Args) -> Result<Outcome, CliError> {
    let (directory, destination) = (args.directory.as_str(), args.destination.as_str());
    sources::local(destination, "create")?;
    let options = CreateOptions {
        recursive: !args.no_recursive,
        codec: args.codec.into(),
        chunks: parse_chunks(args.chunks.as_deref())?,
        open_chunks: parse_open_chunks(&args.open_chunks)?,
        convert_calendar: args.convert_calendar,
        chunk_budget: args.chunk_size as u64,
        decode_times: !args.no_decode_times,
        skip_errors: args.skip_errors,
        skip_unsupported: args.skip_unsupported,
        workers: args.workers,
        part: args
            .part
            .as_deref()
            .map(Part::parse)
            .transpose()
            .map_err(|e| CliError::new(e.to_string()))?,
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
            if !args.quiet {
                eprintln!("Writing {destination} from {total} file(s)");
            }
        }
        Event::Written { name, done, total } => {
            log::record(
                Level::Info,
                "create",
                &format!("[{done}/{total}] wrote {name}"),
            );
            if !args.quiet {
                eprintln!("  [{done:>width$}/{total}] {name}  ({} left)", total - done);
            }
        }
        Event::SkippedFile(s) => log::record(
            Level::Warning,
            "create",
            &format!("skipping {}: {}", s.file.display(), s.error),
        ),
        Event::Warning { file, message } => {
            log::record(
                Level::Warning,
                "create",
                &format!("{}: {message}", file.display()),
            );
            eprintln!("warning: {}: {message}", file.display());
        }
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
    if args.json.json {
        print(&(to_py(&summary, destination, options.part).json() + "\n"))?;
        return Ok(Outcome::Done);
    }
    print(&format!(
        "{} dataset(s) written to {destination}\n",
        summary.written.len()
    ))?;
    for s in &summary.skipped_arrays {
        eprintln!("  skipped array {}/{} ({})", s.dataset, s.array, s.dtype);
    }
    for s in &summary.skipped {
        eprintln!("  skipped {}: {}", s.file.display(), s.error);
    }
    Ok(if summary.skipped.is_empty() {
        Outcome::Done
    } else {
        Outcome::Partial
    })
}

/// `--open-chunks`: a mode name or a JSON dict of dimension sizes, in
/// atlas-python's words when it is neither.
fn parse_open_chunks(text: &str) -> Result<OpenChunks, CliError> {
    match text {
        "auto" => return Ok(OpenChunks::Auto),
        "native" => return Ok(OpenChunks::Native),
        "none" => return Ok(OpenChunks::Whole),
        _ => {}
    }
    let value: serde_json::Value = serde_json::from_str(text).map_err(|_| {
        CliError::new(format!(
            "--open-chunks must be auto, native, none, or a JSON dict; got '{text}'"
        ))
    })?;
    let object = value.as_object().ok_or_else(|| {
        CliError::new("--open-chunks JSON must be an object, e.g. '{\"time\": 100}'")
    })?;
    let mut sizes = BTreeMap::new();
    for (dim, size) in object {
        let chunk = match size {
            serde_json::Value::Null => DimChunk::Native,
            n if n.as_i64() == Some(-1) => DimChunk::Full,
            n => match n.as_u64() {
                Some(n) if n > 0 => DimChunk::Size(n),
                _ => {
                    return Err(CliError::new(format!(
                        "--open-chunks gives dimension {dim:?} {size}: a size is a positive integer, -1 for the whole dimension, or null for the file's chunking"
                    )))
                }
            },
        };
        sizes.insert(dim.clone(), chunk);
    }
    Ok(OpenChunks::Dims(sizes))
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
/// With `--part`, a `part` entry says which share and which files.
fn to_py(summary: &CreateSummary, destination: &str, part: Option<Part>) -> Py {
    let mut dict = Py::dict([
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
    ]);
    if let (Some(part), Py::Dict(entries)) = (part, &mut dict) {
        let files = summary.files.iter();
        entries.push((
            "part".into(),
            Py::dict([
                ("index", Py::int(part.index as i64)),
                ("count", Py::int(part.count as i64)),
                (
                    "files",
                    Py::List(files.map(|f| Py::str(f.display().to_string())).collect()),
                ),
            ]),
        ));
    }
    dict
}
