//! The rooms of `read/`, `format/` and `write/` import each other without a
//! circle, and `read/mod.rs`'s table of rooms is complete and in an order
//! where every file imports only files below it (docs/architecture.md).
//! Read from the source, so a new import that closes a circle, or a new
//! file left out of the table, fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The modules directly under `src/<dir>/` (files and folders), each with
/// the sibling modules its source names, through `crate::<dir>::NAME`, or
/// `super::NAME` from a file directly in the folder.
fn edges(dir: &str) -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir);
    let mut modules: BTreeMap<String, Vec<(PathBuf, bool)>> = BTreeMap::new();
    for entry in std::fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        if stem == "mod" {
            continue;
        }
        let files = modules.entry(stem).or_default();
        if path.is_dir() {
            files.extend(rust_files(&path).into_iter().map(|f| (f, false)));
        } else {
            files.push((path, true));
        }
    }
    let names: BTreeSet<String> = modules.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (module, files) in &modules {
        let mut named = BTreeSet::new();
        for (file, top) in files {
            let text = strip_comments(&std::fs::read_to_string(file).unwrap());
            let mut prefixes = vec![format!("crate::{dir}::")];
            if *top {
                prefixes.push("super::".into());
            }
            for prefix in &prefixes {
                for target in paths_after(&text, prefix) {
                    if names.contains(&target) && &target != module {
                        named.insert(target);
                    }
                }
            }
        }
        graph.insert(module.clone(), named);
    }
    graph
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// Source without `//` comments, so a path named in prose is no import.
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|line| line.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segment after each `prefix`: `prefix` `name`, or each item of
/// `prefix{a::x, b}`.
fn paths_after(text: &str, prefix: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        rest = &rest[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level items of the group: split at commas outside braces.
            let (mut depth, mut start) = (0, 0);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.push(ident(group[start..i].trim()));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(ident(group[start..i].trim()));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest));
        }
    }
    out
}

/// A circle in `graph`, if there is one, as the modules along it.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in &graph[node] {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_circle_in_read_format_or_write() {
    for dir in ["read", "format", "write"] {
        let graph = edges(dir);
        assert!(graph.len() > 5, "{dir}: found only {:?}", graph.keys());
        if let Some(found) = circle(&graph) {
            panic!("{dir}/ has an import circle: {}", found.join(" → "));
        }
    }
}

#[test]
fn read_rooms_are_listed_top_down() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/read/mod.rs"))
            .unwrap();
    // Rows of the doc table: "//! | `name.rs` | what |".
    let listed: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("//! | `"))
        .filter_map(|l| l.split_once(".rs`"))
        .map(|(name, _)| name.to_string())
        .collect();
    let graph = edges("read");
    let modules: BTreeSet<&String> = graph.keys().collect();
    assert_eq!(
        listed.iter().collect::<BTreeSet<_>>(),
        modules,
        "read/mod.rs's table lists every file of read/, once"
    );
    let rank = |m: &str| listed.iter().position(|l| l == m).unwrap();
    for (module, imports) in &graph {
        for import in imports {
            assert!(
                rank(import) > rank(module),
                "read/{module}.rs imports read/{import}.rs, which the table lists above it"
            );
        }
    }
}

#[test]
fn the_reader_of_imports_sees_groups_and_circles() {
    let text = "use crate::read::{handle::Shared, sink::{A, B}};\nuse super::cache;";
    assert_eq!(
        paths_after(text, "crate::read::"),
        ["handle", "sink"],
        "a group's items"
    );
    assert_eq!(paths_after(text, "super::"), ["cache"]);
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.into(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(circle(&graph).unwrap(), ["a", "b", "c", "a"]);
    let mut straight = graph.clone();
    straight.get_mut("c").unwrap().clear();
    assert_eq!(circle(&straight), None);
}
