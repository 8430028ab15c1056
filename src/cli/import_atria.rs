//! `atlas import-atria STORAGE_DIR/CONFIG DST [--split S]`: one ATLAS
//! collection per split of an Atria cache (`DST/{split}/data.atlas`), one
//! dataset per sample.

use std::path::Path;

use futures_executor::block_on;

use crate::atria::{self, AtriaCache, Check, DirStore, Split, Value};
use crate::ingest::Part;
use crate::write::{validate_name, AtlasWriter, DatasetWriter, WriteElement, WriterConfig};
use crate::{ArrayData, Attr, Error, NdArray};

use super::args::Json;
use super::log::{self, Level};
use super::output::print;
use super::py::Py;
use super::{sources, CliError, Outcome};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// the cache's config directory (STORAGE_DIR/CONFIG, holding delta/ or msgpack/)
    source: String,
    /// where to write the collections: DST/{split}/data.atlas (a local directory)
    destination: String,
    /// import this split only (default: every split)
    #[arg(long, value_name = "S")]
    split: Option<String>,
    /// import only the I-th of N contiguous shares of each split's samples
    /// (e.g. 2/8), to be joined with `atlas merge`
    #[arg(long, value_name = "I/N")]
    part: Option<String>,
    /// do not report progress
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    json: Json,
}

/// What importing one split did.
struct SplitSummary {
    split: String,
    collection: String,
    /// The samples read (all of them, or the part's share).
    rows: std::ops::Range<u64>,
    written: Vec<String>,
    recovered: Vec<(String, String, Check)>,
    skipped: Vec<(String, String)>,
}

impl From<atria::Error> for CliError {
    fn from(e: atria::Error) -> Self {
        CliError::new(e.to_string())
    }
}

/// Runs the import; [`Outcome::Partial`] when samples were skipped.
pub(crate) fn run(args: Args) -> Result<Outcome, CliError> {
    let destination = sources::local(&args.destination, "import-atria")?;
    let part = args
        .part
        .as_deref()
        .map(Part::parse)
        .transpose()
        .map_err(|e| CliError::new(e.to_string()))?;
    let cache = block_on(AtriaCache::open(DirStore::new(&args.source)))?;
    let splits: Vec<String> = match &args.split {
        Some(s) => vec![s.clone()],
        None => cache.splits().to_vec(),
    };
    let mut summaries = Vec::new();
    for name in &splits {
        let split = block_on(cache.split(name))?;
        let dir = destination.join(name);
        let rows = part.map_or(0..split.num_rows(), |p| p.range(split.num_rows()));
        if !args.quiet && !args.json.json {
            eprintln!(
                "Writing {} from {} sample(s) of split '{name}' ({})",
                dir.display(),
                rows.end - rows.start,
                cache.backend()
            );
        }
        summaries.push(import_split(&split, &dir, rows)?);
    }
    let skipped: usize = summaries.iter().map(|s| s.skipped.len()).sum();
    if args.json.json {
        print(&(to_py(&summaries, &args.destination, part).json() + "\n"))?;
    } else {
        for s in &summaries {
            print(&format!(
                "{} dataset(s) written to {} ({} pointer(s) recovered)\n",
                s.written.len(),
                s.collection,
                s.recovered.len()
            ))?;
            for (key, error) in &s.skipped {
                eprintln!("  skipped {key}: {error}");
            }
        }
    }
    Ok(if skipped == 0 {
        Outcome::Done
    } else {
        Outcome::Partial
    })
}

fn import_split(
    split: &Split,
    dir: &Path,
    rows: std::ops::Range<u64>,
) -> Result<SplitSummary, CliError> {
    let writer = AtlasWriter::create(dir, WriterConfig::default())?;
    let mut summary = SplitSummary {
        split: split.name().to_string(),
        collection: dir.join(crate::write::DATA_FILE).display().to_string(),
        rows: rows.clone(),
        written: Vec::new(),
        recovered: Vec::new(),
        skipped: Vec::new(),
    };
    let fields = content_fields(split);
    for index in rows {
        let row = block_on(split.row(index))?;
        let key = sample_key(&row, index);
        let name = dataset_name(&key, index);
        match import_sample(&writer, split, index, &row, &name, &fields) {
            Ok(recovered) => {
                log::record(Level::Info, "import-atria", &format!("wrote {key}"));
                summary.written.push(name);
                for (field, check) in recovered {
                    summary.recovered.push((key.clone(), field, check));
                }
            }
            Err(
                e @ (atria::Error::BadPointer(_)
                | atria::Error::Corrupt(_)
                | atria::Error::Core(
                    Error::NotFound(_) | Error::InvalidArgument(_) | Error::TooLarge(_),
                )),
            ) => {
                log::record(
                    Level::Warning,
                    "import-atria",
                    &format!("skipping {key}: {e}"),
                );
                summary.skipped.push((key, e.to_string()));
            }
            Err(e) => return Err(e.into()),
        }
    }
    writer.finish()?;
    Ok(summary)
}

/// The binary fields: `{field}__file_path` columns (Delta), or the columns
/// whose first value is bytes (msgpack).
fn content_fields(split: &Split) -> Vec<String> {
    split
        .columns()
        .iter()
        .filter_map(|c| {
            if let Some(field) = c.name.strip_suffix("__file_path") {
                Some(field.to_string())
            } else if c.data_type == "bin" {
                Some(c.name.clone())
            } else {
                None
            }
        })
        .collect()
}

/// A sample's key column, or its row number for a row without one.
fn sample_key(row: &Value, index: u64) -> String {
    crate::atria::sample_key(row).map_or_else(|| format!("{index:06}"), str::to_string)
}

/// The key as a dataset name: atlas names hold no `/` and do not start
/// with `_`; a key that breaks those rules is kept as an attribute and the
/// dataset is named `sample-{index}`.
fn dataset_name(key: &str, index: u64) -> String {
    match validate_name(key) {
        Ok(()) => key.to_string(),
        Err(_) => format!("sample-{index:06}"),
    }
}

/// Writes one sample as dataset `name`; returns the fields whose pointers were
/// recovered. Any error leaves no dataset behind.
fn import_sample(
    writer: &AtlasWriter,
    split: &Split,
    index: u64,
    row: &Value,
    name: &str,
    fields: &[String],
) -> atria::Result<Vec<(String, Check)>> {
    // Content first: a bad pointer skips the sample before anything is written.
    let mut contents = Vec::new();
    for field in fields {
        match block_on(split.content_and_check(row, index, field)) {
            Ok((bytes, check)) => contents.push((field.clone(), bytes, check)),
            // A null file path: the sample has no such content.
            Err(atria::Error::Core(Error::NotFound(_)))
                if matches!(row.get(&format!("{field}__file_path")), Some(Value::Nil)) => {}
            Err(e) => return Err(e),
        }
    }
    let mut ds = writer.add_dataset(name)?;
    let Value::Map(entries) = row else {
        return Err(atria::Error::Corrupt(format!("row {index} is not a map")));
    };
    let mut recovered = Vec::new();
    for (field, bytes, check) in contents {
        write_array(
            &mut ds,
            &field,
            &[bytes.len() as u64],
            ArrayData::UInt8(bytes),
        )?;
        if !check.pointer.is_empty() {
            ds.set_array_attribute(&field, "source", Attr::String(check.pointer.clone()))?;
        }
        if check.recovered {
            let at = check.member.as_ref().map(|m| m.shard.clone());
            ds.set_array_attribute(
                &field,
                "recovered_from",
                Attr::String(at.unwrap_or_default()),
            )?;
            recovered.push((field, check));
        }
    }
    for (column, value) in entries {
        let Value::Str(column) = column else { continue };
        if column.ends_with("__content") || fields.contains(column) {
            continue;
        }
        match value {
            Value::Nil => {}
            Value::Bool(b) => ds.set_attribute(column, Attr::Bool(*b)),
            Value::Int(i) => ds.set_attribute(column, Attr::Int64(*i)),
            Value::UInt(u) => ds.set_attribute(column, Attr::UInt64(*u)),
            Value::Float(f) => ds.set_attribute(column, Attr::Float64(*f)),
            Value::Str(s) => ds.set_attribute(column, Attr::String(s.clone())),
            Value::Bin(b) => write_array(
                &mut ds,
                column,
                &[b.len() as u64],
                ArrayData::UInt8(b.clone()),
            )?,
            Value::Array(a) => write_nd(&mut ds, column, a)?,
            Value::List(items) => write_list(&mut ds, column, items)?,
            Value::Map(_) | Value::Ext(..) => {
                ds.set_attribute(column, Attr::String(json_text(value)))
            }
        }
    }
    ds.finish()?;
    Ok(recovered)
}

/// A list column: numbers become a 1-D array (int64, or float64 when any is
/// a float), strings a string-list attribute, anything else JSON text.
fn write_list(ds: &mut DatasetWriter, column: &str, items: &[Value]) -> crate::Result<()> {
    let n = items.len() as u64;
    if items.iter().all(|v| matches!(v, Value::Int(_))) && !items.is_empty() {
        let ints = items
            .iter()
            .map(|v| if let Value::Int(i) = v { *i } else { 0 })
            .collect();
        return write_array(ds, column, &[n], ArrayData::Int64(ints));
    }
    if items
        .iter()
        .all(|v| matches!(v, Value::Int(_) | Value::Float(_)))
    {
        let floats = items
            .iter()
            .map(|v| match v {
                Value::Int(i) => *i as f64,
                Value::Float(f) => *f,
                _ => 0.0,
            })
            .collect();
        return write_array(ds, column, &[n], ArrayData::Float64(floats));
    }
    if items.iter().all(|v| matches!(v, Value::Str(_))) {
        let strings = items
            .iter()
            .map(|v| {
                if let Value::Str(s) = v {
                    s.clone()
                } else {
                    String::new()
                }
            })
            .collect();
        ds.set_attribute(column, Attr::StringList(strings));
        return Ok(());
    }
    ds.set_attribute(
        column,
        Attr::String(json_text(&Value::List(items.to_vec()))),
    );
    Ok(())
}

/// A numpy value as an array of its shape (a scalar as rank 0); booleans as
/// uint8 (atlas-rust reads no bool arrays) marked `numpy_dtype = bool`.
fn write_nd(ds: &mut DatasetWriter, column: &str, a: &NdArray) -> crate::Result<()> {
    let data = match &a.data {
        ArrayData::Bool(v) => ArrayData::UInt8(v.iter().map(|&b| u8::from(b)).collect()),
        other => other.clone(),
    };
    write_array(ds, column, &a.shape, data)?;
    if matches!(a.data, ArrayData::Bool(_)) {
        ds.set_array_attribute(column, "numpy_dtype", Attr::String("bool".into()))?;
    }
    Ok(())
}

fn write_array(
    ds: &mut DatasetWriter,
    name: &str,
    shape: &[u64],
    data: ArrayData,
) -> crate::Result<()> {
    fn typed<T: WriteElement>(
        ds: &mut DatasetWriter,
        name: &str,
        shape: &[u64],
        data: &[T],
    ) -> crate::Result<()> {
        let dims = (0..shape.len()).map(|d| format!("{name}_{d}")).collect();
        ds.define_array::<T>(name, dims, shape, None, None)?;
        if !data.is_empty() {
            ds.write_array(name, &vec![0; shape.len()], shape, data)?;
        }
        Ok(())
    }
    match &data {
        ArrayData::Int8(v) => typed(ds, name, shape, v),
        ArrayData::Int16(v) => typed(ds, name, shape, v),
        ArrayData::Int32(v) => typed(ds, name, shape, v),
        ArrayData::Int64(v) => typed(ds, name, shape, v),
        ArrayData::UInt8(v) => typed(ds, name, shape, v),
        ArrayData::UInt16(v) => typed(ds, name, shape, v),
        ArrayData::UInt32(v) => typed(ds, name, shape, v),
        ArrayData::UInt64(v) => typed(ds, name, shape, v),
        ArrayData::Float32(v) => typed(ds, name, shape, v),
        ArrayData::Float64(v) => typed(ds, name, shape, v),
        ArrayData::String(v) => typed(ds, name, shape, v),
        ArrayData::Bool(_) | ArrayData::TimestampNs(_) | ArrayData::Binary(_) => {
            Err(Error::InvalidArgument(format!(
                "column '{name}': bool, timestamp and binary arrays are not imported"
            )))
        }
    }
}

/// A value as JSON text, for attributes that have no typed form.
fn json_text(value: &Value) -> String {
    fn to_json(value: &Value) -> serde_json::Value {
        use serde_json::Value as J;
        match value {
            Value::Nil => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::UInt(u) => J::from(*u),
            Value::Float(f) => J::from(*f),
            Value::Str(s) => J::String(s.clone()),
            Value::Bin(b) => J::String(b.iter().map(|x| format!("{x:02x}")).collect()),
            Value::List(items) => J::Array(items.iter().map(to_json).collect()),
            Value::Map(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| {
                        let k = match k {
                            Value::Str(s) => s.clone(),
                            other => json_text(other),
                        };
                        (k, to_json(v))
                    })
                    .collect(),
            ),
            Value::Ext(tag, b) => J::String(format!("ext {tag}: {} bytes", b.len())),
            Value::Array(a) => J::String(format!("{} {:?}", a.dtype.name(), a.shape)),
        }
    }
    to_json(value).to_string()
}

/// The summary as JSON.
/// With `--part`, each split says which samples it holds (`rows`: start, end).
fn to_py(summaries: &[SplitSummary], destination: &str, part: Option<Part>) -> Py {
    let split = |s: &SplitSummary| {
        let mut entries = vec![
            ("split", Py::str(s.split.as_str())),
            ("collection", Py::str(s.collection.as_str())),
            (
                "written",
                Py::List(s.written.iter().map(|n| Py::str(n.as_str())).collect()),
            ),
            (
                "recovered",
                Py::List(
                    s.recovered
                        .iter()
                        .map(|(key, field, check)| {
                            Py::dict([
                                ("sample", Py::str(key.as_str())),
                                ("field", Py::str(field.as_str())),
                                ("pointer", Py::str(check.pointer.as_str())),
                                (
                                    "defect",
                                    Py::str(
                                        check
                                            .defect
                                            .as_ref()
                                            .map_or_else(String::new, |d| d.to_string()),
                                    ),
                                ),
                            ])
                        })
                        .collect(),
                ),
            ),
            (
                "skipped",
                Py::List(
                    s.skipped
                        .iter()
                        .map(|(key, error)| {
                            Py::dict([
                                ("sample", Py::str(key.as_str())),
                                ("error", Py::str(error.as_str())),
                            ])
                        })
                        .collect(),
                ),
            ),
        ];
        if part.is_some() {
            let rows = [s.rows.start, s.rows.end].map(|r| Py::int(r as i64));
            entries.push(("rows", Py::List(rows.into())));
        }
        Py::dict(entries)
    };
    let mut dict = Py::dict([
        ("destination", Py::str(destination)),
        ("splits", Py::List(summaries.iter().map(split).collect())),
        (
            "dataset_count",
            Py::int(
                summaries
                    .iter()
                    .map(|s| s.written.len() as i64)
                    .sum::<i64>(),
            ),
        ),
    ]);
    if let (Some(part), Py::Dict(entries)) = (part, &mut dict) {
        entries.push((
            "part".into(),
            Py::dict([
                ("index", Py::int(part.index as i64)),
                ("count", Py::int(part.count as i64)),
            ]),
        ));
    }
    dict
}
