//! A Delta table's schema (`metaData.schemaString`): its top-level fields,
//! their types as Delta names them.

use crate::error::{Error, Result};

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
}

/// The fields of a `schemaString` (already parsed as JSON).
pub(crate) fn fields(schema: &Value, what: &str) -> Result<Vec<Field>> {
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
            let data_type = type_name(f.get("type").ok_or_else(|| bad("has an untyped field"))?)
                .ok_or_else(|| bad(&format!("gives field '{name}' a malformed type")))?;
            Ok(Field {
                name: name.clone(),
                data_type,
                nullable: f.get("nullable") != Some(&Value::Bool(false)),
            })
        })
        .collect()
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
        let f = fields(&schema, "t").unwrap();
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
