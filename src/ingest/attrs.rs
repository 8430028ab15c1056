//! NetCDF attribute values as atlas-python stores them: what netCDF4-python
//! returns (a scalar for one element, an array otherwise), then
//! atlas-python's rule: ints, floats and strings stay as they are, anything
//! else becomes `json:` + Python's `json.dumps` of it.

use netcdf::AttributeValue;

use crate::format::value::Attr;

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
        V::Floats(items) => json(items.iter().map(|v| python_float(*v as f64))),
        V::Doubles(items) => json(items.iter().map(|v| python_float(*v))),
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

/// `json.dumps` of a str: ASCII only, so everything else is `\uXXXX`.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Python's `repr(float)`, which `json.dumps` uses: the shortest digits that
/// round-trip, positional for exponents -4..16, scientific otherwise.
pub(crate) fn python_float(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    // `{:e}` gives the shortest round-trip digits as d.ddde±x.
    let sci = format!("{v:e}");
    let (mantissa, exponent) = sci.split_once('e').expect("LowerExp has an e");
    let exponent: i32 = exponent.parse().expect("LowerExp exponent is an integer");
    let (sign, mantissa) = mantissa
        .strip_prefix('-')
        .map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        let body = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            let (int, frac) = digits.split_at(point as usize);
            format!("{int}.{frac}")
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let mantissa = if rest.is_empty() {
            first.to_string()
        } else {
            format!("{first}.{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}e{exp_sign}{:02}", exponent.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (0.1f32 as f64, "0.10000000149011612"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1e20, "1e+20"),
            (123.456, "123.456"),
            (-273.15, "-273.15"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (v, want) in cases {
            assert_eq!(python_float(v), want, "{v}");
        }
    }

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
