//! Differential tests: random collections written by atlas-rust 0.17.2 and
//! by our writer, each read by atlas-rust and by our reader.
//!
//! A [`Case`] describes one collection ([`case::generate`] draws one from a
//! seed). [`check`] writes it twice, A by atlas-rust and B by ours (each
//! followed by its deletions), and reports every disagreement:
//!
//! - atlas-rust's canonical dump of A against that of B (the writers);
//! - our reader's dump of A against atlas-rust's of A, and of B against B
//!   (the readers; `tests/common/dump.rs` is our side of the contract);
//! - the two footers (creation time aside) and the segment bytes, which
//!   our writer promises are atlas-rust's byte for byte;
//! - random windows (edge chunks included) read through our reader against
//!   the same window cut out of atlas-rust's whole read;
//! - one writer refusing a case the other writes.
//!
//! [`run`] checks many seeded cases, shrinks each disagreement
//! ([`minimise`]) and keeps it as a JSON fixture; `tests/differential/`
//! holds the committed ones, replayed by `interop/tests/differential.rs`.

pub mod case;
mod writers;

#[allow(dead_code)]
#[path = "../../../tests/common/dump.rs"]
mod our_dump;

#[allow(dead_code)]
#[path = "../../../tests/common/diff.rs"]
mod json_diff;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use case::Rng;
pub use case::{generate, Case};

/// What one check found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// One line per disagreement, each starting with its kind and a colon.
    pub disagreements: Vec<String>,
    /// Both writers refused the case (the generator strayed outside the format).
    pub refused_by_both: bool,
}

/// A committed regression fixture: a minimised case and what it showed.
#[derive(Debug, Serialize, Deserialize)]
pub struct Fixture {
    /// Which run and case found it.
    pub found_by: String,
    /// The disagreement the minimised case showed when it was kept.
    pub disagreement: Vec<String>,
    /// Set when the disagreement is known and not fixed (why, and where it
    /// is reported): the fixture is replayed strictly and must still show
    /// it, so a fix is noticed. Unset: replayed as a regression, it must agree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<String>,
    pub case: Case,
}

/// Writes and reads `case` under `root` (two collections, `theirs` and
/// `ours`), and returns what disagreed.
///
/// Not `strict`, the writers' known, deliberate divergences are not
/// reported: with `interleave` (atlas-rust lists a segment's arrays in
/// define order, ours in `add_dataset` order) or an `abandoned` dataset
/// (atlas-rust keeps its arrays in their segments, ours drops them), the
/// writer comparison (A against B: dumps, footers, bytes) is skipped; the
/// readers are still held to each other on both files.
pub fn check_in(case: &Case, rt: &tokio::runtime::Runtime, root: &Path, strict: bool) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| check_inner(case, rt, root, strict))) {
        Ok(outcome) => outcome,
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Outcome {
                disagreements: vec![format!("panic: {message}")],
                refused_by_both: false,
            }
        }
    }
}

/// [`check_in`] in a scratch directory removed afterwards.
pub fn check(case: &Case, rt: &tokio::runtime::Runtime, strict: bool) -> Outcome {
    let scratch = scratch_dir();
    check_in(case, rt, scratch.path(), strict)
}

/// A scratch directory in memory where there is one: both writers sync
/// what they write, which on a disk costs more than the rest of a case.
fn scratch_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(dir) = tempfile::tempdir_in(shm) {
            return dir;
        }
    }
    tempfile::tempdir().expect("a scratch directory")
}

fn check_inner(case: &Case, rt: &tokio::runtime::Runtime, root: &Path, strict: bool) -> Outcome {
    let (a, b) = (root.join("theirs"), root.join("ours"));
    let wrote_a = rt.block_on(writers::write_theirs(case, &a));
    let wrote_b = rt.block_on(writers::write_ours(case, &b));
    let mut out = Vec::new();
    match (&wrote_a, &wrote_b) {
        (Ok(()), Ok(())) => {}
        (Err(_), Err(_)) => {
            return Outcome {
                disagreements: Vec::new(),
                refused_by_both: true,
            }
        }
        (Err(e), Ok(())) => out.push(format!("writers: atlas-rust refuses ({e:#}), ours writes")),
        (Ok(()), Err(e)) => out.push(format!("writers: ours refuses ({e:#}), atlas-rust writes")),
    }
    if !out.is_empty() {
        return Outcome {
            disagreements: out,
            refused_by_both: false,
        };
    }

    let theirs_a = theirs_dump(rt, &a);
    let theirs_b = theirs_dump(rt, &b);
    let ours_a = ours_dump(&a);
    let ours_b = ours_dump(&b);
    let writers_diverge = case.interleave || case.datasets.iter().any(|d| d.abandoned);
    let compare_writers = strict || !writers_diverge;
    if compare_writers {
        compare(
            &mut out,
            "writers (atlas-rust reads A and B)",
            &theirs_b,
            &theirs_a,
        );
    }
    compare(
        &mut out,
        "readers on A (atlas-rust's file)",
        &ours_a,
        &theirs_a,
    );
    compare(&mut out, "readers on B (our file)", &ours_b, &theirs_b);
    if compare_writers {
        bytes(&mut out, &a, &b);
    }
    for (label, dir, doc) in [("A", &a, &theirs_a), ("B", &b, &theirs_b)] {
        if let Ok(doc) = doc {
            for w in windows(case, doc) {
                if let Err(line) = check_window(dir, &w) {
                    out.push(format!("window on {label}: {line}"));
                }
            }
        }
    }
    Outcome {
        disagreements: out,
        refused_by_both: false,
    }
}

fn theirs_dump(rt: &tokio::runtime::Runtime, dir: &Path) -> Result<Value, String> {
    let mut doc = rt
        .block_on(crate::dump_async(dir))
        .map_err(|e| format!("{e:#}"))?;
    doc.as_object_mut().unwrap().remove("created_unix_ms");
    Ok(doc)
}

fn ours_dump(dir: &Path) -> Result<Value, String> {
    let atlas =
        futures_executor::block_on(atlas_wasm::Atlas::open_path(dir)).map_err(|e| e.to_string())?;
    let mut doc = futures_executor::block_on(our_dump::dump(&atlas)).map_err(|e| e.to_string())?;
    doc.as_object_mut().unwrap().remove("created_unix_ms");
    Ok(doc)
}

/// Adds a line per difference of `ours` from `theirs` (`ours` is the left side).
fn compare(
    out: &mut Vec<String>,
    what: &str,
    ours: &Result<Value, String>,
    theirs: &Result<Value, String>,
) {
    match (ours, theirs) {
        (Ok(x), Ok(y)) => {
            for line in json_diff::differences(x, y).into_iter().take(8) {
                out.push(format!("{what}: {line}"));
            }
        }
        (Err(e), Err(f)) if e == f => {}
        (x, y) => out.push(format!(
            "{what}: one side fails: left {:?} / right {:?}",
            x.as_ref().err(),
            y.as_ref().err()
        )),
    }
}

/// The footers (creation time aside) and every segment byte of A and B.
fn bytes(out: &mut Vec<String>, a: &Path, b: &Path) {
    let open = |dir: &Path| futures_executor::block_on(atlas_wasm::Atlas::open_path(dir));
    let (Ok(x), Ok(y)) = (open(a), open(b)) else {
        return;
    };
    let (mut fx, mut fy) = (x.footer().clone(), y.footer().clone());
    fx.created_unix_ms = 0;
    fy.created_unix_ms = 0;
    if fx != fy {
        let (sx, sy) = (format!("{fx:?}"), format!("{fy:?}"));
        let at = sx
            .bytes()
            .zip(sy.bytes())
            .position(|(p, q)| p != q)
            .unwrap_or(sx.len().min(sy.len()));
        let near = |s: &str| {
            s.chars()
                .skip(at.saturating_sub(40))
                .take(120)
                .collect::<String>()
        };
        out.push(format!(
            "footers: ours …{}… / atlas-rust …{}…",
            near(&sy),
            near(&sx)
        ));
        return;
    }
    let segments = |dir: &Path| -> Option<Vec<u8>> {
        let data = std::fs::read(dir.join("data.atlas")).ok()?;
        let footer =
            atlas_wasm::format::container::decode_trailer(&data, data.len() as u64).ok()?;
        Some(data[..footer.start as usize].to_vec())
    };
    let (sa, sb) = (segments(a), segments(b));
    if sa != sb {
        let at = match (&sa, &sb) {
            (Some(p), Some(q)) => p.iter().zip(q).position(|(u, v)| u != v),
            _ => None,
        };
        out.push(format!(
            "segment bytes: ours {} B / atlas-rust {} B, first difference at {at:?}",
            sb.map_or(0, |s| s.len()),
            sa.map_or(0, |s| s.len())
        ));
    }
}

/// A window of one array and what atlas-rust's whole read says it holds.
#[derive(Debug, Serialize)]
pub struct Window {
    pub dataset: String,
    pub array: String,
    pub start: Vec<u64>,
    pub shape: Vec<u64>,
    pub values: Vec<Value>,
}

/// Random windows (edge chunks, empty ones, whole ones) of every live array
/// in `doc`, their values cut from atlas-rust's whole read.
pub fn windows(case: &Case, doc: &Value) -> Vec<Window> {
    let mut r = Rng::new(case.window_seed);
    let mut out = Vec::new();
    for ds in doc["datasets"].as_array().into_iter().flatten() {
        for a in ds["arrays"].as_array().into_iter().flatten() {
            let Some(values) = a["values"].as_array() else {
                continue;
            };
            let shape: Vec<u64> = a["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_u64().unwrap())
                .collect();
            let chunk: Vec<u64> = a["chunk_shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_u64().unwrap())
                .collect();
            for _ in 0..3 {
                let (start, size) = window_in(&mut r, &shape, &chunk);
                out.push(Window {
                    dataset: ds["name"].as_str().unwrap().to_string(),
                    array: a["name"].as_str().unwrap().to_string(),
                    values: cut(values, &shape, &start, &size),
                    start,
                    shape: size,
                });
            }
        }
    }
    out
}

fn window_in(r: &mut Rng, shape: &[u64], chunk: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let mut start = Vec::with_capacity(shape.len());
    let mut size = Vec::with_capacity(shape.len());
    for (axis, &s) in shape.iter().enumerate() {
        let (b, n) = match r.below(4) {
            // The last (edge) chunk of this axis.
            0 if s > 0 => {
                let c = chunk[axis].max(1);
                let b = (s - 1) / c * c;
                (b, s - b)
            }
            // Empty, anywhere up to the end.
            1 if r.chance(15) => (r.range(0, s), 0),
            _ if s == 0 => (0, 0),
            _ => {
                let b = r.below(s);
                (b, r.range(1, s - b))
            }
        };
        start.push(b);
        size.push(n);
    }
    (start, size)
}

/// The C-order elements of `window` at `start` out of `values` of `shape`.
pub fn cut(values: &[Value], shape: &[u64], start: &[u64], window: &[u64]) -> Vec<Value> {
    let count: u64 = window.iter().product();
    let mut out = Vec::with_capacity(count as usize);
    for flat in 0..count {
        let (mut rest, mut src) = (flat, 0u64);
        let mut index = vec![0u64; shape.len()];
        for axis in (0..shape.len()).rev() {
            index[axis] = rest % window[axis];
            rest /= window[axis];
        }
        for axis in 0..shape.len() {
            src = src * shape[axis] + start[axis] + index[axis];
        }
        out.push(values[src as usize].clone());
    }
    out
}

fn check_window(dir: &Path, w: &Window) -> Result<(), String> {
    let read = futures_executor::block_on(async {
        let atlas = atlas_wasm::Atlas::open_path(dir).await?;
        let ds = atlas.dataset(&w.dataset)?;
        ds.read_array(&w.array, &w.start, &w.shape).await
    });
    let at = format!("{}/{} {:?}+{:?}", w.dataset, w.array, w.start, w.shape);
    let read = read.map_err(|e| format!("{at}: ours refuses: {e}"))?;
    if read.shape != w.shape {
        return Err(format!("{at}: ours answers shape {:?}", read.shape));
    }
    let got = our_dump::values(&read.data);
    let want = Value::Array(w.values.clone());
    match json_diff::differences(&got, &want).first() {
        None => Ok(()),
        Some(line) => Err(format!("{at}: {line}")),
    }
}

/// The kind of a disagreement: its text up to the first colon.
fn kind(lines: &[String]) -> String {
    lines
        .first()
        .map(|l| l.split(':').next().unwrap_or("").to_string())
        .unwrap_or_default()
}

/// Shrinks `case` while it still shows a disagreement of the same kind;
/// at most `budget` checks. Returns the smallest case and what it shows.
pub fn minimise(
    case: &Case,
    first: &[String],
    rt: &tokio::runtime::Runtime,
    budget: usize,
    strict: bool,
) -> (Case, Vec<String>) {
    let want = kind(first);
    let (mut best, mut lines) = (case.clone(), first.to_vec());
    let mut spent = 0;
    'outer: while spent < budget {
        for candidate in case::shrinks(&best) {
            spent += 1;
            let found = check(&candidate, rt, strict).disagreements;
            if !found.is_empty() && kind(&found) == want {
                best = candidate;
                lines = found;
                continue 'outer;
            }
            if spent >= budget {
                break 'outer;
            }
        }
        break;
    }
    (best, lines)
}

/// What [`run`] does.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub seed: u64,
    pub cases: u64,
    /// Where minimised disagreements go as fixtures (`None`: nowhere).
    pub fixtures: Option<PathBuf>,
    /// Keep the first `js_cases` cases' collections here, each with
    /// `expected.json` (atlas-rust's dump) and `windows.json`, for the npm
    /// package's test.
    pub js_out: Option<PathBuf>,
    pub js_cases: u64,
    /// Print each disagreement as it is found.
    pub verbose: bool,
    /// Report the writers' known divergences too (see [`check_in`]).
    pub strict: bool,
}

/// What [`run`] found.
#[derive(Debug, Default)]
pub struct Summary {
    pub cases: u64,
    pub disagreements: u64,
    pub refused_by_both: u64,
    pub elapsed: Duration,
    /// Each disagreement: case index and its minimised lines.
    pub found: Vec<(u64, Vec<String>)>,
}

/// Checks cases `0..cases` of `seed`.
pub fn run(options: &RunOptions) -> anyhow::Result<Summary> {
    let rt = crate::runtime()?;
    let began = Instant::now();
    let mut summary = Summary::default();
    if let Some(dir) = &options.js_out {
        if dir.exists() {
            std::fs::remove_dir_all(dir).with_context(|| format!("clearing {}", dir.display()))?;
        }
        std::fs::create_dir_all(dir)?;
    }
    for index in 0..options.cases {
        let case = generate(options.seed, index);
        let keep = options
            .js_out
            .as_ref()
            .filter(|_| index < options.js_cases)
            .map(|dir| dir.join(format!("case-{index:05}")));
        let outcome = match &keep {
            Some(dir) => {
                let outcome = check_in(&case, &rt, dir, options.strict);
                keep_for_js(&case, &rt, dir)?;
                outcome
            }
            None => check(&case, &rt, options.strict),
        };
        summary.cases += 1;
        summary.refused_by_both += outcome.refused_by_both as u64;
        if outcome.disagreements.is_empty() {
            continue;
        }
        summary.disagreements += 1;
        let (small, lines) = minimise(&case, &outcome.disagreements, &rt, 300, options.strict);
        if options.verbose {
            eprintln!("case {index}: {}", lines.join("\n  "));
        }
        if let Some(dir) = &options.fixtures {
            std::fs::create_dir_all(dir)?;
            let fixture = Fixture {
                found_by: format!("diff --seed {} case {index}", options.seed),
                disagreement: lines.clone(),
                open: None,
                case: small,
            };
            let path = dir.join(format!("seed{}-case{index}.json", options.seed));
            std::fs::write(&path, serde_json::to_string_pretty(&fixture)? + "\n")?;
        }
        summary.found.push((index, lines));
    }
    summary.elapsed = began.elapsed();
    Ok(summary)
}

/// Writes `expected.json` and `windows.json` beside each collection of a
/// checked case, for the npm package's test.
fn keep_for_js(case: &Case, rt: &tokio::runtime::Runtime, dir: &Path) -> anyhow::Result<()> {
    for side in ["theirs", "ours"] {
        let coll = dir.join(side);
        if !coll.join("data.atlas").exists() {
            continue;
        }
        let doc = rt.block_on(crate::dump_async(&coll))?;
        let windows = windows(case, &doc);
        crate::write_expected(&coll, &doc)?;
        std::fs::write(
            coll.join("windows.json"),
            serde_json::to_string(&json!(windows))?,
        )?;
    }
    Ok(())
}

/// Replays one committed fixture (strictly when it is `open`): the fixture
/// and the disagreement lines it shows now.
pub fn replay(path: &Path) -> anyhow::Result<(Fixture, Vec<String>)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    let fixture: Fixture =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let rt = crate::runtime()?;
    let lines = check(&fixture.case, &rt, fixture.open.is_some()).disagreements;
    Ok((fixture, lines))
}
