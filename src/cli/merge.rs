//! `atlas merge PART... DST`: collections built apart (`create --part`)
//! joined into one, their blocks copied as they are.

use std::path::PathBuf;

use crate::write::merge;

use super::args::Json;
use super::output::{emit, human_bytes, progress};
use super::py::Py;
use super::{sources, CliError};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// the parts, in order, then the destination (a local directory)
    #[arg(value_name = "PART... DST", required = true)]
    paths: Vec<String>,
    /// read the parts from FILE, one directory per line (blank lines and
    /// lines starting with # are skipped); then only DST is given
    #[arg(long, value_name = "FILE")]
    list: Option<PathBuf>,
    #[command(flatten)]
    json: Json,
}

pub(crate) fn run(args: Args) -> Result<(), CliError> {
    let (parts, destination) = parts_and_destination(&args)?;
    for part in &parts {
        sources::local(part, "merge")?;
    }
    let dest = sources::local(&destination, "merge")?;
    let parts: Vec<PathBuf> = parts.iter().map(PathBuf::from).collect();
    // A bar over variables (segments), when standard error is a terminal.
    let mut bar = None;
    let summary = merge(&parts, &dest, |done, total| {
        let bar = bar.get_or_insert_with(|| progress(total as u64, "segments"));
        bar.set_position(done as u64);
    })?;
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
