//! The differential run in `cargo test`: a few hundred random collections,
//! each written by atlas-rust 0.17.2 and by atlas-wasm's writer and read by
//! both readers (`atlas_interop::differential`), and every committed
//! regression fixture under `tests/differential/`.
//!
//! The long run is `cargo run -p atlas-interop --release -- diff --cases 100000`.

use std::path::Path;

use atlas_interop::differential::{replay, run, RunOptions};

/// Cases run here; `ATLAS_DIFF_CASES` overrides.
const CASES: u64 = 300;

#[test]
fn random_collections_agree_across_writers_and_readers() {
    let cases = std::env::var("ATLAS_DIFF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES);
    let summary = run(&RunOptions {
        seed: 20_240_501,
        cases,
        fixtures: None,
        js_out: None,
        js_cases: 0,
        verbose: true,
        strict: false,
    })
    .unwrap();
    eprintln!(
        "{} cases, {} disagreements in {:.1} s",
        summary.cases,
        summary.disagreements,
        summary.elapsed.as_secs_f64()
    );
    assert_eq!(summary.cases, cases);
    assert!(
        summary.refused_by_both * 10 < cases,
        "{} cases were refused by both writers: the generator strays",
        summary.refused_by_both
    );
    let shown: Vec<String> = summary
        .found
        .iter()
        .map(|(index, lines)| format!("case {index}:\n  {}", lines.join("\n  ")))
        .collect();
    assert!(shown.is_empty(), "disagreements:\n{}", shown.join("\n"));
}

#[test]
fn committed_regression_fixtures_agree() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/differential");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no fixtures in {}", dir.display());
    for path in paths {
        let (fixture, lines) = replay(&path).unwrap();
        match &fixture.open {
            None => assert!(
                lines.is_empty(),
                "{} disagrees again:\n{}",
                path.display(),
                lines.join("\n")
            ),
            Some(why) => assert!(
                !lines.is_empty(),
                "{} agrees now; it was open ({why}): drop `open` and keep it as a regression",
                path.display()
            ),
        }
    }
}
