//! NetCDF attribute values as atlas-python stores them: what netCDF4-python
//! returns (a scalar for one element, an array otherwise), then
//! atlas-python's rule: ints, floats and strings stay as they are, anything
//! else becomes `json:` + Python's `json.dumps` of it.

use netcdf::AttributeValue;

use crate::format::value::Attr;
use crate::pytext::{json_float, json_str};

/// The prefix atlas-python puts before a JSON-encoded attribute value.
pub const JSON_PREFIX: &str = "json:";

/// One attribute value, converted.
pub(crate) fn convert(value: &AttributeValue) -> Attr {
    use AttributeValue as V;
    match value {
        V::Uchar(v) => Attr::Int64(*v as i64),
        V::Schar(v) => Attr::Int64(*v as i64),
        V::Ushort(v) => Attr::Int64(*v as i64),
        V::Short(v) => Attr::Int64(*v as i64),
        V::Uint(v) => Attr::Int64(*v as i64),
        V::Int(v) => Attr::Int64(*v as i64),
        V::Longlong(v) => Attr::Int64(*v),
        V::Ulonglong(v) => i64::try_from(*v).map_or(Attr::UInt64(*v), Attr::Int64),
        V::Float(v) => Attr::Float64(*v as f64),
        V::Double(v) => Attr::Float64(*v),
        V::Str(s) => Attr::String(s.clone()),
        V::Strs(items) if items.len() == 1 => Attr::String(items[0].clone()),
        V::Strs(items) => json(items.iter().map(|s| json_string(s))),
        V::Uchars(items) => json(items.iter().map(|v| v.to_string())),
        V::Schars(items) => json(items.iter().map(|v| v.to_string())),
        V::Ushorts(items) => json(items.iter().map(|v| v.to_string())),
        V::Shorts(items) => json(items.iter().map(|v| v.to_string())),
        V::Uints(items) => json(items.iter().map(|v| v.to_string())),
        V::Ints(items) => json(items.iter().map(|v| v.to_string())),
        V::Ulonglongs(items) => json(items.iter().map(|v| v.to_string())),
        V::Longlongs(items) => json(items.iter().map(|v| v.to_string())),
        V::Floats(items) => json(items.iter().map(|v| json_float(*v as f64))),
        V::Doubles(items) => json(items.iter().map(|v| json_float(*v))),
    }
}

fn json(items: impl Iterator<Item = String>) -> Attr {
    let body: Vec<String> = items.collect();
    Attr::String(format!("{JSON_PREFIX}[{}]", body.join(", ")))
}

/// A JSON list of strings, as `json.dumps` writes it (atlas-python's
/// `_pyatlas_coords` marker is one).
pub(crate) fn json_string_list<S: AsRef<str>>(items: &[S]) -> String {
    let body: Vec<String> = items.iter().map(|s| json_string(s.as_ref())).collect();
    format!("[{}]", body.join(", "))
}

/// `json.dumps` of a str.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    json_str(&mut out, s);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_become_json_and_scalars_stay() {
        use AttributeValue as V;
        assert_eq!(convert(&V::Short(-3)), Attr::Int64(-3));
        assert_eq!(convert(&V::Float(0.5)), Attr::Float64(0.5));
        assert_eq!(
            convert(&V::Strs(vec!["a".into()])),
            Attr::String("a".into())
        );
        assert_eq!(
            convert(&V::Doubles(vec![1.0, 2.5])),
            Attr::String("json:[1.0, 2.5]".into())
        );
        assert_eq!(
            convert(&V::Schars(vec![1, -2, 3])),
            Attr::String("json:[1, -2, 3]".into())
        );
        assert_eq!(
            convert(&V::Strs(vec!["Zürich".into(), "a\"b".into()])),
            Attr::String("json:[\"Z\\u00fcrich\", \"a\\\"b\"]".into())
        );
        assert_eq!(json_string_list(&["time", "lat"]), "[\"time\", \"lat\"]");
        assert_eq!(json_string_list::<&str>(&[]), "[]");
        assert_eq!(json_string("😀"), "\"\\ud83d\\ude00\"");
    }
}
