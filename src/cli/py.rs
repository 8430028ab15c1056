//! Values as atlas-python hands them to its printer, and the two ways it
//! prints them: `_format_value` for text and `json.dumps(indent=2)`.
//!
//! Mirroring the Python objects (ints of any size, floats with `repr`,
//! `bytes` beside `str`) is what lets `atlas show` here print the same
//! characters as `atlas show` there.

use std::fmt::Write;

use crate::pytext::{float_repr, json_str};

/// A Python value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Py {
    None,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<Py>),
    Dict(Vec<(String, Py)>),
}

impl Py {
    pub(crate) fn dict<K: Into<String>>(items: impl IntoIterator<Item = (K, Py)>) -> Py {
        Py::Dict(items.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    pub(crate) fn str(s: impl Into<String>) -> Py {
        Py::Str(s.into())
    }

    pub(crate) fn int(v: impl Into<i128>) -> Py {
        Py::Int(v.into())
    }

    /// `dict[key]`, or `None` when absent or not a dict.
    pub(crate) fn get(&self, key: &str) -> &Py {
        match self {
            Py::Dict(items) => items
                .iter()
                .find(|(k, _)| k == key)
                .map_or(&Py::None, |(_, v)| v),
            _ => &Py::None,
        }
    }

    /// The items of a list; none for anything else.
    pub(crate) fn items(&self) -> &[Py] {
        match self {
            Py::List(items) => items,
            _ => &[],
        }
    }

    /// The entries of a dict; none for anything else.
    pub(crate) fn entries(&self) -> &[(String, Py)] {
        match self {
            Py::Dict(items) => items,
            _ => &[],
        }
    }

    /// `str(value)`: a string bare, anything else as `text` prints it.
    pub(crate) fn plain(&self) -> String {
        match self {
            Py::Str(s) => s.clone(),
            other => other.text(),
        }
    }

    /// Python's `str(list)` for a list of numbers: `[1, 2]`.
    pub(crate) fn list_repr(&self) -> String {
        let items: Vec<String> = self.items().iter().map(Py::text).collect();
        format!("[{}]", items.join(", "))
    }

    /// `_format_value`: how `atlas show` prints an attribute or a bound.
    pub(crate) fn text(&self) -> String {
        match self {
            Py::None => "-".into(),
            Py::Bytes(b) => match std::str::from_utf8(b) {
                Ok(s) => format!("\"{s}\""),
                Err(_) => bytes_repr(b),
            },
            Py::Str(s) => format!("\"{s}\""),
            Py::Bool(b) => if *b { "true" } else { "false" }.into(),
            Py::List(items) => items.iter().map(Py::text).collect::<Vec<_>>().join(", "),
            Py::Dict(_) => {
                let mut out = String::new();
                self.json_into(&mut out, None, 0);
                out
            }
            Py::Int(v) => v.to_string(),
            Py::Float(v) => float_repr(*v),
        }
    }

    /// `json.dumps(value, indent=2)` with atlas-python's `default` (bytes
    /// decode as UTF-8, else hex).
    pub(crate) fn json(&self) -> String {
        let mut out = String::new();
        self.json_into(&mut out, Some(2), 0);
        out
    }

    fn json_into(&self, out: &mut String, indent: Option<usize>, depth: usize) {
        let newline = |out: &mut String, depth: usize| {
            if let Some(step) = indent {
                out.push('\n');
                out.push_str(&" ".repeat(step * depth));
            }
        };
        match self {
            Py::None => out.push_str("null"),
            Py::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Py::Int(v) => out.push_str(&v.to_string()),
            Py::Float(v) if v.is_nan() => out.push_str("NaN"),
            Py::Float(v) if v.is_infinite() => {
                out.push_str(if *v > 0.0 { "Infinity" } else { "-Infinity" })
            }
            Py::Float(v) => out.push_str(&float_repr(*v)),
            Py::Str(s) => json_str(out, s),
            Py::Bytes(b) => match std::str::from_utf8(b) {
                Ok(s) => json_str(out, s),
                Err(_) => json_str(
                    out,
                    &b.iter().map(|x| format!("{x:02x}")).collect::<String>(),
                ),
            },
            Py::List(items) if items.is_empty() => out.push_str("[]"),
            Py::Dict(items) if items.is_empty() => out.push_str("{}"),
            Py::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(if indent.is_some() { "," } else { ", " });
                    }
                    newline(out, depth + 1);
                    item.json_into(out, indent, depth + 1);
                }
                newline(out, depth);
                out.push(']');
            }
            Py::Dict(items) => {
                out.push('{');
                for (i, (key, value)) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(if indent.is_some() { "," } else { ", " });
                    }
                    newline(out, depth + 1);
                    json_str(out, key);
                    out.push_str(": ");
                    value.json_into(out, indent, depth + 1);
                }
                newline(out, depth);
                out.push('}');
            }
        }
    }
}

/// Python's `repr(bytes)`.
fn bytes_repr(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    let mut out = format!("b{quote}");
    for &x in b {
        match x {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            x if x as char == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(x as char),
            x => {
                let _ = write!(out, "\\x{x:02x}");
            }
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_text_match_python() {
        let v = Py::dict([
            ("s", Py::str("«w» 🌍")),
            ("b", Py::Bytes(vec![0, 0xde])),
            (
                "l",
                Py::List(vec![Py::Float(f64::NAN), Py::Int(u64::MAX as i128)]),
            ),
            ("e", Py::List(vec![])),
        ]);
        assert_eq!(
            v.json(),
            "{\n  \"s\": \"\\u00abw\\u00bb \\ud83c\\udf0d\",\n  \"b\": \"00de\",\n  \"l\": [\n    NaN,\n    18446744073709551615\n  ],\n  \"e\": []\n}"
        );
        assert_eq!(Py::Bytes(vec![0, 0xde, b'a']).text(), "b'\\x00\\xdea'");
        assert_eq!(
            Py::List(vec![Py::str("a"), Py::Bool(true)]).text(),
            "\"a\", true"
        );
        assert_eq!(
            Py::dict([("a", Py::List(vec![Py::Int(1)]))]).text(),
            "{\"a\": [1]}"
        );
    }
}
