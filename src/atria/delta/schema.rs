//! A Delta table's schema (`metaData.schemaString`): its top-level fields,
//! their types as Delta names them, and, under column mapping, the physical
//! names data files and partition values use for them.

use crate::atria::error::{Error, Result};

use super::super::value::Value;

/// One top-level column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The column's name.
    pub name: String,
    /// Its type as Delta spells it: `string`, `long`, `array<double>`,
    /// `struct<a: long>`, `map<string, long>`, `decimal(10,2)`.
    pub data_type: String,
    /// Whether it may be null.
    pub nullable: bool,
    /// The name data files and `partitionValues` give the column: its
    /// `delta.columnMapping.physicalName` under column mapping, else `name`.
    pub physical_name: String,
    /// How the column's nested struct fields are named in data files.
    pub(crate) nested: Rename,
}

/// Physical names inside a column, to give its values their logical names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Rename {
    /// Nothing inside is renamed.
    Same,
    /// A struct's fields: (physical name, logical name, what is inside).
    Struct(Vec<(String, String, Rename)>),
    /// A list's elements.
    List(Box<Rename>),
    /// A map's keys and values.
    Map(Box<Rename>, Box<Rename>),
}

impl Rename {
    /// `value` as read from a data file, with logical names (a struct's
    /// fields in schema order, null where a file predates a field).
    pub(crate) fn apply(&self, value: Value) -> Value {
        match (self, value) {
            (Rename::Same, value) => value,
            (Rename::Struct(fields), Value::Map(mut entries)) => Value::Map(
                fields
                    .iter()
                    .map(|(physical, logical, inner)| {
                        let found = entries
                            .iter()
                            .position(|(k, _)| matches!(k, Value::Str(k) if k == physical));
                        let value = match found {
                            Some(at) => inner.apply(entries.swap_remove(at).1),
                            None => Value::Nil,
                        };
                        (Value::Str(logical.clone()), value)
                    })
                    .collect(),
            ),
            (Rename::List(inner), Value::List(items)) => {
                Value::List(items.into_iter().map(|v| inner.apply(v)).collect())
            }
            (Rename::Map(keys, values), Value::Map(pairs)) => Value::Map(
                pairs
                    .into_iter()
                    .map(|(k, v)| (keys.apply(k), values.apply(v)))
                    .collect(),
            ),
            (_, value) => value,
        }
    }
}

/// The fields of a `schemaString` (already parsed as JSON); `mapped` when
/// the table uses column mapping (mode `name` or `id`).
pub(crate) fn fields(schema: &Value, mapped: bool, what: &str) -> Result<Vec<Field>> {
    let bad = |why: &str| Error::Corrupt(format!("{what}: the schema {why}"));
    if schema.get("type") != Some(&Value::Str("struct".into())) {
        return Err(bad("is not a struct"));
    }
    let Some(Value::List(items)) = schema.get("fields") else {
        return Err(bad("has no field list"));
    };
    items
        .iter()
        .map(|f| {
            let Some(Value::Str(name)) = f.get("name") else {
                return Err(bad("has a field without a name"));
            };
            let t = f.get("type").ok_or_else(|| bad("has an untyped field"))?;
            let malformed = || bad(&format!("gives field '{name}' a malformed type"));
            let data_type = type_name(t).ok_or_else(malformed)?;
            if has_variant(t) {
                return Err(Error::UnsupportedProtocol(format!(
                    "{what}: column '{name}' is of type variant, which is not supported"
                )));
            }
            Ok(Field {
                name: name.clone(),
                data_type,
                nullable: f.get("nullable") != Some(&Value::Bool(false)),
                physical_name: physical_name(f, mapped, what)?,
                nested: if mapped {
                    rename(t, what)?.ok_or_else(malformed)?
                } else {
                    Rename::Same
                },
            })
        })
        .collect()
}

/// A field's physical name: required of every field under column mapping.
fn physical_name(field: &Value, mapped: bool, what: &str) -> Result<String> {
    let name = match field.get("name") {
        Some(Value::Str(name)) => name,
        _ => return Err(Error::Corrupt(format!("{what}: a field without a name"))),
    };
    if !mapped {
        return Ok(name.clone());
    }
    match field
        .get("metadata")
        .and_then(|m| m.get("delta.columnMapping.physicalName"))
    {
        Some(Value::Str(physical)) if !physical.is_empty() => Ok(physical.clone()),
        _ => Err(Error::Corrupt(format!(
            "{what}: column mapping is on and field '{name}' has no physical name"
        ))),
    }
}

/// The physical names inside type `t`, under column mapping (`None`: a
/// malformed type).
fn rename(t: &Value, what: &str) -> Result<Option<Rename>> {
    let Value::Map(_) = t else {
        return Ok(Some(Rename::Same));
    };
    let inner = |key: &str| match t.get(key) {
        Some(t) => rename(t, what),
        None => Ok(None),
    };
    Ok(match t.get("type") {
        Some(Value::Str(k)) if k == "array" => {
            inner("elementType")?.map(|e| Rename::List(Box::new(e)))
        }
        Some(Value::Str(k)) if k == "map" => match (inner("keyType")?, inner("valueType")?) {
            (Some(k), Some(v)) => Some(Rename::Map(Box::new(k), Box::new(v))),
            _ => None,
        },
        Some(Value::Str(k)) if k == "struct" => {
            let Some(Value::List(items)) = t.get("fields") else {
                return Ok(None);
            };
            let mut fields = Vec::with_capacity(items.len());
            for f in items {
                let (Some(Value::Str(logical)), Some(t)) = (f.get("name"), f.get("type")) else {
                    return Ok(None);
                };
                let Some(inside) = rename(t, what)? else {
                    return Ok(None);
                };
                fields.push((physical_name(f, true, what)?, logical.clone(), inside));
            }
            Some(Rename::Struct(fields))
        }
        _ => None,
    })
}

/// Whether type `t` is or holds a variant.
fn has_variant(t: &Value) -> bool {
    match t {
        Value::Str(s) => s == "variant",
        Value::Map(_) => {
            let inner = ["elementType", "keyType", "valueType"]
                .iter()
                .filter_map(|k| t.get(k))
                .any(has_variant);
            let fields = match t.get("fields") {
                Some(Value::List(items)) => {
                    items.iter().filter_map(|f| f.get("type")).any(has_variant)
                }
                _ => false,
            };
            inner || fields
        }
        _ => false,
    }
}

fn type_name(t: &Value) -> Option<String> {
    match t {
        Value::Str(s) => Some(s.clone()),
        Value::Map(_) => match t.get("type")? {
            Value::Str(k) if k == "array" => {
                Some(format!("array<{}>", type_name(t.get("elementType")?)?))
            }
            Value::Str(k) if k == "map" => Some(format!(
                "map<{}, {}>",
                type_name(t.get("keyType")?)?,
                type_name(t.get("valueType")?)?
            )),
            Value::Str(k) if k == "struct" => {
                let Value::List(items) = t.get("fields")? else {
                    return None;
                };
                let inner = items
                    .iter()
                    .map(|f| match f.get("name")? {
                        Value::Str(n) => Some(format!("{n}: {}", type_name(f.get("type")?)?)),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some(format!("struct<{}>", inner.join(", ")))
            }
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::budget::Budget;

    #[test]
    fn types_are_named_as_delta_names_them() {
        let text = r#"{"type":"struct","fields":[
            {"name":"a","type":"long","nullable":false,"metadata":{}},
            {"name":"b","type":{"type":"array","elementType":"double","containsNull":true},"nullable":true,"metadata":{}},
            {"name":"c","type":{"type":"map","keyType":"string","valueType":{"type":"struct","fields":[{"name":"x","type":"boolean","nullable":true,"metadata":{}}]},"valueContainsNull":true},"nullable":true,"metadata":{}}]}"#;
        let schema = crate::atria::json::parse(text, &mut Budget::new(1 << 20), "t").unwrap();
        let f = fields(&schema, false, "t").unwrap();
        let names: Vec<_> = f
            .iter()
            .map(|f| (f.name.as_str(), f.data_type.as_str(), f.nullable))
            .collect();
        assert_eq!(
            names,
            [
                ("a", "long", false),
                ("b", "array<double>", true),
                ("c", "map<string, struct<x: boolean>>", true)
            ]
        );
    }
}
