//! `atlas ls COLLECTION`: the live datasets, one per line.

use crate::ReadOptions;

use super::args::Json;
use super::output::emit;
use super::py::Py;
use super::{sources, CliError};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// a local directory, or an http(s):// URL of one
    collection: String,
    #[command(flatten)]
    json: Json,
}

pub(crate) async fn run(args: Args) -> Result<(), CliError> {
    let atlas = sources::open(&args.collection, ReadOptions::default()).await?;
    let names = atlas.list_datasets();
    let value = Py::List(names.iter().map(|n| Py::str(n.as_str())).collect());
    emit(&value, args.json.json, |_| {
        if names.is_empty() {
            String::new()
        } else {
            names.join("\n") + "\n"
        }
    })
}
