//! What the native benches share (`scale`, `merge`): the benchmark dataset,
//! and the child processes each measurement runs in, which report on
//! themselves from /proc.

use std::process::Command;

use atlas_wasm::write::AtlasWriter;
use atlas_wasm::Attr;

/// Values in each dataset's `value`.
pub const LEN: usize = 24;

/// The `value`s of dataset `d`.
pub fn values(d: usize) -> Vec<f32> {
    (0..LEN).map(|i| (d * 100 + i) as f32).collect()
}

/// Adds dataset `d`: `d{d:07}` with one float32 `value`[24] and the
/// attributes `platform` and `site`.
pub fn add_dataset(writer: &AtlasWriter, d: usize) {
    let mut ds = writer.add_dataset(&format!("d{d:07}")).unwrap();
    ds.define_array::<f32>("value", vec!["level".into()], &[LEN as u64], None, None)
        .unwrap();
    ds.write_array("value", &[0], &[LEN as u64], &values(d))
        .unwrap();
    ds.set_attribute("platform", Attr::Int64(d as i64));
    ds.set_attribute("site", Attr::String(format!("site {}", d % 50)));
    ds.finish().unwrap();
}

/// Runs this bench again with `args`, as a child measuring itself, and
/// takes the numbers it printed.
pub fn run_child(args: &[&str]) -> Vec<f64> {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect()
}

/// A number of this process's /proc file (`status`, `io`): `VmHWM:` in
/// KiB, `rchar:` in bytes.
pub fn own(file: &str, key: &str) -> f64 {
    std::fs::read_to_string(format!("/proc/self/{file}"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}
