//! `ls`, `show` and `info`: the dictionaries atlas-python's `_ops` builds,
//! built from our reader, and its `_cli` renderers.

use atlas_wasm::{ArrayStats, Atlas, Attr, DType, FillValue, StatValue};

use crate::cli::py::Py;
use crate::cli::CliError;

/// The dataset attribute where atlas-python records which arrays were
/// xarray coordinates (a JSON list of names).
const COORDS_ATTR: &str = "_pyatlas_coords";
/// atlas-python stores attribute values it cannot type as `json:` strings.
const JSON_PREFIX: &str = "json:";

/// The element type as atlas-python names it.
pub fn dtype_name(dtype: &DType) -> String {
    match dtype {
        DType::TimestampNs => "timestamp_nanoseconds".into(),
        DType::List { child } => format!("list<{}>", dtype_name(child)),
        DType::FixedSizeList { child, size } => {
            format!("fixed_size_list<{}, {size}>", dtype_name(child))
        }
        other => other.name(),
    }
}

pub fn attr(value: &Attr) -> Py {
    let list = |items: Vec<Py>| Py::List(items);
    match value {
        Attr::Bool(v) => Py::Bool(*v),
        Attr::Int8(v) => Py::int(*v),
        Attr::Int16(v) => Py::int(*v),
        Attr::Int32(v) => Py::int(*v),
        Attr::Int64(v) => Py::int(*v),
        Attr::UInt8(v) => Py::int(*v),
        Attr::UInt16(v) => Py::int(*v),
        Attr::UInt32(v) => Py::int(*v),
        Attr::UInt64(v) => Py::int(*v),
        Attr::Float32(v) => Py::Float(*v as f64),
        Attr::Float64(v) => Py::Float(*v),
        Attr::String(v) => decode_json_attr(v),
        Attr::Binary(v) => Py::Bytes(v.clone()),
        Attr::BoolList(v) => list(v.iter().map(|&x| Py::Bool(x)).collect()),
        Attr::Int8List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::Int16List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::Int32List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::Int64List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::UInt8List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::UInt16List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::UInt32List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::UInt64List(v) => list(v.iter().map(|&x| Py::int(x)).collect()),
        Attr::Float32List(v) => list(v.iter().map(|&x| Py::Float(x as f64)).collect()),
        Attr::Float64List(v) => list(v.iter().map(|&x| Py::Float(x)).collect()),
        Attr::StringList(v) => list(v.iter().map(|x| Py::str(x.as_str())).collect()),
        Attr::BinaryList(v) => list(v.iter().map(|x| Py::Bytes(x.clone())).collect()),
    }
}

/// `_decode_attr_value`: a `json:` string becomes the value it encodes.
fn decode_json_attr(s: &str) -> Py {
    match s
        .strip_prefix(JSON_PREFIX)
        .and_then(|rest| serde_json::from_str::<serde_json::Value>(rest).ok())
    {
        Some(value) => from_json(&value),
        None => Py::str(s),
    }
}

fn from_json(v: &serde_json::Value) -> Py {
    use serde_json::Value;
    match v {
        Value::Null => Py::None,
        Value::Bool(b) => Py::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Py::int(i),
            (_, Some(u)) => Py::int(u),
            _ => Py::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Py::str(s.as_str()),
        Value::Array(items) => Py::List(items.iter().map(from_json).collect()),
        Value::Object(map) => Py::dict(map.iter().map(|(k, v)| (k.clone(), from_json(v)))),
    }
}

fn fill(value: Option<&FillValue>) -> Py {
    match value {
        None => Py::None,
        Some(FillValue::Bool(v)) => Py::Bool(*v),
        Some(FillValue::Int(v)) | Some(FillValue::TimestampNs(v)) => Py::int(*v),
        Some(FillValue::UInt(v)) => Py::int(*v),
        Some(FillValue::Float(v)) => Py::Float(*v),
        Some(FillValue::String(v)) => Py::str(v.as_str()),
    }
}

fn bound(value: Option<&StatValue>) -> Py {
    match value {
        None => Py::None,
        Some(StatValue::Int(v)) | Some(StatValue::TimestampNs(v)) => Py::int(*v),
        Some(StatValue::UInt(v)) => Py::int(*v),
        Some(StatValue::Float(v)) => Py::Float(*v),
        Some(StatValue::Bytes(v)) => Py::Bytes(v.clone()),
    }
}

pub fn stats(value: Option<&ArrayStats>) -> Py {
    match value {
        None => Py::None,
        Some(s) => Py::dict([
            ("min", bound(s.min.as_ref())),
            ("max", bound(s.max.as_ref())),
            ("null_count", Py::int(s.null_count)),
            ("row_count", Py::int(s.row_count)),
        ]),
    }
}

fn ints(values: &[u64]) -> Py {
    Py::List(values.iter().map(|&v| Py::int(v)).collect())
}

/// `describe_dataset`: everything recorded about one dataset.
pub async fn dataset(atlas: &Atlas, wanted: &str) -> Result<Py, CliError> {
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

fn get<'a>(dict: &'a Py, key: &str) -> &'a Py {
    match dict {
        Py::Dict(items) => items
            .iter()
            .find(|(k, _)| k == key)
            .map_or(&Py::None, |(_, v)| v),
        _ => &Py::None,
    }
}

fn list(value: &Py) -> &[Py] {
    match value {
        Py::List(items) => items,
        _ => &[],
    }
}

fn entries(value: &Py) -> &[(String, Py)] {
    match value {
        Py::Dict(items) => items,
        _ => &[],
    }
}

fn plain(value: &Py) -> String {
    match value {
        Py::Str(s) => s.clone(),
        other => other.text(),
    }
}

/// Python's `str(list_of_ints)`.
fn list_repr(value: &Py) -> String {
    format!(
        "[{}]",
        list(value)
            .iter()
            .map(Py::text)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `_format_stats`.
pub fn stats_text(stats: &Py) -> String {
    if matches!(stats, Py::None) {
        return String::new();
    }
    let mut parts = vec![format!("count={}", get(stats, "row_count").text())];
    if !matches!(get(stats, "null_count"), Py::Int(0)) {
        parts.push(format!("nulls={}", get(stats, "null_count").text()));
    }
    for key in ["min", "max"] {
        if !matches!(get(stats, key), Py::None) {
            parts.push(format!("{key}={}", get(stats, key).text()));
        }
    }
    parts.join("  ")
}

/// `_render_dataset`: ncdump style.
pub fn render_dataset(d: &Py) -> String {
    let mut out = format!("dataset {} {{\n", plain(get(d, "name")));
    let dimensions = entries(get(d, "dimensions"));
    if !dimensions.is_empty() {
        out.push_str("dimensions:\n");
        for (dim, size) in dimensions {
            out.push_str(&format!("\t{dim} = {} ;\n", size.text()));
        }
    }
    let arrays = list(get(d, "arrays"));
    if !arrays.is_empty() {
        out.push_str("variables:\n");
        for a in arrays {
            let name = plain(get(a, "name"));
            let dims: Vec<String> = list(get(a, "dimensions")).iter().map(plain).collect();
            let marker = if get(a, "is_coordinate") == &Py::Bool(true) {
                "  // coordinate"
            } else {
                ""
            };
            out.push_str(&format!(
                "\t{} {name}({}) ;{marker}\n",
                plain(get(a, "dtype")),
                dims.join(", ")
            ));
            if get(a, "chunk_shape") != get(a, "shape") {
                out.push_str(&format!(
                    "\t\t{name}:_ChunkShape = {} ;\n",
                    list_repr(get(a, "chunk_shape"))
                ));
            }
            if !matches!(get(a, "fill_value"), Py::None) {
                out.push_str(&format!(
                    "\t\t{name}:_FillValue = {} ;\n",
                    get(a, "fill_value").text()
                ));
            }
            for (key, value) in entries(get(a, "attributes")) {
                out.push_str(&format!("\t\t{name}:{key} = {} ;\n", value.text()));
            }
            let stats = stats_text(get(a, "stats"));
            if !stats.is_empty() {
                out.push_str(&format!("\t\t// stats: {stats}\n"));
            }
        }
    }
    let globals = entries(get(d, "attributes"));
    if !globals.is_empty() {
        out.push_str("\n// global attributes:\n");
        for (key, value) in globals {
            out.push_str(&format!("\t\t:{key} = {} ;\n", value.text()));
        }
    }
    out.push_str(&format!("\n// ordinal {}\n}}\n", get(d, "ordinal").text()));
    out
}

/// `info`: the whole collection.
pub async fn info(atlas: &Atlas, source: &str) -> Result<Py, CliError> {
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

/// `_human_bytes`.
pub fn human_bytes(n: u64) -> String {
    let mut size = n as f64;
    for unit in ["B", "KiB", "MiB", "GiB", "TiB"] {
        if size < 1024.0 || unit == "TiB" {
            return if unit == "B" {
                format!("{size:.0} {unit}")
            } else {
                format!("{size:.1} {unit}")
            };
        }
        size /= 1024.0;
    }
    unreachable!("TiB ends the loop")
}

/// `_timestamp`: ISO 8601 UTC to the second.
pub fn timestamp(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// (year, month, day) of a day count from 1970-01-01, proleptic Gregorian
/// (Howard Hinnant's days-to-civil).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

pub fn render_info(s: &Py) -> String {
    let field = |key: &str| get(s, key).text();
    let mut out = format!("collection {}\n", plain(get(s, "source")));
    out.push_str(&format!(
        "  format version    {}\n",
        field("format_version")
    ));
    let created = match get(s, "created_unix_ms") {
        Py::Int(ms) => timestamp(*ms as i64),
        _ => String::new(),
    };
    out.push_str(&format!("  created           {created}\n"));
    out.push_str(&format!("  codec             {}\n", plain(get(s, "codec"))));
    let size = match get(s, "container_bytes") {
        Py::Int(n) => human_bytes(*n as u64),
        _ => String::new(),
    };
    out.push_str(&format!("  container size    {size}\n"));
    out.push_str(&format!("  datasets          {}\n", field("dataset_count")));
    if !matches!(get(s, "deleted_count"), Py::Int(0)) {
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
    let arrays: Vec<String> = list(get(s, "distinct_arrays")).iter().map(plain).collect();
    out.push_str(&format!("  distinct arrays   {}\n", arrays.len()));
    let width = arrays.iter().map(|a| a.chars().count()).max().unwrap_or(0);
    for name in &arrays {
        let stats = stats_text(get(get(s, "array_stats"), name));
        let pad = width - name.chars().count();
        let line = format!("      {name}{}  {stats}", " ".repeat(pad));
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_helpers_agree() {
        assert_eq!(human_bytes(54), "54 B");
        assert_eq!(human_bytes(53_920), "52.7 KiB");
        assert_eq!(timestamp(1_796_033_883_922), "2026-11-30T10:18:03Z");
        assert_eq!(timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(dtype_name(&DType::UInt16), "uint16");
        assert_eq!(
            decode_json_attr("json:[-5.0, 40]"),
            Py::List(vec![Py::Float(-5.0), Py::Int(40)])
        );
    }
}
