//! `atlas info COLLECTION`: counts, size, codec and one set of statistics
//! per distinct array, as atlas-python's `info` prints them.

use crate::{Atlas, ReadOptions};

use super::args::Json;
use super::output::{emit, human_bytes, timestamp};
use super::py::Py;
use super::values::{stats, stats_text};
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
    let summary = summarise(&atlas, &args.collection).await?;
    emit(&summary, args.json.json, render)
}

/// The whole collection, as a dictionary.
async fn summarise(atlas: &Atlas, source: &str) -> Result<Py, CliError> {
    let arrays = atlas.list_arrays();
    let mut array_stats = Vec::with_capacity(arrays.len());
    for name in &arrays {
        array_stats.push((name.clone(), stats(atlas.array_stats(name).await?.as_ref())));
    }
    Ok(Py::dict([
        ("source", Py::str(source)),
        ("format_version", Py::int(atlas.format_version())),
        ("created_unix_ms", Py::int(atlas.created_unix_ms())),
        ("codec", Py::str(atlas.codec().name())),
        ("container_bytes", Py::int(atlas.container_bytes())),
        ("dataset_count", Py::int(atlas.dataset_count() as u64)),
        ("deleted_count", Py::int(atlas.deleted_count() as u64)),
        ("total_datasets", Py::int(atlas.total_datasets() as u64)),
        (
            "distinct_arrays",
            Py::List(arrays.iter().map(|a| Py::str(a.as_str())).collect()),
        ),
        ("array_stats", Py::Dict(array_stats)),
        ("interned_schemas", Py::int(atlas.interned_schemas() as u64)),
    ]))
}

fn render(s: &Py) -> String {
    let field = |key: &str| s.get(key).text();
    let mut out = format!("collection {}\n", s.get("source").plain());
    out.push_str(&format!(
        "  format version    {}\n",
        field("format_version")
    ));
    let created = match s.get("created_unix_ms") {
        Py::Int(ms) => timestamp(*ms as i64),
        _ => String::new(),
    };
    out.push_str(&format!("  created           {created}\n"));
    out.push_str(&format!("  codec             {}\n", s.get("codec").plain()));
    let size = match s.get("container_bytes") {
        Py::Int(n) => human_bytes(*n as u64),
        _ => String::new(),
    };
    out.push_str(&format!("  container size    {size}\n"));
    out.push_str(&format!("  datasets          {}\n", field("dataset_count")));
    if !matches!(s.get("deleted_count"), Py::Int(0)) {
        out.push_str(&format!(
            "  removed           {} (of {} written; space not reclaimed)\n",
            field("deleted_count"),
            field("total_datasets")
        ));
    }
    out.push_str(&format!(
        "  interned schemas  {}\n",
        field("interned_schemas")
    ));
    let arrays: Vec<String> = s
        .get("distinct_arrays")
        .items()
        .iter()
        .map(Py::plain)
        .collect();
    out.push_str(&format!("  distinct arrays   {}\n", arrays.len()));
    let width = arrays.iter().map(|a| a.chars().count()).max().unwrap_or(0);
    for name in &arrays {
        let stats = stats_text(s.get("array_stats").get(name));
        let pad = width - name.chars().count();
        let line = format!("      {name}{}  {stats}", " ".repeat(pad));
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
