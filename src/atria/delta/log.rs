//! Replaying a Delta table's `_delta_log` into its current files.
//!
//! The state is the last checkpoint (`_last_checkpoint` names it; its
//! parquet holds every live `add`, the `metaData` and the `protocol`), then
//! each JSON commit after it in order, one action per line. Where the store
//! can list, `_delta_log/` is listed; where it cannot, commits are probed
//! forward (`{version:020}.json`) until one is missing.

use indexmap::IndexMap;

use crate::atria::error::{Error, Result};
use crate::format::budget::{check, Budget};

use super::super::json;
use super::super::store::Store;
use super::super::value::Value;
use super::data::DataFile;
use super::deletion::{self, DeletionVector};
use super::schema::{self, Field};
use super::{protocol, DeltaFile, DeltaTable};

/// What the log says so far.
#[derive(Default)]
struct State {
    files: IndexMap<String, DeltaFile>,
    metadata: Option<Value>,
    protocol: Option<Value>,
}

/// Where replay starts: a checkpoint (its version and part count), or none.
type Start = Option<(u64, u64)>;

pub(crate) async fn replay(store: &dyn Store, dir: &str, budget: u64) -> Result<DeltaTable> {
    let log = format!("{dir}/_delta_log");
    let listing = store.list(&log).await?;
    let (start, commits) = match &listing {
        Some(names) => from_listing(names, &log)?,
        None => (last_checkpoint(store, &log, budget).await?, None),
    };
    let mut state = State::default();
    let mut version = None;
    if let Some((v, parts)) = start {
        read_checkpoint(store, &log, v, parts, &mut state).await?;
        version = Some(v);
    }
    let first = version.map_or(0, |v| v + 1);
    match commits {
        Some(listed) => {
            for (expect, v) in (first..).zip(listed.iter().copied().filter(|&v| v >= first)) {
                if v != expect {
                    return Err(Error::Corrupt(format!(
                        "{log}: commit {expect} is missing (the next is {v})"
                    )));
                }
                let text = read_text(store, &commit_path(&log, v), budget).await?;
                apply_commit(&text, v, &log, budget, &mut state)?;
                version = Some(v);
            }
        }
        None => {
            for v in first.. {
                let text = match read_text(store, &commit_path(&log, v), budget).await {
                    Ok(text) => text,
                    Err(Error::Core(crate::Error::NotFound(_))) => break,
                    Err(e) => return Err(e),
                };
                apply_commit(&text, v, &log, budget, &mut state)?;
                version = Some(v);
            }
        }
    }
    let Some(version) = version else {
        return Err(crate::Error::NotFound(format!(
            "no Delta table at {dir}: {log} has no commit"
        ))
        .into());
    };
    finish(state, dir, version)
}

fn commit_path(log: &str, version: u64) -> String {
    format!("{log}/{version:020}.json")
}

/// The latest complete checkpoint and the commit versions, from a listing.
fn from_listing(names: &[String], log: &str) -> Result<(Start, Option<Vec<u64>>)> {
    let mut commits = Vec::new();
    let mut singles = Vec::new();
    let mut parts: IndexMap<(u64, u64), u64> = IndexMap::new();
    for name in names {
        let Some((digits, rest)) = name.split_at_checked(20) else {
            continue;
        };
        let Ok(version) = digits.parse::<u64>() else {
            continue;
        };
        match rest {
            ".json" => commits.push(version),
            ".checkpoint.parquet" => singles.push(version),
            _ => {
                // `.checkpoint.{part:010}.{parts:010}.parquet`
                let multi = rest
                    .strip_prefix(".checkpoint.")
                    .and_then(|r| r.strip_suffix(".parquet"))
                    .and_then(|r| r.split_once('.'))
                    .and_then(|(p, n)| Some((p.parse::<u64>().ok()?, n.parse::<u64>().ok()?)));
                if let Some((_, n)) = multi {
                    *parts.entry((version, n)).or_default() += 1;
                }
            }
        }
    }
    commits.sort_unstable();
    let complete = parts
        .iter()
        .filter(|(&(_, n), &have)| have == n)
        .map(|(&(v, n), _)| (v, n));
    let start = singles.into_iter().map(|v| (v, 1)).chain(complete).max();
    if start.is_none() && commits.is_empty() {
        return Err(crate::Error::NotFound(format!("{log} lists no commit")).into());
    }
    Ok((start, Some(commits)))
}

/// `_last_checkpoint`'s version and part count; none when it is missing.
async fn last_checkpoint(store: &dyn Store, log: &str, budget: u64) -> Result<Start> {
    let path = format!("{log}/_last_checkpoint");
    let text = match read_text(store, &path, budget).await {
        Ok(text) => text,
        Err(Error::Core(crate::Error::NotFound(_))) => return Ok(None),
        Err(e) => return Err(e),
    };
    let hint = json::parse(&text, &mut Budget::new(budget), &path)?;
    let count = |key: &str| match hint.get(key) {
        Some(Value::Int(v)) if *v >= 0 => Ok(Some(*v as u64)),
        None | Some(Value::Nil) => Ok(None),
        Some(other) => Err(Error::Corrupt(format!("{path}: '{key}' is {other:?}"))),
    };
    let version =
        count("version")?.ok_or_else(|| Error::Corrupt(format!("{path} has no version")))?;
    let parts = count("parts")?.unwrap_or(1);
    if parts == 0 {
        return Err(Error::Corrupt(format!(
            "{path} names a checkpoint of 0 parts"
        )));
    }
    Ok(Some((version, parts)))
}

async fn read_checkpoint(
    store: &dyn Store,
    log: &str,
    version: u64,
    parts: u64,
    state: &mut State,
) -> Result<()> {
    for part in 1..=parts {
        let path = if parts == 1 {
            format!("{log}/{version:020}.checkpoint.parquet")
        } else {
            format!("{log}/{version:020}.checkpoint.{part:010}.{parts:010}.parquet")
        };
        let source = store
            .open(&path)
            .map_err(|e| missing_checkpoint(e.into(), &path))?;
        let file = DataFile::open(source)
            .await
            .map_err(|e| missing_checkpoint(e, &path))?;
        for group in 0..file.row_group_rows().len() {
            let rows = file
                .read_row_group(group, Some(&["add", "metaData", "protocol"]))
                .await?;
            for row in &rows {
                apply_actions(row, &path, state)?;
            }
        }
    }
    Ok(())
}

fn missing_checkpoint(e: Error, path: &str) -> Error {
    match e {
        Error::Core(crate::Error::NotFound(_)) => {
            Error::Corrupt(format!("the checkpoint {path} named by the log is missing"))
        }
        e => e,
    }
}

async fn read_text(store: &dyn Store, path: &str, budget: u64) -> Result<String> {
    let tail = store
        .open(path)?
        .read_tail(budget.saturating_add(1))
        .await?;
    check(tail.object_size, budget, path)?;
    String::from_utf8(tail.bytes).map_err(|_| Error::Corrupt(format!("{path} is not UTF-8")))
}

fn apply_commit(text: &str, version: u64, log: &str, budget: u64, state: &mut State) -> Result<()> {
    let what = commit_path(log, version);
    let mut budget = Budget::new(budget);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let action = json::parse(line, &mut budget, &what)?;
        if !matches!(action, Value::Map(_)) {
            return Err(Error::Corrupt(format!(
                "{what}: an action that is not an object"
            )));
        }
        apply_actions(&action, &what, state)?;
    }
    Ok(())
}

/// Applies every action in `row` (a JSON line, or a checkpoint row whose
/// other action columns are null).
fn apply_actions(row: &Value, what: &str, state: &mut State) -> Result<()> {
    let Value::Map(entries) = row else {
        return Err(Error::Corrupt(format!(
            "{what}: an action row that is not a map"
        )));
    };
    for (kind, action) in entries {
        if matches!(action, Value::Nil) {
            continue;
        }
        let Value::Str(kind) = kind else { continue };
        match kind.as_str() {
            "add" => {
                let file = add_file(action, what)?;
                let key = file_key(&file.log_path, file.deletion_vector.as_ref());
                state.files.shift_remove(&key);
                state.files.insert(key, file);
            }
            "remove" => {
                let path = string(action, "path", what)?;
                let dv = deletion::descriptor(action, what)?;
                state.files.shift_remove(&file_key(path, dv.as_ref()));
            }
            "metaData" => state.metadata = Some(action.clone()),
            "protocol" => state.protocol = Some(action.clone()),
            // commitInfo, txn, cdc, domainMetadata: nothing a reader of rows needs.
            _ => {}
        }
    }
    Ok(())
}

/// A live file's identity: its path and its deletion vector's (an `add` of
/// a path with a new vector and the `remove` of its old one may come in
/// either order within a commit).
fn file_key(path: &str, dv: Option<&DeletionVector>) -> String {
    match dv {
        Some(dv) => format!("{path}\n{}", dv.unique_id()),
        None => path.to_string(),
    }
}

fn string<'a>(action: &'a Value, key: &str, what: &str) -> Result<&'a str> {
    match action.get(key) {
        Some(Value::Str(s)) => Ok(s),
        _ => Err(Error::Corrupt(format!(
            "{what}: an action without a string '{key}'"
        ))),
    }
}

fn add_file(add: &Value, what: &str) -> Result<DeltaFile> {
    let log_path = string(add, "path", what)?.to_string();
    let deletion_vector = deletion::descriptor(add, what)?;
    let size = match add.get("size") {
        Some(Value::Int(s)) if *s >= 0 => *s as u64,
        _ => {
            return Err(Error::Corrupt(format!(
                "{what}: add {log_path} has no size"
            )))
        }
    };
    let partition_values = match add.get("partitionValues") {
        Some(Value::Map(entries)) => entries
            .iter()
            .map(|(k, v)| match (k, v) {
                (Value::Str(k), Value::Str(v)) => Ok((k.clone(), Some(v.clone()))),
                (Value::Str(k), Value::Nil) => Ok((k.clone(), None)),
                _ => Err(Error::Corrupt(format!(
                    "{what}: add {log_path} has a malformed partition value"
                ))),
            })
            .collect::<Result<Vec<_>>>()?,
        None | Some(Value::Nil) => Vec::new(),
        _ => {
            return Err(Error::Corrupt(format!(
                "{what}: add {log_path}'s partitionValues is not a map"
            )))
        }
    };
    let num_records = match add.get("stats") {
        Some(Value::Str(stats)) => {
            let stats = json::parse(
                stats,
                &mut Budget::new(stats.len() as u64 * 64 + 4096),
                what,
            )?;
            match stats.get("numRecords") {
                Some(Value::Int(n)) if *n >= 0 => Some(*n as u64),
                _ => None,
            }
        }
        _ => None,
    };
    Ok(DeltaFile {
        path: relative_path(&log_path, what)?,
        log_path,
        size,
        num_records,
        partition_values,
        deletion_vector,
    })
}

/// An `add` path (a relative URI) as a path under the table's directory.
fn relative_path(uri: &str, what: &str) -> Result<String> {
    if uri.contains("://") || uri.starts_with('/') {
        return Err(Error::UnsupportedProtocol(format!(
            "{what}: the data file '{uri}' is outside the table (absolute paths are not read)"
        )));
    }
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(crate::atria::json::hex_digits)
                .map(|h| h as u8)
                .ok_or_else(|| {
                    Error::Corrupt(format!("{what}: '{uri}' has a malformed %-escape"))
                })?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| {
        Error::Corrupt(format!(
            "{what}: '{uri}' decodes to bytes that are not UTF-8"
        ))
    })
}

fn finish(state: State, dir: &str, version: u64) -> Result<DeltaTable> {
    let what = format!("{dir} at version {version}");
    let metadata = state
        .metadata
        .ok_or_else(|| Error::Corrupt(format!("{what}: the log has no metaData")))?;
    let protocol_action = state
        .protocol
        .ok_or_else(|| Error::Corrupt(format!("{what}: the log has no protocol")))?;
    let configuration = match metadata.get("configuration") {
        Some(Value::Map(entries)) => entries
            .iter()
            .filter_map(|(k, v)| match (k, v) {
                (Value::Str(k), Value::Str(v)) => Some((k.clone(), v.clone())),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    protocol::check(&protocol_action, &what)?;
    let schema_text = string(&metadata, "schemaString", &what)?;
    let schema_json = json::parse(
        schema_text,
        &mut Budget::new(schema_text.len() as u64 * 64 + 4096),
        &what,
    )?;
    let mapped = protocol::column_mapping(&configuration, &what)?;
    let fields: Vec<Field> = schema::fields(&schema_json, mapped, &what)?;
    let partition_columns = match metadata.get("partitionColumns") {
        Some(Value::List(items)) => items
            .iter()
            .map(|c| match c {
                Value::Str(c) => Ok(c.clone()),
                _ => Err(Error::Corrupt(format!(
                    "{what}: a partition column that is not a string"
                ))),
            })
            .collect::<Result<Vec<_>>>()?,
        _ => Vec::new(),
    };
    let files = state
        .files
        .into_values()
        .map(|mut f| {
            f.path = format!("{dir}/{}", f.path);
            super::super::store::check_relative(&f.path).map_err(|_| {
                Error::Corrupt(format!(
                    "{what}: the data file '{}' leaves the table",
                    f.log_path
                ))
            })?;
            if let Some(path) = f.deletion_vector.as_mut().and_then(|dv| dv.path.as_mut()) {
                *path = format!("{dir}/{path}");
                super::super::store::check_relative(path).map_err(|_| {
                    Error::Corrupt(format!(
                        "{what}: the deletion vector of '{}' leaves the table",
                        f.log_path
                    ))
                })?;
            }
            Ok(f)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(DeltaTable {
        dir: dir.to_string(),
        version,
        fields,
        partition_columns,
        configuration,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_name_the_latest_complete_checkpoint() {
        let names: Vec<String> = [
            "00000000000000000000.json",
            "00000000000000000001.json",
            "00000000000000000001.checkpoint.parquet",
            "00000000000000000002.json",
            "00000000000000000002.checkpoint.0000000001.0000000002.parquet",
            "00000000000000000002.checkpoint.0000000002.0000000002.parquet",
            "00000000000000000003.checkpoint.0000000001.0000000002.parquet",
            "_last_checkpoint",
            "00000000000000000002.crc",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (start, commits) = from_listing(&names, "t").unwrap();
        assert_eq!(start, Some((2, 2)));
        assert_eq!(commits, Some(vec![0, 1, 2]));
    }

    #[test]
    fn add_paths_are_percent_decoded_and_kept_inside() {
        assert_eq!(
            relative_path("x=a%20b/part-0.parquet", "t").unwrap(),
            "x=a b/part-0.parquet"
        );
        for bad in [
            "s3://b/part.parquet",
            "/abs/part.parquet",
            "a%2",
            "a%zz",
            "a%+1",
        ] {
            assert!(relative_path(bad, "t").is_err(), "{bad}");
        }
    }
}
