//! `atlas rewrite SOURCE DESTINATION`: a copy without the removed
//! datasets, its blocks packed again.

use std::path::PathBuf;

use crate::write::{rewrite, WriterConfig};
use crate::ReadOptions;

use super::args::{parse_block_size, CodecArg, Json};
use super::interrupt::TempDir;
use super::output::{emit, human_bytes, progress};
use super::py::Py;
use super::{sources, CliError};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// the collection to copy: a local directory or an http(s):// URL
    source: String,
    /// a local directory for the new collection
    destination: String,
    /// block compression (default: the source's)
    #[arg(long, value_enum)]
    codec: Option<CodecArg>,
    /// raw bytes per block before compression, e.g. 8MiB, 512KiB, 65536, or
    /// `worker` (256KiB: one window read decodes in about a millisecond, for
    /// Cloudflare Workers' CPU limits)
    #[arg(long, default_value = "8MiB", value_parser = parse_block_size)]
    block_size: usize,
    #[command(flatten)]
    json: Json,
}

pub(crate) async fn run(args: Args) -> Result<(), CliError> {
    let Args {
        source,
        destination,
        codec,
        block_size,
        json,
    } = args;
    // A small cache: a rewrite reads each block about once.
    let options = ReadOptions {
        cache_bytes: 32 << 20,
        ..ReadOptions::default()
    };
    let atlas = sources::open(&source, options).await?;
    let codec = codec.map_or(atlas.codec(), Into::into);
    let config = WriterConfig {
        codec,
        block_target_size: block_size,
    };
    let bar = progress(atlas.dataset_count() as u64, "datasets");
    sources::local(&destination, "rewrite")?;
    // A bucket gets the finished container in one upload.
    let staging = sources::is_bucket(&destination).then(|| TempDir::new("atlas-rewrite"));
    let target = staging
        .as_ref()
        .map_or_else(|| PathBuf::from(&destination), |s| s.path().to_path_buf());
    let summary = rewrite(&atlas, &target, config, |done, _| {
        bar.set_position(done as u64)
    })
    .await?;
    bar.finish_and_clear();
    if let Some(staging) = staging {
        upload(&destination, staging.path())?;
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
            human_bytes(atlas.container_bytes()),
            human_bytes(summary.container_bytes)
        )
    })
}

#[cfg(feature = "cloud")]
fn upload(location: &str, dir: &std::path::Path) -> crate::Result<()> {
    super::bucket::upload_collection(location, dir)
}

#[cfg(not(feature = "cloud"))]
fn upload(location: &str, _: &std::path::Path) -> crate::Result<()> {
    Err(sources::no_buckets(location))
}
