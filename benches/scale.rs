//! Open and one dataset's first read at 1,000 to 1,000,000 datasets: our
//! native reader against atlas-rust 0.17.2, in one run, each measurement in
//! a fresh process of its own so its peak RSS is its own.
//!
//! ```text
//! cargo bench --features writer --bench scale                  # 1k, 10k, 100k, 1M
//! ATLAS_SCALE_SIZES=1000,100000 cargo bench --features writer --bench scale
//! ```
//!
//! Collections (each dataset one float32 `value`[24] and two attributes,
//! written by atlas-rust with its default 8 MiB blocks) are kept under
//! `target/tmp/scale-v1/` and reused. Reads are from the local file: the
//! numbers are CPU and memory, not the network (see benches/read_latency.rs).
//! Besides the wall time, each child reports the time it spent on a CPU
//! (`/proc/self/schedstat`), which other work on the machine does not
//! inflate.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const LEN: usize = 24;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [mode, dir, name] = &args[..] {
        if mode == "--ours" || mode == "--theirs" {
            return child(mode, Path::new(dir), name);
        }
    }
    let sizes: Vec<usize> = std::env::var("ATLAS_SCALE_SIZES")
        .unwrap_or_else(|_| "1000,10000,100000,1000000".into())
        .split(',')
        .map(|s| s.trim().parse().expect("ATLAS_SCALE_SIZES: numbers"))
        .collect();
    println!("| datasets | reader | open + first read | on CPU | peak RSS |");
    println!("|---:|---|---:|---:|---:|");
    for n in sizes {
        let dir = collection(n);
        let name = format!("d{:07}", n / 2 + 1);
        let ours = measure("--ours", &dir, &name);
        let theirs = measure("--theirs", &dir, &name);
        for (who, m) in [
            ("atlas-wasm (native)", &ours),
            ("atlas-rust 0.17.2", &theirs),
        ] {
            println!(
                "| {n} | {who} | {:.1} ms | {:.1} ms | {:.0} MiB |",
                m.0, m.2, m.1
            );
        }
        println!(
            "| {n} | ratio (atlas-rust / ours) | {:.1}× | {:.1}× | {:.1}× |",
            theirs.0 / ours.0,
            theirs.2 / ours.2,
            theirs.1 / ours.1
        );
    }
}

/// Runs one reader in a child process; its time (ms), peak RSS (MiB) and
/// time on a CPU (ms).
fn measure(mode: &str, dir: &Path, name: &str) -> (f64, f64, f64) {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args([mode, &dir.display().to_string(), name])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{mode}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut parts = text.split_whitespace().map(|p| p.parse::<f64>().unwrap());
    (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    )
}

fn child(mode: &str, dir: &Path, name: &str) {
    let (start, cpu_start) = (Instant::now(), on_cpu_ms());
    let read: Vec<f32> = if mode == "--ours" {
        let atlas = futures_executor::block_on(atlas_wasm::Atlas::open_path(dir)).unwrap();
        if std::env::var_os("ATLAS_SCALE_SPLIT").is_some() {
            eprintln!("open {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
        }
        let ds = atlas.dataset(name).unwrap();
        futures_executor::block_on(ds.read_array_as::<f32>("value", &[], &[]))
            .unwrap()
            .data
    } else {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let atlas = atlas::Atlas::open_path(dir).await.unwrap();
            let ds = atlas.dataset(name).unwrap();
            ds.read_array::<f32>("value", vec![], vec![])
                .await
                .unwrap()
                .iter()
                .copied()
                .collect()
        })
    };
    let ms = start.elapsed().as_secs_f64() * 1e3;
    assert_eq!(read.len(), LEN);
    println!("{ms} {} {}", peak_rss_mib(), on_cpu_ms() - cpu_start);
}

/// Time this process's threads have run on a CPU: the sum of the first
/// field of each thread's schedstat. A running thread's figure is brought up
/// to date when it leaves the CPU, hence the yield. atlas-rust's file reads
/// run on tokio's blocking threads, which are still alive here (they idle
/// for 10 s before they exit).
fn on_cpu_ms() -> f64 {
    std::thread::yield_now();
    let mut ns = 0.0;
    for task in std::fs::read_dir("/proc/self/task").unwrap() {
        let stat = std::fs::read_to_string(task.unwrap().path().join("schedstat")).unwrap();
        ns += stat
            .split_whitespace()
            .next()
            .unwrap()
            .parse::<f64>()
            .unwrap();
    }
    ns / 1e6
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kib / 1024.0
}

/// The collection of `n` datasets, written by atlas-rust once.
fn collection(n: usize) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("target/tmp/scale-v1/{n}"));
    if dir.join("data.atlas").exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let writer = atlas::AtlasWriter::create_path(&dir, atlas::WriterConfig::default())
            .await
            .unwrap();
        for d in 0..n {
            let mut ds = writer.add_dataset(&format!("d{d:07}")).await.unwrap();
            let values: Vec<f32> = (0..LEN).map(|i| (d * 100 + i) as f32).collect();
            let values = ndarray::Array::from_shape_vec(ndarray::IxDyn(&[LEN]), values).unwrap();
            ds.define_array::<f32>("value", vec!["level".into()], vec![LEN], None, None)
                .await
                .unwrap();
            ds.write_array("value", vec![0], values.view())
                .await
                .unwrap();
            ds.set_attribute("platform", atlas::Attr::Int64(d as i64));
            ds.set_attribute("site", atlas::Attr::String(format!("site {}", d % 50)));
            ds.finish().await.unwrap();
        }
        writer.finish().await.unwrap();
    });
    dir
}
