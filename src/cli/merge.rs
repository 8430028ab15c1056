//! `atlas merge PART... DST`: collections built apart (`create --part`)
//! joined into one, their blocks copied as they are.

use std::path::PathBuf;

use crate::write::merge::{check_destination, merge_parts, MergePart};

use super::args::Json;
use super::output::{emit, human_bytes, progress};
use super::py::Py;
use super::{sources, CliError};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// the parts, in order, then the destination (local directories or,
    /// with feature `cloud`, bucket prefixes: s3://, gs://, az://)
    #[arg(value_name = "PART... DST", required = true)]
    paths: Vec<String>,
    /// read the parts from FILE, one location per line (blank lines and
    /// lines starting with # are skipped); then only DST is given
    #[arg(long, value_name = "FILE")]
    list: Option<PathBuf>,
    #[command(flatten)]
    json: Json,
}

pub(crate) fn run(args: Args) -> Result<(), CliError> {
    let (parts, destination) = parts_and_destination(&args)?;
    let mut traffic = Traffic::default();
    let opened = parts
        .iter()
        .enumerate()
        .map(|(index, part)| open_part(part, index, &mut traffic))
        .collect::<Result<Vec<_>, _>>()?;
    // A bar over variables (segments), when standard error is a terminal.
    let mut bar = None;
    let on_segment = |done: usize, total: usize| {
        let bar = bar.get_or_insert_with(|| progress(total as u64, "segments"));
        bar.set_position(done as u64);
    };
    let summary = if sources::is_bucket(&destination) {
        merge_into_bucket(&destination, &opened, &mut traffic, on_segment)?
    } else {
        let dest = sources::local(&destination, "merge")?;
        check_destination(&opened, &dest)?;
        merge_parts(&opened, &dest, on_segment)?
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let value = Py::dict([
        ("destination", Py::str(destination.as_str())),
        ("parts", Py::int(summary.parts as u64)),
        ("datasets", Py::int(summary.datasets as u64)),
        ("dropped", Py::int(summary.dropped as u64)),
        ("variables", Py::int(summary.variables as u64)),
        ("blocks_copied", Py::int(summary.blocks_copied)),
        ("bytes_copied", Py::int(summary.bytes_copied)),
        ("blocks_left", Py::int(summary.blocks_left)),
        ("dead_bytes", Py::int(summary.dead_bytes)),
        ("container_bytes", Py::int(summary.container_bytes)),
        ("bucket_bytes_read", Py::int(traffic.downloaded())),
        ("bucket_bytes_written", Py::int(traffic.uploaded)),
    ]);
    emit(&value, args.json.json, |_| {
        format!(
            "{} dataset(s) from {} part(s) written to {} ({}; {} removed dataset(s) dropped)\n",
            summary.datasets,
            summary.parts,
            destination,
            human_bytes(summary.container_bytes),
            summary.dropped
        )
    })
}

/// `PART... DST`, or `--list FILE DST`.
fn parts_and_destination(args: &Args) -> Result<(Vec<String>, String), CliError> {
    let Some(list) = &args.list else {
        let (destination, parts) = args.paths.split_last().expect("clap requires one");
        if parts.is_empty() {
            return Err(CliError::new(
                "merge takes the parts and then the destination: atlas merge PART... DST",
            ));
        }
        return Ok((parts.to_vec(), destination.clone()));
    };
    let [destination] = args.paths.as_slice() else {
        return Err(CliError::new(
            "with --list, merge takes the destination alone: atlas merge --list FILE DST",
        ));
    };
    let text = std::fs::read_to_string(list)
        .map_err(|e| CliError::new(format!("{}: {e}", list.display())))?;
    let parts: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    if parts.is_empty() {
        return Err(CliError::new(format!("{} lists no part", list.display())));
    }
    Ok((parts, destination.clone()))
}

#[cfg(feature = "cloud")]
use super::bucket_merge::{merge_into_bucket, Traffic};

/// A local directory, or a bucket prefix.
fn open_part(location: &str, index: usize, traffic: &mut Traffic) -> Result<MergePart, CliError> {
    if sources::is_bucket(location) {
        return Ok(bucket_part(location, index, traffic)?);
    }
    Ok(MergePart::local(
        &sources::local(location, "merge")?,
        index,
    )?)
}

#[cfg(feature = "cloud")]
fn bucket_part(location: &str, index: usize, traffic: &mut Traffic) -> crate::Result<MergePart> {
    super::bucket_merge::open_part(location, index, traffic)
}

/// Without buckets: nothing travels, and a bucket location is refused.
#[cfg(not(feature = "cloud"))]
#[derive(Default)]
struct Traffic {
    uploaded: u64,
}

#[cfg(not(feature = "cloud"))]
impl Traffic {
    fn downloaded(&self) -> u64 {
        0
    }
}

#[cfg(not(feature = "cloud"))]
fn bucket_part(location: &str, _: usize, _: &mut Traffic) -> crate::Result<MergePart> {
    Err(sources::no_buckets(location))
}

#[cfg(not(feature = "cloud"))]
fn merge_into_bucket(
    location: &str,
    _: &[MergePart],
    _: &mut Traffic,
    _: impl FnMut(usize, usize),
) -> crate::Result<crate::write::MergeSummary> {
    Err(sources::no_buckets(location))
}
