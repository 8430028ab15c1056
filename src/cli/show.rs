//! `atlas show COLLECTION NAME`: atlas-python's `describe_dataset`, printed
//! in ncdump style by its `_render_dataset`.

use crate::{Atlas, Attr, ReadOptions};

use super::args::Json;
use super::output::emit;
use super::py::Py;
use super::values::{attr, dtype_name, fill, ints, stats, stats_text};
use super::{sources, CliError};

/// The dataset attribute where atlas-python records which arrays were
/// xarray coordinates (a JSON list of names).
const COORDS_ATTR: &str = "_pyatlas_coords";

#[derive(clap::Args)]
pub(crate) struct Args {
    /// a local directory, or an http(s):// URL of one
    collection: String,
    /// dataset name, or the NetCDF file it came from
    name: String,
    #[command(flatten)]
    json: Json,
}

pub(crate) async fn run(args: Args) -> Result<(), CliError> {
    let atlas = sources::open(&args.collection, ReadOptions::default()).await?;
    let detail = describe(&atlas, &sources::dataset_name(&args.name)).await?;
    emit(&detail, args.json.json, render)
}

/// `describe_dataset`: everything recorded about one dataset.
async fn describe(atlas: &Atlas, wanted: &str) -> Result<Py, CliError> {
    let view = atlas.dataset(wanted).map_err(|_| {
        CliError::new(format!(
            "no dataset '{wanted}' in the collection (it may have been removed)"
        ))
    })?;
    let globals = view.attributes().await?;
    let coords: Vec<String> = match globals.get(COORDS_ATTR) {
        Some(Attr::String(s)) => serde_json::from_str::<Vec<serde_json::Value>>(s)
            .map(|names| {
                names
                    .iter()
                    .map(|n| n.as_str().map_or_else(|| n.to_string(), str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let mut dimensions: Vec<(String, Py)> = Vec::new();
    let mut arrays = Vec::new();
    for name in view.list_arrays() {
        let layout = view.array_layout(&name).await?;
        for (dim, &size) in layout.dimension_names.iter().zip(&layout.shape) {
            if !dimensions.iter().any(|(d, _)| d == dim) {
                dimensions.push((dim.clone(), Py::int(size)));
            }
        }
        let dtype = view
            .array_meta(&name)
            .map(|m| dtype_name(m.dtype()))
            .unwrap_or_default();
        let attributes = view.array_attributes(&name).await?;
        arrays.push(Py::dict([
            ("name", Py::str(name.as_str())),
            ("dtype", Py::str(dtype)),
            ("shape", ints(&layout.shape)),
            ("chunk_shape", ints(&layout.chunk_shape)),
            (
                "dimensions",
                Py::List(
                    layout
                        .dimension_names
                        .iter()
                        .map(|d| Py::str(d.as_str()))
                        .collect(),
                ),
            ),
            ("fill_value", fill(layout.fill_value.as_ref())),
            ("is_coordinate", Py::Bool(coords.contains(&name))),
            (
                "attributes",
                Py::dict(attributes.iter().map(|(k, v)| (k.clone(), attr(v)))),
            ),
            ("stats", stats(view.array_stats(&name).await?.as_ref())),
        ]));
    }
    let mut sorted = coords.clone();
    sorted.sort();
    Ok(Py::dict([
        ("name", Py::str(view.name())),
        ("ordinal", Py::int(view.ordinal())),
        ("dimensions", Py::Dict(dimensions)),
        (
            "coordinates",
            Py::List(sorted.into_iter().map(Py::Str).collect()),
        ),
        ("arrays", Py::List(arrays)),
        (
            "attributes",
            Py::dict(
                globals
                    .iter()
                    .filter(|(k, _)| k.as_str() != COORDS_ATTR)
                    .map(|(k, v)| (k.clone(), attr(v))),
            ),
        ),
    ]))
}

/// `_render_dataset`: ncdump style.
fn render(d: &Py) -> String {
    let mut out = format!("dataset {} {{\n", d.get("name").plain());
    let dimensions = d.get("dimensions").entries();
    if !dimensions.is_empty() {
        out.push_str("dimensions:\n");
        for (dim, size) in dimensions {
            out.push_str(&format!("\t{dim} = {} ;\n", size.text()));
        }
    }
    let arrays = d.get("arrays").items();
    if !arrays.is_empty() {
        out.push_str("variables:\n");
        for a in arrays {
            render_array(&mut out, a);
        }
    }
    let globals = d.get("attributes").entries();
    if !globals.is_empty() {
        out.push_str("\n// global attributes:\n");
        for (key, value) in globals {
            out.push_str(&format!("\t\t:{key} = {} ;\n", value.text()));
        }
    }
    out.push_str(&format!("\n// ordinal {}\n}}\n", d.get("ordinal").text()));
    out
}

/// One variable: its declaration, then its chunking, fill, attributes, stats.
fn render_array(out: &mut String, a: &Py) {
    let name = a.get("name").plain();
    let dims: Vec<String> = a.get("dimensions").items().iter().map(Py::plain).collect();
    let marker = if a.get("is_coordinate") == &Py::Bool(true) {
        "  // coordinate"
    } else {
        ""
    };
    out.push_str(&format!(
        "\t{} {name}({}) ;{marker}\n",
        a.get("dtype").plain(),
        dims.join(", ")
    ));
    if a.get("chunk_shape") != a.get("shape") {
        out.push_str(&format!(
            "\t\t{name}:_ChunkShape = {} ;\n",
            a.get("chunk_shape").list_repr()
        ));
    }
    if !matches!(a.get("fill_value"), Py::None) {
        out.push_str(&format!(
            "\t\t{name}:_FillValue = {} ;\n",
            a.get("fill_value").text()
        ));
    }
    for (key, value) in a.get("attributes").entries() {
        out.push_str(&format!("\t\t{name}:{key} = {} ;\n", value.text()));
    }
    let stats = stats_text(a.get("stats"));
    if !stats.is_empty() {
        out.push_str(&format!("\t\t// stats: {stats}\n"));
    }
}
