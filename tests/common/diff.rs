//! The first places two JSON values differ, as paths: a readable failure.

use serde_json::Value;

pub fn differences(ours: &Value, theirs: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk("$", ours, theirs, &mut out);
    out
}

fn walk(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    if out.len() >= 20 {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let null = Value::Null;
                walk(
                    &format!("{path}.{k}"),
                    x.get(k).unwrap_or(&null),
                    y.get(k).unwrap_or(&null),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                walk(&format!("{path}[{i}]"), p, q, out);
            }
        }
        _ if a == b => {}
        _ => {
            let show = |v: &Value| {
                let s = v.to_string();
                if s.len() > 200 {
                    format!("{}…", &s[..200])
                } else {
                    s
                }
            };
            out.push(format!("{path}: ours {} / atlas-rust {}", show(a), show(b)));
        }
    }
}
