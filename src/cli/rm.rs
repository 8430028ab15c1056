//! `atlas rm COLLECTION NAME…`: hides datasets behind the deletion mask.

use crate::write::{delete_datasets, Deletion};
use crate::Error;

use super::args::Json;
use super::output::emit;
use super::py::Py;
use super::{sources, CliError};

#[derive(clap::Args)]
pub(crate) struct Args {
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
}

pub(crate) fn run(args: Args) -> Result<(), CliError> {
    let wanted: Vec<String> = args
        .names
        .iter()
        .map(|n| sources::dataset_name(n))
        .collect();
    let done = if sources::is_bucket(&args.collection) {
        bucket_delete(&args.collection, &wanted, args.missing_ok)
    } else {
        delete_datasets(
            sources::local(&args.collection, "rm")?,
            &wanted,
            args.missing_ok,
        )
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
    let names = |list: &[String]| Py::List(list.iter().map(|n| Py::str(n.as_str())).collect());
    let value = Py::dict([
        ("removed", names(&done.removed)),
        ("missing", names(&done.missing)),
        ("remaining", Py::int(done.remaining as u64)),
    ]);
    emit(&value, args.json.json, |_| {
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

#[cfg(feature = "cloud")]
fn bucket_delete(location: &str, wanted: &[String], missing_ok: bool) -> crate::Result<Deletion> {
    super::bucket::delete_datasets(location, wanted, missing_ok)
}

#[cfg(not(feature = "cloud"))]
fn bucket_delete(location: &str, _: &[String], _: bool) -> crate::Result<Deletion> {
    Err(sources::no_buckets(location))
}
