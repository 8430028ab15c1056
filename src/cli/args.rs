//! The command line: the top-level parser, the subcommands (each one's
//! flags live in its own file), and the flag types several commands share.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use super::{create, get, info, ls, merge, rewrite, rm, show};
use crate::write::Codec;

#[derive(Parser)]
#[command(
    name = "atlas",
    version,
    about = "Build, inspect, trim and rewrite atlas collections: thousands of N-dimensional datasets in one \
             immutable file, local or over HTTP.",
    after_help = "A collection is a local directory, an http(s):// URL of one, or (feature cloud) an s3://, gs:// or \
                  az:// prefix. create and import-atria write local directories; rm, rewrite and merge write \
                  buckets too; nothing writes over HTTP."
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// append errors and warnings to this file
    #[arg(long, global = true, value_name = "PATH")]
    pub log_file: Option<PathBuf>,
}

// The help text of each subcommand is here, on its variant; its flags are
// documented in its own file.
#[derive(Subcommand)]
pub(crate) enum Command {
    /// build a collection from a directory of NetCDF files
    #[command(
        long_about = "Each NetCDF file becomes one dataset, named after the file. Variables are decoded as \
                            atlas-python decodes them (CF masking and scaling, times, character arrays) and \
                            streamed chunk by chunk. Nothing at the destination is readable until every file \
                            lands, so a failure leaves no half-built collection."
    )]
    Create(create::Args),
    /// list the datasets in a collection
    #[command(long_about = "Removed datasets are not listed.")]
    Ls(ls::Args),
    /// show one dataset in ncdump style
    #[command(
        long_about = "Dimensions, and for every array its type, shape, chunking, fill value, attributes, and \
                            the statistics the write recorded."
    )]
    Show(show::Args),
    /// summarise the whole collection
    #[command(
        long_about = "Dataset counts, size, codec, and one set of statistics per distinct array, over the \
                            whole collection, merged over every live dataset as atlas-rust merges them, \
                            whatever each dataset's dtype."
    )]
    Info(info::Args),
    /// remove datasets from a collection
    #[command(
        long_about = "Updates the deletion mask beside the container, in one atomic write. The container \
                            does not change, so this reclaims no space and moves no ordinal (rewrite does). A \
                            name is a dataset name or a NetCDF path."
    )]
    Rm(rm::Args),
    /// export a window of one array
    #[command(
        long_about = "Writes a window of one array to standard output or a file. npy loads straight into \
                            NumPy; raw is little-endian C order with strings NUL-separated; json lists the \
                            elements flat in C order."
    )]
    Get(get::Args),
    /// rewrite a collection: drop removed datasets, repack blocks
    #[command(
        long_about = "Copies every live dataset into a new collection, value for value: layouts, fill \
                            values, attributes and statistics are kept, removed datasets and their bytes are \
                            not. The blocks are packed again with --codec and --block-size: smaller blocks \
                            waste fewer bytes per ranged read in a browser. Nothing at the destination is \
                            readable until the copy is complete."
    )]
    Rewrite(rewrite::Args),
    /// join collections built apart (`create --part`) into one
    #[command(
        long_about = "Writes one collection holding the parts' live datasets in part order, value for value. \
                            Each variable's compressed blocks are copied as they are (no decompression) and one \
                            new segment footer lists every dataset's array; the collection footer comes out as a \
                            single create would write it. A dataset name in two parts, parts of different codecs \
                            or a part that is not a collection fail, leaving the destination as it was."
    )]
    Merge(merge::Args),
    /// convert an Atria dataset cache into one collection per split
    #[cfg(feature = "atria")]
    #[command(
        long_about = "Reads an Atria cache's config directory (the DELTALAKE or the MSGPACK layout) and \
                            writes DST/{split}/data.atlas for each split: one dataset per sample, named by its \
                            key; scalar columns become dataset attributes, binary content a uint8 array, numpy \
                            values and number lists arrays. Wrong TAR pointers are recovered where the member \
                            can be found; a sample whose content cannot be found is reported and skipped \
                            (exit status 1)."
    )]
    ImportAtria(super::import_atria::Args),
}

/// `--json`, shared by every command that prints a result.
#[derive(clap::Args)]
pub(crate) struct Json {
    /// emit JSON instead of text
    #[arg(long)]
    pub json: bool,
}

/// `--codec`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum CodecArg {
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

/// `8MiB`, `512KiB`, `64kB`, `65536`.
/// The block size that keeps one window read well inside a Cloudflare
/// Worker's 10 ms of CPU on the free plan: a window read in a 256 KiB block
/// of floats costs under a millisecond in wasm, one in an 8 MiB block about
/// 10-11 ms (docs/benchmarks.md, "CPU per window read").
pub(crate) const WORKER_BLOCK_SIZE: usize = 256 * 1024;

/// A block size: a size, or `worker` for [`WORKER_BLOCK_SIZE`].
pub(crate) fn parse_block_size(text: &str) -> Result<usize, String> {
    match text.trim() {
        "worker" => Ok(WORKER_BLOCK_SIZE),
        _ => parse_size(text),
    }
}

pub(crate) fn parse_size(text: &str) -> Result<usize, String> {
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
    fn sizes_parse() {
        assert_eq!(parse_size("8MiB"), Ok(8 << 20));
        assert_eq!(parse_size("64kB"), Ok(64_000));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert_eq!(parse_block_size("worker"), Ok(256 << 10));
        assert_eq!(parse_block_size("1MiB"), Ok(1 << 20));
    }
}
