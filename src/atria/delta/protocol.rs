//! Which Delta reader protocols this reader honours.
//!
//! Reader versions 1 and 2 (2 allows column mapping, which a table only uses
//! when `delta.columnMapping.mode` says so: `name` and `id` are read by
//! physical names). Version 3 lists its
//! `readerFeatures`; those that change nothing for a reader of plain rows
//! are honoured, and so are deletion vectors (applied); any other is refused
//! by name rather than read wrong.

use crate::atria::error::{Error, Result};

use super::super::value::Value;

/// Reader features whose tables this reader reads correctly: `timestampNtz`
/// is a column type (the parquet reader's business), `vacuumProtocolCheck`
/// only binds writers and vacuum, `columnMapping` is read by physical names
/// (schema.rs), `deletionVectors` are applied.
const HONOURED: &[&str] = &[
    "timestampNtz",
    "vacuumProtocolCheck",
    "columnMapping",
    // Honoured by refusing a column of type variant (schema.rs): a table
    // without one reads as any other.
    "variantType",
    // Applied: the rows an `add`'s deletion vector names are skipped (deletion.rs, rows.rs).
    "deletionVectors",
];

/// Refuses the table when its `protocol` action asks for what this reader
/// cannot honour.
pub(crate) fn check(protocol: &Value, what: &str) -> Result<()> {
    let refuse = |why: String| Error::UnsupportedProtocol(format!("{what}: {why}"));
    let version = match protocol.get("minReaderVersion") {
        Some(Value::Int(v)) => *v,
        _ => {
            return Err(Error::Corrupt(format!(
                "{what}: a protocol without minReaderVersion"
            )))
        }
    };
    match version {
        1 | 2 => {}
        3 => {
            let features = match protocol.get("readerFeatures") {
                Some(Value::List(items)) => items,
                None | Some(Value::Nil) => &Vec::new(),
                _ => {
                    return Err(Error::Corrupt(format!(
                        "{what}: readerFeatures is not a list"
                    )))
                }
            };
            for feature in features {
                let Value::Str(name) = feature else {
                    return Err(Error::Corrupt(format!(
                        "{what}: a reader feature that is not a string"
                    )));
                };
                if !HONOURED.contains(&name.as_str()) {
                    return Err(refuse(format!("reader feature '{name}' is not supported")));
                }
            }
        }
        v => {
            return Err(refuse(format!(
                "reader protocol version {v} is not supported (1 to 3 are)"
            )))
        }
    }
    // Column mapping renames the parquet columns: only its "none" mode reads
    // as plain names.
    Ok(())
}

/// Whether the table maps columns to physical names (`delta.columnMapping.mode`
/// `name` or `id`; both are read by physical name, the names delta-rs and
/// Spark write data files with).
pub(crate) fn column_mapping(configuration: &[(String, String)], what: &str) -> Result<bool> {
    match configuration
        .iter()
        .find(|(k, _)| k == "delta.columnMapping.mode")
        .map(|(_, mode)| mode.as_str())
    {
        None | Some("none") => Ok(false),
        Some("name" | "id") => Ok(true),
        Some(mode) => Err(Error::UnsupportedProtocol(format!(
            "{what}: column mapping mode '{mode}' is not supported (none, name and id are)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protocol(version: i64, features: &[&str]) -> Value {
        Value::Map(vec![
            (Value::Str("minReaderVersion".into()), Value::Int(version)),
            (
                Value::Str("readerFeatures".into()),
                Value::List(features.iter().map(|f| Value::Str(f.to_string())).collect()),
            ),
        ])
    }

    #[test]
    fn unknown_features_are_refused_by_name() {
        check(&protocol(1, &[]), "t").unwrap();
        check(&protocol(3, &["timestampNtz"]), "t").unwrap();
        check(&protocol(3, &["deletionVectors"]), "t").unwrap();
        for (p, feature) in [
            (
                protocol(3, &["timestampNtz", "deletionVectors", "v2Checkpoint"]),
                "v2Checkpoint",
            ),
            (protocol(3, &["v2Checkpoint"]), "v2Checkpoint"),
            (protocol(4, &[]), "version 4"),
        ] {
            let e = check(&p, "t").unwrap_err();
            assert_eq!(e.code(), "UnsupportedProtocol");
            assert!(e.to_string().contains(feature), "{e}");
        }
        for mode in ["none", "name", "id"] {
            let mapped = [("delta.columnMapping.mode".to_string(), mode.to_string())];
            check(&protocol(3, &["columnMapping", "variantType"]), "t").unwrap();
            assert_eq!(column_mapping(&mapped, "t").unwrap(), mode != "none");
        }
        let odd = [("delta.columnMapping.mode".to_string(), "fancy".to_string())];
        let e = column_mapping(&odd, "t").unwrap_err();
        assert!(e.to_string().contains("'fancy'"), "{e}");
    }
}
