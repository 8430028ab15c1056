//! The `atlas` command: atlas-python's `ls`, `show`, `info` and `rm`, with
//! the same output, plus `get` and `rewrite`. Every reading command takes a
//! local directory or an `http(s)://` URL of one.

#[cfg(feature = "cloud")]
mod cloud;
mod create;
mod describe;
mod get;
mod http;
mod log;
mod py;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use atlas_wasm::source::FileSource;
use atlas_wasm::write::{delete_datasets, rewrite, Codec, WriterConfig, DATA_FILE, MASK_FILE};
use atlas_wasm::{Atlas, ByteSource, Error, ReadOptions};
use clap::{Args, Parser, Subcommand};

use py::Py;

#[derive(Parser)]
#[command(
    name = "atlas",
    version,
    about = "Build, inspect, trim and rewrite atlas collections: thousands of N-dimensional datasets in one \
             immutable file, local or over HTTP.",
    after_help = "A collection is a local directory or an http(s):// URL of one. create, rm and rewrite write locally."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// append errors and warnings to this file
    #[arg(long, global = true, value_name = "PATH")]
    log_file: Option<PathBuf>,
}

#[derive(Args)]
struct Json {
    /// emit JSON instead of text
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum Command {
    /// build a collection from a directory of NetCDF files
    #[command(
        long_about = "Each NetCDF file becomes one dataset, named after the file. Variables are decoded as \
                            atlas-python decodes them (CF masking and scaling, times, character arrays) and \
                            streamed chunk by chunk. Nothing at the destination is readable until every file \
                            lands, so a failure leaves no half-built collection."
    )]
    Create {
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
        /// leave out arrays of a type atlas cannot store instead of failing the file
        #[arg(long)]
        skip_unsupported: bool,
        /// do not list files as they are written
        #[arg(short, long)]
        quiet: bool,
        #[command(flatten)]
        json: Json,
    },
    /// list the datasets in a collection
    #[command(long_about = "Removed datasets are not listed.")]
    Ls {
        /// a local directory, or an http(s):// URL of one
        collection: String,
        #[command(flatten)]
        json: Json,
    },
    /// show one dataset in ncdump style
    #[command(
        long_about = "Dimensions, and for every array its type, shape, chunking, fill value, attributes, and \
                            the statistics the write recorded."
    )]
    Show {
        /// a local directory, or an http(s):// URL of one
        collection: String,
        /// dataset name, or the NetCDF file it came from
        name: String,
        #[command(flatten)]
        json: Json,
    },
    /// summarise the whole collection
    #[command(
        long_about = "Dataset counts, size, codec, and one set of statistics per distinct array, over the \
                            whole collection. Datasets that declare an array with another dtype than the first \
                            one stay out of its statistics."
    )]
    Info {
        /// a local directory, or an http(s):// URL of one
        collection: String,
        #[command(flatten)]
        json: Json,
    },
    /// remove datasets from a collection
    #[command(
        long_about = "Updates the deletion mask beside the container, in one atomic write. The container \
                            does not change, so this reclaims no space and moves no ordinal (rewrite does). A \
                            name is a dataset name or a NetCDF path."
    )]
    Rm {
        /// a local directory, or an http(s):// URL of one
        collection: String,
        /// dataset names, or the NetCDF files they came from
        #[arg(required = true)]
        names: Vec<String>,
        /// report names that are absent instead of failing
        #[arg(long)]
        missing_ok: bool,
        #[command(flatten)]
        json: Json,
    },
    /// export a window of one array
    #[command(
        long_about = "Writes a window of one array to standard output or a file. npy loads straight into \
                            NumPy; raw is little-endian C order with strings NUL-separated; json lists the \
                            elements flat in C order."
    )]
    Get {
        /// a local directory, or an http(s):// URL of one
        collection: String,
        /// dataset name
        dataset: String,
        /// array name
        array: String,
        /// first element of the window, e.g. 0,10 (default: the origin)
        #[arg(long, value_delimiter = ',')]
        start: Vec<u64>,
        /// extent of the window, e.g. 2,5 (default: to the end)
        #[arg(long, value_delimiter = ',')]
        shape: Vec<u64>,
        /// npy (NumPy), json, or raw little-endian bytes
        #[arg(long, value_enum, default_value = "npy")]
        format: Format,
        /// write here instead of standard output
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// rewrite a collection: drop removed datasets, repack blocks
    #[command(
        long_about = "Copies every live dataset into a new collection, value for value: layouts, fill \
                            values, attributes and statistics are kept, removed datasets and their bytes are \
                            not. The blocks are packed again with --codec and --block-size: smaller blocks \
                            waste fewer bytes per ranged read in a browser. Nothing at the destination is \
                            readable until the copy is complete."
    )]
    Rewrite {
        /// the collection to copy: a local directory or an http(s):// URL
        source: String,
        /// a local directory for the new collection
        destination: String,
        /// block compression (default: the source's)
        #[arg(long, value_enum)]
        codec: Option<CodecArg>,
        /// raw bytes per block before compression, e.g. 8MiB, 512KiB, 65536
        #[arg(long, default_value = "8MiB", value_parser = parse_size)]
        block_size: usize,
        #[command(flatten)]
        json: Json,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Npy,
    Json,
    Raw,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum CodecArg {
    Zstd,
    Lz4,
    None,
}

impl From<CodecArg> for Codec {
    fn from(codec: CodecArg) -> Codec {
        match codec {
            CodecArg::Zstd => Codec::Zstd,
            CodecArg::Lz4 => Codec::Lz4,
            CodecArg::None => Codec::Uncompressed,
        }
    }
}

/// An error the user sees as one line: `atlas: message`.
#[derive(Debug)]
pub struct CliError(String);

impl CliError {
    pub fn new(message: impl Into<String>) -> Self {
        CliError(message.into())
    }
}

impl From<Error> for CliError {
    fn from(e: Error) -> Self {
        CliError(e.to_string())
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError(e.to_string())
    }
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(path) = &cli.log_file {
        if let Err(e) = log::open(path) {
            eprintln!("atlas: cannot open log file: {e}");
            return ExitCode::FAILURE;
        }
        // Say where it went, so nobody has to guess.
        eprintln!(
            "atlas: logging to {}",
            std::path::absolute(path).unwrap_or(path.clone()).display()
        );
        let args: Vec<String> = std::env::args().skip(1).collect();
        log::record(
            log::Level::Info,
            "cli",
            &format!("atlas {}: {}", env!("CARGO_PKG_VERSION"), args.join(" ")),
        );
    }
    let mut partial = false;
    // `rm` and `create` block on their own, so they run outside the executor.
    let result = match cli.command {
        Command::Create {
            directory,
            destination,
            no_recursive,
            codec,
            chunks,
            chunk_size,
            skip_errors,
            workers,
            no_decode_times,
            skip_unsupported,
            quiet,
            json,
        } => {
            let flags = create::Flags {
                no_recursive,
                codec: codec.into(),
                chunks,
                chunk_size: chunk_size as u64,
                skip_errors,
                skip_unsupported,
                workers,
                no_decode_times,
                quiet,
                json: json.json,
            };
            local(&destination, "create")
                .and_then(|_| create::run(&directory, &destination, &flags))
                .map(|complete| {
                    partial = !complete;
                })
        }
        Command::Rm {
            collection,
            names,
            missing_ok,
            json,
        } => remove(&collection, &names, missing_ok, json.json),
        command => futures_executor::block_on(run(command)),
    };
    match result {
        Ok(()) if partial => ExitCode::FAILURE,
        Ok(()) => ExitCode::SUCCESS,
        // `atlas ls … | head` closes the pipe: not an error.
        Err(e) if e.0.contains("Broken pipe") => ExitCode::SUCCESS,
        Err(e) => {
            log::record(log::Level::Error, "cli", &e.0);
            eprintln!("atlas: {}", e.0.replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}

fn print(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn emit(value: &Py, json: bool, render: impl FnOnce(&Py) -> String) -> Result<(), CliError> {
    if json {
        print(&(value.json() + "\n"))
    } else {
        print(&render(value))
    }
}

async fn run(command: Command) -> Result<(), CliError> {
    match command {
        Command::Ls { collection, json } => {
            let atlas = open(&collection, ReadOptions::default()).await?;
            let names = atlas.list_datasets();
            let value = Py::List(names.iter().map(|n| Py::str(n.as_str())).collect());
            emit(&value, json.json, |_| {
                if names.is_empty() {
                    String::new()
                } else {
                    names.join("\n") + "\n"
                }
            })
        }
        Command::Show {
            collection,
            name,
            json,
        } => {
            let atlas = open(&collection, ReadOptions::default()).await?;
            let detail = describe::dataset(&atlas, &dataset_name(&name)).await?;
            emit(&detail, json.json, describe::render_dataset)
        }
        Command::Info { collection, json } => {
            let atlas = open(&collection, ReadOptions::default()).await?;
            let summary = describe::info(&atlas, &collection).await?;
            emit(&summary, json.json, describe::render_info)
        }
        Command::Rm { .. } | Command::Create { .. } => unreachable!("main runs rm and create"),
        Command::Get {
            collection,
            dataset,
            array,
            start,
            shape,
            format,
            output,
        } => {
            let atlas = open(&collection, ReadOptions::default()).await?;
            let view = atlas.dataset(&dataset).map_err(|_| {
                CliError::new(format!(
                    "no dataset '{dataset}' in the collection (it may have been removed)"
                ))
            })?;
            let full = view.array_layout(&array).await?.shape;
            let start = if start.is_empty() {
                vec![0; full.len()]
            } else {
                start
            };
            let shape = if shape.is_empty() {
                full.iter()
                    .zip(&start)
                    .map(|(&f, &s)| f.saturating_sub(s))
                    .collect()
            } else {
                shape
            };
            let window = view.read_array(&array, &start, &shape).await?;
            let bytes = match format {
                Format::Npy => get::npy(&window),
                Format::Raw => get::raw(&window.data),
                Format::Json => {
                    (get::json(&window, &dataset, &array, &start).json() + "\n").into_bytes()
                }
            };
            match output {
                Some(path) => std::fs::write(&path, bytes)
                    .map_err(|e| CliError::new(format!("{}: {e}", path.display()))),
                None => {
                    let mut out = std::io::stdout().lock();
                    out.write_all(&bytes)?;
                    out.flush().map_err(CliError::from)
                }
            }
        }
        Command::Rewrite {
            source,
            destination,
            codec,
            block_size,
            json,
        } => {
            // A small cache: a rewrite reads each block about once.
            let options = ReadOptions {
                cache_bytes: 32 << 20,
                ..ReadOptions::default()
            };
            let atlas = open(&source, options).await?;
            let codec = codec.map_or(atlas.codec(), Codec::from);
            let config = WriterConfig {
                codec,
                block_target_size: block_size,
            };
            let bar = progress(atlas.dataset_count() as u64);
            if is_url(&destination) {
                local(&destination, "rewrite")?;
            }
            // A bucket gets the finished container in one upload.
            let staging = is_bucket(&destination).then(|| {
                std::env::temp_dir().join(format!("atlas-rewrite-{}", std::process::id()))
            });
            let target = staging
                .clone()
                .unwrap_or_else(|| PathBuf::from(&destination));
            let summary = rewrite(&atlas, &target, config, |done, _| {
                bar.set_position(done as u64)
            })
            .await?;
            bar.finish_and_clear();
            if let Some(staging) = staging {
                let uploaded = upload(&destination, &staging);
                let _ = std::fs::remove_dir_all(&staging);
                uploaded?;
            }
            let value = Py::dict([
                ("source", Py::str(source.as_str())),
                ("destination", Py::str(destination.as_str())),
                ("datasets", Py::int(summary.datasets as u64)),
                ("dropped", Py::int(summary.dropped as u64)),
                ("chunks", Py::int(summary.chunks)),
                ("codec", Py::str(codec.name())),
                ("block_size", Py::int(block_size as u64)),
                ("source_bytes", Py::int(atlas.container_bytes())),
                ("container_bytes", Py::int(summary.container_bytes)),
            ]);
            emit(&value, json.json, |_| {
                format!(
                    "{} dataset(s) written to {} ({} removed dataset(s) dropped), {} -> {}\n",
                    summary.datasets,
                    destination,
                    summary.dropped,
                    describe::human_bytes(atlas.container_bytes()),
                    describe::human_bytes(summary.container_bytes)
                )
            })
        }
    }
}

fn remove(
    collection: &str,
    names: &[String],
    missing_ok: bool,
    json: bool,
) -> Result<(), CliError> {
    let wanted: Vec<String> = names.iter().map(|n| dataset_name(n)).collect();
    let done = if is_bucket(collection) {
        bucket_delete(collection, &wanted, missing_ok)
    } else {
        delete_datasets(local(collection, "rm")?, &wanted, missing_ok)
    };
    let done = match done {
        Err(Error::DatasetNotFound(names)) => {
            // Nothing was written; say which names, sorted, as atlas-python does.
            let mut missing: Vec<&str> = names.split(", ").collect();
            missing.sort();
            return Err(CliError::new(format!(
                "not in the collection (or already removed): {}",
                missing.join(", ")
            )));
        }
        other => other?,
    };
    let value = Py::dict([
        (
            "removed",
            Py::List(done.removed.iter().map(|n| Py::str(n.as_str())).collect()),
        ),
        (
            "missing",
            Py::List(done.missing.iter().map(|n| Py::str(n.as_str())).collect()),
        ),
        ("remaining", Py::int(done.remaining as u64)),
    ]);
    emit(&value, json, |_| {
        let mut out = String::new();
        if !done.removed.is_empty() {
            out.push_str(&format!(
                "removed {}: {}\n",
                done.removed.len(),
                done.removed.join(", ")
            ));
        }
        for name in &done.missing {
            eprintln!("  not present: {name}");
        }
        out.push_str(&format!("{} dataset(s) remain\n", done.remaining));
        out
    })
}

/// `rm` on a bucket: the same rule as [`delete_datasets`], and one PUT of
/// the whole mask (atomic in every object store).
#[cfg(feature = "cloud")]
fn bucket_delete(
    location: &str,
    wanted: &[String],
    missing_ok: bool,
) -> atlas_wasm::Result<atlas_wasm::write::Deletion> {
    let bucket = cloud::Bucket::open(location)?;
    let atlas = futures_executor::block_on(Atlas::open(
        bucket.source(DATA_FILE),
        Some(bucket.source(MASK_FILE)),
    ))?;
    let live: std::collections::HashSet<String> = atlas.list_datasets().into_iter().collect();
    let all = &atlas.footer().datasets;
    let mut ordinals: std::collections::BTreeSet<u32> = (0..all.len() as u32)
        .filter(|&i| !live.contains(all.get_index(i as usize).map_or("", |(n, _)| n.as_str())))
        .collect();
    let (mut removed, mut missing) = (Vec::new(), Vec::new());
    let mut seen = std::collections::HashSet::new();
    for name in wanted.iter().filter(|n| seen.insert(n.as_str())) {
        match all.get_index_of(name.as_str()) {
            Some(i) if live.contains(name) => {
                ordinals.insert(i as u32);
                removed.push(name.clone());
            }
            _ => missing.push(name.clone()),
        }
    }
    if !missing.is_empty() && !missing_ok {
        return Err(Error::DatasetNotFound(missing.join(", ")));
    }
    if !removed.is_empty() {
        bucket.put(MASK_FILE, atlas_wasm::format::mask::encode_mask(&ordinals))?;
    }
    Ok(atlas_wasm::write::Deletion {
        removed,
        missing,
        remaining: all.len() - ordinals.len(),
    })
}

#[cfg(not(feature = "cloud"))]
fn bucket_delete(
    location: &str,
    _: &[String],
    _: bool,
) -> atlas_wasm::Result<atlas_wasm::write::Deletion> {
    Err(Error::InvalidArgument(format!(
        "{location}: this atlas was built without bucket support (cargo feature `cloud`)"
    )))
}

/// Puts a finished local collection at a bucket prefix: the stale mask
/// goes first, then the container in one upload that appears whole.
#[cfg(feature = "cloud")]
fn upload(location: &str, dir: &std::path::Path) -> atlas_wasm::Result<()> {
    let bucket = cloud::Bucket::open(location)?;
    bucket.remove(MASK_FILE)?;
    bucket.upload(DATA_FILE, &dir.join(DATA_FILE))
}

#[cfg(not(feature = "cloud"))]
fn upload(location: &str, _: &std::path::Path) -> atlas_wasm::Result<()> {
    Err(Error::InvalidArgument(format!(
        "{location}: this atlas was built without bucket support (cargo feature `cloud`)"
    )))
}

/// A bar on standard error while a terminal watches, silent otherwise.
fn progress(total: u64) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {pos}/{len} datasets  {elapsed} (eta {eta})",
    ) {
        bar.set_style(style);
    }
    bar
}

#[cfg(feature = "cloud")]
fn is_bucket(location: &str) -> bool {
    cloud::is_bucket(location)
}

#[cfg(not(feature = "cloud"))]
fn is_bucket(location: &str) -> bool {
    ["s3://", "gs://", "az://"]
        .iter()
        .any(|s| location.starts_with(s))
}

type Sources = (Arc<dyn ByteSource>, Option<Arc<dyn ByteSource>>);

#[cfg(feature = "cloud")]
fn bucket_sources(location: &str) -> Result<Sources, CliError> {
    let bucket = cloud::Bucket::open(location)?;
    Ok((bucket.source(DATA_FILE), Some(bucket.source(MASK_FILE))))
}

#[cfg(not(feature = "cloud"))]
fn bucket_sources(location: &str) -> Result<Sources, CliError> {
    Err(CliError::new(format!(
        "{location}: this atlas was built without bucket support (cargo feature `cloud`)"
    )))
}

fn is_url(location: &str) -> bool {
    location.starts_with("http://") || location.starts_with("https://")
}

/// Opens a local directory or an http(s) URL of one.
async fn open(location: &str, options: ReadOptions) -> Result<Atlas, CliError> {
    let (data, mask): Sources = if is_url(location) {
        let base = location.trim_end_matches('/');
        (
            Arc::new(http::HttpSource::new(format!("{base}/{DATA_FILE}"))),
            Some(Arc::new(http::HttpSource::new(format!(
                "{base}/{MASK_FILE}"
            )))),
        )
    } else if is_bucket(location) {
        bucket_sources(location)?
    } else {
        let dir = PathBuf::from(location);
        let data = FileSource::open(dir.join(DATA_FILE))
            .map_err(|e| CliError::new(format!("{location} is not a collection ({e})")))?;
        let mask: Option<Arc<dyn ByteSource>> = match FileSource::open(dir.join(MASK_FILE)) {
            Ok(m) => Some(Arc::new(m)),
            Err(Error::NotFound(_)) => None,
            Err(e) => return Err(e.into()),
        };
        (Arc::new(data), mask)
    };
    Ok(Atlas::open_with(data, mask, options).await?)
}

fn local(location: &str, command: &str) -> Result<PathBuf, CliError> {
    if is_url(location) {
        return Err(CliError::new(format!(
            "{command} writes, and {location} is read-only over HTTP; use a local path"
        )));
    }
    Ok(PathBuf::from(location))
}

/// atlas-python's `dataset_name`: a NetCDF path names the dataset of its file name.
fn dataset_name(name: &str) -> String {
    std::path::Path::new(name)
        .file_name()
        .map_or_else(|| name.to_string(), |f| f.to_string_lossy().into_owned())
}

/// `8MiB`, `512KiB`, `64kB`, `65536`.
fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let number: f64 = number.parse().map_err(|_| format!("not a size: {text}"))?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "kib" => 1024.0,
        "m" | "mb" => 1e6,
        "mib" => 1024.0 * 1024.0,
        "g" | "gb" => 1e9,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        other => return Err(format!("unknown size unit '{other}' in {text}")),
    };
    Ok((number * scale) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_names_parse() {
        assert_eq!(parse_size("8MiB"), Ok(8 << 20));
        assert_eq!(parse_size("64kB"), Ok(64_000));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert_eq!(dataset_name("/data/2024/jan.nc"), "jan.nc");
        assert_eq!(dataset_name("jan.nc"), "jan.nc");
    }
}
