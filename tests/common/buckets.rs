//! Shared by the bucket tests (`cli_cloud.rs` on moto, `cli_azure.rs` on
//! Azurite, `cli_gcs.rs` on fake-gcs-server and on moto as GCS): an
//! emulator on a free loopback port, stopped when dropped; a skip that CI
//! treats as a failure; small and big collections to put in a bucket; a
//! command's output, checked; the round of calls that a collection in a
//! bucket must answer as a local one does.

use std::net::{TcpListener, TcpStream};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use atlas_wasm::write::{AtlasWriter, WriterConfig};
use atlas_wasm::{Attr, FillValue};

/// An emulator process, killed when dropped.
pub struct Emulator {
    child: Child,
    pub port: u16,
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port nothing listens on now, for an emulator to take.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `command`, already told to listen on `port`, and waits until the
/// port answers (a minute at most: emulators start slowly on a busy machine).
pub fn start(what: &str, mut command: Command, port: u16) -> Emulator {
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{what} did not start: {e}"));
    let emulator = Emulator { child, port };
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{what} did not start on {port}");
        std::thread::sleep(Duration::from_millis(100));
    }
    emulator
}

/// `None`, after saying why the test is skipped. CI runs scripts/setup.sh
/// and sets ATLAS_REQUIRE_PYTHON: there a skip is a failure.
pub fn skip<T>(what: &str, install: &str) -> Option<T> {
    assert!(
        std::env::var_os("ATLAS_REQUIRE_PYTHON").is_none(),
        "{what} is required: {install}"
    );
    eprintln!("{what} is not installed; skipped ({install})");
    None
}

/// The real path of a Python that has moto's server (so the child a test
/// holds is the server itself, not a launcher shim), or `None` after saying
/// why the test is skipped.
#[allow(dead_code)]
pub fn moto_python() -> Option<String> {
    let probe = Command::new("python3")
        .args([
            "-c",
            "import sys, moto.server, flask; print(sys.executable)",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success());
    let Some(probe) = probe else {
        return skip("moto's server", "pip install 'moto[server]'");
    };
    Some(String::from_utf8(probe.stdout).unwrap().trim().to_string())
}

/// The command's standard output, after asserting it succeeded.
pub fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Writes datasets `{prefix}{d}` for each `d` of `names` to `dir`, each one
/// float64 array `v`[5] in chunks of 2 (three values written, the rest
/// fill) and the attribute `d`.
pub fn small_collection(dir: &Path, prefix: &str, names: Range<u8>) {
    let _ = std::fs::remove_dir_all(dir);
    let w = AtlasWriter::create(dir, WriterConfig::default()).unwrap();
    for d in names {
        let mut ds = w.add_dataset(&format!("{prefix}{d}")).unwrap();
        ds.define_array::<f64>(
            "v",
            vec!["i".into()],
            &[5],
            Some(&[2]),
            Some(FillValue::Float(f64::NAN)),
        )
        .unwrap();
        ds.write_array("v", &[1], &[3], &[d as f64, 1.5, -2.0])
            .unwrap();
        ds.set_attribute("d", Attr::UInt8(d));
        ds.finish().unwrap();
    }
    w.finish().unwrap();
}

/// A scratch directory for test binary `kind`, unique to this process.
pub fn scratch(kind: &str, name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("atlas-wasm-{kind}-{}-{name}", std::process::id()))
}

/// The round every bucket test makes: the 3-dataset `small_collection` at
/// `local` rewritten to `url`, where `ls`, `info` and `show` answer as they
/// do locally; `get` reads a value and a fill; `rm` hides a dataset once
/// (again is an error); and a rewrite back drops it. `atlas` runs the
/// binary against the emulator.
#[allow(dead_code)]
pub fn reads_writes_and_hides_like_a_local_one(
    url: &str,
    local: &Path,
    atlas: impl Fn(&[&str]) -> Output,
) {
    small_collection(local, "d", 0..3);
    let l = local.to_str().unwrap();
    ok(atlas(&["rewrite", l, url]));
    // What differs by place: the creation time and the container's size.
    let same_place = |c: &str, out: String| {
        out.replace(c, "COLL")
            .lines()
            .filter(|l| !l.contains("created") && !l.contains("container size"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    for args in [&["ls"][..], &["info"], &["show", "--json"]] {
        let run = |c: &str| {
            let mut line = args.to_vec();
            line.push(c);
            if args[0] == "show" {
                line.push("d1");
            }
            same_place(c, ok(atlas(&line)))
        };
        assert_eq!(run(url), run(l), "{args:?}");
    }
    let got = ok(atlas(&["get", url, "d1", "v", "--format", "json"]));
    assert!(got.contains("NaN") && got.contains("1.5"), "{got}");
    assert_eq!(
        ok(atlas(&["rm", url, "d0"])),
        "removed 1: d0\n2 dataset(s) remain\n"
    );
    assert_eq!(ok(atlas(&["ls", url])), "d1\nd2\n");
    assert_eq!(atlas(&["rm", url, "d0"]).status.code(), Some(1));
    let info = ok(atlas(&["info", url]));
    assert!(info.contains("removed           1 (of 3 written"), "{info}");
    let back = local.join("back");
    ok(atlas(&["rewrite", url, back.to_str().unwrap()]));
    assert_eq!(ok(atlas(&["ls", back.to_str().unwrap()])), "d1\nd2\n");
}

/// Two parts in local directories, one dataset each (`a`, `b`) with arrays
/// `x` and `y` of 800,000 pseudo-random doubles (zstd cannot shrink them:
/// 6.4 MB of blocks per array), and their local merge, which a merge
/// anywhere else must read as. Removed when dropped.
#[allow(dead_code)]
pub struct BigParts {
    pub p0: String,
    pub p1: String,
    pub merged: String,
}

#[allow(dead_code)]
impl BigParts {
    /// `atlas` runs the binary (for the local merge); `kind` names the test.
    pub fn new(kind: &str, atlas: impl Fn(&[&str]) -> Output) -> BigParts {
        let path = |name: &str| scratch(kind, name).to_str().unwrap().to_string();
        let parts = BigParts {
            p0: path("p0"),
            p1: path("p1"),
            merged: path("merged"),
        };
        write_big_part(Path::new(&parts.p0), "a", 1, 800_000);
        write_big_part(Path::new(&parts.p1), "b", 2, 800_000);
        let _ = std::fs::remove_dir_all(&parts.merged);
        ok(atlas(&["merge", &parts.p0, &parts.p1, &parts.merged]));
        parts
    }
}

impl Drop for BigParts {
    fn drop(&mut self) {
        for dir in [&self.p0, &self.p1, &self.merged] {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Writes one dataset `name` with arrays `x` and `y` of `n` pseudo-random
/// doubles each to `dir`.
fn write_big_part(dir: &Path, name: &str, seed: u64, n: u64) {
    let _ = std::fs::remove_dir_all(dir);
    let w = AtlasWriter::create(dir, WriterConfig::default()).unwrap();
    let mut ds = w.add_dataset(name).unwrap();
    let mut state = seed;
    for array in ["x", "y"] {
        let values: Vec<f64> = (0..n)
            .map(|_| {
                // splitmix64: every bit varies.
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                f64::from_bits((z ^ (z >> 31)) >> 2)
            })
            .collect();
        ds.define_array::<f64>(array, vec!["i".into()], &[n], Some(&[n / 8]), None)
            .unwrap();
        ds.write_array(array, &[0], &[n], &values).unwrap();
    }
    ds.finish().unwrap();
    w.finish().unwrap();
}

/// The unsigned integer at `key` of the JSON object `json`.
#[allow(dead_code)]
pub fn number(json: &str, key: &str) -> u64 {
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    value[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} in {json}"))
}
